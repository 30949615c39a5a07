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

use mock_psp::api::TestPaymentMethod;
use paydesk_domain::PaymentState;
use paydesk_register::AttemptKind;

use crate::i18n::{id, t};

/// Declares an enum the screen receives as a word: its variants with their words, `ALL`
/// and `as_str` from one list (ui/contract.js is written from `ALL`, so the two cannot
/// drift), serialized as the word.
macro_rules! wire_enum {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$doc:meta])* $v:ident => $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$doc])* $v,)*
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v,)*];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$v => $s,)*
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

wire_enum! {
    /// How a state, a line or an event is shown: the UI maps a tone to a colour (its CSS
    /// class), and decides nothing else from it.
    pub enum Tone {
        Ok => "ok",
        Warn => "warn",
        Bad => "bad",
        Info => "info",
    }
}

mod cart;
mod outcome;
mod payments;
mod progress;
mod report;
mod sale;
mod words;

pub use cart::{CartLine, CartView, RateLine};
pub use outcome::{reason_with_detail, reason_words, OutcomeKind, OutcomeView, Receipt};
pub use payments::{timeline, PaymentDetail, PaymentHead, PaymentRow, RefundRow, TimelineView};
pub use progress::{forward, Forward, PaymentUpdate, ProgressKind, ProgressView};
pub use report::{report, ReportInput, ReportView, Sale};
pub use sale::{quick_cash, QuickCash, SaleScreen, TenderDayView, TenderRow};
pub use words::{AppliedWhen, AuditConfirmation, BackofficeLink, CancelLineKind, CopySendState, KeyStorage, PspKind, ReaderKind, DrawerReportKind};

/// The tone a state is shown in (`ok` | `warn` | `bad` | `info`, the UI's CSS classes):
/// money in the till is ok, anything still moving is warn, nothing charged is bad,
/// money handed back is info.
pub fn state_tone(state: PaymentState) -> Tone {
    match state {
        PaymentState::Authorized | PaymentState::Captured => Tone::Ok,
        PaymentState::Created
        | PaymentState::QueuedOffline
        | PaymentState::Authorizing
        | PaymentState::Capturing
        | PaymentState::Refunding
        | PaymentState::OnReader => Tone::Warn,
        PaymentState::Failed | PaymentState::Canceled => Tone::Bad,
        PaymentState::PartiallyRefunded | PaymentState::Refunded => Tone::Info,
    }
}

/// The tone of an attempt's live progress line: done is ok; a decline, and an answer
/// that needs the owner (the PSP refused the request, the key or the settings), is bad;
/// everything the register keeps retrying or resolving is warn.
pub fn attempt_tone(kind: AttemptKind) -> Tone {
    use AttemptKind as K;
    match kind {
        K::Ok | K::Replayed => Tone::Ok,
        K::Declined | K::BadRequest | K::Auth | K::IdempotencyError | K::NotFound | K::Config | K::Unexpected => Tone::Bad,
        K::ConnectionRefused | K::ConnectTimeout | K::Timeout | K::ConnectionLost | K::AnswerTooLarge | K::TransportError => Tone::Warn,
        K::InProgress | K::RateLimited | K::Unavailable | K::ServerError | K::ReplayedServerError | K::NotAPsp => Tone::Warn,
    }
}

/// How one attempt ended, in the cashier's words and the screen's language: chosen by
/// the attempt's kind, never by the engine's English text (record 0070).
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

/// A keyed payment's card, by the test payment method its token names (the mock PSP's
/// list); a token outside the list is shown as the ledger holds it, shortened.
fn card_label(pm: Option<&str>) -> String {
    let Some(token) = pm else { return t(id!("tender-card")) };
    match TestPaymentMethod::parse(token) {
        Some(TestPaymentMethod::Visa) => t(id!("card-visa")),
        Some(TestPaymentMethod::Mastercard) => t(id!("card-mastercard")),
        Some(TestPaymentMethod::ChargeDeclined | TestPaymentMethod::ChargeDeclinedInsufficientFunds) => t(id!("card-test-declines")),
        // Shown, not decided on: the token without its `pm_card_` prefix.
        None => token.trim_start_matches("pm_card_").replace('_', " "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_register::AlarmCode;
    use crate::wording::{alarm_words, state_label};

    /// Every state has its own words and a tone the UI styles, and its stored
    /// form parses back (what `parse_state` relies on).
    #[test]
    fn every_state_has_words_and_a_styled_tone() {
        let mut labels = std::collections::HashSet::new();
        for s in PaymentState::ALL {
            assert!(labels.insert(state_label(s)), "{s} shares its label");
            assert!(Tone::ALL.contains(&state_tone(s)), "{s}");
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
                "ok" | "replayed" => Tone::Ok,
                "declined" => Tone::Bad,
                l if l.starts_with("psp_") || l == "idempotency_error" => Tone::Bad,
                _ => Tone::Warn,
            };
            assert_eq!(attempt_tone(k), by_label, "{k}");
        }
    }

    /// Every test card is named from the typed list: the declining ones by what they
    /// do, whatever their token's spelling; a token outside the list as it is.
    #[test]
    fn card_labels_come_from_the_test_card_list() {
        let labels: Vec<String> = TestPaymentMethod::ALL.iter().map(|m| card_label(Some(m.token()))).collect();
        assert_eq!(labels[0], t(id!("card-visa")));
        assert_eq!(labels[1], t(id!("card-mastercard")));
        assert_eq!(labels[2..], [t(id!("card-test-declines")), t(id!("card-test-declines"))]);
        // The word alone decides nothing: a token the list does not hold is shown as is.
        assert_eq!(card_label(Some("pm_card_someDeclined_card")), "someDeclined card");
        assert_eq!(card_label(None), t(id!("tender-card")));
    }

    /// Every alarm has its own words, and Japanese ones on a Japanese screen (the
    /// engine's English detail never is what the cashier reads).
    #[test]
    fn every_alarm_has_words_in_both_languages() {
        let words = |l| {
            crate::i18n::set_active(l);
            let w: Vec<String> = AlarmCode::ALL.iter().map(|c| alarm_words(*c)).collect();
            crate::i18n::set_active(paydesk_domain::Locale::En);
            w
        };
        let (en, ja) = (words(paydesk_domain::Locale::En), words(paydesk_domain::Locale::Ja));
        for (i, c) in AlarmCode::ALL.iter().enumerate() {
            assert_ne!(en[i], ja[i], "{c:?} is not translated");
            assert_eq!(en.iter().filter(|w| **w == en[i]).count(), 1, "{c:?} shares its words");
        }
    }
}
