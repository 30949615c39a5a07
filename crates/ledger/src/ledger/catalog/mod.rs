//! The store's catalog and settings (record 0059): products with barcode, names
//! per language, tax class and active flag (`products`, `product_names`), the one row
//! of store settings (`store_settings`) and the tax rates as data (`tax_rates`). Every
//! change is audited in its own transaction. One file per operation: `products.rs`
//! (upsert, list), `settings.rs` (store settings, tax settings), `csv.rs` (import and
//! export), `seed.rs` (the demo stores), `rates.rs` (the rate table's writes),
//! `published.rs` (what the back office publishes, record 0049), `categories.rs` and
//! `search.rs` (the register's tabs and finding an item, record 0133), `label_rules.rs`
//! (the store's in-store label rules, record 0136).

mod categories;
mod counter_rules;
mod csv;
mod label_rules;
mod products;
mod published;
mod rates;
mod search;
mod seed;
pub(crate) mod settings;

pub use categories::{check_category, check_category_key, Category, MAX_CATEGORIES, MAX_CATEGORY_KEY, MAX_CATEGORY_NAME};
pub use search::{fold, Found, MatchKind, QueryProblem, SearchQuery, MAX_QUERY_CHARS, MAX_RESULTS};
pub(crate) use search::{heal as heal_search, index_product};

pub use counter_rules::CounterRulesChange;
pub use label_rules::{check_label_rules, LabelRules, MAX_LABEL_RULES};
pub use self::csv::{neutralise_cell, restore_cell, CsvProblem, ImportReport, MAX_CSV_BYTES, MAX_CSV_ROWS};
pub use published::{PublishedItem, PublishedReport, PublishedTax};
pub use seed::{demo_categories, demo_category, demo_rates, demo_staff, DemoLocale, DEMO_WEIGHED_SKU};
pub use settings::{parse_locale, StoreSettings};

use paydesk_tax::{Gtin13, SaleUnit, TaxClass};
use serde::{Deserialize, Serialize};

use paydesk_domain::money::Currency;
use paydesk_domain::Locale;

/// Field limits, the same as the schema's CHECKs (which stay the last line of defence).
pub const MAX_SKU_CHARS: usize = 64;
pub const MAX_NAME_CHARS: usize = 120;
/// Prices above this are refused (the tax crate's limit per unit).
pub const MAX_PRICE_MINOR: i64 = paydesk_tax::MAX_UNIT_PRICE;
/// Products in one store.
pub const MAX_PRODUCTS: usize = 50_000;

/// One catalog item as the store edits it. `name_en` is also the fallback name
/// (`products.name`); `name_ja` is optional. The barcode is a [`Gtin13`]: every way in
/// (CSV, the app's form, the back office) parses it with the one rule and the ledger
/// stores the 13-digit form, so a UPC-A and its EAN-13 are the same item (record 0115).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogItem {
    pub sku: String,
    pub barcode: Option<Gtin13>,
    pub name_en: String,
    pub name_ja: Option<String>,
    pub price_minor: i64,
    pub currency: Currency,
    pub tax_class: TaxClass,
    pub active: bool,
    /// Fixed (the catalog price), open or a department key (record 0126). Absent in
    /// items written before v26 (their audit rows): fixed.
    #[serde(default)]
    pub price_kind: PriceKind,
    /// By the piece, or by weight at `price_minor` per kilogram or per 100 g (record 0134).
    /// Absent in items written before it: by the piece.
    #[serde(default)]
    pub unit: SaleUnit,
}

/// How an item is priced at the till (record 0126). An open-price item has no price of
/// its own (`price_minor` 0): the cashier types it each time. A department key (部門,
/// "Food 8%") is an open-price item shown as a key over the items.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceKind {
    #[default]
    Fixed,
    Open,
    Department,
}

impl PriceKind {
    pub const ALL: [PriceKind; 3] = [PriceKind::Fixed, PriceKind::Open, PriceKind::Department];

