//! Paced copies (record 0154): a running copy written with SQLite's online backup API in
//! steps, its written pages pushed to the disk and waited for every few MiB, at a rate
//! that leaves the disk to the checkouts' fsyncs; and the copy's check read at the same
//! pace, from the page cache, the copy's pages dropped from it when the check ends. Both bounded in time: a copy that cannot finish within its limit is abandoned
//! with [`crate::Error::CopyTooSlow`], never left running for ever.
//!
//! Why (docs/scaling.md, "Measured checkout latency while a copy is taken"): `VACUUM INTO`
//! wrote the whole copy into the page cache (1 GB is far below the kernel's dirty limits)
//! and its final fsync then sent it to the disk as one burst; every checkout commit's fsync
//! that came during that burst queued behind it. Pushing the copy out a few MiB at a time,
//! waiting for each to reach the disk before writing more, keeps the disk's queue short.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::Connection;

const MIB: u64 = 1024 * 1024;

/// How a running copy is paced. [`Pace::DEFAULT`] is what the app and the CLI use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// Bytes one step of the backup copies (whole pages; at least one page). The source is
    /// read inside one read transaction held for the whole copy, so a step's size only
    /// sets how often the pace is kept.
    pub step_bytes: u64,
    /// The rate aimed at, in bytes a second, while the limit allows it: slower means a
    /// lighter load on the disk and a longer copy. The pace quickens by itself when
    /// keeping it would not end the copy in time (see [`Pace::limit`]).
    pub bytes_per_second: u64,
    /// Every this many bytes written, the copy's dirty pages are sent to the disk and
    /// waited for. (They stay in the page cache, clean, for the check to read, and are
    /// dropped from it when the check ends.)
    pub sync_every_bytes: u64,
    /// The most the copy and its check may take together. The copy is paced to end within
    /// half of it and the check within the rest; past it the copy is abandoned.
    pub limit: Duration,
}

impl Pace {
    /// 32 MiB/s, synced every 2 MiB: a copy of a 1 GB ledger written in about half a minute
    /// and checked in about as long (a few MiB at a time reach the disk, each waited for, so
    /// a checkout's fsync queues behind at most one of them), within 30 minutes at most.
    pub const DEFAULT: Pace = Pace { step_bytes: MIB, bytes_per_second: 32 * MIB, sync_every_bytes: 2 * MIB, limit: Duration::from_secs(30 * 60) };

    /// Every field within its bounds: a step of 4 KiB to 64 MiB, a rate of 1 MiB/s to
    /// 4 GiB/s, a sync every step to every 1 GiB, a limit of 1 s to a day.
    pub fn check(&self) -> Result<(), String> {
        if !(4096..=64 * MIB).contains(&self.step_bytes) {
            return Err(format!("a step of {} bytes: between 4 KiB and 64 MiB", self.step_bytes));
        }
        if !(MIB..=4096 * MIB).contains(&self.bytes_per_second) {
            return Err(format!("a pace of {} bytes a second: between 1 MiB and 4 GiB", self.bytes_per_second));
        }
        if !(self.step_bytes..=1024 * MIB).contains(&self.sync_every_bytes) {
            return Err(format!("a sync every {} bytes: between one step and 1 GiB", self.sync_every_bytes));
        }
        if !(Duration::from_secs(1)..=Duration::from_secs(86_400)).contains(&self.limit) {
            return Err(format!("a limit of {:?}: between 1 s and a day", self.limit));
        }
        Ok(())
    }
}

impl Default for Pace {
    fn default() -> Self {
        Pace::DEFAULT
    }
}

/// Keeps a phase of a copy (writing it, checking it) at its pace and within its limit.
pub(crate) struct Pacer {
    pace: Pace,
    /// when this phase should end at the latest (the pace quickens to make it)
    phase_end: Instant,
    /// when the whole copy must have ended
    hard_end: Instant,
    /// bytes still to do in this phase, as far as known
    remaining: u64,
    /// the last time the pace was kept
    mark: Instant,
}

impl Pacer {
    /// A phase that should end by `phase_end`, of a copy begun at `started`.
    pub(crate) fn new(pace: Pace, started: Instant, phase_end: Instant, total: u64) -> Pacer {
        Pacer { pace, phase_end, hard_end: started + pace.limit, remaining: total, mark: Instant::now() }
    }

