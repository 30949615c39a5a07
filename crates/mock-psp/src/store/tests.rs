//! The store's own tests: batches with a failing job, `synchronous` per write path,
//! `write_then`, answers held until the log syncer's fsync, and the file it syncs.
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
