//! `paydesk-cli`: the headless register over the same engine as the desktop app.
//!
//! ```text
//! paydesk-cli --db PATH --psp-url URL --psp-key KEY checkout --amount N --currency jpy
//!             [--card pm_card_visa] [--capture manual] [--after KEY [--override-reason TEXT]]
//!     one JSON object {checkout_key, state, psp_payment_id, attempts, …};
//!     exit 0 paid or authorized, 2 declined, 3 pending (outcome unknown or queued offline);
//!     1 failed (never charged: the PSP refused the request before executing it) and
//!     other errors, whose object carries the checkout key and state once a payment exists
//! paydesk-cli … recover        resolve in-flight payments/refunds, forward offline; JSON summary
//! paydesk-cli … ledger         every payment, one JSON object per line
//! paydesk-cli … refund --payment CHECKOUT_KEY [--amount N]
//! paydesk-cli … events         consume events once; JSON counts (applied, duplicates)
//! paydesk-cli … capture|cancel|show --payment KEY;  audit;  bench
//! ```
//! Errors print `{"error":{"code","message"}}` on stdout and the message on
//! stderr, exit 1 (usage errors exit 64). `PAYDESK_CRASH_AT=<point>` SIGKILLs
//! the process at a named point (after_key_commit, after_send,
//! after_response_before_commit, after_commit, mid_event_apply, mid_refund).

mod bench;
mod outcome;
use outcome::{checkout_error, exit_code};
mod simulate;

use clap::{Parser, Subcommand};
use paydesk_ledger::{CaptureMethod, CheckoutOptions, Currency, Ledger, Money};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{
    CheckoutOutcome, CrashPoint, DedupWindow, Engine, EngineConfig, EngineError, OfflineLimits, OsRandom,
    RetryPolicy, SystemClock,
};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Every duration flag: `humantime` forms — `500ms`, `30s`, `10m`, `24h`, `1d`, `1h 30m`.
/// A bare number is refused with the expected form named: it has no unit, and reading
/// "30" as 30 ms (or 30 s) would silently set a timeout a thousand times off.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    const FORM: &str = "a number with a unit, e.g. 30s, 500ms, 10m or 24h";
    let t = s.trim();
    if t.is_empty() {
        return Err(format!("empty duration: expected {FORM}"));
    }
    if t.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("duration {t:?} has no unit: expected {FORM}"));
    }
    humantime::parse_duration(t).map_err(|e| format!("invalid duration {t:?} ({e}): expected {FORM}"))
}

