#![allow(dead_code)]
//! The tests' harness: a private PostgreSQL cluster per test (nextest runs each test in
//! its own process), a database migrated by the real start-up path, the service on a
//! loopback port, and owner/register clients speaking real HTTP.
use paydesk_backoffice::client::{OwnerClient, RegisterClient};
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_backoffice::state::Limits;
use paydesk_backoffice::{build, serve, Config, Running};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};


pub const ADMIN_TOKEN: &str = "owner-token-for-tests-0123456789";

pub struct Harness {
    pub running: Running,
    pub owner: OwnerClient,
    pub url: String,
    pub cluster: Cluster,
}

pub fn start_cluster() -> Cluster {
    Cluster::start(ClusterOptions { fast_unsafe: true }).unwrap_or_else(|e| panic!("private PostgreSQL: {e}"))
}

impl Harness {
    /// The back office with its default limits, except that its background retry of
    /// refunds owed back waits an hour: a test that counts a refund's attempts counts only
    /// its own (the retry's own test sets it short).
    pub async fn start() -> Harness {
        let mut limits = Limits::default();
        limits.owed_retry.interval = std::time::Duration::from_secs(3600);
        Self::with_limits(limits).await
    }

    pub async fn with_limits(limits: Limits) -> Harness {
        Self::with_config(limits, false).await
    }

    /// `behind_tls`: as `serve --behind-tls` (the session cookie is Secure).
    pub async fn with_config(limits: Limits, behind_tls: bool) -> Harness {
        let cluster = tokio::task::spawn_blocking(start_cluster).await.unwrap();
        cluster.create_db("paydesk").await.expect("create database");
        let st = build(&Config { database: cluster.conn_string("paydesk"), admin_token: ADMIN_TOKEN.into(), limits, behind_tls }).await.expect("build");
        let running = serve(st, "127.0.0.1:0".parse().unwrap()).await.expect("serve");
        let url = running.url();
        Harness { owner: OwnerClient::new(&url, ADMIN_TOKEN), url, running, cluster }
    }

    /// A direct connection to the database, to look at what the service stored.
    pub async fn db(&self) -> tokio_postgres::Client {
        let (c, conn) = tokio_postgres::connect(&self.cluster.conn_string("paydesk"), tokio_postgres::NoTls).await.expect("connect");
        tokio::spawn(conn);
        c
    }

    pub async fn count(&self, sql: &str) -> i64 {
        self.db().await.query_one(sql, &[]).await.unwrap_or_else(|e| panic!("{sql}: {e}")).get(0)
    }

    /// Every payment the service holds as (checkout key, amount, state, PSP id), by key:
    /// what a register's own table is compared with.
    pub async fn payment_rows(&self) -> Vec<(String, i64, String, Option<String>)> {
        let rows = self.db().await.query("SELECT checkout_key, amount, state, psp_id FROM payments ORDER BY checkout_key", &[]).await.expect("payments");
        rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect()
    }

    /// A new store and one paired register in it.
    pub async fn store_with_register(&self, name: &str) -> (String, RegisterClient) {
        let store = self.owner.create_store(name).await.expect("create store");
        let code = self.owner.pairing_code(&store, &format!("{name} register")).await.expect("pairing code");
        let reg = RegisterClient::pair(&self.url, &code, "0.1.0").await.expect("pair");
        (store, reg)
    }

    pub async fn register_in(&self, store: &str, name: &str) -> RegisterClient {
        let code = self.owner.pairing_code(store, name).await.expect("pairing code");
        RegisterClient::pair(&self.url, &code, "0.1.0").await.expect("pair")
    }
}

/// A binary of the workspace, as `make test` built it (`paydesk_test_kit::workspace_binary`).
pub fn build_binary(bin: &str) -> PathBuf {
    paydesk_test_kit::workspace_binary(bin)
}

/// The real mock PSP binary on a free loopback port with its own SQLite file; stopped
/// (SIGTERM, then waited for) on drop.
pub struct PspProcess {
    pub url: String,
    child: Child,
    _dir: tempfile::TempDir,
}

pub const PSP_KEY: &str = "sk_test_backoffice";

impl PspProcess {
    pub fn start() -> PspProcess {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("psp.sqlite3");
        let mut child = Command::new(build_binary("mock-psp"))
            .args(["--addr", "127.0.0.1:0", "--db"])
            .arg(&db)
            .args(["--faults", "none"])
            .env("MOCK_PSP_SECRET_KEYS", PSP_KEY)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mock-psp");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).expect("mock-psp's first line");
        let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("mock-psp said {line:?}")).to_string();
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        PspProcess { url, child, _dir: dir }
    }

    /// A PaymentIntent charged (confirmed with the test card) with this metadata.
    pub async fn charge(&self, key: &str, amount: i64, currency: &str, metadata: &[(&str, &str)]) -> serde_json::Value {
        let amount = amount.to_string();
        let mut form: Vec<(String, String)> = vec![
            ("amount".into(), amount),
            ("currency".into(), currency.into()),
            ("payment_method".into(), "pm_card_visa".into()),
            ("confirm".into(), "true".into()),
        ];
        form.extend(metadata.iter().map(|(k, v)| (format!("metadata[{k}]"), v.to_string())));
        let r = reqwest::Client::new().post(format!("{}/v1/payment_intents", self.url)).bearer_auth(PSP_KEY).header("Idempotency-Key", key).form(&form).send().await.unwrap();
        assert!(r.status().is_success(), "charge: {}", r.status());
        r.json().await.unwrap()
    }

    pub async fn refund(&self, key: &str, pi: &str, amount: i64, refund_key: Option<&str>) -> serde_json::Value {
        let mut form: Vec<(String, String)> = vec![("payment_intent".into(), pi.into()), ("amount".into(), amount.to_string())];
        if let Some(rk) = refund_key {
            form.push(("metadata[refund_key]".into(), rk.into()));
        }
        let r = reqwest::Client::new().post(format!("{}/v1/refunds", self.url)).bearer_auth(PSP_KEY).header("Idempotency-Key", key).form(&form).send().await.unwrap();
        assert!(r.status().is_success(), "refund: {}", r.status());
        r.json().await.unwrap()
    }
}

impl Drop for PspProcess {
    fn drop(&mut self) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}
