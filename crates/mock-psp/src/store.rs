//! SQLite storage (SPEC §7): WAL, one writer thread fed by a FIFO queue that commits
//! many requests' claims and completions in one transaction (group commit), and
//! separate read connections. An in-memory database routes reads through the writer.
//!
//! Durability: with group commit on a file, the writer commits at `synchronous=NORMAL`
//! and the log syncer ([`crate::log_sync`]) fsyncs the WAL once per group of batches
//! before anyone is answered (reads included); the naive path (batches of one) and
//! [`WriteMode::Inline`] commit at `synchronous=FULL`, the fsync inside each COMMIT.
//!
//! [`WriteMode::Inline`] (opt-in, for a single-threaded deterministic simulation)
//! runs each write job on the caller's thread instead, in a transaction of its own:
//! no thread hop, no batching. The default everywhere else is the writer thread.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::PathBuf;
use std::sync::mpsc;
use parking_lot::Mutex;
use std::sync::Arc;
use crate::log_sync::{self, Committed, Durability};

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

/// One queued write job. `run` may be called twice (see [`run_batch`]); the caller
/// is answered exactly once, by `finish`, after the commit.
pub(crate) trait Job: Send {
    /// Runs the job inside the open transaction; false if it failed.
    fn run(&mut self, conn: &Connection, st: &mut WriterState) -> bool;
    /// Answers the caller: the job's result if the transaction committed, else the
    /// commit's error.
    fn finish(self: Box<Self>, commit: Result<(), StoreError>);
    /// Marks the job failed without running it again (its writes were rolled back and
    /// it could not be re-run): its caller must not be answered with the earlier result.
    fn fail(&mut self, e: StoreError);
    /// With the log syncer: may this job's caller be answered as soon as its batch
    /// committed, before the fsync? (See [`Store::write_answered_at_commit`].)
    fn answer_at_commit(&self) -> bool {
        false
    }
    /// Called after the job's transaction committed: true if the job has a second
    /// step, which the writer then runs in its next transaction (see
    /// [`Store::write_then`]) instead of answering the caller now.
    fn advance(&mut self) -> bool {
        false
    }
}

/// What [`Store::write_then`] answers: the first step's result, and the second's if
/// it ran (`None` when `go_on` said no; `Some(Err)` when it failed or its commit did:
/// the first step stays committed either way).
pub type ThenResult<A, B> = (A, Option<Result<B, StoreError>>);

/// Two steps in two transactions, the second run by the writer right after the first
/// committed (see [`Store::write_then`]).
struct ChainJob<A, B, F, G> {
    first: F,
    then: G,
    go_on: fn(&A) -> bool,
    a: Option<Result<A, StoreError>>,
    b: Option<Result<B, StoreError>>,
    second: bool,
    reply: Option<tokio::sync::oneshot::Sender<Result<ThenResult<A, B>, StoreError>>>,
}

impl<A, B, F, G> Job for ChainJob<A, B, F, G>
where
    A: Send,
    B: Send,
    F: FnMut(&Connection, &mut WriterState) -> Result<A, StoreError> + Send,
    G: FnMut(&A, &Connection, &mut WriterState) -> Result<B, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection, st: &mut WriterState) -> bool {
        if !self.second {
            let r = (self.first)(conn, st);
            let ok = r.is_ok();
            self.a = Some(r);
            return ok;
        }
        let Some(Ok(a)) = &self.a else {
            // advance() only moves on from a successful first step.
            self.b = Some(Err(StoreError("the first step has no result".into())));
            return false;
        };
        let r = (self.then)(a, conn, st);
        let ok = r.is_ok();
        self.b = Some(r);
        ok
    }
    fn fail(&mut self, e: StoreError) {
        if self.second {
            self.b = Some(Err(e));
        } else {
            self.a = Some(Err(e));
        }
    }
    fn advance(&mut self) -> bool {
        if !self.second && matches!(&self.a, Some(Ok(a)) if (self.go_on)(a)) {
            self.second = true;
            return true;
        }
        false
    }
    fn finish(self: Box<Self>, commit: Result<(), StoreError>) {
        let this = *self;
        let r = match (this.second, this.a) {
            // The first step committed; the second's outcome (or its commit's error).
            (true, Some(Ok(a))) => Ok((a, Some(commit.and(this.b.unwrap_or_else(|| Err(StoreError("the second step never ran".into()))))))),
            (false, Some(Ok(a))) => commit.map(|_| (a, None)),
            (_, Some(Err(e))) => Err(commit.err().unwrap_or(e)),
            (_, None) => Err(commit.err().unwrap_or_else(|| StoreError("the write job never ran".into()))),
        };
        if let Some(to) = this.reply {
            let _ = to.send(r);
        }
    }
}

/// A write: re-runnable (`FnMut`), because a failed batch is rolled back whole and
/// run again (see [`run_batch`]).
struct WriteJob<T, F> {
    f: F,
    result: Option<Result<T, StoreError>>,
    reply: Option<tokio::sync::oneshot::Sender<Result<T, StoreError>>>,
    /// Results for which the caller may be answered at commit (see
    /// [`Store::write_answered_at_commit`]); `None`: always after the fsync.
    at_commit: Option<fn(&T) -> bool>,
}