#[derive(Parser, Debug)]
#[command(name = "paydesk-cli", version, about = "PayDesk headless register: exactly-once checkout over a flaky PSP")]
struct Cli {
    /// The register's ledger (SQLite file; created if missing).
    #[arg(long, env = "PAYDESK_DB")]
    db: String,
    /// PSP base URL, e.g. http://127.0.0.1:12111
    #[arg(global = true, long = "psp-url", env = "PAYDESK_PSP_URL", default_value = "http://127.0.0.1:12111")]
    psp_url: String,
    /// PSP secret key (never printed). Required (except by `simulate`): this flag,
    /// PAYDESK_PSP_KEY, or --psp-key-file (both keep it out of the process list).
    #[arg(global = true, long = "psp-key", env = "PAYDESK_PSP_KEY", hide_env_values = true)]
    psp_key: Option<String>,
    /// File whose first line is the PSP secret key.
    #[arg(global = true, long = "psp-key-file", value_name = "PATH")]
    psp_key_file: Option<std::path::PathBuf>,
    /// Per-attempt timeout. Durations take a unit: 500ms, 30s, 10m, 24h, 1d.
    #[arg(global = true, long = "attempt-timeout", default_value = "5s", value_parser = parse_duration)]
    attempt_timeout: Duration,
    /// TCP connect timeout.
    #[arg(global = true, long = "connect-timeout", default_value = "2s", value_parser = parse_duration)]
    connect_timeout: Duration,
    /// Length of the interactive phase (then the background queue).
    #[arg(global = true, long = "interactive", default_value = "20s", value_parser = parse_duration)]
    interactive: Duration,
    /// Attempts in the interactive phase.
    #[arg(global = true, long = "max-attempts", default_value_t = 8)]
    max_attempts: u32,
    /// First backoff delay.
    #[arg(global = true, long = "backoff-min", default_value = "200ms", value_parser = parse_duration)]
    backoff_min: Duration,
    /// Largest backoff delay.
    #[arg(global = true, long = "backoff-max", default_value = "3s", value_parser = parse_duration)]
    backoff_max: Duration,
    /// The PSP's idempotency-key retention (dedup window).
    #[arg(global = true, long, default_value = "24h", value_parser = parse_duration)]
    retention: Duration,
    /// Safety margin under the retention.
    #[arg(global = true, long = "retention-margin", default_value = "1h", value_parser = parse_duration)]
    retention_margin: Duration,
    /// How long the PSP's search may lag behind its writes: a search that finds nothing
    /// proves "never charged" only this long after the last attempt that may have
    /// executed (Stripe: about a minute). At most 1h; 0s trusts search at once.
    #[arg(global = true, long = "search-settle", default_value = "2m", value_parser = parse_search_settle)]
    search_settle: Duration,
    /// Offline acceptance off.
    #[arg(global = true, long = "no-offline")]
    no_offline: bool,
    /// Offline limit per payment (minor units).
    #[arg(global = true, long = "offline-max-payment", default_value_t = 10_000)]
    offline_max_payment: i64,
    /// Offline limit on the stored total (minor units, per currency).
    #[arg(global = true, long = "offline-max-total", default_value_t = 50_000)]
    offline_max_total: i64,
    /// Offline limit on the number of stored payments.
    #[arg(global = true, long = "offline-max-count", default_value_t = 20)]
    offline_max_count: u32,
    /// Offline limit on the age of the oldest stored payment.
    #[arg(global = true, long = "offline-max-age", default_value = "20h", value_parser = parse_duration)]
    offline_max_age: Duration,
    /// Shift the register's clock forward (tests moving time with the PSP's test clock).
    #[arg(global = true, long = "clock-offset", default_value = "0s", value_parser = parse_duration, hide = true)]
    clock_offset: Duration,
    /// Print progress notifications as JSON lines on stderr.
    #[arg(global = true, long)]
    progress: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Charge a new payment.
    Checkout {
        /// Amount in minor units (JPY 500 = 500; USD 5.00 = 500).
        #[arg(long, allow_hyphen_values = true, required_unless_present = "cart")]
        amount: Option<String>,
        #[arg(long, required_unless_present = "cart")]
        currency: Option<String>,
        /// Charge this cart of the ledger instead ("Charge" pressed for a cart: an
        /// open checkout of the cart is reused, same key).
        #[arg(long, conflicts_with_all = ["amount", "currency", "after"])]
        cart: Option<i64>,
        /// Payment method token.
        #[arg(long, default_value = "pm_card_visa")]
        card: String,
        /// automatic | manual
        #[arg(long, default_value = "automatic")]
        capture: String,
        /// Explicit new payment after this checkout (e.g. another card after a decline).
        #[arg(long)]
        after: Option<String>,
        /// Start the new payment even though the previous outcome is unknown (audited).
        #[arg(long = "override-reason", requires = "after")]
        override_reason: Option<String>,
    },
    /// Resolve every in-flight payment and refund; forward the offline queue.
    Recover,
    /// Every payment, one JSON object per line (oldest first).
    Ledger,
    /// Refund a captured payment (all that is left, or --amount).
    Refund {
        #[arg(long)]
        payment: String,
        #[arg(long, allow_hyphen_values = true)]
        amount: Option<String>,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Consume PSP events once.
    Events,
    /// Capture an authorized payment.
    Capture {
        #[arg(long)]
        payment: String,
    },
    /// Void an authorized or queued-offline payment.
    Cancel {
        #[arg(long)]
        payment: String,
    },
    /// One payment with its timeline and refunds.
    Show {
        #[arg(long)]
        payment: String,
    },
    /// The audit log, one JSON object per line.
    Audit,
    /// Benchmark: end-to-end checkouts vs PSP-only requests over loopback.
    Bench {
        #[arg(long, default_value_t = 300)]
        n: usize,
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        #[arg(long, default_value = "jpy")]
        currency: String,
    },
}

/// Print a line on stdout; a closed pipe (`| head`) is not an error.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

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

fn crash_target() -> Option<CrashPoint> {
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

fn fail(code: &str, message: &str) -> ! {
    out!("{}", json!({"error": {"code": code, "message": message}}));
    eprintln!("paydesk-cli: {message}");
    std::process::exit(1)
}

fn fail_engine(e: &EngineError) -> ! {
    fail(e.code(), &e.to_string())
}

fn parse_amount(s: &str) -> Result<i64, String> {
    let t = s.trim();
    if t.is_empty() || !t.trim_start_matches('-').chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("amount {s:?} is not a whole number of minor units"));
    }
    let v: i64 = t.parse().map_err(|_| format!("amount {s:?} overflows (largest is {})", i64::MAX))?;
    if v <= 0 {
        return Err(format!("amount must be greater than zero (got {v})"));
    }
    Ok(v)
}

