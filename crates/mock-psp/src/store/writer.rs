//! The writer thread: takes every job queued (up to `max_batch`) and runs them in one
//! transaction (group commit), then answers them — at once when the commit was durable
//! (`synchronous=FULL`), or through the log syncer after its fsync. A failing job
//! rolls back only its own writes (the batch is re-run with a savepoint per job).
use super::checkpoint::finish_checkpoint_if_asked;
use super::jobs::{Job, Msg};
use super::log_sync::{Committed, Durability};
use super::{StoreError, StoreStats, WriterState};
use rusqlite::{params, Connection};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::sync::Arc;

/// Where a committed batch's callers go: answered at once (the commit itself was
/// durable, or the database is in memory), or handed to the log syncer.
type Flush = Option<(mpsc::Sender<Committed>, Arc<Durability>)>;

/// The writer thread's body. It runs for the store's life, until [`super::Store::close`]
/// drops the queue's sender; each turn takes at most `max_batch` jobs.
pub(super) fn writer_loop(
    conn: Connection,
    rx: mpsc::Receiver<Msg>,
    st: &mut WriterState,
    max_batch: usize,
    stats: Arc<StoreStats>,
    wal_restart: &AtomicBool,
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
pub(super) fn run_then_checkpoint(
    conn: &Connection,
    st: &mut WriterState,
    batch: Vec<Box<dyn Job>>,
    solo: bool,
    stats: &StoreStats,
    wal_restart: &AtomicBool,
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