    pub fn as_str(self) -> &'static str {
        match self {
            PriceKind::Fixed => "fixed",
            PriceKind::Open => "open",
            PriceKind::Department => "department",
        }
    }

    pub fn parse(s: &str) -> Option<PriceKind> {
        match s {
            "fixed" => Some(PriceKind::Fixed),
            "open" => Some(PriceKind::Open),
            "department" => Some(PriceKind::Department),
            _ => None,
        }
    }

    /// Whether the cashier types the price.
    pub fn is_open(self) -> bool {
        match self {
            PriceKind::Fixed => false,
            PriceKind::Open | PriceKind::Department => true,
        }
    }
}

impl CatalogItem {
    /// The name in `locale`, falling back to English when the item has no Japanese name.
    pub fn name_in(&self, locale: Locale) -> &str {
        match (locale, &self.name_ja) {
            (Locale::Ja, Some(n)) => n,
            (Locale::Ja, None) | (Locale::En, _) => &self.name_en,
        }
    }
}

/// A field that is wrong, and why. `field` is the CSV column name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldProblem {
    pub field: &'static str,
    pub message: String,
}

fn text_ok(s: &str, max: usize) -> Option<String> {
    let n = s.chars().count();
    if n == 0 {
        Some("is empty".into())
    } else if n > max {
        Some(format!("has {n} characters; at most {max}"))
    } else if s.chars().any(char::is_control) {
        Some("contains a control character".into())
    } else if s.trim() != s {
        Some("starts or ends with a space".into())
    } else {
        None
    }
}

/// Reads a typed or imported barcode cell: a problem names the code and what is wrong
/// with it (its digit count, a non-digit's position, or the check digit).
pub fn parse_barcode(cell: &str) -> std::result::Result<Gtin13, FieldProblem> {
    Gtin13::parse(cell).map_err(|e| FieldProblem { field: "barcode", message: format!("barcode {cell:?}: {e}") })
}

/// Every problem of one item (empty when it is valid). The barcode has none left: it was
/// parsed into a [`Gtin13`] on the way in.
pub fn check_item(item: &CatalogItem) -> Vec<FieldProblem> {
    let mut out = Vec::new();
    let mut bad = |field: &'static str, message: String| out.push(FieldProblem { field, message });
    if let Some(m) = text_ok(&item.sku, MAX_SKU_CHARS) {
        bad("sku", format!("the SKU {m}"));
    }
    if let Some(m) = text_ok(&item.name_en, MAX_NAME_CHARS) {
        bad("name_en", format!("the English name {m}"));
    }
    if let Some(Some(m)) = item.name_ja.as_deref().map(|n| text_ok(n, MAX_NAME_CHARS)) {
        bad("name_ja", format!("the Japanese name {m}"));
    }
    if !(0..=MAX_PRICE_MINOR).contains(&item.price_minor) {
        bad("price_minor", format!("price {} is outside 0..={MAX_PRICE_MINOR}", item.price_minor));
    }
    if item.price_kind.is_open() && item.price_minor != 0 {
        bad("price_minor", format!("an open-price item has no price of its own (0), not {}", item.price_minor));
    }
    if item.unit.is_weighed() && item.price_kind.is_open() {
        bad("unit", "a weighed item is priced per unit by the catalog, not typed".into());
    }
    out
}

pub(crate) fn class_str(c: TaxClass) -> &'static str {
    match c {
        TaxClass::Standard => "standard",
        TaxClass::Reduced => "reduced",
        TaxClass::Exempt => "exempt",
    }
}

pub(crate) fn parse_class(s: &str) -> Option<TaxClass> {
    match s {
        "standard" => Some(TaxClass::Standard),
        "reduced" => Some(TaxClass::Reduced),
        "exempt" => Some(TaxClass::Exempt),
        _ => None,
    }
}
