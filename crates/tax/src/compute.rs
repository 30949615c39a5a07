//! From a cart to per-rate totals and tax (record 0056).

use serde::{Deserialize, Serialize};

use crate::allocate::{allocate_proportionally, split_by_rate};
use crate::class::{Dining, TaxClass};
use crate::error::TaxError;
use crate::rates::{ppm_or_legacy, round_div, AppliedRate, PriceMode, TaxSettings, YearMonthDay, BASIS_POINTS_100_PERCENT,
    PPM_100_PERCENT};

/// Input limits: a cart beyond them is refused, and within them no sum can overflow `i64`
/// (1 000 × 9 999 × 10¹⁰ < 9.2 × 10¹⁸).
pub const MAX_LINES: usize = 1_000;
pub const MAX_QUANTITY: u32 = 9_999;
pub const MAX_UNIT_PRICE: i64 = 10_000_000_000;

/// A discount, on a line or on the whole sale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Discount {
    /// A percentage in basis points (1000 = 10 %). The amount is rounded down: "10 % off"
    /// never takes more than 10 %.
    Percent { basis_points: u32 },
    /// An amount in minor units, in the store's price mode (tax-inclusive if prices are).
    Amount { amount: i64 },
}

/// One line of a cart: a price as on the shelf (in the store's [`PriceMode`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub unit_price: i64,
    pub quantity: u32,
    pub class: TaxClass,
    #[serde(default)]
    pub discount: Option<Discount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cart {
    pub lines: Vec<Line>,
    pub dining: Dining,
    #[serde(default)]
    pub sale_discount: Option<Discount>,
    /// The day of the sale: picks the rates in force.
    pub date: YearMonthDay,
    /// The whole sale is tax exempt (record 0135: a resale certificate, a diplomat's card, a
    /// non-profit's exemption). Every line is then computed in the exempt class at 0 %,
    /// whatever its own class; absent in older JSON, which was never exempt.
    #[serde(default)]
    pub exempt: bool,
}

/// A line after its own discount. Amounts are in the store's price mode. (Read from an older
/// build's JSON too: `basis_points` becomes `ppm`, exactly.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "LineResultWire")]
pub struct LineResult {
    /// `unit_price × quantity`.
    pub gross: i64,
    pub discount: i64,
    /// `gross − discount`, never negative.
    pub net: i64,
    /// The class the tax was computed under (a reduced item eaten in is `Standard`).
    pub class: TaxClass,
    /// The line's rate in parts per million, every tax stacked in it together.
    pub ppm: u32,
}

#[derive(Deserialize)]
struct LineResultWire {
    gross: i64,
    discount: i64,
    net: i64,
    class: TaxClass,
    #[serde(default)]
    ppm: Option<u32>,
    #[serde(default)]
    basis_points: Option<u32>,
}

impl TryFrom<LineResultWire> for LineResult {
    type Error = String;
    fn try_from(w: LineResultWire) -> Result<Self, String> {
        let ppm = ppm_or_legacy(w.ppm, w.basis_points)?;
        Ok(LineResult { gross: w.gross, discount: w.discount, net: w.net, class: w.class, ppm })
    }
}

impl LineResult {
    /// Whether the receipt marks this line as reduced-rate (※): taxed in the reduced class
    /// at a rate above zero. A reduced class taxed at 0 % (New York's grocery food, record
    /// 0131) is not a reduced rate to mark.
    pub fn is_reduced(&self) -> bool {
        self.class == TaxClass::Reduced && self.ppm > 0
    }
}

/// One tax stacked in a rate (NY State 4 % of New York City's 8.875 %) and its share of the
/// rate's tax. The shares of a rate add up to its tax exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxPart {
    /// Empty for a single unnamed rate (Japan).
    pub name: String,
    pub ppm: u32,
    pub tax: i64,
}

/// One rate's part of the sale, after discounts. `base + tax == gross` always, and the
/// parts' taxes add up to `tax`. (Read from an older build's JSON too: `basis_points` becomes
/// `ppm` exactly, and the missing parts are the one unnamed rate.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RateResultWire")]
pub struct RateResult {
    pub class: TaxClass,
    /// The combined rate in parts per million: the sum of the parts' rates.
    pub ppm: u32,
    /// The taxes stacked in this rate, in the rate table's order; never empty.
    pub parts: Vec<TaxPart>,
    /// Sum of this rate's line nets, before the sale discount.
    pub lines_net: i64,
    /// This rate's share of the sale discount.
    pub sale_discount: i64,
    /// Tax-exclusive taxable amount (税抜対象額).
    pub base: i64,
    pub tax: i64,
    /// Tax-inclusive amount (税込対象額).
    pub gross: i64,
}