impl<T, F> Job for WriteJob<T, F>
where
    T: Send,
    F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection, st: &mut WriterState) -> bool {
        let r = (self.f)(conn, st);
        let ok = r.is_ok();
        self.result = Some(r);
        ok
    }
    fn finish(self: Box<Self>, commit: Result<(), StoreError>) {
        reply(self.reply, self.result, commit, "write");
    }
    fn fail(&mut self, e: StoreError) {
        self.result = Some(Err(e));
    }
    fn answer_at_commit(&self) -> bool {
        match (&self.result, self.at_commit) {
            (Some(Ok(t)), Some(p)) => p(t),
            _ => false,
        }
    }
}

/// A read routed through the writer (in-memory database). It writes nothing, so when
/// its batch is re-run the first result stands (the state it read is rebuilt
/// identically: the jobs before it are deterministic) and `f` runs only once.
struct ReadJob<T, F> {
    f: Option<F>,
    result: Option<Result<T, StoreError>>,
    reply: Option<tokio::sync::oneshot::Sender<Result<T, StoreError>>>,
}

impl<T, F> Job for ReadJob<T, F>
where
    T: Send,
    F: FnOnce(&Connection) -> Result<T, StoreError> + Send,
{
    fn run(&mut self, conn: &Connection, _st: &mut WriterState) -> bool {
        if let Some(f) = self.f.take() {
            self.result = Some(f(conn));
        }
        matches!(self.result, Some(Ok(_)))
    }
    fn finish(self: Box<Self>, commit: Result<(), StoreError>) {
        reply(self.reply, self.result, commit, "read");
    }
    fn fail(&mut self, e: StoreError) {
        self.result = Some(Err(e));
    }
}

/// Answers a job's caller once: its result if the transaction committed, else the
/// commit's error.
fn reply<T>(
    to: Option<tokio::sync::oneshot::Sender<Result<T, StoreError>>>,
    result: Option<Result<T, StoreError>>,
    commit: Result<(), StoreError>,
    what: &str,
) {
    let r = result.unwrap_or_else(|| Err(StoreError(format!("the {what} job never ran"))));
    if let Some(to) = to {
        let _ = to.send(commit.and(r));
    }
}

enum Msg {
    /// Batched with other jobs in one transaction (group commit).
    Job(Box<dyn Job>),
    /// Runs in a transaction of its own (purge chunks), so requests batched around it
    /// never pay for its writes, committed without waiting for an fsync (see
    /// [`Store::write_solo_unsynced`]).
    Solo(Box<dyn Job>),
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
    /// Set when commits are made durable by the log syncer ([`crate::log_sync`]):
    /// group commit on a file database. Reads wait on it before answering.
    durability: Option<Arc<Durability>>,
    syncer: Mutex<Option<std::thread::JoinHandle<()>>>,
    inline: Option<Mutex<Option<InlineWriter>>>,
    readers: Mutex<Vec<Connection>>,
    location: DbLocation,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    pub stats: Arc<StoreStats>,
    ckpt_stop: Arc<std::sync::atomic::AtomicBool>,
    /// Set by the checkpointer when the WAL is long and fully backfilled: the writer
    /// then finishes the checkpoint between two batches so the log restarts.
    wal_restart: Arc<std::sync::atomic::AtomicBool>,
}

