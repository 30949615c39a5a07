//! The errors of a sync step. `Refused` (the back office's answer to a request it turned
//! down) lives here with the error that carries it, not in `client`, so `client` can return
//! `SyncError` without the two importing each other (issue #31).

/// A refusal: status and the back office's `{error:{code,message}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub status: u16,
    pub code: String,
    pub message: String,
    /// `backup_too_large`: the most the back office keeps, as its answer states it (typed,
    /// so nothing is read out of the message's words).
    pub max_bytes: Option<u64>,
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

/// What kind of failure a [`SyncError`] is: the stable code the status line, the app
/// and the CLI's JSON carry (`as_str`), matched as an enum, never as its word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncErrorCode {
    Refused,
    Unreachable,
    BadAnswer,
    AnswerTooLarge,
    Ledger,
    BadRow,
    BackOfficeBehind,
    State,
    Input,
    NotPaired,
    RestoreFromItself,
}

impl SyncErrorCode {
    pub const ALL: [SyncErrorCode; 11] = [
        SyncErrorCode::Refused,
        SyncErrorCode::Unreachable,
        SyncErrorCode::BadAnswer,
        SyncErrorCode::AnswerTooLarge,
        SyncErrorCode::Ledger,
        SyncErrorCode::BadRow,
        SyncErrorCode::BackOfficeBehind,
        SyncErrorCode::State,
        SyncErrorCode::Input,
        SyncErrorCode::NotPaired,
        SyncErrorCode::RestoreFromItself,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SyncErrorCode::Refused => "refused",
            SyncErrorCode::Unreachable => "unreachable",
            SyncErrorCode::BadAnswer => "bad_answer",
            SyncErrorCode::AnswerTooLarge => "answer_too_large",
            SyncErrorCode::Ledger => "ledger",
            SyncErrorCode::BadRow => "bad_row",
            SyncErrorCode::BackOfficeBehind => "back_office_behind",
            SyncErrorCode::State => "state",
            SyncErrorCode::Input => "input",
            SyncErrorCode::NotPaired => "not_paired",
            SyncErrorCode::RestoreFromItself => "restore_from_itself",
        }
    }
}

impl SyncError {
    pub fn kind(&self) -> SyncErrorCode {
        match self {
            SyncError::Refused(_) => SyncErrorCode::Refused,
            SyncError::Unreachable(_) => SyncErrorCode::Unreachable,
            SyncError::BadAnswer(_) => SyncErrorCode::BadAnswer,
            SyncError::AnswerTooLarge { .. } => SyncErrorCode::AnswerTooLarge,
            SyncError::Ledger(_) => SyncErrorCode::Ledger,
            SyncError::BadRow { .. } => SyncErrorCode::BadRow,
            SyncError::BackOfficeBehind { .. } => SyncErrorCode::BackOfficeBehind,
            SyncError::State { .. } => SyncErrorCode::State,
            SyncError::Input(_) => SyncErrorCode::Input,
            SyncError::NotPaired => SyncErrorCode::NotPaired,
            SyncError::RestoreFromItself => SyncErrorCode::RestoreFromItself,
        }
    }

    /// A short stable code for the status line and the CLI's JSON.
    pub fn code(&self) -> &'static str {
        self.kind().as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::SyncErrorCode;

    /// The status JSON (`sync status`, the app) writes the same word `as_str` gives.
    #[test]
    fn every_code_serializes_as_its_word() {
        for c in SyncErrorCode::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), serde_json::Value::from(c.as_str()));
        }
    }
}
