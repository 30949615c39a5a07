//! SQLite storage (record 0023): WAL, one writer thread fed by a FIFO queue that commits
//! many requests' claims and completions in one transaction (group commit), and
//! separate read connections. An in-memory database routes reads through the writer.
//!
//! Durability: with group commit on a file, the writer commits at `synchronous=NORMAL`
//! and the log syncer ([`log_sync`]) fsyncs the WAL once per group of batches
//! before anyone is answered (reads included); the naive path (batches of one) and
//! [`WriteMode::Inline`] commit at `synchronous=FULL`, the fsync inside each COMMIT.
//!
//! [`WriteMode::Inline`] (opt-in, for a single-threaded deterministic simulation)
//! runs each write job on the caller's thread instead, in a transaction of its own:
//! no thread hop, no batching. The default everywhere else is the writer thread.
//!
//! One file per stage: `jobs.rs` (what a caller queues and how it is answered),
//! `writer.rs` (the writer thread, group commit), `log_sync.rs` (the fsync off the
//! writer's path), `checkpoint.rs` (WAL checkpoints), `reads.rs` (read connections,
//! the idempotency row), `purge.rs` (expired keys), `schema.rs` (versioned schema,
//! refusal of foreign files). This file: the [`Store`] handle and its shared types.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::mpsc;
use parking_lot::Mutex;
use std::sync::Arc;

mod checkpoint;
mod jobs;
pub mod log_sync;
mod purge;
mod reads;
pub mod schema;
#[cfg(test)]
mod tests;
mod writer;

pub(crate) use jobs::Job;
pub use jobs::ThenResult;
use checkpoint::{checkpointer, WAL_SIZE_LIMIT_BYTES};
use jobs::Msg;
use log_sync::Durability;
use writer::writer_loop;
pub use purge::purge_chunk;
pub use reads::{get_idem, IdemRow};

#[derive(Debug, Clone)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError(e.to_string())
    }
}

/// Where the PSP keeps its state.
#[derive(Clone, Debug)]
pub enum DbLocation {
    Memory,
    File(PathBuf),
}

impl DbLocation {
    pub fn parse(s: &str) -> Self {
        if s == ":memory:" {
            DbLocation::Memory
        } else {
            DbLocation::File(PathBuf::from(s))
        }
    }
}


/// State owned by the writer thread and lent to each job. Cloned before each batch,
/// so that a batch rolled back and re-run mints the same ids again.
#[derive(Clone)]
pub struct WriterState {
    rng: ChaCha8Rng,
    id_seq: i64,
}

const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

impl WriterState {
    /// A Stripe-looking id: prefix, a base-62 sequence number unique in this database,
    /// and seeded random characters.
    pub fn mint(&mut self, prefix: &str) -> String {
        self.id_seq += 1;
        let mut n = self.id_seq as u64;
        let mut seq = Vec::new();
        while n > 0 {
            seq.push(ALNUM[(n % 62) as usize]);
            n /= 62;
        }
        seq.reverse();
        let mut s = String::from(prefix);
        s.push('_');
        s.push_str(std::str::from_utf8(&seq).unwrap());
        while s.len() < prefix.len() + 25 {
            s.push(ALNUM[self.rng.random_range(0..62)] as char);
        }
        s
    }
    pub fn random_alnum(&mut self, n: usize) -> String {
        (0..n).map(|_| ALNUM[self.rng.random_range(0..62)] as char).collect()
    }
}

/// How write jobs reach the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMode {
    /// One writer thread fed by a FIFO queue, group-committing up to `max_batch` jobs
    /// per transaction (1 = the naive path). What a server uses.
    WriterThread { max_batch: usize },
    /// Each job runs on the caller's thread, in its own transaction, when it is
    /// submitted. For one caller that submits one job at a time (the deterministic
    /// simulation): it saves a thread hop and two wake-ups per job. Concurrent callers
    /// would serialise on a mutex without any group commit, so never for a server.
    Inline,
}

