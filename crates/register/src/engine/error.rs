//! [`EngineError`]: the engine's typed errors. `code()` and `Display` are what the UI
//! and the CLI show (`{code, message}`); the code is stable, the message is words.

use paydesk_domain::{Currency, PaymentState};
use std::sync::Arc;

/// Typed errors; `code()` + `Display` are what the UI shows (`{code, message}`).
#[derive(Debug, Clone, thiserror::Error)]
pub enum EngineError {
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The cart has an open checkout or is already paid: it cannot change or be charged
    /// again. Reported as `invalid_input`, like any refused request.
    #[error("invalid input: {0}")]
    CartLocked(String),
    /// The cart has nothing to charge. Reported as `invalid_input`.
    #[error("invalid input: {0}")]
    CartEmpty(String),
    #[error("unknown payment {0}")]
    UnknownPayment(String),
    #[error("refund of {requested} exceeds the refundable {refundable} on payment {key}")]
    RefundExceedsCaptured { key: String, requested: i64, refundable: i64, currency: Currency },
    /// `attempted` is not possible in the payment's state; `what` says why.
    #[error("payment {key} is {state}: {what}")]
    WrongState { key: String, state: PaymentState, attempted: Attempted, what: String },
    /// Another refund of the payment is not settled yet. Reported as `wrong_state` (the
    /// payment is `refunding`).
    #[error("payment {key} is refunding: a refund of this payment ({refund_key}) is still being confirmed; wait for it before refunding again")]
    RefundInProgress { key: String, refund_key: String },
    #[error("the previous payment {key} is {state} and its outcome is not known yet; a new payment could charge the customer twice. Wait, or override with a reason")]
    PreviousOutcomeUnknown { key: String, state: PaymentState },
    #[error("payment {key} already went through ({state}); no new payment needed")]
    AlreadyPaid { key: String, state: PaymentState },
    #[error("{key} already has a later payment {later} ({state}); to try again, start from that one")]
    LaterPaymentExists { key: String, later: String, state: PaymentState },
    #[error("payment not accepted offline: {reason}. {detail}")]
    OfflineRefused { key: String, reason: String, detail: String },
    #[error("PSP configuration problem: {0}")]
    PspConfig(String),
    #[error("the PSP rejected the request: {0}")]
    PspRejected(String),
    /// Something needs a person; `code` says what (the screen words it), `detail` is
    /// the engine's English account of it.
    #[error("ALARM: {detail}")]
    Alarm { code: crate::notify::AlarmCode, detail: String },
    /// The ledger's own error is the source (shared: the engine's errors are `Clone`).
    #[error("ledger: {0}")]
    Ledger(#[source] Arc<paydesk_ledger::Error>),
    /// A tender larger than what the sale still needs (record 0028).
    #[error("a tender of {requested} exceeds the {open} still open on sale {cart}")]
    TenderExceedsDue { cart: i64, requested: i64, open: i64, currency: Currency },
    /// A card tender of the sale has an unknown outcome: no other tender without an
    /// override reason (record 0028).
    #[error("sale {cart}: card tender {key} has an unknown outcome; another tender could charge the customer twice. Wait, or override with a reason")]
    TenderUnknownOutstanding { cart: i64, key: String },
    #[error("sale {cart} is already paid in full")]
    SaleComplete { cart: i64 },
    #[error("sale {cart} was canceled")]
    SaleCanceled { cart: i64 },
    #[error("refund of {requested} exceeds the refundable {refundable} of sale {cart}")]
    SaleRefundExceeds { cart: i64, requested: i64, refundable: i64 },
    /// A checkout call failed after its key was committed and its payment could not
    /// even be read back: the outcome is unknown, and recovery resolves it by its key.
    #[error("{source}; checkout {key}: the outcome is not known yet, the register resolves it with the same key")]
    Unresolved { key: String, source: Box<EngineError> },
}

impl EngineError {
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::InvalidInput(_) | EngineError::CartLocked(_) | EngineError::CartEmpty(_) => "invalid_input",
            EngineError::UnknownPayment(_) => "unknown_payment",
            EngineError::RefundExceedsCaptured { .. } => "refund_exceeds_captured",
            EngineError::WrongState { .. } | EngineError::RefundInProgress { .. } => "wrong_state",
            EngineError::PreviousOutcomeUnknown { .. } => "previous_outcome_unknown",
            EngineError::AlreadyPaid { .. } => "already_paid",
            EngineError::LaterPaymentExists { .. } => "later_payment_exists",
            EngineError::OfflineRefused { .. } => "offline_refused",
            EngineError::PspConfig(_) => "psp_config",
            EngineError::PspRejected(_) => "psp_rejected",
            EngineError::Alarm { .. } => "alarm",
            EngineError::Ledger(_) => "ledger",
            EngineError::Unresolved { .. } => "outcome_unknown",
            EngineError::TenderExceedsDue { .. } => "tender_exceeds_due",
            EngineError::TenderUnknownOutstanding { .. } => "tender_unknown_outstanding",
            EngineError::SaleComplete { .. } => "sale_complete",
            EngineError::SaleCanceled { .. } => "sale_canceled",
            EngineError::SaleRefundExceeds { .. } => "sale_refund_exceeds",
        }
    }

    /// The engine refused the request itself (bad input, a guard such as "the previous
    /// outcome is unknown"): no payment's money moved or became uncertain because of it.
    /// Every other error of a checkout call is about a payment (record 0013).
    pub fn refused_the_request(&self) -> bool {
        match self {
            EngineError::InvalidInput(_)
            | EngineError::CartLocked(_)
            | EngineError::CartEmpty(_)
            | EngineError::RefundInProgress { .. }
            | EngineError::UnknownPayment(_)
            | EngineError::RefundExceedsCaptured { .. }
            | EngineError::WrongState { .. }
            | EngineError::PreviousOutcomeUnknown { .. }
            | EngineError::AlreadyPaid { .. }
            | EngineError::LaterPaymentExists { .. }
            | EngineError::TenderExceedsDue { .. }
            | EngineError::TenderUnknownOutstanding { .. }
            | EngineError::SaleComplete { .. }
            | EngineError::SaleCanceled { .. }
            | EngineError::SaleRefundExceeds { .. } => true,
            EngineError::OfflineRefused { .. }
            | EngineError::PspConfig(_)
            | EngineError::PspRejected(_)
            | EngineError::Alarm { .. }
            | EngineError::Ledger(_)
            | EngineError::Unresolved { .. } => false,
        }
    }

    /// The checkout key this error is about, when a payment row exists for it.
    pub fn checkout_key(&self) -> Option<&str> {
        match self {
            EngineError::RefundExceedsCaptured { key, .. }
            | EngineError::WrongState { key, .. }
            | EngineError::RefundInProgress { key, .. }
            | EngineError::PreviousOutcomeUnknown { key, .. }
            | EngineError::AlreadyPaid { key, .. }
            | EngineError::LaterPaymentExists { key, .. }
            | EngineError::OfflineRefused { key, .. }
            | EngineError::Unresolved { key, .. }
            | EngineError::TenderUnknownOutstanding { key, .. } => Some(key),
            EngineError::TenderExceedsDue { .. }
            | EngineError::SaleComplete { .. }
            | EngineError::SaleCanceled { .. }
            | EngineError::SaleRefundExceeds { .. }
            | EngineError::UnknownPayment(_)
            | EngineError::InvalidInput(_)
            | EngineError::CartLocked(_)
            | EngineError::CartEmpty(_)
            | EngineError::PspConfig(_)
            | EngineError::PspRejected(_)
            | EngineError::Alarm { .. }
            | EngineError::Ledger(_) => None,
        }
    }
}