/// `--search-settle`: a duration of at most 1 h ([`paydesk_register::MAX_SEARCH_SETTLE_MS`]).
fn parse_search_settle(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.as_millis() > u128::from(paydesk_register::MAX_SEARCH_SETTLE_MS) {
        return Err(format!("--search-settle must be at most 1h (got {s}): a payment search cannot find would wait that long to be settled"));
    }
    Ok(d)
}

/// A usage error (exit 64, like clap's own), printed the way clap prints them.
fn usage_error(message: &str) -> ! {
    use clap::CommandFactory as _;
    let _ = Cli::command().error(clap::error::ErrorKind::MissingRequiredArgument, message).print();
    std::process::exit(64)
}

/// Longest key file read: a key is one short line.
const MAX_KEY_FILE_BYTES: u64 = 4096;

/// The first line of `--psp-key-file`, trimmed.
fn read_key_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read as _;
    let what = format!("--psp-key-file {}", path.display());
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_KEY_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    let Some(line) = bytes.split(|b| *b == b'\n').next().filter(|l| l.len() as u64 <= MAX_KEY_FILE_BYTES) else {
        return Err(format!("{what}: the first line is longer than {MAX_KEY_FILE_BYTES} bytes; it should hold the key alone"));
    };
    let line = std::str::from_utf8(line).map_err(|_| format!("{what}: the first line is not text"))?.trim();
    if line.is_empty() {
        return Err(format!("{what}: the first line is empty; it should hold the key"));
    }
    Ok(line.to_string())
}

/// The PSP secret key, given exactly one way; never a default (a register must not
/// charge on some built-in account) and never printed.
fn psp_key(cli: &Cli) -> String {
    let key = match (&cli.psp_key, &cli.psp_key_file) {
        (Some(_), Some(_)) => usage_error(
            "the PSP secret key is given twice (--psp-key or PAYDESK_PSP_KEY, and --psp-key-file); give it one way",
        ),
        (Some(k), None) => k.clone(),
        (None, Some(path)) => read_key_file(path).unwrap_or_else(|e| usage_error(&e)),
        (None, None) => String::new(),
    };
    if key.is_empty() {
        usage_error(
            "no PSP secret key: give it with --psp-key KEY, the PAYDESK_PSP_KEY environment variable, or --psp-key-file PATH (its first line)",
        );
    }
    key
}

fn build_engine(cli: &Cli, crash: Option<CrashPoint>) -> Engine {
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
            max_per_payment: cli.offline_max_payment,
            max_total: cli.offline_max_total,
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


fn main() {
    // `simulate` runs the in-process simulation: no --db, no PSP URL (paydesk-sim).
    if std::env::args().nth(1).as_deref() == Some("simulate") {
        std::process::exit(simulate::main(std::env::args_os().skip(1)));
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 64 } else { 0 };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("PAYDESK_LOG"))
        .with_writer(std::io::stderr)
        .try_init();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    let code = rt.block_on(run(cli));
    std::process::exit(code);
}