impl Store {
    /// Jobs sent to the writer and not yet picked up (for low-priority work).
    pub fn queued(&self) -> u64 {
        self.stats.queued.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[derive(Default)]
pub struct StoreStats {
    pub transactions: std::sync::atomic::AtomicU64,
    pub jobs: std::sync::atomic::AtomicU64,
    pub max_batch: std::sync::atomic::AtomicU64,
    pub queued: std::sync::atomic::AtomicU64,
    /// Checkpoints the writer finished between batches so the log could restart, and
    /// the slowest of them (time requests queued behind it waited).
    pub wal_restart_checkpoints: std::sync::atomic::AtomicU64,
    pub wal_restart_checkpoint_max_us: std::sync::atomic::AtomicU64,
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
        crate::schema::check(&location)?;
        let mut conn = open_conn(&location)?;
        crate::schema::migrate(&mut conn)?;
        let ckpt_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let wal_restart = Arc::new(std::sync::atomic::AtomicBool::new(false));
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
        // Group commit on a file: commits are made durable by the log syncer, off the
        // writer's path (see log_sync). The naive path (batches of one) keeps the
        // textbook form, synchronous=FULL with the fsync inside each COMMIT.
        let (durability, flush, syncer) = match &location {
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
                (Some(dur.clone()), Some((ftx, dur)), Some(h))
            }
            _ => (None, None, None),
        };
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

    /// Runs `f` on the writer thread inside the current batch's transaction. Resolves
    /// after the commit. An error rolls back only this job's writes: the batch is then
    /// rolled back whole and re-run with each job in its own savepoint, so `f` may run
    /// twice (it is `FnMut`; its first run's writes and minted ids are undone).
    pub async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, false, None).await
    }

    /// Like [`Store::write`], but when `at_commit` holds for the job's result the caller
    /// is answered as soon as the batch committed — visible to every other request, not
    /// yet fsynced (with group commit on a file; otherwise exactly like `write`).
    ///
    /// Only for a step whose result never leaves the process by itself: the claim of an
    /// idempotency key. Its caller goes on to execute and complete the request in a
    /// later transaction, and the client is answered only after *that* commit's fsync,
    /// which covers the claim too (the log is written in order). A power cut before
    /// then loses the claim and the completion together, and nobody was told of
    /// either. What a fresh claim saves is one fsync wait per request.
    pub async fn write_answered_at_commit<T, F>(&self, f: F, at_commit: fn(&T) -> bool) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, false, Some(at_commit)).await
    }

    /// Like [`Store::write`], but in a transaction of its own (not group-committed)
    /// whose commit does not wait for an fsync (`synchronous=NORMAL` for that one
    /// transaction). Only for housekeeping whose loss in a crash is harmless — the
    /// purge: a lost purge chunk leaves expired keys, which a claim already treats as
    /// forgotten and the next purge deletes. Request durability is unchanged: every
    /// request's commit still fsyncs the log, and with it this transaction's frames.
    /// What it buys: a request queued behind a purge chunk no longer also waits for
    /// the chunk's fsync (the slowest part of a chunk when the disk is busy).
    pub async fn write_solo_unsynced<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, true, None).await
    }

    /// Two writes in two transactions, the second (`then`, given the first's result)
    /// run by the writer in the transaction right after the first committed, when
    /// `go_on` holds for the first's result. The caller is answered once, after the
    /// second committed (with group commit on a file: after its fsync, which covers
    /// the first too). For the idempotency layer's claim and execution: the claim is
    /// committed before execution begins, and the execution does not wait for a
    /// round trip through the request's task between the two (a request then spends
    /// one writer queue wait less). Both steps may run twice (see [`Store::write`]).
    pub async fn write_then<A, B, F, G>(&self, first: F, go_on: fn(&A) -> bool, then: G) -> Result<ThenResult<A, B>, StoreError>
    where
        A: Send + 'static,
        B: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<A, StoreError> + Send + 'static,
        G: FnMut(&A, &Connection, &mut WriterState) -> Result<B, StoreError> + Send + 'static,
    {
        let (otx, orx) = tokio::sync::oneshot::channel();
        self.submit(Box::new(ChainJob { first, then, go_on, a: None, b: None, second: false, reply: Some(otx) }), false)?;
        orx.await.map_err(|_| StoreError("writer stopped".into()))?
    }

    async fn write_inner<T, F>(&self, f: F, solo: bool, at_commit: Option<fn(&T) -> bool>) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnMut(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        let (otx, orx) = tokio::sync::oneshot::channel();
        self.submit(Box::new(WriteJob { f, result: None, reply: Some(otx), at_commit }), solo)?;
        orx.await.map_err(|_| StoreError("writer stopped".into()))?
    }

    /// Runs `job` inline (to its commit, right here) or queues it for the writer.
    fn submit(&self, job: Box<dyn Job>, solo: bool) -> Result<(), StoreError> {
        if let Some(inline) = &self.inline {
            // Runs to its commit right here; the reply is already in the channel.
            let mut g = inline.lock();
            let w = g.as_mut().ok_or_else(|| StoreError("store is closed".into()))?;
            let mut jobs = vec![job];
            // A job with a second step runs it in the next transaction, right here.
            while !jobs.is_empty() {
                jobs = run_then_checkpoint(&w.conn, &mut w.state, jobs, solo, &self.stats, &self.wal_restart, None);
            }
            Ok(())
        } else {
            self.send(if solo { Msg::Solo(job) } else { Msg::Job(job) })
        }
    }

    fn send(&self, msg: Msg) -> Result<(), StoreError> {
        let g = self.tx.lock();
        self.stats.queued.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let r = match g.as_ref() {
            Some(tx) => tx.send(msg).map_err(|_| StoreError("writer stopped".into())),
            None => Err(StoreError("store is closed".into())),
        };
        if r.is_err() {
            self.stats.queued.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
        r
    }

    /// Runs a read-only `f` on a read connection (file database) or through the
    /// writer queue (in-memory database). On a file database with group commit it
    /// answers only once every commit it could have seen is on disk (see
    /// [`crate::log_sync`]): usually at once; in a burst of writes, after the next
    /// fsync. It never causes an fsync of its own.
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.read_impl(f, |_| true, false).await
    }

    /// The idempotency fast path's lookup of one key: like [`Store::read`], but
    /// - it runs on the calling task, not on the blocking pool: one indexed lookup
    ///   (tens of µs) costs less than the two thread hops it would take, which were a
    ///   tenth of a request's latency at 16 clients (reads in WAL mode never wait for
    ///   the writer, so this does not stall the runtime behind a write);
    /// - it waits for pending commits to reach the disk only when `reveals` holds for
    ///   the result: "no such key" is no answer to anyone (the claim in the writer
    ///   decides afresh), so a new key does not wait for other requests' fsyncs.
    pub async fn read_point<T, F>(&self, f: F, reveals: fn(&T) -> bool) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.read_impl(f, reveals, true).await
    }

    async fn read_impl<T, F>(&self, f: F, reveals: fn(&T) -> bool, on_caller: bool) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        match &self.location {
            DbLocation::Memory => {
                let (otx, orx) = tokio::sync::oneshot::channel();
                self.submit(Box::new(ReadJob { f: Some(f), result: None, reply: Some(otx) }), false)?;
                orx.await.map_err(|_| StoreError("writer stopped".into()))?
            }
            DbLocation::File(_) => {
                let conn = {
                    let mut pool = self.readers.lock();
                    pool.pop()
                };
                let conn = match conn {
                    Some(c) => c,
                    None => open_conn(&self.location)?,
                };
                let (r, conn) = if on_caller {
                    (f(&conn), conn)
                } else {
                    tokio::task::spawn_blocking(move || {
                        let r = f(&conn);
                        (r, conn)
                    })
                    .await
                    .map_err(|e| StoreError(e.to_string()))?
                };
                {
                    let mut pool = self.readers.lock();
                    if pool.len() < 16 {
                        pool.push(conn);
                    }
                }
                if let (Some(d), Ok(v)) = (&self.durability, &r) {
                    if reveals(v) {
                        d.settled().await?;
                    }
                }
                r
            }
        }
    }

    /// Synchronous read for non-async callers (tests, bench setup). Unlike
    /// [`Store::read`] it does not wait for pending commits to reach the disk: never
    /// use it to answer a request.
    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        match &self.location {
            DbLocation::Memory => Err(StoreError("read_blocking needs a file database".into())),
            DbLocation::File(_) => f(&open_conn(&self.location)?),
        }
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

