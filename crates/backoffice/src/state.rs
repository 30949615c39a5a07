//! What every handler shares: the pool, the owner's credential, the limits, a clock.
use crate::auth::AdminToken;
use crate::db::DbLimits;
use crate::prune::PrunePolicy;
use crate::server::conns::HttpLimits;
use crate::session::SessionPolicy;
use crate::throttle::{Throttle, ThrottleLimits};
use deadpool_postgres::Pool;
use std::sync::Arc;
use std::time::Duration;

/// Limits of the HTTP side (record 0039).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Requests handled at once; past it the answer is 503 with Retry-After.
    pub max_in_flight: usize,
    /// Batches one register may have held (waiting behind a gap) at once.
    pub max_held_batches: i64,
    /// How far past the acknowledged seq a batch may start (a "seq from the future"
    /// beyond this is refused: no honest outbox runs that far ahead).
    pub max_seq_ahead: u64,
    /// How long a pairing code stays valid.
    pub pairing_ttl: Duration,
    /// PSP objects one reconciliation run reads at most (per kind).
    pub max_psp_objects: usize,
    pub db: DbLimits,
    /// Connection deadlines and cap (`server/conns.rs`).
    pub http: HttpLimits,
    /// Owner sign-in attempts (`throttle.rs`).
    pub sign_in: ThrottleLimits,
    /// Pairing attempts.
    pub pairing: ThrottleLimits,
    /// How long an owner's dashboard session lasts (`session.rs`).
    pub session_ttl: Duration,
    /// Idempotency keys kept (`prune.rs`).
    pub prune: PrunePolicy,
    /// Refunds owed back left executing, asked again (`owed/retry.rs`).
    pub owed_retry: OwedRetryPolicy,
    /// Registers' encrypted copies (record 0150, `sync/backups.rs`).
    pub backups: BackupLimits,
}

/// How the back office asks the PSP again about refunds owed back left executing
/// (`owed/retry.rs`, record 0142 addendum).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwedRetryPolicy {
    /// How often the server looks for executing refunds, and the first wait after an
    /// unsure answer.
    pub interval: Duration,
    /// Rows asked at most per round.
    pub max_per_round: i64,
    /// The longest wait between two asks of one row.
    pub max_backoff: Duration,
}

impl Default for OwedRetryPolicy {
    fn default() -> Self {
        OwedRetryPolicy { interval: Duration::from_secs(60), max_per_round: 100, max_backoff: Duration::from_secs(3600) }
    }
}

/// How much of the registers' encrypted copies the back office keeps (record 0150).
#[derive(Debug, Clone, Copy)]
pub struct BackupLimits {
    /// Largest copy accepted, in bytes (at most the protocol's ceiling).
    pub max_bytes: u64,
    /// Whole copies kept per register, newest first; an older one goes when a newer
    /// one completes.
    pub keep: i64,
}

impl Default for BackupLimits {
    fn default() -> Self {
        // 4 GiB: a register's ledger is far below (a 1 GB ledger holds millions of sales)
        BackupLimits { max_bytes: 4 * 1024 * 1024 * 1024, keep: 3 }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_in_flight: 256,
            max_held_batches: 64,
            max_seq_ahead: 1_000_000,
            pairing_ttl: Duration::from_secs(24 * 3600),
            max_psp_objects: 1_000_000,
            db: DbLimits::default(),
            http: HttpLimits::default(),
            sign_in: ThrottleLimits::SIGN_IN,
            pairing: ThrottleLimits::PAIRING,
            session_ttl: SessionPolicy::default().ttl,
            prune: PrunePolicy::default(),
            owed_retry: OwedRetryPolicy::default(),
            backups: BackupLimits::default(),
        }
    }
}

pub struct Inner {
    pub pool: Pool,
    pub admin: AdminToken,
    pub limits: Limits,
    pub http: reqwest::Client,
    pub in_flight: Arc<tokio::sync::Semaphore>,
    pub sign_in: Throttle,
    pub pairing: Throttle,
    pub session: SessionPolicy,
}

pub type AppState = Arc<Inner>;

// The clock lives in `clock` so `session` (whose policy the state holds) can read it
// without importing `state`; kept reachable as `state::now_ms`, where handlers find it.
pub use crate::clock::now_ms;

/// The TCP peer of a request (the server puts it in the request's extensions), or the
/// unspecified address when there is none (a router driven without the server).
pub fn source(ext: &axum::http::Extensions) -> std::net::IpAddr {
    ext.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}
