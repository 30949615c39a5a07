//! What a register gave back after a sale (record 0119): a return of items with its tax per
//! rate, and the cash a refund or a return took out of the drawer. The back office nets
//! both against the sale it already holds, so its sales, tax and cash figures are the
//! register's after returns, not before.
//!
//! A card's part of a refund or return already travels as `refund_created` and
//! `refund_state` (its own key, checked against the PSP); only the drawer's cash part was
//! missing, and `cash_refunded` is it. `return_recorded` carries the items and the tax: a
//! return with nothing to give back (lines given away at 100 % off) still changes what was
//! sold.
use crate::books::{amount_or_zero, id};
use crate::catalog::MAX_SKU_CHARS;
use crate::sales::{bounded, SaleRate, MAX_LINE_QUANTITY, MAX_SALE_LINES, MAX_SALE_RATES};
use crate::{text, ProtoError};
use paydesk_tax::TaxClass;
use serde::{Deserialize, Serialize};

/// A return's number: the sale's receipt number, `-R` and the return's place in the sale
/// ("000042-R1"), at most this long.
pub const MAX_RETURN_NO_CHARS: usize = 40;

/// One line taken back: `line` is the sale line's place (0-based, in the order the sale
/// fact lists its lines), `sku` the same line's SKU (so a register that disagrees with
/// itself is caught), `net` its share of the line's net before any sale discount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReturnLine {
    pub line: i64,
    pub sku: String,
    pub quantity: i64,
    pub tax_class: TaxClass,
    pub net: i64,
}

/// A return of items from the register's paid sale `sale`. `total` is what it gave back
/// (the sum of its rates' gross; zero for lines given away) with `tax_total` in it;
/// `cash_out` the part of it paid out of the drawer (the rest went back to cards).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReturnRecorded {
    pub sale: i64,
    pub return_no: String,
    pub currency: String,
    pub total: i64,
    pub tax_total: i64,
    pub cash_out: i64,
    pub rates: Vec<SaleRate>,
    pub lines: Vec<ReturnLine>,
    /// The register whose sale it is, when not the sending one: a replacement register
    /// takes back a sale of the predecessor it restored (record 0144). Absent otherwise, so
    /// a return of the register's own sale reads and writes exactly as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sale_register: Option<String>,
}

impl ReturnLine {
    fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        if !(0..MAX_SALE_LINES as i64).contains(&self.line) {
            return Err(ProtoError::field(f("line"), format!("must be between 0 and {}, got {}", MAX_SALE_LINES - 1, self.line)));
        }
        bounded(&f("sku"), &self.sku, MAX_SKU_CHARS)?;
        if !(1..=MAX_LINE_QUANTITY).contains(&self.quantity) {
            return Err(ProtoError::field(f("quantity"), format!("must be between 1 and {MAX_LINE_QUANTITY}, got {}", self.quantity)));
        }
        amount_or_zero(&f("net"), self.net)
    }
}