#[derive(Deserialize)]
struct RateResultWire {
    class: TaxClass,
    #[serde(default)]
    ppm: Option<u32>,
    #[serde(default)]
    basis_points: Option<u32>,
    #[serde(default)]
    parts: Option<Vec<TaxPart>>,
    lines_net: i64,
    sale_discount: i64,
    base: i64,
    tax: i64,
    gross: i64,
}

impl TryFrom<RateResultWire> for RateResult {
    type Error = String;
    fn try_from(w: RateResultWire) -> Result<Self, String> {
        let ppm = ppm_or_legacy(w.ppm, w.basis_points)?;
        let parts = w.parts.unwrap_or_else(|| vec![TaxPart { name: String::new(), ppm, tax: w.tax }]);
        if parts.iter().map(|p| p.tax).sum::<i64>() != w.tax {
            return Err("a rate's parts do not add up to its tax".into());
        }
        Ok(RateResult { class: w.class, ppm, parts, lines_net: w.lines_net, sale_discount: w.sale_discount, base: w.base, tax: w.tax, gross: w.gross })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleTax {
    pub price_mode: PriceMode,
    pub lines: Vec<LineResult>,
    /// One entry per class present in the cart, in the order standard, reduced, exempt.
    pub rates: Vec<RateResult>,
    /// Sum of line nets, before the sale discount.
    pub subtotal: i64,
    pub sale_discount: i64,
    pub tax_total: i64,
    /// What the customer pays: the sum of the rates' `gross`.
    pub total: i64,
    /// Computed for a tax-exempt sale ([`Cart::exempt`], record 0135). Kept in the locked
    /// document so a stored sale and its returns re-read as exempt; absent in older JSON.
    #[serde(default)]
    pub exempt: bool,
}

pub(crate) fn percent_of(amount: i64, basis_points: u32) -> i64 {
    // amount ≤ ~10¹⁷ and basis_points ≤ 10⁴, so the quotient is ≤ amount: it fits.
    (i128::from(amount) * i128::from(basis_points) / i128::from(BASIS_POINTS_100_PERCENT)) as i64
}

fn line_result(i: usize, line: &Line, cart: &Cart, settings: &TaxSettings) -> Result<(LineResult, AppliedRate), TaxError> {
    if line.quantity == 0 || line.quantity > MAX_QUANTITY {
        return Err(TaxError::QuantityOutOfRange { line: i, quantity: line.quantity, max: MAX_QUANTITY });
    }
    if !(0..=MAX_UNIT_PRICE).contains(&line.unit_price) {
        return Err(TaxError::PriceOutOfRange { line: i, price: line.unit_price, max: MAX_UNIT_PRICE });
    }
    let gross = line.unit_price * i64::from(line.quantity);
    let discount = match line.discount {
        None => 0,
        Some(Discount::Percent { basis_points }) if basis_points > BASIS_POINTS_100_PERCENT => {
            return Err(TaxError::LinePercentOutOfRange { line: i, percent_bp: basis_points });
        }
        Some(Discount::Percent { basis_points }) => percent_of(gross, basis_points),
        Some(Discount::Amount { amount }) if !(0..=gross).contains(&amount) => {
            return Err(TaxError::LineDiscountTooLarge { line: i, discount: amount, gross });
        }
        Some(Discount::Amount { amount }) => amount,
    };
    if cart.exempt {
        // One place decides an exempt sale's tax: every line in the exempt class at 0 %,
        // one unnamed part (a rate's parts are never empty), so the sale's rates are a
        // single 0 % group and its total is its subtotal less discounts.
        let rate = AppliedRate { ppm: 0, parts: vec![(String::new(), 0)] };
        return Ok((LineResult { gross, discount, net: gross - discount, class: TaxClass::Exempt, ppm: 0 }, rate));
    }
    let class = cart.dining.effective_class(line.class);
    let rate = settings.rates.rate(class, cart.date)?;
    Ok((LineResult { gross, discount, net: gross - discount, class, ppm: rate.ppm }, rate))
}

/// Tax of one rate's amount, in the store's price mode: `(base, tax, gross)`.
pub(crate) fn tax_of(amount: i64, ppm: u32, settings: &TaxSettings) -> (i64, i64, i64) {
    let a = i128::from(amount);
    let bp = i128::from(ppm);
    let full = i128::from(PPM_100_PERCENT);
    // tax ≤ amount in both modes (rates are at most 100 %), so it fits in i64.
    match settings.price_mode {
        PriceMode::Exclusive => {
            let tax = round_div(a * bp, full, settings.rounding) as i64;
            (amount, tax, amount + tax)
        }
        PriceMode::Inclusive => {
            let tax = round_div(a * bp, full + bp, settings.rounding) as i64;
            (amount - tax, tax, amount)
        }
    }
}

/// Computes a sale's tax: line discounts, then the sale discount spread over the rates
/// (see [`allocate_proportionally`]), then per rate one tax on that rate's total at the rate's
/// combined ppm, rounded once by the store's rule, and split over the taxes stacked in the rate
/// in proportion to their rates (record 0131). Refuses (never clamps) a cart outside the limits or a discount that
/// would make a line or the sale negative.
pub fn compute(cart: &Cart, settings: &TaxSettings) -> Result<SaleTax, TaxError> {
    settings.rates.validate()?;
    if cart.lines.len() > MAX_LINES {
        return Err(TaxError::TooManyLines { lines: cart.lines.len(), max: MAX_LINES });
    }
    let (lines, applied): (Vec<LineResult>, Vec<AppliedRate>) = cart
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| line_result(i, l, cart, settings))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();
    let subtotal: i64 = lines.iter().map(|l| l.net).sum();
    let sale_discount = match cart.sale_discount {
        None => 0,
        Some(Discount::Percent { basis_points }) if basis_points > BASIS_POINTS_100_PERCENT => {
            return Err(TaxError::SalePercentOutOfRange { percent_bp: basis_points });
        }
        Some(Discount::Percent { basis_points }) => percent_of(subtotal, basis_points),
        Some(Discount::Amount { amount }) if !(0..=subtotal).contains(&amount) => {
            return Err(TaxError::SaleDiscountTooLarge { discount: amount, subtotal });
        }
        Some(Discount::Amount { amount }) => amount,
    };

    // Groups in class order; a class absent from the cart has no group.
    // Every line of a class has the same rate (one table, one day).
    let mut groups: Vec<(TaxClass, &AppliedRate, i64)> = Vec::new();
    for class in [TaxClass::Standard, TaxClass::Reduced, TaxClass::Exempt] {
        if let Some(i) = lines.iter().position(|l| l.class == class) {
            groups.push((class, &applied[i], lines.iter().filter(|l| l.class == class).map(|l| l.net).sum()));
        }
    }
    let weights: Vec<i64> = groups.iter().map(|g| g.2).collect();
    let shares = allocate_proportionally(sale_discount, &weights)
        .ok_or(TaxError::SaleDiscountTooLarge { discount: sale_discount, subtotal })?;

    let rates: Vec<RateResult> = groups
        .iter()
        .zip(shares)
        .map(|(&(class, rate, lines_net), share)| {
            let (base, tax, gross) = tax_of(lines_net - share, rate.ppm, settings);
            RateResult { class, ppm: rate.ppm, parts: parts_of(rate, tax), lines_net, sale_discount: share, base, tax, gross }
        })
        .collect();
    let tax_total = rates.iter().map(|r| r.tax).sum();
    let total = rates.iter().map(|r| r.gross).sum();
    Ok(SaleTax { price_mode: settings.price_mode, lines, rates, subtotal, sale_discount, tax_total, total, exempt: cart.exempt })
}

/// A rate's tax split over the taxes stacked in it, adding up to `tax` exactly.
pub(crate) fn parts_of(rate: &AppliedRate, tax: i64) -> Vec<TaxPart> {
    let weights: Vec<u32> = rate.parts.iter().map(|p| p.1).collect();
    // A tax is never negative, and it is zero when every part is 0 %.
    let shares = split_by_rate(tax, &weights).unwrap_or_else(|| vec![0; weights.len()]);
    rate.parts.iter().zip(shares).map(|((name, ppm), tax)| TaxPart { name: name.clone(), ppm: *ppm, tax }).collect()
}
