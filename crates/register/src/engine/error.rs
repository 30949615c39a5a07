//! [`EngineError`]: the engine's typed errors. `code()` and `Display` are what the UI
//! and the CLI show (`{code, message}`); the code is stable, the message is words.

// ---------------------------------------------------------------- errors

/// Typed errors; `code()` + `Display` are what the UI shows (`{code, message}`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    #[error("invalid input: {0}")]
    InvalidInput(String),
    #[error("unknown payment {0}")]
    UnknownPayment(String),
    #[error("refund of {requested} exceeds the refundable {refundable} on payment {key}")]
    RefundExceedsCaptured { key: String, requested: i64, refundable: i64 },
    #[error("payment {key} is {state}: {what}")]
    WrongState { key: String, state: String, what: String },
    #[error("the previous payment {key} is {state} and its outcome is not known yet; a new payment could charge the customer twice. Wait, or override with a reason")]
    PreviousOutcomeUnknown { key: String, state: String },
    #[error("payment {key} already went through ({state}); no new payment needed")]
    AlreadyPaid { key: String, state: String },
    #[error("{key} already has a later payment {later} ({state}); to try again after that one, use --after {later}")]
    LaterPaymentExists { key: String, later: String, state: String },
    #[error("payment not accepted offline: {reason}. {detail}")]
    OfflineRefused { key: String, reason: String, detail: String },
    #[error("PSP configuration problem: {0}")]
    PspConfig(String),
    #[error("the PSP rejected the request: {0}")]
    PspRejected(String),
    #[error("ALARM: {0}")]
    Alarm(String),
    #[error("ledger: {0}")]
    Ledger(String),
    /// A checkout call failed after its key was committed and its payment could not
    /// even be read back: the outcome is unknown, and recovery resolves it by its key.
    #[error("{source}; checkout {key}: the outcome is not known yet, the register resolves it with the same key")]
    Unresolved { key: String, source: Box<EngineError> },
}

impl EngineError {
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::InvalidInput(_) => "invalid_input",
            EngineError::UnknownPayment(_) => "unknown_payment",
            EngineError::RefundExceedsCaptured { .. } => "refund_exceeds_captured",
            EngineError::WrongState { .. } => "wrong_state",
            EngineError::PreviousOutcomeUnknown { .. } => "previous_outcome_unknown",
            EngineError::AlreadyPaid { .. } => "already_paid",
            EngineError::LaterPaymentExists { .. } => "later_payment_exists",
            EngineError::OfflineRefused { .. } => "offline_refused",
            EngineError::PspConfig(_) => "psp_config",
            EngineError::PspRejected(_) => "psp_rejected",
            EngineError::Alarm(_) => "alarm",
            EngineError::Ledger(_) => "ledger",
            EngineError::Unresolved { .. } => "outcome_unknown",
        }
    }

    /// The checkout key this error is about, when a payment row exists for it.
    pub fn checkout_key(&self) -> Option<&str> {
        match self {
            EngineError::RefundExceedsCaptured { key, .. }
            | EngineError::WrongState { key, .. }
            | EngineError::PreviousOutcomeUnknown { key, .. }
            | EngineError::AlreadyPaid { key, .. }
            | EngineError::LaterPaymentExists { key, .. }
            | EngineError::OfflineRefused { key, .. }
            | EngineError::Unresolved { key, .. } => Some(key),
            EngineError::UnknownPayment(_)
            | EngineError::InvalidInput(_)
            | EngineError::PspConfig(_)
            | EngineError::PspRejected(_)
            | EngineError::Alarm(_)
            | EngineError::Ledger(_) => None,
        }
    }
}

impl From<paydesk_ledger::Error> for EngineError {
    fn from(e: paydesk_ledger::Error) -> Self {
        use paydesk_ledger::Error as L;
        match e {
            L::InvalidAmount(_) | L::InvalidCurrency(_) | L::InvalidInput(_) | L::Overflow | L::EmptyCart(_) => {
                EngineError::InvalidInput(e.to_string())
            }
            L::CurrencyMismatch { .. } | L::CartNotOpen { .. } | L::UnknownProduct(_) => {
                EngineError::InvalidInput(e.to_string())
            }
            L::UnknownPayment(k) => EngineError::UnknownPayment(k),
            L::UnknownCart(c) => EngineError::InvalidInput(format!("unknown cart {c}")),
            other => EngineError::Ledger(other.to_string()),
        }
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;
