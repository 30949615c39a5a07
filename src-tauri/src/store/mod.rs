//! The store in the app (record 0061): the cart with its tax, dining and discounts
//! (`cart.rs`), its lines scanned, changed and cleared (`lines.rs`), typed prices and
//! department keys (`open_price.rs`, record 0126), receipts on screen
//! and on paper (`receipt.rs`, `print.rs`), the ryōshūsho issued from it (`ryoshusho.rs`), every paid sale's receipt within reach
//! (`sales.rs`), a receipt as a printable page (`page.rs`), the catalog on the sale
//! screen and the catalog screen (`catalog.rs`), items found by a query and the category
//! tabs (`search.rs`), the store's settings kept in the ledger (`settings.rs`), and a
//! tax-exempt sale with its reason (`exempt.rs`, record 0135), and the store's counter rules
//! (`counter_rules.rs`: label rules, open-price limit, exemptions; record 0136).
//! This file holds what they share: how discounts are typed,
//! and the ledger's refusal of one in the cashier's words (the labels are `wording.rs`).

pub mod cart;
pub mod catalog;
pub mod counter_rules;
pub mod exempt;
pub mod lines;
pub mod open_price;
pub mod print;
pub mod page;
pub mod receipt;
pub mod return_print;
pub mod ryoshusho;
pub mod sales;
pub mod search;
pub mod settings;
pub mod tender_types;

use paydesk_tax::Discount;
use paydesk_domain::{Currency, Money};

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};

/// Longest discount value typed ("12.5", "1,000").
const MAX_DISCOUNT_CHARS: usize = 16;

/// A discount as typed; `Ok(None)` removes it (an empty value or zero).
pub fn parse_discount(form: &cart::DiscountForm, currency: Currency) -> AppResult<Option<Discount>> {
    let text = form.value.trim();
    if text.is_empty() {
        return Ok(None);
    }
    if text.chars().count() > MAX_DISCOUNT_CHARS {
        return Err(AppError::InvalidDiscount(tr!(active(), "input-discount-too-long", max = MAX_DISCOUNT_CHARS)));
    }
    match form.kind.as_str() {
        "percent" => {
            let bp = percent_basis_points(text).ok_or_else(|| {
                AppError::InvalidDiscount(tr!(active(), "input-discount-not-percent", text = text.to_string()))
            })?;
            Ok((bp > 0).then_some(Discount::Percent { basis_points: bp }))
        }
        "amount" => {
            let m = Money::parse(text, currency).map_err(|_| {
                AppError::InvalidDiscount(tr!(active(), "input-discount-not-amount", text = text.to_string(), currency = currency.code()))
            })?;
            if m.amount_minor < 0 {
                return Err(AppError::InvalidDiscount(tr!(active(), "input-discount-negative")));
            }
            Ok((m.amount_minor > 0).then_some(Discount::Amount { amount: m.amount_minor }))
        }
        _ => Err(AppError::InvalidInput(tr!(active(), "input-discount-kind"))),
    }
}

/// "10" → 1000, "12.5" → 1250, "0.25" → 25; at most 100 % and two decimals.
fn percent_basis_points(text: &str) -> Option<u32> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 2 || whole.len() > 3 {
        return None;
    }
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if !digits(whole) || !digits(frac) {
        return None;
    }
    let w: u32 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let f: u32 = format!("{frac:0<2}").parse().ok()?;
    let bp = w * 100 + f;
    (bp <= 10_000).then_some(bp)
}

/// The ledger's refusal of a dining or discount change, in the cashier's words: a
/// discount that would make a line or the sale negative is the ledger's (and the tax
/// crate's) rule; a sale no longer open has its tax fixed.
pub fn discount_error(e: paydesk_ledger::Error) -> AppError {
    use paydesk_ledger::Error as L;
    match e {
        L::CartNotOpen { .. } => AppError::TaxLocked,
        L::InvalidInput(m) => AppError::InvalidDiscount(tr!(active(), "input-discount-refused", detail = m)),
        other => AppError::from(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wording::{discount_label, rate_label};

    #[test]
    fn percentages_are_parsed_in_basis_points() {
        assert_eq!(percent_basis_points("10"), Some(1000));
        assert_eq!(percent_basis_points("12.5"), Some(1250));
        assert_eq!(percent_basis_points("0.25"), Some(25));
        assert_eq!(percent_basis_points("100"), Some(10_000));
        assert_eq!(percent_basis_points("100.01"), None);
        assert_eq!(percent_basis_points("-5"), None);
        assert_eq!(percent_basis_points("1.234"), None);
        assert_eq!(percent_basis_points("."), None);
        assert_eq!(percent_basis_points("1e3"), None);
    }

    #[test]
    fn rates_and_discounts_are_labelled() {
        assert_eq!(rate_label(800), "8%");
        assert_eq!(rate_label(1000), "10%");
        assert_eq!(rate_label(1250), "12.5%");
        assert_eq!(discount_label(Discount::Amount { amount: 50 }, paydesk_domain::Currency::Jpy), "¥50");
        let form = |k: &str, v: &str| cart::DiscountForm { kind: k.into(), value: v.into() };
        assert_eq!(parse_discount(&form("amount", "1.25"), Currency::Usd).unwrap(), Some(Discount::Amount { amount: 125 }));
        assert_eq!(parse_discount(&form("percent", "0"), Currency::Usd).unwrap(), None);
        assert_eq!(parse_discount(&form("percent", "101"), Currency::Usd).unwrap_err().code(), "invalid_discount");
        assert_eq!(parse_discount(&form("amount", "abc"), Currency::Jpy).unwrap_err().code(), "invalid_discount");
    }
}
