//! `mock-psp` binary. Command-line contract (issue 3):
//!
//! ```text
//! mock-psp --addr 127.0.0.1:12111 --db PATH|:memory: --secret-key sk_test_a [--secret-key sk_test_b …]
//!          [--secret-key-file PATH] (and/or MOCK_PSP_SECRET_KEYS=sk_a,sk_b)
//!          [--retention 24h] [--lock-timeout 30s] [--faults none|flaky|chaos] [--drop-request P]
//!          [--drop-response P] [--slow P --slow-ms N] [--search-lag-ms N] [--seed N] [--admin]
//!          [--header-timeout 10s] [--idle-timeout 75s] [--max-connections 512]
//! mock-psp bench [--keys N] [--seconds S]
//! ```
use clap::{Parser, Subcommand};
use mock_psp::admin::{MAX_SEARCH_LAG_MS, MAX_SLOW_MS};
use mock_psp::{DbLocation, FaultConfig, MockPsp, MockPspBuilder};
use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

/// A duration flag (`--retention 24h`, `--lock-timeout 30s`, `500ms`, `1d`, `1h 30m`),
/// parsed by `humantime`. A bare number is refused: `--retention 24` could mean
/// seconds or hours, and guessing wrong silently changes how long keys are kept.
fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s:?} has no unit: write it with one, e.g. {s}s, {s}ms, {s}m or {s}h"));
    }
    humantime::parse_duration(s).map_err(|e| format!("invalid duration {s:?}: {e} (examples: 500ms, 30s, 10m, 24h, 1d)"))
}

/// A duration flag with an upper bound (and above zero).
fn bounded(s: &str, max: Duration, what: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() || d > max {
        return Err(format!("{what} must be more than 0 and at most {}", humantime::format_duration(max)));
    }
    Ok(d)
}

fn parse_retention(s: &str) -> Result<Duration, String> {
    bounded(s, Duration::from_secs(3650 * 86400), "--retention")
}
fn parse_lock_timeout(s: &str) -> Result<Duration, String> {
    bounded(s, Duration::from_secs(86400), "--lock-timeout")
}
fn parse_header_timeout(s: &str) -> Result<Duration, String> {
    bounded(s, Duration::from_secs(3600), "--header-timeout")
}
fn parse_idle_timeout(s: &str) -> Result<Duration, String> {
    bounded(s, Duration::from_secs(86400), "--idle-timeout")
}

fn parse_prob(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a probability between 0 and 1")),
    }
}

#[derive(Parser, Debug)]
#[command(name = "mock-psp", version, about = "A flaky, Stripe-compatible mock payment processor with a real idempotency layer")]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// Address to listen on (port 0 = any free port).
    #[arg(long, default_value = "127.0.0.1:12111")]
    addr: SocketAddr,
    /// SQLite database file, or :memory:
    #[arg(long, default_value = "mock-psp.sqlite3")]
    db: String,
    /// A merchant account's secret key (repeatable). Visible to anyone who can list
    /// processes: prefer --secret-key-file or MOCK_PSP_SECRET_KEYS (comma-separated).
    #[arg(long = "secret-key")]
    secret_key: Vec<String>,
    /// A file of secret keys, one per line (blank lines and # comments ignored); must
    /// not be readable by group or others (chmod 600).
    #[arg(long = "secret-key-file")]
    secret_key_file: Option<std::path::PathBuf>,
    /// How long idempotency keys are remembered (at most 3650d).
    #[arg(long, default_value = "24h", value_parser = parse_retention)]
    retention: Duration,
    /// How long an executing request holds its key before a retry may re-drive it (at most 1d).
    #[arg(long = "lock-timeout", default_value = "30s", value_parser = parse_lock_timeout)]
    lock_timeout: Duration,
    /// How long a client has to send a request's headers after connecting, and its
    /// body after its headers (at most 1h).
    #[arg(long = "header-timeout", default_value = "10s", value_parser = parse_header_timeout)]
    header_timeout: Duration,
    /// How long a kept-alive connection may sit idle between requests (at most 1d).
    #[arg(long = "idle-timeout", default_value = "75s", value_parser = parse_idle_timeout)]
    idle_timeout: Duration,
    /// Most connections open at once; past it the idlest connection that is not
    /// executing a request is closed for the new one (or the new one gets a 503).
    #[arg(long = "max-connections", default_value_t = 512, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    max_connections: u64,
    /// Fault preset.
    #[arg(long, default_value = "none", value_parser = ["none", "flaky", "chaos"])]
    faults: String,
    /// Probability of dropping a request unanswered (case A).
    #[arg(long = "drop-request", value_parser = parse_prob)]
    drop_request: Option<f64>,
    /// Probability of executing, committing, then closing without answering (case B).
    #[arg(long = "drop-response", value_parser = parse_prob)]
    drop_response: Option<f64>,
    /// Probability of executing slowly (case C).
    #[arg(long, value_parser = parse_prob)]
    slow: Option<f64>,
    /// Delay of a slow request, in milliseconds (at most one hour).
    #[arg(long = "slow-ms", value_parser = clap::value_parser!(u64).range(0..=MAX_SLOW_MS))]
    slow_ms: Option<u64>,
    /// Probability of a 503 before execution.
    #[arg(long = "transient-503", value_parser = parse_prob)]
    transient_503: Option<f64>,
    /// Probability of a 429 before execution.
    #[arg(long = "transient-429", value_parser = parse_prob)]
    transient_429: Option<f64>,
    /// Probability that an events list re-delivers older events, out of order.
    #[arg(long = "duplicate-events", value_parser = parse_prob)]
    duplicate_events: Option<f64>,
    /// Search lag in milliseconds: `GET /v1/payment_intents/search` leaves out
    /// PaymentIntents created less than this long ago, as Stripe's eventually
    /// consistent search does (0 = none).
    #[arg(long = "search-lag-ms", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=MAX_SEARCH_LAG_MS))]
    search_lag_ms: u64,
    /// Seed for faults and ids (reproducible runs).
    #[arg(long)]
    seed: Option<u64>,
    /// Enable the /__admin endpoints (faults, offline, clock, stats).
    #[arg(long)]
    admin: bool,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Throughput, replay latency and purge-stall benchmark (prints ratios from one run).
    Bench(mock_psp::bench::BenchArgs),
}

