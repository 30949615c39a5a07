//! A completed sale with its lines and its tax per rate (record 0051): what was sold,
//! at what price, under which tax class, and the invoice's figures, so the back office
//! holds the items sold and a replacement register could reprint the receipt.
//!
//! The figures are the register's own (the tax the sale was locked with at its first
//! tender, record 0060): the back office stores them, it never recomputes them. The checks
//! here are the arithmetic every such sale keeps, so a fact that does not add up is
//! refused with the field that breaks it instead of being stored.
use crate::books::{amount_or_zero, id};
use crate::catalog::{MAX_ITEM_NAME_CHARS, MAX_PRICE, MAX_SKU_CHARS};
use crate::{text, ProtoError};
use paydesk_tax::{Dining, PriceMode, TaxClass};
use serde::{Deserialize, Serialize};

/// Lines of one sale: the tax crate's limit, which the ledger also keeps when a line is
/// added (`paydesk_tax::MAX_LINES`).
pub const MAX_SALE_LINES: usize = paydesk_tax::MAX_LINES;
/// One line's quantity (`paydesk_tax::MAX_QUANTITY`, kept by the ledger too).
pub const MAX_LINE_QUANTITY: i64 = paydesk_tax::MAX_QUANTITY as i64;
/// Rates of one sale: one per class at most.
pub const MAX_SALE_RATES: usize = 3;
/// The receipt number: the register's sale id, zero-padded ("000042"), at most 20 digits.
pub const MAX_RECEIPT_NO_CHARS: usize = 20;

/// One line of a completed sale. `name` is the name printed on its receipt (the store's
/// language); `discount` is what the line's own discount took off `unit_price ×
/// quantity`, and `total` what is left (the line's net, before any sale discount).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaleLine {
    pub sku: String,
    pub name: String,
    pub quantity: i64,
    pub unit_price: i64,
    pub tax_class: TaxClass,
    pub discount: i64,
    pub total: i64,
    /// A weighed line (record 0134): its unit, grams and price per unit; its `quantity` is
    /// 1 and its `unit_price` the amount for the weight. Absent on a line of pieces, so a
    /// piece line reads and writes exactly as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<paydesk_tax::SaleUnit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grams: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_rate: Option<i64>,
}

/// One rate's part of the sale, as the qualified invoice prints it (record 0056, 0057):
/// `base + tax = gross`. `class` is the class the tax was computed under (a reduced
/// item eaten in is standard).
/// `ppm` is the rate in parts per million, every tax stacked in it together (record 0131);
/// a fact queued by an older register says `basis_points`, read × 100.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "SaleRateWire")]
pub struct SaleRate {
    pub class: TaxClass,
    pub ppm: i64,
    pub base: i64,
    pub tax: i64,
    pub gross: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SaleRateWire {
    class: TaxClass,
    #[serde(default)]
    ppm: Option<i64>,
    #[serde(default)]
    basis_points: Option<i64>,
    base: i64,
    tax: i64,
    gross: i64,
}

impl TryFrom<SaleRateWire> for SaleRate {
    type Error = String;
    fn try_from(w: SaleRateWire) -> Result<Self, String> {
        let ppm = crate::catalog::ppm_or_basis_points(w.ppm, w.basis_points)?;
        Ok(SaleRate { class: w.class, ppm, base: w.base, tax: w.tax, gross: w.gross })
    }
}

/// A sale the register completed (its cart became paid). `sale` is the register's cart
/// id, as in its tenders. `price_mode` is `None` for a sale that had no tax computed (all
/// lines exempt and no discount: its total is the sum of its lines, record 0060); then it has
/// no rates, no discounts and no tax.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaleCompleted {
    pub sale: i64,
    pub receipt_no: String,
    pub currency: String,
    pub dining: Dining,
    pub price_mode: Option<PriceMode>,
    /// Sum of the lines' totals, before the sale discount.
    pub subtotal: i64,
    pub sale_discount: i64,
    pub tax_total: i64,
    /// What the customer paid: the sum of the rates' gross.
    pub total: i64,
    pub rates: Vec<SaleRate>,
    pub lines: Vec<SaleLine>,
    /// Why the whole sale was tax exempt (record 0135): 3 to 200 characters, and then the
    /// sale bears no tax. Absent for a taxed sale (and from registers before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tax_exempt_reason: Option<String>,
}

