//! `mock-psp bench`: measures, in one run, idempotent POSTs/s with 1 and 16 clients
//! for group commit vs the naive path (one transaction per claim and per completion),
//! a raw SQLite single-insert baseline, replay latency with many stored keys, and the
//! worst request stall while a purge of all those keys runs. Prints ratios.
use crate::{account_id, form, MockPsp};
use rusqlite::params;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Stored keys for the replay-latency and purge measurements.
    #[arg(long, default_value_t = 1_000_000)]
    pub keys: usize,
    /// Seconds per throughput measurement.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Replay requests to time.
    #[arg(long, default_value_t = 5000)]
    pub replays: usize,
    /// Directory for the benchmark databases (default: a temp dir).
    #[arg(long)]
    pub dir: Option<std::path::PathBuf>,
}

const SK: &str = "sk_test_bench";
const PATH: &str = "/v1/payment_intents";

fn body_params(i: u64) -> Vec<(String, String)> {
    vec![
        ("amount".into(), "1999".into()),
        ("currency".into(), "usd".into()),
        ("payment_method".into(), "pm_card_visa".into()),
        ("confirm".into(), "true".into()),
        ("metadata[checkout_key]".into(), format!("bench-{i}")),
    ]
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The 1/5/15-minute load averages, printed with the figures: on a shared machine the
/// absolute numbers move with load (ratios much less).
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_else(|_| "unknown".into())
}

/// CPU time (user + system) this process has used so far: with the client and the
/// server in one process, CPU seconds per wall second says how much of the machine a
/// throughput run got.
fn process_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return Duration::ZERO };
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks: u64 = fields.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0) + fields.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    let per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / per_s)
}

/// (transactions, jobs) committed by a server's writer so far, and (fsyncs, µs in
/// them) by its log syncer (0 for the naive path, whose fsyncs are inside its commits).
fn storage_counts(server: &crate::RunningServer) -> ((u64, u64), (u64, u64)) {
    let st = server.psp().stats();
    let n = |k: &str| st["storage"][k].as_u64().unwrap_or(0);
    ((n("transactions"), n("jobs")), (n("log_syncs"), n("log_sync_us")))
}

/// One throughput measurement with what it cost.
struct Run {
    rate: f64,
    lat: Vec<Duration>,
    commits_per_s: f64,
    avg_batch: f64,
    cpu_cores: f64,
    /// Log syncer fsyncs per second and their average duration (group commit only).
    syncs_per_s: f64,
    avg_sync_ms: f64,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn start(dir: &std::path::Path, name: &str, group: bool) -> Result<crate::RunningServer, String> {
    start_with(dir, name, group, true).await
}

async fn start_with(dir: &std::path::Path, name: &str, group: bool, idempotency_layer: bool) -> Result<crate::RunningServer, String> {
    let psp = MockPsp::builder()
        .db(dir.join(name))
        .secret_key(SK)
        .seed(1)
        .group_commit(group)
        .idempotency_layer(idempotency_layer)
        .purge_interval(Duration::from_secs(365 * 24 * 3600))
        .build()
        .map_err(|e| e.to_string())?;
    psp.serve("127.0.0.1:0".parse().unwrap()).await.map_err(|e| e.to_string())
}

/// Runs `clients` loops of unique-key idempotent POSTs for `secs`; returns POSTs/s.
async fn throughput(url: &str, clients: usize, secs: f64, key_base: u64) -> Result<(f64, Vec<Duration>), String> {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let mut tasks = vec![];
    for c in 0..clients {
        let (stop, done, url) = (stop.clone(), done.clone(), url.to_string());
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut lat = vec![];
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let n = key_base + (c as u64) * 10_000_000 + i;
                i += 1;
                let t = Instant::now();
                let r = http.post(format!("{url}{PATH}")).bearer_auth(SK).header("Idempotency-Key", format!("tp-{n}")).form(&body_params(n)).send().await;
                match r {
                    Ok(r) if r.status() == 200 => {
                        let _ = r.bytes().await;
                        done.fetch_add(1, Ordering::Relaxed);
                        lat.push(t.elapsed());
                    }
                    Ok(r) => return Err(format!("unexpected status {}", r.status())),
                    Err(e) => return Err(e.to_string()),
                }
            }
            Ok(lat)
        }));
    }
    let t0 = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let mut lat = vec![];
    for t in tasks {
        lat.extend(t.await.map_err(|e| e.to_string())??);
    }
    let el = t0.elapsed().as_secs_f64();
    lat.sort();
    Ok((done.load(Ordering::Relaxed) as f64 / el, lat))
}

