//! Group commit's flush stage (a file database with group commit on).
//!
//! Without it the writer thread took turns: run a batch's SQL, then wait for the
//! commit's fsync (0.1–1 ms on these disks), then run the next batch. The fsync was a
//! third to a half of the writer's time, and the writer is the one serial part of the
//! server. With it, the writer commits a batch with `synchronous=NORMAL` (the WAL frames
//! are written to the file, not yet forced to disk) and hands the batch's callers to
//! the syncer thread here, which forces the WAL file to disk once for every batch
//! committed since its previous fsync and only then answers them. The writer runs the
//! next batch meanwhile. PostgreSQL's WAL flush works the same way.
//!
//! What does not change (the promise of record 0016/0023): **nobody learns of a write before
//! it is on disk**.
//! - A write's caller is answered only after an fsync of the WAL file that began after
//!   the write's COMMIT returned (so it covers the commit's frames and the log header).
//! - A read can see a commit as soon as its frames are in the WAL, before the fsync.
//!   So every read through [`crate::store::Store::read`] waits, after reading, until
//!   every commit begun before it finished reading is durable ([`Durability::settled`]).
//!   A replay therefore never hands out a PaymentIntent that a power cut could undo.
//! - Checkpoints still sync the WAL before copying it back and the database after
//!   (SQLite does that at `synchronous=NORMAL` too), so no checkpoint makes an unsynced
//!   frame part of the database.
//! - If an fsync fails, the data it covered may never reach the disk, and a second
//!   fsync cannot tell (the kernel may have dropped the dirty pages). The syncer then
//!   answers every caller since with an error and never reports anything durable
//!   again; reads fail too. The process has to be restarted (SQLite recovers the WAL).
//!
//! A process crash (SIGKILL) loses nothing either way: the frames are in the page cache.
use super::{Job, StoreError};
use std::fs::File;
use std::sync::mpsc;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::Arc;

/// One commit handed from the writer to the syncer, in commit order.
pub(crate) struct Committed {
    /// [`Durability::begin_commit`]'s number for this commit.
    pub seq: u64,
    /// Callers to answer after the fsync (empty for a failed commit or a solo job,
    /// which the writer answered itself; the commit still counts for readers).
    pub jobs: Vec<Box<dyn Job>>,
}

#[derive(Clone, Debug, Default)]
struct SyncState {
    /// Every commit numbered up to this is on disk.
    durable: u64,
    /// Set once an fsync failed: nothing is reported durable after that.
    failed: Option<String>,
}

/// The commits begun by the writer and how far of them the disk has.
pub struct Durability {
    /// Numbered before each COMMIT (readers may see a commit from then on).
    started: AtomicU64,
    state: tokio::sync::watch::Sender<SyncState>,
    /// fsyncs of the log, and the time they took in total (for stats).
    pub syncs: AtomicU64,
    pub sync_us: AtomicU64,
    /// Tests hold this to keep the syncer from syncing (see the store's tests).
    #[cfg(test)]
    pub(crate) hold: parking_lot::Mutex<()>,
}

impl Durability {
    pub(crate) fn new() -> Arc<Durability> {
        Arc::new(Durability {
            started: AtomicU64::new(0),
            state: tokio::sync::watch::Sender::new(SyncState::default()),
            syncs: AtomicU64::new(0),
            sync_us: AtomicU64::new(0),
            #[cfg(test)]
            hold: parking_lot::Mutex::new(()),
        })
    }

    /// Numbers the commit the writer is about to issue. Called before COMMIT: readers
    /// can see its rows from the moment COMMIT writes the WAL index.
    pub(crate) fn begin_commit(&self) -> u64 {
        self.started.fetch_add(1, SeqCst) + 1
    }

    /// Waits until everything a read that just finished could have seen is on disk:
    /// every commit begun so far. Returns at once when nothing is pending (the usual
    /// case for a replay outside a burst of writes).
    pub async fn settled(&self) -> Result<(), StoreError> {
        let need = self.started.load(SeqCst);
        let mut rx = self.state.subscribe();
        let s = rx.wait_for(|s| s.durable >= need || s.failed.is_some()).await.map_err(|_| StoreError("the log syncer stopped".into()))?;
        match &s.failed {
            Some(e) => Err(StoreError(e.clone())),
            None => Ok(()),
        }
    }

