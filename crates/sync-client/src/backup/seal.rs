//! The sealed form of a copy (record 0150): the copy's bytes encrypted and authenticated
//! with the register's backup key, in segments, so a copy of any size is sealed and
//! opened in bounded memory and a change to any byte, a reordering, a cut or a splice of
//! segments is refused when it is opened.
//!
//! Layout: a 47-byte header — magic `PDBKUP\0` and format 1, the key's id (16 bytes of
//! SHA-256 over a label and the key: says "wrong key" apart from "changed", and tells
//! nothing of the key), a 19-byte nonce prefix, the segment size (u32 BE) — then
//! segments of XChaCha20-Poly1305 (the STREAM construction): segment `i` is sealed under
//! nonce `prefix ‖ i (u32 BE) ‖ last (1 byte)` with the whole header as associated data.
//! The prefix is derived from the key and the copy ([`nonce_hasher`]), both read through one
//! handle and checked unchanged (record 0154).
//! Every segment but the last holds exactly the segment size; the last one is marked, so
//! a file cut at a segment boundary does not open either.
use super::BackupError;
use chacha20poly1305::aead::rand_core::RngCore;
use chacha20poly1305::aead::{AeadInPlace, KeyInit, OsRng};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 7] = b"PDBKUP\0";
const FORMAT: u8 = 1;
const KEY_ID_LEN: usize = 16;
const PREFIX_LEN: usize = 19;
/// magic, format, key id, nonce prefix, segment size
pub const HEADER_LEN: usize = MAGIC.len() + 1 + KEY_ID_LEN + PREFIX_LEN + 4;
/// Plain bytes per segment.
pub const SEGMENT: usize = 64 * 1024;
const TAG: usize = 16;

/// The register's backup key: 32 random bytes. Never in a log (no Debug of its bytes),
/// never on a command line, never at the back office.
#[derive(Clone)]
pub struct BackupKey([u8; 32]);

impl std::fmt::Debug for BackupKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BackupKey(id {})", self.id_hex())
    }
}

impl BackupKey {
    /// A new key from the OS's random source.
    pub fn generate() -> BackupKey {
        let mut k = [0u8; 32];
        OsRng.fill_bytes(&mut k);
        BackupKey(k)
    }

