//! Card-present payments on a server-driven reader (decision 0102): the
//! shared vocabulary — what the cashier is told ([`ReaderOutcome`]), the report, the
//! bounds on waiting — and [`conclude`], the one table of what a read of the reader and
//! the intent proves. Each stage lives in its own file:
//! `setup` (locations, readers, the simulated customer), `start` (charge, present again),
//! `resolve` (read, poll, check status, recovery), `cancel` (cancel on reader, abandon).
//!
//! The rules (SPEC rules 1, 5, 8, 11, 13):
//! * the checkout key and the reader are committed before anything is sent; the intent is
//!   created under the checkout key, without a payment method and without confirm;
//! * each process attempt is committed before it is sent, under `<key>-process-<n>`;
//!   `n` grows only on a person's action, and every attempt processes the SAME intent;
//! * only a succeeded / requires_capture intent is "paid"; only an intent back in
//!   `requires_payment_method` whose action failed (not with `connection_error`) or was
//!   cleared, or a canceled intent, is "not charged"; everything else is pending and is
//!   resolved by reading the reader and the intent, never by sending again;
//! * a cancel is always followed by a read; abandoning cancels the intent at the PSP;
//! * never offline: with the PSP unreachable the answer is "reader unavailable".

mod cancel;
mod display;
mod resolve;
mod setup;
mod start;

pub use setup::{ReaderRegistration, TestCard};
pub use start::ReaderTenderReport;

use crate::psp::{PaymentIntent, PiStatus, Reader, ReaderActionStatus};
use paydesk_ledger::CardPresentDetails;
use paydesk_domain::PaymentState;
use paydesk_domain::Currency;
use serde::Serialize;
use std::time::Duration;

/// How the engine waits for a reader (decision 0102). No webhooks on a desktop: it polls
/// the reader and the intent every `poll_interval`, for at most `wait` per call.
#[derive(Debug, Clone, PartialEq)]
pub struct ReaderConfig {
    /// Between two reads of the reader and the intent. Clamped to 50 ms ..= 5 s.
    pub poll_interval: Duration,
    /// How long one charge / present-again / check call waits for a result before it
    /// answers "still on the reader" (the app calls Check status to go on). At most 5 min.
    pub wait: Duration,
    /// An action still `in_progress` after this long is reported as stuck (pending: the
    /// cashier can check status or cancel on the reader).
    pub stuck_after: Duration,
}

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig {
            poll_interval: Duration::from_millis(500),
            wait: Duration::from_secs(60),
            stuck_after: Duration::from_secs(120),
        }
    }
}

impl ReaderConfig {
    pub(crate) fn poll(&self) -> Duration {
        self.poll_interval.clamp(Duration::from_millis(50), Duration::from_secs(5))
    }
    pub(crate) fn wait_bound(&self) -> Duration {
        self.wait.min(Duration::from_secs(300))
    }
}

/// Why a reader payment is known NOT charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotChargedWhy {
    /// The card was declined (the action failed; the intent is back in
    /// `requires_payment_method`): "Present again" with another card, same intent.
    Declined,
    /// The customer canceled on the reader.
    CustomerCanceled,
    /// The action was canceled or cleared from the register, and the read afterwards
    /// showed nothing charged.
    ActionCanceled,
    /// The reader refused the command before starting it (busy, offline, invalid).
    NotStarted,
    /// The intent is canceled at the PSP (abandoned): never charged, and never will be.
    IntentCanceled,
}

impl NotChargedWhy {
    /// Every reason (ui/contract.js lists them; `as_str` is exhaustive).
    pub const ALL: [NotChargedWhy; 5] = [
        NotChargedWhy::Declined,
        NotChargedWhy::CustomerCanceled,
        NotChargedWhy::ActionCanceled,
        NotChargedWhy::NotStarted,
        NotChargedWhy::IntentCanceled,
    ];

    /// The wire form (serialized the same).
    pub const fn as_str(self) -> &'static str {
        match self {
            NotChargedWhy::Declined => "declined",
            NotChargedWhy::CustomerCanceled => "customer_canceled",
            NotChargedWhy::ActionCanceled => "action_canceled",
            NotChargedWhy::NotStarted => "not_started",
            NotChargedWhy::IntentCanceled => "intent_canceled",
        }
    }
}