/// Where a committed batch's callers go: answered at once (the commit itself was
/// durable, or the database is in memory), or handed to the log syncer.
type Flush = Option<(mpsc::Sender<Committed>, Arc<Durability>)>;

fn writer_loop(
    conn: Connection,
    rx: mpsc::Receiver<Msg>,
    st: &mut WriterState,
    max_batch: usize,
    stats: Arc<StoreStats>,
    wal_restart: &std::sync::atomic::AtomicBool,
    flush: Flush,
) {
    use std::sync::atomic::Ordering::Relaxed;
    let mut pending: Option<Msg> = None;
    // Second steps of jobs whose first step just committed (see Store::write_then):
    // they go first in the next transaction, ahead of the queue.
    let mut carry: Vec<Box<dyn Job>> = Vec::new();
    loop {
        let mut batch: Vec<Box<dyn Job>> = carry.drain(..carry.len().min(max_batch)).collect();
        let mut from_queue = 0u64;
        let mut solo = false;
        if batch.is_empty() {
            let first = match pending.take() {
                Some(m) => m,
                None => match rx.recv() {
                    Ok(m) => m,
                    Err(_) => break,
                },
            };
            from_queue += 1;
            match first {
                Msg::Solo(j) => {
                    batch.push(j);
                    solo = true;
                }
                Msg::Job(j) => batch.push(j),
            }
        }
        // Group commit: take what queued up meanwhile (FIFO), up to a solo job.
        while !solo && batch.len() < max_batch {
            let m = match pending.take() {
                Some(m) => m,
                None => match rx.try_recv() {
                    Ok(m) => m,
                    Err(_) => break,
                },
            };
            match m {
                Msg::Job(j) => {
                    batch.push(j);
                    from_queue += 1;
                }
                solo_job => {
                    pending = Some(solo_job);
                    break;
                }
            }
        }
        stats.queued.fetch_sub(from_queue, Relaxed);
        carry.extend(run_then_checkpoint(&conn, st, batch, solo, &stats, wal_restart, flush.as_ref()));
    }
}

type Jobs = Vec<Box<dyn Job>>;

/// After a successful commit: the jobs with a second step (kept by the writer for its
/// next transaction), and the rest (to be answered).
fn split_advancing(batch: Jobs) -> (Jobs, Jobs) {
    let (mut carry, mut rest) = (Vec::new(), Vec::new());
    for mut j in batch {
        if j.advance() {
            carry.push(j);
        } else {
            rest.push(j);
        }
    }
    (carry, rest)
}

/// Runs one batch (a solo job without waiting for its fsync), then the WAL-restart
/// checkpoint if the checkpointer asked for one: between batches, nothing open.
/// Returns the jobs that go on to a second step in the next transaction.
fn run_then_checkpoint(
    conn: &Connection,
    st: &mut WriterState,
    batch: Vec<Box<dyn Job>>,
    solo: bool,
    stats: &StoreStats,
    wal_restart: &std::sync::atomic::AtomicBool,
    flush: Option<&(mpsc::Sender<Committed>, Arc<Durability>)>,
) -> Vec<Box<dyn Job>> {
    let mut carry = Vec::new();
    match flush {
        // The connection is at synchronous=NORMAL already; a solo job's callers are
        // answered without waiting for the syncer (the commit is still numbered, so
        // reads that see it wait for it).
        Some((tx, dur)) => {
            let (batch, commit, seq) = run_batch(conn, st, batch, stats, Some(dur));
            let jobs = if solo || commit.is_err() {
                finish_all(batch, commit);
                Vec::new()
            } else {
                let (next, batch) = split_advancing(batch);
                carry = next;
                let (now, after_sync): (Vec<_>, Vec<_>) = batch.into_iter().partition(|j| j.answer_at_commit());
                finish_all(now, Ok(()));
                after_sync
            };
            // No number: no COMMIT was issued (BEGIN failed), readers saw nothing new.
            if let Some(seq) = seq {
                // A send fails only if the syncer is gone; the jobs are then dropped
                // and their callers get "writer stopped".
                let _ = tx.send(Committed { seq, jobs });
            }
        }
        None if solo => run_batch_unsynced(conn, st, batch, stats),
        None => {
            let (batch, commit, _) = run_batch(conn, st, batch, stats, None);
            let batch = if commit.is_ok() {
                let (next, batch) = split_advancing(batch);
                carry = next;
                batch
            } else {
                batch
            };
            finish_all(batch, commit);
        }
    }
    finish_checkpoint_if_asked(conn, wal_restart, stats);
    carry
}

