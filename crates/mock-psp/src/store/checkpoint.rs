//! WAL checkpoints off the writer's path: a background thread runs passive
//! checkpoints, and asks the writer to finish one between two batches when the log is
//! long and fully copied back, so that the log restarts instead of growing.
use super::{open_conn, DbLocation, StoreStats};
use rusqlite::Connection;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The WAL file is cut back to this size when the log restarts.
pub(super) const WAL_SIZE_LIMIT_BYTES: i64 = 64 * 1024 * 1024;
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
pub(super) fn finish_checkpoint_if_asked(conn: &Connection, wal_restart: &AtomicBool, stats: &StoreStats) {
    use std::sync::atomic::Ordering::Relaxed;
    if wal_restart.swap(false, Relaxed) {
        let t = std::time::Instant::now();
        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        stats.wal_restart_checkpoints.fetch_add(1, Relaxed);
        stats.wal_restart_checkpoint_max_us.fetch_max(t.elapsed().as_micros() as u64, Relaxed);
    }
}


/// WAL checkpoints off the writer's path: the writer never runs an automatic
/// checkpoint inside a commit; this thread runs passive ones in the background.
///
/// A pass that found the log long and copied all of it back asks the writer (via
/// `wal_restart`) to copy the remainder written meanwhile, which lets the log restart.
/// While passes have work to do they follow each other closely, so that remainder
/// stays small (the writer's part is a few milliseconds at most). It runs for the
/// store's life, until `stop` (set by [`super::Store::close`]).
pub(super) fn checkpointer(loc: DbLocation, stop: Arc<AtomicBool>, wal_restart: Arc<AtomicBool>) {
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
