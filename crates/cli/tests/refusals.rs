//! What the CLI refuses before it touches a ledger or the network: plain http to
//! another machine, a missing PSP key (never a built-in one), and a `--db` that is not
//! a PayDesk ledger file. Each refusal is one JSON error on stdout and one line on
//! stderr (or a usage error, exit 64), names the problem, shows no secret and no SQL,
//! and leaves the files as they were.

use crate::common;
use common::*;
use std::path::Path;
use std::process::Command;

/// `paydesk-cli` run in `dir`, with none of the PAYDESK_* settings of the environment.
fn cmd(dir: &Path) -> Command {
    let mut c = Command::new(bin());
    c.current_dir(dir);
    for v in ["PAYDESK_PSP_KEY", "PAYDESK_PSP_URL", "PAYDESK_DB", "PAYDESK_CRASH_AT"] {
        c.env_remove(v);
    }
    c
}

fn output(c: &mut Command) -> Run {
    c.output().expect("spawn paydesk-cli").into()
}

fn list_dir(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// An error the way `fail` prints it: exit 1, one JSON object on stdout with `code`,
/// one line on stderr with the same message. Returns the message.
fn assert_one_error(r: &Run, code: &str) -> String {
    assert_eq!(r.code, Some(1), "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "one JSON object: {:?}", r.stdout);
    let v = r.json();
    assert_eq!(v["error"]["code"], code, "{v}");
    let message = v["error"]["message"].as_str().unwrap().to_string();
    assert_eq!(r.stderr.lines().collect::<Vec<_>>(), [format!("paydesk-cli: {message}")], "one human line on stderr");
    message
}

const DEAD_PSP: &str = "http://127.0.0.1:9";

#[test]
fn plain_http_to_another_machine_is_refused_and_the_ledger_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("register.sqlite3");
    let r = output(cmd(dir.path()).arg("--db").arg(&db).args(["--psp-url", DEAD_PSP, "--psp-key", KEY, "ledger"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let before = std::fs::read(&db).unwrap();
    let listing = list_dir(dir.path());
    let secret = "sk_live_DO_NOT_PRINT_1234";
    for args in [
        vec!["--psp-url", "http://192.0.2.10", "ledger"],
        vec!["--psp-url", "http://192.0.2.10", "checkout", "--amount", "500", "--currency", "jpy"],
        vec!["--psp-url", "http://127.evil.example:12111", "recover"],
        vec!["--psp-url", "https://user:pw@psp.example.com", "events"],
    ] {
        let r = output(cmd(dir.path()).arg("--db").arg(&db).env("PAYDESK_PSP_KEY", secret).args(&args));
        let message = assert_one_error(&r, "psp_config");
        assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret), "the key is never printed");
        assert!(!message.contains("pw@"), "{message}");
        if args[1].starts_with("http://") {
            assert!(message.contains("https://") && message.contains("this machine"), "{message}");
        }
        assert!(std::fs::read(&db).unwrap() == before, "{args:?}: the ledger is untouched");
        assert_eq!(list_dir(dir.path()), listing, "{args:?}");
    }
    // Refused before a ledger is created.
    let fresh = dir.path().join("fresh.sqlite3");
    let r = output(cmd(dir.path()).arg("--db").arg(&fresh).env("PAYDESK_PSP_KEY", secret).args(["--psp-url", "http://192.0.2.10", "ledger"]));
    assert_one_error(&r, "psp_config");
    assert!(!fresh.exists());
    // https anywhere, http to this machine: accepted (ledger does not call the PSP).
    for url in ["https://psp.example.com", "http://localhost:12111", "http://[::1]:12111"] {
        let r = output(cmd(dir.path()).arg("--db").arg(&db).args(["--psp-key", KEY, "--psp-url", url, "ledger"]));
        assert_eq!(r.code, Some(0), "{url}: {}", r.stderr);
    }
}

#[test]
fn a_key_typed_on_the_command_line_is_warned_about_and_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("register.sqlite3");
    let secret = "sk_test_DO_NOT_PRINT_5678";
    let r = output(cmd(dir.path()).arg("--db").arg(&db).args(["--psp-key", secret, "ledger"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let warned: Vec<&str> = r.stderr.lines().filter(|l| l.contains("warning: --psp-key")).collect();
    assert_eq!(warned.len(), 1, "{}", r.stderr);
    assert!(warned[0].contains("PAYDESK_PSP_KEY") && warned[0].contains("--psp-key-file"), "{}", warned[0]);
    assert!(!r.stdout.contains(secret) && !r.stderr.contains(secret), "the key is never printed");
    // the same key from the environment or a file: no warning
    let r = output(cmd(dir.path()).arg("--db").arg(&db).env("PAYDESK_PSP_KEY", secret).arg("ledger"));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}

#[test]
fn without_a_psp_key_nothing_runs_and_no_key_is_made_up() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("register.sqlite3");
    let usage = |r: &Run| {
        assert_eq!(r.code, Some(64), "stdout: {}\nstderr: {}", r.stdout, r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(!db.exists(), "no ledger created");
    };
    let r = output(cmd(dir.path()).arg("--db").arg(&db).args(["--psp-url", DEAD_PSP, "checkout", "--amount", "5", "--currency", "jpy"]));
    usage(&r);
    for way in ["--psp-key KEY", "PAYDESK_PSP_KEY", "--psp-key-file PATH"] {
        assert!(r.stderr.contains(way), "names {way}: {}", r.stderr);
    }
    // An empty key is no key.
    usage(&output(cmd(dir.path()).arg("--db").arg(&db).args(["--psp-key", "", "ledger"])));
    usage(&output(cmd(dir.path()).arg("--db").arg(&db).env("PAYDESK_PSP_KEY", "").arg("ledger")));

    let key_file = dir.path().join("key");
    // Unreadable, empty first line, given twice: usage errors naming the file, never its content.
    let r = output(cmd(dir.path()).arg("--db").arg(&db).arg("--psp-key-file").arg(&key_file).arg("ledger"));
    usage(&r);
    assert!(r.stderr.contains("cannot read --psp-key-file"), "{}", r.stderr);
    std::fs::write(&key_file, "\nsk_second_line_secret\n").unwrap();
    let r = output(cmd(dir.path()).arg("--db").arg(&db).arg("--psp-key-file").arg(&key_file).arg("ledger"));
    usage(&r);
    assert!(r.stderr.contains("first line is empty") && !r.stderr.contains("sk_second"), "{}", r.stderr);
    std::fs::write(&key_file, "x".repeat(5000)).unwrap();
    let r = output(cmd(dir.path()).arg("--db").arg(&db).arg("--psp-key-file").arg(&key_file).arg("ledger"));
    usage(&r);
    assert!(r.stderr.contains("longer than"), "{}", r.stderr);
    std::fs::write(&key_file, "sk_file_secret\n").unwrap();
    let r = output(
        cmd(dir.path()).arg("--db").arg(&db).env("PAYDESK_PSP_KEY", "sk_env_secret").arg("--psp-key-file").arg(&key_file).arg("ledger"),
    );
    usage(&r);
    assert!(r.stderr.contains("given twice") && !r.stderr.contains("sk_env_secret") && !r.stderr.contains("sk_file_secret"), "{}", r.stderr);

    // The environment variable alone is enough, and --help does not show its value.
    let r = output(cmd(dir.path()).arg("--db").arg(&db).env("PAYDESK_PSP_KEY", "sk_env_secret").arg("ledger"));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let r = output(cmd(dir.path()).env("PAYDESK_PSP_KEY", "sk_env_secret").arg("--help"));
    assert_eq!(r.code, Some(0));
    assert!(r.stdout.contains("--psp-key-file") && !r.stdout.contains("sk_env_secret"), "{}", r.stdout);

    // `simulate` needs no PSP at all.
    let r = output(cmd(dir.path()).args(["simulate", "--seed", "1", "--checkouts", "20", "--profile", "calm", "--summary"]));
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
}

#[tokio::test]
async fn the_key_file_is_the_key_the_psp_sees() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.sqlite3");
    let key_file = dir.path().join("key");
    let checkout = |key_file: &Path| {
        let mut c = tokio::process::Command::from(cmd(dir.path()));
        c.arg("--db").arg(&db).args(["--psp-url", &psp.url()]).arg("--psp-key-file").arg(key_file);
        c.args(["checkout", "--amount", "700", "--currency", "jpy"]);
        c.kill_on_drop(true);
        c
    };
    // First line, trimmed; the rest of the file is ignored.
    std::fs::write(&key_file, format!("  {KEY}  \r\nnot the key\n")).unwrap();
    let r: Run = checkout(&key_file).output().await.unwrap().into();
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["state"], "captured");
    assert_eq!(psp.intents().await.len(), 1);
    // Another key in the file: the PSP refuses it (401) before executing anything, so
    // the checkout ends failed (never charged, record 0013).
    std::fs::write(&key_file, "sk_test_not_this_merchant\n").unwrap();
    let r: Run = checkout(&key_file).output().await.unwrap().into();
    let message = assert_one_error(&r, "psp_auth");
    assert_eq!(r.json()["error"]["state"], "failed", "{}", r.stdout);
    assert!(!message.contains("sk_test_not_this_merchant"), "{message}");
    assert_eq!(psp.intents().await.len(), 1);
}

#[test]
fn a_db_that_is_not_a_ledger_file_is_refused_clearly_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let run_ledger = |db: &std::ffi::OsStr| output(cmd(dir.path()).arg("--db").arg(db).env("PAYDESK_PSP_KEY", KEY).args(["--psp-url", DEAD_PSP, "ledger"]));

    // Another program's SQLite file: refused, byte-for-byte untouched.
    let foreign = dir.path().join("shop.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER); INSERT INTO orders (total) VALUES (12);")
            .unwrap();
    }
    let before = std::fs::read(&foreign).unwrap();
    let listing = list_dir(dir.path());
    let message = assert_one_error(&run_ledger(foreign.as_os_str()), "ledger");
    assert!(message.contains("not a PayDesk ledger") && message.contains("orders"), "{message}");
    assert!(std::fs::read(&foreign).unwrap() == before, "the foreign file is untouched");
    assert_eq!(list_dir(dir.path()), listing);

    // Not a file at all, or no file: what is wrong, in words; nothing created next to it.
    let null_link = dir.path().join("null.db");
    std::os::unix::fs::symlink("/dev/null", &null_link).unwrap();
    let listing = list_dir(dir.path());
    for (db, says) in [
        (null_link.as_os_str(), "not a regular file"),
        (std::ffi::OsStr::new("/dev/null"), "not a regular file"),
        (dir.path().as_os_str(), "directory"),
        (std::ffi::OsStr::new(""), "empty"),
        (std::ffi::OsStr::new(":memory:"), "in-memory"),
    ] {
        let message = assert_one_error(&run_ledger(db), "ledger");
        assert!(message.contains(says), "{db:?}: {message}");
        for noise in ["disk I/O", "not read-only", "sqlite: ", "database error", "SELECT", "PRAGMA"] {
            assert!(!message.contains(noise), "{db:?}: {message}");
        }
        assert_eq!(list_dir(dir.path()), listing, "{db:?}: nothing created in the working directory");
    }
}