    /// Highest commit number known to be on disk (for tests and stats).
    pub fn durable(&self) -> u64 {
        self.state.borrow().durable
    }
}

/// Starts the syncer thread for the WAL file `wal_path` (the writer connection has the
/// database open in WAL mode). Stops once the writer drops its
/// sender, after answering everything handed to it.
pub(crate) fn start(wal_path: &std::path::Path, dur: Arc<Durability>) -> Result<(mpsc::Sender<Committed>, std::thread::JoinHandle<()>), StoreError> {
    // Our own descriptor of the WAL file: an fsync forces the file's (inode's) dirty
    // pages whichever descriptor wrote them. The file keeps its inode for the store's
    // lifetime: SQLite truncates it on restart (journal_size_limit) and deletes it only
    // when the last connection closes, and the writer's connection outlives this thread.
    // Not created here: SQLite creates the log when a connection first reads a WAL-mode
    // database (the store has read it by now), so a missing file means a wrong path,
    // and syncing a file SQLite never writes would make nothing durable.
    let wal = File::open(wal_path).map_err(|e| StoreError(format!("cannot open the write-ahead log {} to sync it: {e}", wal_path.display())))?;
    // SQLite may have just created the log, and syncs the directory only on its own
    // descriptor's first fsync, which the syncer's fsyncs bypass: make the file's
    // directory entry durable here, once.
    if let Some(dir) = wal_path.parent() {
        let dir = if dir.as_os_str().is_empty() { std::path::Path::new(".") } else { dir };
        File::open(dir).and_then(|d| d.sync_all()).map_err(|e| StoreError(format!("cannot sync the directory {}: {e}", dir.display())))?;
    }
    let (tx, rx) = mpsc::channel::<Committed>();
    let h = std::thread::Builder::new().name("mock-psp-log-sync".into()).spawn(move || run(rx, wal, &dur)).map_err(|e| StoreError(e.to_string()))?;
    Ok((tx, h))
}

/// Marks the syncer stopped when its thread ends, however it ends (the writer hung up,
/// or a panic): reads then fail instead of waiting for an fsync that never comes.
struct Stopped<'a>(&'a Durability);

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        self.0.state.send_modify(|s| {
            if s.failed.is_none() {
                s.failed = Some("the log syncer stopped".into());
            }
        });
    }
}

/// Most commits one fsync answers (the rest wait for the next one): a bound on the
/// drain of the queue, far above the writer's rate per fsync (tens of commits).
const MAX_COMMITS_PER_SYNC: usize = 65_536;

fn run(rx: mpsc::Receiver<Committed>, wal: File, dur: &Durability) {
    let _stopped = Stopped(dur);
    while let Ok(first) = rx.recv() {
        // Every commit handed over so far is covered by the one fsync below.
        let mut batch = vec![first];
        for _ in 1..MAX_COMMITS_PER_SYNC {
            let Ok(c) = rx.try_recv() else { break };
            batch.push(c);
        }
        let upto = batch.last().map(|c| c.seq).unwrap_or(0);
        #[cfg(test)]
        let hold = dur.hold.lock();
        let failed = dur.state.borrow().failed.clone();
        let t = std::time::Instant::now();
        let r = match failed {
            Some(e) => Err(StoreError(e)),
            None => wal.sync_data().map_err(|e| StoreError(format!("fsync of the WAL file failed ({e}); writes since the last good fsync may be lost, restart the PSP")))
        };
        #[cfg(test)]
        drop(hold);
        dur.syncs.fetch_add(1, SeqCst);
        dur.sync_us.fetch_add(t.elapsed().as_micros() as u64, SeqCst);
        match &r {
            Ok(()) => dur.state.send_modify(|s| {
                // The writer numbers commits in the order it hands them over.
                assert!(upto >= s.durable, "commit numbers go backwards: {upto} after {}", s.durable);
                s.durable = upto;
            }),
            Err(e) => dur.state.send_modify(|s| s.failed = Some(e.0.clone())),
        }
        for c in batch {
            for j in c.jobs {
                j.finish(r.clone());
            }
        }
    }
}