async fn run(cli: Cli) -> i32 {
    let crash = crash_target();
    // Validate input before touching the ledger: bad input loses nothing.
    if let Cmd::Checkout { amount, currency, capture, .. } = &cli.cmd {
        if let Some(amount) = amount {
            if let Err(e) = parse_amount(amount) {
                fail("invalid_input", &e);
            }
        }
        if let Some(currency) = currency {
            if currency.parse::<Currency>().is_err() {
                fail("invalid_input", &format!("unknown currency {currency:?} (known: jpy, usd, eur, gbp, krw)"));
            }
        }
        if capture.parse::<CaptureMethod>().is_err() {
            fail("invalid_input", &format!("--capture must be automatic or manual (got {capture:?})"));
        }
    }
    let engine = build_engine(&cli, crash);
    let progress = cli.progress.then(|| progress_printer(&engine));
    let code = match &cli.cmd {
        Cmd::Checkout { amount, currency, cart, card, capture, after, override_reason } => {
            let mut options = CheckoutOptions::card(card.clone());
            options.capture_method = capture.parse().unwrap_or(CaptureMethod::Automatic);
            let res = match (cart, after) {
                (Some(cart), _) => engine.charge_cart(paydesk_ledger::CartId(*cart), options).await,
                (None, Some(prev)) => engine.new_payment_after(prev, options, override_reason.as_deref()).await,
                (None, None) => {
                    let amount = parse_amount(amount.as_deref().unwrap_or(""))
                        .unwrap_or_else(|e| fail("invalid_input", &e));
                    let currency: Currency = currency
                        .as_deref()
                        .unwrap_or("")
                        .parse()
                        .unwrap_or_else(|_| fail("invalid_input", "unknown currency"));
                    let money =
                        Money::positive(amount, currency).unwrap_or_else(|e| fail("invalid_input", &e.to_string()));
                    engine.checkout_amount(money, options).await
                }
            };
            match res {
                // Never charged, and not a decline: an error object, with the key.
                Ok(r) if r.outcome == CheckoutOutcome::Failed => {
                    let code = r.error_code.clone().unwrap_or_else(|| "failed".into());
                    let message = r.message.clone().unwrap_or_default();
                    checkout_error(&code, &format!("{message}; nothing was charged"), Some(&r.checkout_key), Some(r.state.as_str()))
                }
                Ok(r) => {
                    out!("{}", serde_json::to_string(&r).unwrap());
                    exit_code(r.outcome)
                }
                Err(e) => {
                    let state = e.checkout_key().and_then(|k| engine.status_of(k).ok()).map(|r| r.state.as_str());
                    // The engine names the later payment; how to start from it is this CLI's flag.
                    let message = if let EngineError::LaterPaymentExists { later, .. } = &e {
                        format!("{e} (use --after {later})")
                    } else {
                        e.to_string()
                    };
                    checkout_error(e.code(), &message, e.checkout_key(), state)
                }
            }
        }
        Cmd::Recover => match engine.recover().await {
            Ok(r) => {
                if r.declined_after_forward > 0 {
                    eprintln!(
                        "paydesk-cli: ATTENTION: {} offline payment(s) were DECLINED when forwarded — collect payment another way (see `ledger`)",
                        r.declined_after_forward
                    );
                }
                for e in &r.errors {
                    eprintln!("paydesk-cli: recover: {e}");
                }
                out!("{}", serde_json::to_string(&r).unwrap());
                0
            }
            Err(e) => fail_engine(&e),
        },
        Cmd::Ledger => {
            let mut all = engine.list_payments(i64::MAX, 0).unwrap_or_else(|e| fail_engine(&e));
            all.reverse();
            for p in all {
                out!(
                    "{}",
                    json!({
                        "checkout_key": p.idempotency_key,
                        "state": p.state.as_str(),
                        "amount": p.amount.amount_minor,
                        "currency": p.amount.currency.code(),
                        "psp_payment_id": p.psp_payment_id,
                        "refunded": p.refunded_minor,
                        "offline": p.offline,
                        "created_at_ms": p.created_at_ms,
                        "last_error": p.last_error,
                    })
                );
            }
            0
        }
        Cmd::Refund { payment, amount, reason } => {
            let amount = amount.as_deref().map(|a| parse_amount(a).unwrap_or_else(|e| fail("invalid_input", &e)));
            match engine.refund(payment, amount, reason.as_deref()).await {
                Ok(r) => {
                    out!("{}", serde_json::to_string(&r).unwrap());
                    match r.state.as_str() {
                        "succeeded" => 0,
                        "failed" => 2,
                        _ => 3,
                    }
                }
                Err(e) => fail_engine(&e),
            }
        }
        Cmd::Events => match engine.consume_events().await {
            Ok(r) => {
                out!("{}", serde_json::to_string(&r).unwrap());
                0
            }
            Err(e) => fail_engine(&e),
        },
        Cmd::Capture { payment } => match engine.capture(payment).await {
            Ok(r) => {
                out!("{}", serde_json::to_string(&r).unwrap());
                exit_code(r.outcome)
            }
            Err(e) => fail_engine(&e),
        },
        Cmd::Cancel { payment } => match engine.cancel(payment).await {
            Ok(r) => {
                out!("{}", serde_json::to_string(&r).unwrap());
                0
            }
            Err(e) => fail_engine(&e),
        },
        Cmd::Show { payment } => match engine.payment_view(payment) {
            Ok(v) => {
                out!("{}", serde_json::to_string(&v).unwrap());
                0
            }
            Err(e) => fail_engine(&e),
        },
        Cmd::Audit => {
            let log = engine.with_ledger(|l| l.audit_log()).unwrap_or_else(|e| fail("ledger", &e.to_string()));
            for a in log {
                out!("{}", serde_json::to_string(&a).unwrap());
            }
            0
        }
        Cmd::Bench { n, concurrency, currency } => {
            let currency: Currency = currency.parse().unwrap_or_else(|_| fail("invalid_input", "unknown currency"));
            bench::run(&cli.psp_url, &psp_key(&cli), &cli.db, *n, *concurrency, currency).await
        }
    };
    if let Some((stop, printer)) = progress {
        // The last notifications (an alarm raised just before the command returned) are
        // printed before the process exits, not lost with the printer task.
        let _ = stop.send(());
        let _ = printer.await;
    }
    code
}

