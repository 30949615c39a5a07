//! Encrypted copies of the ledger sent to the back office (record 0150): a checked copy
//! (record 0116) is sealed with the register's backup key ([`seal`]), uploaded in chunks
//! over the paired sync channel ([`transfer`]), and fetched back, opened and checked
//! before a restore may use it. The back office holds only ciphertext, its size and its
//! hash: the key never leaves the register (the app's keychain, or the CLI's 0600 file)
//! and the owner's safe.
pub mod seal;
pub mod transfer;

pub use seal::{BackupKey, Sealed};
pub use transfer::{fetch, list, send, send_copy, Fetched, Sent};

use crate::error::SyncError;

/// Why sending or fetching a copy did not complete. Each has its own [`BackupError::code`].
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("{0}")]
    Sync(#[from] SyncError),
    /// The back office refused the copy's size (its `backup_too_large`).
    #[error("the copy is {bytes} bytes; the back office keeps copies of at most {max} bytes")]
    TooLarge { bytes: u64, max: u64 },
    #[error("backup key file {path}: {reason}")]
    KeyFile { path: String, reason: String },
    /// A key file with group or other permission bits: anyone who reads it reads the copies.
    #[error("backup key file {path} has mode {mode:o}; it must be readable by its owner only (chmod 600)")]
    KeyNotPrivate { path: String, mode: u32 },
    #[error("{path} is not a sealed PayDesk copy")]
    NotABackup { path: String },
    #[error("sealed copy format {format} is not one this register reads")]
    UnknownFormat { format: u8 },
    /// The copy was sealed with another key (ids, not keys: neither reveals a key).
    #[error("the copy was sealed with key {sealed_with}, not with this register's key {key}")]
    WrongKey { sealed_with: String, key: String },
    /// A segment did not authenticate: the copy was changed, cut or spliced after sealing.
    #[error("the copy was changed after it was sealed: segment {segment} (from byte {at_byte}) does not authenticate")]
    Tampered { segment: u64, at_byte: u64 },
    /// What was downloaded is not what the back office lists.
    #[error("the copy downloaded has SHA-256 {got} and {got_bytes} bytes; the back office lists {expected} and {expected_bytes} bytes")]
    HashMismatch { expected: String, got: String, expected_bytes: u64, got_bytes: u64 },
    #[error("{0}")]
    NoCopy(String),
    /// The opened copy is not a good ledger copy (record 0116's check).
    #[error("{0}")]
    Copy(#[from] paydesk_ledger::Error),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// The copy changed while it was being sealed (its bytes or its `fstat` differ between
    /// the pass that derives the nonce prefix and the pass that encrypts): nothing sealed,
    /// since sealing it would put two plaintexts under one nonce prefix (record 0154).
    #[error("the copy {path} changed while it was being sealed; nothing was sealed (a copy is sealed only when it stays as it was checked)")]
    ChangedWhileSealing { path: String },
}

impl BackupError {
    /// A stable code for the CLI's JSON and the app's status.
    pub fn code(&self) -> &'static str {
        match self {
            BackupError::Sync(e) => e.code(),
            BackupError::TooLarge { .. } => "backup_too_large",
            BackupError::KeyFile { .. } => "backup_key_file",
            BackupError::KeyNotPrivate { .. } => "backup_key_not_private",
            BackupError::NotABackup { .. } => "not_a_backup",
            BackupError::UnknownFormat { .. } => "backup_format",
            BackupError::WrongKey { .. } => "backup_wrong_key",
            BackupError::Tampered { .. } => "backup_tampered",
            BackupError::HashMismatch { .. } => "backup_hash_mismatch",
            BackupError::NoCopy(_) => "no_copy",
            BackupError::Copy(_) => "copy_not_good",
            BackupError::Io { .. } => "io",
            BackupError::ChangedWhileSealing { .. } => "backup_copy_changed",
        }
    }
}
