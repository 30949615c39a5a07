//! Purging idempotency keys past retention: small chunks, each its own transaction,
//! sized by time, yielding to queued requests between chunks, so that a request
//! queued behind a purge waits for at most one chunk.
use super::{Store, StoreError};
use rusqlite::{params, Connection};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Deletes up to `chunk` keys created at or before `cutoff_ms`; returns how many.
pub fn purge_chunk(conn: &Connection, cutoff_ms: i64, chunk: usize) -> Result<usize, StoreError> {
    Ok(conn
        .prepare_cached(
            "DELETE FROM idem WHERE id IN (SELECT id FROM idem WHERE created_ms <= ?1 ORDER BY created_ms LIMIT ?2)",
        )?
        .execute(params![cutoff_ms, chunk as i64])?)
}

/// Longest a purge chunk should hold the writer (delete + commit): well under the
/// 50 ms a request may stall behind a purge, leaving room for the request's own commit
/// and for the occasional slow fsync when the disk is busy (chunks measured 10x their
/// usual time then, so the usual time is kept small).
const PURGE_CHUNK_BUDGET: Duration = Duration::from_millis(3);
/// Size of the first purge chunk; later ones grow while they stay under a quarter of
/// the budget. Starting at the largest size made the first chunk the slowest.
const PURGE_FIRST_CHUNK: usize = 16;
/// Smallest chunk the time bound shrinks to (a purge must still make progress).
const PURGE_MIN_CHUNK: usize = 8;
/// How long a purge chunk waits for queued requests to be served first.
const PURGE_IDLE_WAIT: Duration = Duration::from_millis(50);
/// Most chunks one purge runs (at the smallest chunk, 8,000,000 keys): every loop has
/// a bound; a purge that reaches it leaves the rest to the next one.
const MAX_PURGE_CHUNKS: usize = 1_000_000;

impl Store {
    /// Deletes keys past retention in small chunks, each its own writer transaction,
    /// so a request queued behind the purge waits for at most one chunk.
    ///
    /// The chunk size is bounded by time, not only by count: it starts small
    /// ([`PURGE_FIRST_CHUNK`]; the first chunks measure what a chunk costs on this disk
    /// under this load), never exceeds `max_chunk` keys, is halved whenever a chunk
    /// (delete + commit) took longer than [`PURGE_CHUNK_BUDGET`], and grows back by
    /// half while chunks stay well under it — a slow disk or a busy machine gets
    /// smaller chunks, never longer stalls. Between chunks the purge yields: it waits
    /// (up to [`PURGE_IDLE_WAIT`]) for the writer queue to empty and then leaves the
    /// writer idle for three times as long as the last chunk took (duty cycle at most
    /// 25%: a purge is housekeeping; at 50% its writes kept the disk busy enough that
    /// the writer's WAL-restart checkpoints took up to 72 ms, at 25% 26 ms).
    /// Deletes keys created at or before `cutoff_ms`; `purged` counts them as they go.
    /// At most [`MAX_PURGE_CHUNKS`] chunks per call: what is left waits for the next.
    pub(crate) async fn purge_expired(&self, cutoff_ms: i64, max_chunk: usize, purged: &AtomicU64) -> Result<(usize, Duration), StoreError> {
        let cutoff = cutoff_ms;
        let max_chunk = max_chunk.max(1);
        let mut chunk = PURGE_FIRST_CHUNK.min(max_chunk);
        let mut total = 0;
        let mut worst = Duration::ZERO;
        for _ in 0..MAX_PURGE_CHUNKS {
            let idle_wait = std::time::Instant::now();
            while self.queued() > 0 && idle_wait.elapsed() < PURGE_IDLE_WAIT {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let t = std::time::Instant::now();
            let this = chunk;
            let n = self.write_solo_unsynced(move |c, _| purge_chunk(c, cutoff, this)).await?;
            let took = t.elapsed();
            worst = worst.max(took);
            total += n;
            purged.fetch_add(n as u64, Relaxed);
            if n < this {
                break;
            }
            if took > PURGE_CHUNK_BUDGET {
                chunk = (chunk / 2).max(PURGE_MIN_CHUNK.min(max_chunk));
            } else if took < PURGE_CHUNK_BUDGET / 4 {
                chunk = (chunk + chunk / 2 + 1).min(max_chunk);
            }
            tokio::time::sleep((took * 3).min(Duration::from_millis(60))).await;
        }
        // The chunks were answered at their commit, before any fsync: a purge's result
        // (the admin endpoint's count) is reported only once it is on disk, as every
        // other write's is.
        if let Some(d) = self.durability() {
            d.settled().await?;
        }
        Ok((total, worst))
    }
}
