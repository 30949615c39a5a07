//! Typed errors of the app's commands, serialized to the UI as `{code, message}`.
//! `code` is stable (the UI and tests match on it); `message` is what a cashier reads.

use paydesk_register::EngineError;
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
            AppError::Engine { code, .. } => code,
            AppError::Internal(_) => "internal",
        }
    }
}

/// The engine's errors in words a cashier understands (the code stays the engine's).
impl From<EngineError> for AppError {
    fn from(e: EngineError) -> Self {
        AppError::from_engine(e, "usd")
    }
}

impl AppError {
    /// As `From<EngineError>`, with amounts shown in the register's `currency`.
    pub fn from_engine(e: EngineError, currency: &str) -> AppError {
        let code = e.code();
        let message = match &e {
            EngineError::InvalidInput(m) if m.contains("not open") || m.contains("is locked") => {
                return AppError::CartLocked
            }
            EngineError::InvalidInput(m) if m.contains("empty") => return AppError::CartEmpty,
            EngineError::InvalidInput(m) => format!("That input was not accepted: {m}."),
            EngineError::UnknownPayment(_) => "That payment is not in this register's records.".into(),
            EngineError::RefundExceedsCaptured { refundable, .. } => format!(
                "That is more than can be refunded. At most {} is left on this payment.",
                money::format(*refundable, currency)
            ),
            EngineError::WrongState { state, .. } if state == "refunding" => {
                "A refund of this payment is still being confirmed. Wait for it before refunding again.".into()
            }
            EngineError::WrongState { state, .. } => {
                format!("This payment cannot be refunded now: it is {}.", state.replace('_', " "))
            }
            EngineError::PreviousOutcomeUnknown { .. } => "We don't know yet whether the last card was charged. \
                 Charging again could charge the customer twice. Wait for the register to find out, \
                 or give a reason to continue anyway."
                .into(),
            EngineError::AlreadyPaid { .. } => "This payment already went through. No new payment is needed.".into(),
            EngineError::LaterPaymentExists { state, .. } => format!(
                "A later payment was already started after this one and ended {}. Try again from that payment.",
                state.replace('_', " ")
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
        let mut st = s.serialize_struct("AppError", 2)?;
        st.serialize_field("code", self.code())?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}

pub type AppResult<T> = Result<T, AppError>;