/// Raw SQLite: one INSERT per transaction, WAL + synchronous=FULL, same disk.
fn raw_sqlite_inserts(dir: &std::path::Path, secs: f64) -> Result<f64, String> {
    let c = rusqlite::Connection::open(dir.join("raw.sqlite3")).map_err(|e| e.to_string())?;
    c.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, k TEXT UNIQUE, v BLOB);").map_err(|e| e.to_string())?;
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let t0 = Instant::now();
    let mut n = 0u64;
    let blob = vec![7u8; 600];
    while t0.elapsed().as_secs_f64() < secs {
        c.execute("INSERT INTO t (k, v) VALUES (?1, ?2)", params![format!("k{run}-{n}"), blob]).map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n as f64 / t0.elapsed().as_secs_f64())
}

/// The same 16-client runs with both databases on tmpfs, where an fsync costs nothing:
/// what this machine's CPU allows for HTTP + SQL alone (client and server included).
/// The gap between it and the on-disk figures is what durability costs; the naive
/// path loses most of its disadvantage there, since its cost is the fsync in each
/// commit. Skipped (None) where there is no writable /dev/shm.
async fn fsync_free_ceiling(secs: f64) -> Result<Option<(f64, f64)>, String> {
    let Ok(shm) = tempfile::Builder::new().prefix("mock-psp-bench").tempdir_in("/dev/shm") else {
        println!("\n(no writable /dev/shm: the fsync-free ceiling is not measured)");
        return Ok(None);
    };
    let naive = start(shm.path(), "naive.sqlite3", false).await?;
    let group = start(shm.path(), "group.sqlite3", true).await?;
    let mut best = (0.0f64, 0.0f64);
    for round in 0..2u64 {
        let (n, _) = throughput(&naive.url(), 16, secs, (5 << 40) + (round << 36)).await?;
        let (g, _) = throughput(&group.url(), 16, secs, (6 << 40) + (round << 36)).await?;
        best = (best.0.max(n), best.1.max(g));
    }
    naive.shutdown().await;
    group.shutdown().await;
    println!(
        "\nfsync-free ceiling (same runs, databases on tmpfs /dev/shm, where fsync costs nothing):\n  naive 16 clients: {:>9.0} POSTs/s;  group commit 16 clients: {:>9.0} POSTs/s;  group / naive = {:.2}x",
        best.0,
        best.1,
        best.1 / best.0.max(1.0)
    );
    Ok(Some(best))
}

pub async fn run(args: BenchArgs) -> Result<(), String> {
    check_args(&args)?;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = args.dir.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    println!("mock-psp bench: {} s per throughput run, {} stored keys, dir {}", args.seconds, args.keys, dir.display());
    println!("(SQLite WAL. naive: synchronous=FULL, an fsync inside every COMMIT; group commit: the log syncer");
    println!(" fsyncs the WAL once per group of commits before answering; client and server share this machine's cores)");
    println!("load average at start: {} (nproc {})", loadavg(), std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0));

    let (n16, g16) = throughput_section(&dir, args.seconds).await?;
    let ceiling = fsync_free_ceiling(args.seconds).await?;
    let server = start(&dir, "replay.sqlite3", true).await?;
    let n = args.keys as u64;
    let lat = replay_section(&server, n, args.replays).await?;
    let during = purge_section(&server, args.seconds).await?;
    println!(
        "\nsummary: group@16 / naive@16 = {:.2}x (goal >= 5x){}; replay p50 {:.3} ms, p99 {:.3} ms at {n} keys; worst stall during the purge {:.2} ms (budget 50 ms); load average at end: {}",
        g16 / n16,
        ceiling.map(|(_, g)| format!(", group@16 on disk = {:.0}% of its fsync-free ceiling", 100.0 * g16 / g.max(1.0))).unwrap_or_default(),
        ms(pct(&lat, 0.5)),
        ms(pct(&lat, 0.99)),
        ms(pct(&during, 1.0)),
        loadavg()
    );
    server.shutdown().await;
    Ok(())
}

