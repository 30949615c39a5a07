//! The errors of a sync step. `Refused` (the back office's answer to a request it turned
//! down) lives here with the error that carries it, not in `client`, so `client` can return
//! `SyncError` without the two importing each other (issue #31).

/// A refusal: status and the back office's `{error:{code,message}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub status: u16,
    pub code: String,
    pub message: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.message)
    }
}

/// Why a sync step did not complete. Every one is retried by the loop with a bounded
/// back-off; none loses an outbox row (rows are dropped only after an ack).
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("the back office refused: {0}")]
    Refused(Refused),
    #[error("the back office is unreachable: {0}")]
    Unreachable(String),
    #[error("the back office answered something this register cannot read: {0}")]
    BadAnswer(String),
    /// An answer longer than the register reads: refused after `max` bytes, the rest
    /// never read (a broken or hostile back office cannot fill the register's memory).
    #[error("the back office's answer is longer than {max} bytes; the register stopped reading it")]
    AnswerTooLarge { max: usize },
    #[error("ledger: {0}")]
    Ledger(#[from] paydesk_ledger::Error),
    #[error("outbox row {seq} is not a fact the back office accepts: {message}")]
    BadRow { seq: u64, message: String },
    #[error("the back office holds seq {acked_through} while this register dropped rows up to {dropped_through}: it lost rows this register no longer has")]
    BackOfficeBehind { acked_through: u64, dropped_through: u64 },
    #[error("sync state file {path}: {message}")]
    State { path: String, message: String },
    #[error("{0}")]
    Input(String),
    /// Restore (record 0048) needs a paired register: its token and its store.
    #[error("this register is not paired with a back office: pair it first")]
    NotPaired,
    /// Restore named this register itself (caught here, or by the back office's
    /// `restore_from_itself`).
    #[error("a register cannot restore from itself")]
    RestoreFromItself,
}

impl SyncError {
    /// A short stable code for the status line and the CLI's JSON.
    pub fn code(&self) -> &'static str {
        match self {
            SyncError::Refused(_) => "refused",
            SyncError::Unreachable(_) => "unreachable",
            SyncError::BadAnswer(_) => "bad_answer",
            SyncError::AnswerTooLarge { .. } => "answer_too_large",
            SyncError::Ledger(_) => "ledger",
            SyncError::BadRow { .. } => "bad_row",
            SyncError::BackOfficeBehind { .. } => "back_office_behind",
            SyncError::State { .. } => "state",
            SyncError::Input(_) => "input",
            SyncError::NotPaired => "not_paired",
            SyncError::RestoreFromItself => "restore_from_itself",
        }
    }
}