/// Why a reader payment's outcome is not known yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PendingWhy {
    /// `terminal_reader_timeout`: sometimes the reader did get the command.
    ReaderTimeout,
    /// No answer to a request that may have executed (timeout, reset, 5xx).
    LostAnswer,
    /// The action failed with `connection_error` during authorization: it may have gone through.
    ConnectionError,
    /// The action stays `in_progress` far longer than a customer takes.
    ActionStuck,
    /// The reader or the intent could not be read (the PSP is unreachable right now).
    CannotRead,
    /// The intent is in a state that is not a result (`processing`, an unknown status).
    Processing,
}

/// Why the reader cannot take the payment now (nothing was started: offer cash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnavailableWhy {
    /// The PSP cannot be reached: a server-driven reader cannot take cards offline.
    PspUnreachable,
    /// `terminal_reader_offline`: the reader has not been seen for a while.
    ReaderOffline,
}

/// What the cashier is told about a reader payment. Typed: the app picks its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReaderOutcome {
    /// The intent succeeded: paid, once.
    Paid,
    /// The intent holds the funds (manual capture).
    Authorized,
    /// The reader is waiting for the card (the action is `in_progress`, nothing decided).
    WaitingForCard,
    /// Not charged (see `why`); unless the intent is canceled, the same intent can be
    /// presented again.
    NotCharged { why: NotChargedWhy },
    /// Outcome unknown: shown with the checkout key, resolved by reading, never resent.
    Pending { why: PendingWhy },
    /// `terminal_reader_busy`: the reader is doing something else; nothing started.
    ReaderBusy,
    /// Nothing started: offer cash or another tender.
    ReaderUnavailable { why: UnavailableWhy },
}

impl ReaderOutcome {
    /// A final word about the money: paid / authorized, or not charged.
    pub fn is_resolved(self) -> bool {
        match self {
            ReaderOutcome::Paid | ReaderOutcome::Authorized | ReaderOutcome::NotCharged { .. } => true,
            ReaderOutcome::WaitingForCard
            | ReaderOutcome::Pending { .. }
            | ReaderOutcome::ReaderBusy
            | ReaderOutcome::ReaderUnavailable { .. } => false,
        }
    }
}

/// A reader payment as it stands, for the checkout panel, the CLI and the receipt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReaderReport {
    pub checkout_key: String,
    pub state: PaymentState,
    pub outcome: ReaderOutcome,
    pub reader_id: String,
    /// The PaymentIntent (once created).
    pub intent_id: Option<String>,
    /// The newest process attempt and its key.
    pub attempt_no: Option<i64>,
    pub process_key: Option<String>,
    /// The PSP's failure code and words, when the reader said why.
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    /// Brand, last 4 and the EMV fields, once paid.
    pub card: Option<CardPresentDetails>,
    pub amount: i64,
    pub currency: Currency,
}

/// What one read of the reader and the intent proves about one process attempt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Conclusion {
    Paid,
    Authorized,
    /// Not charged; `intent_canceled` makes it final.
    NotCharged { why: NotChargedWhy, code: Option<String>, message: Option<String> },
    /// The reader is still collecting the card.
    Waiting,
    Pending { why: PendingWhy, code: Option<String>, message: Option<String> },
}

