//! Checkout latency with the back office sync on and off: figures from ONE run on this
//! machine (record 0045, docs/scaling.md), not a timed test.
//!
//!     cargo run --release -p paydesk-sync --example latency_bench [-- CHECKOUTS_PER_MODE]
//!
//! The real register engine (`paydesk-register`'s `Engine::checkout_amount`: key
//! committed, PSP request, result committed; WAL with synchronous=FULL) against the real
//! `mock-psp` binary on loopback, one checkout at a time as a cashier makes them. The
//! modes alternate in blocks of 50 checkouts: "off" (no sync) and "on" (the real sync
//! loop started exactly as the app starts it — `background::spawn`, its own ledger
//! connection, thread and lower priority — sending to the real back office on a private
//! PostgreSQL with default durability, and poked after every checkout so that a round
//! runs right behind each sale: the most it ever contends; the app itself waits 5 s
//! between rounds and never pokes).
//!
//! "Beyond noise" is decided by a permutation test on the blocks: the statistic is the
//! ratio on/off of the mean of the blocks' medians (and of the blocks' means, which
//! carry the tail); relabelling the blocks at random 20,000 times gives how large that
//! ratio gets when the labels mean nothing — the noise of this machine at this moment.
//! p < 0.05 is "a difference beyond noise".
//!
//! Two phases, the same register side in both:
//! 1. "same machine": the back office and its PostgreSQL run on the register's two
//!    cores at normal priority — a worst case no store has.
//! 2. "back office elsewhere": they are reniced to 19, standing in for the other host
//!    they are in a store (the register's CPU goes to the register first).
use paydesk_test_kit::bench_stats::{mean, percentile, permutation};
use paydesk_backoffice::client::OwnerClient;
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_backoffice::state::Limits;
use paydesk_backoffice::{build, serve, Config};
use paydesk_ledger::{CheckoutOptions, Ledger};
use paydesk_domain::{Currency, Money};
use paydesk_register::{CheckoutOutcome, Engine, EngineConfig, HttpTransport, OsRandom, SystemClock};
use paydesk_sync::store::SyncState;
use paydesk_sync::{background, Backoff, SyncLoop};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BLOCK: usize = 50;
const RELABELINGS: usize = 20_000;
const PSP_KEY: &str = "sk_test_latency_bench";
const ADMIN: &str = "owner-token-latency-bench-0000";
/// The back office's runtime threads are named so phase 2 can find them.
const BO_THREAD: &str = "bench-bo"; // /proc comm keeps 15 bytes

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

/// A private cluster and the back office on a runtime of their own; its URL and the
/// postmaster's pid (the leader of PostgreSQL's process group). The thread keeps both
/// alive until the process ends.
fn start_back_office() -> (String, u32) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).thread_name(BO_THREAD).enable_all().build().expect("runtime");
        rt.block_on(async move {
            let cluster = tokio::task::spawn_blocking(|| Cluster::start(ClusterOptions::default())).await.unwrap().expect("private PostgreSQL");
            cluster.create_db("paydesk").await.expect("create database");
            let st = build(&Config { database: cluster.conn_string("paydesk"), admin_token: ADMIN.into(), limits: Limits::default(), behind_tls: false }).await.expect("build");
            let running = serve(st, "127.0.0.1:0".parse().unwrap()).await.expect("serve");
            tx.send((running.url(), cluster.pid().expect("postmaster pid"))).expect("send url");
            std::future::pending::<()>().await;
            drop((running, cluster));
        });
    });
    rx.recv().expect("back office url")
}

/// Phase 2: the back office's threads and PostgreSQL's whole process group at nice 19.
/// Threads and backends started later inherit it (they are forked or spawned by these).
fn renice_back_office(postmaster: u32) -> usize {
    let mut threads = 0;
    for task in std::fs::read_dir("/proc/self/task").expect("/proc/self/task").flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        // `thread_name` also names the runtime's blocking threads.
        if comm.trim() == BO_THREAD {
            let tid: libc::id_t = task.file_name().to_string_lossy().parse().expect("tid");
            // SAFETY: no pointers.
            assert_eq!(unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, 19) }, 0, "renice thread {tid}");
            threads += 1;
        }
    }
    assert!(threads > 0, "no back office thread found by name");
    // SAFETY: no pointers; the postmaster leads its own process group.
    assert_eq!(unsafe { libc::setpriority(libc::PRIO_PGRP, postmaster as libc::id_t, 19) }, 0, "renice PostgreSQL");
    threads
}

async fn checkout(engine: &Engine) -> f64 {
    let t = Instant::now();
    let r = engine.checkout_amount(Money::new(1250, Currency::Usd), CheckoutOptions::card("pm_card_visa")).await.expect("checkout");
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(r.outcome, CheckoutOutcome::Paid, "{r:?}");
    ms
}

struct Phase {
    name: &'static str,
    off: Vec<Vec<f64>>,
    on: Vec<Vec<f64>>,
    rounds: u64,
    rows_synced: u64,
}