/// Limits: every figure needs a run that did something, and none should run for hours.
fn check_args(args: &BenchArgs) -> Result<(), String> {
    if !(args.seconds > 0.0 && args.seconds <= 600.0) {
        return Err(format!("--seconds must be more than 0 and at most 600 (got {})", args.seconds));
    }
    if args.keys == 0 || args.keys > 100_000_000 {
        return Err(format!("--keys must be from 1 to 100000000 (got {})", args.keys));
    }
    if args.replays == 0 || args.replays > 10_000_000 {
        return Err(format!("--replays must be from 1 to 10000000 (got {})", args.replays));
    }
    Ok(())
}

/// Throughput, by (variant, clients): variant 0 naive, 1 group commit, 2 layer off.
type Throughputs = std::collections::HashMap<(usize, usize), Run>;

/// Section 1, throughput. Both servers run side by side and the measurements are interleaved
/// (raw, naive, group; twice; best of two) so that disk and CPU noise from other work
/// on the machine hits both paths alike. Prints the figures and ratios; returns naive
/// and group commit at 16 clients.
async fn throughput_section(dir: &std::path::Path, seconds: f64) -> Result<(f64, f64), String> {
    let naive = start(dir, "naive.sqlite3", false).await?;
    let group = start(dir, "group.sqlite3", true).await?;
    // The idempotency layer off (group commit, no claim, nothing stored): what the
    // layer costs on top of executing the request.
    let off = start_with(dir, "off.sqlite3", true, false).await?;
    let mut tp: Throughputs = std::collections::HashMap::new();
    let mut raw: f64 = 0.0;
    let mut key_base = 1u64 << 40;
    for _round in 0..2 {
        let d = dir.to_path_buf();
        raw = raw.max(tokio::task::spawn_blocking(move || raw_sqlite_inserts(&d, seconds)).await.map_err(|e| e.to_string())??);
        for clients in [1usize, 16] {
            for (variant, server) in [(0usize, &naive), (1, &group), (2, &off)] {
                key_base += 1 << 36;
                let run = measure(server, clients, seconds, key_base).await?;
                let e = tp.entry((variant, clients)).or_insert(Run { rate: 0.0, lat: vec![], commits_per_s: 0.0, avg_batch: 0.0, cpu_cores: 0.0, syncs_per_s: 0.0, avg_sync_ms: 0.0 });
                if run.rate > e.rate {
                    *e = run;
                }
            }
        }
    }
    print_throughput(raw, &tp, [&naive, &group, &off]);
    naive.shutdown().await;
    group.shutdown().await;
    off.shutdown().await;
    let (n1, n16, g1, g16) = (tp[&(0, 1)].rate, tp[&(0, 16)].rate, tp[&(1, 1)].rate, tp[&(1, 16)].rate);
    let (o1, o16) = (tp[&(2, 1)].rate, tp[&(2, 16)].rate);
    println!("\nratios: group@16 / naive@16 = {:.2}x; group@16 / naive@1 = {:.2}x; group@1 / naive@1 = {:.2}x", g16 / n16, g16 / n1, g1 / n1);
    println!("        idempotency on / off (both group commit): {:.2} at 1 client, {:.2} at 16 clients (the claim and the stored result)", g1 / o1, g16 / o16);
    println!("        naive@1 / raw single insert = {:.2}; group@16 / raw single insert = {:.2}x", n1 / raw, g16 / raw);
    Ok((n16, g16))
}

/// One throughput run against one server, with its storage and CPU figures.
async fn measure(server: &crate::RunningServer, clients: usize, seconds: f64, key_base: u64) -> Result<Run, String> {
    let (((txn0, jobs0), (sy0, syus0)), cpu0, t0) = (storage_counts(server), process_cpu(), Instant::now());
    let (rate, lat) = throughput(&server.url(), clients, seconds, key_base).await?;
    let (((txn1, jobs1), (sy1, syus1)), cpu1, wall) = (storage_counts(server), process_cpu(), t0.elapsed().as_secs_f64());
    Ok(Run {
        rate,
        lat,
        commits_per_s: (txn1 - txn0) as f64 / wall,
        avg_batch: (jobs1 - jobs0) as f64 / (txn1 - txn0).max(1) as f64,
        cpu_cores: (cpu1 - cpu0).as_secs_f64() / wall,
        syncs_per_s: (sy1 - sy0) as f64 / wall,
        avg_sync_ms: (syus1 - syus0) as f64 / 1000.0 / (sy1 - sy0).max(1) as f64,
    })
}

