//! `paydesk-cli tender-type …`: the store's own tender types (issue #29, record 0118).
//!
//! ```text
//! tender-type add --name N --kind voucher|external_terminal|e_money|qr|store_account
//!                 [--no-change] [--counts-for-stamp] [--json]
//!     a manager or the owner signed in where the register has staff
//! tender-type list [--json]
//! ```
//! Paying with one is `sale tender --cart N --store-tender ID --amount A [--ref SLIP]`
//! (sale.rs). Without `--json`: one line of words per type; with it, JSON. Errors:
//! `{"error":{"code","message"}}`, exit 1 (`not_signed_in`, `not_allowed`,
//! `tender_type_name_taken`, `invalid_input`).

use clap::Subcommand;
use paydesk_domain::{StoreTenderKind, TenderType};
use paydesk_ledger::Error;
use paydesk_register::Engine;

use crate::outcome::fail;

#[derive(Subcommand, Debug)]
pub(crate) enum TenderTypeCmd {
    /// Add a tender type (a voucher, a standalone terminal, …).
    Add {
        /// 1 to 40 characters, unique.
        #[arg(long)]
        name: String,
        /// voucher | external_terminal | e_money | qr | store_account
        #[arg(long)]
        kind: String,
        /// More than is due is forfeited, never given back as change (the default gives change).
        #[arg(long = "no-change")]
        no_change: bool,
        /// Counts like cash for the 領収書 revenue stamp.
        #[arg(long = "counts-for-stamp")]
        counts_for_stamp: bool,
        #[arg(long)]
        json: bool,
    },
    /// Every tender type, in the order added.
    List {
        #[arg(long)]
        json: bool,
    },
}

fn ledger_fail(e: &Error) -> ! {
    let code = match e {
        Error::NotSignedIn => "not_signed_in",
        Error::NotAllowed { .. } | Error::NotTheOperator { .. } | Error::InactiveStaff { .. } => "not_allowed",
        Error::TenderTypeNameTaken { .. } => "tender_type_name_taken",
        Error::InvalidInput(_) => "invalid_input",
        _ => "ledger",
    };
    fail(code, &e.to_string())
}

fn words(t: &TenderType) -> String {
    format!(
        "{} {} ({}){}{}{}",
        t.id,
        t.name,
        t.kind.as_str(),
        if t.gives_change { ", gives change" } else { ", no change" },
        if t.counts_for_stamp { ", counts for the stamp" } else { "" },
        if t.active { "" } else { ", inactive" },
    )
}

pub(crate) fn run(engine: &Engine, cmd: &TenderTypeCmd) -> i32 {
    match cmd {
        TenderTypeCmd::Add { name, kind, no_change, counts_for_stamp, json } => {
            let kind: StoreTenderKind = kind
                .parse()
                .unwrap_or_else(|_| fail("invalid_input", &format!("--kind {kind:?}: voucher, external_terminal, e_money, qr or store_account")));
            let t = engine.tender_types().add(name, kind, !no_change, *counts_for_stamp).unwrap_or_else(|e| ledger_fail(&e));
            if *json {
                out!("{}", serde_json::to_string(&t).expect("a tender type serializes"));
            } else {
                out!("added tender type {}", words(&t));
            }
            0
        }
        TenderTypeCmd::List { json } => {
            let all = engine.tender_types().list().unwrap_or_else(|e| ledger_fail(&e));
            if *json {
                out!("{}", serde_json::to_string(&all).expect("tender types serialize"));
            } else {
                for t in &all {
                    out!("{}", words(t));
                }
            }
            0
        }
    }
}