    /// `bytes` more were done and `remaining` are left: sleeps as long as the pace asks.
    /// False once the copy's limit has passed (the caller gives up).
    pub(crate) fn advance(&mut self, bytes: u64, remaining: u64) -> bool {
        self.remaining = remaining;
        let now = Instant::now();
        if now >= self.hard_end {
            return false;
        }
        let left = self.phase_end.saturating_duration_since(now).as_secs_f64();
        // the rate that still ends this phase in time, if that is faster than the pace
        let rate = if left > 0.0 { (self.pace.bytes_per_second as f64).max(self.remaining as f64 / left) } else { f64::INFINITY };
        let want = Duration::from_secs_f64(bytes as f64 / rate);
        let took = now - self.mark;
        if want > took {
            std::thread::sleep((want - took).min(self.hard_end - now));
        }
        self.mark = Instant::now();
        true
    }

    pub(crate) fn sync_every(&self) -> u64 {
        self.pace.sync_every_bytes
    }
}

/// Why a paced copy did not complete.
pub(crate) enum Fault {
    /// the words of what failed
    Failed(String),
    /// the limit passed with `done` of `total` bytes copied
    TooSlow { done: u64, total: u64 },
}

impl Fault {
    /// What went wrong, in words (for an error that has no place for the limit).
    pub(crate) fn words(&self) -> String {
        match self {
            Fault::Failed(w) => w.clone(),
            Fault::TooSlow { done, total } => format!("the copy's time ran out with {done} of {total} bytes copied"),
        }
    }
}