impl From<paydesk_ledger::Error> for EngineError {
    fn from(e: paydesk_ledger::Error) -> Self {
        use paydesk_ledger::Error as L;
        match e {
            L::InvalidAmount(_) | L::InvalidCurrency(_) | L::InvalidInput(_) | L::InvalidItem { .. } | L::Overflow => {
                EngineError::InvalidInput(e.to_string())
            }
            L::CurrencyMismatch { .. } | L::UnknownProduct(_) => EngineError::InvalidInput(e.to_string()),
            // Refused input, as they were before they were typed (the app reads the type).
            L::ShiftRefused(_) | L::NotTheOperator { .. } | L::InactiveStaff { .. } => EngineError::InvalidInput(e.to_string()),
            // Refused as they were before they were typed (record 0114 typed them).
            L::SaleNotPaid { .. } | L::CardTenderNotForwarded { .. } => EngineError::InvalidInput(e.to_string()),
            L::EmptyCart(_) => EngineError::CartEmpty(e.to_string()),
            L::CartNotOpen { .. } => EngineError::CartLocked(e.to_string()),
            L::UnknownPayment(k) => EngineError::UnknownPayment(k),
            L::UnknownCart(c) => EngineError::InvalidInput(format!("unknown cart {c}")),
            L::TenderUnknownOutstanding { cart_id, checkout_key } => {
                EngineError::TenderUnknownOutstanding { cart: cart_id, key: checkout_key }
            }
            L::SaleComplete { cart_id } => EngineError::SaleComplete { cart: cart_id },
            L::SaleCanceled { cart_id } => EngineError::SaleCanceled { cart: cart_id },
            L::SaleRefundExceeds { cart_id, requested_minor, refundable_minor } => {
                EngineError::SaleRefundExceeds { cart: cart_id, requested: requested_minor, refundable: refundable_minor }
            }
            other => EngineError::Ledger(Arc::new(other)),
        }
    }
}

