//! What a return gives back (issue #29, record 0113): from a sale's cart and its locked
//! settings, the lines and quantities taken back, and what earlier returns took, to the
//! amount and the tax per rate this return refunds.
//!
//! A return is valued as the difference between what the sale is worth with what was kept
//! before it and with what is kept after it, each worth computed the way [`compute`] prices
//! the sale, with two rules that make a sale's returns add up:
//!
//! - **A line's discount shrinks with its quantity**: a percentage applies to what is kept;
//!   an amount off is kept in proportion, `amount × kept / sold` rounded down.
//! - **The sale discount stays with the rate it was given to**: each rate keeps its share of
//!   the sale's discount (as the receipt printed it) in proportion to what it keeps of its own
//!   lines, rounded down. A return of a reduced-rate item never moves a yen of discount onto
//!   the standard rate, so no rate ever shows a negative refund.
//!
//! With everything kept the worth is the sale exactly (per rate: base, tax, gross); with
//! nothing kept it is zero; and it only falls as items are taken back. So any returns of a
//! sale add up, per rate, to at most the sale, and to exactly the sale when all of it has
//! come back.

use serde::{Deserialize, Serialize};

use crate::class::TaxClass;
use crate::compute::{compute, percent_of, tax_of, Cart, Discount, SaleTax};
use crate::error::TaxError;
use crate::rates::TaxSettings;

/// One line taken back: its index in the sale's cart and how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Returned {
    pub line: usize,
    pub quantity: u32,
}

/// A line of the return, in the store's price mode, before the sale discount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnedLine {
    pub line: usize,
    pub quantity: u32,
    /// The class the sale was taxed under (a reduced item eaten in is `Standard`).
    pub class: TaxClass,
    /// What the line's net falls by.
    pub net: i64,
}

/// One rate's part of the return. `base + tax == gross`; never negative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateReturn {
    pub class: TaxClass,
    /// The rate's combined ppm, as the sale bore it.
    pub ppm: u32,
    pub base: i64,
    pub tax: i64,
    pub gross: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnTax {
    pub lines: Vec<ReturnedLine>,
    /// One entry per rate the returned lines were taxed at, in the sale's rate order.
    pub rates: Vec<RateReturn>,
    pub tax_total: i64,
    /// What the customer gets back.
    pub total: i64,
}

/// Values the return `now` of `cart`'s sale, after earlier returns took `before[i]` of line
/// `i` (one entry per line). Refuses an unknown line, a line named twice, a quantity of zero
/// and anything beyond what was sold and not yet returned.
pub fn return_tax(cart: &Cart, settings: &TaxSettings, before: &[u32], now: &[Returned]) -> Result<ReturnTax, TaxError> {
    let sale = compute(cart, settings)?;
    let kept_before = kept(cart, before, &[])?;
    let kept_after = kept(cart, before, now)?;
    let worth_before = worth(cart, &sale, settings, &kept_before);
    let worth_after = worth(cart, &sale, settings, &kept_after);
    let touched: Vec<TaxClass> = now.iter().map(|r| sale.lines[r.line].class).collect();
    let rates: Vec<RateReturn> = worth_before
        .iter()
        .zip(&worth_after)
        .filter(|(b, _)| touched.contains(&b.class))
        .map(|(b, a)| RateReturn { class: b.class, ppm: b.ppm, base: b.base - a.base, tax: b.tax - a.tax, gross: b.gross - a.gross })
        .collect();
    for r in &rates {
        // The worth only falls as items come back (record 0113): a negative part is a bug.
        assert!(r.base >= 0 && r.tax >= 0 && r.gross >= 0, "a return's rate part is negative: {r:?}");
    }
    let lines = now
        .iter()
        .map(|r| ReturnedLine {
            line: r.line,
            quantity: r.quantity,
            class: sale.lines[r.line].class,
            net: line_net(cart, r.line, kept_before[r.line]) - line_net(cart, r.line, kept_after[r.line]),
        })
        .collect();
    Ok(ReturnTax { lines, tax_total: rates.iter().map(|r| r.tax).sum(), total: rates.iter().map(|r| r.gross).sum(), rates })
}

/// What is kept of each line once `before` and `now` have come back; refuses what cannot be.
fn kept(cart: &Cart, before: &[u32], now: &[Returned]) -> Result<Vec<u32>, TaxError> {
    if before.len() != cart.lines.len() {
        return Err(TaxError::ReturnLinesMismatch { lines: cart.lines.len(), given: before.len() });
    }
    let mut kept: Vec<u32> = Vec::with_capacity(before.len());
    for (i, (line, gone)) in cart.lines.iter().zip(before).enumerate() {
        let k = line.quantity.checked_sub(*gone).ok_or(TaxError::ReturnBeyondSold { line: i, sold: line.quantity, returned: *gone, asked: 0 })?;
        kept.push(k);
    }
    let mut seen = vec![false; cart.lines.len()];
    for r in now {
        let Some(k) = kept.get_mut(r.line) else {
            return Err(TaxError::ReturnUnknownLine { line: r.line, lines: cart.lines.len() });
        };
        if std::mem::replace(&mut seen[r.line], true) {
            return Err(TaxError::ReturnLineTwice { line: r.line });
        }
        if r.quantity == 0 || r.quantity > *k {
            let sold = cart.lines[r.line].quantity;
            return Err(TaxError::ReturnBeyondSold { line: r.line, sold, returned: sold - *k, asked: r.quantity });
        }
        *k -= r.quantity;
    }
    Ok(kept)
}

/// Line `i`'s net with `k` of it kept: its discount shrinks with it (see the module's rules).
fn line_net(cart: &Cart, i: usize, k: u32) -> i64 {
    let line = &cart.lines[i];
    let gross = line.unit_price * i64::from(k);
    let discount = match line.discount {
        None => 0,
        Some(Discount::Percent { basis_points }) => percent_of(gross, basis_points),
        // amount ≤ the sold gross (compute refused more), so the product fits in i128 and
        // the result is at most the kept gross.
        Some(Discount::Amount { amount }) => {
            (i128::from(amount) * i128::from(k) / i128::from(line.quantity)) as i64
        }
    };
    gross - discount
}

/// The sale's worth per rate with `kept` of each line, in the sale's rate order.
fn worth(cart: &Cart, sale: &SaleTax, settings: &TaxSettings, kept: &[u32]) -> Vec<RateReturn> {
    sale.rates
        .iter()
        .map(|rate| {
            let lines_net: i64 = (0..cart.lines.len()).filter(|i| sale.lines[*i].class == rate.class).map(|i| line_net(cart, i, kept[i])).sum();
            // The rate's share of the sale discount, kept in proportion to its lines.
            let share = if rate.lines_net == 0 {
                0
            } else {
                (i128::from(rate.sale_discount) * i128::from(lines_net) / i128::from(rate.lines_net)) as i64
            };
            let (base, tax, gross) = tax_of(lines_net - share, rate.ppm, settings);
            RateReturn { class: rate.class, ppm: rate.ppm, base, tax, gross }
        })
        .collect()
}
