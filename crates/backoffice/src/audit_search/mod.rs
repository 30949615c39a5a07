//! The auditor's search (issue #32, record 0146; 電子帳簿保存法's search by date, amount
//! and counterpart): find the registers' sales by the store's own days, an amount range and
//! the receipt number, and show one sale's receipt as issued, its reprints, and the proof
//! that the audit row recording each print is inside the chain whose head the back office
//! confirmed (record 0053).
//!
//! This file reads the query strings, before any SQL: each wrong parameter is a 400 naming
//! it ([`Refusal`]). `proof.rs` recomputes the chain (pure), `route.rs` queries and answers.
pub mod proof;
pub mod route;

use crate::error::ApiError;
use crate::reports::{DateRange, Day, MAX_DAYS};
use paydesk_domain::{Currency, Money};
use paydesk_sync_proto::limits::MAX_AMOUNT;
use uuid::Uuid;

/// Sales one search returns at most; past it the answer says `truncated`.
pub const MAX_SEARCH_ROWS: usize = 500;
/// The longest receipt number (the wire's).
pub const MAX_RECEIPT_DIGITS: usize = paydesk_sync_proto::sales::MAX_RECEIPT_NO_CHARS;
/// Registers number receipts with at least this many digits (`{:06}` of the sale).
pub const RECEIPT_DIGITS: usize = 6;