/// Sends the written pages of `f` to the disk and waits for them (data only: the file's
/// size and times are synced once, at the end). They stay cached, clean: the check reads
/// them next. Dropped from the cache right after the check instead of now: read back from
/// the disk, the check's b-tree order is random reads of the whole file (measured: minutes
/// for 1 GB, each read in the disk's queue with the checkouts' fsyncs).
pub(crate) fn push_out(f: &std::fs::File) -> std::io::Result<()> {
    let fd = f.as_raw_fd();
    let flags = libc::SYNC_FILE_RANGE_WAIT_BEFORE | libc::SYNC_FILE_RANGE_WRITE | libc::SYNC_FILE_RANGE_WAIT_AFTER;
    // SAFETY: `fd` is open for as long as `f` is borrowed; no memory is passed.
    if unsafe { libc::sync_file_range(fd, 0, 0, flags) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Drops `f`'s clean pages from the page cache: a copy written and checked once should not
/// push the ledger's pages out. Advice only: a failure changes nothing but the cache.
pub(crate) fn drop_cached(f: &std::fs::File) {
    // SAFETY: the fd is open for as long as `f` is borrowed; no memory is passed.
    let _ = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// Copies the database behind `src` into the empty file `partial` with the online backup
/// API, paced by `pacer`. The whole copy is read inside ONE read transaction of `src`, so
/// it is one consistent snapshot (with what is still only in the WAL), and the writer's
/// commits meanwhile neither restart the backup nor wait for it (in WAL mode a reader does
/// not block the writer). The file is not synced as a whole here (the caller's rename does
/// that) but its pages are pushed out every `sync_every_bytes`.
pub(crate) fn backup_into(src: &Connection, partial: &Path, pacer: &mut Pacer) -> Result<(), Fault> {
    backup_into_with(src, partial, pacer, &mut || {})
}

/// [`backup_into`], calling `between_steps` after every step but the last (the tests commit
/// to the ledger there).
fn backup_into_with(src: &Connection, partial: &Path, pacer: &mut Pacer, between_steps: &mut dyn FnMut()) -> Result<(), Fault> {
    let sql = |e: rusqlite::Error| Fault::Failed(crate::error::sqlite_words(&e));
    let io = |e: std::io::Error| Fault::Failed(format!("{}: {e}", partial.display()));
    // The snapshot: a read transaction begun by a first read, held until `snapshot` drops
    // (it is only read: dropping it rolls nothing back). The backup's steps find it open
    // and use it instead of opening (and closing) one per step, which would restart the
    // backup whenever the register committed between two steps.
    let snapshot = src.unchecked_transaction().map_err(sql)?;
    let page_size: i64 = snapshot.query_row("PRAGMA page_size", [], |r| r.get(0)).map_err(sql)?;
    let pages: i64 = snapshot.query_row("PRAGMA page_count", [], |r| r.get(0)).map_err(sql)?;
    let page_size = page_size.max(512) as u64;
    let total = pages.max(0) as u64 * page_size;
    let mut dst = Connection::open(partial).map_err(sql)?;
    // The copy is a `.partial` file deleted on any failure and synced whole before it is
    // named: it needs no journal and no sync of its own while it is written. A small cache
    // makes SQLite hand its pages to the file as it goes, where `push_out` finds them.
    dst.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -1024;").map_err(sql)?;
    let file = std::fs::OpenOptions::new().read(true).write(true).open(partial).map_err(io)?;
    let step_pages = (pacer.pace.step_bytes / page_size).clamp(1, i32::MAX as u64) as i32;
    {
        let backup = Backup::new(&snapshot, &mut dst).map_err(sql)?;
        let mut since_push = 0u64;
        let mut done = 0u64;
        loop {
            let step = backup.step(step_pages).map_err(sql)?;
            let p = backup.progress();
            let now_done = (p.pagecount.max(0) as u64).saturating_sub(p.remaining.max(0) as u64) * page_size;
            let remaining = p.remaining.max(0) as u64 * page_size;
            let bytes = now_done.saturating_sub(done);
            done = now_done;
            since_push += bytes;
            // StepResult is non-exhaustive (rusqlite's enum): an unknown one is a failure
            let finished = match step {
                StepResult::Done => true,
                StepResult::More => false,
                // the source's read transaction is ours and the destination is private:
                // neither should be locked; if one is, the step is retried at the pace
                StepResult::Busy | StepResult::Locked => false,
                other => return Err(Fault::Failed(format!("the online backup answered {other:?}"))),
            };
            if finished {
                break;
            }
            if since_push >= pacer.sync_every() {
                push_out(&file).map_err(io)?;
                since_push = 0;
            }
            if !pacer.advance(bytes.max(page_size), remaining) {
                return Err(Fault::TooSlow { done, total: total.max(done + remaining) });
            }
            between_steps();
        }
    }
    drop(dst);
    push_out(&file).map_err(io)?;
    drop(snapshot);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pace_out_of_bounds_is_refused() {
        assert!(Pace::DEFAULT.check().is_ok());
        assert!(Pace { step_bytes: 100, ..Pace::DEFAULT }.check().is_err());
        assert!(Pace { bytes_per_second: 0, ..Pace::DEFAULT }.check().is_err());
        assert!(Pace { sync_every_bytes: 1, ..Pace::DEFAULT }.check().is_err());
        assert!(Pace { limit: Duration::ZERO, ..Pace::DEFAULT }.check().is_err());
    }

    /// The snapshot: a writer commits between every two steps of a copy, one page a step.
    /// With the read transaction held for the whole copy, the copy finishes and holds exactly
    /// what was committed before it began; without it, SQLite restarts the backup at every
    /// step and it runs into its limit.
    #[test]
    fn commits_between_the_steps_neither_restart_the_copy_nor_get_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("l.db");
        let w = Connection::open(&db).unwrap();
        w.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO t SELECT randomblob(4000) FROM n;").unwrap();
        let src = Connection::open_with_flags(&db, crate::open::read_flags()).unwrap();
        let partial = dir.path().join("copy");
        std::fs::File::create(&partial).unwrap();
        let pace = Pace { step_bytes: 4096, bytes_per_second: 64 * MIB, sync_every_bytes: 64 * 1024, limit: Duration::from_secs(5) };
        let now = Instant::now();
        let mut pacer = Pacer::new(pace, now, now + pace.limit / 2, 0);
        let mut commits = 0;
        let copied = backup_into_with(&src, &partial, &mut pacer, &mut || {
            w.execute("INSERT INTO t VALUES (randomblob(4000))", []).unwrap();
            commits += 1;
        });
        match copied {
            Ok(()) => {}
            Err(f) => panic!("the copy did not finish: {}", f.words()),
        }
        assert!(commits >= 200, "a commit between every two steps ({commits})");
        drop(src);
        let c = Connection::open(&partial).unwrap();
        let rows: i64 = c.query_row("SELECT count(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 200, "what was committed before the copy began, nothing after");
    }

    #[test]
    fn a_pacer_past_its_limit_says_stop() {
        let pace = Pace { limit: Duration::from_secs(1), ..Pace::DEFAULT };
        let now = Instant::now();
        let mut fresh = Pacer::new(pace, now, now + pace.limit, 10 * MIB);
        assert!(fresh.advance(4096, 10 * MIB - 4096), "within its limit it goes on");
        let long_ago = now.checked_sub(Duration::from_secs(2)).unwrap();
        let mut late = Pacer::new(pace, long_ago, long_ago + pace.limit / 2, 10 * MIB);
        assert!(!late.advance(4096, 10 * MIB - 4096), "past its limit it stops");
    }
}
