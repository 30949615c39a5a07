//! # mock-psp
//!
//! A stateful, flaky, Stripe-compatible payment processor with a real idempotency layer
//! (record 0016). Embed it as a library ([`MockPsp::builder`] → [`MockPsp::serve`] on a
//! loopback port, or [`MockPsp::handle`] in-process without a socket), or run the
//! `mock-psp` binary.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use mock_psp::{MockPsp, FaultConfig};
//! let psp = MockPsp::builder()
//!     .memory()
//!     .secret_key("sk_test_a")
//!     .faults(FaultConfig::flaky())
//!     .seed(42)
//!     .build()?;
//! let server = psp.serve("127.0.0.1:0".parse().unwrap()).await?;
//! println!("listening on http://{}", server.local_addr());
//! server.shutdown().await;
//! # Ok(()) }
//! ```
pub mod api;
pub mod bench;
pub mod clock;
pub mod conns;
pub mod faults;
pub mod form;
mod http;
pub mod keys;
pub mod reader_faults;
pub mod store;

pub use api::{admin, search};
pub use store::{log_sync, schema};
pub use api::{Outcome, PspRequest, PspResponse, Stats};
pub use clock::{Clock, ManualClock, SystemClock};
pub use conns::HttpLimits;
pub use faults::{Fault, FaultConfig, ScriptEntry};
pub use reader_faults::{ReaderFault, ReaderFaultConfig};
pub use api::terminal::auto::AutoPresent;
pub use http::RunningServer;
pub use store::DbLocation;

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;

/// Largest accepted request body; larger bodies get a 413 and nothing is stored.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

pub struct MockPspBuilder {
    db: DbLocation,
    keys: Vec<String>,
    retention: Duration,
    lock_timeout: Duration,
    faults: FaultConfig,
    seed: Option<u64>,
    clock: Option<Arc<dyn Clock>>,
    admin: bool,
    group_commit: bool,
    idempotency_layer: bool,
    inline_writes: bool,
    purge_chunk: usize,
    purge_interval: Duration,
    crash_point: Option<String>,
    http: HttpLimits,
}

impl Default for MockPspBuilder {
    fn default() -> Self {
        MockPspBuilder {
            db: DbLocation::Memory,
            keys: vec![],
            retention: Duration::from_secs(24 * 3600),
            lock_timeout: Duration::from_secs(30),
            faults: FaultConfig::none(),
            seed: None,
            clock: None,
            admin: false,
            group_commit: true,
            idempotency_layer: true,
            inline_writes: false,
            purge_chunk: 200,
            purge_interval: Duration::from_secs(60),
            crash_point: std::env::var("MOCK_PSP_CRASH_POINT").ok().filter(|s| !s.is_empty()),
            http: HttpLimits::default(),
        }
    }
}

impl MockPspBuilder {
    /// SQLite file (created if missing); state survives restarts.
    pub fn db(mut self, path: impl Into<PathBuf>) -> Self {
        self.db = DbLocation::File(path.into());
        self
    }
    pub fn db_location(mut self, loc: DbLocation) -> Self {
        self.db = loc;
        self
    }
    /// In-memory database (lost on drop).
    pub fn memory(mut self) -> Self {
        self.db = DbLocation::Memory;
        self
    }
    /// Adds one merchant account, identified by its secret key.
    pub fn secret_key(mut self, key: impl Into<String>) -> Self {
        self.keys.push(key.into());
        self
    }
    pub fn secret_keys<I: IntoIterator<Item = S>, S: Into<String>>(mut self, keys: I) -> Self {
        self.keys.extend(keys.into_iter().map(Into::into));
        self
    }
    /// How long an idempotency key is remembered (default 24 h).
    pub fn retention(mut self, d: Duration) -> Self {
        self.retention = d;
        self
    }
    /// How long an executing claim holds its lock before a retry may re-drive it (30 s).
    pub fn lock_timeout(mut self, d: Duration) -> Self {
        self.lock_timeout = d;
        self
    }
    pub fn faults(mut self, f: FaultConfig) -> Self {
        self.faults = f;
        self
    }
    /// Seed for fault draws and generated ids (random if unset).
    pub fn seed(mut self, s: u64) -> Self {
        self.seed = Some(s);
        self
    }
    pub fn clock(mut self, c: Arc<dyn Clock>) -> Self {
        self.clock = Some(c);
        self
    }
    /// Enables the `/__admin` endpoints.
    pub fn admin(mut self, on: bool) -> Self {
        self.admin = on;
        self
    }
    /// Group commit on (default) or off (one transaction per claim and per
    /// completion: the naive path, for benchmarks).
    pub fn group_commit(mut self, on: bool) -> Self {
        self.group_commit = on;
        self
    }
    /// The idempotency layer on (default) or off. Off only to measure what the layer
    /// costs (`mock-psp bench`): a POST then executes in one transaction without
    /// claiming its key, storing its result or ever replaying it — every POST is a new
    /// request, as at Stripe without an `Idempotency-Key`. The `mock-psp` server has no
    /// flag for it: a PSP anyone talks to keeps its layer.
    pub fn idempotency_layer(mut self, on: bool) -> Self {
        self.idempotency_layer = on;
        self
    }
    /// Runs every write on the calling thread, one transaction per request step, with
    /// no writer thread and no group commit (default off). Only for a caller that
    /// drives one request at a time on one thread — the deterministic simulation,
    /// where it removes a thread hop per request. A server must keep the default.
    pub fn inline_writes_for_single_threaded_simulation(mut self, on: bool) -> Self {
        self.inline_writes = on;
        self
    }
    /// Most keys deleted per purge transaction (default 200); the purge shrinks its
    /// chunks below this when one takes longer than 3 ms (see `purge_expired`).
    pub fn purge_chunk(mut self, n: usize) -> Self {
        self.purge_chunk = n.max(1);
        self
    }
    /// How often the server's background purge runs (default 60 s of clock time).
    pub fn purge_interval(mut self, d: Duration) -> Self {
        self.purge_interval = d;
        self
    }
    /// Abort the process at a named point (`after_claim`, `after_execute`), for crash
    /// tests. Also read from `MOCK_PSP_CRASH_POINT`.
    pub fn crash_point(mut self, p: Option<String>) -> Self {
        self.crash_point = p;
        self
    }