/// The operation a [`EngineError::WrongState`] refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempted {
    Capture,
    Cancel,
    Refund,
}

impl Attempted {
    pub const fn as_str(self) -> &'static str {
        match self {
            Attempted::Capture => "capture",
            Attempted::Cancel => "cancel",
            Attempted::Refund => "refund",
        }
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_ledger_error_is_kept_as_the_source() {
        let e = EngineError::from(paydesk_ledger::Error::NotADatabase { path: "/x.db".into() });
        assert_eq!(e.code(), "ledger");
        let source = e.source().expect("the ledger error is the source");
        assert!(matches!(
            source.downcast_ref::<Arc<paydesk_ledger::Error>>().map(|e| &**e),
            Some(paydesk_ledger::Error::NotADatabase { .. })
        ));
        assert!(e.to_string().starts_with("ledger: "), "{e}");
    }

    #[test]
    fn cart_errors_are_typed_and_keep_their_code_and_words() {
        let locked = EngineError::from(paydesk_ledger::Error::CartNotOpen { cart_id: 1, state: "paid".into() });
        assert!(matches!(locked, EngineError::CartLocked(_)), "{locked:?}");
        assert_eq!(locked.code(), "invalid_input");
        assert_eq!(locked.to_string(), "invalid input: cart 1 is paid, not open");
        let empty = EngineError::from(paydesk_ledger::Error::EmptyCart(2));
        assert!(matches!(empty, EngineError::CartEmpty(_)), "{empty:?}");
        assert_eq!(empty.code(), "invalid_input");
    }

    #[test]
    fn messages_name_no_cli_flag() {
        let e = EngineError::LaterPaymentExists { key: "a".into(), later: "b".into(), state: PaymentState::Failed };
        assert!(e.to_string().contains('b') && !e.to_string().contains("--"), "{e}");
        let e = EngineError::RefundInProgress { key: "a".into(), refund_key: "a-r1".into() };
        assert_eq!(e.code(), "wrong_state");
        assert_eq!(e.checkout_key(), Some("a"));
    }
}