/// The connection and id state of [`WriteMode::Inline`].
struct InlineWriter {
    conn: Connection,
    state: WriterState,
}

pub struct Store {
    tx: Mutex<Option<mpsc::Sender<Msg>>>,
    /// Set when commits are made durable by the log syncer ([`log_sync`]):
    /// group commit on a file database. Reads wait on it before answering.
    durability: Option<Arc<Durability>>,
    syncer: Mutex<Option<std::thread::JoinHandle<()>>>,
    inline: Option<Mutex<Option<InlineWriter>>>,
    readers: Mutex<Vec<Connection>>,
    location: DbLocation,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    pub stats: Arc<StoreStats>,
    ckpt_stop: Arc<AtomicBool>,
    /// Set by the checkpointer when the WAL is long and fully backfilled: the writer
    /// then finishes the checkpoint between two batches so the log restarts.
    wal_restart: Arc<AtomicBool>,
}

impl Store {
    /// Jobs sent to the writer and not yet picked up (for low-priority work).
    pub fn queued(&self) -> u64 {
        self.stats.queued.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[derive(Default)]
pub struct StoreStats {
    pub transactions: AtomicU64,
    pub jobs: AtomicU64,
    pub max_batch: AtomicU64,
    pub queued: AtomicU64,
    /// Checkpoints the writer finished between batches so the log could restart, and
    /// the slowest of them (time requests queued behind it waited).
    pub wal_restart_checkpoints: AtomicU64,
    pub wal_restart_checkpoint_max_us: AtomicU64,
}

/// Statements kept prepared per connection (each connection has its own cache).
const STATEMENT_CACHE_CAPACITY: usize = 128;

fn open_conn(loc: &DbLocation) -> Result<Connection, StoreError> {
    let conn = match loc {
        DbLocation::Memory => Connection::open_in_memory()?,
        DbLocation::File(p) => Connection::open(p)?,
    };
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // The request path uses ~40 distinct cached statements; rusqlite's default cache
    // of 16 evicted and re-parsed them on every request.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE_CAPACITY);
    if let DbLocation::File(_) = loc {
        conn.pragma_update(None, "journal_mode", "WAL")?;
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

impl Store {
    /// Opens (creating if needed) the database and starts the writer thread.
    /// `max_batch` 1 disables group commit (one transaction per job: the naive path).
    pub fn open(location: DbLocation, seed: u64, max_batch: usize) -> Result<Arc<Store>, StoreError> {
        Store::open_with(location, seed, WriteMode::WriterThread { max_batch })
    }

    /// Opens the database with an explicit [`WriteMode`].
    pub fn open_with(location: DbLocation, seed: u64, mode: WriteMode) -> Result<Arc<Store>, StoreError> {
        // A file that is not a mock-psp store (or is a newer one's) is refused before
        // anything, even the journal mode, is written to it.
        schema::check(&location)?;
        let mut conn = open_conn(&location)?;
        schema::migrate(&mut conn)?;
        let ckpt_stop = Arc::new(AtomicBool::new(false));
        let wal_restart = Arc::new(AtomicBool::new(false));
        if let DbLocation::File(_) = location {
            conn.pragma_update(None, "wal_autocheckpoint", 0)?;
            // When the log restarts, cut the file back (it otherwise keeps its largest size).
            conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT_BYTES)?;
            let (loc, stop, restart) = (location.clone(), ckpt_stop.clone(), wal_restart.clone());
            std::thread::Builder::new().name("mock-psp-checkpoint".into()).spawn(move || checkpointer(loc, stop, restart)).map_err(|e| StoreError(e.to_string()))?;
        }
        let id_seq: i64 = conn.query_row("SELECT v FROM meta WHERE k='id_seq'", [], |r| r.get(0))?;
        let mut state = WriterState { rng: ChaCha8Rng::seed_from_u64(seed), id_seq };
        let stats = Arc::new(StoreStats::default());
        let max_batch = match mode {
            WriteMode::Inline => {
                return Ok(Arc::new(Store {
                    tx: Mutex::new(None),
                    durability: None,
                    syncer: Mutex::new(None),
                    inline: Some(Mutex::new(Some(InlineWriter { conn, state }))),
                    readers: Mutex::new(Vec::new()),
                    location,
                    writer: Mutex::new(None),
                    stats,
                    ckpt_stop,
                    wal_restart,
                }))
            }
            WriteMode::WriterThread { max_batch } => max_batch,
        };
        let (tx, rx) = mpsc::channel::<Msg>();
        let st2 = stats.clone();
        let max_batch = max_batch.max(1);
        let restart = wal_restart.clone();
        let GroupCommit { durability, flush, syncer } = group_commit(&conn, &location, max_batch, &ckpt_stop)?;
        let writer = std::thread::Builder::new()
            .name("mock-psp-writer".into())
            .spawn(move || writer_loop(conn, rx, &mut state, max_batch, st2, &restart, flush))
            .map_err(|e| StoreError(e.to_string()))?;
        Ok(Arc::new(Store {
            tx: Mutex::new(Some(tx)),
            durability,
            syncer: Mutex::new(syncer),
            inline: None,
            readers: Mutex::new(Vec::new()),
            location,
            writer: Mutex::new(Some(writer)),
            stats,
            ckpt_stop,
            wal_restart,
        }))
    }

    /// Stops the writer after the jobs already queued; waits for it.
    pub fn close(&self) {
        self.ckpt_stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.tx.lock().take();
        if let Some(inline) = &self.inline {
            inline.lock().take();
        }
        self.readers.lock().clear();
        if let Some(h) = self.writer.lock().take() {
            let _ = h.join();
        }
        // The writer has handed over its last commits: let the syncer answer them.
        if let Some(h) = self.syncer.lock().take() {
            let _ = h.join();
        }
    }

    /// The log syncer's state, when commits are made durable by it (group commit on a
    /// file database).
    pub fn durability(&self) -> Option<&Durability> {
        self.durability.as_deref()
    }
}

/// Group commit's parts: the durability the store shares, the writer's hand-off to the
/// log syncer, and the syncer's thread (all `None` without group commit).
struct GroupCommit {
    durability: Option<Arc<Durability>>,
    flush: Option<(mpsc::Sender<log_sync::Committed>, Arc<Durability>)>,
    syncer: Option<std::thread::JoinHandle<()>>,
}

/// Group commit on a file: commits are made durable by the log syncer, off the writer's
/// path (see log_sync). The naive path (batches of one) keeps the textbook form,
/// synchronous=FULL with the fsync inside each COMMIT.
fn group_commit(conn: &Connection, location: &DbLocation, max_batch: usize, ckpt_stop: &AtomicBool) -> Result<GroupCommit, StoreError> {
    match location {
        DbLocation::File(_) if max_batch > 1 => {
            // The WAL file's name as SQLite builds it: from the database's full
            // path as SQLite resolved it (symlinks followed, a `file:` URI
            // decoded), not from the name we were given, which may be a symlink
            // or a URI. Syncing any other file would make nothing durable.
            let wal = match conn.path() {
                Some(db) if !db.is_empty() => format!("{db}-wal"),
                _ => {
                    ckpt_stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    return Err(StoreError("SQLite reports no file for the database: cannot find its write-ahead log".into()));
                }
            };
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            let dur = Durability::new();
            let (ftx, h) = log_sync::start(std::path::Path::new(&wal), dur.clone()).inspect_err(|_| ckpt_stop.store(true, std::sync::atomic::Ordering::Relaxed))?;
            Ok(GroupCommit { durability: Some(dur.clone()), flush: Some((ftx, dur)), syncer: Some(h) })
        }
        _ => Ok(GroupCommit { durability: None, flush: None, syncer: None }),
    }
}

pub fn random_seed() -> u64 {
    rand::rng().random()
}