/// The throughput table: raw SQLite, then each variant at 1 and 16 clients.
fn print_throughput(raw: f64, tp: &Throughputs, servers: [&crate::RunningServer; 3]) {
    println!("\nraw SQLite, 1 insert per transaction:       {raw:>9.0} inserts/s");
    let names = ["naive (claim txn + completion txn)", "group commit (one writer, batched)", "idempotency layer off (group commit)"];
    for (variant, (name, server)) in names.into_iter().zip(servers).enumerate() {
        for clients in [1usize, 16] {
            let r = &tp[&(variant, clients)];
            println!(
                "{name:<40} {clients:>2} clients: {:>9.0} POSTs/s   p50 {:>6.2} ms  p99 {:>6.2} ms   {:>5.0} commits/s, avg batch {:>4.1} jobs, process CPU {:.2} cores",
                r.rate,
                ms(pct(&r.lat, 0.5)),
                ms(pct(&r.lat, 0.99)),
                r.commits_per_s,
                r.avg_batch,
                r.cpu_cores
            );
            if r.syncs_per_s > 0.0 {
                println!("{:<40}             log syncer: {:>5.0} fsyncs/s, {:.2} ms each on average (the writer does not wait for them)", "", r.syncs_per_s, r.avg_sync_ms);
            }
        }
        let st = server.psp().stats();
        println!("{:<40} transactions {} for {} jobs (largest batch {})", "", st["storage"]["transactions"], st["storage"]["jobs"], st["storage"]["max_batch"]);
    }
}

/// Section 2, replay latency with many stored keys: `n` finished keys stored, then `replays`
/// random ones replayed over HTTP. The latencies, sorted.
async fn replay_section(server: &crate::RunningServer, n: u64, replays: usize) -> Result<Vec<Duration>, String> {
    let psp = server.psp().clone();
    let fill_t = Instant::now();
    store_finished_keys(&psp, n).await?;
    println!("\nstored {n} finished keys in {:.1} s", fill_t.elapsed().as_secs_f64());
    // Fold the bulk fill's WAL into the database first, so the measurements below
    // are not competing with a checkpoint of a gigabyte of fill traffic.
    let st = psp.store();
    tokio::task::spawn_blocking(move || st.read_blocking(|c| Ok(c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?)))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let http = reqwest::Client::new();
    let mut lat = Vec::with_capacity(replays);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..replays {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let i = x % n.max(1);
        let t = Instant::now();
        let r = http.post(format!("{}{PATH}", server.url())).bearer_auth(SK).header("Idempotency-Key", format!("stored-{i}")).form(&body_params(i)).send().await.map_err(|e| e.to_string())?;
        let replayed = r.headers().get("idempotent-replayed").is_some();
        let _ = r.bytes().await;
        lat.push(t.elapsed());
        if !replayed {
            return Err(format!("stored-{i} was not replayed"));
        }
    }
    lat.sort();
    println!("replay latency over HTTP with {n} stored keys ({} random replays): p50 {:.3} ms  p99 {:.3} ms  max {:.3} ms", replays, ms(pct(&lat, 0.5)), ms(pct(&lat, 0.99)), ms(pct(&lat, 1.0)));
    println!("  (no fsync: replays are answered from a read connection); replay p50 vs fresh POST p50 at 1 client: see above");
    Ok(lat)
}

