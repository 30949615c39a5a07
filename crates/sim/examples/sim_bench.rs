//! The benchmark suite's own figures, measured in ONE run, printed as ratios and
//! written to `docs/benchmarks.md` together with the figures of the other crates'
//! benchmarks (collected from their output files by `make bench`).
//!
//!     cargo run --release -p paydesk-sim --example sim_bench -- \
//!         [--checkouts N] [--drain N] [--collect DIR] [--out PATH]
//!
//! * simulated checkouts/s (calm and chaos profiles: register engine + mock PSP in
//!   one process under virtual time, audit included);
//! * offline drain: N payments queued offline, then forwarded when the PSP is back,
//!   vs the PSP's own rate for the same number of create requests, in-process.

use mock_psp::{FaultConfig, MockPsp, PspRequest};
use paydesk_ledger::{CheckoutOptions, Ledger, NewPayment, SeededKeys};
use paydesk_domain::{Currency, Money, PaymentState};
use paydesk_register::{Engine, MoneyCap, OfflineCaps, OfflineLimits, SeededRandom};
use paydesk_sim::world::{block_on, drive_psp, PspClock, PspFuture, RegisterClock, SimTransport, TimeCore, Wire};
use paydesk_sim::{engine_config, run_timed, Profile, Report, SimConfig, EPOCH_MS};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn arg<T: std::str::FromStr>(name: &str) -> Option<T> {
    let a: Vec<String> = std::env::args().collect();
    a.iter().position(|x| x == name).and_then(|i| a.get(i + 1)).and_then(|v| v.parse().ok())
}

/// The 1/5/15-minute load averages (the machine is shared: figures move with load).
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_else(|_| "unknown".into())
}

fn machine() -> String {
    let nproc = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| "unknown".into());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| s.lines().next().map(|l| l.split_whitespace().nth(1).unwrap_or("0").parse::<u64>().unwrap_or(0) / 1024 / 1024))
        .unwrap_or(0);
    format!(
        "- CPU: {cpu}, nproc {nproc} (shared with other builds while measuring)\n- RAM: {mem} GiB\n- SQLite {} (bundled, rusqlite)\n- OS: {} {}",
        rusqlite::version(),
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

struct Drain {
    n: usize,
    queued: usize,
    drain_secs: f64,
    psp_secs: f64,
}

/// N offline payments forwarded in order when the PSP comes back, vs N create
/// requests straight to the same kind of PSP (in memory, no faults), in-process.
fn offline_drain(n: usize) -> Drain {
    let core = TimeCore::new(EPOCH_MS);
    let psp = MockPsp::builder()
        .memory()
        .secret_key("sk_test_bench")
        .faults(FaultConfig::none())
        .seed(1)
        .clock(Arc::new(PspClock(core.clone())))
        .build()
        .expect("psp");
    let wire = Wire::new(core.clone(), psp.clone(), "sk_test_bench", 1);
    let mut cfg = engine_config();
    cfg.offline = OfflineLimits {
        enabled: true,
        caps: OfflineCaps::own(Currency::Jpy, MoneyCap { per_payment: 1_000_000, total: i64::MAX / 4 }),
        max_count: (n as u32).saturating_add(10),
        max_age: Duration::from_secs(30 * 24 * 3600),
    };
    let ledger = Ledger::open_in_memory(Box::new(SeededKeys::new(1))).expect("ledger");
    let engine = Engine::new(
        ledger,
        Arc::new(SimTransport(wire.clone())),
        Arc::new(RegisterClock(core.clone())),
        Arc::new(SeededRandom::new(1)),
        cfg,
    );
    // Accepted offline: the state the engine leaves them in after its attempts were
    // refused (set up directly in the ledger; only the drain is timed).
    let queued = engine
        .ledger_for_tests(|l| -> paydesk_ledger::Result<usize> {
            for i in 0..n {
                let now = core.now() + i as i64 * 1_000;
                let np = NewPayment { amount: Money::new(100 + (i as i64 % 5000), Currency::Jpy), options: CheckoutOptions::card("pm_card_visa") };
                let p = l.payments_mut().create(&np, now)?;
                l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::QueuedOffline, "accepted offline (bench)", now)?;
            }
            Ok(l.payments().offline_queue()?.len())
        })
        .expect("queue");
    core.advance(n as i64 * 1_000);
    psp.set_offline(false, None);
    let t = Instant::now();
    let (fwd, _declined, still) = block_on(engine.forward_offline()).expect("drain");
    let drain_secs = t.elapsed().as_secs_f64();
    assert_eq!(still, 0, "drain left {still} queued");
    assert_eq!(fwd as usize, queued);

    // The PSP's own rate: the same number of creates, each awaited before the next.
    let psp2 = MockPsp::builder()
        .memory()
        .secret_key("sk_test_bench")
        .faults(FaultConfig::none())
        .seed(2)
        .clock(Arc::new(PspClock(core.clone())))
        .build()
        .expect("psp");
    let t = Instant::now();
    for i in 0..n {
        let key = format!("bench-{i}");
        let amount = (100 + (i % 5000)).to_string();
        let p = psp2.clone();
        let req = PspRequest::post(
            "/v1/payment_intents",
            "sk_test_bench",
            Some(&key),
            &[("amount", &amount), ("currency", "jpy"), ("payment_method", "pm_card_visa"), ("confirm", "true"), ("metadata[checkout_key]", &key)],
        );
        let mut fut: PspFuture = Box::pin(async move { p.handle(req).await });
        let out = drive_psp(&mut fut, &core).unwrap_or_else(|_| panic!("PSP slept without faults"));
        assert_eq!(out.response().map(|r| r.status), Some(200));
    }
    let psp_secs = t.elapsed().as_secs_f64();
    Drain { n, queued, drain_secs, psp_secs }
}

