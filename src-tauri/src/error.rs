//! Typed errors of the app's commands, serialized to the UI as `{code, message}`.
//! `code` is stable (the UI and tests match on it); `message` is what a cashier reads.

use serde::ser::SerializeStruct;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A field the UI sent is malformed (a bug in the UI, or a tampered call).
    #[error("{0}")]
    InvalidInput(String),
    #[error("No item has the code “{0}”. Check the code or pick the item from the catalog.")]
    UnknownItem(String),
    #[error("The cart is locked while a payment is open. Finish or resolve the payment first.")]
    CartLocked,
    #[error("The cart is empty. Scan or pick an item first.")]
    CartEmpty,
    #[error("{0}")]
    Other(String),
}

impl AppError {
    pub fn code(&self) -> &'static str {
        match self {
            AppError::InvalidInput(_) => "invalid_input",
            AppError::UnknownItem(_) => "unknown_item",
            AppError::CartLocked => "cart_locked",
            AppError::CartEmpty => "cart_empty",
            AppError::Other(_) => "internal",
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