impl ReturnRecorded {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        id(&f("sale"), self.sale)?;
        let prefix = format!("{:06}-R", self.sale);
        let n = self.return_no.chars().count();
        let seq_ok = self.return_no.strip_prefix(&prefix).is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
        if n > MAX_RETURN_NO_CHARS || !seq_ok {
            return Err(ProtoError::field(f("return_no"), format!("must be \"{prefix}\" and the return's number, at most {MAX_RETURN_NO_CHARS} characters, got {:?}", self.return_no)));
        }
        text::currency(&f("currency"), &self.currency)?;
        sale_register(&f("sale_register"), self.sale_register.as_deref())?;
        amount_or_zero(&f("total"), self.total)?;
        amount_or_zero(&f("tax_total"), self.tax_total)?;
        amount_or_zero(&f("cash_out"), self.cash_out)?;
        if self.cash_out > self.total {
            return Err(ProtoError::field(f("cash_out"), format!("is more than the return's total {}", self.total)));
        }
        if self.lines.is_empty() || self.lines.len() > MAX_SALE_LINES {
            return Err(ProtoError::field(f("lines"), format!("must hold 1 to {MAX_SALE_LINES} lines, got {}", self.lines.len())));
        }
        for (i, l) in self.lines.iter().enumerate() {
            l.validate(&|name| f(&format!("lines[{i}].{name}")))?;
            if self.lines[..i].iter().any(|o| o.line == l.line) {
                return Err(ProtoError::field(f(&format!("lines[{i}].line")), "is listed twice"));
            }
        }
        if self.rates.len() > MAX_SALE_RATES {
            return Err(ProtoError::field(f("rates"), format!("holds {} rates; at most {MAX_SALE_RATES}, one per class", self.rates.len())));
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
        // A return of untaxed lines (no tax computed on its sale) has no rates: its total is
        // the lines' nets.
        let want_total = if self.rates.is_empty() { self.lines.iter().map(|l| i128::from(l.net)).sum() } else { gross_sum };
        if want_total != i128::from(self.total) {
            return Err(ProtoError::field(f("total"), format!("must be the sum of the rates' gross (or of the lines' net without rates) {want_total}, got {}", self.total)));
        }
        if tax_sum != i128::from(self.tax_total) {
            return Err(ProtoError::field(f("tax_total"), format!("must be the sum of the rates' tax {tax_sum}, got {}", self.tax_total)));
        }
        Ok(())
    }
}

/// A `sale_register`: a register id (a UUID, as the back office names registers).
pub(crate) fn sale_register(field: &str, r: Option<&str>) -> Result<(), ProtoError> {
    match r {
        None => Ok(()),
        Some(r) if r.len() == 36 && r.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') => Ok(()),
        Some(r) => Err(ProtoError::field(field, format!("must be a register id, got {} characters", r.chars().count()))),
    }
}

/// Validates the fields of a `cash_refunded` fact.
pub(crate) fn validate_cash_refunded(
    f: &dyn Fn(&str) -> String,
    (movement, sale, amount): (i64, i64, i64),
    currency: &str,
    shift: Option<i64>,
    register: Option<&str>,
) -> Result<(), ProtoError> {
    sale_register(&f("sale_register"), register)?;
    id(&f("movement"), movement)?;
    id(&f("sale"), sale)?;
    text::amount(&f("amount"), amount)?;
    text::currency(&f("currency"), currency)?;
    shift.map_or(Ok(()), |s| id(&f("shift"), s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn good() -> serde_json::Value {
        json!({"sale": 42, "return_no": "000042-R2", "currency": "jpy", "total": 1100, "tax_total": 100, "cash_out": 600,
               "rates": [{"class": "standard", "ppm": 100000, "base": 1000, "tax": 100, "gross": 1100}],
               "lines": [{"line": 1, "sku": "MUG-001", "quantity": 1, "tax_class": "standard", "net": 1100}]})
    }

    fn check(v: serde_json::Value) -> Result<(), String> {
        let r: ReturnRecorded = serde_json::from_value(v).map_err(|e| e.to_string())?;
        r.validate(&|n| format!("rows[0].fact.{n}")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_return_that_does_not_add_up_is_refused_naming_its_field() {
        assert_eq!(check(good()), Ok(()));
        let cases: [(&str, serde_json::Value, &str); 7] = [
            ("/return_no", json!("000043-R2"), "return_no"),
            ("/return_no", json!("000042-R"), "return_no"),
            ("/cash_out", json!(1101), "more than the return's total"),
            ("/total", json!(1000), "sum of the rates' gross"),
            ("/tax_total", json!(99), "sum of the rates' tax"),
            ("/lines/0/quantity", json!(0), "quantity"),
            ("/lines/0/line", json!(1000), "line"),
        ];
        for (path, value, want) in cases {
            let mut v = good();
            *v.pointer_mut(path).unwrap() = value;
            let e = check(v).unwrap_err();
            assert!(e.contains(want), "{path}: {e}");
        }
        let mut twice = good();
        let line = twice["lines"][0].clone();
        twice["lines"].as_array_mut().unwrap().push(line);
        assert!(check(twice).unwrap_err().contains("listed twice"));
        let mut extra = good();
        extra["refund"] = json!(1);
        assert!(check(extra).unwrap_err().contains("unknown field"));
    }
}