/// Why a search or a sale id is refused: one variant per rule, each naming its parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    QueryTooLong,
    Unknown(String),
    Twice(&'static str),
    Missing(&'static str),
    NotADay(&'static str, String),
    FromAfterTo { from: String, to: String },
    RangeTooLong { days: i64 },
    NotAnAmount(&'static str, String),
    /// With `currency`, an amount is in its major units ("16.50" USD, "1650" JPY).
    NotAnAmountIn(&'static str, String, Currency),
    NotACurrency(String),
    MinAboveMax { min: i64, max: i64 },
    NotAReceipt(String),
    NotAStore(String),
    NotASaleId(String),
}

impl Refusal {
    /// The parameter at fault.
    pub const fn param(&self) -> &'static str {
        match self {
            Refusal::QueryTooLong | Refusal::Unknown(_) => "query",
            Refusal::Twice(p) | Refusal::Missing(p) | Refusal::NotADay(p, _) | Refusal::NotAnAmount(p, _) | Refusal::NotAnAmountIn(p, _, _) => p,
            Refusal::NotACurrency(_) => "currency",
            Refusal::FromAfterTo { .. } | Refusal::RangeTooLong { .. } => "to",
            Refusal::MinAboveMax { .. } => "max",
            Refusal::NotAReceipt(_) => "receipt",
            Refusal::NotAStore(_) => "store",
            Refusal::NotASaleId(_) => "id",
        }
    }

    pub fn message(&self) -> String {
        let cut = |s: &str| s.chars().take(40).collect::<String>();
        match self {
            Refusal::QueryTooLong => "the query string is longer than 1000 characters".into(),
            Refusal::Unknown(p) => format!("unknown parameter {:?} (from, to, min, max, currency, receipt, store)", cut(p)),
            Refusal::Twice(_) => "given twice".into(),
            Refusal::Missing(_) => "missing (YYYY-MM-DD)".into(),
            Refusal::NotADay(_, v) => format!("{:?} is not a date YYYY-MM-DD", cut(v)),
            Refusal::FromAfterTo { from, to } => format!("{to} is before from {from}"),
            Refusal::RangeTooLong { days } => format!("the range is {days} days; at most {MAX_DAYS}"),
            Refusal::NotAnAmount(_, v) => format!("{:?} is not an amount in minor units (0 to {MAX_AMOUNT})", cut(v)),
            Refusal::NotAnAmountIn(_, v, c) => format!(
                "{:?} is not an amount in {} (digits, at most {} decimals, no separators)",
                cut(v),
                c.code().to_ascii_uppercase(),
                c.exponent()
            ),
            Refusal::NotACurrency(v) => format!("{:?} is not a currency code (jpy, usd, eur, gbp, krw)", cut(v)),
            Refusal::MinAboveMax { min, max } => format!("{max} is below min {min}"),
            Refusal::NotAReceipt(v) => format!("{:?} is not a receipt number (1 to {MAX_RECEIPT_DIGITS} digits)", cut(v)),
            Refusal::NotAStore(v) => format!("{:?} is not a store id", cut(v)),
            Refusal::NotASaleId(v) => format!("{:?} is not a sale id (REGISTER.SALE)", cut(v)),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> ApiError {
        ApiError::BadParameter { param: r.param(), message: r.message() }
    }
}

/// A search asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub range: DateRange,
    /// In minor units (converted from `currency`'s major units when it is given).
    pub min: Option<i64>,
    pub max: Option<i64>,
    /// Only sales in this currency; `min` and `max` were typed in its major units, as an
    /// owner reads a receipt. Without it they are minor units (the API's first form).
    pub currency: Option<Currency>,
    /// As the registers print it (at least [`RECEIPT_DIGITS`] digits, zeros in front).
    pub receipt: Option<String>,
    /// `None`: all the owner's stores.
    pub store: Option<Uuid>,
}

fn amount(name: &'static str, v: Option<String>, currency: Option<Currency>) -> Result<Option<i64>, Refusal> {
    let Some(v) = v else { return Ok(None) };
    if let Some(c) = currency {
        // The domain's parser: digits and at most the currency's decimals, never rounded.
        return match Money::parse(&v, c) {
            Ok(m) if v.len() <= 20 && v.trim() == v && m.amount_minor <= MAX_AMOUNT => Ok(Some(m.amount_minor)),
            Ok(_) | Err(_) => Err(Refusal::NotAnAmountIn(name, v, c)),
        };
    }
    let ok = !v.is_empty() && v.len() <= 13 && v.bytes().all(|b| b.is_ascii_digit());
    match v.parse::<i64>() {
        Ok(n) if ok && n <= MAX_AMOUNT => Ok(Some(n)),
        Ok(_) | Err(_) => Err(Refusal::NotAnAmount(name, v)),
    }
}

/// `123` finds receipt `000123`: the registers print at least six digits.
pub fn receipt_number(v: &str) -> Result<String, Refusal> {
    if v.is_empty() || v.len() > MAX_RECEIPT_DIGITS || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Refusal::NotAReceipt(v.to_string()));
    }
    Ok(format!("{v:0>RECEIPT_DIGITS$}"))
}

/// Reads `from`, `to` (required), `min`, `max`, `currency`, `receipt` and `store`. Unknown or repeated
/// parameters are refused: a typo ("recipt=") must not silently widen the search.
pub fn parse_search(query: &str) -> Result<Search, Refusal> {
    if query.len() > 1_000 {
        return Err(Refusal::QueryTooLong);
    }
    let (mut from, mut to, mut min, mut max, mut receipt, mut store) = (None, None, None, None, None, None);
    let mut currency = None;
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        let (name, slot): (&'static str, _) = match &*k {
            "from" => ("from", &mut from),
            "to" => ("to", &mut to),
            "min" => ("min", &mut min),
            "max" => ("max", &mut max),
            "currency" => ("currency", &mut currency),
            "receipt" => ("receipt", &mut receipt),
            "store" => ("store", &mut store),
            other => return Err(Refusal::Unknown(other.to_string())),
        };
        // An empty field of the page's form is not given.
        if v.is_empty() {
            continue;
        }
        if slot.replace(v.into_owned()).is_some() {
            return Err(Refusal::Twice(name));
        }
    }
    let day = |name: &'static str, v: Option<String>| -> Result<Day, Refusal> {
        let v = v.ok_or(Refusal::Missing(name))?;
        Day::parse(&v).ok_or(Refusal::NotADay(name, v))
    };
    let range = DateRange { from: day("from", from)?, to: day("to", to)? };
    if range.from > range.to {
        return Err(Refusal::FromAfterTo { from: range.from.iso(), to: range.to.iso() });
    }
    if range.days() > MAX_DAYS {
        return Err(Refusal::RangeTooLong { days: range.days() });
    }
    let currency = currency
        .map(|c| match c.parse::<Currency>() {
            Ok(k) if c.len() == 3 => Ok(k),
            Ok(_) | Err(_) => Err(Refusal::NotACurrency(c)),
        })
        .transpose()?;
    let (min, max) = (amount("min", min, currency)?, amount("max", max, currency)?);
    if let (Some(a), Some(b)) = (min, max) {
        if a > b {
            return Err(Refusal::MinAboveMax { min: a, max: b });
        }
    }
    let receipt = receipt.as_deref().map(receipt_number).transpose()?;
    let store = store.map(|s| Uuid::parse_str(&s).map_err(|_| Refusal::NotAStore(s))).transpose()?;
    Ok(Search { range, min, max, currency, receipt, store })
}

/// A sale as the search names it: `REGISTER.SALE` (the register's id, its sale number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaleId {
    pub register_id: Uuid,
    pub sale_id: i64,
}