/// Stores `n` finished keys (their answers stored), in jobs of 50,000 rows.
async fn store_finished_keys(psp: &MockPsp, n: u64) -> Result<(), String> {
    let acct = account_id(SK);
    let now = psp.clock().now_ms();
    let sample_body = {
        let mut s = String::from("{\"amount\":1999,\"amount_capturable\":0,\"amount_received\":1999,\"capture_method\":\"automatic\",\"currency\":\"usd\",\"object\":\"payment_intent\",\"status\":\"succeeded\",\"pad\":\"");
        s.push_str(&"x".repeat(420));
        s.push_str("\"}");
        s
    };
    let mut start_i = 0u64;
    while start_i < n {
        let end = (start_i + 50_000).min(n);
        let (acct, body) = (acct.clone(), sample_body.clone());
        psp.store()
            .write(move |c, _| {
                let mut st = c.prepare_cached(
                    "INSERT INTO idem (account, key, method, path, fingerprint, params, created_ms, lock_until_ms, status, body, finished_ms) VALUES (?1,?2,'POST',?3,?4,?5,?6,?6,200,?7,?6)",
                )?;
                for i in start_i..end {
                    let p: Vec<(String, String)> = body_params(i);
                    let (fp, canon) = form::fingerprint("POST", PATH, &p);
                    st.execute(params![acct, format!("stored-{i}"), PATH, fp, canon, now - 1000, body.as_bytes()])?;
                }
                Ok(())
            })
            .await
            .map_err(|e| e.to_string())?;
        start_i = end;
    }
    Ok(())
}

/// Section 3, worst request stall during a purge of all of them, against the same load without
/// a purge. The latencies during the purge, sorted.
async fn purge_section(server: &crate::RunningServer, seconds: f64) -> Result<Vec<Duration>, String> {
    let psp = server.psp().clone();
    // As long as a purge of a million keys takes here (8 s at the default 3 s runs).
    let base_secs = seconds * 8.0 / 3.0;
    let (_, base_lat) = throughput(&server.url(), 4, base_secs, 7 << 40).await?;
    psp.advance_clock(psp.retention() + Duration::from_secs(1));
    let stop = Arc::new(AtomicBool::new(false));
    let mut clients = vec![];
    for c in 0..4u64 {
        let (stop, url) = (stop.clone(), server.url());
        clients.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut lat = vec![];
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let k = (9u64 << 40) + c * 10_000_000 + i;
                i += 1;
                let t = Instant::now();
                let r = http.post(format!("{url}{PATH}")).bearer_auth(SK).header("Idempotency-Key", format!("pg-{k}")).form(&body_params(k)).send().await;
                if let Ok(r) = r {
                    let _ = r.bytes().await;
                }
                lat.push(t.elapsed());
            }
            lat
        }));
    }
    // The writer's checkpoints between batches, counted over the purge only (the bulk
    // fill's 50,000-row jobs make much longer ones).
    let ckpt = &psp.store().stats;
    let ckpt_before = ckpt.wal_restart_checkpoints.load(Ordering::Relaxed);
    ckpt.wal_restart_checkpoint_max_us.store(0, Ordering::Relaxed);
    let pt = Instant::now();
    let (purged, worst_chunk) = psp.purge_expired().await.map_err(|e| e.to_string())?;
    let purge_s = pt.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let mut during = vec![];
    for c in clients {
        during.extend(c.await.map_err(|e| e.to_string())?);
    }
    during.sort();
    println!(
        "\npurge of {purged} expired keys in time-bounded chunks of at most {} keys: {purge_s:.1} s, slowest chunk {:.2} ms",
        psp.inner.purge_chunk,
        ms(worst_chunk)
    );
    println!(
        "requests during the purge (4 clients, {} requests): p50 {:.2} ms  p99 {:.2} ms  p99.9 {:.2} ms  worst stall {:.2} ms",
        during.len(),
        ms(pct(&during, 0.5)),
        ms(pct(&during, 0.99)),
        ms(pct(&during, 0.999)),
        ms(pct(&during, 1.0)),
    );
    println!(
        "same load without a purge ({base_secs:.1} s, {} requests): p50 {:.2} ms  p99 {:.2} ms  p99.9 {:.2} ms  worst {:.2} ms",
        base_lat.len(),
        ms(pct(&base_lat, 0.5)),
        ms(pct(&base_lat, 0.99)),
        ms(pct(&base_lat, 0.999)),
        ms(pct(&base_lat, 1.0))
    );
    println!(
        "writer checkpoints between batches during the purge (so the WAL restarts): {}, slowest {:.2} ms",
        ckpt.wal_restart_checkpoints.load(Ordering::Relaxed) - ckpt_before,
        ckpt.wal_restart_checkpoint_max_us.load(Ordering::Relaxed) as f64 / 1000.0
    );
    println!("worst stall / 50 ms budget = {:.2}", ms(pct(&during, 1.0)) / 50.0);
    Ok(during)
}
