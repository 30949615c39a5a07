//! `backup now|list|verify|restore` (record 0116) with the real binary: a copy taken
//! after real checkouts against the mock PSP restores every payment, equal to the PSP;
//! and a SIGKILL in the middle of a copy leaves the ledger and the last good copy intact.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;
use common::*;
use paydesk_ledger::Ledger;

async fn backup(db: &Path, args: &[&str]) -> Run {
    let mut all = vec!["backup"];
    all.extend_from_slice(args);
    // No PSP is needed: the URL names a port nothing listens on.
    run(db, "http://127.0.0.1:9", &[], &all).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_after_real_checkouts_restores_every_payment_as_the_psp_has_it() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register").join("ledger.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    for amount in ["1200", "3400", "560"] {
        let r = run(&db, &psp.url(), &[], &["checkout", "--amount", amount, "--currency", "jpy"]).await;
        assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    }
    let taken = backup(&db, &["now", "--keep", "2"]).await;
    assert_eq!(taken.code, Some(0), "{}{}", taken.stdout, taken.stderr);
    let copy = taken.json()["copy"].clone();
    assert_eq!(copy["payments"], 3, "{copy}");
    assert!(copy["audit_rows_verified"].as_u64().is_some(), "{copy}");
    let copy_path = copy["path"].as_str().unwrap().to_string();

    let checked = backup(&db, &["verify", "--copy", &copy_path]).await;
    assert_eq!(checked.code, Some(0), "{}", checked.stderr);
    assert_eq!(checked.json()["copy"], copy, "checking again finds the same");

    // Restoring over the live ledger is refused, by code.
    let over = backup(&db, &["restore", "--copy", &copy_path]).await;
    assert_eq!(over.code, Some(1));
    assert_eq!(over.json()["error"]["code"], "restore_target_exists");

    let fresh = dir.path().join("new-register").join("ledger.db");
    let restored = backup(&fresh, &["restore", "--copy", &copy_path]).await;
    assert_eq!(restored.code, Some(0), "{}{}", restored.stdout, restored.stderr);
    assert_eq!(restored.json()["restored"]["payments"], 3);
    assert_eq!(ledger(&fresh, &psp.url()).await, ledger(&db, &psp.url()).await, "the same payments, the same states");
    assert_ledger_equals_psp(&fresh, &psp).await;
}

/// A ledger big enough that copying it takes a while: rows of payments that were never
/// charged (`failed`), padded, written in one transaction.
fn grow(db: &Path, prefix: &str, rows: i64) {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
    c.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params, created_at_ms, updated_at_ms)
         SELECT printf('%s-%08d', ?2, i), 100, 'jpy', 'failed', 'automatic', json_array(printf('%.4000c', 'x')), i, i FROM n",
        rusqlite::params![rows, prefix],
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkill_in_the_middle_of_a_copy_leaves_the_ledger_and_the_last_good_copy_intact() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.db");
    drop(Ledger::open(&db).unwrap());
    grow(&db, "small", 10);
    let first = backup(&db, &["now"]).await;
    assert_eq!(first.code, Some(0), "{}{}", first.stdout, first.stderr);
    let good = first.json()["copy"]["path"].as_str().unwrap().to_string();
    grow(&db, "big", 60_000);
    let payments_before: i64 = {
        let l = Ledger::open_reader(&db).unwrap();
        l.connection().query_row("SELECT count(*) FROM payments", [], |r| r.get(0)).unwrap()
    };

    let copies = paydesk_ledger::backup::dir_of(&db);
    let mut child = cli(&db, "http://127.0.0.1:9", &[], &["backup", "now"]).spawn().unwrap();
    // Wait for the copy to be under way: its `.partial` file holds written pages.
    let deadline = Instant::now() + Duration::from_secs(60);
    let partial = loop {
        let found = std::fs::read_dir(&copies).unwrap().flatten().map(|e| e.path()).find(|p| {
            p.to_string_lossy().ends_with(".sqlite3.partial") && std::fs::metadata(p).is_ok_and(|m| m.len() > 0)
        });
        if let Some(p) = found {
            break p;
        }
        assert!(Instant::now() < deadline, "the copy never started");
        assert!(child.try_wait().unwrap().is_none(), "the copy ended before it was seen under way");
        tokio::time::sleep(Duration::from_millis(1)).await;
    };
    child.start_kill().unwrap();
    let status = child.wait().await.unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9));

    let listed = backup(&db, &["list"]).await.json();
    assert_eq!(listed["running"], serde_json::json!([good]), "killed before its rename: the new copy is not a copy; grow the ledger if this fails");
    assert!(partial.exists(), "what the kill left");
    // The ledger: opens, its chain intact, every payment there.
    let l = Ledger::open(&db).unwrap();
    assert!(l.audit().verify(None).unwrap().is_intact());
    let payments_after: i64 = l.connection().query_row("SELECT count(*) FROM payments", [], |r| r.get(0)).unwrap();
    assert_eq!(payments_after, payments_before);
    drop(l);
    // The last good copy: still good, with what it held.
    let v = backup(&db, &["verify", "--copy", &good]).await;
    assert_eq!(v.code, Some(0), "{}", v.stderr);
    assert_eq!(v.json()["copy"]["payments"], 10);
    // The next copy clears what the kill left and holds everything.
    let next = backup(&db, &["now"]).await;
    assert_eq!(next.code, Some(0), "{}{}", next.stdout, next.stderr);
    assert_eq!(next.json()["copy"]["payments"], payments_before);
    assert!(!partial.exists());
    assert_eq!(backup(&db, &["list"]).await.json()["running"].as_array().unwrap().len(), 2);
}

