//! Harness for the end-to-end tests: the real mock PSP (library, served on a
//! loopback port) and the real `paydesk-cli` binary as a child process. The
//! PSP side is always checked through its HTTP API.
#![allow(dead_code)]

use mock_psp::{FaultConfig, MockPsp, RunningServer};
use serde_json::Value;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

pub use paydesk_test_kit::KEY;

/// Pages a test walks through a list endpoint before it gives up (100 objects a page).
pub const MAX_LIST_PAGES: usize = 1_000;

pub struct Psp {
    pub server: Option<RunningServer>,
    pub addr: SocketAddr,
    pub db: PathBuf,
    pub lock_timeout: Duration,
    pub retention: Duration,
    /// The port while the PSP is stopped, so that it is still ours when it restarts.
    hold: Option<paydesk_test_kit::PortHold>,
}

impl Psp {
    pub async fn start(dir: &Path) -> Psp {
        Psp::start_with(dir, Duration::from_secs(30), Duration::from_secs(24 * 3600), "127.0.0.1:0".parse().unwrap()).await
    }

    pub async fn start_with(dir: &Path, lock_timeout: Duration, retention: Duration, addr: SocketAddr) -> Psp {
        let db = dir.join("psp.sqlite3");
        let mut p = Psp { server: None, addr, db, lock_timeout, retention, hold: None };
        p.restart_on(addr).await;
        p
    }

    async fn restart_on(&mut self, addr: SocketAddr) {
        let psp = MockPsp::builder()
            .db(self.db.clone())
            .secret_key(KEY)
            .admin(true)
            .seed(7)
            .lock_timeout(self.lock_timeout)
            .retention(self.retention)
            .faults(FaultConfig::none())
            .build()
            .expect("mock psp");
        let server = paydesk_test_kit::serve_on(&psp, addr).await;
        self.addr = server.local_addr();
        self.server = Some(server);
    }

    /// Stop listening: connections are refused (the cable is pulled).
    pub async fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            s.shutdown().await;
            self.hold = Some(paydesk_test_kit::PortHold::take(self.addr).await);
        }
    }

    /// Back on the same port with the same database.
    pub async fn restart(&mut self) {
        let addr = self.addr;
        self.hold = None;
        self.restart_on(addr).await;
    }

    pub fn psp(&self) -> &MockPsp {
        self.server.as_ref().expect("psp running").psp()
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `GET` a PSP API path as the merchant.
    pub async fn get(&self, path: &str) -> Value {
        let r = reqwest::Client::new()
            .get(format!("{}{path}", self.url()))
            .bearer_auth(KEY)
            .send()
            .await
            .expect("PSP GET");
        r.json().await.expect("json")
    }

    pub async fn admin_post(&self, path: &str, form: &[(&str, &str)]) -> Value {
        let r = reqwest::Client::new().post(format!("{}{path}", self.url())).form(form).send().await.expect("admin");
        r.json().await.expect("json")
    }

    pub async fn stats(&self) -> Value {
        reqwest::Client::new().get(format!("{}/__admin/stats", self.url())).send().await.unwrap().json().await.unwrap()
    }

    /// Every object of a Stripe list endpoint (`/v1/payment_intents`, `/v1/events`),
    /// page by page (at most [`MAX_LIST_PAGES`] pages of 100).
    pub async fn list_all(&self, list: &str) -> Vec<Value> {
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..MAX_LIST_PAGES {
            let path = match &after {
                Some(a) => format!("{list}?limit=100&starting_after={a}"),
                None => format!("{list}?limit=100"),
            };
            let page = self.get(&path).await;
            let data = page["data"].as_array().cloned().unwrap_or_default();
            after = data.last().and_then(|d| d["id"].as_str()).map(str::to_string);
            let more = page["has_more"].as_bool().unwrap_or(false);
            all.extend(data);
            if !more || after.is_none() {
                return all;
            }
        }
        panic!("{list} has more than {MAX_LIST_PAGES} pages");
    }

    /// Every PaymentIntent of the merchant, through the list API.
    pub async fn intents(&self) -> Vec<Value> {
        self.list_all("/v1/payment_intents").await
    }

    /// PaymentIntents by `metadata[checkout_key]`.
    pub async fn intents_by_key(&self) -> HashMap<String, Vec<Value>> {
        let mut m: HashMap<String, Vec<Value>> = HashMap::new();
        for pi in self.intents().await {
            if let Some(k) = pi["metadata"]["checkout_key"].as_str() {
                m.entry(k.to_string()).or_default().push(pi.clone());
            }
        }
        m
    }

    pub async fn events(&self) -> Vec<Value> {
        self.list_all("/v1/events").await
    }
}

