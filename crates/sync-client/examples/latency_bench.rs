//! Checkout latency with the back office sync on and off: figures from ONE run on this
//! machine (design §9.12), not a timed test.
//!
//!     cargo run --release -p paydesk-sync --example latency_bench [-- N]
//!
//! The real register engine (`paydesk-register`'s `Engine::checkout_amount`: key
//! committed, PSP request, result committed; WAL with synchronous=FULL) against the real
//! `mock-psp` binary on loopback, one checkout at a time as a cashier makes them. N
//! checkouts with no sync, and N with the real sync loop (`SyncLoop`, its own ledger
//! connection and task, as the app runs it) sending to the real back office on a
//! private PostgreSQL (default durability), poked after every checkout so a round
//! runs right behind each sale — the most the loop ever contends. The two modes
//! alternate in blocks of 50, so warm-up and drift hit both alike. The back office
//! runs on a runtime of its own thread (it is another machine in a store).
use paydesk_backoffice::client::OwnerClient;
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_backoffice::state::Limits;
use paydesk_backoffice::{build, serve, Config};
use paydesk_ledger::{CheckoutOptions, Currency, Ledger, Money};
use paydesk_register::{CheckoutOutcome, Engine, EngineConfig, HttpTransport, OsRandom, SystemClock};
use paydesk_sync::store::SyncState;
use paydesk_sync::{Backoff, SyncLoop};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BLOCK: usize = 50;
const PSP_KEY: &str = "sk_test_latency_bench";
const ADMIN: &str = "owner-token-latency-bench-0000";

/// The mock PSP binary beside this example's profile dir (`make bench` builds it first).
fn start_psp() -> (Child, String) {
    let exe = std::env::current_exe().expect("current exe");
    let profile = exe.parent().and_then(Path::parent).expect("profile dir").to_path_buf();
    let bin: PathBuf = profile.join("mock-psp");
    assert!(bin.exists(), "{} is missing: cargo build --release -p mock-psp", bin.display());
    let mut child = Command::new(bin)
        .args(["--addr", "127.0.0.1:0", "--db", ":memory:", "--faults", "none"])
        .env("MOCK_PSP_SECRET_KEYS", PSP_KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mock-psp");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("mock-psp's first line");
    let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("mock-psp said {line:?}")).to_string();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (child, url)
}

/// A private cluster and the back office on a runtime of their own; its URL. The thread
/// keeps both alive until the process ends.
fn start_back_office() -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        rt.block_on(async move {
            let cluster = tokio::task::spawn_blocking(|| Cluster::start(ClusterOptions::default())).await.unwrap().expect("private PostgreSQL");
            cluster.create_db("paydesk").await.expect("create database");
            let st = build(&Config { database: cluster.conn_string("paydesk"), admin_token: ADMIN.into(), limits: Limits::default() }).await.expect("build");
            let running = serve(st, "127.0.0.1:0".parse().unwrap()).await.expect("serve");
            tx.send(running.url()).expect("send url");
            std::future::pending::<()>().await;
            drop((running, cluster));
        });
    });
    rx.recv().expect("back office url")
}

struct Stats {
    p50: f64,
    p99: f64,
    mean: f64,
}

fn stats(mut v: Vec<f64>) -> Stats {
    v.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    Stats { p50: pct(0.5), p99: pct(0.99), mean: v.iter().sum::<f64>() / v.len() as f64 }
}

async fn checkout(engine: &Engine) -> f64 {
    let t = Instant::now();
    let r = engine.checkout_amount(Money::new(1250, Currency::Usd), CheckoutOptions::card("pm_card_visa")).await.expect("checkout");
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(r.outcome, CheckoutOutcome::Paid, "{r:?}");
    ms
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(500).max(BLOCK);
    let (mut psp, psp_url) = start_psp();
    let bo_url = start_back_office();
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.db");
    let state_path = SyncState::path_in(dir.path());

    let owner = OwnerClient::new(&bo_url, ADMIN);
    let store = owner.create_store("Bench St").await.expect("store");
    let code = owner.pairing_code(&store, "Till 1").await.expect("code");
    let (pairing, token) = paydesk_sync::run::pair(&bo_url, &code, "bench").await.expect("pair");
    SyncState { pairing: Some(pairing), ..Default::default() }.save(&state_path).expect("sync.json");

    let transport = Arc::new(HttpTransport::new(&psp_url, PSP_KEY, Duration::from_secs(2)).expect("transport"));
    let engine = Engine::new(Ledger::open(&db).expect("ledger"), transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default());
    for _ in 0..20 {
        checkout(&engine).await; // warm-up: connections, SQLite pages
    }

    let (mut off, mut on) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut rounds = 0u64;
    let acked_before = Ledger::open_reader(&db).expect("reader").outbox_stats().expect("stats").acked_through;
    while off.len() < n || on.len() < n {
        for _ in 0..BLOCK.min(n - off.len()) {
            off.push(checkout(&engine).await);
        }
        if on.len() >= n {
            continue;
        }
        let sync = SyncLoop::new(Ledger::open(&db).expect("sync ledger"), &state_path, token.clone(), "bench").expect("sync loop");
        let counter = sync.subscribe_rounds();
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let poke = Arc::new(tokio::sync::Notify::new());
        let task = tokio::spawn(sync.run(Duration::from_millis(100), Backoff::default(), stop, poke.clone()));
        for _ in 0..BLOCK.min(n - on.len()) {
            on.push(checkout(&engine).await);
            poke.notify_one();
        }
        let _ = stop_tx.send(true);
        task.await.expect("sync task");
        // rounds that ran beside this block (one may have finished just after its last sale)
        rounds += *counter.borrow();
    }
    // Everything reached the back office (one last round drains what the last block left).
    let synced_beside = Ledger::open_reader(&db).expect("reader").outbox_stats().expect("stats").acked_through - acked_before;
    let mut sync = SyncLoop::new(Ledger::open(&db).expect("sync ledger"), &state_path, token, "bench").expect("sync loop");
    sync.round().await.expect("final round");
    let left = Ledger::open_reader(&db).expect("reader").outbox_stats().expect("stats");
    let _ = psp.kill();
    let _ = psp.wait();

    let (a, b) = (stats(off), stats(on));
    let line = serde_json::json!({
        "checkouts_per_mode": n, "block": BLOCK, "sync_rounds_during_on": rounds, "rows_synced_during_on": synced_beside,
        "sync_off": {"p50_ms": a.p50, "p99_ms": a.p99, "mean_ms": a.mean},
        "sync_on": {"p50_ms": b.p50, "p99_ms": b.p99, "mean_ms": b.mean},
        "ratio_on_off": {"p50": b.p50 / a.p50, "p99": b.p99 / a.p99, "mean": b.mean / a.mean},
        "outbox_after_final_round": {"queued": left.queued, "acked_through": left.acked_through},
    });
    println!("{line}");
    eprintln!(
        "{n} checkouts each | sync off: p50 {:.2} ms p99 {:.2} ms mean {:.2} ms | sync on ({rounds} rounds, {synced_beside} rows sent): p50 {:.2} ms p99 {:.2} ms mean {:.2} ms | on/off: p50 x{:.3} p99 x{:.3} mean x{:.3}",
        a.p50, a.p99, a.mean, b.p50, b.p99, b.mean, b.p50 / a.p50, b.p99 / a.p99, b.mean / a.mean
    );
}
