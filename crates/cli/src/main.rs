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
//! paydesk-cli … sale new|show|cash|tender|card|cancel|refund|return|product|rounding|day|discount   (sale.rs)
//! paydesk-cli … cart new|add|add-open|add-label|set-line|show   (cart.rs; open prices, record 0126; --grams, 0134)
//! paydesk-cli … cart hold|held|recall|discard   (cart_held.rs; held sales, record 0128)
//! paydesk-cli … cart exempt --cart N (--reason TEXT | --clear)   (cart_exempt.rs; record 0135)
//! paydesk-cli … tender-type add|list   (tender_type.rs; the store's own tenders, record 0118)
//! paydesk-cli … catalog import|export|list;  store show|set|seed   (catalog.rs)
//! paydesk-cli … shift open|paid-in|paid-out|x|close|z|status   (shift.rs; PINs on stdin)
//! paydesk-cli … sync pair URL (code on stdin) | run [--once] | status   (sync.rs)
//! paydesk-cli … sync restore --from NAME|ID [--page-rows N] | restored [--from ID]   (sync_restore.rs)
//! paydesk-cli … backup now [--keep N] | list | verify --copy P | restore --copy P   (backup.rs)
//! paydesk-cli … receipt --cart N --format text|html|escpos [--paper 58|80] [--print HOST:PORT]
//! ```
//! Errors print `{"error":{"code","message"}}` on stdout and the message on
//! stderr, exit 1 (usage errors exit 64). `PAYDESK_CRASH_AT=<point>` SIGKILLs
//! the process at a named point (after_key_commit, after_send,
//! after_response_before_commit, after_commit, mid_event_apply, mid_refund).


/// Print a line on stdout; a closed pipe (`| head`) is not an error.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

mod access;
mod args;
mod backup;
mod bench;
mod bench_reader;
mod cart;
mod cart_exempt;
mod cart_held;
mod catalog;
mod checkout;
mod counter_rules;
mod engine;
mod outcome;
mod parse;
mod payments;
mod progress;
mod reader;
mod receipt;
mod reports;
mod ryoshusho;
mod sale;
mod sale_exchange;
mod sale_return;
mod shift;
mod simulate;
mod sync;
mod sync_restore;
mod tender_type;

use args::{psp_key, Cli, Cmd};
use clap::Parser;
use outcome::fail;
use paydesk_domain::Currency;

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
    // The back office sync needs no PSP: it only reads and acknowledges the outbox.
    if let Cmd::Sync { cmd } = &cli.cmd {
        return sync::run(&cli.db, cmd).await;
    }
    // A copy only reads the ledger and a restore writes a new one: no PSP either.
    if let Cmd::Backup { cmd } = &cli.cmd {
        return backup::run(&cli.db, cmd).await;
    }
    let crash = engine::crash_target();
    if let Cmd::Checkout(a) = &cli.cmd {
        checkout::validate(a);
    }
    let engine = engine::build_engine(&cli, crash);
    let progress = cli.progress.then(|| progress::progress_printer(&engine));
    let code = match &cli.cmd {
        Cmd::Checkout(a) => checkout::run(&engine, a).await,
        Cmd::Recover => reports::recover(&engine).await,
        Cmd::Ledger => reports::ledger(&engine),
        Cmd::Refund { payment, amount, reason } => {
            payments::refund(&engine, payment, amount.as_deref(), reason.as_deref()).await
        }
        Cmd::Events => reports::events(&engine).await,
        Cmd::Capture { payment } => payments::capture(&engine, payment).await,
        Cmd::Cancel { payment } => payments::cancel(&engine, payment).await,
        Cmd::Show { payment } => payments::show(&engine, payment),
        Cmd::Audit { cmd } => access::audit(&engine, cmd),
        Cmd::Staff { cmd } => access::staff(&engine, cmd),
        Cmd::Shift { cmd } => shift::shift(&engine, cmd),
        Cmd::Sale { cmd } => sale::run(&engine, cmd).await,
        Cmd::Cart { cmd } => cart::run(&engine, cmd),
        Cmd::Reader { cmd } => reader::run(&engine, cmd, args::usage_error).await,
        Cmd::Catalog { cmd } => catalog::catalog(&engine, cmd),
        Cmd::Store { cmd } => catalog::store(&engine, cmd),
        Cmd::Receipt(a) => receipt::run(&engine, a),
        Cmd::TenderType { cmd } => tender_type::run(&engine, cmd),
        Cmd::Sync { .. } | Cmd::Backup { .. } => unreachable!("handled before the engine is built"),
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