/// The longest reason of a tax-exempt sale, in characters (the register keeps 3 to 200).
pub const MAX_EXEMPT_REASON_CHARS: usize = 200;

/// A name or SKU on a line: 1..=max characters, no control characters (a name reaches
/// receipts and printers).
pub(crate) fn bounded(field: &str, s: &str, max: usize) -> Result<(), ProtoError> {
    let n = s.chars().count();
    if n == 0 || n > max {
        return Err(ProtoError::field(field, format!("must be 1 to {max} characters, got {n}")));
    }
    if s.chars().any(char::is_control) {
        return Err(ProtoError::field(field, "has a control character"));
    }
    Ok(())
}

impl SaleLine {
    fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        bounded(&f("sku"), &self.sku, MAX_SKU_CHARS)?;
        bounded(&f("name"), &self.name, MAX_ITEM_NAME_CHARS)?;
        if !(1..=MAX_LINE_QUANTITY).contains(&self.quantity) {
            return Err(ProtoError::field(f("quantity"), format!("must be between 1 and {MAX_LINE_QUANTITY}, got {}", self.quantity)));
        }
        if !(0..=MAX_PRICE).contains(&self.unit_price) {
            return Err(ProtoError::field(f("unit_price"), format!("must be between 0 and {MAX_PRICE} minor units, got {}", self.unit_price)));
        }
        match (self.unit, self.grams, self.unit_rate) {
            (None, None, None) => {}
            (Some(unit), Some(grams), Some(rate)) => {
                // The one amount rule (record 0134): the line's price is its weight's amount.
                let amount = paydesk_tax::weighed_amount(rate, grams, unit)
                    .map_err(|e| ProtoError::field(f("grams"), e.to_string()))?;
                if self.quantity != 1 || self.unit_price != amount {
                    return Err(ProtoError::field(
                        f("unit_price"),
                        format!("a weighed line is 1 at its amount {amount}, got {} at {}", self.quantity, self.unit_price),
                    ));
                }
            }
            _ => return Err(ProtoError::field(f("unit"), "a weighed line has its unit, grams and unit_rate together")),
        }
        // Within the limits above the product fits in i64 (10^10 × 9,999).
        let gross = self.unit_price * self.quantity;
        if !(0..=gross).contains(&self.discount) {
            return Err(ProtoError::field(f("discount"), format!("must be between 0 and the line's {gross}, got {}", self.discount)));
        }
        if self.total != gross - self.discount {
            return Err(ProtoError::field(f("total"), format!("must be {gross} less the discount {}, got {}", self.discount, self.total)));
        }
        Ok(())
    }
}

impl SaleRate {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        if !(0..=i64::from(paydesk_tax::PPM_100_PERCENT)).contains(&self.ppm) {
            return Err(ProtoError::field(f("ppm"), format!("must be between 0 and 1000000, got {}", self.ppm)));
        }
        amount_or_zero(&f("base"), self.base)?;
        amount_or_zero(&f("tax"), self.tax)?;
        amount_or_zero(&f("gross"), self.gross)?;
        if self.base + self.tax != self.gross {
            return Err(ProtoError::field(f("gross"), format!("must be base {} plus tax {}, got {}", self.base, self.tax, self.gross)));
        }
        Ok(())
    }
}

