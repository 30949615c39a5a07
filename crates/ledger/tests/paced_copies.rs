//! Paced copies (record 0154): the online backup API in small steps, paced, while the
//! register's writer commits between the steps. The copy is one snapshot — taken inside
//! one read transaction held for the whole copy — so the writer's commits neither restart
//! it (it finishes) nor leak into it (it holds what was committed before it began, and
//! checks good).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use paydesk_ledger::copies::{self as running, Pace};
use paydesk_ledger::{Error, Ledger};

use crate::common;

const T0: i64 = 1_796_151_540_000;
const MIB: u64 = 1024 * 1024;

#[test]
fn a_paced_copy_is_one_snapshot_while_the_writer_commits_between_its_steps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut l = Ledger::open(&path).unwrap();
    for i in 0..20 {
        common::new_payment(&mut l, 100 + i, T0 + i);
    }
    {
        // ~3 MiB of pages to copy, one page a step: hundreds of steps
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE filler (b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 800) INSERT INTO filler SELECT randomblob(4000) FROM n;").unwrap();
    }
    let before: i64 = common::count(&l, "SELECT count(*) FROM payments");
    let copying = Arc::new(AtomicBool::new(true));
    let started = Arc::new(AtomicBool::new(false));
    let writer = {
        let (copying, started) = (copying.clone(), started.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            // commits until the copy is over; the copy begins only after the first one
            while copying.load(Ordering::SeqCst) {
                common::new_payment(&mut l, 500 + n, T0 + 1_000 + n);
                n += 1;
                started.store(true, Ordering::SeqCst);
            }
            (n, l)
        })
    };
    while !started.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    let at_start = payments_now(&path);
    // 4 KiB steps at 1 MiB/s: ~3 s of steps, the writer committing between them (that no
    // commit restarts the copy is held by `backup::paced`'s test of the snapshot).
    let pace = Pace { step_bytes: 4096, bytes_per_second: MIB, sync_every_bytes: 256 * 1024, limit: Duration::from_secs(60) };
    let taken = running::take_paced(&path, 3, T0, pace);
    let at_end = payments_now(&path);
    copying.store(false, Ordering::SeqCst);
    let (written, l) = writer.join().unwrap();
    let check = match taken {
        Ok(c) => c,
        Err(e @ Error::CopyTooSlow { .. }) => panic!("the copy never finished while the writer committed: {e}"),
        Err(e) => panic!("{e}"),
    };
    assert!(at_end > at_start, "the writer committed while the copy was taken ({at_start} → {at_end}, {written} in all)");
    assert!(check.payments >= at_start && check.payments <= at_end, "one snapshot: {} within [{at_start}, {at_end}]", check.payments);
    assert!(check.payments > before);
    assert!(check.audit_rows_verified.is_some());
    assert_eq!(running::verify(&check.path).unwrap(), check);
    // the copy is a single rollback-journal file: nothing beside it
    let beside: Vec<_> = std::fs::read_dir(paydesk_ledger::backup::dir_of(&path))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sqlite3"))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
    drop(l);
}

#[test]
fn a_pace_out_of_its_bounds_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    drop(Ledger::open(&path).unwrap());
    let slow = Pace { bytes_per_second: 1, ..Pace::DEFAULT };
    assert!(matches!(running::take_paced(&path, 3, T0, slow), Err(Error::InvalidInput(_))));
    assert!(running::list(&path).is_empty());
}

fn payments_now(path: &std::path::Path) -> i64 {
    let l = Ledger::open_reader(path).unwrap();
    common::count(&l, "SELECT count(*) FROM payments")
}
