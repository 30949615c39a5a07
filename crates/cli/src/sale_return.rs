//! `paydesk-cli sale return --cart N --line I:Q [--line I:Q …] [--reason R]
//! [--ryoshusho-taken-back] [--json]`: take back some of a paid sale's lines (issue #29,
//! record 0114). `I` is the line's index in the sale's lines as `sale show` lists them
//! (from 0), `Q` how many come back. The money goes back as a sale refund does: cards
//! first, each to its own card under its own refund key, the rest in cash from the drawer.
//!
//! Exit 0 done, 3 a card refund still being confirmed (its key is in the output), 2 a card
//! refund failed, 1 refused: `{"error":{"code","message"}}`, with the codes
//! `return_exceeds_sold`, `return_unknown_line`, `ryoshusho_not_taken_back` (the sale has
//! a ryōshūsho: hand it back and say `--ryoshusho-taken-back`), `sale_refund_exceeds`,
//! `wrong_state` (a card refund of the sale is still open), `invalid_input`.
//! Without `--json`: one line of words; with it, the return's JSON (`return`, `card_refunds`,
//! `cash_out`, `errors`, `sale`).

use crate::outcome::checkout_error;
use paydesk_domain::RefundState;
use paydesk_ledger::CartId;
use paydesk_register::{Engine, EngineError, ReturnReport};
use paydesk_tax::Returned;

/// Most `--line`s on one return, and the largest quantity of one (the sale's limits).
const MAX_LINES: usize = 200;
const MAX_QTY: u32 = 999;

/// "I:Q" as a returned line; refused before anything is read or written.
pub(crate) fn returned_line(s: &str) -> Result<Returned, String> {
    let bad = || format!("--line {s:?}: LINE:QUANTITY, a line index from 0 and a quantity of 1-{MAX_QTY}");
    let (i, q) = s.split_once(':').ok_or_else(bad)?;
    let all_digits = |t: &str| !t.is_empty() && t.len() <= 4 && t.chars().all(|c| c.is_ascii_digit());
    if !all_digits(i) || !all_digits(q) {
        return Err(bad());
    }
    let line: usize = i.parse().map_err(|_| bad())?;
    let quantity: u32 = q.parse().map_err(|_| bad())?;
    if !(1..=MAX_QTY).contains(&quantity) {
        return Err(bad());
    }
    Ok(Returned { line, quantity })
}

/// Every `--line`, checked; a line named twice is refused here rather than merged.
pub(crate) fn returned_lines(lines: &[String]) -> Result<Vec<Returned>, String> {
    if lines.is_empty() || lines.len() > MAX_LINES {
        return Err(format!("give 1 to {MAX_LINES} --line LINE:QUANTITY"));
    }
    let items = lines.iter().map(|s| returned_line(s)).collect::<Result<Vec<_>, _>>()?;
    for (k, r) in items.iter().enumerate() {
        if items[..k].iter().any(|o| o.line == r.line) {
            return Err(format!("line {} is named twice; give its whole quantity once", r.line));
        }
    }
    Ok(items)
}

/// The code of a ledger refusal of a return (and so of an exchange's return), if it has
/// one of its own: one per reason, for scripts to tell them apart.
pub(crate) fn return_code(l: &paydesk_ledger::Error) -> Option<&'static str> {
    use paydesk_ledger::Error as L;
    match l {
        L::ReturnExceedsSold { .. } => Some("return_exceeds_sold"),
        L::WeighedLineWhole { .. } => Some("weighed_line_whole"),
        L::ReturnUnknownLine { .. } => Some("return_unknown_line"),
        L::RyoshushoNotTakenBack { .. } => Some("ryoshusho_not_taken_back"),
        L::UnknownRestoreSource { .. } => Some("unknown_restore_source"),
        L::RestoreNotFinished { .. } => Some("restore_not_finished"),
        L::UnknownRestoredSale { .. } => Some("unknown_restored_sale"),
        L::AmbiguousRestoredReceipt { .. } => Some("ambiguous_restored_receipt"),
        L::RestoredSaleCanceled { .. } => Some("restored_sale_canceled"),
        L::RestoredSaleNotValued { .. } => Some("restored_sale_not_valued"),
        L::RestoredPaymentUnsettled { .. } => Some("restored_payment_unsettled"),
        L::RestoredStoreTender { .. } => Some("restored_store_tender"),
        L::RestoredExchangedThere { .. } => Some("restored_exchanged_there"),
        L::RestoredRefundExceeds { .. } => Some("sale_refund_exceeds"),
        L::RestoredCreditNotGivenBack { .. } => Some("restored_credit_not_given_back"),
        _ => None,
    }
}

/// The error code of a refused return.
fn refused(e: &EngineError) -> i32 {
    let code = match e {
        EngineError::Ledger(l) => return_code(l).unwrap_or(e.code()),
        _ => e.code(),
    };
    checkout_error(code, &e.to_string(), e.checkout_key(), None)
}

