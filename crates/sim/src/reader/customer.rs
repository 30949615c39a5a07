//! The customer's side of the reader and the register crashes at reader steps.
//!
//! A tap goes straight to the PSP's test helper (`present_payment_method`), not through
//! the register's wire: the card talks to the reader, not to the register, so the
//! register's network faults and crash points do not apply to it. The PSP's own
//! request faults still do (a slow or lost presentation), as the fault machinery sees
//! every request.

use crate::driver::Sim;
use crate::world::drive_psp;
use mock_psp::{Outcome, PspRequest};
use paydesk_register::TestCard;
use rand::Rng;

/// Reader steps a register crash can be armed at: the marker in the request's path, and
/// the crash's name in the report.
pub(super) const AFTER_PROCESS: (&str, &str) = ("/process_payment_intent", "reader_after_process");
/// The first read of the reader after the card was presented.
pub(super) const AFTER_PRESENT: (&str, &str) = ("/v1/terminal/readers/", "reader_after_present");
/// `cancel_action`, or the intent's cancel when abandoning.
pub(super) const AFTER_CANCEL: (&str, &str) = ("/cancel", "reader_after_cancel");

/// How the customer's tap went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tap {
    /// The reader took the card (authorized, declined, or held by the delay fault).
    Taken,
    /// The reader refused it (no action in progress, busy, offline).
    Refused,
    /// The PSP is slow with it: it completes later in virtual time.
    Late,
    /// The PSP never saw it (dropped, or the PSP is unreachable).
    Lost,
}

impl Sim {
    /// Arms a register crash right after the next request of a reader step, with the
    /// profile's crash rate doubled (each step must be hit often enough to matter).
    pub(super) fn maybe_crash_at_step(&mut self, step: (&'static str, &'static str)) {
        let p = (self.rates.register_crash * 2.0).min(1.0);
        if p > 0.0 && self.rng.random_bool(p) {
            *self.wire.crash_after_path.lock() = Some(step);
        }
    }

    /// The customer presents `card` on the reader.
    pub(super) async fn tap(&mut self, card: TestCard) -> Tap {
        let reader = self.reader.clone().expect("a registered reader");
        let n = self.rep.readers.get("taps").copied().unwrap_or(0);
        self.rtally("taps");
        let body = format!("type=card_present&card_present%5Bnumber%5D={}", card.number());
        let req = PspRequest {
            method: "POST".into(),
            path: format!("/v1/test_helpers/terminal/readers/{reader}/present_payment_method"),
            query: String::new(),
            headers: vec![
                ("authorization".into(), format!("Bearer {}", crate::SECRET)),
                ("content-type".into(), "application/x-www-form-urlencoded".into()),
                ("idempotency-key".into(), format!("sim-customer-tap-{n}")),
            ],
            body: bytes::Bytes::from(body),
        };
        let psp = self.psp.clone();
        let mut fut: crate::world::PspFuture = Box::pin(async move { psp.handle(req).await });
        let tap = match drive_psp(&mut fut, &self.core) {
            Ok(Outcome::Respond(r)) if (200..300).contains(&r.status) => Tap::Taken,
            Ok(Outcome::Respond(_)) => Tap::Refused,
            Ok(Outcome::DropResponse(r)) if (200..300).contains(&r.status) => Tap::Taken,
            Ok(Outcome::DropResponse(_)) => Tap::Refused,
            Ok(Outcome::DropRequest | Outcome::Offline) => Tap::Lost,
            Err(deadline) => {
                self.core.park_request(deadline, fut);
                Tap::Late
            }
        };
        self.rtally(format!("tap:{}", match tap {
            Tap::Taken => "taken",
            Tap::Refused => "refused",
            Tap::Late => "late",
            Tap::Lost => "lost",
        }));
        // The customer takes a moment; the register is polling meanwhile.
        self.core.advance(self.rng.random_range(200..1_500));
        tap
    }
}