/// [`run_batch`] with `synchronous=NORMAL` for this one transaction (a solo job: see
/// [`Store::write_solo_unsynced`]), then back to `FULL`.
fn run_batch_unsynced(conn: &Connection, st: &mut WriterState, batch: Vec<Box<dyn Job>>, stats: &StoreStats) {
    if conn.execute_batch("PRAGMA synchronous=NORMAL").is_err() {
        let (batch, commit, _) = run_batch(conn, st, batch, stats, None);
        return finish_all(batch, commit);
    }
    let (batch, commit, _) = run_batch(conn, st, batch, stats, None);
    finish_all(batch, commit);
    // Outside any transaction this cannot fail; if it ever did, later request commits
    // would not be durable, so the writer stops (callers then get errors) instead.
    conn.execute_batch("PRAGMA synchronous=FULL").expect("could not restore synchronous=FULL on the writer");
}

/// The WAL file is cut back to this size when the log restarts.
const WAL_SIZE_LIMIT_BYTES: i64 = 64 * 1024 * 1024;
/// A log longer than this (frames of one page, 4 KiB: 16 MiB) is made to restart.
/// (12288 frames, with fewer restarts, gave no shorter purge stalls in one bench run.)
const WAL_RESTART_FRAMES: i64 = 4096;

/// Between two batches (no transaction open, nothing else writing), backfills the few
/// frames committed since the checkpointer's last pass, so that the next transaction
/// starts the log again from the beginning. Without this the log never restarts
/// under continuous writes: a passive checkpoint never catches up with a writer that
/// keeps appending, and the WAL grew by gigabytes during a purge (every commit then
/// extends the file, and readers search an ever longer log).
///
/// It usually costs a few milliseconds but tens when the disk is busy (its fsync of the
/// database file), and requests queued meanwhile wait: a source of the purge's worst
/// stalls (the bench prints how many and the slowest).
fn finish_checkpoint_if_asked(conn: &Connection, wal_restart: &std::sync::atomic::AtomicBool, stats: &StoreStats) {
    use std::sync::atomic::Ordering::Relaxed;
    if wal_restart.swap(false, Relaxed) {
        let t = std::time::Instant::now();
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        stats.wal_restart_checkpoints.fetch_add(1, Relaxed);
        stats.wal_restart_checkpoint_max_us.fetch_max(t.elapsed().as_micros() as u64, Relaxed);
    }
}

fn begin(conn: &Connection) -> bool {
    conn.prepare_cached("BEGIN IMMEDIATE").and_then(|mut s| s.execute([])).is_ok()
}

/// Runs `batch` in one transaction; returns the jobs with the commit's result (the
/// caller answers them) and, with `dur`, the commit's number (taken before COMMIT).
///
/// Jobs run without savepoints: a savepoint per job made SQLite copy every page a job
/// touched into its sub-journal first (about a fifth of the writer's time at 16
/// clients). Jobs almost never fail (only on an SQLite error), so a failure takes
/// the slow way instead: roll the whole transaction back, restore the writer state,
/// and run every job again, each in its own savepoint, so that only the failing
/// job's writes are undone.
type BatchResult = (Vec<Box<dyn Job>>, Result<(), StoreError>, Option<u64>);

fn run_batch(conn: &Connection, st: &mut WriterState, mut batch: Vec<Box<dyn Job>>, stats: &StoreStats, dur: Option<&Durability>) -> BatchResult {
    use std::sync::atomic::Ordering::Relaxed;
    let n = batch.len() as u64;
    let saved = st.clone();
    if !begin(conn) {
        return (batch, Err(StoreError("could not begin a transaction".into())), None);
    }
    // `all` stops at the first failing job; the jobs after it have not run.
    if !batch.iter_mut().all(|j| j.run(conn, st)) {
        let _ = conn.execute_batch("ROLLBACK");
        *st = saved.clone();
        if !begin(conn) {
            return (batch, Err(StoreError("could not begin a transaction".into())), None);
        }
        for j in batch.iter_mut() {
            if let Err(e) = conn.execute_batch("SAVEPOINT job") {
                // Its first run's writes were rolled back with the batch: whatever that
                // run returned (perhaps success) must not reach its caller.
                j.fail(StoreError(format!("could not re-run the write after a rollback: {e}")));
                continue;
            }
            if j.run(conn, st) {
                let _ = conn.execute_batch("RELEASE job");
            } else {
                let _ = conn.execute_batch("ROLLBACK TO job; RELEASE job");
            }
        }
    }
    if st.id_seq != saved.id_seq {
        let _ = conn.prepare_cached("UPDATE meta SET v=?1 WHERE k='id_seq'").and_then(|mut s| s.execute(params![st.id_seq]));
    }
    // Numbered before COMMIT: readers may see the batch as soon as COMMIT writes it.
    let seq = dur.map(|d| d.begin_commit());
    let commit = conn.prepare_cached("COMMIT").and_then(|mut s| s.execute([])).map(|_| ()).map_err(StoreError::from);
    if commit.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
        // Nothing of this batch is in the database, so its ids may be minted again.
        *st = saved;
    }
    stats.transactions.fetch_add(1, Relaxed);
    stats.jobs.fetch_add(n, Relaxed);
    stats.max_batch.fetch_max(n, Relaxed);
    // Answered after the commit: at once if it was durable (synchronous=FULL), else
    // after the log syncer's fsync.
    (batch, commit, seq)
}