/// Prints the engine's notifications as JSON lines on stderr while the command runs;
/// on `stop`, prints what is still queued and ends.
fn progress_printer(engine: &Engine) -> (tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    use tokio::sync::broadcast::error::{RecvError, TryRecvError};
    let mut rx = engine.subscribe();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let print = |n: &paydesk_register::Notification| eprintln!("{}", serde_json::to_string(n).unwrap_or_default());
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                n = rx.recv() => match n {
                    Ok(n) => print(&n),
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                },
                _ = &mut stop_rx => loop {
                    match rx.try_recv() {
                        Ok(n) => print(&n),
                        Err(TryRecvError::Lagged(_)) => continue,
                        Err(_) => return,
                    }
                },
            }
        }
    });
    (stop_tx, task)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration(" 24h "), Ok(Duration::from_secs(24 * 3600)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        for bad in ["30", "0", ""] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("30s"), "{bad:?}: {e}");
        }
        let e = parse_duration("30 parsecs").unwrap_err();
        assert!(e.contains("invalid duration") && e.contains("30s"), "{e}");
    }

    #[test]
    fn a_bare_number_flag_is_a_usage_error() {
        let e = Cli::try_parse_from(["paydesk-cli", "--db", "x.db", "--attempt-timeout", "30", "ledger"]).unwrap_err();
        assert!(e.to_string().contains("has no unit") && e.to_string().contains("30s"), "{e}");
        let ok = Cli::try_parse_from(["paydesk-cli", "--db", "x.db", "--attempt-timeout", "30s", "ledger"]).unwrap();
        assert_eq!(ok.attempt_timeout, Duration::from_secs(30));
    }
}
