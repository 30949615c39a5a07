//! Sending a sealed copy up and fetching one back (record 0150), over the paired sync
//! channel with the register's token.
//!
//! Resumable: the sealed file is kept beside its copy (`<copy>.sealed`) until the back
//! office has it whole, so a send cut off (network, quit, crash) is sent again under the
//! same hash and the back office answers from which chunk to go on.
use super::seal::{self, create_private, partial_of, BackupKey};
use super::BackupError;
use crate::client::{answer, bounded_body, without_url, BackOffice};
use crate::error::SyncError;
use base64::Engine;
use paydesk_ledger::copies::{self, CopyCheck};
use paydesk_sync_proto::backup::{chunk_count, chunk_len, BackupChunk, BackupInfo, BackupList, BackupStart, BackupUpload, BACKUP_CHUNK_BYTES};
use paydesk_sync_proto::PROTOCOL_VERSION;
use sha2::{Digest, Sha256};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A copy the back office now holds whole.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Sent {
    pub copy: PathBuf,
    pub backup: BackupInfo,
    /// Chunks sent by this call; fewer than the copy's when an earlier send was resumed.
    pub chunks_sent: u64,
    pub chunks: u64,
}

/// A copy fetched, opened and checked (record 0116's check), ready for `backup restore`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Fetched {
    pub backup: BackupInfo,
    pub copy: CopyCheck,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> BackupError + '_ {
    move |e| BackupError::Io { path: path.display().to_string(), message: e.to_string() }
}

/// The back office's refusals that have a type of their own here.
fn typed(e: SyncError, bytes: u64) -> BackupError {
    match e {
        SyncError::Refused(r) if r.code == "backup_too_large" => BackupError::TooLarge { bytes, max: r.max_bytes.unwrap_or(0) },
        other => BackupError::Sync(other),
    }
}

/// `<copy>.sealed`.
fn sealed_of(copy: &Path) -> PathBuf {
    let mut s = copy.as_os_str().to_owned();
    s.push(".sealed");
    PathBuf::from(s)
}

/// Size and SHA-256 of the file at `path`.
fn hash_file(path: &Path) -> Result<(u64, String), BackupError> {
    let mut f = std::fs::File::open(path).map_err(io(path))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut n = 0u64;
    loop {
        let got = f.read(&mut buf).map_err(io(path))?;
        if got == 0 {
            break;
        }
        h.update(&buf[..got]);
        n += got as u64;
    }
    Ok((n, hex::encode(h.finalize())))
}

/// Seals the checked copy at `copy` (unless its sealed file is already there from a send
/// that was cut off) and sends it to the back office; `taken_ms` is when it was taken.
/// The sealed file is removed once the back office holds it whole. The copy is never changed.
pub async fn send(bo: &BackOffice, key: &BackupKey, copy: &Path, taken_ms: i64) -> Result<Sent, BackupError> {
    let sealed = sealed_of(copy);
    // a sealed file of another copy (pruned since) or another key is not resumed
    if let Some(dir) = copy.parent() {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let p = e.path();
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if (name.ends_with(".sealed") || name.ends_with(".sealed.partial")) && p != sealed {
                    let _ = std::fs::remove_file(&p);
                }
            }
        }
    }
    let (bytes, sha256) = match sealed_with(&sealed, key) {
        true => hash_file(&sealed)?,
        false => {
            let s = seal::seal(key, copy, &sealed)?;
            (s.bytes, s.sha256)
        }
    };
    let start = BackupStart { v: PROTOCOL_VERSION, bytes, sha256, taken_ms };
    let up: BackupUpload = answer(bo.http().post(format!("{}/v1/backups", bo.url())).bearer_auth(bo.token()?).json(&start).send().await).await.map_err(|e| typed(e, bytes))?;
    let chunks = chunk_count(bytes);
    if up.chunks != chunks || up.next_chunk > chunks {
        return Err(SyncError::BadAnswer(format!("the back office cuts {bytes} bytes into {} chunks from {}; this register into {chunks}", up.chunks, up.next_chunk)).into());
    }
    let mut sent = 0;
    if !up.complete {
        let mut f = std::fs::File::open(&sealed).map_err(io(&sealed))?;
        let mut buf = vec![0u8; BACKUP_CHUNK_BYTES as usize];
        for n in up.next_chunk..chunks {
            let len = chunk_len(bytes, n) as usize;
            f.seek(SeekFrom::Start(n * BACKUP_CHUNK_BYTES as u64)).and_then(|_| f.read_exact(&mut buf[..len])).map_err(io(&sealed))?;
            let body = BackupChunk { v: PROTOCOL_VERSION, data: base64::engine::general_purpose::STANDARD.encode(&buf[..len]) };
            let _: serde_json::Value = answer(bo.http().put(format!("{}/v1/backups/{}/chunks/{n}", bo.url(), up.backup_id)).bearer_auth(bo.token()?).json(&body).send().await).await?;
            sent += 1;
        }
    }
    let done: Result<BackupInfo, SyncError> =
        answer(bo.http().post(format!("{}/v1/backups/{}/complete", bo.url(), up.backup_id)).bearer_auth(bo.token()?).json(&serde_json::json!({})).send().await).await;
    let backup = match done {
        Ok(b) => b,
        Err(SyncError::Refused(r)) if r.code == "backup_hash_mismatch" => {
            // the back office deleted what it had; the next send seals anew
            let _ = std::fs::remove_file(&sealed);
            return Err(SyncError::Refused(r).into());
        }
        Err(e) => return Err(e.into()),
    };
    backup.validate().map_err(|e| SyncError::BadAnswer(e.to_string()))?;
    if backup.sha256 != start.sha256 || backup.bytes != bytes {
        return Err(SyncError::BadAnswer(format!("the back office completed copy {} as {} ({} bytes), not the one sent", backup.backup_id, backup.sha256, backup.bytes)).into());
    }
    let _ = std::fs::remove_file(&sealed);
    Ok(Sent { copy: copy.to_path_buf(), backup, chunks_sent: sent, chunks })
}

