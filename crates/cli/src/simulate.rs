//! `paydesk-cli simulate --seed S --checkouts N --profile chaos`: the deterministic
//! chaos simulation of `paydesk-sim` (register engine and mock PSP in one process,
//! virtual time, one seed), then its audit. Prints the JSON report (plus wall-clock
//! `perf`, which is not part of the deterministic report); exits 1 on any audit
//! violation, naming the seed that reproduces it.

use clap::Parser;
use paydesk_sim::{run_timed, LedgerMode, PlantedBug, Profile, SimConfig, Stored500};
use std::ffi::OsString;

#[derive(Parser, Debug)]
#[command(name = "paydesk-cli simulate", about = "Deterministic chaos simulation with an independent audit")]
struct Args {
    /// Seed of the run (same seed, same run).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of checkouts (sales).
    #[arg(long, default_value_t = 10_000)]
    checkouts: u64,
    /// calm | flaky | chaos
    #[arg(long, default_value = "chaos")]
    profile: String,
    /// Run this many seeds: seed, seed+1, …
    #[arg(long, default_value_t = 1)]
    seeds: u64,
    /// Keep the register's ledger in DIR/register.db (a real file, reopened after each
    /// simulated crash) instead of in memory.
    #[arg(long = "ledger-dir")]
    ledger_dir: Option<std::path::PathBuf>,
    /// Steer around the register bugs the simulation found (stored 500 on a
    /// capture/refund key; a refund past the dedup window that never reached the PSP).
    #[arg(long = "avoid-known-bugs")]
    avoid_known_bugs: bool,
    /// Where stored 500s are injected: everywhere | creates (overrides --avoid-known-bugs).
    #[arg(long = "stored-500")]
    stored_500: Option<String>,
    /// Plant a defect the audit must catch: fresh-key-retry.
    #[arg(long, hide = true)]
    bug: Option<String>,
    /// One-line summary per seed instead of the full report.
    #[arg(long)]
    summary: bool,
    /// Seeds run in parallel (each run is deterministic on its own thread).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Share of sales paid by several tenders (cash, card parts, cancels), 0 to 1.
    /// 0 (the default) is the single-card run each seed always gave.
    #[arg(long = "split-share", default_value_t = 0.0)]
    split_share: f64,
    /// Share of the single-tender sales paid on a simulated card reader (approve,
    /// decline, cancels, reader faults, crashes at each reader step), 0 to 1. 0 (the
    /// default) is the run each seed always gave.
    #[arg(long = "reader-share", default_value_t = 0.0)]
    reader_share: f64,
    /// After the run, replace the register and make this many restored returns and
    /// exchanges of its paid sales at the successor (crashes inside, judged by the restored
    /// audit's seven checks; record 0153). 0 (the default) is the run each seed always
    /// gave. At most 10,000.
    #[arg(long = "restored-ops", default_value_t = 0)]
    restored_ops: u32,
}

/// The most restored operations one run takes (the simulation's own cap).
const MAX_RESTORED_OPS: u32 = 10_000;

pub fn main(args: impl IntoIterator<Item = OsString>) -> i32 {
    let a = match Args::try_parse_from(args) {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 64 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let Some(profile) = Profile::parse(&a.profile) else {
        eprintln!("paydesk-cli simulate: --profile must be calm, flaky or chaos (got {:?})", a.profile);
        return 64;
    };
    if !(0.0..=1.0).contains(&a.split_share) {
        eprintln!("paydesk-cli simulate: --split-share must be between 0 and 1 (got {})", a.split_share);
        return 64;
    }
    if !(0.0..=1.0).contains(&a.reader_share) {
        eprintln!("paydesk-cli simulate: --reader-share must be between 0 and 1 (got {})", a.reader_share);
        return 64;
    }
    if a.restored_ops > MAX_RESTORED_OPS {
        eprintln!("paydesk-cli simulate: --restored-ops must be at most {MAX_RESTORED_OPS} (got {})", a.restored_ops);
        return 64;
    }
    let bug = match a.bug.as_deref() {
        None => None,
        Some("fresh-key-retry") => Some(PlantedBug::FreshKeyOnRetry),
        Some(other) => {
            eprintln!("paydesk-cli simulate: unknown --bug {other:?} (known: fresh-key-retry)");
            return 64;
        }
    };
    let seeds: Vec<u64> = (a.seed..a.seed.saturating_add(a.seeds.max(1))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::Mutex::new(Vec::new());
    let totals = std::sync::Mutex::new((0u64, 0u64, 0u64, 0u64));
    let started = std::time::Instant::now();
    let out = std::sync::Mutex::new(());
    std::thread::scope(|scope| {
        for _ in 0..a.jobs.clamp(1, 64) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(&seed) = seeds.get(i) else { break };
                match run_one(&a, profile, bug, seed) {
                    Ok((report, perf)) => {
                        let _g = out.lock().unwrap();
                        print_one(&a, seed, &report, &perf);
                        let mut t = totals.lock().unwrap();
                        t.0 += report.checkouts;
                        t.1 += report.violations_total;
                        t.2 += tally(&report, "split_sales");
                        t.3 += tally(&report, "card_tenders") + tally(&report, "cash_tenders");
                        if !report.ok() {
                            failed.lock().unwrap().push(seed);
                        }
                    }
                    Err(e) => {
                        eprintln!("paydesk-cli simulate: seed {seed}: {e}");
                        failed.lock().unwrap().push(seed);
                    }
                }
            });
        }
    });
    let mut failed = failed.into_inner().unwrap();
    failed.sort_unstable();
    if seeds.len() > 1 {
        let (n, v, splits, tenders) = *totals.lock().unwrap();
        let wall = started.elapsed().as_secs_f64();
        println!(
            "{}",
            serde_json::json!({
                "seeds": seeds.len(), "checkouts": n, "violations": v, "failed_seeds": failed,
                "split_sales": splits, "split_tenders": tenders,
                "wall_secs": (wall * 10.0).round() / 10.0, "checkouts_per_sec": (n as f64 / wall).round(),
                "jobs": a.jobs.clamp(1, 64),
            })
        );
    }
    if failed.is_empty() {
        0
    } else {
        eprintln!("paydesk-cli simulate: FAILED seeds {failed:?}");
        1
    }
}