impl SaleId {
    pub fn parse(s: &str) -> Result<SaleId, Refusal> {
        let bad = || Refusal::NotASaleId(s.to_string());
        let (reg, sale) = s.split_once('.').ok_or_else(bad)?;
        let register_id = Uuid::parse_str(reg).map_err(|_| bad())?;
        let ok = !sale.is_empty() && sale.len() <= 18 && sale.bytes().all(|b| b.is_ascii_digit());
        let sale_id = sale.parse::<i64>().ok().filter(|n| ok && *n >= 1).ok_or_else(bad)?;
        Ok(SaleId { register_id, sale_id })
    }

    pub fn spelled(self) -> String {
        format!("{}.{}", self.register_id, self.sale_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bad_parameter_is_named() {
        let param = |q: &str| parse_search(q).unwrap_err().param();
        assert_eq!(param("to=2026-12-01"), "from");
        assert_eq!(param("from=2026-12-01"), "to");
        assert_eq!(param("from=2026-02-30&to=2026-03-01"), "from");
        assert_eq!(param("from=2026-12-02&to=2026-12-01"), "to");
        assert_eq!(param("from=2026-01-01&to=2027-01-02"), "to");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&min=-1"), "min");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&min=1.5"), "min");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&max=99999999999999"), "max");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&min=10&max=9"), "max");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&receipt=12a"), "receipt");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&receipt=123456789012345678901"), "receipt");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&store=x"), "store");
        assert_eq!(param("from=2026-12-01&to=2026-12-01&recipt=1"), "query");
        assert_eq!(param("from=2026-12-01&from=2026-12-02&to=2026-12-03"), "from");
        assert_eq!(parse_search("from=2026-12-01&to=2026-12-01&min=10&max=9").unwrap_err().message(), "9 is below min 10");
    }

    #[test]
    fn a_search_reads_every_criterion_and_pads_the_receipt_number() {
        let s = parse_search("from=2026-12-01&to=2026-12-02&min=100&max=2000&receipt=12&store=").unwrap();
        assert_eq!((s.min, s.max, s.receipt.as_deref(), s.store, s.range.days()), (Some(100), Some(2000), Some("000012"), None, 2));
        assert_eq!(receipt_number("1234567").unwrap(), "1234567");
    }

    #[test]
    fn with_a_currency_amounts_are_its_major_units_never_rounded() {
        let s = parse_search("from=2026-12-01&to=2026-12-01&currency=usd&min=16.5&max=20").unwrap();
        assert_eq!((s.min, s.max, s.currency), (Some(1650), Some(2000), Some(Currency::Usd)));
        let s = parse_search("from=2026-12-01&to=2026-12-01&currency=JPY&min=1650").unwrap();
        assert_eq!((s.min, s.currency), (Some(1650), Some(Currency::Jpy)));
        let refused = |q: &str| parse_search(&format!("from=2026-12-01&to=2026-12-01&{q}")).unwrap_err();
        assert_eq!(refused("currency=usd&min=16.505"), Refusal::NotAnAmountIn("min", "16.505".into(), Currency::Usd));
        assert_eq!(refused("currency=jpy&max=1.5"), Refusal::NotAnAmountIn("max", "1.5".into(), Currency::Jpy));
        for bad in ["1,650", "-1", " 16", "1e3", "16.", "99999999999999"] {
            assert_eq!(refused(&format!("currency=usd&min={bad}")).param(), "min", "{bad}");
        }
        assert_eq!(refused("currency=usd&min=16.505").message(), "\"16.505\" is not an amount in USD (digits, at most 2 decimals, no separators)");
        assert_eq!(refused("currency=xyz").param(), "currency");
        assert_eq!(refused("currency=yen").param(), "currency");
        assert_eq!(refused("currency=usd&min=20&max=16.5").param(), "max");
    }

    #[test]
    fn a_sale_id_is_a_register_and_a_number() {
        let r = "0b7e3c1e-8a5b-4c59-9d1e-2f0a4c6b8d10";
        let id = SaleId::parse(&format!("{r}.42")).unwrap();
        assert_eq!((id.register_id.to_string(), id.sale_id), (r.to_string(), 42));
        assert_eq!(SaleId::parse(&id.spelled()), Ok(id));
        for bad in ["42".to_string(), format!("{r}.0"), format!("{r}.-1"), format!("{r}."), "x.1".to_string()] {
            assert_eq!(SaleId::parse(&bad).unwrap_err().param(), "id", "{bad}");
        }
    }
}
