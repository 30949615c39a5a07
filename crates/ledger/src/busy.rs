//! How a connection waits for SQLite's write lock (record 0023, 0045).
//!
//! SQLite's own busy handler (`busy_timeout`) sleeps 1, 2, 5, 10, 15, 20, 25 ms … between
//! tries. The register's writers hold the lock for about a millisecond (one commit and
//! its fsync: a checkout's step, the sync loop's ack), so a checkout that meets the
//! sync loop's ack could sleep a whole millisecond or three after the lock was already
//! free (how much of the loop's measured cost this was is not separated: docs/scaling.md).
//! Here a waiter tries
//! again every [`FINE_STEP`] for the first [`FINE_SPAN`], then every [`COARSE_STEP`],
//! and gives up after [`BUSY_TIMEOUT`] in all, as before.
use std::time::Duration;

use rusqlite::Connection;

/// How long a writer waits for the lock before `SQLITE_BUSY`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
const FINE_STEP: Duration = Duration::from_micros(100);
const FINE_SPAN: Duration = Duration::from_millis(20);
const COARSE_STEP: Duration = Duration::from_millis(2);
const FINE_TRIES: u32 = (FINE_SPAN.as_micros() / FINE_STEP.as_micros()) as u32;

/// The sleep before try `tries + 1` (SQLite counts the tries already made), or `None`
/// once [`BUSY_TIMEOUT`] is spent (by the schedule; each real sleep is at least as long,
/// so the real wait is never shorter).
pub(crate) fn busy_delay(tries: u32) -> Option<Duration> {
    let (waited, step) = if tries < FINE_TRIES {
        (FINE_STEP * tries, FINE_STEP)
    } else {
        (FINE_SPAN + COARSE_STEP * (tries - FINE_TRIES), COARSE_STEP)
    };
    (waited < BUSY_TIMEOUT).then_some(step)
}

/// Tries that found the lock taken (tests wait on it instead of sleeping).
#[cfg(test)]
static BUSY_SEEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn busy_wait(tries: i32) -> bool {
    #[cfg(test)]
    BUSY_SEEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    match busy_delay(tries.max(0) as u32) {
        Some(d) => {
            std::thread::sleep(d);
            true
        }
        None => false,
    }
}

/// Installs the handler on `conn` (it replaces any `busy_timeout`).
pub(crate) fn wait_for_locks(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_handler(Some(busy_wait))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tries_are_a_tenth_of_a_millisecond_apart_and_the_total_is_the_timeout() {
        assert_eq!(busy_delay(0), Some(FINE_STEP));
        assert_eq!(busy_delay(FINE_TRIES - 1), Some(FINE_STEP));
        assert_eq!(busy_delay(FINE_TRIES), Some(COARSE_STEP));
        let mut total = Duration::ZERO;
        let mut tries = 0u32;
        while let Some(d) = busy_delay(tries) {
            total += d;
            tries += 1;
            assert!(tries < 1_000_000, "the schedule never ends");
        }
        assert!(total >= BUSY_TIMEOUT && total < BUSY_TIMEOUT + COARSE_STEP, "waits {total:?} in all");
        // No overflow or wrap far past the end.
        assert_eq!(busy_delay(u32::MAX), None);
    }

    #[test]
    fn a_writer_waits_for_the_lock_and_then_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("busy.db");
        let a = Connection::open(&path).unwrap();
        a.execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t (x INTEGER)").unwrap();
        let b = Connection::open(&path).unwrap();
        wait_for_locks(&b).unwrap();
        a.execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (1)").unwrap();
        let seen = BUSY_SEEN.load(std::sync::atomic::Ordering::SeqCst);
        let writer = std::thread::spawn(move || b.execute("INSERT INTO t VALUES (2)", []).map(|_| ()));
        // Wait until the writer has found the lock taken at least twice (it is in the
        // handler, retrying), then release it: it must write, not fail with SQLITE_BUSY.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while BUSY_SEEN.load(std::sync::atomic::Ordering::SeqCst) < seen + 2 {
            assert!(std::time::Instant::now() < deadline, "the writer never waited for the lock");
            std::thread::yield_now();
        }
        a.execute_batch("COMMIT").unwrap();
        writer.join().unwrap().expect("the waiting writer wrote");
        let n: i64 = a.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 2);
    }
}
