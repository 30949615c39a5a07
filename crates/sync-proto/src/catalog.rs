//! Down: the catalog items and the tax setup a back office publishes to its store's
//! registers (record 0049). The back office checks them with these rules before
//! publishing, and the register checks them again on receipt, so a register never
//! holds an item its own ledger would refuse for its shape.
use crate::{text, ProtoError};
use paydesk_tax::{Gtin13, PriceMode, RateEntry, RateTable, RegistrationNumber, Rounding, SaleUnit, TaxClass, YearMonthDay};
use serde::{Deserialize, Serialize};

/// The ledger's limits (crates/ledger catalog): the same numbers, so an item valid here
/// is valid there.
pub const MAX_SKU_CHARS: usize = 64;
pub const MAX_ITEM_NAME_CHARS: usize = 120;
/// A unit price's ceiling, minor units (the tax crate's limit).
pub const MAX_PRICE: i64 = paydesk_tax::MAX_UNIT_PRICE;
/// Items one publish request may carry (and one page of changes down holds).
pub const MAX_ITEMS_PER_PUBLISH: usize = 500;
/// Rows of a published rate table.
pub const MAX_TAX_RATES: usize = 64;
/// A category key's length: the ledger's `MAX_CATEGORY_KEY` (record 0133).
pub const MAX_CATEGORY_KEY_CHARS: usize = 32;

/// How an item is priced at the till, in the ledger's words (record 0126): the catalog
/// price, a price the cashier types, or a department key (an open price shown as a key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceKind {
    #[default]
    Fixed,
    Open,
    Department,
}

impl PriceKind {
    /// Whether the cashier types the price (then the item has none of its own: 0).
    pub fn is_open(self) -> bool {
        match self {
            PriceKind::Fixed => false,
            PriceKind::Open | PriceKind::Department => true,
        }
    }

    /// The wire (and back office column) word.
    pub fn as_str(self) -> &'static str {
        match self {
            PriceKind::Fixed => "fixed",
            PriceKind::Open => "open",
            PriceKind::Department => "department",
        }
    }
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// One catalog item, keyed by its SKU. An item is never deleted (past sales name it):
/// the back office retires it with `active: false`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub sku: String,
    /// 8, 12 or 13 digits as sent ([`Gtin13::parse`], record 0115); the back office
    /// stores it as 13 ([`Item::normalize_barcode`]) and the register's ledger does too.
    #[serde(default)]
    pub barcode: Option<String>,
    pub name_en: String,
    #[serde(default)]
    pub name_ja: Option<String>,
    /// Minor units of `currency`, as the shelf shows it (with or without tax by the
    /// store's price mode).
    pub price: i64,
    /// Lower-case ISO 4217; must be the store's.
    pub currency: String,
    pub tax_class: TaxClass,
    pub active: bool,
    /// Absent (an older peer, or a fixed-price item): fixed. Left out when fixed, so an
    /// item of the shape every register always knew is written exactly as before and a
    /// register older than this field still reads it (record 0137).
    #[serde(default, skip_serializing_if = "is_default")]
    pub price_kind: PriceKind,
    /// By the piece, per kilogram or per 100 g (record 0134); absent: by the piece.
    #[serde(default, skip_serializing_if = "is_default")]
    pub unit: SaleUnit,
    /// The register's category key (record 0133: 1..=32 of a-z, 0-9, `_`, `-`); absent:
    /// none said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

/// Names and SKUs: 1..=max characters, no control characters, no space at either end.
fn bounded(field: &str, s: &str, max: usize) -> Result<(), ProtoError> {
    let n = s.chars().count();
    if n == 0 {
        return Err(ProtoError::field(field, "is empty"));
    }
    if n > max {
        return Err(ProtoError::field(field, format!("is {n} characters long; at most {max}")));
    }
    if s.chars().any(char::is_control) {
        return Err(ProtoError::field(field, "has a control character"));
    }
    if s.trim() != s {
        return Err(ProtoError::field(field, "starts or ends with a space"));
    }
    Ok(())
}

/// A category key as the register's ledger keeps it (its `check_category_key`).
fn category_key(field: &str, key: &str) -> Result<(), ProtoError> {
    let ok = (1..=MAX_CATEGORY_KEY_CHARS).contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        let shown: String = key.chars().take(MAX_CATEGORY_KEY_CHARS + 1).collect();
        Err(ProtoError::field(field, format!("{shown:?} must be 1 to {MAX_CATEGORY_KEY_CHARS} of a-z, 0-9, _ and -")))
    }
}

impl Item {
    /// The barcode read by the one rule, or what is wrong with it (its digit count, a
    /// non-digit's position, the check digit).
    pub fn gtin(&self) -> Result<Option<Gtin13>, String> {
        self.barcode.as_deref().map(|b| Gtin13::parse(b).map_err(|e| format!("{b:?}: {e}"))).transpose()
    }

    /// Writes a valid barcode in its 13-digit form (a UPC-A or EAN-8 gains its leading
    /// zeros), so a UPC-A and its EAN-13 are one barcode everywhere; an invalid one is
    /// left as sent for [`Item::validate`] to refuse.
    pub fn normalize_barcode(&mut self) {
        if let Ok(Some(g)) = self.gtin() {
            self.barcode = Some(g.into());
        }
    }