/// The exit code of a return that was committed: as `sale refund`'s.
pub(crate) fn exit_of(states: &[RefundState], errors: bool) -> i32 {
    if states.contains(&RefundState::Failed) {
        2
    } else if errors || states.iter().any(|s| !s.is_terminal()) {
        3
    } else {
        0
    }
}

pub(crate) async fn run(engine: &Engine, cart: i64, items: &[Returned], reason: Option<&str>, taken_back: bool, json: bool) -> i32 {
    match engine.return_lines(CartId(cart), items, reason, taken_back).await {
        Ok(rep) => {
            print(&rep, json);
            let states: Vec<RefundState> = rep.card_refunds.iter().map(|r| r.state).collect();
            exit_of(&states, !rep.errors.is_empty())
        }
        Err(e) => refused(&e),
    }
}

/// Which restored sale (record 0144): by the predecessor and its sale id, or by receipt number.
pub(crate) struct Restored<'a> {
    pub source: Option<&'a str>,
    pub sale: Option<i64>,
    pub receipt: Option<&'a str>,
}

/// `sale return --restored-from REG --sale N` or `--receipt NNNNNN`: a return of a sale a
/// replaced register made, restored here. Exit codes and error shape as `run`'s, with the
/// codes of the restored refusals (`restore_not_finished`, `unknown_restored_sale`, …).
pub(crate) async fn run_restored(engine: &Engine, which: Restored<'_>, items: &[Returned], reason: Option<&str>, json: bool) -> i32 {
    let found = match find_restored(engine, &which) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let result = match found {
        Ok((source, sale)) => engine.return_restored(&source, sale, items, reason).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(rep) => {
            use std::io::Write as _;
            let line = if json {
                serde_json::to_string(&rep).unwrap_or_default()
            } else {
                let r = &rep.record;
                let cards: Vec<String> = rep.card_refunds.iter().map(|c| format!("{} {} ({})", c.refund_key, c.amount, c.state.as_str())).collect();
                format!(
                    "return {} of sale {} of register {}: {} line(s), {} back ({} tax), card refunds [{}], cash out {}{}",
                    r.number,
                    r.receipt_no,
                    r.source,
                    r.lines.len(),
                    r.total_minor,
                    r.tax_minor,
                    cards.join(", "),
                    rep.cash_out,
                    if rep.errors.is_empty() { String::new() } else { format!("; errors: {}", rep.errors.join("; ")) }
                )
            };
            let _ = writeln!(std::io::stdout(), "{line}");
            let states: Vec<RefundState> = rep.card_refunds.iter().map(|r| r.state).collect();
            exit_of(&states, !rep.errors.is_empty())
        }
        Err(e) => refused(&e),
    }
}

/// The predecessor and sale id named by `which`, or the exit code of a bad naming.
pub(crate) fn find_restored(engine: &Engine, which: &Restored<'_>) -> Result<Result<(String, i64), EngineError>, i32> {
    match (which.source, which.sale, which.receipt) {
        (Some(source), Some(sale), _) => Ok(Ok((source.to_string(), sale))),
        (source, None, Some(receipt)) => Ok(engine.restored_by_receipt(receipt, source)),
        _ => Err(checkout_error("invalid_input", "name the restored sale: --restored-from REGISTER --sale N, or --receipt NNNNNN", None, None)),
    }
}

fn print(rep: &ReturnReport, json: bool) {
    use std::io::Write as _;
    let line = if json {
        serde_json::to_string(rep).unwrap_or_default()
    } else {
        let r = &rep.record;
        let cards: Vec<String> = rep.card_refunds.iter().map(|c| format!("{} {} ({})", c.refund_key, c.amount, c.state.as_str())).collect();
        format!(
            "return {} of sale {}: {} line(s), {} back ({} tax), card refunds [{}], cash out {}{}",
            r.number,
            r.cart_id.0,
            r.lines.len(),
            r.total_minor,
            r.tax_minor,
            cards.join(", "),
            rep.cash_out,
            if rep.errors.is_empty() { String::new() } else { format!("; errors: {}", rep.errors.join("; ")) }
        )
    };
    let _ = writeln!(std::io::stdout(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_checked_before_anything_is_read() {
        assert_eq!(returned_line("0:2"), Ok(Returned { line: 0, quantity: 2 }));
        assert_eq!(returned_line("12:1"), Ok(Returned { line: 12, quantity: 1 }));
        for bad in ["0", "0:0", "0:1000", ":1", "1:", "-1:1", "a:1", "1:b", "1:2:3", "1: 2", "99999:1"] {
            assert!(returned_line(bad).is_err(), "{bad}");
        }
        assert!(returned_lines(&[]).is_err());
        assert!(returned_lines(&["1:1".into(), "1:2".into()]).is_err());
        assert_eq!(returned_lines(&["1:1".into(), "0:2".into()]).map(|v| v.len()), Ok(2));
        assert_eq!((exit_of(&[RefundState::Succeeded], false), exit_of(&[RefundState::Pending], false)), (0, 3));
        assert_eq!((exit_of(&[RefundState::Failed, RefundState::Pending], false), exit_of(&[], true)), (2, 3));
    }
}
