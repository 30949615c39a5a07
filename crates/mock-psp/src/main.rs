//! `mock-psp` binary. Command-line contract (issue 3):
//!
//! ```text
//! mock-psp --addr 127.0.0.1:12111 --db PATH|:memory: --secret-key sk_test_a [--secret-key sk_test_b …]
//!          [--retention 24h] [--lock-timeout 30s] [--faults none|flaky|chaos] [--drop-request P]
//!          [--drop-response P] [--slow P --slow-ms N] [--search-lag-ms N] [--seed N] [--admin]
//! mock-psp bench [--keys N] [--seconds S]
//! ```
use clap::{Parser, Subcommand};
use mock_psp::{DbLocation, FaultConfig, MockPsp};
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
    /// A merchant account's secret key (repeatable).
    #[arg(long = "secret-key")]
    secret_key: Vec<String>,
    /// How long idempotency keys are remembered.
    #[arg(long, default_value = "24h", value_parser = parse_duration)]
    retention: Duration,
    /// How long an executing request holds its key before a retry may re-drive it.
    #[arg(long = "lock-timeout", default_value = "30s", value_parser = parse_duration)]
    lock_timeout: Duration,
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
    /// Delay of a slow request, in milliseconds.
    #[arg(long = "slow-ms")]
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
    #[arg(long = "search-lag-ms", default_value_t = 0)]
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
    if cli.secret_key.is_empty() {
        eprintln!("mock-psp: at least one --secret-key is required (each is a merchant account)");
        std::process::exit(2);
    }
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
    let mut b = MockPsp::builder()
        .db_location(DbLocation::parse(&cli.db))
        .secret_keys(cli.secret_key)
        .retention(cli.retention)
        .lock_timeout(cli.lock_timeout)
        .faults(faults)
        .admin(cli.admin);
    if let Some(s) = cli.seed {
        b = b.seed(s);
    }
    let code = rt.block_on(async move {
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
    });
    std::process::exit(code);
}