    pub fn validate(&self) -> Result<(), ProtoError> {
        bounded("sku", &self.sku, MAX_SKU_CHARS)?;
        let at = |f: &str| format!("item {:?}: {f}", self.sku);
        self.gtin().map_err(|e| ProtoError::field(at("barcode"), e))?;
        bounded(&at("name_en"), &self.name_en, MAX_ITEM_NAME_CHARS)?;
        if let Some(n) = &self.name_ja {
            bounded(&at("name_ja"), n, MAX_ITEM_NAME_CHARS)?;
        }
        if !(0..=MAX_PRICE).contains(&self.price) {
            return Err(ProtoError::field(at("price"), format!("must be between 0 and {MAX_PRICE} minor units, got {}", self.price)));
        }
        // The ledger's two shape rules (its check_item), so the back office refuses what
        // every register would.
        if self.price_kind.is_open() && self.price != 0 {
            return Err(ProtoError::field(at("price"), format!("an open-price item has no price of its own (0), not {}", self.price)));
        }
        if self.unit.is_weighed() && self.price_kind.is_open() {
            return Err(ProtoError::field(at("unit"), "a weighed item is priced per unit by the catalog, not typed"));
        }
        if let Some(c) = &self.category {
            category_key(&at("category"), c)?;
        }
        text::currency(&at("currency"), &self.currency)
    }
}

/// One row of the rate table: `class` bears the tax `name` at `ppm` (parts per million,
/// 88 750 = 8.875 %) from `effective_from` ("YYYY-MM-DD", inclusive; absent: since always).
/// Rows of one class and day stack (record 0131). A row written before names and ppm (a
/// stored document, a fact queued by an older register) says `basis_points` (1000 = 10 %)
/// and no name: it reads exactly, × 100.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "TaxRateWire")]
pub struct TaxRate {
    pub class: TaxClass,
    pub name: String,
    pub ppm: u32,
    pub effective_from: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaxRateWire {
    class: TaxClass,
    #[serde(default)]
    name: String,
    #[serde(default)]
    ppm: Option<u32>,
    #[serde(default)]
    basis_points: Option<u32>,
    #[serde(default)]
    effective_from: Option<String>,
}

impl TryFrom<TaxRateWire> for TaxRate {
    type Error = String;
    fn try_from(w: TaxRateWire) -> Result<Self, String> {
        let ppm = ppm_or_basis_points(w.ppm.map(i64::from), w.basis_points.map(i64::from))?;
        let ppm = u32::try_from(ppm).map_err(|_| format!("a rate of {ppm} ppm is out of range"))?;
        Ok(TaxRate { class: w.class, name: w.name, ppm, effective_from: w.effective_from })
    }
}

/// A rate as sent now (`ppm`) or by an older register (`basis_points`, × 100 exactly).
pub(crate) fn ppm_or_basis_points(ppm: Option<i64>, basis_points: Option<i64>) -> Result<i64, String> {
    match (ppm, basis_points) {
        (Some(p), None) => Ok(p),
        (None, Some(bp)) => bp.checked_mul(100).ok_or_else(|| format!("{bp} basis points is out of range")),
        (Some(_), Some(_)) => Err("a rate has both ppm and basis_points".into()),
        (None, None) => Err("a rate has neither ppm nor basis_points".into()),
    }
}

/// How the store's sales are taxed: a whole document, replaced as one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreTax {
    pub price_mode: PriceMode,
    pub rounding: Rounding,
    /// The qualified-invoice registration number ("T" + 13 digits) printed on receipts.
    #[serde(default)]
    pub registration_number: Option<String>,
    pub rates: Vec<TaxRate>,
}

/// "YYYY-MM-DD" with a real month and a day that month has.
pub fn parse_day(field: &str, s: &str) -> Result<YearMonthDay, ProtoError> {
    let bad = || ProtoError::field(field, format!("must be a date as YYYY-MM-DD, got {s:?}"));
    let b = s.as_bytes();
    if !s.is_ascii() || b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[r];
        part.bytes().all(|c| c.is_ascii_digit()).then(|| part.parse().ok()).flatten()
    };
    let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10)) else { return Err(bad()) };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Err(bad()),
    };
    if !(1..=days).contains(&day) || !(1900..=9999).contains(&year) {
        return Err(bad());
    }
    Ok(YearMonthDay { year: year as u16, month: month as u8, day: day as u8 })
}

impl StoreTax {
    /// The rate table as the tax crate reads it (checked: see [`StoreTax::validate`]).
    pub fn rate_table(&self) -> Result<RateTable, ProtoError> {
        let mut entries = Vec::with_capacity(self.rates.len());
        for (i, r) in self.rates.iter().enumerate() {
            let effective_from = match &r.effective_from {
                None => None,
                Some(d) => Some(parse_day(&format!("rates[{i}].effective_from"), d)?),
            };
            entries.push(RateEntry { class: r.class, name: r.name.clone(), ppm: r.ppm, effective_from });
        }
        Ok(RateTable { entries })
    }

    pub fn validate(&self) -> Result<(), ProtoError> {
        if let Some(n) = &self.registration_number {
            RegistrationNumber::parse(n).map_err(|e| ProtoError::field("registration_number", format!("{n:?}: {e}")))?;
        }
        if self.rates.len() > MAX_TAX_RATES {
            return Err(ProtoError::field("rates", format!("has {} rows; at most {MAX_TAX_RATES}", self.rates.len())));
        }
        let table = self.rate_table()?;
        table.validate().map_err(|e| ProtoError::field("rates", e.to_string()))?;
        // A class without any row would make every sale of such an item fail at the
        // register; the owner learns it here instead.
        for class in [TaxClass::Standard, TaxClass::Reduced, TaxClass::Exempt] {
            if !table.entries.iter().any(|e| e.class == class) {
                return Err(ProtoError::field("rates", format!("has no row for the {} class", class_name(class))));
            }
        }
        Ok(())
    }
}

/// The wire name of a tax class (as serde writes it).
pub fn class_name(c: TaxClass) -> &'static str {
    match c {
        TaxClass::Standard => "standard",
        TaxClass::Reduced => "reduced",
        TaxClass::Exempt => "exempt",
    }
}