/// THE table of what a read proves (decision 0102). The reader is read first and the intent
/// second, so a tap landing between the two reads shows up in the intent (a success
/// always wins); `reader` is `None` when it could not be read.
pub(crate) fn conclude(intent: &PaymentIntent, reader: Option<&Reader>) -> Conclusion {
    // The intent's status as the PSP client reads it (`PaymentIntent::pi_status`, the one
    // place its words are parsed).
    match intent.pi_status() {
        PiStatus::Succeeded => return Conclusion::Paid,
        PiStatus::RequiresCapture => return Conclusion::Authorized,
        PiStatus::Canceled => return Conclusion::NotCharged { why: NotChargedWhy::IntentCanceled, code: None, message: None },
        // requires_payment_method: on a reader, the reader's action says why (below).
        PiStatus::Failed => {}
        // processing, requires_confirmation, requires_action, anything new: not a result.
        PiStatus::Other => return Conclusion::Pending { why: PendingWhy::Processing, code: None, message: None },
    }
    let Some(reader) = reader else {
        return Conclusion::Pending { why: PendingWhy::CannotRead, code: None, message: None };
    };
    let Some(action) = reader.action_for(&intent.id) else {
        // Cleared: no action of this intent on the reader, and the intent wants a payment
        // method. Nothing is processing it, so nothing can charge it.
        return Conclusion::NotCharged { why: NotChargedWhy::ActionCanceled, code: None, message: None };
    };
    let code = action.failure_code.clone();
    let message = action.failure_message.clone();
    match action.status() {
        ReaderActionStatus::InProgress => Conclusion::Waiting,
        ReaderActionStatus::Failed => match code.as_deref() {
            // During authorization: the payment may have gone through. Never "not charged".
            Some("connection_error") => Conclusion::Pending { why: PendingWhy::ConnectionError, code, message },
            Some("customer_canceled") => Conclusion::NotCharged { why: NotChargedWhy::CustomerCanceled, code, message },
            Some("action_canceled" | "canceled") => Conclusion::NotCharged { why: NotChargedWhy::ActionCanceled, code, message },
            _ => Conclusion::NotCharged { why: NotChargedWhy::Declined, code, message },
        },
        // The reader says it succeeded but the intent (read after it) does not: a read
        // that lags; read again.
        ReaderActionStatus::Succeeded | ReaderActionStatus::Other => {
            Conclusion::Pending { why: PendingWhy::Processing, code, message }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pi(status: &str) -> PaymentIntent {
        serde_json::from_value(serde_json::json!({"id": "pi_1", "amount": 500, "currency": "jpy", "status": status})).unwrap()
    }
    fn reader(action: serde_json::Value) -> Reader {
        serde_json::from_value(serde_json::json!({"id": "tmr_1", "status": "online", "action": action})).unwrap()
    }
    fn act(status: &str, code: Option<&str>, intent: &str) -> serde_json::Value {
        serde_json::json!({"type": "process_payment_intent", "status": status, "failure_code": code,
                           "process_payment_intent": {"payment_intent": intent}})
    }

    #[test]
    fn only_a_succeeded_or_held_intent_is_paid_whatever_the_reader_says() {
        for r in [None, Some(reader(serde_json::Value::Null)), Some(reader(act("failed", Some("connection_error"), "pi_1")))] {
            assert_eq!(conclude(&pi("succeeded"), r.as_ref()), Conclusion::Paid);
            assert_eq!(conclude(&pi("requires_capture"), r.as_ref()), Conclusion::Authorized);
        }
    }

    #[test]
    fn not_charged_needs_requires_payment_method_with_a_failed_or_cleared_action_or_a_canceled_intent() {
        let declined = conclude(&pi("requires_payment_method"), Some(&reader(act("failed", Some("card_declined"), "pi_1"))));
        assert!(matches!(declined, Conclusion::NotCharged { why: NotChargedWhy::Declined, .. }), "{declined:?}");
        let cancel = conclude(&pi("requires_payment_method"), Some(&reader(act("failed", Some("customer_canceled"), "pi_1"))));
        assert!(matches!(cancel, Conclusion::NotCharged { why: NotChargedWhy::CustomerCanceled, .. }));
        let cleared = conclude(&pi("requires_payment_method"), Some(&reader(serde_json::Value::Null)));
        assert!(matches!(cleared, Conclusion::NotCharged { why: NotChargedWhy::ActionCanceled, .. }));
        let other_intent = conclude(&pi("requires_payment_method"), Some(&reader(act("in_progress", None, "pi_9"))));
        assert!(matches!(other_intent, Conclusion::NotCharged { .. }), "another intent's action clears ours");
        assert!(matches!(conclude(&pi("canceled"), None), Conclusion::NotCharged { why: NotChargedWhy::IntentCanceled, .. }));
    }

    #[test]
    fn everything_unsure_is_pending_or_waiting() {
        let conn = conclude(&pi("requires_payment_method"), Some(&reader(act("failed", Some("connection_error"), "pi_1"))));
        assert!(matches!(conn, Conclusion::Pending { why: PendingWhy::ConnectionError, .. }), "{conn:?}");
        assert!(matches!(conclude(&pi("requires_payment_method"), None), Conclusion::Pending { why: PendingWhy::CannotRead, .. }));
        assert!(matches!(conclude(&pi("processing"), None), Conclusion::Pending { why: PendingWhy::Processing, .. }));
        assert_eq!(conclude(&pi("requires_payment_method"), Some(&reader(act("in_progress", None, "pi_1")))), Conclusion::Waiting);
        let lag = conclude(&pi("requires_payment_method"), Some(&reader(act("succeeded", None, "pi_1"))));
        assert!(matches!(lag, Conclusion::Pending { .. }), "a reader success the intent does not show yet is read again");
    }
}
