//! SQLite storage (SPEC §7): WAL, `synchronous=FULL`, one writer thread fed by a FIFO
//! queue that commits many requests' claims and completions in one transaction
//! (group commit; each caller is answered only after its transaction committed), and
//! separate read connections. An in-memory database routes reads through the writer.
//!
//! [`WriteMode::Inline`] (opt-in, for a single-threaded deterministic simulation)
//! runs each write job on the caller's thread instead, in a transaction of its own:
//! no thread hop, no batching. The default everywhere else is the writer thread.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

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

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS idem (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account TEXT NOT NULL,
    key TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    params TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    lock_until_ms INTEGER NOT NULL,
    status INTEGER,
    body BLOB,
    finished_ms INTEGER,
    UNIQUE(account, key)
);
CREATE INDEX IF NOT EXISTS idem_created ON idem(created_ms);
CREATE TABLE IF NOT EXISTS payment_intents (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    claim_id INTEGER UNIQUE,
    created INTEGER NOT NULL,
    obj TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS pi_account ON payment_intents(account, seq);
CREATE TABLE IF NOT EXISTS pi_metadata (
    account TEXT NOT NULL,
    k TEXT NOT NULL,
    v TEXT NOT NULL,
    pi_seq INTEGER NOT NULL,
    PRIMARY KEY (account, k, v, pi_seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS charges (
    id TEXT PRIMARY KEY,
    account TEXT NOT NULL,
    obj TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refunds (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    claim_id INTEGER UNIQUE,
    obj TEXT NOT NULL
);
-- GET /v1/refunds?payment_intent=…: an expression index, so files written before the
-- list endpoint existed need no new column.
CREATE INDEX IF NOT EXISTS refunds_pi ON refunds(account, json_extract(obj, '$.payment_intent'), seq);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    created INTEGER NOT NULL,
    type TEXT NOT NULL,
    obj TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_account ON events(account, seq);
-- Lower bound of a `created[gte]` events page (see api::list): the rowid (seq) rides along.
CREATE INDEX IF NOT EXISTS events_created ON events(account, created);
INSERT OR IGNORE INTO meta (k, v) VALUES ('id_seq', 0);
"#;

/// State owned by the writer thread and lent to each job.
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

type Finisher = Box<dyn FnOnce(Result<(), StoreError>) + Send>;
type Job = Box<dyn FnOnce(&Connection, &mut WriterState) -> Finisher + Send>;

enum Msg {
    /// Batched with other jobs in one transaction (group commit).
    Job(Job),
    /// Runs in a transaction of its own (purge chunks), so requests batched around it
    /// never pay for its writes.
    Solo(Job),
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
    inline: Option<Mutex<Option<InlineWriter>>>,
    readers: Mutex<Vec<Connection>>,
    location: DbLocation,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    pub stats: Arc<StoreStats>,
    ckpt_stop: Arc<std::sync::atomic::AtomicBool>,
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
        let conn = open_conn(&location)?;
        conn.execute_batch(SCHEMA)?;
        let ckpt_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        if let DbLocation::File(_) = location {
            conn.pragma_update(None, "wal_autocheckpoint", 0)?;
            let (loc, stop) = (location.clone(), ckpt_stop.clone());
            std::thread::Builder::new().name("mock-psp-checkpoint".into()).spawn(move || checkpointer(loc, stop)).map_err(|e| StoreError(e.to_string()))?;
        }
        let id_seq: i64 = conn.query_row("SELECT v FROM meta WHERE k='id_seq'", [], |r| r.get(0))?;
        let mut state = WriterState { rng: ChaCha8Rng::seed_from_u64(seed), id_seq };
        let stats = Arc::new(StoreStats::default());
        let max_batch = match mode {
            WriteMode::Inline => {
                return Ok(Arc::new(Store {
                    tx: Mutex::new(None),
                    inline: Some(Mutex::new(Some(InlineWriter { conn, state }))),
                    readers: Mutex::new(Vec::new()),
                    location,
                    writer: Mutex::new(None),
                    stats,
                    ckpt_stop,
                }))
            }
            WriteMode::WriterThread { max_batch } => max_batch,
        };
        let (tx, rx) = mpsc::channel::<Msg>();
        let st2 = stats.clone();
        let max_batch = max_batch.max(1);
        let writer = std::thread::Builder::new()
            .name("mock-psp-writer".into())
            .spawn(move || writer_loop(conn, rx, &mut state, max_batch, st2))
            .map_err(|e| StoreError(e.to_string()))?;
        Ok(Arc::new(Store {
            tx: Mutex::new(Some(tx)),
            inline: None,
            readers: Mutex::new(Vec::new()),
            location,
            writer: Mutex::new(Some(writer)),
            stats,
            ckpt_stop,
        }))
    }

    /// Runs `f` on the writer thread inside the current batch's transaction (in its own
    /// savepoint: an error rolls back only this job). Resolves after the commit.
    pub async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, false).await
    }

    /// Like [`Store::write`], but in a transaction of its own (not group-committed).
    pub async fn write_solo<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        self.write_inner(f, true).await
    }

    async fn write_inner<T, F>(&self, f: F, solo: bool) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection, &mut WriterState) -> Result<T, StoreError> + Send + 'static,
    {
        let (otx, orx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |conn, st| {
            let r = (|| {
                conn.prepare_cached("SAVEPOINT job")?.execute([])?;
                match f(conn, st) {
                    Ok(v) => {
                        conn.prepare_cached("RELEASE job")?.execute([])?;
                        Ok(v)
                    }
                    Err(e) => {
                        let _ = conn.execute_batch("ROLLBACK TO job; RELEASE job");
                        Err(e)
                    }
                }
            })();
            Box::new(move |commit: Result<(), StoreError>| {
                let _ = otx.send(commit.and(r));
            })
        });
        if let Some(inline) = &self.inline {
            // Runs to its commit right here; the reply is already in the channel.
            let mut g = inline.lock().unwrap();
            let w = g.as_mut().ok_or_else(|| StoreError("store is closed".into()))?;
            run_batch(&w.conn, &mut w.state, vec![job], &self.stats);
        } else {
            self.send(if solo { Msg::Solo(job) } else { Msg::Job(job) })?;
        }
        orx.await.map_err(|_| StoreError("writer stopped".into()))?
    }

    fn send(&self, msg: Msg) -> Result<(), StoreError> {
        let g = self.tx.lock().unwrap();
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
    /// writer queue (in-memory database). Never waits for an fsync on a file database.
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        match &self.location {
            DbLocation::Memory => self.write(move |c, _| f(c)).await,
            DbLocation::File(_) => {
                let conn = {
                    let mut pool = self.readers.lock().unwrap();
                    pool.pop()
                };
                let conn = match conn {
                    Some(c) => c,
                    None => open_conn(&self.location)?,
                };
                let (r, conn) = tokio::task::spawn_blocking(move || {
                    let r = f(&conn);
                    (r, conn)
                })
                .await
                .map_err(|e| StoreError(e.to_string()))?;
                let mut pool = self.readers.lock().unwrap();
                if pool.len() < 16 {
                    pool.push(conn);
                }
                r
            }
        }
    }

    /// Synchronous read for non-async callers (tests, bench setup).
    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        match &self.location {
            DbLocation::Memory => Err(StoreError("read_blocking needs a file database".into())),
            DbLocation::File(_) => f(&open_conn(&self.location)?),
        }
    }

    /// Stops the writer after the jobs already queued; waits for it.
    pub fn close(&self) {
        self.ckpt_stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.tx.lock().unwrap().take();
        if let Some(inline) = &self.inline {
            inline.lock().unwrap().take();
        }
        self.readers.lock().unwrap().clear();
        if let Some(h) = self.writer.lock().unwrap().take() {
            let _ = h.join();
        }
    }
}

