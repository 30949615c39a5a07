//! Typed errors of the app's commands, serialized to the UI as `{code, message}`.
//! `code` is stable (the UI and tests match on it); `message` is what a cashier reads.

use paydesk_register::{Attempted, EngineError};
use serde::ser::SerializeStruct;

use crate::money;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A field the UI sent is malformed (a bug in the UI, or a tampered call).
    #[error("{0}")]
    InvalidInput(String),
    #[error("No item has the code “{0}”. Check the code or pick the item from the catalog.")]
    UnknownItem(String),
    #[error("The cart is locked while its payment is open. Finish or resolve the payment first.")]
    CartLocked,
    #[error("The cart is empty. Scan or pick an item first.")]
    CartEmpty,
    #[error("There is no payment on screen to continue.")]
    NoCheckout,
    /// A tender press acted on a view of the sale that is out of date (a second press
    /// of the same button, or another window): nothing was taken (design §8.11).
    #[error("The sale changed since this screen was drawn ({seen} payment{} shown, {now} now). Nothing was taken: check the amount due and try again.", if *seen == 1 { "" } else { "s" })]
    SaleChanged { seen: u32, now: u32 },
    /// Another tender (or Charge, or a cancel) of this register is still running.
    #[error("A payment is still running on this register. Wait for its answer; nothing else was taken.")]
    TenderInFlight,
    /// The sale's tax is fixed (its first tender was taken, or a payment is open):
    /// dining and discounts cannot change (design §11.12).
    #[error("The tax of this sale is fixed: a payment was already taken. Eat-in/take-out and discounts cannot change now.")]
    TaxLocked,
    #[error("{0}")]
    InvalidDiscount(String),
    #[error("No receipt printer is set. Enter its address (host:port) under Store → Receipt printer.")]
    PrinterNotSet,
    #[error("{0}")]
    InvalidPrinter(String),
    /// The printer did not take the job; the sale is not affected.
    #[error("{0}")]
    PrinterUnreachable(String),
    #[error("{0}")]
    ReceiptUnavailable(String),
    /// Input refused with every problem listed (a catalog item's fields, a CSV file's
    /// lines); nothing was written.
    #[error("{message}")]
    Rejected { code: &'static str, message: String, problems: Vec<Problem> },
    /// An error from the register engine, already put in a cashier's words.
    #[error("{message}")]
    Engine { code: &'static str, message: String },
    #[error("{0}")]
    Internal(String),
}

impl AppError {
    pub fn code(&self) -> &'static str {
        match self {
            AppError::InvalidInput(_) => "invalid_input",
            AppError::UnknownItem(_) => "unknown_item",
            AppError::CartLocked => "cart_locked",
            AppError::CartEmpty => "cart_empty",
            AppError::NoCheckout => "no_checkout",
            AppError::SaleChanged { .. } => "sale_changed",
            AppError::TenderInFlight => "tender_in_flight",
            AppError::TaxLocked => "tax_locked",
            AppError::InvalidDiscount(_) => "invalid_discount",
            AppError::PrinterNotSet => "printer_not_set",
            AppError::InvalidPrinter(_) => "invalid_printer",
            AppError::PrinterUnreachable(_) => "printer_unreachable",
            AppError::ReceiptUnavailable(_) => "receipt_unavailable",
            AppError::Rejected { code, .. } => code,
            AppError::Engine { code, .. } => code,
            AppError::Internal(_) => "internal",
        }
    }
}

/// The engine's errors in words a cashier understands (the code stays the engine's).
/// Decided from the error's variant, never from its message text.
impl From<EngineError> for AppError {
    fn from(e: EngineError) -> Self {
        let code = e.code();
        let message = match &e {
            EngineError::CartLocked(_) => return AppError::CartLocked,
            EngineError::CartEmpty(_) => return AppError::CartEmpty,
            EngineError::InvalidInput(m) => format!("That input was not accepted: {m}."),
            EngineError::UnknownPayment(_) => "That payment is not in this register's records.".into(),
            EngineError::RefundExceedsCaptured { refundable, currency, .. } => format!(
                "That is more than can be refunded. At most {} is left on this payment.",
                money::format(*refundable, currency.code())
            ),
            EngineError::RefundInProgress { .. } => {
                "A refund of this payment is still being confirmed. Wait for it before refunding again.".into()
            }
            EngineError::WrongState { state, attempted, .. } => {
                let done = match attempted {
                    Attempted::Capture => "captured",
                    Attempted::Cancel => "canceled",
                    Attempted::Refund => "refunded",
                };
                format!("This payment cannot be {done} now: it is {}.", state.as_str().replace('_', " "))
            }
            EngineError::PreviousOutcomeUnknown { .. } => "We don't know yet whether the last card was charged. \
                 Charging again could charge the customer twice. Wait for the register to find out, \
                 or give a reason to continue anyway."
                .into(),
            EngineError::AlreadyPaid { .. } => "This payment already went through. No new payment is needed.".into(),
            EngineError::LaterPaymentExists { state, .. } => format!(
                "A later payment was already started after this one and ended {}. Try again from that payment.",
                state.as_str().replace('_', " ")
            ),
            EngineError::OfflineRefused { reason, detail, .. } => format!(
                "The payment processor cannot be reached and this payment cannot be accepted offline ({reason}). {detail}"
            ),
            EngineError::PspConfig(m) => {
                format!("The payment processor refused the register's settings ({m}). Check Settings → PSP URL and key.")
            }
            EngineError::PspRejected(m) => format!("The payment processor rejected this request: {m}."),
            EngineError::Alarm(m) => format!("Stop: something is wrong and needs a manager. {m}"),
            EngineError::Ledger(m) => format!("The register could not save this ({m}). Nothing was charged twice; try again."),
            EngineError::TenderExceedsDue { open, currency, .. } => format!(
                "That is more than this sale still needs. At most {} is open.",
                money::format(*open, currency.code())
            ),
            EngineError::TenderUnknownOutstanding { .. } => "We don't know yet whether the last card of this sale was \
                 charged. Another payment now could charge the customer twice. Wait, or give a reason to continue anyway."
                .into(),
            EngineError::SaleComplete { .. } => "This sale is already paid in full.".into(),
            EngineError::SaleCanceled { .. } => "This sale was canceled.".into(),
            EngineError::SaleRefundExceeds { .. } => "That is more than can be refunded on this sale.".into(),
            EngineError::Unresolved { key, source } => format!(
                "We don't know yet whether payment {key} went through ({source}). Do not charge again: \
                 the register checks with the same key."
            ),
        };
        AppError::Engine { code, message }
    }
}