pub struct Run {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.lines().next().unwrap_or("null"))
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}\nstderr: {}", self.stdout, self.stderr))
    }
    pub fn lines(&self) -> Vec<Value> {
        self.stdout.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
    }
    pub fn killed(&self) -> bool {
        self.signal == Some(9)
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        use std::os::unix::process::ExitStatusExt;
        Run {
            code: o.status.code(),
            signal: o.status.signal(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_paydesk-cli")
}

/// A `paydesk-cli` command with the global flags for this register.
pub fn cli(db: &Path, psp_url: &str, extra_global: &[&str], args: &[&str]) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(bin());
    c.arg("--db").arg(db).arg("--psp-url").arg(psp_url).arg("--psp-key").arg(KEY);
    c.args(["--backoff-min", "50ms", "--backoff-max", "500ms"]);
    c.args(extra_global);
    c.args(args);
    c.env_remove("PAYDESK_CRASH_AT");
    c.kill_on_drop(true);
    c
}

pub async fn run(db: &Path, psp_url: &str, extra_global: &[&str], args: &[&str]) -> Run {
    cli(db, psp_url, extra_global, args).output().await.expect("spawn paydesk-cli").into()
}

/// Runs the CLI with `stdin` written to its standard input and closed (PINs and pairing
/// codes never go in argv).
pub async fn run_stdin(db: &Path, psp_url: &str, args: &[&str], stdin: &str) -> Run {
    use tokio::io::AsyncWriteExt;
    let mut c = cli(db, psp_url, &[], args);
    c.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn paydesk-cli");
    let mut input = child.stdin.take().expect("stdin is piped");
    input.write_all(stdin.as_bytes()).await.expect("write the CLI's stdin");
    drop(input);
    child.wait_with_output().await.expect("wait for paydesk-cli").into()
}

pub async fn run_env(db: &Path, psp_url: &str, extra_global: &[&str], args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut c = cli(db, psp_url, extra_global, args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().await.expect("spawn paydesk-cli").into()
}

pub async fn ledger(db: &Path, psp_url: &str) -> Vec<Value> {
    run(db, psp_url, &[], &["ledger"]).await.lines()
}

/// The invariant: exactly one charge per checkout key at the PSP, and the
/// ledger equals the PSP (ids and states), checked through the PSP's API.
pub async fn assert_ledger_equals_psp(db: &Path, psp: &Psp) {
    let rows = ledger(db, &psp.url()).await;
    let by_key = psp.intents_by_key().await;
    for (k, pis) in &by_key {
        assert_eq!(pis.len(), 1, "checkout key {k} charged {} times at the PSP: {pis:?}", pis.len());
    }
    let mut seen = std::collections::HashSet::new();
    for r in &rows {
        let k = r["checkout_key"].as_str().unwrap();
        seen.insert(k.to_string());
        let state = r["state"].as_str().unwrap();
        match by_key.get(k).map(|v| &v[0]) {
            Some(pi) => {
                assert_eq!(r["psp_payment_id"], pi["id"], "ledger row {k} has the PSP's id");
                assert_eq!(r["amount"], pi["amount"], "amount of {k}");
                let expected: &[&str] = match pi["status"].as_str().unwrap() {
                    "succeeded" => &["captured", "refunding", "partially_refunded", "refunded"],
                    "requires_capture" => &["authorized", "capturing"],
                    "requires_payment_method" => &["failed"],
                    "canceled" => &["canceled"],
                    _ => &["authorizing"],
                };
                assert!(expected.contains(&state), "ledger {k} is {state}, PSP says {}", pi["status"]);
            }
            None => assert!(
                ["failed", "canceled"].contains(&state),
                "ledger {k} is {state} but the PSP has no PaymentIntent for it"
            ),
        }
    }
    for k in by_key.keys() {
        assert!(seen.contains(k), "PSP charged {k} but the ledger does not know it");
    }
}

/// `paydesk-cli checkout` of `minor` US cents through the mock PSP, which must succeed; its JSON.
pub async fn checkout_usd(db: &Path, psp: &Psp, minor: &str) -> Value {
    let r = run(db, &psp.url(), &[], &["checkout", "--amount", minor, "--currency", "usd"]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    r.json()
}

/// `paydesk-cli sync ARGS…` (the back office sync needs no PSP).
pub async fn sync_cmd(db: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut all = vec!["sync"];
    all.extend_from_slice(args);
    run_env(db, "http://127.0.0.1:9", &[], &all, env).await
}

/// `paydesk-cli sync pair URL` with the one-time code on stdin.
pub async fn sync_pair(db: &Path, url: &str, code: &str) -> Run {
    run_stdin(db, "http://127.0.0.1:9", &["sync", "pair", url], &format!("{code}\n")).await
}