async fn run_phase(name: &'static str, n: usize, engine: &Engine, db: &Path, state_path: &Path, token: &str) -> Phase {
    let mut p = Phase { name, off: Vec::new(), on: Vec::new(), rounds: 0, rows_synced: 0 };
    let acked = || Ledger::open_reader(db).expect("reader").sync_log().outbox_stats().expect("stats").acked_through;
    for i in 0..2 * (n / BLOCK) {
        // off, on, on, off, off, on, ...: neither mode always comes first, so what follows
        // from order (a warmer cache, a fuller WAL) falls on both alike.
        if (i % 4 == 0) || (i % 4 == 3) {
            let mut block = Vec::with_capacity(BLOCK);
            for _ in 0..BLOCK {
                block.push(checkout(engine).await);
            }
            p.off.push(block);
            continue;
        }
        let before = acked();
        let sync = SyncLoop::new(Ledger::open(db).expect("sync ledger"), state_path, token.to_string(), "bench").expect("sync loop");
        let counter = sync.subscribe_rounds();
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let poke = Arc::new(tokio::sync::Notify::new());
        let thread = background::spawn(sync, Duration::from_millis(100), Backoff::default(), stop, poke.clone()).expect("sync thread");
        let mut block = Vec::with_capacity(BLOCK);
        for _ in 0..BLOCK {
            block.push(checkout(engine).await);
            poke.notify_one();
        }
        let _ = stop_tx.send(true);
        tokio::task::spawn_blocking(move || thread.join()).await.expect("join").expect("sync thread ended");
        p.rounds += *counter.borrow();
        p.rows_synced += acked() - before;
        p.on.push(block);
    }
    p
}

fn report(p: &Phase) -> serde_json::Value {
    let flat = |b: &[Vec<f64>]| b.iter().flatten().copied().collect::<Vec<f64>>();
    let (off, on) = (flat(&p.off), flat(&p.on));
    let medians = |b: &[Vec<f64>]| b.iter().map(|x| percentile(x, 0.5)).collect::<Vec<f64>>();
    let means = |b: &[Vec<f64>]| b.iter().map(|x| mean(x)).collect::<Vec<f64>>();
    let (m_ratio, m_lo, m_hi, m_p) = permutation(&medians(&p.off), &medians(&p.on), RELABELINGS);
    let (a_ratio, a_lo, a_hi, a_p) = permutation(&means(&p.off), &means(&p.on), RELABELINGS);
    // Off against off: the even blocks against the odd ones, one more look at the noise.
    let even: Vec<f64> = medians(&p.off).iter().step_by(2).copied().collect();
    let odd: Vec<f64> = medians(&p.off).iter().skip(1).step_by(2).copied().collect();
    let aa = mean(&odd) / mean(&even);
    let verdict = match (m_p < 0.05 && m_ratio > 1.0) || (a_p < 0.05 && a_ratio > 1.0) {
        true => "sync on is slower beyond noise",
        false if m_p < 0.05 || a_p < 0.05 => "sync on is faster beyond noise (no cost to the checkout)",
        false => "no difference beyond noise",
    };
    eprintln!(
        "{}: {} checkouts each | off p50 {:.3} ms p99 {:.3} ms mean {:.3} ms | on ({} rounds, {} rows sent) p50 {:.3} ms p99 {:.3} ms mean {:.3} ms\n  \
         block medians on/off x{m_ratio:.3} (noise band x{m_lo:.3}..x{m_hi:.3}, p={m_p:.3}) | block means on/off x{a_ratio:.3} (noise band x{a_lo:.3}..x{a_hi:.3}, p={a_p:.3}) | off/off x{aa:.3} | {verdict}",
        p.name,
        off.len(),
        percentile(&off, 0.5),
        percentile(&off, 0.99),
        mean(&off),
        p.rounds,
        p.rows_synced,
        percentile(&on, 0.5),
        percentile(&on, 0.99),
        mean(&on)
    );
    serde_json::json!({
        "phase": p.name, "checkouts_per_mode": off.len(), "block": BLOCK, "sync_rounds_during_on": p.rounds, "rows_synced_during_on": p.rows_synced,
        "sync_off": {"p50_ms": percentile(&off, 0.5), "p99_ms": percentile(&off, 0.99), "mean_ms": mean(&off)},
        "sync_on": {"p50_ms": percentile(&on, 0.5), "p99_ms": percentile(&on, 0.99), "mean_ms": mean(&on)},
        "ratio_on_off": {"p50": percentile(&on, 0.5) / percentile(&off, 0.5), "p99": percentile(&on, 0.99) / percentile(&off, 0.99), "mean": mean(&on) / mean(&off)},
        "block_medians": {"ratio": m_ratio, "noise_band": [m_lo, m_hi], "p": m_p},
        "block_means": {"ratio": a_ratio, "noise_band": [a_lo, a_hi], "p": a_p},
        "off_even_vs_odd_blocks": aa,
        "verdict": verdict,
    })
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000).max(2 * BLOCK) / (2 * BLOCK) * (2 * BLOCK);
    let (mut psp, psp_url) = start_psp();
    let (bo_url, postmaster) = start_back_office();
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

    let same = run_phase("same machine", n, &engine, &db, &state_path, &token).await;
    let threads = renice_back_office(postmaster);
    eprintln!("back office: {threads} threads and PostgreSQL's process group reniced to 19");
    let elsewhere = run_phase("back office elsewhere", n, &engine, &db, &state_path, &token).await;

    // Everything reached the back office (one last round drains what the last block left).
    let mut sync = SyncLoop::new(Ledger::open(&db).expect("sync ledger"), &state_path, token, "bench").expect("sync loop");
    sync.round().await.expect("final round");
    let left = Ledger::open_reader(&db).expect("reader").sync_log().outbox_stats().expect("stats");
    assert_eq!(left.queued, 0, "the outbox drained");
    let _ = psp.kill();
    let _ = psp.wait();

    let line = serde_json::json!({
        "phases": [report(&same), report(&elsewhere)],
        "outbox_after_final_round": {"queued": left.queued, "acked_through": left.acked_through},
    });
    println!("{line}");
}