/// `backup key-new | send | fetch` (record 0150) with the real binary and the real back
/// office: after real checkouts, a copy sent sealed, fetched to another place, opened,
/// checked and restored there gives the same payments; a key file others can read is
/// refused by code, and the key never appears in the output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_sent_to_the_back_office_and_fetched_restores_every_payment() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let h = crate::support::Harness::start().await;
    let store = h.owner.create_store("Copies St").await.unwrap();
    let db = dir.path().join("register").join("ledger.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    for minor in ["1200", "450", "3000"] {
        checkout_usd(&db, &psp, minor).await;
    }
    let code = h.owner.pairing_code(&store, "Front till").await.unwrap();
    let paired = sync_pair(&db, &h.url, &code).await;
    assert_eq!(paired.code, Some(0), "{}{}", paired.stdout, paired.stderr);
    let taken = backup(&db, &["now"]).await;
    assert_eq!(taken.code, Some(0), "{}{}", taken.stdout, taken.stderr);

    let key = dir.path().join("backup.key");
    let made = backup(&db, &["key-new", "--key", key.to_str().unwrap()]).await;
    assert_eq!(made.code, Some(0), "{}{}", made.stdout, made.stderr);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
    let secret = std::fs::read_to_string(&key).unwrap();

    let sent = backup(&db, &["send", "--key", key.to_str().unwrap()]).await;
    assert_eq!(sent.code, Some(0), "{}{}", sent.stdout, sent.stderr);
    let sent = sent.json();
    assert_eq!(sent["sent"]["chunks_sent"], sent["sent"]["chunks"], "{sent}");
    assert!(!sent.to_string().contains(secret.trim()));

    let out = dir.path().join("elsewhere").join("fetched.sqlite3");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let got = backup(&db, &["fetch", "--key", key.to_str().unwrap(), "--out", out.to_str().unwrap()]).await;
    assert_eq!(got.code, Some(0), "{}{}", got.stdout, got.stderr);
    let got = got.json();
    assert_eq!(got["fetched"]["backup"]["sha256"], sent["sent"]["backup"]["sha256"]);
    assert_eq!(got["fetched"]["copy"]["payments"], 3, "{got}");
    let fresh = dir.path().join("elsewhere").join("ledger.db");
    let restored = backup(&fresh, &["restore", "--copy", out.to_str().unwrap()]).await;
    assert_eq!(restored.code, Some(0), "{}{}", restored.stdout, restored.stderr);
    assert_eq!(ledger(&fresh, &psp.url()).await, ledger(&db, &psp.url()).await, "the same payments, the same states");

    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o640)).unwrap();
    let refused = backup(&db, &["send", "--key", key.to_str().unwrap()]).await;
    assert_eq!((refused.code, refused.json()["error"]["code"].as_str()), (Some(1), Some("backup_key_not_private")), "{}", refused.stdout);
}
