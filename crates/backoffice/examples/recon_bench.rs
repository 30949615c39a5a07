//! Reconciliation benchmark: time and peak memory of one run over N PSP charges, from ONE
//! run on this machine (record 0042), not a timed test.
//!
//!     cargo build --release -p mock-psp
//!     cargo run --release -p paydesk-backoffice --example recon_bench [-- N]   (default 100,000)
//!
//! The real mock PSP binary (its own process, SQLite file) holds N charged PaymentIntents,
//! made through its HTTP API with 32 requests in flight; the back office (private
//! PostgreSQL, the real service on loopback, in this process) holds the register's
//! records of the same payments, written by COPY into the projection (the ingest path has
//! its own benchmark). One charge in 1,000 has no register record, one record in 1,000 has
//! another amount, and 100 records have no charge: the run must find exactly those.
//!
//! Printed: the PSP's write rate (setup), a bare read of every page (the floor: HTTP and
//! JSON only; the faster of a read before and one after the run), the reconciliation run, their ratio, and this process's peak RSS during the
//! run (VmHWM after resetting it through /proc/self/clear_refs) with bytes per charge.
use futures_util::SinkExt;
use paydesk_backoffice::client::OwnerClient;
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_backoffice::state::Limits;
use paydesk_backoffice::{build, serve, Config};
use serde_json::json;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/mem.rs"]
mod mem;
use mem::{peak_rss, reset_peak_rss};

const PSP_KEY: &str = "sk_test_recon_bench";
const IN_FLIGHT: usize = 32;

fn key(i: usize) -> String {
    format!("bench-co-{i:07}")
}

/// Peak resident memory of this process since the last reset, in bytes.
fn mock_psp() -> (std::process::Child, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let bin = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().join("mock-psp");
    assert!(bin.exists(), "{} missing: cargo build --release -p mock-psp first", bin.display());
    let mut child = Command::new(&bin)
        .args(["--addr", "127.0.0.1:0", "--faults", "none", "--db"])
        .arg(dir.path().join("psp.sqlite3"))
        .env("MOCK_PSP_SECRET_KEYS", PSP_KEY)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start mock-psp");
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("mock-psp said {line:?}")).to_string();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (child, url, dir)
}

/// Charges 1,000 + i yen for checkout key i, 32 requests at a time.
async fn charge_all(url: &str, n: usize) -> Duration {
    let http = reqwest::Client::new();
    let t = Instant::now();
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let (http, url, next) = (http.clone(), url.to_string(), next.clone());
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= n {
                        return;
                    }
                    let form = [
                        ("amount", (1_000 + i % 5_000).to_string()),
                        ("currency", "jpy".into()),
                        ("payment_method", "pm_card_visa".into()),
                        ("confirm", "true".into()),
                        ("metadata[checkout_key]", key(i)),
                    ];
                    let r = http.post(format!("{url}/v1/payment_intents")).bearer_auth(PSP_KEY).header("Idempotency-Key", key(i)).form(&form).send().await.unwrap();
                    assert!(r.status().is_success(), "charge {i}: {}", r.status());
                }
            })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
    t.elapsed()
}

