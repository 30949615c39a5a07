//! What `--db` may point at. A file that is neither empty nor a mock-psp store (a
//! PayDesk ledger, any other SQLite file, a newer store) is refused untouched, byte for
//! byte, with no journal left beside it; paths that cannot be a database say why; an
//! older store is upgraded and keeps its data.
use crate::common;
use common::*;
use mock_psp::schema::{APPLICATION_ID, SCHEMA_VERSION};
use mock_psp::MockPsp;
use rusqlite::Connection;
use std::path::Path;

fn open_err(path: &Path) -> String {
    match MockPsp::builder().db(path).secret_key(SK_A).build() {
        Ok(_) => panic!("{} was opened", path.display()),
        Err(e) => e.to_string(),
    }
}

/// Every file in `dir`, with a digest of its bytes (printable when they differ). A `-shm`
/// file only by name: it is the shared-memory index every reader writes its read marks
/// to, not database content.
fn snapshot(dir: &Path) -> Vec<(String, usize, String)> {
    use sha2::{Digest, Sha256};
    let mut v: Vec<(String, usize, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let bytes = if name.ends_with("-shm") { vec![] } else { std::fs::read(e.path()).unwrap() };
            (name, bytes.len(), hex::encode(Sha256::digest(&bytes)))
        })
        .collect();
    v.sort();
    v
}

/// A database shaped like a PayDesk ledger: WAL mode, its own tables, user_version 3.
fn ledger_like(path: &Path) {
    let c = Connection::open(path).unwrap();
    c.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(())).unwrap();
    c.execute_batch("CREATE TABLE payments (id INTEGER PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE); CREATE TABLE refunds (id INTEGER PRIMARY KEY); INSERT INTO payments (idempotency_key) VALUES ('k1'); PRAGMA user_version = 3;").unwrap();
}

#[test]
fn foreign_sqlite_files_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    type Make = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Make, &str)> = vec![
        ("ledger.db", Box::new(ledger_like), "another program"),
        ("other.db", Box::new(|p: &Path| Connection::open(p).unwrap().execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('x');").unwrap()), "other tables (notes)"),
        ("marked.db", Box::new(|p: &Path| Connection::open(p).unwrap().execute_batch("PRAGMA application_id = 42; CREATE TABLE t (x);").unwrap()), "another program"),
        // Our tables and another's: not ours either.
        ("mixed.db", Box::new(|p: &Path| Connection::open(p).unwrap().execute_batch("CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL); CREATE TABLE idem (id INTEGER PRIMARY KEY); CREATE TABLE products (id INTEGER);").unwrap()), "products"),
        ("text.db", Box::new(|p: &Path| std::fs::write(p, vec![b'x'; 8192]).unwrap()), "not a SQLite database"),
    ];
    for (name, make, says) in cases {
        let sub = dir.path().join(name.replace('.', "_"));
        std::fs::create_dir(&sub).unwrap();
        let path = sub.join(name);
        make(&path);
        let before = snapshot(&sub);
        let e = open_err(&path);
        assert!(e.contains(says) && e.contains(&path.display().to_string()), "{name}: {e}");
        assert_eq!(snapshot(&sub), before, "{name}: the directory changed (file bytes or a journal left beside it)");
    }
}

#[test]
fn a_newer_store_is_refused_untouched_and_an_older_one_is_upgraded_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("psp.sqlite3");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let form = [("amount", "1999"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true"), ("metadata[order]", "7")];
    let first = rt.block_on(async {
        let psp = MockPsp::builder().db(&path).secret_key(SK_A).build().unwrap();
        let r = psp.handle(mock_psp::PspRequest::post("/v1/payment_intents", SK_A, Some("k1"), &form)).await.response().unwrap().clone();
        psp.close();
        r
    });
    assert_eq!(first.status, 200);
    let c = Connection::open(&path).unwrap();
    let version = |c: &Connection| c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(version(&c), SCHEMA_VERSION);
    assert_eq!(c.query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0)).unwrap(), APPLICATION_ID);
    // Newer: refused, untouched.
    c.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1)).unwrap();
    drop(c);
    let before = snapshot(dir.path());
    let e = open_err(&path);
    assert!(e.contains("newer") && e.contains(&format!("schema {}", SCHEMA_VERSION + 1)), "{e}");
    assert_eq!(snapshot(dir.path()), before);
    // From before versioning (user_version 0, no application id, no v2 index): upgraded
    // in place, its keys and intents kept.
    let c = Connection::open(&path).unwrap();
    c.execute_batch("PRAGMA user_version = 0; PRAGMA application_id = 0; DROP INDEX pi_metadata_seq;").unwrap();
    drop(c);
    rt.block_on(async {
        let psp = MockPsp::builder().db(&path).secret_key(SK_A).build().unwrap();
        let again = psp.handle(mock_psp::PspRequest::post("/v1/payment_intents", SK_A, Some("k1"), &form)).await.response().unwrap().clone();
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        assert_eq!(again.body, first.body, "the stored answer survived the upgrade");
        psp.close();
    });
    let c = Connection::open(&path).unwrap();
    assert_eq!(version(&c), SCHEMA_VERSION);
    let idx: i64 = c.query_row("SELECT count(*) FROM sqlite_schema WHERE name = 'pi_metadata_seq'", [], |r| r.get(0)).unwrap();
    assert_eq!(idx, 1, "the v2 migration ran");
}

#[test]
fn paths_that_cannot_be_a_database_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let e = open_err(Path::new("/dev/null"));
    assert!(e.contains("/dev/null is not a regular file"), "{e}");
    assert!(!Path::new("/dev/null-journal").exists() && !Path::new("/dev/null-wal").exists());
    let e = open_err(dir.path());
    assert!(e.contains("is a directory"), "{e}");
    let e = open_err(Path::new(""));
    assert!(e.contains("path is empty"), "{e}");
    let e = open_err(&dir.path().join("missing-dir").join("psp.db"));
    assert!(e.contains("does not exist"), "{e}");
    assert!(snapshot(dir.path()).is_empty(), "nothing was created");
    // An empty file is fine: it becomes a store.
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let psp = MockPsp::builder().db(&empty).secret_key(SK_A).build().unwrap();
    psp.close();
}