fn finish_all(batch: Vec<Box<dyn Job>>, commit: Result<(), StoreError>) {
    for j in batch {
        j.finish(commit.clone());
    }
}

/// WAL checkpoints off the writer's path: the writer never runs an automatic
/// checkpoint inside a commit; this thread runs passive ones in the background.
///
/// A pass that found the log long and copied all of it back asks the writer (via
/// `wal_restart`) to copy the remainder written meanwhile, which lets the log restart.
/// While passes have work to do they follow each other closely, so that remainder
/// stays small (the writer's part is a few milliseconds at most).
fn checkpointer(loc: DbLocation, stop: Arc<std::sync::atomic::AtomicBool>, wal_restart: Arc<std::sync::atomic::AtomicBool>) {
    let Ok(conn) = open_conn(&loc) else { return };
    let mut busy = false;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(if busy { 10 } else { 200 }));
        // (busy, frames in the log, frames copied back)
        let r: Result<(i64, i64, i64), _> = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)));
        let Ok((_, log, copied)) = r else { continue };
        busy = log > copied || log > WAL_RESTART_FRAMES;
        if log > WAL_RESTART_FRAMES && copied == log {
            wal_restart.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// One stored idempotency row, as the request path needs it.
#[derive(Debug, Clone)]
pub struct IdemRow {
    pub id: i64,
    pub method: String,
    pub path: String,
    pub fingerprint: String,
    pub params: String,
    pub created_ms: i64,
    pub lock_until_ms: i64,
    pub status: Option<u16>,
    pub body: Option<Vec<u8>>,
}

pub fn get_idem(conn: &Connection, account: &str, key: &str) -> Result<Option<IdemRow>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT id, method, path, fingerprint, params, created_ms, lock_until_ms, status, body
             FROM idem WHERE account=?1 AND key=?2",
        )?
        .query_row(params![account, key], |r| {
            Ok(IdemRow {
                id: r.get(0)?,
                method: r.get(1)?,
                path: r.get(2)?,
                fingerprint: r.get(3)?,
                params: r.get(4)?,
                created_ms: r.get(5)?,
                lock_until_ms: r.get(6)?,
                status: r.get::<_, Option<i64>>(7)?.map(|s| s as u16),
                body: r.get(8)?,
            })
        })
        .optional()?)
}

/// Deletes up to `chunk` keys created at or before `cutoff_ms`; returns how many.
pub fn purge_chunk(conn: &Connection, cutoff_ms: i64, chunk: usize) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "DELETE FROM idem WHERE id IN (SELECT id FROM idem WHERE created_ms <= ?1 ORDER BY created_ms LIMIT ?2)",
        )?
        .execute(params![cutoff_ms, chunk as i64])?)
}