fn writer_loop(conn: Connection, rx: mpsc::Receiver<Msg>, st: &mut WriterState, max_batch: usize, stats: Arc<StoreStats>) {
    use std::sync::atomic::Ordering::Relaxed;
    let mut pending: Option<Msg> = None;
    loop {
        let first = match pending.take() {
            Some(m) => m,
            None => match rx.recv() {
                Ok(m) => m,
                Err(_) => break,
            },
        };
        let mut batch: Vec<Job> = Vec::new();
        match first {
            Msg::Solo(j) => batch.push(j),
            Msg::Job(j) => {
                batch.push(j);
                // Group commit: take what queued up meanwhile (FIFO), up to a solo job.
                while batch.len() < max_batch {
                    match rx.try_recv() {
                        Ok(Msg::Job(j)) => batch.push(j),
                        Ok(solo) => {
                            pending = Some(solo);
                            break;
                        }
                        Err(_) => break,
                    }
                }
            }
        }
        stats.queued.fetch_sub(batch.len() as u64, Relaxed);
        run_batch(&conn, st, batch, &stats);
    }
}

/// Runs `batch` in one transaction, then answers each job with the commit's result.
fn run_batch(conn: &Connection, st: &mut WriterState, batch: Vec<Job>, stats: &StoreStats) {
    use std::sync::atomic::Ordering::Relaxed;
    let n = batch.len() as u64;
    let seq_before = st.id_seq;
    if conn.prepare_cached("BEGIN IMMEDIATE").and_then(|mut s| s.execute([])).is_err() {
        // Dropping the jobs drops their reply channels: callers see an error.
        return;
    }
    let mut finishers = Vec::with_capacity(batch.len());
    for job in batch {
        finishers.push(job(conn, st));
    }
    if st.id_seq != seq_before {
        let _ = conn.prepare_cached("UPDATE meta SET v=?1 WHERE k='id_seq'").and_then(|mut s| s.execute(params![st.id_seq]));
    }
    let commit = conn.prepare_cached("COMMIT").and_then(|mut s| s.execute([])).map(|_| ()).map_err(StoreError::from);
    if commit.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    stats.transactions.fetch_add(1, Relaxed);
    stats.jobs.fetch_add(n, Relaxed);
    stats.max_batch.fetch_max(n, Relaxed);
    // Answer only after the commit (durable: synchronous=FULL).
    for f in finishers {
        f(commit.clone());
    }
}

/// WAL checkpoints off the writer's path: the writer never runs an automatic
/// checkpoint inside a commit; this thread runs passive ones in the background.
fn checkpointer(loc: DbLocation, stop: Arc<std::sync::atomic::AtomicBool>) {
    let Ok(conn) = open_conn(&loc) else { return };
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
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
