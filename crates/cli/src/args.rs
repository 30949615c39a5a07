//! The command line: global flags and subcommands, and the checks that refuse bad input
//! (a PSP key given twice or not at all, a search settle over an hour) before the ledger
//! is touched. The value parsers the subcommands share (durations, amounts) are in
//! `parse`, so the subcommands' modules need not import this one, which names them all.

use clap::{Parser, Subcommand};
use std::time::Duration;

use crate::parse::{parse_currency, parse_duration};
use paydesk_domain::Currency;

#[derive(Parser, Debug)]
#[command(name = "paydesk-cli", version, about = "PayDesk headless register: exactly-once checkout over a flaky PSP")]
pub(crate) struct Cli {
    /// The register's ledger (SQLite file; created if missing).
    #[arg(long, env = "PAYDESK_DB")]
    pub(crate) db: String,
    /// PSP base URL, e.g. http://127.0.0.1:12111
    #[arg(global = true, long = "psp-url", env = "PAYDESK_PSP_URL", default_value = "http://127.0.0.1:12111")]
    pub(crate) psp_url: String,
    /// PSP secret key (never printed). Required (except by `simulate`): this flag,
    /// PAYDESK_PSP_KEY, or --psp-key-file (both keep it out of the process list).
    #[arg(global = true, long = "psp-key", env = "PAYDESK_PSP_KEY", hide_env_values = true)]
    pub(crate) psp_key: Option<String>,
    /// File whose first line is the PSP secret key.
    #[arg(global = true, long = "psp-key-file", value_name = "PATH")]
    pub(crate) psp_key_file: Option<std::path::PathBuf>,
    /// Per-attempt timeout. Durations take a unit: 500ms, 30s, 10m, 24h, 1d.
    #[arg(global = true, long = "attempt-timeout", default_value = "5s", value_parser = parse_duration)]
    pub(crate) attempt_timeout: Duration,
    /// TCP connect timeout.
    #[arg(global = true, long = "connect-timeout", default_value = "2s", value_parser = parse_duration)]
    pub(crate) connect_timeout: Duration,
    /// Length of the interactive phase (then the background queue).
    #[arg(global = true, long = "interactive", default_value = "20s", value_parser = parse_duration)]
    pub(crate) interactive: Duration,
    /// Attempts in the interactive phase.
    #[arg(global = true, long = "max-attempts", default_value_t = 8)]
    pub(crate) max_attempts: u32,
    /// First backoff delay.
    #[arg(global = true, long = "backoff-min", default_value = "200ms", value_parser = parse_duration)]
    pub(crate) backoff_min: Duration,
    /// Largest backoff delay.
    #[arg(global = true, long = "backoff-max", default_value = "3s", value_parser = parse_duration)]
    pub(crate) backoff_max: Duration,
    /// The PSP's idempotency-key retention (dedup window).
    #[arg(global = true, long, default_value = "24h", value_parser = parse_duration)]
    pub(crate) retention: Duration,
    /// Safety margin under the retention.
    #[arg(global = true, long = "retention-margin", default_value = "1h", value_parser = parse_duration)]
    pub(crate) retention_margin: Duration,
    /// How long the PSP's search may lag behind its writes: a search that finds nothing
    /// proves "never charged" only this long after the last attempt that may have
    /// executed (Stripe: about a minute). At most 1h; 0s trusts search at once.
    #[arg(global = true, long = "search-settle", default_value = "2m", value_parser = parse_search_settle)]
    pub(crate) search_settle: Duration,
    /// Offline acceptance off.
    #[arg(global = true, long = "no-offline")]
    pub(crate) no_offline: bool,
    /// Offline limit per payment, in minor units of --offline-currency (default: about
    /// ¥10,000 in each currency, record 0129).
    #[arg(global = true, long = "offline-max-payment", requires = "offline_currency", value_parser = clap::value_parser!(i64).range(0..))]
    pub(crate) offline_max_payment: Option<i64>,
    /// Offline limit on the stored total, in minor units of --offline-currency (default:
    /// about ¥50,000 in each currency).
    #[arg(global = true, long = "offline-max-total", requires = "offline_currency", value_parser = clap::value_parser!(i64).range(0..))]
    pub(crate) offline_max_total: Option<i64>,
    /// The currency --offline-max-payment and --offline-max-total are in; other
    /// currencies keep their defaults.
    #[arg(global = true, long = "offline-currency", value_parser = parse_currency)]
    pub(crate) offline_currency: Option<Currency>,
    /// Offline limit on the number of stored payments.
    #[arg(global = true, long = "offline-max-count", default_value_t = 20)]
    pub(crate) offline_max_count: u32,
    /// Offline limit on the age of the oldest stored payment.
    #[arg(global = true, long = "offline-max-age", default_value = "20h", value_parser = parse_duration)]
    pub(crate) offline_max_age: Duration,
    /// Shift the register's clock forward (tests moving time with the PSP's test clock).
    #[arg(global = true, long = "clock-offset", default_value = "0s", value_parser = parse_duration, hide = true)]
    pub(crate) clock_offset: Duration,
    /// Print progress notifications as JSON lines on stderr.
    #[arg(global = true, long)]
    pub(crate) progress: bool,
    #[command(subcommand)]
    pub(crate) cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Cmd {
    /// Charge a new payment.
    Checkout(crate::checkout::CheckoutArgs),
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
    /// The audit log, one JSON object per line; `audit verify` checks its chain.
    Audit {
        #[command(subcommand)]
        cmd: Option<crate::access::AuditCmd>,
    },
    /// Staff members with hashed PINs (record 0062).
    Staff {
        #[command(subcommand)]
        cmd: crate::access::StaffCmd,
    },
    /// Shifts: open on a counted float, paid in/out, X report, close on a blind count
    /// with its Z report (record 0066). PINs on stdin.
    Shift {
        #[command(subcommand)]
        cmd: crate::shift::ShiftCmd,
    },
    /// The store's catalog: CSV import/export, list (record 0059).
    Catalog {
        #[command(subcommand)]
        cmd: crate::catalog::CatalogCmd,
    },
    /// The store's settings; the demo stores (record 0059).
    Store {
        #[command(subcommand)]
        cmd: crate::catalog::StoreCmd,
    },
    /// The back office: pair (code on stdin), run the sync, status (record 0045).
    Sync {
        #[command(subcommand)]
        cmd: crate::sync::SyncCmd,
    },
    /// Copies of the ledger taken while the register runs; restore into a fresh place (record 0116).
    Backup {
        #[command(subcommand)]
        cmd: crate::backup::BackupCmd,
    },
    /// The store's own tender types: add, list (record 0118).
    #[command(name = "tender-type")]
    TenderType {
        #[command(subcommand)]
        cmd: crate::tender_type::TenderTypeCmd,
    },
    /// A paid sale's receipt: rendered, or printed and recorded (record 0058).
    Receipt(crate::receipt::ReceiptArgs),
    /// A sale's lines by number: typed (open) prices, department keys, price labels (record
    /// 0126); held sales: park, list, recall, discard (record 0128).
    Cart {
        #[command(subcommand)]
        cmd: crate::cart::CartCmd,
    },
    /// A sale paid by several tenders: cash, cards, cancel, refund (record 0028).
    Sale {
        #[command(subcommand)]
        cmd: crate::sale::SaleCmd,
    },
    /// Card readers: locations, registration, card-present payments (decision 0102).
    Reader {
        #[command(subcommand)]
        cmd: crate::reader::ReaderCmd,
    },
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

/// `--search-settle`: a duration of at most 1 h ([`paydesk_register::MAX_SEARCH_SETTLE_MS`]).
fn parse_search_settle(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.as_millis() > u128::from(paydesk_register::MAX_SEARCH_SETTLE_MS) {
        return Err(format!("--search-settle must be at most 1h (got {s}): a payment search cannot find would wait that long to be settled"));
    }
    Ok(d)
}

/// A usage error (exit 64, like clap's own), printed the way clap prints them.
pub(crate) fn usage_error(message: &str) -> ! {
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

/// Said on stderr when the key was typed as `--psp-key`; never the key itself.
pub(crate) const KEY_IN_ARGV: &str = "warning: --psp-key puts the PSP secret key in the process list, where every user of this \
machine can read it; give it with the PAYDESK_PSP_KEY environment variable or --psp-key-file PATH (its first line) instead";

/// Whether the key came on the command line (clap also fills `psp_key` from the
/// environment, which nobody else can read).
pub(crate) fn key_in_argv(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    args.into_iter().take_while(|a| a != "--").any(|a| a == "--psp-key" || a.to_str().is_some_and(|s| s.starts_with("--psp-key=")))
}

/// The PSP secret key, given exactly one way; never a default (a register must not
/// charge on some built-in account) and never printed.
pub(crate) fn psp_key(cli: &Cli) -> String {
    let key = match (&cli.psp_key, &cli.psp_key_file) {
        (Some(_), Some(_)) => usage_error(
            "the PSP secret key is given twice (--psp-key or PAYDESK_PSP_KEY, and --psp-key-file); give it one way",
        ),
        (Some(k), None) => {
            if key_in_argv(std::env::args_os().skip(1)) {
                eprintln!("paydesk-cli: {KEY_IN_ARGV}");
            }
            k.clone()
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_typed_as_a_flag_is_told_apart_from_one_in_the_environment() {
        let argv = |a: &[&str]| key_in_argv(a.iter().map(std::ffi::OsString::from));
        assert!(argv(&["--db", "x", "--psp-key", "sk", "ledger"]));
        assert!(argv(&["--psp-key=sk", "ledger"]));
        assert!(!argv(&["--db", "x", "ledger"]));
        assert!(!argv(&["--psp-key-file", "/k", "ledger"]));
        assert!(!KEY_IN_ARGV.contains("sk_"), "the words name no key");
    }

    #[test]
    fn a_bare_number_flag_is_a_usage_error() {
        let e = Cli::try_parse_from(["paydesk-cli", "--db", "x.db", "--attempt-timeout", "30", "ledger"]).unwrap_err();
        assert!(e.to_string().contains("has no unit") && e.to_string().contains("30s"), "{e}");
        let ok = Cli::try_parse_from(["paydesk-cli", "--db", "x.db", "--attempt-timeout", "30s", "ledger"]).unwrap();
        assert_eq!(ok.attempt_timeout, Duration::from_secs(30));
    }
}