fn main() {
    let checkouts: u64 = arg("--checkouts").unwrap_or(5_000);
    let drain_n: usize = arg("--drain").unwrap_or(10_000);
    let collect: Option<String> = arg("--collect");
    let out: String = arg("--out").unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/benchmarks.md").to_string());

    eprintln!("simulating {checkouts} checkouts (calm, then chaos)…");
    let (calm, calm_perf) = run_timed(SimConfig::new(1, checkouts, Profile::Calm));
    let (chaos, chaos_perf) = run_timed(SimConfig::new(1, checkouts, Profile::Chaos));
    // Seeds are independent runs: they scale across cores (how `make soak` runs).
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    eprintln!("{cores} seeds in parallel ({checkouts} calm checkouts each)…");
    let par_started = Instant::now();
    let par_reports: Vec<Report> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            (0..cores as u64).map(|i| scope.spawn(move || run_timed(SimConfig::new(100 + i, checkouts, Profile::Calm)).0)).collect();
        handles.into_iter().map(|h| h.join().expect("a simulation thread")).collect()
    });
    let par_secs = par_started.elapsed().as_secs_f64();
    let par_rate = par_reports.iter().map(|r| r.checkouts).sum::<u64>() as f64 / par_secs;
    let par_violations: u64 = par_reports.iter().map(|r| r.violations_total).sum();
    eprintln!("offline drain of {drain_n} payments…");
    let d = offline_drain(drain_n);
    let drain_rate = d.queued as f64 / d.drain_secs;
    let psp_rate = d.n as f64 / d.psp_secs;

    let mut md = String::new();
    let _ = writeln!(md, "# PayDesk benchmarks\n");
    let _ = writeln!(md, "Generated by `make bench` (`cargo run --release -p paydesk-sim --example sim_bench`). Ratios are");
    let _ = writeln!(md, "from one run on one machine; absolute times move with load, ratios much less.\n");
    let _ = writeln!(md, "## Machine\n\n{}\n", machine());
    let _ = writeln!(md, "## Simulation (paydesk-sim)\n");
    let _ = writeln!(md, "Register engine + mock PSP in one process, virtual time, seed 1, {checkouts} checkouts, audit included;");
    let _ = writeln!(md, "both sides on in-memory SQLite (the PSP's writes run inline on the simulation's thread, an explicit");
    let _ = writeln!(md, "simulation-only option; the server keeps its writer thread and group commit). Load average when it");
    let _ = writeln!(md, "finished: {} (1/5/15 min).\n", loadavg());
    let _ = writeln!(md, "| profile | checkouts/s | PSP requests/checkout | register crashes | audit violations |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    for (name, r, p) in [("calm", &calm, &calm_perf), ("chaos", &chaos, &chaos_perf)] {
        let _ = writeln!(
            md,
            "| {name} | {:.0} | {:.2} | {} | {} |",
            p.checkouts_per_sec,
            r.requests as f64 / r.checkouts as f64,
            r.register_restarts,
            r.violations_total
        );
    }
    let _ = writeln!(md, "\nChaos here is faithful (nothing avoided): audit violations, if any, are register bugs (see");
    let _ = writeln!(md, "`crates/sim/README.md` for the ones the simulation found).");
    let _ = writeln!(
        md,
        "\nchaos / calm speed: **{:.2}×**. Goal: 20,000 checkouts/s (1,000,000 in under a minute): **{:.1}%** of it reached (calm).\n",
        chaos_perf.checkouts_per_sec / calm_perf.checkouts_per_sec,
        calm_perf.checkouts_per_sec / 20_000.0 * 100.0
    );
    let _ = writeln!(md, "### Across cores\n");
    let _ = writeln!(md, "{cores} calm seeds of {checkouts} checkouts at once, one thread each (seeds are independent deterministic");
    let _ = writeln!(md, "runs; `make soak` runs them this way): **{par_rate:.0} checkouts/s** in total, {:.2}× the single-seed", par_rate / calm_perf.checkouts_per_sec);
    let _ = writeln!(md, "rate on {cores} cores, {par_violations} audit violations. At this machine's per-core rate the 20,000/s goal needs about");
    let _ = writeln!(md, "{:.0} such cores.\n", (20_000.0 / (par_rate / cores as f64)).ceil());
    let _ = writeln!(md, "## Offline drain (store-and-forward, record 0009)\n");
    let _ = writeln!(md, "{} payments queued offline (store-and-forward), then forwarded oldest first by `Engine::forward_offline` when the PSP is back,", d.queued);
    let _ = writeln!(md, "vs the PSP's own rate for {} create requests sent straight to it (in-process, in memory, each awaited).\n", d.n);
    let _ = writeln!(md, "| what | per second | total |");
    let _ = writeln!(md, "|---|---:|---:|");
    let _ = writeln!(md, "| register drain (ledger + PSP) | {drain_rate:.0} | {:.2} s |", d.drain_secs);
    let _ = writeln!(md, "| PSP alone | {psp_rate:.0} | {:.2} s |", d.psp_secs);
    let _ = writeln!(md, "\ndrain / PSP rate: **{:.2}×** (the register's cost on top of the PSP's: {:.2}×).\n", drain_rate / psp_rate, psp_rate / drain_rate);

    if let Some(dir) = collect {
        let _ = writeln!(md, "## Other crates' benchmarks (same `make bench` run)\n");
        for (file, title, cmd) in [
            ("ledger.txt", "Ledger: idempotent record vs raw durable insert", "cargo run --release -p paydesk-ledger --example bench"),
            ("mock-psp.txt", "Mock PSP: group commit vs naive commits at 1/16 clients, their fsync-free ceiling, replay p50/p99 at 1,000,000 keys, purge", "cargo run --release -p mock-psp -- bench"),
            ("cli.txt", "End to end over loopback: checkout through the engine vs the PSP alone", "paydesk-cli --db … --psp-url http://127.0.0.1:… bench"),
            ("app.txt", "The app: PayDesk vs a bare Tauri 2 app (start to interactive, idle memory, binary size)", "cargo bench -p paydesk-e2e --bench app"),
        ] {
            let path = std::path::Path::new(&dir).join(file);
            if file == "app.txt" && !path.exists() {
                continue; // optional: written only where the app's WebDriver harness can run
            }
            let _ = writeln!(md, "### {title}\n\n`{cmd}`\n");
            match std::fs::read_to_string(&path) {
                Ok(s) if !s.trim().is_empty() => {
                    let _ = writeln!(md, "```text\n{}\n```\n", s.trim_end());
                }
                _ => {
                    let _ = writeln!(md, "(not run: {} missing)\n", path.display());
                }
            }
        }
    }
    print!("{md}");
    if let Err(e) = std::fs::write(&out, &md) {
        eprintln!("cannot write {out}: {e}");
        std::process::exit(1);
    }
    eprintln!("wrote {out}");
    if !calm.ok() || !chaos.ok() {
        eprintln!("audit violations in the benchmark runs (seed 1): calm {}, chaos {}", calm.violations_total, chaos.violations_total);
    }
}
