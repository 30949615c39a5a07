//! The register engine this process runs: the PSP transport and the ledger from the
//! flags, the retry policies and limits, and the `PAYDESK_CRASH_AT` hook that kills
//! the process at a named crash point (the crash tests drive it).

use crate::args::{psp_key, Cli};
use crate::outcome::fail;
use paydesk_ledger::Ledger;
use paydesk_register::transport::HttpTransport;
use paydesk_register::{
    CrashPoint, DedupWindow, Engine, EngineConfig, MoneyCap, OfflineCaps, OfflineLimits, OsRandom, RetryPolicy, SystemClock,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

static AFTER_SEND_ARMED: AtomicBool = AtomicBool::new(false);

fn sigkill_self() -> ! {
    // SAFETY: plain syscalls on our own pid.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

pub(crate) fn crash_target() -> Option<CrashPoint> {
    let v = std::env::var("PAYDESK_CRASH_AT").ok()?;
    if v.is_empty() {
        return None;
    }
    match CrashPoint::parse(&v) {
        Some(p) => Some(p),
        None => {
            eprintln!("PAYDESK_CRASH_AT={v:?} is not a crash point; ignoring");
            None
        }
    }
}

pub(crate) fn build_engine(cli: &Cli, crash: Option<CrashPoint>) -> Engine {
    // The PSP settings first: a command refused for them leaves the ledger untouched.
    let mut transport = match HttpTransport::new(&cli.psp_url, &psp_key(cli), cli.connect_timeout) {
        Ok(t) => t,
        Err(e) => fail("psp_config", &format!("PSP connection misconfigured: {e}")),
    };
    let ledger = match Ledger::open(&cli.db) {
        Ok(l) => l,
        Err(e) => {
            // Some ledger errors name the file already; say it once.
            let m = e.to_string();
            let named = !cli.db.is_empty() && m.contains(cli.db.as_str());
            fail("ledger", &if named { m } else { format!("cannot open ledger {:?}: {m}", cli.db) })
        }
    };
    if crash == Some(CrashPoint::AfterSend) {
        transport = transport.with_after_send_hook(Arc::new(|| {
            // The request has been handed to the connection: die shortly after,
            // before anything about its answer can be committed.
            AFTER_SEND_ARMED.store(true, Ordering::SeqCst);
            std::thread::spawn(|| {
                std::thread::sleep(Duration::from_millis(100));
                sigkill_self();
            });
        }));
    }
    let interactive = RetryPolicy {
        min_delay: cli.backoff_min,
        max_delay: cli.backoff_max,
        max_attempts: cli.max_attempts.max(1),
        phase_budget: cli.interactive,
        ..RetryPolicy::interactive()
    };
    let background = RetryPolicy {
        min_delay: cli.backoff_min,
        max_delay: cli.backoff_max,
        ..RetryPolicy::background()
    };
    let cfg = EngineConfig {
        attempt_timeout: cli.attempt_timeout,
        interactive,
        background,
        window: DedupWindow { retention: cli.retention, margin: cli.retention_margin },
        offline: OfflineLimits {
            enabled: !cli.no_offline,
            caps: offline_caps(cli),
            max_count: cli.offline_max_count,
            max_age: cli.offline_max_age,
        },
        search_settle_ms: cli.search_settle.as_millis() as u64,
        ..EngineConfig::default()
    };
    let clock = Arc::new(SystemClock::with_offset_ms(cli.clock_offset.as_millis() as i64));
    let engine = Engine::new(ledger, Arc::new(transport), clock, Arc::new(OsRandom), cfg);
    match crash {
        Some(target) => engine.with_crash_hook(Arc::new(move |p: CrashPoint| {
            if p == target {
                sigkill_self();
            }
            if AFTER_SEND_ARMED.load(Ordering::SeqCst) && p == CrashPoint::AfterResponseBeforeCommit {
                // after_send: an answer came back before the kill; never commit it.
                loop {
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        })),
        None => engine,
    }
}

/// The offline money caps the flags set: in `--offline-currency`, a flag not given
/// keeping that currency's default (record 0129).
fn offline_caps(cli: &Cli) -> OfflineCaps {
    match cli.offline_currency {
        None => OfflineCaps::default(),
        Some(currency) => {
            let default = MoneyCap::default_for(currency);
            OfflineCaps::own(
                currency,
                MoneyCap {
                    per_payment: cli.offline_max_payment.unwrap_or(default.per_payment),
                    total: cli.offline_max_total.unwrap_or(default.total),
                },
            )
        }
    }
}
