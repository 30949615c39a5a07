//! The tender panel's commands (design §8.11): a sale paid by cash and card tenders,
//! canceled with its refunds, and End of day's tender figures. One file per operation;
//! this file holds what they share: input limits, and the guard every tender passes.
//!
//! The guard is enforced here, not in the UI: a tender press carries `seen_tenders`,
//! the number of tenders on the screen the cashier acted on. If the sale has another
//! number now, an earlier press (a double press, a second window, a call replayed by
//! the webview) already went through, and this one is refused with `sale_changed`
//! before anything is taken. And one tender runs at a time per register: a call while
//! another tender, a Charge or a cancel runs is refused with `tender_in_flight`.

pub mod cancel;
pub mod card;
pub mod cash;
pub mod day;
pub mod discount;
pub mod refund;

pub use cancel::CancelResult;
pub use card::CardResult;
pub use cash::CashResult;

use paydesk_ledger::CartId;
use paydesk_domain::{Currency, Money};
use paydesk_register::SaleView;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::state::AppState;
use crate::views::SaleScreen;

/// The largest tender typed at the register, in minor units (1,000,000.00 USD; ¥100,000,000).
pub const MAX_TENDER_MINOR: i64 = 100_000_000;
/// Longest amount text accepted before parsing.
const MAX_AMOUNT_CHARS: usize = 24;
/// A sale never has this many tenders; a larger `seen_tenders` is a malformed call.
const MAX_SEEN_TENDERS: u32 = 10_000;

/// Which amount a cashier typed: names it in an error message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Amount {
    Cash,
    Card,
    /// A paid in or paid out of the drawer (the Shift tab).
    PaidInOut,
    /// A refund of a sale (Payments → Receipts).
    Refund,
}

impl Amount {
    fn words(self) -> String {
        crate::i18n::t(match self {
            Amount::Cash => crate::i18n::id!("input-amount-cash-received"),
            Amount::Card => crate::i18n::id!("input-amount-card"),
            Amount::PaidInOut => crate::i18n::id!("input-amount-paid-in-out"),
            Amount::Refund => crate::i18n::id!("input-amount-refund"),
        })
    }
}

/// An amount as the cashier typed it ("12.50", "1200"), in the store currency: more
/// than zero, at most [`MAX_TENDER_MINOR`], no more decimals than the currency has.
pub(crate) fn parse_amount(text: &str, currency: Currency, what: Amount) -> AppResult<i64> {
    let l = active();
    let what = what.words();
    let t = text.trim();
    if t.is_empty() {
        return Err(AppError::InvalidInput(tr!(l, "input-amount-empty", what = what)));
    }
    if t.chars().count() > MAX_AMOUNT_CHARS {
        return Err(AppError::InvalidInput(tr!(l, "input-amount-long", what = what)));
    }
    let code = currency.code();
    // "12.50" in dollars, "1250" in yen
    let example = crate::money::plain(1250 * 10i64.pow(crate::money::exponent(code).saturating_sub(2)), code);
    let m = Money::parse(t, currency)
        .map_err(|_| AppError::InvalidInput(tr!(l, "input-amount-bad", text = t.to_string(), what = what.clone(), example = example.clone())))?;
    if m.amount_minor <= 0 {
        return Err(AppError::InvalidInput(tr!(l, "input-amount-positive", what = what)));
    }
    if m.amount_minor > MAX_TENDER_MINOR {
        return Err(AppError::InvalidInput(tr!(
            l,
            "input-amount-too-large",
            what = what,
            max = crate::money::format(MAX_TENDER_MINOR, code)
        )));
    }
    Ok(m.amount_minor)
}

/// A required reason (cancel): 3–200 printable characters, kept in the audit log.
pub(crate) fn required_reason(reason: &str) -> AppResult<String> {
    crate::commands::validate_reason(Some(reason.to_string()))?
        .ok_or_else(|| AppError::InvalidInput(tr!(active(), "input-reason")))
}

/// This register's turn to take a tender: held for the whole call.
pub(crate) struct Turn<'a> {
    _one: tokio::sync::MutexGuard<'a, ()>,
    _gate: tokio::sync::RwLockReadGuard<'a, ()>,
    pub cart: CartId,
}

/// Takes the register's one tender slot (refused, not queued, when taken: a queued
/// second press would run after the first on a sale that changed) and, when `seen` is
/// given, checks the sale still has the tenders the cashier saw.
pub(crate) async fn begin(state: &AppState, seen: Option<u32>) -> AppResult<Turn<'_>> {
    if seen.is_some_and(|s| s > MAX_SEEN_TENDERS) {
        return Err(AppError::InvalidInput(tr!(active(), "input-sale-view")));
    }
    let one = state.charge_lock.try_lock().map_err(|_| AppError::TenderInFlight)?;
    // no settings swap (a new engine) under a tender in flight
    let gate = state.gate.read().await;
    let cart = state.cart_id();
    if let Some(seen) = seen {
        let now = sale_now(state, cart)?.tenders.len();
        let now = u32::try_from(now).unwrap_or(u32::MAX);
        if now != seen {
            return Err(AppError::SaleChanged { seen, now });
        }
    }
    Ok(Turn { _one: one, _gate: gate, cart })
}

/// The sale as the writer connection sees it now (after this register's own writes).
pub(crate) fn sale_now(state: &AppState, cart: CartId) -> AppResult<SaleView> {
    let s = state.engine().carts().sale_now(cart)?;
    Ok(SaleView::of(&s))
}

/// The panel's view of a sale (card labels and decline messages from the ledger).
pub(crate) fn screen(state: &AppState, v: &SaleView) -> SaleScreen {
    let engine = state.engine();
    SaleScreen::build(v, |key| engine.payments().by_key(key).ok().flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_checked_before_anything_runs() {
        let usd = Currency::Usd;
        assert_eq!(parse_amount(" 12.50 ", usd, Amount::Cash).unwrap(), 1250);
        assert_eq!(parse_amount("20", usd, Amount::Cash).unwrap(), 2000);
        assert_eq!(parse_amount("1200", Currency::Jpy, Amount::Cash).unwrap(), 1200);
        for bad in ["", "0", "0.00", "-5", "1.234", "12,50", "1e3", "abc", "1000000.01", &"9".repeat(30)] {
            let e = parse_amount(bad, usd, Amount::Cash).unwrap_err();
            assert_eq!(e.code(), "invalid_input", "{bad:?}: {e}");
        }
        // the currency's precision: no decimals in yen
        assert_eq!(parse_amount("12.5", Currency::Jpy, Amount::Cash).unwrap_err().code(), "invalid_input");
        assert!(parse_amount("x", usd, Amount::Cash).unwrap_err().to_string().contains("like 12.50"));
    }

    #[test]
    fn a_cancel_needs_a_real_reason() {
        assert_eq!(required_reason("  customer changed mind ").unwrap(), "customer changed mind");
        for bad in ["", "  ", "ok", &"x".repeat(201), "bad\u{7}bell"] {
            assert_eq!(required_reason(bad).unwrap_err().code(), "invalid_input", "{bad:?}");
        }
    }
}