/// Every page of the PSP's PaymentIntents, nothing else: the floor of a run's reading.
async fn read_all(url: &str) -> (Duration, usize) {
    let http = reqwest::Client::new();
    let t = Instant::now();
    let (mut after, mut n) = (None::<String>, 0);
    loop {
        let mut q = vec![("limit", "100".to_string())];
        if let Some(a) = &after {
            q.push(("starting_after", a.clone()));
        }
        let page: serde_json::Value = http.get(format!("{url}/v1/payment_intents")).query(&q).bearer_auth(PSP_KEY).send().await.unwrap().json().await.unwrap();
        let data = page["data"].as_array().unwrap();
        n += data.len();
        after = data.last().map(|o| o["id"].as_str().unwrap().to_string());
        if !page["has_more"].as_bool().unwrap() || after.is_none() {
            return (t.elapsed(), n);
        }
    }
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let (mut psp, url, _psp_dir) = mock_psp();
    let t_charge = charge_all(&url, n).await;

    let cluster = tokio::task::spawn_blocking(|| Cluster::start(ClusterOptions::default())).await.unwrap().expect("private PostgreSQL");
    cluster.create_db("paydesk").await.unwrap();
    let token = "bench-owner-token-0123456789";
    let st = build(&Config { database: cluster.conn_string("paydesk"), admin_token: token.into(), limits: Limits::default(), behind_tls: false }).await.unwrap();
    let running = serve(st, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let owner = OwnerClient::new(&running.url(), token);
    let store = owner.create_store("bench").await.unwrap();
    let code = owner.pairing_code(&store, "till 1").await.unwrap();
    let reg = paydesk_backoffice::client::RegisterClient::pair(&owner.base, &code, "bench").await.unwrap();
    owner.put(&format!("/admin/stores/{store}/psp"), &json!({"api_base": url, "secret_key": PSP_KEY})).await.unwrap();

    // The register's records: every 1,000th charge unrecorded, every 1,000th + 1 with
    // another amount, and 100 records of payments the PSP never charged.
    let (db, conn) = tokio_postgres::connect(&cluster.conn_string("paydesk"), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let (mut unrecorded, mut differs) = (0u64, 0u64);
    let mut text = String::new();
    let flush = |text: String| {
        let db = &db;
        async move {
            let sink = db
                .copy_in("COPY payments (store_id, checkout_key, register_id, amount, currency, state, created_at_ms, updated_at_ms) FROM STDIN")
                .await
                .unwrap();
            let mut sink = Box::pin(sink);
            sink.send(bytes::Bytes::from(text)).await.unwrap();
            sink.as_mut().finish().await.unwrap();
        }
    };
    let register = &reg.paired.register_id;
    for i in 0..n + 100 {
        let amount = 1_000 + i % 5_000;
        let (k, amount) = match i {
            i if i >= n => (format!("bench-never-{i}"), amount),
            i if i % 1_000 == 0 => {
                unrecorded += 1;
                continue;
            }
            i if i % 1_000 == 1 => {
                differs += 1;
                (key(i), amount + 1)
            }
            i => (key(i), amount),
        };
        text.push_str(&format!("{store}\t{k}\t{register}\t{amount}\tjpy\tcaptured\t0\t0\n"));
        if text.len() > 4 << 20 {
            flush(std::mem::take(&mut text)).await;
        }
    }
    flush(text).await;

    let (t_read, read) = read_all(&url).await;
    assert_eq!(read, n);
    reset_peak_rss();
    let before = peak_rss();
    let t = Instant::now();
    let summary = owner.post(&format!("/admin/stores/{store}/reconcile"), &json!({})).await.unwrap();
    let t_recon = t.elapsed();
    let peak = peak_rss();
    // Read again: the first read warmed the PSP's page cache for the run; the floor is
    // the faster of the two.
    let (t_read2, _) = read_all(&url).await;
    let t_read = t_read.min(t_read2);
    assert_eq!(summary["psp_charges"].as_u64(), Some(n as u64), "{summary}");
    assert_eq!(summary["exceptions"].as_u64(), Some(unrecorded + differs + 100), "{summary}");

    println!("reconciliation of {n} PSP charges (one run; mock PSP in its own process, PostgreSQL fsync on)");
    println!("  setup: charges made at the PSP            {:>9.0} /s ({IN_FLIGHT} in flight)", n as f64 / t_charge.as_secs_f64());
    println!("  bare read of every intent page            {:>9.1} s  ({:.0} intents/s)", t_read.as_secs_f64(), n as f64 / t_read.as_secs_f64());
    println!("  reconciliation run (read + match + write) {:>9.1} s  ({:.0} charges/s)", t_recon.as_secs_f64(), n as f64 / t_recon.as_secs_f64());
    println!("  ratio run / bare read                     {:>9.2}x", t_recon.as_secs_f64() / t_read.as_secs_f64());
    println!("  exceptions found                          {:>9}  ({unrecorded} unrecorded, {differs} amounts differ, 100 never charged)", summary["exceptions"]);
    println!("  peak RSS of the back office process       {:>9.0} MiB  (was {:.0} MiB before the run; {:.0} bytes per charge)",
        peak as f64 / 1048576.0, before as f64 / 1048576.0, peak.saturating_sub(before) as f64 / n as f64);
    running.shutdown().await;
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
    let _ = psp.kill();
    let _ = psp.wait();
}