pub fn random_seed() -> u64 {
    rand::rng().random()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A job that fails after writing, batched with others: only its writes are undone,
    /// it and its batch are re-run (so it sees a clean state and its ids are minted
    /// again), and every caller is answered once with its own result.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failing_job_in_a_batch_undoes_only_its_own_writes() {
        let store = Store::open(DbLocation::Memory, 7, 256).unwrap();
        store.write(|c, _| Ok(c.execute_batch("CREATE TABLE t (k TEXT PRIMARY KEY, id TEXT)")?)).await.unwrap();
        // Hold the writer in a batch of its own until the three jobs below are queued,
        // so that they are committed together.
        let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let gate = {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .write(move |_, _| {
                        let _ = started_tx.send(());
                        let _ = release_rx.lock().recv();
                        Ok(())
                    })
                    .await
            })
        };
        tokio::task::spawn_blocking(move || started_rx.recv().unwrap()).await.unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        // Each write is polled once here, which queues its job before the next is
        // created: a, b, c are in the writer's channel, in this order, when the gate
        // opens. (Waiting on `queued()` from spawned tasks raced: the counter goes up
        // just before the channel send, so c could miss the batch.)
        let mut a = Box::pin(store.write(|c, st| {
            let id = st.mint("a");
            c.execute("INSERT INTO t VALUES ('a', ?1)", [&id])?;
            Ok(id)
        }));
        let runs2 = runs.clone();
        let mut b = Box::pin(store.write(move |c, st| {
            runs2.fetch_add(1, Ordering::SeqCst);
            let id = st.mint("b");
            c.execute("INSERT INTO t VALUES ('b', ?1)", [&id])?;
            Err::<(), _>(StoreError("b fails after writing".into()))
        }));
        let mut c = Box::pin(store.read(|c| Ok(c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))?)));
        std::future::poll_fn(|cx| {
            use std::future::Future;
            assert!(a.as_mut().poll(cx).is_pending() && b.as_mut().poll(cx).is_pending() && c.as_mut().poll(cx).is_pending());
            std::task::Poll::Ready(())
        })
        .await;
        assert_eq!(store.queued(), 3, "a, b and c are queued behind the gate");
        release_tx.send(()).unwrap();
        gate.await.unwrap().unwrap();
        let a_id = a.await.unwrap();
        let b_err = b.await.unwrap_err();
        let count_seen_by_c = c.await.unwrap();
        assert_eq!(b_err.0, "b fails after writing");
        assert_eq!(runs.load(Ordering::SeqCst), 2, "the failing job runs again in a savepoint");
        assert_eq!(count_seen_by_c, 1, "the read after the failure sees a's row only");
        let rows: Vec<(String, String)> = store
            .write(|c, _| {
                let mut s = c.prepare("SELECT k, id FROM t ORDER BY k")?;
                let rows = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .await
            .unwrap();
        assert_eq!(rows, vec![("a".to_string(), a_id.clone())]);
        let stats = &store.stats;
        assert!(stats.max_batch.load(Ordering::Relaxed) >= 3, "a, b and c were one batch");
        // The re-run started from the restored state: a minted sequence number 1 again,
        // b's second run took 2 (its writes are gone, its minted id is not reused), then 3.
        let next = store.write(|_, st| Ok(st.mint("n"))).await.unwrap();
        assert!(a_id.starts_with("a_1") && next.starts_with("n_3"), "{a_id} then b's id, then {next}");
        store.close();
    }

    /// The naive path (batches of one) commits with synchronous=FULL; a purge chunk
    /// there commits with NORMAL and every write after it is FULL again. With group
    /// commit the writer is at NORMAL throughout and the log syncer makes commits durable.
    #[tokio::test]
    async fn synchronous_per_path_and_an_unsynced_solo_write_restores_full() {
        let dir = tempfile::tempdir().unwrap();
        let sync = |c: &Connection| -> Result<i64, StoreError> { Ok(c.query_row("PRAGMA synchronous", [], |r| r.get::<_, i64>(0))?) };
        let naive = Store::open(DbLocation::File(dir.path().join("n.sqlite3")), 1, 1).unwrap();
        let during = naive.write_solo_unsynced(move |c, _| sync(c)).await.unwrap();
        let after = naive.write(move |c, _| sync(c)).await.unwrap();
        assert_eq!((during, after), (1, 2), "NORMAL (1) for the solo job, FULL (2) after it");
        assert!(naive.durability().is_none(), "the naive path fsyncs inside COMMIT");
        naive.close();
        let group = Store::open(DbLocation::File(dir.path().join("g.sqlite3")), 1, 256).unwrap();
        let (during, after) = (group.write_solo_unsynced(move |c, _| sync(c)).await.unwrap(), group.write(move |c, _| sync(c)).await.unwrap());
        assert_eq!((during, after), (1, 1), "group commit: NORMAL, the log syncer fsyncs");
        let d = group.durability().expect("group commit on a file uses the log syncer");
        assert!(d.durable() >= 2 && d.syncs.load(Ordering::SeqCst) >= 1, "both commits synced: durable {}", d.durable());
        group.close();
    }

    /// With group commit, neither the writer's caller nor a reader that sees the new
    /// row is answered before the log syncer's fsync: held here, nothing answers; let
    /// go, both answer.
    /// write_then: the second step runs only after the first committed (another
    /// connection sees the first's row from inside the second), a failing second step
    /// leaves the first committed, and `go_on` false skips the second step. On every
    /// write path: group commit, the naive path, and inline.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn write_then_runs_the_second_step_after_the_first_committed() {
        for (name, mode) in [("group", WriteMode::WriterThread { max_batch: 256 }), ("naive", WriteMode::WriterThread { max_batch: 1 }), ("inline", WriteMode::Inline)] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.sqlite3");
            let store = Store::open_with(DbLocation::File(path.clone()), 1, mode).unwrap();
            store.write(|c, _| Ok(c.execute_batch("CREATE TABLE t (k TEXT PRIMARY KEY)")?)).await.unwrap();
            let insert = |k: &'static str| move |c: &Connection, _: &mut WriterState| Ok(c.execute("INSERT INTO t VALUES (?1)", [k])? as i64);
            let seen_elsewhere = move |k: &'static str| {
                let p = path.clone();
                move |_: &i64, _: &Connection, _: &mut WriterState| -> Result<i64, StoreError> {
                    let other = Connection::open(&p)?;
                    Ok(other.query_row("SELECT count(*) FROM t WHERE k=?1", [k], |r| r.get(0))?)
                }
            };
            let (a, b) = store.write_then(insert("a"), |_| true, seen_elsewhere("a")).await.unwrap();
            assert_eq!((a, b.map(|r| r.unwrap())), (1, Some(1)), "{name}: the second step saw the first step's row committed");
            let (a, b) = store.write_then(insert("b"), |_| true, |_: &i64, _: &Connection, _: &mut WriterState| Err::<(), _>(StoreError("second fails".into()))).await.unwrap();
            assert_eq!((a, b.unwrap().unwrap_err().0), (1, "second fails".to_string()), "{name}");
            let (a, b) = store.write_then(insert("c"), |_| false, |_: &i64, _: &Connection, _: &mut WriterState| -> Result<(), StoreError> { panic!("go_on said no") }).await.unwrap();
            assert!(a == 1 && b.is_none(), "{name}");
            let rows = store.read(|c| Ok(c.query_row("SELECT group_concat(k, '') FROM (SELECT k FROM t ORDER BY k)", [], |r| r.get::<_, String>(0))?)).await.unwrap();
            assert_eq!(rows, "abc", "{name}: every first step stayed committed");
            store.close();
        }
    }

    // The syncer's lock is held across awaits on purpose: it is what keeps the fsync
    // from happening while the test checks that nobody is answered.
    #[allow(clippy::await_holding_lock)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_is_answered_and_seen_only_after_the_log_is_synced() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(DbLocation::File(dir.path().join("s.sqlite3")), 1, 256).unwrap();
        store.write(|c, _| Ok(c.execute_batch("CREATE TABLE t (k TEXT PRIMARY KEY)")?)).await.unwrap();
        let d_before = store.durability().unwrap().durable();
        let hold = store.durability().unwrap().hold.lock();
        let mut w = {
            let store = store.clone();
            tokio::spawn(async move { store.write(|c, _| Ok(c.execute("INSERT INTO t VALUES ('x')", [])?)).await })
        };
        // The commit is in the WAL (a reader that does not wait sees it) ...
        let visible = || store.read_blocking(|c| Ok(c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))?)).unwrap();
        let t0 = std::time::Instant::now();
        while visible() == 0 {
            assert!(t0.elapsed() < std::time::Duration::from_secs(30), "the insert never committed");
            tokio::task::yield_now().await;
        }
        // ... but neither its writer nor a reader of it is answered while no fsync ran.
        let mut r = {
            let store = store.clone();
            tokio::spawn(async move { store.read(|c| Ok(c.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))?)).await })
        };
        let quiet = std::time::Duration::from_millis(300);
        assert!(tokio::time::timeout(quiet, &mut w).await.is_err(), "the write was answered before its fsync");
        assert!(tokio::time::timeout(quiet, &mut r).await.is_err(), "a read of an unsynced commit was answered");
        assert_eq!(store.durability().unwrap().durable(), d_before, "nothing newer is reported durable");
        drop(hold);
        assert_eq!(w.await.unwrap().unwrap(), 1);
        assert_eq!(r.await.unwrap().unwrap(), 1, "the read answers what it saw, once it is on disk");
        assert!(store.durability().unwrap().durable() > d_before);
        store.close();
    }

    /// The log syncer fsyncs the write-ahead log SQLite writes, found from the path
    /// SQLite resolved, not the name it was given: a symlinked database file, or a
    /// `file:` URI (rusqlite opens with URIs on), once made it sync a stray empty file
    /// next to the link (or named `file:…-wal`) while the real log was never forced to
    /// disk. Checked through the process's open descriptors: every descriptor of a
    /// `-wal` file under the test's directories is the real log.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_log_syncer_syncs_the_log_sqlite_writes_behind_a_symlink_or_a_uri() {
        let (real, links) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let real_dir = real.path().canonicalize().unwrap();
        let links_dir = links.path().canonicalize().unwrap();
        let link = links_dir.join("psp.sqlite3");
        std::os::unix::fs::symlink(real_dir.join("psp.sqlite3"), &link).unwrap();
        let uri = std::path::PathBuf::from(format!("file:{}", real_dir.join("u.sqlite3").display()));
        let wal_descriptors = || -> Vec<std::path::PathBuf> {
            std::fs::read_dir("/proc/self/fd")
                .unwrap()
                .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                .filter(|t| t.to_string_lossy().ends_with("-wal") && (t.starts_with(&real_dir) || t.starts_with(&links_dir) || t.to_string_lossy().contains("file:")))
                .collect()
        };
        for (given, wal) in [(link.clone(), real_dir.join("psp.sqlite3-wal")), (uri, real_dir.join("u.sqlite3-wal"))] {
            let store = Store::open(DbLocation::File(given.clone()), 1, 256).unwrap();
            store.write(|c, _| Ok(c.execute_batch("CREATE TABLE t (k TEXT)")?)).await.unwrap();
            let d = store.durability().expect("group commit on a file uses the log syncer");
            assert!(d.durable() >= 1 && d.syncs.load(Ordering::SeqCst) >= 1);
            // (A store closed just before may still be letting go of its own log.)
            let seen: Vec<_> = wal_descriptors().into_iter().filter(|p| p.file_name() == wal.file_name()).collect();
            // The writer's connection's and the syncer's own (the checkpointer's
            // connection may not have opened the log yet).
            assert!(seen.len() >= 2, "{given:?}: expected at least 2 open descriptors of the log, saw {seen:?}");
            assert!(seen.iter().all(|p| p == &wal), "{given:?}: a descriptor of another file than the log {wal:?}: {seen:?}");
            store.close();
        }
        let stray: Vec<_> = std::fs::read_dir(&links_dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(stray, vec![std::ffi::OsString::from("psp.sqlite3")], "nothing but the link next to the link");
        assert!(!std::path::Path::new(&format!("file:{}-wal", real_dir.join("u.sqlite3").display())).exists());
    }
}