fn main() {
    let cli = Cli::parse();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    if let Some(Cmd::Bench(args)) = cli.cmd {
        if let Err(e) = rt.block_on(mock_psp::bench::run(args)) {
            eprintln!("bench failed: {e}");
            std::process::exit(1);
        }
        return;
    }
    let keys = secret_keys(&cli);
    let faults = faults_of(&cli);
    let mut b = MockPsp::builder()
        .db_location(DbLocation::parse(&cli.db))
        .secret_keys(keys)
        .retention(cli.retention)
        .lock_timeout(cli.lock_timeout)
        .header_timeout(cli.header_timeout)
        .idle_timeout(cli.idle_timeout)
        .max_connections(usize::try_from(cli.max_connections).unwrap_or(usize::MAX))
        .faults(faults)
        .admin(cli.admin);
    if let Some(s) = cli.seed {
        b = b.seed(s);
    }
    let code = rt.block_on(serve(b, cli));
    std::process::exit(code);
}

/// The merchant accounts' secret keys: a file, the environment, or `--secret-key`; at
/// least one, or the process exits with status 2.
fn secret_keys(cli: &Cli) -> Vec<String> {
    let env_keys = std::env::var(mock_psp::keys::ENV_VAR).ok();
    match mock_psp::keys::load(&cli.secret_key, env_keys.as_deref(), cli.secret_key_file.as_deref()) {
        Ok(k) if k.is_empty() => {
            eprintln!("mock-psp: at least one secret key is required (each is a merchant account): --secret-key-file PATH, {}=sk_a,sk_b, or --secret-key", mock_psp::keys::ENV_VAR);
            std::process::exit(2);
        }
        Ok(k) => k,
        Err(e) => {
            eprintln!("mock-psp: {e}");
            std::process::exit(2);
        }
    }
}

/// The fault rates: the preset, then each rate given on the command line.
fn faults_of(cli: &Cli) -> FaultConfig {
    let mut faults = FaultConfig::preset(&cli.faults).unwrap_or_default();
    if let Some(p) = cli.drop_request {
        faults.drop_request = p;
    }
    if let Some(p) = cli.drop_response {
        faults.drop_response = p;
    }
    if let Some(p) = cli.slow {
        faults.slow = p;
    }
    if let Some(ms) = cli.slow_ms {
        faults.slow_ms = ms;
    }
    if let Some(p) = cli.transient_503 {
        faults.transient_503 = p;
    }
    if let Some(p) = cli.transient_429 {
        faults.transient_429 = p;
    }
    if let Some(p) = cli.duplicate_events {
        faults.duplicate_events = p;
    }
    faults.search_lag_ms = cli.search_lag_ms;
    faults
}

/// Opens the store and serves until SIGTERM or SIGINT; the process's exit status.
async fn serve(b: MockPspBuilder, cli: Cli) -> i32 {
    let psp = match b.build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("mock-psp: cannot open database {}: {e}", cli.db);
            return 1;
        }
    };
    let server = match psp.serve(cli.addr).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mock-psp: cannot listen on {}: {e}", cli.addr);
            return 1;
        }
    };
    // The handlers go in before "listening" is printed: whoever waits for that line
    // may send SIGTERM at once, and without a handler it kills the process uncleanly
    // (a make test run under load caught exactly that).
    use tokio::signal::unix::{signal, SignalKind};
    let (mut term, mut int) = (signal(SignalKind::terminate()).expect("SIGTERM handler"), signal(SignalKind::interrupt()).expect("SIGINT handler"));
    println!("listening on http://{}", server.local_addr());
    let _ = std::io::stdout().flush();
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    eprintln!("mock-psp: stopping");
    server.shutdown().await;
    eprintln!("mock-psp: stopped");
    0
}
