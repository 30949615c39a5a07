//! Checkout latency while a copy of a large ledger is taken (issue #32, record 0150):
//! figures from ONE run on this machine (record 0023), not a timed test; nothing is
//! asserted about time.
//!
//!     cargo run -p paydesk-register --example copy_bench -- [--mb 1024] [--blocks 4] [--workers 16] [--template FILE] [--copy-nice N]
//!
//! The ledger: sales written through the ledger's own API (`create`, `transition` to
//! authorizing, `record_psp_result`, `transition` to captured: the four commits a card
//! checkout makes) on a tmpfs (`/dev/shm`, where an fsync costs nothing) until the file
//! reaches `--mb`; then checkpointed and copied to the disk the benchmark runs on. With
//! `--template FILE` a ledger built before is copied instead (and `--keep-template FILE`
//! keeps the one built now for the next run).
//!
//! The load: `--workers` (16) checkouts at once, each a loop of `Engine::checkout_amount`
//! on ONE engine (one ledger writer, as one register; WAL, synchronous=FULL) against the
//! real mock PSP served in process over loopback (its store on tmpfs: the PSP is another
//! machine in a store, its disk is not the register's).
//!
//! The modes alternate in blocks (off, on, on, off, ...): "on" is a block during which a
//! running copy (`copies::take_paced`: the online backup API in paced steps from one read
//! transaction, then the paced check — record 0154; before it, VACUUM INTO) is taken; it lasts as long as the copy; the "off" block after or before it runs
//! as long, with no copy. `--copy-nice N` runs the copy's thread at nice N (the app runs
//! it at the normal priority today). `--copy-mode take|vacuum-shm|vacuum-disk` (default take)
//! runs in the "on" blocks the app's copy, or a bare `VACUUM INTO` to tmpfs or to the disk
//! without the check: where the tail goes. Each block also reports what the disk (`--disk`,
//! default vda, from /proc/diskstats) wrote and the page cache's peak of dirty MiB.
//! `--pace-mib N` and `--sync-mib N` set the copy's pace (record 0154; default
//! `copies::Pace::DEFAULT`). Each block gives its median, mean and p99; "beyond noise" is
//! judged as `paydesk-sync`'s latency_bench judges it: a permutation test on the blocks
//! (20,000 relabellings), p < 0.05 is a difference beyond noise.
use paydesk_test_kit::bench_stats::{mean, percentile, permutation};
use paydesk_domain::{Currency, Money, PaymentState};
use paydesk_ledger::{copies, CheckoutOptions, Ledger, NewPayment, PspResult, SeededKeys};
use paydesk_register::{CheckoutOutcome, Engine, EngineConfig, HttpTransport, OsRandom, SystemClock};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PSP_KEY: &str = "sk_test_copy_bench";
const RELABELINGS: usize = 20_000;

struct Args {
    mb: u64,
    blocks: usize,
    workers: usize,
    template: Option<PathBuf>,
    keep_template: Option<PathBuf>,
    copy_nice: i32,
    mode: Mode,
    disk: String,
    /// the copy's pace (record 0154): `--pace-mib` MiB/s, synced every `--sync-mib` MiB
    pace: copies::Pace,
}

/// What an "on" block runs (`--copy-mode`): the app's copy, or one part of it alone, to see
/// where the tail goes (issue #32 step 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `copies::take`, as the app's schedule calls it.
    Take,
    /// `VACUUM INTO` a file on tmpfs, no check: the copy's reads and CPU without its disk writes.
    VacuumShm,
    /// `VACUUM INTO` a file beside the ledger then fsync, no check: the old copy without its check.
    VacuumDisk,
}