/// A copy on the register's disk checked again (record 0116's check: it may have sat on
/// disk since it was taken), then sealed and sent as [`send`] does, with its file's time as
/// when it was taken. The one path the CLI's `backup send` and the app's scheduled send
/// both take, so a copy the app sends is one the CLI would have sent.
pub async fn send_copy(bo: &BackOffice, key: &BackupKey, copy: &Path) -> Result<Sent, BackupError> {
    copies::verify(copy)?;
    send(bo, key, copy, taken_ms(copy)).await
}

/// When the copy was taken: its file's modification time (written once, then renamed).
pub fn taken_ms(copy: &Path) -> i64 {
    std::fs::metadata(copy)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64)
}

/// A whole sealed file of this key is there (a send of it was cut off).
fn sealed_with(sealed: &Path, key: &BackupKey) -> bool {
    let mut head = [0u8; seal::HEADER_LEN];
    std::fs::File::open(sealed).and_then(|mut f| f.read_exact(&mut head)).is_ok() && head[8..24] == key.id()
}

/// The whole copies the back office holds of this register, or of `register` (a replaced
/// register of this store), newest first.
pub async fn list(bo: &BackOffice, register: Option<&str>) -> Result<BackupList, BackupError> {
    let mut req = bo.http().get(format!("{}/v1/backups", bo.url())).bearer_auth(bo.token()?);
    if let Some(r) = register {
        req = req.query(&[("register", r)]);
    }
    let l: BackupList = answer(req.send().await).await?;
    l.validate().map_err(|e| SyncError::BadAnswer(e.to_string()))?;
    Ok(l)
}

/// Downloads a copy (`backup`, or the newest of `register` / this register), checks its
/// size and SHA-256 against the back office's list, opens it with `key` into `out` (which
/// must not exist) and checks it as record 0116 checks every copy. Nothing is left at
/// `out` unless all of that passed.
pub async fn fetch(bo: &BackOffice, key: &BackupKey, register: Option<&str>, backup: Option<&str>, out: &Path) -> Result<Fetched, BackupError> {
    if out.exists() {
        return Err(BackupError::Io { path: out.display().to_string(), message: "exists; a fetched copy never replaces a file".into() });
    }
    let listed = list(bo, register).await?;
    let info = match backup {
        Some(id) => listed.backups.into_iter().find(|b| b.backup_id == id).ok_or_else(|| BackupError::NoCopy(format!("the back office holds no copy {id} of that register")))?,
        None => listed.backups.into_iter().next().ok_or_else(|| BackupError::NoCopy("the back office holds no copy of that register".into()))?,
    };
    let sealed = partial_of(&sealed_of(out));
    let got = download(bo, &info, &sealed).await;
    let opened = got.and_then(|(bytes, sha)| {
        if sha != info.sha256 || bytes != info.bytes {
            return Err(BackupError::HashMismatch { expected: info.sha256.clone(), got: sha, expected_bytes: info.bytes, got_bytes: bytes });
        }
        seal::open(key, &sealed, out)
    });
    let _ = std::fs::remove_file(&sealed);
    opened?;
    match copies::verify(out) {
        Ok(check) => Ok(Fetched { backup: info, copy: check }),
        Err(e) => {
            let _ = std::fs::remove_file(out);
            Err(e.into())
        }
    }
}

/// Every chunk of `info` into `to` (0600), each read up to its own length; size and SHA-256.
async fn download(bo: &BackOffice, info: &BackupInfo, to: &Path) -> Result<(u64, String), BackupError> {
    let file = create_private(to)?;
    let mut w = std::io::BufWriter::new(file);
    let mut h = Sha256::new();
    let mut n_bytes = 0u64;
    for n in 0..chunk_count(info.bytes) {
        let want = chunk_len(info.bytes, n) as usize;
        let r = bo.http().get(format!("{}/v1/backups/{}/chunks/{n}", bo.url(), info.backup_id)).bearer_auth(bo.token()?).send().await.map_err(|e| SyncError::Unreachable(without_url(&e)))?;
        let status = r.status().as_u16();
        if !(200..300).contains(&status) {
            // the refusal's body, typed as every other answer's
            return Err(answer::<serde_json::Value>(Ok(r)).await.err().unwrap_or_else(|| SyncError::BadAnswer(format!("status {status}"))).into());
        }
        let body = bounded_body(r, want).await?;
        if body.len() != want {
            return Err(SyncError::BadAnswer(format!("chunk {n} of copy {} is {} bytes, not {want}", info.backup_id, body.len())).into());
        }
        h.update(&body);
        n_bytes += body.len() as u64;
        w.write_all(&body).map_err(io(to))?;
    }
    let file = w.into_inner().map_err(|e| io(to)(e.into_error()))?;
    file.sync_all().map_err(io(to))?;
    Ok((n_bytes, hex::encode(h.finalize())))
}
