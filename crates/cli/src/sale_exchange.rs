//! `paydesk-cli sale exchange --cart OLD --line I:Q [--line I:Q …] --into NEW [--reason R]
//! [--ryoshusho-taken-back] [--json]`: an exchange (issue #29, record 0123). Lines of the
//! paid sale OLD come back (`I:Q` as `sale return` takes them) and their worth pays the
//! open sale NEW (made with `sale new`). What is left is one payment (NEW's `due`: pay it
//! with `sale card|cash|tender`) or one refund of the difference, cards first.
//!
//! Exit codes and refusals as `sale return`'s, plus `exchange_new_sale_refused` (NEW is the
//! same sale, or already holds a credit, or has nothing open), `exchange_currency_mismatch`,
//! `exchange_nothing_to_credit` (the goods were given away), `exchange_of_credited_sale`
//! (OLD was paid by the credit of a RESTORED sale's exchange and its own tenders cannot
//! hold the new credit: return, then sell; an OLD paid by this register's exchange credit
//! is exchanged, the credit carried on, record 0155), `sale_complete`
//! (NEW is paid already). JSON: `exchange_id`, `return`, `credit`, `card_refunds`,
//! `cash_out`, `errors`, `new_sale`.
//!
//! `sale exchange --restored-from REG --sale N | --receipt NNNNNN [--restored-from REG]
//! --line I:Q … --into NEW` (record 0153): the goods of a sale of a replaced register,
//! restored here, pay this register's open sale NEW; the difference goes back as a restored
//! return's does (cards on the predecessor's payments, cash out of this drawer). Codes as
//! `sale return --restored-from`'s plus the exchange's above. JSON as above, `return` being
//! the restored return (`number`, `receipt_no`, `source`, …).

use crate::outcome::checkout_error;
use crate::sale_return::exit_of;
use paydesk_domain::RefundState;
use paydesk_ledger::CartId;
use paydesk_register::{Engine, EngineError, ExchangeReport, RestoredExchangeReport};
use paydesk_tax::Returned;

/// The error code of a refused exchange: one per reason, for scripts to tell them apart.
fn refused(e: &EngineError) -> i32 {
    use paydesk_ledger::Error as L;
    let code = match e {
        EngineError::Ledger(l) => match &**l {
            L::ExchangeNewSaleRefused { .. } => "exchange_new_sale_refused",
            L::ExchangeCurrencyMismatch { .. } => "exchange_currency_mismatch",
            L::ExchangeNothingToCredit { .. } => "exchange_nothing_to_credit",
            L::ExchangeOfCreditedSale { .. } => "exchange_of_credited_sale",
            // The exchange's return refused as any return is.
            other => crate::sale_return::return_code(other).unwrap_or(e.code()),
        },
        _ => e.code(),
    };
    checkout_error(code, &e.to_string(), e.checkout_key(), None)
}

pub(crate) async fn run(engine: &Engine, old: i64, items: &[Returned], new: i64, reason: Option<&str>, taken_back: bool, json: bool) -> i32 {
    match engine.exchange_lines(CartId(old), items, CartId(new), reason, taken_back).await {
        Ok(rep) => {
            print(&rep, json);
            let states: Vec<RefundState> = rep.card_refunds.iter().map(|r| r.state).collect();
            exit_of(&states, !rep.errors.is_empty())
        }
        Err(e) => refused(&e),
    }
}

/// An exchange of a restored sale (record 0153).
pub(crate) async fn run_restored(engine: &Engine, which: crate::sale_return::Restored<'_>, items: &[Returned], new: i64, reason: Option<&str>, json: bool) -> i32 {
    let found = match crate::sale_return::find_restored(engine, &which) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let result = match found {
        Ok((source, sale)) => engine.exchange_restored_lines(&source, sale, items, CartId(new), reason).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(rep) => {
            print_restored(&rep, json);
            let states: Vec<RefundState> = rep.card_refunds.iter().map(|r| r.state).collect();
            exit_of(&states, !rep.errors.is_empty())
        }
        Err(e) => refused(&e),
    }
}

fn print_restored(rep: &RestoredExchangeReport, json: bool) {
    use std::io::Write as _;
    let line = if json {
        serde_json::to_string(rep).unwrap_or_default()
    } else {
        let r = &rep.record;
        let cards: Vec<String> = rep.card_refunds.iter().map(|c| format!("{} {} ({})", c.refund_key, c.amount, c.state.as_str())).collect();
        format!(
            "exchange {}: return {} of sale {} of register {} worth {}, {} credited to sale {} (due {}), card refunds [{}], cash out {}{}",
            rep.exchange_id,
            r.number,
            r.receipt_no,
            r.source,
            r.total_minor,
            rep.credit,
            rep.new_sale.cart_id,
            rep.new_sale.due,
            cards.join(", "),
            rep.cash_out,
            if rep.errors.is_empty() { String::new() } else { format!("; errors: {}", rep.errors.join("; ")) }
        )
    };
    let _ = writeln!(std::io::stdout(), "{line}");
}

fn print(rep: &ExchangeReport, json: bool) {
    use std::io::Write as _;
    let line = if json {
        serde_json::to_string(rep).unwrap_or_default()
    } else {
        let r = &rep.record;
        let cards: Vec<String> = rep.card_refunds.iter().map(|c| format!("{} {} ({})", c.refund_key, c.amount, c.state.as_str())).collect();
        format!(
            "exchange {}: return {} of sale {} worth {}, {} credited to sale {} (due {}), card refunds [{}], cash out {}{}",
            rep.exchange_id,
            r.number,
            r.cart_id.0,
            r.total_minor,
            rep.credit,
            rep.new_sale.cart_id,
            rep.new_sale.due,
            cards.join(", "),
            rep.cash_out,
            if rep.errors.is_empty() { String::new() } else { format!("; errors: {}", rep.errors.join("; ")) }
        )
    };
    let _ = writeln!(std::io::stdout(), "{line}");
}
