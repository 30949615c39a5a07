//! Why a message is refused: one variant per rule, each with a stable `code` for
//! programs and a message for people that names the field (and row) at fault.

/// A message that breaks a rule of the protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtoError {
    #[error("protocol version {got} is not supported (supported: {supported:?})")]
    Version { got: u32, supported: Vec<u32> },
    #[error("a batch needs at least one row")]
    EmptyBatch,
    #[error("{rows} rows in one batch; at most {max}")]
    TooManyRows { rows: usize, max: usize },
    #[error("first_seq must be at least 1")]
    SeqZero,
    #[error("sequence numbers beyond {max} are refused")]
    SeqTooLarge { max: u64 },
    #[error("{field} {problem}")]
    BadField { field: String, problem: String },
}

impl ProtoError {
    /// A stable code for programs (the back office's error body carries it).
    pub fn code(&self) -> &'static str {
        match self {
            ProtoError::Version { .. } => "unsupported_version",
            ProtoError::EmptyBatch => "empty_batch",
            ProtoError::TooManyRows { .. } => "too_many_rows",
            ProtoError::SeqZero | ProtoError::SeqTooLarge { .. } => "bad_seq",
            ProtoError::BadField { .. } => "bad_field",
        }
    }

    pub(crate) fn field(field: impl Into<String>, problem: impl Into<String>) -> ProtoError {
        ProtoError::BadField { field: field.into(), problem: problem.into() }
    }

    /// The same refusal with its field named under `at` (a row of a batch).
    pub(crate) fn under(self, at: &str) -> ProtoError {
        match self {
            ProtoError::BadField { field, problem } => ProtoError::BadField { field: format!("{at}.{field}"), problem },
            other => other,
        }
    }
}
