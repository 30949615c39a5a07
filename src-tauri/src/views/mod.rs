//! What the screen shows, built from the engine's reports and the ledger's rows.
//! Amounts stay integer minor units; `*_display` strings are formatted here.
//!
//! This file holds the shared vocabulary: a payment state in the cashier's words
//! and its tone (the one place a state's colour is decided; the UI only maps a
//! tone to a colour). One file per screen concern:
//!
//! | file          | what it builds                                              |
//! |---------------|-------------------------------------------------------------|
//! | `outcome.rs`  | the checkout panel's result and receipt ([`OutcomeView`])   |
//! | `progress.rs` | engine notifications → live progress and background updates |
//! | `payments.rs` | the payments list, one payment's detail and its timeline    |
//! | `report.rs`   | the end-of-day report                                       |
//! | `sale.rs`     | the tender panel's sale, and End of day's tender totals     |

use paydesk_ledger::PaymentState;
use paydesk_register::AttemptKind;

use crate::i18n::{id, t};

mod outcome;
mod payments;
mod progress;
mod report;
mod sale;

pub use outcome::{reason_with_detail, reason_words, OutcomeView, Receipt};
pub use payments::{timeline, PaymentDetail, PaymentHead, PaymentRow, RefundRow, TimelineView};
pub use progress::{forward, Forward, PaymentUpdate, ProgressView};
pub use report::{report, ReportInput, ReportView, Sale};
pub use sale::{quick_cash, QuickCash, SaleScreen, TenderDayView, TenderRow};

/// A payment state in the cashier's words, in the screen's language (design §13).
pub fn state_label(state: PaymentState) -> String {
    t(match state {
        PaymentState::Created => id!("state-created"),
        PaymentState::QueuedOffline => id!("state-queued-offline"),
        PaymentState::Authorizing => id!("state-authorizing"),
        PaymentState::Authorized => id!("state-authorized"),
        PaymentState::Capturing => id!("state-capturing"),
        PaymentState::Captured => id!("state-captured"),
        // Declined, or refused before it ran (wrong key): either way never charged.
        PaymentState::Failed => id!("state-failed"),
        PaymentState::Canceled => id!("state-canceled"),
        PaymentState::Refunding => id!("state-refunding"),
        PaymentState::PartiallyRefunded => id!("state-partially-refunded"),
        PaymentState::Refunded => id!("state-refunded"),
        PaymentState::OnReader => id!("state-on-reader"),
    })
}

/// The tone a state is shown in (`ok` | `warn` | `bad` | `info`, the UI's CSS classes):
/// money in the till is ok, anything still moving is warn, nothing charged is bad,
/// money handed back is info.
pub fn state_tone(state: PaymentState) -> &'static str {
    match state {
        PaymentState::Authorized | PaymentState::Captured => "ok",
        PaymentState::Created
        | PaymentState::QueuedOffline
        | PaymentState::Authorizing
        | PaymentState::Capturing
        | PaymentState::Refunding
        | PaymentState::OnReader => "warn",
        PaymentState::Failed | PaymentState::Canceled => "bad",
        PaymentState::PartiallyRefunded | PaymentState::Refunded => "info",
    }
}

/// The tone of an attempt's live progress line: done is ok; a decline, and an answer
/// that needs the owner (the PSP refused the request, the key or the settings), is bad;
/// everything the register keeps retrying or resolving is warn.
pub fn attempt_tone(kind: AttemptKind) -> &'static str {
    use AttemptKind as K;
    match kind {
        K::Ok | K::Replayed => "ok",
        K::Declined | K::BadRequest | K::Auth | K::IdempotencyError | K::NotFound | K::Config | K::Unexpected => "bad",
        K::ConnectionRefused | K::ConnectTimeout | K::Timeout | K::ConnectionLost | K::AnswerTooLarge | K::TransportError => "warn",
        K::InProgress | K::RateLimited | K::Unavailable | K::ServerError | K::ReplayedServerError | K::NotAPsp => "warn",
    }
}

/// How one attempt ended, in the cashier's words and the screen's language: chosen by
/// the attempt's kind, never by the engine's English text (design §13.3).
pub fn attempt_words(kind: AttemptKind) -> String {
    use AttemptKind as K;
    t(match kind {
        K::Ok => id!("attempt-ok"),
        K::Replayed => id!("attempt-replayed"),
        K::Declined => id!("attempt-declined"),
        K::ConnectionRefused => id!("attempt-connection-refused"),
        K::ConnectTimeout => id!("attempt-connect-timeout"),
        K::Timeout => id!("attempt-timeout"),
        K::ConnectionLost => id!("attempt-connection-lost"),
        K::AnswerTooLarge => id!("attempt-answer-too-large"),
        K::TransportError => id!("attempt-transport-error"),
        K::InProgress => id!("attempt-in-progress"),
        K::RateLimited => id!("attempt-rate-limited"),
        K::Unavailable => id!("attempt-unavailable"),
        K::ServerError => id!("attempt-server-error"),
        K::ReplayedServerError => id!("attempt-replayed-server-error"),
        K::BadRequest => id!("attempt-bad-request"),
        K::Auth => id!("attempt-auth"),
        K::IdempotencyError => id!("attempt-idempotency-error"),
        K::NotFound => id!("attempt-not-found"),
        K::Config => id!("attempt-config"),
        K::Unexpected => id!("attempt-unexpected"),
        K::NotAPsp => id!("attempt-not-a-psp"),
    })
}

/// A payment state that arrived as text (engine notifications, timeline rows).
/// `None` for text the ledger does not know; callers show the text as it is.
fn parse_state(text: &str) -> Option<PaymentState> {
    text.parse().ok()
}

fn card_label(pm: Option<&str>) -> String {
    match pm {
        Some("pm_card_visa") => t(id!("card-visa")),
        Some("pm_card_mastercard") => t(id!("card-mastercard")),
        Some(p) if p.contains("Declined") || p.contains("declined") => t(id!("card-test-declines")),
        Some(p) => p.trim_start_matches("pm_card_").replace('_', " "),
        None => t(id!("tender-card")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every state has its own words and a tone the UI styles, and its stored
    /// form parses back (what `parse_state` relies on).
    #[test]
    fn every_state_has_words_and_a_styled_tone() {
        let mut labels = std::collections::HashSet::new();
        for s in PaymentState::ALL {
            assert!(labels.insert(state_label(s)), "{s} shares its label");
            assert!(["ok", "warn", "bad", "info"].contains(&state_tone(s)), "{s}");
            assert_eq!(parse_state(s.as_str()), Some(s));
        }
        assert_eq!(parse_state("no_such_state"), None);
    }

    /// An attempt's tone is decided by its kind, as it was by its label: done is ok, a
    /// decline or a request the PSP refused (`psp_*`, `idempotency_error`) is bad, the
    /// rest is warn.
    #[test]
    fn attempt_tone_by_kind() {
        for k in AttemptKind::ALL {
            let by_label = match k.label() {
                "ok" | "replayed" => "ok",
                "declined" => "bad",
                l if l.starts_with("psp_") || l == "idempotency_error" => "bad",
                _ => "warn",
            };
            assert_eq!(attempt_tone(k), by_label, "{k}");
        }
    }
}