    /// How long a client has, from connecting, to send its first request's headers,
    /// and, from its headers, to send its body (default 10 s). Past it the connection
    /// is closed (a late body gets a 408 first). At least 1 ms.
    pub fn header_timeout(mut self, d: Duration) -> Self {
        self.http.header_timeout = d.max(Duration::from_millis(1));
        self
    }
    /// How long a kept-alive connection may sit idle after an answer (default 75 s).
    pub fn idle_timeout(mut self, d: Duration) -> Self {
        self.http.idle_timeout = d.max(Duration::from_millis(1));
        self
    }
    /// Most connections open at once (default 512, at least 1): past it a new
    /// connection closes the idlest one that is not executing a request, or is refused
    /// with a 503 when all are (see [`conns`]).
    pub fn max_connections(mut self, n: usize) -> Self {
        self.http.max_connections = n.max(1);
        self
    }
    /// All three HTTP limits at once.
    pub fn http_limits(mut self, l: HttpLimits) -> Self {
        self = self.header_timeout(l.header_timeout).idle_timeout(l.idle_timeout).max_connections(l.max_connections);
        self
    }

    pub fn build(self) -> std::io::Result<MockPsp> {
        let seed = self.seed.unwrap_or_else(store::random_seed);
        let mode = if self.inline_writes {
            store::WriteMode::Inline
        } else {
            store::WriteMode::WriterThread { max_batch: if self.group_commit { 256 } else { 1 } }
        };
        let store = store::Store::open_with(self.db, seed, mode).map_err(|e| std::io::Error::other(e.0))?;
        let accounts = self.keys.iter().map(|k| (k.clone(), account_id(k))).collect();
        Ok(MockPsp {
            inner: Arc::new(Inner {
                store,
                accounts,
                retention_ms: clock::duration_ms(self.retention),
                lock_timeout_ms: clock::duration_ms(self.lock_timeout),
                faults: faults::FaultEngine::new(self.faults, seed),
                clock: self.clock.unwrap_or_else(|| Arc::new(SystemClock::new())),
                admin: self.admin,
                idempotency_layer: self.idempotency_layer,
                stats: Stats::default(),
                offline: Mutex::new(api::Offline::Online),
                crash_point: self.crash_point,
                req_seq: AtomicU64::new(0),
                purge_chunk: self.purge_chunk,
                purge_interval: self.purge_interval,
                seed,
                http: conns::Registry::new(self.http),
                auto_present: Mutex::new(None),
            }),
        })
    }
}

/// The stored account id for a secret key (the key itself is never stored).
pub fn account_id(secret_key: &str) -> String {
    let h = Sha256::digest(secret_key.as_bytes());
    format!("acct_{}", &hex::encode(h)[..16])
}