impl SaleCompleted {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        id(&f("sale"), self.sale)?;
        let n = self.receipt_no.len();
        if n == 0 || n > MAX_RECEIPT_NO_CHARS || !self.receipt_no.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ProtoError::field(f("receipt_no"), format!("must be 1 to {MAX_RECEIPT_NO_CHARS} digits, got {:?}", self.receipt_no)));
        }
        text::currency(&f("currency"), &self.currency)?;
        text::amount(&f("total"), self.total)?;
        amount_or_zero(&f("subtotal"), self.subtotal)?;
        amount_or_zero(&f("sale_discount"), self.sale_discount)?;
        amount_or_zero(&f("tax_total"), self.tax_total)?;
        if self.lines.is_empty() || self.lines.len() > MAX_SALE_LINES {
            return Err(ProtoError::field(f("lines"), format!("must hold 1 to {MAX_SALE_LINES} lines, got {}", self.lines.len())));
        }
        if self.rates.len() > MAX_SALE_RATES {
            return Err(ProtoError::field(f("rates"), format!("holds {} rates; at most {MAX_SALE_RATES}, one per class", self.rates.len())));
        }
        // i128: 1,000 lines of up to 10^14 each cannot overflow it.
        let mut lines_sum: i128 = 0;
        for (i, l) in self.lines.iter().enumerate() {
            l.validate(&|name| f(&format!("lines[{i}].{name}")))?;
            lines_sum += i128::from(l.total);
        }
        if lines_sum != i128::from(self.subtotal) {
            return Err(ProtoError::field(f("subtotal"), format!("must be the sum of the lines' totals {lines_sum}, got {}", self.subtotal)));
        }
        let (mut gross_sum, mut tax_sum): (i128, i128) = (0, 0);
        for (i, r) in self.rates.iter().enumerate() {
            r.validate(&|name| f(&format!("rates[{i}].{name}")))?;
            if self.rates[..i].iter().any(|o| o.class == r.class) {
                return Err(ProtoError::field(f(&format!("rates[{i}].class")), "is listed twice"));
            }
            gross_sum += i128::from(r.gross);
            tax_sum += i128::from(r.tax);
        }
        if let Some(reason) = &self.tax_exempt_reason {
            bounded(&f("tax_exempt_reason"), reason, MAX_EXEMPT_REASON_CHARS)?;
            if reason.trim().chars().count() < 3 {
                return Err(ProtoError::field(f("tax_exempt_reason"), "must be at least 3 characters"));
            }
            if self.tax_total != 0 {
                return Err(ProtoError::field(f("tax_total"), format!("must be 0 for a tax-exempt sale, got {}", self.tax_total)));
            }
        }
        let Some(mode) = self.price_mode else {
            // No tax computed: every line exempt and undiscounted, the total their sum.
            if let Some(i) = self.lines.iter().position(|l| l.tax_class != TaxClass::Exempt || l.discount != 0) {
                return Err(ProtoError::field(f(&format!("lines[{i}]")), "is taxed or discounted, so the sale needs its price_mode"));
            }
            if !self.rates.is_empty() || self.sale_discount != 0 || self.tax_total != 0 || self.total != self.subtotal {
                return Err(ProtoError::field(f("price_mode"), "is null, so the sale has no rates, discount or tax and its total is its subtotal"));
            }
            return Ok(());
        };
        if self.rates.is_empty() {
            return Err(ProtoError::field(f("rates"), "is empty for a taxed sale"));
        }
        if self.sale_discount > self.subtotal {
            return Err(ProtoError::field(f("sale_discount"), format!("is larger than the subtotal {}", self.subtotal)));
        }
        if gross_sum != i128::from(self.total) {
            return Err(ProtoError::field(f("total"), format!("must be the sum of the rates' gross {gross_sum}, got {}", self.total)));
        }
        if tax_sum != i128::from(self.tax_total) {
            return Err(ProtoError::field(f("tax_total"), format!("must be the sum of the rates' tax {tax_sum}, got {}", self.tax_total)));
        }
        let want = match mode {
            PriceMode::Inclusive => self.subtotal - self.sale_discount,
            PriceMode::Exclusive => self.subtotal - self.sale_discount + self.tax_total,
        };
        if self.total != want {
            return Err(ProtoError::field(f("total"), format!("must be subtotal less sale discount{} = {want}, got {}", if mode == PriceMode::Exclusive { " plus tax" } else { "" }, self.total)));
        }
        Ok(())
    }
}

/// The wire name of a dining choice (as serde writes it).
pub fn dining_name(d: Dining) -> &'static str {
    match d {
        Dining::EatIn => "eat_in",
        Dining::TakeOut => "take_out",
    }
}

/// The wire name of a price mode (as serde writes it).
pub fn price_mode_name(m: PriceMode) -> &'static str {
    match m {
        PriceMode::Inclusive => "inclusive",
        PriceMode::Exclusive => "exclusive",
    }
}
