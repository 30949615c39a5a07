//! Copies taken while the register runs (record 0116): each holds everything committed
//! before it began and checks good, the newest N are kept, a crash's `.partial` file is
//! never a copy, a bad copy is named as bad, and a restore gives every payment back
//! without ever overwriting a ledger.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use paydesk_ledger::copies as running;
use paydesk_ledger::{Error, Ledger};

use crate::common;

const T0: i64 = 1_796_151_540_000;

fn payments_in(path: &Path) -> i64 {
    let l = Ledger::open_reader(path).unwrap();
    common::count(&l, "SELECT count(*) FROM payments")
}

#[test]
fn a_copy_taken_while_the_writer_commits_holds_all_committed_before_it_and_checks_good() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut l = Ledger::open(&path).unwrap();
    for i in 0..50 {
        common::new_payment(&mut l, 100 + i, T0 + i);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                common::new_payment(&mut l, 500 + n, T0 + 1_000 + n);
                n += 1;
            }
            n
        })
    };
    let mut seen = Vec::new();
    for k in 0..5 {
        let before = payments_in(&path);
        let check = running::take(&path, 10, T0 + k).unwrap();
        let after = payments_in(&path);
        assert!(check.payments >= before && check.payments <= after, "copy {k}: {} not within [{before}, {after}]", check.payments);
        assert_eq!(check.schema_version, paydesk_ledger::SCHEMA_VERSION);
        assert!(check.audit_rows_verified.is_some(), "a copy at this schema has its chain verified");
        assert_eq!(running::verify(&check.path).unwrap(), check, "checking again finds the same");
        seen.push(check.payments);
    }
    stop.store(true, Ordering::SeqCst);
    let written = writer.join().unwrap();
    assert!(written > 0, "the writer kept committing while the copies were taken");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "later copies hold at least as much: {seen:?}");
    assert_eq!(running::list(&path).len(), 5);
    // A copy is one file: checking it left no -wal/-shm beside it.
    let beside: Vec<_> = std::fs::read_dir(paydesk_ledger::backup::dir_of(&path))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sqlite3"))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
}

#[test]
fn the_newest_copies_are_kept_and_a_partial_file_is_never_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut l = Ledger::open(&path).unwrap();
    common::new_payment(&mut l, 100, T0);
    let made: Vec<_> = (0..4).map(|k| running::take(&path, 2, T0 + k * 1_000).unwrap().path).collect();
    assert_eq!(running::list(&path), made[2..].to_vec(), "the two newest are kept");
    // What a SIGKILL in the middle of a copy leaves: a `.partial` file.
    let partial = paydesk_ledger::backup::dir_of(&path).join("ledger.db.20991231T000000000Z.copy-schema1.sqlite3.partial");
    std::fs::write(&partial, b"half a copy").unwrap();
    assert_eq!(running::list(&path), made[2..].to_vec(), "a partial file is not listed");
    let next = running::take(&path, 2, T0 + 9_000).unwrap();
    assert!(!partial.exists(), "the next copy removes it");
    assert_eq!(running::list(&path), vec![made[3].clone(), next.path]);
    // The copies made before a migration are another kind, pruned on their own.
    assert!(paydesk_ledger::backup::list(&path).is_empty());
    for keep in [0, running::MAX_KEEP + 1] {
        assert!(matches!(running::take(&path, keep, T0), Err(Error::InvalidInput(_))), "keep {keep}");
    }
}

#[test]
fn a_damaged_copy_is_named_as_not_good_and_never_restored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut l = Ledger::open(&path).unwrap();
    common::new_payment(&mut l, 100, T0);
    let good = running::take(&path, 3, T0).unwrap().path;
    let bad = good.with_file_name("ledger.db.20261201T185900999Z.copy-schema1.sqlite3");
    let mut bytes = std::fs::read(&good).unwrap();
    bytes.truncate(bytes.len() / 2);
    bytes[0] = b'X';
    std::fs::write(&bad, &bytes).unwrap();
    assert!(matches!(running::verify(&bad), Err(Error::CopyNotGood { .. })));
    let into = dir.path().join("fresh").join("ledger.db");
    assert!(matches!(running::restore(&bad, &into), Err(Error::CopyNotGood { .. })));
    assert!(!into.exists(), "nothing was written");
}

#[test]
fn a_restore_gives_every_payment_back_and_never_overwrites_a_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let mut l = Ledger::open(&path).unwrap();
    let keys: Vec<String> = (0..20).map(|i| common::new_payment(&mut l, 100 + i, T0 + i).idempotency_key).collect();
    let copy = running::take(&path, 3, T0).unwrap().path;
    let copy_bytes = std::fs::read(&copy).unwrap();

    // Into the live ledger's own place: refused, the ledger untouched.
    let live_before = std::fs::read(&path).unwrap();
    assert!(matches!(running::restore(&copy, &path), Err(Error::RestoreTargetExists { .. })));
    assert_eq!(std::fs::read(&path).unwrap(), live_before);

    let into = dir.path().join("new-register").join("ledger.db");
    let restored = running::restore(&copy, &into).unwrap();
    assert_eq!(restored.payments, 20);
    let back = Ledger::open(&into).unwrap();
    for k in &keys {
        let p = back.payments().by_key(k).unwrap().expect("every payment is back");
        assert_eq!(p.idempotency_key, *k);
    }
    assert!(back.audit().verify(None).unwrap().is_intact());
    assert_eq!(std::fs::read(&copy).unwrap(), copy_bytes, "restoring never changes the copy");
}
