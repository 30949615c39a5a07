//! What the UI sends, checked before anything runs: checkout keys, test tokens, reasons,
//! amounts as typed, sale numbers, a report's start, scanned codes and quantities. Every
//! feature's commands use these, so they sit below all of them (a command module never
//! imports another for a check).

use paydesk_ledger::CartId;
use paydesk_domain::{Currency, Money};

use crate::error::{AppError, AppResult, ReaderRefusal};
use crate::i18n::{active, tr};
use crate::state::AppState;

/// A keyed test token, only in test mode (issue #27): the UI hides the drop-down outside
/// it; this is what enforces it, before the token is even looked at.
pub(crate) fn keyed_test_card(state: &AppState, pm: &str) -> AppResult<String> {
    if !state.live().test_mode() {
        return Err(AppError::Reader(ReaderRefusal::KeyedCardNotTestMode));
    }
    validate_payment_method(pm)
}

/// Stripe test payment-method tokens: `pm_card_…`, letters, digits, underscores.
pub(crate) fn validate_payment_method(pm: &str) -> AppResult<String> {
    let ok = pm.len() <= 64
        && pm.starts_with("pm_card_")
        && pm.len() > "pm_card_".len()
        && pm.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(pm.to_string())
    } else {
        Err(AppError::InvalidInput(tr!(active(), "input-pick-card")))
    }
}

/// A checkout key as the UI got it from us: a UUID (36 characters).
pub(crate) fn validate_key(key: &str) -> AppResult<String> {
    let ok = key.len() == 36
        && key.chars().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    if ok {
        Ok(key.to_string())
    } else {
        Err(AppError::InvalidInput(tr!(active(), "input-payment-ref")))
    }
}

/// An override reason: 3–200 printable characters, kept in the audit log.
pub(crate) fn validate_reason(reason: Option<String>) -> AppResult<Option<String>> {
    match reason.map(|r| r.trim().to_string()) {
        None => Ok(None),
        Some(r) if r.is_empty() => Ok(None),
        Some(r) if r.chars().count() < 3 || r.chars().count() > 200 || r.chars().any(char::is_control) => Err(
            AppError::InvalidInput(tr!(active(), "input-reason")),
        ),
        Some(r) => Ok(Some(r)),
    }
}

/// `since` as asked (checked), or the start of the store's day that contains `now`.
pub(crate) fn report_start(since: Option<i64>, now: i64, store: &paydesk_ledger::StoreSettings) -> AppResult<i64> {
    match since {
        Some(since) if (0..=now + 86_400_000).contains(&since) => Ok(since),
        Some(_) => Err(AppError::InvalidInput(tr!(active(), "input-report-start"))),
        None => Ok(paydesk_ledger::store_day_start(now, store)),
    }
}

/// A sale number as the UI got it from us.
pub fn validate_cart(cart: i64) -> AppResult<CartId> {
    if cart <= 0 {
        return Err(AppError::InvalidInput(tr!(active(), "input-sale-number")));
    }
    Ok(CartId(cart))
}

/// The largest tender typed at the register, in minor units (1,000,000.00 USD; ¥100,000,000).
pub const MAX_TENDER_MINOR: i64 = 100_000_000;
/// Longest amount text accepted before parsing.
const MAX_AMOUNT_CHARS: usize = 24;

/// Which amount a cashier typed: names it in an error message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Amount {
    Cash,
    Card,
    /// A paid in or paid out of the drawer (the Shift tab).
    PaidInOut,
    /// A refund of a sale (Payments → Receipts).
    Refund,
    /// A store tender's face value (a voucher, a slip; record 0122).
    StoreTender,
}

impl Amount {
    fn words(self) -> String {
        crate::i18n::t(match self {
            Amount::Cash => crate::i18n::id!("input-amount-cash-received"),
            Amount::Card => crate::i18n::id!("input-amount-card"),
            Amount::PaidInOut => crate::i18n::id!("input-amount-paid-in-out"),
            Amount::Refund => crate::i18n::id!("input-amount-refund"),
            Amount::StoreTender => crate::i18n::id!("input-amount-store-tender"),
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
    // "12.50" in dollars, "1250" in yen
    let example = crate::money::plain(1250 * 10i64.pow(currency.exponent().saturating_sub(2)), currency);
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
            max = crate::money::format(MAX_TENDER_MINOR, currency)
        )));
    }
    Ok(m.amount_minor)
}

/// A required reason (cancel): 3–200 printable characters, kept in the audit log.
pub(crate) fn required_reason(reason: &str) -> AppResult<String> {
    validate_reason(Some(reason.to_string()))?
        .ok_or_else(|| AppError::InvalidInput(tr!(active(), "input-reason")))
}

/// Validates what a scanner or the keyboard typed: 1–32 characters of `[A-Za-z0-9-]`.
pub fn validate_code(code: &str) -> AppResult<String> {
    let code = code.trim();
    if code.is_empty() {
        return Err(AppError::InvalidInput(tr!(active(), "input-code-empty")));
    }
    if code.len() > 32 || !code.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(AppError::InvalidInput(tr!(active(), "input-code-chars", max = 32)));
    }
    Ok(code.to_string())
}

/// The most of one item a cart line may hold.
pub const MAX_QUANTITY: u32 = 999;

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

    #[test]
    fn codes_are_validated() {
        assert!(validate_code("  COF-001 ").is_ok());
        assert!(validate_code("").is_err());
        assert!(validate_code("a'; drop table").is_err());
        assert!(validate_code(&"9".repeat(33)).is_err());
    }
}