fn run_one(a: &Args, profile: Profile, bug: Option<PlantedBug>, seed: u64) -> Result<(paydesk_sim::Report, paydesk_sim::Perf), String> {
    let mut cfg = SimConfig::new(seed, a.checkouts, profile).with_split_share(a.split_share).with_reader_share(a.reader_share);
    cfg.bug = bug;
    if a.restored_ops > 0 {
        // Sales the predecessor exchanged from are tried too: their exchange facts name the
        // credit per tender (record 0157), so the successor gives back what each has left.
        cfg = cfg.with_restored_ops(a.restored_ops);
        cfg.restored_exchanged_sales = true;
    }
    cfg.avoid_known_bugs = a.avoid_known_bugs;
    cfg.stored_500 = match a.stored_500.as_deref() {
        None => None,
        Some("everywhere") => Some(Stored500::Everywhere),
        Some("creates") => Some(Stored500::CreatesOnly),
        Some(other) => return Err(format!("--stored-500 must be everywhere or creates (got {other:?})")),
    };
    if let Some(d) = &a.ledger_dir {
        let dir = d.join(format!("seed-{seed}"));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let _ = std::fs::remove_file(dir.join("register.db"));
        cfg.ledger = LedgerMode::Dir(dir);
    }
    Ok(run_timed(cfg))
}

/// A split-sale counter of the report (0 when none).
fn tally(report: &paydesk_sim::Report, k: &str) -> u64 {
    report.tenders.get(k).copied().unwrap_or(0)
}

fn print_one(a: &Args, seed: u64, report: &paydesk_sim::Report, perf: &paydesk_sim::Perf) {
    if a.summary {
        println!(
            "{}",
            serde_json::json!({
                "seed": seed, "checkouts": report.checkouts, "violations": report.violations_total,
                "crashes": report.register_restarts, "retries": report.retries, "replays": report.replays,
                "conflicts": report.conflicts, "digest": report.state_digest,
                "checkouts_per_sec": perf.checkouts_per_sec.round(),
                "split_sales": tally(report, "split_sales"),
                "split_tenders": tally(report, "card_tenders") + tally(report, "cash_tenders"),
                "reader_sales": report.reader_sales,
                "restored_returns": report.tenders.get("restored_returns").copied().unwrap_or(0),
                "restored_exchanges": report.tenders.get("restored_exchanges").copied().unwrap_or(0),
            })
        );
    } else {
        let mut v = serde_json::to_value(report).unwrap_or_default();
        v["perf"] = serde_json::to_value(perf).unwrap_or_default();
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    }
    if !report.ok() {
        eprintln!(
            "paydesk-cli simulate: {} audit violation(s) with seed {seed}; reproduce with: paydesk-cli simulate --seed {seed} --checkouts {} --profile {}{}{}{}{}{}",
            report.violations_total,
            a.checkouts,
            a.profile,
            if a.avoid_known_bugs { " --avoid-known-bugs" } else { "" },
            a.stored_500.as_deref().map(|v| format!(" --stored-500 {v}")).unwrap_or_default(),
            if a.split_share > 0.0 { format!(" --split-share {}", a.split_share) } else { String::new() },
            if a.reader_share > 0.0 { format!(" --reader-share {}", a.reader_share) } else { String::new() },
            if a.restored_ops > 0 { format!(" --restored-ops {}", a.restored_ops) } else { String::new() }
        );
        for v in report.violations.iter().take(10) {
            eprintln!("  {v}");
        }
    }
}