impl From<paydesk_ledger::Error> for AppError {
    fn from(e: paydesk_ledger::Error) -> Self {
        use paydesk_ledger::Error as L;
        match e {
            L::CartNotOpen { .. } => AppError::CartLocked,
            L::EmptyCart(_) => AppError::CartEmpty,
            L::UnknownProduct(sku) => AppError::UnknownItem(sku),
            other => AppError::from(EngineError::from(other)),
        }
    }
}

impl serde::Serialize for AppError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let problems = match self {
            AppError::Rejected { problems, .. } => Some(problems),
            _ => None,
        };
        let mut st = s.serialize_struct("AppError", 2 + usize::from(problems.is_some()))?;
        st.serialize_field("code", self.code())?;
        st.serialize_field("message", &self.to_string())?;
        if let Some(p) = problems {
            st.serialize_field("problems", p)?;
        }
        st.end()
    }
}

pub type AppResult<T> = Result<T, AppError>;

/// One problem of refused input: the CSV line (1 = the header) if any, the field, why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Problem {
    pub line: Option<u64>,
    pub field: String,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_ledger::{Currency, PaymentState};

    #[test]
    fn cart_errors_are_recognised_by_type_not_words() {
        let locked = EngineError::from(paydesk_ledger::Error::CartNotOpen { cart_id: 1, state: "paid".into() });
        assert!(matches!(AppError::from(locked), AppError::CartLocked));
        assert!(matches!(AppError::from(EngineError::from(paydesk_ledger::Error::EmptyCart(1))), AppError::CartEmpty));
        // Words alone decide nothing: an input error that happens to say "not open".
        let e = AppError::from(EngineError::InvalidInput("the drawer is not open".into()));
        assert_eq!(e.code(), "invalid_input");
        assert!(!matches!(e, AppError::CartLocked));
    }

    #[test]
    fn wrong_state_says_what_was_attempted() {
        let of = |attempted| {
            AppError::from(EngineError::WrongState {
                key: "k".into(),
                state: PaymentState::QueuedOffline,
                attempted,
                what: "x".into(),
            })
            .to_string()
        };
        assert_eq!(of(Attempted::Capture), "This payment cannot be captured now: it is queued offline.");
        assert_eq!(of(Attempted::Cancel), "This payment cannot be canceled now: it is queued offline.");
        assert_eq!(of(Attempted::Refund), "This payment cannot be refunded now: it is queued offline.");
        let busy = AppError::from(EngineError::RefundInProgress { key: "k".into(), refund_key: "k-r".into() });
        assert_eq!(busy.code(), "wrong_state");
        assert!(busy.to_string().contains("still being confirmed"), "{busy}");
    }

    #[test]
    fn refund_limits_are_shown_in_the_payments_currency() {
        let e = AppError::from(EngineError::RefundExceedsCaptured {
            key: "k".into(),
            requested: 2000,
            refundable: 1200,
            currency: Currency::Jpy,
        });
        assert_eq!(e.to_string(), "That is more than can be refunded. At most ¥1,200 is left on this payment.");
    }

    /// ui/bridge.js mirrors the codes the screens match on.
    #[test]
    fn the_ui_knows_every_tender_code() {
        let bridge = include_str!("../../ui/bridge.js");
        let tender = [
            AppError::SaleChanged { seen: 1, now: 2 },
            AppError::TenderInFlight,
            AppError::from(EngineError::SaleComplete { cart: 1 }),
            AppError::from(EngineError::SaleCanceled { cart: 1 }),
            AppError::from(EngineError::TenderExceedsDue { cart: 1, requested: 2, open: 1, currency: Currency::Usd }),
            AppError::from(EngineError::SaleRefundExceeds { cart: 1, requested: 2, refundable: 1 }),
            AppError::from(EngineError::TenderUnknownOutstanding { cart: 1, key: "k".into() }),
        ];
        let store = [
            AppError::TaxLocked,
            AppError::InvalidDiscount(String::new()),
            AppError::PrinterNotSet,
            AppError::InvalidPrinter(String::new()),
            AppError::PrinterUnreachable(String::new()),
            AppError::ReceiptUnavailable(String::new()),
            AppError::Rejected { code: "invalid_item", message: String::new(), problems: vec![] },
            AppError::Rejected { code: "csv_rejected", message: String::new(), problems: vec![] },
        ];
        for e in tender.into_iter().chain(store) {
            assert!(bridge.contains(&format!("'{}'", e.code())), "ui/bridge.js lacks {}", e.code());
        }
        assert_eq!(
            AppError::SaleChanged { seen: 1, now: 2 }.to_string(),
            "The sale changed since this screen was drawn (1 payment shown, 2 now). Nothing was taken: check the amount due and try again."
        );
    }
}
