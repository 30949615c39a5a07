//! `paydesk-cli reader …`: card-present payments on a server-driven reader (decision 0102)
//! over the same engine as the app. Every command prints one JSON object.
//!
//! ```text
//! reader location --name N --line1 L --city C --country CC     a location at the PSP; prints its id
//! reader register --code CODE --label L --location tml_…       a reader (simulated-wpe: simulated)
//! reader list                                                  the readers this register knows
//! reader charge --reader tmr_… --amount MINOR --currency C [--customer approved|declined|insufficient_funds]
//! reader status --payment KEY                                  reads the reader and the intent now
//! reader again --payment KEY [--customer …]                    present again, same intent
//! reader cancel --payment KEY [--abandon]                      cancel on the reader (and the intent)
//! ```
//! `--customer` plays the customer on a simulated reader (test mode only): it taps once the
//! reader is collecting. Exit: 0 paid/authorized, 2 not charged (declined, canceled, busy,
//! unavailable: nothing charged), 3 waiting or pending (the checkout key is printed).

use crate::outcome::fail_engine;
use clap::{Subcommand, ValueEnum};
use paydesk_domain::{Currency, Money};
use paydesk_register::{Engine, ReaderOutcome, ReaderReport, TestCard};
use serde_json::json;
use std::time::Duration;

/// Longest the simulated customer waits for the reader to start collecting.
const CUSTOMER_WAIT: Duration = Duration::from_secs(10);
const CUSTOMER_POLL: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum Customer {
    Approved,
    Declined,
    InsufficientFunds,
}

impl Customer {
    fn card(self) -> TestCard {
        match self {
            Customer::Approved => TestCard::Approved,
            Customer::Declined => TestCard::Declined,
            Customer::InsufficientFunds => TestCard::InsufficientFunds,
        }
    }
}

#[derive(Subcommand, Debug)]
pub(crate) enum ReaderCmd {
    /// Create a location at the PSP.
    Location {
        #[arg(long)]
        name: String,
        #[arg(long)]
        line1: String,
        #[arg(long)]
        city: String,
        #[arg(long)]
        country: String,
    },
    /// Register a reader by its registration code.
    Register {
        #[arg(long)]
        code: String,
        #[arg(long)]
        label: String,
        #[arg(long)]
        location: String,
    },
    /// The readers this register knows.
    List,
    /// Take a payment on a reader.
    Charge {
        #[arg(long)]
        reader: String,
        #[arg(long)]
        amount: String,
        #[arg(long)]
        currency: String,
        #[arg(long, value_enum)]
        customer: Option<Customer>,
    },
    /// Read the reader and the intent now and resolve what they prove.
    Status {
        #[arg(long)]
        payment: String,
    },
    /// Present again on the same intent (after a decline or a cancel).
    Again {
        #[arg(long)]
        payment: String,
        #[arg(long, value_enum)]
        customer: Option<Customer>,
    },
    /// Cancel on the reader; with --abandon also cancel the intent.
    Cancel {
        #[arg(long)]
        payment: String,
        #[arg(long)]
        abandon: bool,
    },
}

fn exit_of(o: ReaderOutcome) -> i32 {
    match o {
        ReaderOutcome::Paid | ReaderOutcome::Authorized => 0,
        ReaderOutcome::NotCharged { .. } | ReaderOutcome::ReaderBusy | ReaderOutcome::ReaderUnavailable { .. } => 2,
        ReaderOutcome::WaitingForCard | ReaderOutcome::Pending { .. } => 3,
    }
}

fn print(r: &ReaderReport) -> i32 {
    out!("{}", serde_json::to_string(r).expect("a report serializes"));
    exit_of(r.outcome)
}

/// The simulated customer: waits (bounded) until the reader collects, then taps.
async fn customer_taps(engine: &Engine, reader: &str, who: Customer) {
    let tries = CUSTOMER_WAIT.as_millis() / CUSTOMER_POLL.as_millis();
    for _ in 0..tries {
        if let Ok(r) = engine.reader_at_psp(reader).await {
            let collecting = r.action.as_ref().is_some_and(|a| a.collecting());
            if collecting {
                if let Err(e) = engine.simulate_customer(reader, who.card()).await {
                    eprintln!("paydesk-cli: the simulated customer could not tap: {e}");
                }
                return;
            }
        }
        tokio::time::sleep(CUSTOMER_POLL).await;
    }
    eprintln!("paydesk-cli: the reader never started collecting; the simulated customer did not tap");
}

/// Runs `call` while the simulated customer (if any) taps on `reader`.
async fn with_customer<F>(engine: &Engine, reader: &str, who: Option<Customer>, call: F) -> Result<ReaderReport, paydesk_register::EngineError>
where
    F: std::future::Future<Output = Result<ReaderReport, paydesk_register::EngineError>>,
{
    match who {
        None => call.await,
        Some(w) => {
            let (res, ()) = tokio::join!(call, customer_taps(engine, reader, w));
            res
        }
    }
}

/// `usage_error` is `args::usage_error`, handed in: it prints clap's usage of the whole
/// command line, which `args` builds from every subcommand (this one's too), so this
/// module does not import `args` back.
pub(crate) async fn run(engine: &Engine, cmd: &ReaderCmd, usage_error: fn(&str) -> !) -> i32 {
    match cmd {
        ReaderCmd::Location { name, line1, city, country } => {
            match engine.create_reader_location(name, &[("line1", line1), ("city", city), ("country", country)]).await {
                Ok(id) => {
                    out!("{}", json!({ "location": id }));
                    0
                }
                Err(e) => fail_engine(&e),
            }
        }
        ReaderCmd::Register { code, label, location } => match engine.register_reader(code, label, location).await {
            Ok(r) => {
                out!("{}", serde_json::to_string(&r).expect("serializes"));
                0
            }
            Err(e) => fail_engine(&e),
        },
        ReaderCmd::List => match engine.readers() {
            Ok(rs) => {
                out!("{}", json!({ "readers": rs }));
                0
            }
            Err(e) => fail_engine(&e),
        },
        ReaderCmd::Charge { reader, amount, currency, customer } => {
            let currency: Currency = currency.parse().unwrap_or_else(|_| usage_error("unknown --currency"));
            let minor = crate::parse::parse_amount(amount).unwrap_or_else(|m| usage_error(&m));
            let money = Money::positive(minor, currency).unwrap_or_else(|e| usage_error(&e.to_string()));
            match with_customer(engine, reader, *customer, engine.charge_on_reader(money, reader)).await {
                Ok(r) => print(&r),
                Err(e) => fail_engine(&e),
            }
        }
        ReaderCmd::Status { payment } => match engine.check_reader_status(payment).await {
            Ok(r) => print(&r),
            Err(e) => fail_engine(&e),
        },
        ReaderCmd::Again { payment, customer } => {
            let reader = match engine.reader_status(payment) {
                Ok(r) => r.reader_id,
                Err(e) => fail_engine(&e),
            };
            match with_customer(engine, &reader, *customer, engine.present_again(payment)).await {
                Ok(r) => print(&r),
                Err(e) => fail_engine(&e),
            }
        }
        ReaderCmd::Cancel { payment, abandon } => {
            let res = if *abandon { engine.abandon_reader_payment(payment).await } else { engine.cancel_reader_action(payment).await };
            match res {
                Ok(r) => print(&r),
                Err(e) => fail_engine(&e),
            }
        }
    }
}
