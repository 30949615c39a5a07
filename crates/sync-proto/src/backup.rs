//! A register's encrypted copy of its ledger, sent to the back office (record 0150).
//!
//! What crosses the wire is only ciphertext and what the back office needs to store and
//! check it: its size, its SHA-256 and the time the copy was taken. Nothing read from the
//! ledger (not even its payment count) is sent in clear: a breach of the back office leaks
//! no sales.
//!
//! An upload is chunked and resumable: `POST /v1/backups` declares the copy (or finds the
//! one already declared with the same hash, and says how many chunks it holds), `PUT
//! /v1/backups/{id}/chunks/{n}` sends chunk `n` (each exactly [`BACKUP_CHUNK_BYTES`] but
//! the last), `POST /v1/backups/{id}/complete` has the back office hash what it holds and
//! compare. `GET /v1/backups?register=` lists, `GET /v1/backups/{id}/chunks/{n}` reads
//! back (raw octets).
use crate::{check_version, ProtoError};
use serde::{Deserialize, Serialize};

/// Plain bytes of one chunk: its base64 (4/3 of it) and the JSON around it stay well
/// under the request limit of 1 MiB.
pub const BACKUP_CHUNK_BYTES: u32 = 512 * 1024;
/// The most any back office accepts for one copy, whatever its own limit says (a SQLite
/// ledger of a store's register is far below; this keeps every count inside i64/u32).
pub const MAX_BACKUP_BYTES_CEILING: u64 = 64 * 1024 * 1024 * 1024;

/// Declares a copy to upload (or to resume).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackupStart {
    pub v: u32,
    /// Bytes of the encrypted file.
    pub bytes: u64,
    /// SHA-256 of the encrypted file, 64 lowercase hex digits.
    pub sha256: String,
    /// When the copy was taken (the register's clock, ms since the epoch).
    pub taken_ms: i64,
}

impl BackupStart {
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_version(self.v)?;
        if self.bytes == 0 || self.bytes > MAX_BACKUP_BYTES_CEILING {
            return Err(ProtoError::field("bytes", format!("must be 1 to {MAX_BACKUP_BYTES_CEILING}, got {}", self.bytes)));
        }
        check_sha256(&self.sha256)?;
        if !(0..=crate::limits::MAX_SEQ as i64).contains(&self.taken_ms) {
            return Err(ProtoError::field("taken_ms", format!("{} is not a time", self.taken_ms)));
        }
        Ok(())
    }

    /// Chunks of [`BACKUP_CHUNK_BYTES`] this copy is cut into.
    pub fn chunks(&self) -> u64 {
        chunk_count(self.bytes)
    }
}

/// Chunks of [`BACKUP_CHUNK_BYTES`] a copy of `bytes` is cut into.
pub fn chunk_count(bytes: u64) -> u64 {
    bytes.div_ceil(BACKUP_CHUNK_BYTES as u64)
}

/// Bytes chunk `n` of a copy of `bytes` holds (0 past its end).
pub fn chunk_len(bytes: u64, n: u64) -> u64 {
    let start = n.saturating_mul(BACKUP_CHUNK_BYTES as u64);
    bytes.saturating_sub(start).min(BACKUP_CHUNK_BYTES as u64)
}

/// 64 lowercase hex digits.
pub fn check_sha256(s: &str) -> Result<(), ProtoError> {
    if s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        Ok(())
    } else {
        Err(ProtoError::field("sha256", "must be 64 lowercase hex digits"))
    }
}

/// The answer to [`BackupStart`]: where the upload stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupUpload {
    pub v: u32,
    pub backup_id: String,
    pub chunks: u64,
    /// Chunks `0 .. next_chunk` are held; send from here.
    pub next_chunk: u64,
    /// The copy is already whole at the back office (the same hash was completed before).
    pub complete: bool,
}

/// One chunk going up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackupChunk {
    pub v: u32,
    /// The chunk's bytes, base64 (standard alphabet, padded).
    pub data: String,
}

/// A copy the back office holds whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupInfo {
    pub backup_id: String,
    pub register_id: String,
    pub bytes: u64,
    pub sha256: String,
    pub taken_ms: i64,
    pub received_ms: i64,
}

impl BackupInfo {
    pub fn validate(&self) -> Result<(), ProtoError> {
        if self.bytes == 0 || self.bytes > MAX_BACKUP_BYTES_CEILING {
            return Err(ProtoError::field("bytes", format!("{} out of range", self.bytes)));
        }
        check_sha256(&self.sha256)?;
        for (f, v) in [("backup_id", &self.backup_id), ("register_id", &self.register_id)] {
            if v.is_empty() || v.len() > crate::limits::MAX_KEY_LEN || !v.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(ProtoError::field(f, format!("is not 1-{} printable ASCII characters", crate::limits::MAX_KEY_LEN)));
            }
        }
        Ok(())
    }
}

/// The copies of one register, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupList {
    pub v: u32,
    pub backups: Vec<BackupInfo>,
}

/// Most copies a list answer holds (the back office keeps far fewer per register).
pub const MAX_BACKUPS_LISTED: usize = 100;

impl BackupList {
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_version(self.v)?;
        if self.backups.len() > MAX_BACKUPS_LISTED {
            return Err(ProtoError::field("backups", format!("{} copies listed, at most {MAX_BACKUPS_LISTED}", self.backups.len())));
        }
        self.backups.iter().try_for_each(BackupInfo::validate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_copy_exactly() {
        let c = BACKUP_CHUNK_BYTES as u64;
        assert_eq!(chunk_count(1), 1);
        assert_eq!(chunk_count(c), 1);
        assert_eq!(chunk_count(c + 1), 2);
        assert_eq!((chunk_len(c + 1, 0), chunk_len(c + 1, 1), chunk_len(c + 1, 2)), (c, 1, 0));
    }

    #[test]
    fn a_start_is_checked() {
        let ok = BackupStart { v: 1, bytes: 10, sha256: "a".repeat(64), taken_ms: 1 };
        assert!(ok.validate().is_ok());
        assert!(BackupStart { bytes: 0, ..ok.clone() }.validate().is_err());
        assert!(BackupStart { bytes: MAX_BACKUP_BYTES_CEILING + 1, ..ok.clone() }.validate().is_err());
        assert!(BackupStart { sha256: "A".repeat(64), ..ok.clone() }.validate().is_err());
        assert!(BackupStart { sha256: "a".repeat(63), ..ok.clone() }.validate().is_err());
        assert!(BackupStart { taken_ms: -1, ..ok.clone() }.validate().is_err());
        assert!(BackupStart { v: 99, ..ok }.validate().is_err());
    }
}