    /// 64 hex digits (how the keychain and the key file hold it), surrounding blanks allowed.
    pub fn from_hex(s: &str) -> Option<BackupKey> {
        let s = s.trim();
        if s.len() != 64 {
            return None;
        }
        let mut k = [0u8; 32];
        hex::decode_to_slice(s, &mut k).ok()?;
        Some(BackupKey(k))
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// [`BackupKey::id`] as hex: what the owner writes beside the key in the safe.
    pub fn id_hex(&self) -> String {
        hex::encode(self.id())
    }

    /// What a sealed file names its key by.
    pub fn id(&self) -> [u8; KEY_ID_LEN] {
        let mut h = Sha256::new();
        h.update(b"PayDesk backup key id, format 1\0");
        h.update(self.0);
        let mut id = [0u8; KEY_ID_LEN];
        id.copy_from_slice(&h.finalize()[..KEY_ID_LEN]);
        id
    }

    /// The key in the file at `path`, which must be private to its owner (no group or
    /// other permission bits): a key others can read is refused, not used.
    pub fn load(path: &Path) -> Result<BackupKey, BackupError> {
        let err = |reason: String| BackupError::KeyFile { path: path.display().to_string(), reason };
        let meta = std::fs::metadata(path).map_err(|e| err(e.to_string()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(BackupError::KeyNotPrivate { path: path.display().to_string(), mode });
            }
        }
        if !meta.is_file() || meta.len() > 200 {
            return Err(err("not a backup key file".into()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        BackupKey::from_hex(&text).ok_or_else(|| err("not a backup key (64 hex digits)".into()))
    }

    /// Writes a new key file (0600); refuses to replace one: the copies sealed with the
    /// old key would no longer open.
    pub fn save_new(&self, path: &Path) -> Result<(), BackupError> {
        let err = |reason: String| BackupError::KeyFile { path: path.display().to_string(), reason };
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(path).map_err(|e| err(e.to_string()))?;
        f.write_all(format!("{}\n", self.to_hex()).as_bytes()).and_then(|_| f.sync_all()).map_err(|e| err(e.to_string()))
    }
}

/// A sealed file written: its size and SHA-256 (what the back office checks).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Sealed {
    pub path: PathBuf,
    pub bytes: u64,
    pub sha256: String,
}

fn nonce(prefix: &[u8; PREFIX_LEN], i: u32, last: bool) -> XNonce {
    let mut n = [0u8; 24];
    n[..PREFIX_LEN].copy_from_slice(prefix);
    n[PREFIX_LEN..PREFIX_LEN + 4].copy_from_slice(&i.to_be_bytes());
    n[23] = u8::from(last);
    XNonce::from(n)
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// `path` + `.partial`: where a file is written before it is renamed whole.
pub(crate) fn partial_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// Creates `path` afresh with mode 0600 (a stale one from a crash is removed first).
pub(crate) fn create_private(path: &Path) -> Result<std::fs::File, BackupError> {
    let io = |e: std::io::Error| BackupError::Io { path: path.display().to_string(), message: e.to_string() };
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts.open(path).map_err(io)
}

/// Syncs `partial` and renames it to `path`: whole or absent.
pub(crate) fn finish(file: std::fs::File, partial: &Path, path: &Path) -> Result<(), BackupError> {
    let io = |e: std::io::Error| BackupError::Io { path: path.display().to_string(), message: e.to_string() };
    file.sync_all().map_err(io)?;
    drop(file);
    std::fs::rename(partial, path).map_err(io)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// The keyed hash the nonce prefix is cut from: the key and the copy's bytes (as SIV
/// derives its IV), not drawn at random, so the same copy sealed twice is the same file — a
/// send repeated after a crash finds it whole at the back office instead of storing it
/// twice — while two different copies get different prefixes (a 152-bit collision). What
/// this reveals is only that two sealed files hold the same copy.
fn nonce_hasher(key: &BackupKey) -> Sha256 {
    let mut h = Sha256::new();
    h.update(b"PayDesk backup nonce, format 1\0");
    h.update(key.0);
    h
}

/// What `fstat` says of the copy being sealed: it must be the same before the first pass
/// and after the second (record 0154). Size, modification and change times to the
/// nanosecond, and which file it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(f: &std::fs::File) -> std::io::Result<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = f.metadata()?;
        Ok(Stamp { dev: m.dev(), ino: m.ino(), len: m.len(), mtime: (m.mtime(), m.mtime_nsec()), ctime: (m.ctime(), m.ctime_nsec()) })
    }
}

/// Seals the file at `plain` into `out` (written as `out.partial`, then renamed).
///
/// The nonce prefix is derived from the copy's bytes, so they are read twice: once for the
/// prefix, once to encrypt. Were they to differ between the two reads, two different
/// plaintexts would be sealed under one prefix — nonce reuse, which under XChaCha20-Poly1305
/// gives away the XOR of the two and the authentication key (record 0154). So both passes
/// read through ONE open handle (a file renamed over the copy's name in between is not
/// read), the handle's `fstat` must be the same before the first pass and after the second,
/// and the second pass hashes what it encrypts: unless that hash is the prefix's own, the
/// sealed file is removed before it is named and `ChangedWhileSealing` returned. A sealed
/// file under `out` therefore always holds the plaintext its prefix was derived from.
pub fn seal(key: &BackupKey, plain: &Path, out: &Path) -> Result<Sealed, BackupError> {
    seal_between(key, plain, out, &mut || {})
}

/// [`seal`], calling `between` after the first pass and before the second (the tests
/// change the copy there).
fn seal_between(key: &BackupKey, plain: &Path, out: &Path, between: &mut dyn FnMut()) -> Result<Sealed, BackupError> {
    let in_io = |e: std::io::Error| BackupError::Io { path: plain.display().to_string(), message: e.to_string() };
    let mut file = std::fs::File::open(plain).map_err(in_io)?;
    let before = Stamp::of(&file).map_err(in_io)?;
    // first pass: the prefix
    let mut first = nonce_hasher(key);
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = fill(&mut file, &mut buf).map_err(in_io)?;
        if n == 0 {
            break;
        }
        first.update(&buf[..n]);
    }
    let first = first.finalize();
    let mut prefix = [0u8; PREFIX_LEN];
    prefix.copy_from_slice(&first[..PREFIX_LEN]);
    between();
    // second pass, on the same handle
    file.seek(SeekFrom::Start(0)).map_err(in_io)?;
    let partial = partial_of(out);
    let out_io = |e: std::io::Error| BackupError::Io { path: partial.display().to_string(), message: e.to_string() };
    let dst_file = create_private(&partial)?;
    let sealed = (|| {
        let mut src = BufReader::new(&file);
        let mut dst = std::io::BufWriter::new(dst_file);
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(MAGIC);
        header.push(FORMAT);
        header.extend_from_slice(&key.id());
        header.extend_from_slice(&prefix);
        header.extend_from_slice(&(SEGMENT as u32).to_be_bytes());
        let mut again = nonce_hasher(key);
        let mut hash = Sha256::new();
        let mut bytes = 0u64;
        let mut put = |dst: &mut std::io::BufWriter<std::fs::File>, b: &[u8]| -> Result<(), BackupError> {
            hash.update(b);
            bytes += b.len() as u64;
            dst.write_all(b).map_err(out_io)
        };
        put(&mut dst, &header)?;
        let cipher = XChaCha20Poly1305::new(&key.0.into());
        let mut buf = vec![0u8; SEGMENT + TAG];
        let mut i: u32 = 0;
        loop {
            let n = fill(&mut src, &mut buf[..SEGMENT]).map_err(in_io)?;
            // the last segment is the first one that is not full, or a full one with nothing after
            let last = n < SEGMENT || src.fill_buf().map_err(in_io)?.is_empty();
            again.update(&buf[..n]);
            let mut seg = buf[..n].to_vec();
            cipher.encrypt_in_place(&nonce(&prefix, i, last), &header, &mut seg).map_err(|_| BackupError::Io { path: plain.display().to_string(), message: "encryption failed".into() })?;
            put(&mut dst, &seg)?;
            if last {
                break;
            }
            i = i.checked_add(1).ok_or_else(|| BackupError::Io { path: plain.display().to_string(), message: "too large to seal".into() })?;
        }
        let after = Stamp::of(&file).map_err(in_io)?;
        if again.finalize() != first || after != before {
            return Err(BackupError::ChangedWhileSealing { path: plain.display().to_string() });
        }
        let dst_file = dst.into_inner().map_err(|e| out_io(e.into_error()))?;
        Ok((dst_file, bytes, hash.finalize()))
    })();
    match sealed {
        Ok((dst_file, bytes, hash)) => {
            finish(dst_file, &partial, out)?;
            Ok(Sealed { path: out.to_path_buf(), bytes, sha256: hex::encode(hash) })
        }
        Err(e) => {
            // what was written under a prefix that is not its plaintext's never gets a name
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}

/// Opens the sealed file at `sealed` with `key` into `out` (written as `out.partial`,
/// renamed only once every segment authenticated: a refused file leaves nothing at `out`).
/// The plain bytes written.
pub fn open(key: &BackupKey, sealed: &Path, out: &Path) -> Result<u64, BackupError> {
    let in_io = |e: std::io::Error| BackupError::Io { path: sealed.display().to_string(), message: e.to_string() };
    let mut src = BufReader::new(std::fs::File::open(sealed).map_err(in_io)?);
    let mut header = [0u8; HEADER_LEN];
    if fill(&mut src, &mut header).map_err(in_io)? < HEADER_LEN || &header[..MAGIC.len()] != MAGIC {
        return Err(BackupError::NotABackup { path: sealed.display().to_string() });
    }
    if header[MAGIC.len()] != FORMAT {
        return Err(BackupError::UnknownFormat { format: header[MAGIC.len()] });
    }
    let at = MAGIC.len() + 1;
    let file_key = &header[at..at + KEY_ID_LEN];
    if file_key != key.id() {
        return Err(BackupError::WrongKey { sealed_with: hex::encode(file_key), key: hex::encode(key.id()) });
    }
    let mut prefix = [0u8; PREFIX_LEN];
    prefix.copy_from_slice(&header[at + KEY_ID_LEN..at + KEY_ID_LEN + PREFIX_LEN]);
    let seg_len = u32::from_be_bytes(header[HEADER_LEN - 4..].try_into().expect("4 bytes")) as usize;
    if seg_len != SEGMENT {
        // the header is authenticated with every segment: a changed size is a changed file
        return Err(BackupError::Tampered { segment: 0, at_byte: (HEADER_LEN - 4) as u64 });
    }
    let partial = partial_of(out);
    let file = create_private(&partial)?;
    let written = (|| {
        let out_io = |e: std::io::Error| BackupError::Io { path: partial.display().to_string(), message: e.to_string() };
        let mut dst = std::io::BufWriter::new(file);
        let cipher = XChaCha20Poly1305::new(&key.0.into());
        let mut buf = vec![0u8; SEGMENT + TAG];
        let mut plain = 0u64;
        let mut i: u32 = 0;
        loop {
            let at_byte = HEADER_LEN as u64 + i as u64 * (SEGMENT + TAG) as u64;
            let n = fill(&mut src, &mut buf).map_err(in_io)?;
            let last = n < SEGMENT + TAG || src.fill_buf().map_err(in_io)?.is_empty();
            let mut seg = buf[..n].to_vec();
            // a segment shorter than its tag, a cut, a changed byte: all fail here
            cipher.decrypt_in_place(&nonce(&prefix, i, last), &header, &mut seg).map_err(|_| BackupError::Tampered { segment: i as u64, at_byte })?;
            dst.write_all(&seg).map_err(out_io)?;
            plain += seg.len() as u64;
            if last {
                break;
            }
            i = i.checked_add(1).ok_or(BackupError::Tampered { segment: i as u64, at_byte })?;
        }
        let file = dst.into_inner().map_err(|e| out_io(e.into_error()))?;
        Ok((file, plain))
    })();
    match written {
        Ok((file, plain)) => {
            finish(file, &partial, out)?;
            Ok(plain)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(len: usize) {
        let dir = tempfile::tempdir().unwrap();
        let plain: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(dir.path().join("p"), &plain).unwrap();
        let key = BackupKey::generate();
        let s = seal(&key, &dir.path().join("p"), &dir.path().join("s")).unwrap();
        let segs = len.div_ceil(SEGMENT).max(1);
        assert_eq!(s.bytes as usize, HEADER_LEN + len + segs * TAG, "len {len}");
        assert_eq!(open(&key, &dir.path().join("s"), &dir.path().join("o")).unwrap() as usize, len);
        assert_eq!(std::fs::read(dir.path().join("o")).unwrap(), plain);
    }

    #[test]
    fn sizes_round_trip_at_segment_edges() {
        for len in [0, 1, SEGMENT - 1, SEGMENT, SEGMENT + 1, 3 * SEGMENT] {
            roundtrip(len);
        }
    }

    #[test]
    fn a_cut_at_a_segment_boundary_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p"), vec![5u8; 2 * SEGMENT + 10]).unwrap();
        let key = BackupKey::generate();
        seal(&key, &dir.path().join("p"), &dir.path().join("s")).unwrap();
        let mut bytes = std::fs::read(dir.path().join("s")).unwrap();
        bytes.truncate(HEADER_LEN + 2 * (SEGMENT + TAG));
        std::fs::write(dir.path().join("s"), &bytes).unwrap();
        let e = open(&key, &dir.path().join("s"), &dir.path().join("o")).unwrap_err();
        assert!(matches!(e, BackupError::Tampered { segment: 1, .. }), "{e:?}");
        assert!(!dir.path().join("o").exists() && !partial_of(&dir.path().join("o")).exists());
    }

    /// Record 0154: the nonce prefix is derived in a first pass over the copy and the copy
    /// encrypted in a second; a copy changed in between (here one byte, the same size, its
    /// modification time put back) is refused, and nothing is left under `out` — no second
    /// plaintext is ever sealed under the first one's prefix.
    #[test]
    fn a_copy_changed_between_the_two_passes_is_refused_and_nothing_is_sealed() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p");
        std::fs::write(&p, vec![1u8; 3 * SEGMENT + 5]).unwrap();
        let key = BackupKey::generate();
        let first = seal(&key, &p, &dir.path().join("s1")).unwrap();
        let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
        let out = dir.path().join("s2");
        let e = seal_between(&key, &p, &out, &mut || {
            let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
            f.write_all_at(&[2], 2 * SEGMENT as u64 + 1).unwrap();
            f.set_modified(mtime).unwrap();
        })
        .unwrap_err();
        assert!(matches!(&e, BackupError::ChangedWhileSealing { .. }), "{e:?}");
        assert_eq!(e.code(), "backup_copy_changed");
        assert!(!out.exists() && !partial_of(&out).exists(), "nothing sealed under the first pass's prefix");
        // the copy as it is now seals (its own prefix) and opens to what it now holds
        let now = seal(&key, &p, &out).unwrap();
        assert_ne!(now.sha256, first.sha256);
        assert_eq!(open(&key, &out, &dir.path().join("o")).unwrap(), 3 * SEGMENT as u64 + 5);
        assert_eq!(std::fs::read(dir.path().join("o")).unwrap(), std::fs::read(&p).unwrap());
    }

    /// A file renamed over the copy's name between the passes: the second pass reads the
    /// one handle opened first, never the newcomer, and the copy behind it was unlinked (its
    /// change time moved): refused too, nothing sealed.
    #[test]
    fn a_file_put_under_the_copys_name_between_the_passes_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p");
        std::fs::write(&p, vec![3u8; 2 * SEGMENT + 9]).unwrap();
        let key = BackupKey::generate();
        let other = dir.path().join("other");
        std::fs::write(&other, vec![9u8; 2 * SEGMENT + 9]).unwrap();
        let out = dir.path().join("s");
        let e = seal_between(&key, &p, &out, &mut || std::fs::rename(&other, &p).unwrap()).unwrap_err();
        assert!(matches!(&e, BackupError::ChangedWhileSealing { .. }), "{e:?}");
        assert!(!out.exists() && !partial_of(&out).exists());
    }

    #[test]
    fn a_key_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k");
        let key = BackupKey::generate();
        key.save_new(&p).unwrap();
        assert_eq!(BackupKey::load(&p).unwrap().id(), key.id());
        assert!(matches!(key.save_new(&p), Err(BackupError::KeyFile { .. })), "never replaced");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(BackupKey::load(&p), Err(BackupError::KeyNotPrivate { mode: 0o644, .. })));
        assert!(!format!("{key:?}").contains(&key.to_hex()), "Debug never shows the key");
    }
}