fn args() -> Args {
    let mut a = Args { mb: 1024, blocks: 4, workers: 16, template: None, keep_template: None, copy_nice: 0, mode: Mode::Take, disk: "vda".into(), pace: copies::Pace::DEFAULT };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--mb" => a.mb = v.parse().expect("--mb N"),
            "--blocks" => a.blocks = v.parse::<usize>().expect("--blocks N").max(2) / 2 * 2,
            "--workers" => a.workers = v.parse::<usize>().expect("--workers N").clamp(1, 64),
            "--template" => a.template = Some(PathBuf::from(v)),
            "--keep-template" => a.keep_template = Some(PathBuf::from(v)),
            "--copy-nice" => a.copy_nice = v.parse::<i32>().expect("--copy-nice N").clamp(0, 19),
            "--disk" => a.disk = v,
            "--pace-mib" => a.pace.bytes_per_second = v.parse::<u64>().expect("--pace-mib N") * 1024 * 1024,
            "--sync-mib" => a.pace.sync_every_bytes = v.parse::<u64>().expect("--sync-mib N") * 1024 * 1024,
            "--copy-mode" => {
                a.mode = match v.as_str() {
                    "take" => Mode::Take,
                    "vacuum-shm" => Mode::VacuumShm,
                    "vacuum-disk" => Mode::VacuumDisk,
                    other => panic!("--copy-mode take|vacuum-shm|vacuum-disk, not {other}"),
                }
            }
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// Sales through the ledger's own write path on tmpfs until the file holds `mb` MiB;
/// then checkpointed into one file at `to`. Returns (sales, seconds).
fn build(mb: u64, to: &Path) -> (u64, f64) {
    let shm = tempfile::tempdir_in("/dev/shm").expect("a tmpfs at /dev/shm");
    let db = shm.path().join("ledger.db");
    let mut l = Ledger::open_with_keys(&db, Box::new(SeededKeys::new(7))).expect("ledger");
    let t = Instant::now();
    let target = mb * 1024 * 1024;
    let mut sales = 0u64;
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    loop {
        for _ in 0..2000 {
            let now = 1_767_225_600_000 + sales as i64 * 1000;
            let amount = Money::new(100 + (sales % 9000) as i64, Currency::Jpy);
            let p = l.payments_mut().create(&NewPayment { amount, options: CheckoutOptions::card("pm_card_visa") }, now).expect("create");
            l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", now + 1).expect("send");
            let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_bench_{}", p.id), amount, state_if_new: PaymentState::Captured };
            l.payments_mut().record_psp_result(&rec, now + 2).expect("result");
            l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", now + 3).expect("captured");
            sales += 1;
        }
        let bytes = size(&db) + size(&wal);
        if sales.is_multiple_of(100_000) {
            eprintln!("  built {sales} sales, {} MiB, {:.0} s", bytes / (1024 * 1024), t.elapsed().as_secs_f64());
        }
        if bytes >= target {
            break;
        }
    }
    drop(l);
    let c = rusqlite::Connection::open(&db).expect("open for checkpoint");
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).expect("checkpoint");
    drop(c);
    std::fs::copy(&db, to).expect("copy the ledger to disk");
    (sales, t.elapsed().as_secs_f64())
}

/// One copy as `mode` says; what it holds (payments, or for the bare VACUUM modes its bytes).
fn copy_once(db: &Path, mode: Mode, pace: copies::Pace, now_ms: i64) -> i64 {
    match mode {
        Mode::Take => copies::take_paced(db, 1, now_ms, pace).expect("copy").payments,
        Mode::VacuumShm | Mode::VacuumDisk => {
            let dir = if mode == Mode::VacuumShm { PathBuf::from("/dev/shm") } else { db.parent().expect("dir").to_path_buf() };
            let out = dir.join(format!("copy_bench_{}_{now_ms}.sqlite3", std::process::id()));
            let src = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("read-only");
            src.execute("VACUUM INTO ?1", [out.to_str().expect("utf-8")]).expect("vacuum into");
            std::fs::File::open(&out).and_then(|f| f.sync_all()).expect("fsync the copy");
            let n = std::fs::metadata(&out).expect("copy").len() as i64;
            std::fs::remove_file(&out).expect("remove the copy");
            n
        }
    }
}

/// The disk's counters (`/proc/diskstats`): sectors written, ms spent writing, ms with I/O
/// in flight weighted by the requests in flight; and the page cache's dirty bytes.
#[derive(Clone, Copy, Default)]
struct Disk {
    sectors_written: u64,
    write_ms: u64,
    weighted_ms: u64,
}

fn disk(dev: &str) -> Disk {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap_or_default();
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 13 && f[2] == dev)
        .map(|f| Disk { sectors_written: f[9].parse().unwrap_or(0), write_ms: f[10].parse().unwrap_or(0), weighted_ms: f[13].parse().unwrap_or(0) })
        .unwrap_or_default()
}

fn dirty_mib() -> f64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines().find_map(|l| l.strip_prefix("Dirty:")).and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok()).unwrap_or(0.0) / 1024.0
}

/// `workers` checkout loops until `stop`; every latency in ms.
async fn load(engine: Arc<Engine>, workers: usize, stop: Arc<AtomicBool>) -> Vec<f64> {
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let (engine, stop) = (engine.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let mut v = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let r = engine.checkout_amount(Money::new(1250, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.expect("checkout");
                v.push(t.elapsed().as_secs_f64() * 1000.0);
                assert_eq!(r.outcome, CheckoutOutcome::Paid, "{r:?}");
            }
            v
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("worker"));
    }
    all
}

