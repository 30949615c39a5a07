//! The real `mock-psp` binary: CLI contract, "listening on" line, SIGTERM, and a
//! SIGKILL between claim and completion followed by restart and retry → one charge.
use crate::common;
use common::*;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Proc {
    child: Child,
    url: String,
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns the binary and waits for its `listening on http://ADDR` line.
fn spawn(args: &[&str], env: &[(&str, &str)]) -> Proc {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mock-psp"));
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn mock-psp");
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("unexpected first line {line:?}")).to_string();
    assert!(url.starts_with("http://127.0.0.1:"));
    Proc { child, url }
}

fn base_args(db: &str) -> Vec<String> {
    ["--addr", "127.0.0.1:0", "--db", db, "--secret-key", SK_A, "--secret-key", SK_B, "--admin"].iter().map(|s| s.to_string()).collect()
}

fn params() -> Vec<(&'static str, &'static str)> {
    vec![("amount", "4200"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true"), ("metadata[checkout_key]", "crash-1")]
}

async fn post(c: &reqwest::Client, url: &str, key: &str) -> Resp {
    into(c.post(format!("{url}/v1/payment_intents")).bearer_auth(SK_A).header("Idempotency-Key", key).form(&params()).send().await.unwrap()).await
}

async fn admin(c: &reqwest::Client, url: &str, path: &str, form: &[(&str, &str)]) -> serde_json::Value {
    into(c.post(format!("{url}{path}")).form(form).send().await.unwrap()).await.json()
}

async fn stats(c: &reqwest::Client, url: &str) -> serde_json::Value {
    into(c.get(format!("{url}/__admin/stats")).send().await.unwrap()).await.json()
}

#[tokio::test]
async fn sigkill_between_claim_and_completion_then_restart_and_retry_charges_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("psp.sqlite3");
    let db = db.to_str().unwrap();
    let c = client();
    // 1. Every request is slow: it claims the key, then sits before executing.
    let mut args = base_args(db);
    args.extend(["--slow", "1", "--slow-ms", "600000", "--lock-timeout", "30s"].map(String::from));
    let mut proc1 = spawn(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let url = proc1.url.clone();
    let c2 = c.clone();
    let u2 = url.clone();
    let inflight = tokio::spawn(async move {
        c2.post(format!("{u2}/v1/payment_intents")).bearer_auth(SK_A).header("Idempotency-Key", "crash-key").form(&params()).send().await
    });
    // The slow fault starts right after the claim commit: wait for that signal.
    loop {
        if stats(&c, &url).await["faults"]["slow"].as_u64().unwrap() >= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // 2. SIGKILL mid-execution.
    proc1.child.kill().unwrap();
    proc1.child.wait().unwrap();
    assert!(inflight.await.unwrap().is_err(), "the client saw no answer (outcome unknown)");
    // 3. Restart on the same database, no faults.
    let proc2 = spawn(&base_args(db).iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let url = proc2.url.clone();
    // The dead claim still holds its lock: 409 + Retry-After.
    let r = post(&c, &url, "crash-key").await;
    assert_eq!(r.status, 409);
    assert!(r.header("retry-after").is_some());
    // After the lock timeout (test clock), the retry re-drives it.
    admin(&c, &url, "/__admin/clock/advance", &[("seconds", "31")]).await;
    let r = post(&c, &url, "crash-key").await;
    assert_eq!(r.status, 200, "{:?}", r.json());
    assert!(!r.replayed());
    let again = post(&c, &url, "crash-key").await;
    assert!(again.replayed());
    assert_eq!(again.body, r.body);
    let list = into(c.get(format!("{url}/v1/payment_intents")).bearer_auth(SK_A).send().await.unwrap()).await.json();
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "exactly one PaymentIntent");
    let s = stats(&c, &url).await;
    assert_eq!(s["redrives"], 1);
    assert_eq!(s["charges"], 1);
    drop(proc2);
}

#[tokio::test]
async fn crash_after_commit_then_restart_retry_replays() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("psp.sqlite3");
    let db = db.to_str().unwrap();
    let c = client();
    let mut proc1 = spawn(&base_args(db).iter().map(String::as_str).collect::<Vec<_>>(), &[("MOCK_PSP_CRASH_POINT", "after_execute")]);
    let err = c.post(format!("{}/v1/payment_intents", proc1.url)).bearer_auth(SK_A).header("Idempotency-Key", "k2").form(&params()).send().await;
    assert!(err.is_err());
    let status = proc1.child.wait().unwrap();
    assert!(!status.success());
    let proc2 = spawn(&base_args(db).iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let r = post(&c, &proc2.url, "k2").await;
    assert_eq!(r.status, 200);
    assert!(r.replayed(), "the charge committed before the crash is replayed, not repeated");
    let list = into(c.get(format!("{}/v1/payment_intents", proc2.url)).bearer_auth(SK_A).send().await.unwrap()).await.json();
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn sigterm_stops_cleanly_and_state_survives() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("psp.sqlite3");
    let db = db.to_str().unwrap();
    let c = client();
    let mut proc1 = spawn(&base_args(db).iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let first = post(&c, &proc1.url, "t1").await;
    assert_eq!(first.status, 200);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(proc1.child.id() as i32), nix::sys::signal::Signal::SIGTERM).unwrap();
    let status = proc1.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let proc2 = spawn(&base_args(db).iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let again = post(&c, &proc2.url, "t1").await;
    assert!(again.replayed());
    assert_eq!(again.body, first.body);
}

#[tokio::test]
async fn full_cli_contract_is_accepted() {
    let c = client();
    let p = spawn(
        &[
            "--addr", "127.0.0.1:0", "--db", ":memory:", "--secret-key", "sk_test_a", "--secret-key", "sk_test_b",
            "--retention", "24h", "--lock-timeout", "30s", "--faults", "flaky", "--drop-request", "0",
            "--drop-response", "0", "--slow", "0", "--slow-ms", "10", "--seed", "9", "--admin",
        ],
        &[],
    );
    let f = into(c.get(format!("{}/__admin/faults", p.url)).send().await.unwrap()).await.json();
    assert_eq!(f["config"]["drop_request"], 0.0);
    assert_eq!(f["config"]["drop_response"], 0.0);
    assert_eq!(f["config"]["slow_ms"], 10);
    assert_eq!(f["config"]["transient_503"], mock_psp::FaultConfig::flaky().transient_503);
    let r = into(c.get(format!("{}/v1/events", p.url)).bearer_auth("sk_test_b").send().await.unwrap()).await;
    assert!(r.status == 200 || r.status == 503 || r.status == 429);
    // Bad invocations fail fast with a message.
    for bad in [
        vec!["--db", ":memory:"],
        vec!["--db", ":memory:", "--secret-key", "a", "--faults", "wild"],
        vec!["--db", ":memory:", "--secret-key", "a", "--drop-request", "1.5"],
        vec!["--db", ":memory:", "--secret-key", "a", "--retention", "forever"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mock-psp")).args(&bad).output().unwrap();
        assert!(!out.status.success(), "{bad:?}");
        assert!(!out.stderr.is_empty());
    }
    // A duration without a unit is refused with a message naming the fix (never
    // silently read as seconds).
    for flag in ["--retention", "--lock-timeout"] {
        let out = Command::new(env!("CARGO_BIN_EXE_mock-psp")).args(["--db", ":memory:", "--secret-key", "a", flag, "24"]).output().unwrap();
        assert!(!out.status.success(), "{flag} 24");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no unit") && err.contains("24s"), "{flag} 24: {err}");
    }
}

/// `mock-psp bench` runs end to end and prints every figure the issue asks for, each a
/// finite number (a smoke test of the benchmark code: it asserts nothing about speed).
#[test]
fn the_bench_subcommand_runs_and_prints_every_figure() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mock-psp"))
        .args(["bench", "--keys", "2000", "--seconds", "0.2", "--replays", "20", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "bench failed: {}\n{text}", String::from_utf8_lossy(&out.stderr));
    for needle in [
        "raw SQLite, 1 insert per transaction:",
        "ratios: group@16 / naive@16 = ",
        "idempotency on / off (both group commit): ",
        "fsync-free ceiling",
        "replay latency over HTTP with 2000 stored keys",
        "expired keys in time-bounded chunks",
        "worst stall",
        "summary: group@16 / naive@16 = ",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    for path in ["naive (claim txn + completion txn)", "group commit (one writer, batched)", "idempotency layer off (group commit)"] {
        for clients in [" 1 clients:", "16 clients:"] {
            assert!(text.lines().any(|l| l.starts_with(path) && l.contains(clients) && l.contains("POSTs/s")), "no {path} {clients} line in:\n{text}");
        }
    }
    // The headline ratio is a real, positive number (not NaN or inf from an empty run).
    let ratio: f64 = text.split("summary: group@16 / naive@16 = ").nth(1).and_then(|r| r.split('x').next()).and_then(|v| v.trim().parse().ok()).unwrap_or(f64::NAN);
    assert!(ratio.is_finite() && ratio > 0.0, "ratio {ratio} in:\n{text}");
    // Bad arguments are refused with a message, not run.
    for bad in [["--seconds", "0"], ["--keys", "0"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_mock-psp")).arg("bench").args(bad).output().unwrap();
        assert!(!out.status.success(), "{bad:?}");
        assert!(!out.stderr.is_empty(), "{bad:?}");
    }
}

/// Secret keys from the environment and from a key file (not only argv, which anyone
/// who can list processes can read), and never echoed: not on a refusal, not in the
/// output of a run.
#[tokio::test]
async fn secret_keys_from_the_environment_and_a_key_file_and_never_printed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("keys");
    std::fs::write(&file, "# merchant accounts\nsk_test_fromfile_1\n\nsk_test_fromfile_2\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let c = client();
    let mut p = spawn(&["--addr", "127.0.0.1:0", "--db", ":memory:", "--secret-key-file", file.to_str().unwrap()], &[("MOCK_PSP_SECRET_KEYS", "sk_test_fromenv_1,sk_test_fromenv_2")]);
    for sk in ["sk_test_fromfile_1", "sk_test_fromfile_2", "sk_test_fromenv_1", "sk_test_fromenv_2"] {
        let r = into(c.get(format!("{}/v1/events", p.url)).bearer_auth(sk).send().await.unwrap()).await;
        assert_eq!(r.status, 200, "{sk}");
    }
    let r = into(c.get(format!("{}/v1/events", p.url)).bearer_auth("sk_test_fromfile_3").send().await.unwrap()).await;
    assert_eq!(r.status, 401);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(p.child.id() as i32), nix::sys::signal::Signal::SIGTERM).unwrap();
    let out = std::mem::replace(&mut p.child, Command::new("true").spawn().unwrap()).wait_with_output().unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!printed.contains("fromfile") && !printed.contains("fromenv"), "a key was printed: {printed}");
    // A key file others can read is refused, naming the fix and not the keys.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mock-psp")).args(["--db", ":memory:", "--secret-key-file", file.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("chmod 600") && !err.contains("fromfile"), "{err}");
    // A malformed key in the environment: named by position, not printed.
    let out = Command::new(env!("CARGO_BIN_EXE_mock-psp")).args(["--db", ":memory:"]).env("MOCK_PSP_SECRET_KEYS", "sk_test_ok,sk test secret").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("MOCK_PSP_SECRET_KEYS entry 2") && !err.contains("sk test"), "{err}");
}

/// `mock-psp --db` on a PayDesk-ledger-like SQLite file exits with a clear message and
/// leaves the file as it was.
#[test]
fn the_binary_refuses_a_foreign_database_and_leaves_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("CREATE TABLE payments (id INTEGER PRIMARY KEY); PRAGMA user_version = 3;").unwrap();
    drop(c);
    let before = std::fs::read(&db).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mock-psp")).args(["--addr", "127.0.0.1:0", "--secret-key", SK_A, "--db"]).arg(&db).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not a mock-psp store") && err.contains("payments"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("ledger.db")], "no journal left beside it");
}