pub(crate) struct Inner {
    pub(crate) store: Arc<store::Store>,
    pub(crate) accounts: HashMap<String, String>,
    pub(crate) retention_ms: i64,
    pub(crate) lock_timeout_ms: i64,
    pub(crate) faults: faults::FaultEngine,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) admin: bool,
    /// Off only in the bench (see [`MockPspBuilder::idempotency_layer`]).
    pub(crate) idempotency_layer: bool,
    pub(crate) stats: Stats,
    pub(crate) offline: Mutex<api::Offline>,
    pub(crate) crash_point: Option<String>,
    pub(crate) req_seq: AtomicU64,
    pub(crate) purge_chunk: usize,
    pub(crate) purge_interval: Duration,
    pub(crate) seed: u64,
    pub(crate) http: Arc<conns::Registry>,
    /// The admin auto-present switch for readers (off: `None`).
    pub(crate) auto_present: Mutex<Option<api::terminal::auto::AutoPresent>>,
}

/// A mock PSP instance. Cheap to clone; all clones share state.
#[derive(Clone)]
pub struct MockPsp {
    pub(crate) inner: Arc<Inner>,
}

impl MockPsp {
    pub fn builder() -> MockPspBuilder {
        MockPspBuilder::default()
    }

    /// Handles one request in-process, without a socket. Faults come back as
    /// [`Outcome`]s for the caller to interpret (a simulation under virtual time).
    pub async fn handle(&self, req: PspRequest) -> Outcome {
        self.inner.handle(req, false).await
    }

    /// Like [`MockPsp::handle`], but a POST whose claim is committed executes on its
    /// own task: dropping this future (client gone) does not stop the execution, so
    /// the key is not left locked until the lock timeout. Used by the HTTP server.
    pub(crate) async fn handle_detached(&self, req: PspRequest) -> Outcome {
        self.inner.handle(req, true).await
    }

    /// Serves HTTP/1.1 on `addr` (use port 0 for an ephemeral port) until
    /// [`RunningServer::shutdown`]. Also runs the periodic purge.
    pub async fn serve(&self, addr: SocketAddr) -> std::io::Result<RunningServer> {
        http::serve(self.clone(), addr).await
    }

    /// Replaces the fault rates (e.g. `FaultConfig::chaos()`).
    pub fn set_faults(&self, f: FaultConfig) {
        self.inner.faults.set_config(f);
    }
    pub fn faults(&self) -> FaultConfig {
        self.inner.faults.config()
    }
    /// Script mode: the next `count` requests whose path is `path` (or starts with it
    /// when it ends in `*`) get `fault`.
    pub fn script_fault(&self, path: &str, fault: Fault, count: u32, slow_ms: Option<u64>) {
        self.inner.faults.script(ScriptEntry { path: path.into(), fault, remaining: count, slow_ms });
    }
    pub fn clear_script(&self) {
        self.inner.faults.clear_script();
    }
    /// Script mode for readers: the next `count` `process_payment_intent` calls get `fault`.
    pub fn script_reader_fault(&self, fault: ReaderFault, count: u32) {
        self.inner.faults.script_reader(fault, count);
    }
    /// The auto-present switch: readers present a card by themselves after a process
    /// action starts (`None`: off, the default).
    pub fn set_auto_present(&self, auto: Option<AutoPresent>) {
        *self.inner.auto_present.lock() = auto;
    }
    /// Offline on/off; `Some(d)` ends it automatically after `d` of clock time.
    pub fn set_offline(&self, on: bool, duration: Option<Duration>) {
        self.inner.set_offline(on, duration);
    }
    pub fn is_offline(&self) -> bool {
        self.inner.is_offline()
    }
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.inner.clock.clone()
    }
    /// Moves the test clock forward (false if the clock cannot move).
    pub fn advance_clock(&self, d: Duration) -> bool {
        self.inner.clock.advance(d)
    }
    /// The `/__admin/stats` document.
    pub fn stats(&self) -> serde_json::Value {
        self.inner.stats_json()
    }
    pub fn seed(&self) -> u64 {
        self.inner.seed
    }
    /// Purges keys past retention in small chunks; returns (keys deleted, slowest chunk).
    pub async fn purge_expired(&self) -> std::io::Result<(usize, Duration)> {
        self.inner.purge_expired().await.map_err(|e| std::io::Error::other(e.0))
    }
    /// Stops the writer thread after queued work (called by `RunningServer::shutdown`).
    pub fn close(&self) {
        self.inner.store.close();
    }
    /// Direct store access for benchmarks and tests.
    pub fn store(&self) -> Arc<store::Store> {
        self.inner.store.clone()
    }
    pub fn retention(&self) -> Duration {
        Duration::from_millis(self.inner.retention_ms as u64)
    }
}