struct Block {
    on: bool,
    ms: Vec<f64>,
    secs: f64,
    copy_secs: Option<f64>,
    wal_mib_after: f64,
    /// MiB the disk wrote during the block, its ms writing, its queue-weighted ms
    written_mib: f64,
    write_ms: u64,
    weighted_ms: u64,
    dirty_peak_mib: f64,
}

fn main() {
    let a = args();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let dir = tempfile::tempdir_in(std::env::var("COPY_BENCH_DIR").unwrap_or_else(|_| std::env::temp_dir().display().to_string())).expect("tempdir on disk");
    let db = dir.path().join("ledger.db");
    let (sales, build_s) = match &a.template {
        Some(t) => {
            std::fs::copy(t, &db).expect("copy the template");
            (0, 0.0)
        }
        None => build(a.mb, &db),
    };
    if let Some(k) = &a.keep_template {
        std::fs::copy(&db, k).expect("keep the template");
    }
    let ledger_mib = std::fs::metadata(&db).expect("ledger").len() as f64 / (1024.0 * 1024.0);
    eprintln!("ledger: {ledger_mib:.0} MiB ({sales} sales built in {build_s:.0} s)");

    let psp_dir = tempfile::tempdir_in("/dev/shm").expect("tmpfs");
    let psp = paydesk_test_kit::psp_on_file(psp_dir.path(), PSP_KEY, 1);
    let server = rt.block_on(paydesk_test_kit::serve(&psp));
    let transport = Arc::new(HttpTransport::new(&server.url(), PSP_KEY, Duration::from_secs(5)).expect("transport"));
    let engine = Arc::new(Engine::new(Ledger::open(&db).expect("ledger"), transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default()));
    // warm-up: connections, the pages checkouts touch
    rt.block_on(async {
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let h = tokio::spawn(load(engine.clone(), a.workers, s2));
        tokio::time::sleep(Duration::from_secs(3)).await;
        stop.store(true, Ordering::Relaxed);
        h.await.expect("warm-up")
    });

    let wal_mib = || {
        let mut w = db.as_os_str().to_owned();
        w.push("-wal");
        std::fs::metadata(PathBuf::from(w)).map_or(0.0, |m| m.len() as f64 / (1024.0 * 1024.0))
    };
    // one copy before the blocks, not measured: how long an "off" block lasts at first, and
    // the page cache warmed alike for both modes
    let t = Instant::now();
    copy_once(&db, a.mode, a.pace, 1_767_225_500_000);
    let mut last_copy = t.elapsed();
    eprintln!("first copy (not measured): {:.1} s", last_copy.as_secs_f64());
    let mut blocks: Vec<Block> = Vec::new();
    for i in 0..2 * a.blocks {
        let on = i % 4 == 1 || i % 4 == 2;
        let stop = Arc::new(AtomicBool::new(false));
        let d0 = disk(&a.disk);
        // the page cache's dirty MiB, read every 50 ms while the block runs (observation only)
        let sampler = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut peak = 0.0f64;
                while !stop.load(Ordering::Relaxed) {
                    peak = peak.max(dirty_mib());
                    std::thread::sleep(Duration::from_millis(50));
                }
                peak
            })
        };
        let t = Instant::now();
        let worker = rt.spawn(load(engine.clone(), a.workers, stop.clone()));
        let copy_secs = if on {
            let db = db.clone();
            let nice = a.copy_nice;
            let mode = a.mode;
            let pace = a.pace;
            let copy = std::thread::spawn(move || {
                if nice > 0 {
                    // SAFETY: no pointers; the tid is this thread's own (Linux: one thread).
                    assert_eq!(unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice) }, 0, "nice the copy thread");
                }
                let t = Instant::now();
                let c = copy_once(&db, mode, pace, 1_767_225_600_000 + i as i64);
                (t.elapsed(), c)
            });
            let (took, c) = copy.join().expect("copy thread");
            assert!(c > 0);
            last_copy = took;
            Some(took.as_secs_f64())
        } else {
            // as long as a copy takes (the first off block: an estimate, then the last copy's)
            std::thread::sleep(last_copy);
            None
        };
        stop.store(true, Ordering::Relaxed);
        let ms = rt.block_on(worker).expect("load");
        let dirty_peak_mib = sampler.join().expect("sampler");
        let d1 = disk(&a.disk);
        let b = Block {
            on,
            secs: t.elapsed().as_secs_f64(),
            ms,
            copy_secs,
            wal_mib_after: wal_mib(),
            written_mib: (d1.sectors_written - d0.sectors_written) as f64 * 512.0 / (1024.0 * 1024.0),
            write_ms: d1.write_ms - d0.write_ms,
            weighted_ms: d1.weighted_ms - d0.weighted_ms,
            dirty_peak_mib,
        };
        eprintln!(
            "block {i} {}: {} checkouts in {:.1} s, p50 {:.2} ms p99 {:.2} ms{} (WAL {:.0} MiB; disk wrote {:.0} MiB, {} ms writing, queue {} ms; dirty peak {:.0} MiB)",
            if on { "copy running" } else { "no copy" },
            b.ms.len(),
            b.secs,
            percentile(&b.ms, 0.5),
            percentile(&b.ms, 0.99),
            b.copy_secs.map(|s| format!(", copy took {s:.1} s")).unwrap_or_default(),
            b.wal_mib_after,
            b.written_mib,
            b.write_ms,
            b.weighted_ms,
            b.dirty_peak_mib
        );
        blocks.push(b);
    }

    let pick = |on: bool, f: &dyn Fn(&[f64]) -> f64| blocks.iter().filter(|b| b.on == on).map(|b| f(&b.ms)).collect::<Vec<f64>>();
    let flat = |on: bool| blocks.iter().filter(|b| b.on == on).flat_map(|b| b.ms.iter().copied()).collect::<Vec<f64>>();
    let (off, on) = (flat(false), flat(true));
    let stat = |f: &dyn Fn(&[f64]) -> f64| {
        let (r, lo, hi, p) = permutation(&pick(false, f), &pick(true, f), RELABELINGS);
        serde_json::json!({"ratio_on_off": r, "noise_band": [lo, hi], "p": p})
    };
    let med = stat(&|v| percentile(v, 0.5));
    let mea = stat(&|v| mean(v));
    let p99 = stat(&|v| percentile(v, 0.99));
    let beyond = |s: &serde_json::Value| s["p"].as_f64().unwrap() < 0.05 && s["ratio_on_off"].as_f64().unwrap() > 1.0;
    let verdict = if beyond(&med) || beyond(&mea) || beyond(&p99) { "checkouts are slower beyond noise while a copy runs" } else { "no difference beyond noise" };
    let copies: Vec<f64> = blocks.iter().filter_map(|b| b.copy_secs).collect();
    let line = serde_json::json!({
        "ledger_mib": ledger_mib, "workers": a.workers, "copy_nice": a.copy_nice, "blocks_per_mode": a.blocks,
        "copy_seconds": copies, "copy_mib_per_s": ledger_mib / mean(&copies),
        "wal_mib_after_blocks": blocks.iter().map(|b| b.wal_mib_after).collect::<Vec<_>>(),
        "copy_mode": format!("{:?}", a.mode),
        "pace_mib_per_s": a.pace.bytes_per_second / (1024 * 1024), "sync_every_mib": a.pace.sync_every_bytes / (1024 * 1024),
        "disk_per_block": blocks.iter().map(|b| serde_json::json!({"on": b.on, "written_mib": b.written_mib, "write_ms": b.write_ms, "queue_ms": b.weighted_ms, "dirty_peak_mib": b.dirty_peak_mib})).collect::<Vec<_>>(),
        "no_copy": {"checkouts": off.len(), "p50_ms": percentile(&off, 0.5), "p99_ms": percentile(&off, 0.99), "mean_ms": mean(&off)},
        "copy_running": {"checkouts": on.len(), "p50_ms": percentile(&on, 0.5), "p99_ms": percentile(&on, 0.99), "mean_ms": mean(&on)},
        "ratio_on_off": {"p50": percentile(&on, 0.5) / percentile(&off, 0.5), "p99": percentile(&on, 0.99) / percentile(&off, 0.99), "mean": mean(&on) / mean(&off)},
        "block_medians": med, "block_means": mea, "block_p99s": p99,
        "verdict": verdict,
    });
    eprintln!(
        "copy running / no copy: p50 x{:.3}, p99 x{:.3}, mean x{:.3} | block p99s x{:.3} (noise band {}, p={:.3}) | {verdict}",
        line["ratio_on_off"]["p50"].as_f64().unwrap(),
        line["ratio_on_off"]["p99"].as_f64().unwrap(),
        line["ratio_on_off"]["mean"].as_f64().unwrap(),
        p99["ratio_on_off"].as_f64().unwrap(),
        p99["noise_band"],
        p99["p"].as_f64().unwrap()
    );
    println!("{line}");
    drop(server);
}
