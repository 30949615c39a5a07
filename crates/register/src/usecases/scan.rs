//! The scanner's path (issue #30, record 0115): a scanned or typed code becomes the item
//! to ring up by point reads of the ledger's indexes only — a barcode by `products_barcode`,
//! an in-store label by its item code, a SKU by `products.sku` — never a listing of the
//! catalog, so an unknown scan costs the same reads with 14 items as with 50,000.
//!
//! The order: a code that parses as a GTIN ([`Gtin13::parse`], the one barcode rule) is
//! looked up as a barcode; if no active item holds it and one of the store's
//! [`InStoreRule`]s reads it, the label's item is the active item whose SKU is the label's
//! item code (its prefix and item digits, e.g. `0212345`); anything else falls back to a
//! SKU as typed, then in upper case, as before. A price label at a price other than the
//! catalog's rings its item as a line of its own at the label's price (record 0126); so does
//! any price label of a weighed item, and a weight label rings its grams (record 0134).

use std::ops::Deref;

use paydesk_ledger::ledger::Catalog;
use paydesk_ledger::{CatalogItem, Ledger, Result};
use paydesk_tax::{read_in_store, Embedded, Gtin13, InStoreRule};

/// The reads the scan path may make: each one row by an index. There is deliberately no
/// way to list the catalog here.
pub trait ScanLookup {
    /// The item with exactly this SKU.
    fn by_sku(&self, sku: &str) -> Result<Option<CatalogItem>>;
    /// The item holding this barcode.
    fn by_barcode(&self, code: &Gtin13) -> Result<Option<CatalogItem>>;
}

impl<L: Deref<Target = Ledger>> ScanLookup for Catalog<L> {
    fn by_sku(&self, sku: &str) -> Result<Option<CatalogItem>> {
        self.item(sku)
    }
    fn by_barcode(&self, code: &Gtin13) -> Result<Option<CatalogItem>> {
        Catalog::by_barcode(self, code)
    }
}

/// What a scan rings up, or why it cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scanned {
    /// One of this active item, at its catalog price.
    Item { sku: String },
    /// No active item answers to the code.
    Unknown,
    /// An in-store price label of `sku` whose price is not the catalog's: rung as a line
    /// of its own at the label's price, the price the customer was shown (record 0126).
    Label { sku: String, label_minor: i64, catalog_minor: i64 },
    /// An in-store weight label of `sku`: rung as `grams` of it at its price per unit
    /// (`Carts::add_weighed`, record 0134), which refuses an item sold by the piece.
    WeightLabel { sku: String, grams: i64 },
}

impl Scanned {
    /// The SKU to ring up at its catalog price, when the scan rings one up so.
    pub fn sku(&self) -> Option<&str> {
        match self {
            Scanned::Item { sku } => Some(sku),
            Scanned::Unknown | Scanned::Label { .. } | Scanned::WeightLabel { .. } => None,
        }
    }
}

/// Resolves one scanned or typed `code` (see the module's order) with at most four point
/// reads: a known barcode costs one, an in-store label two, an unknown code three.
pub fn resolve(lookup: &impl ScanLookup, rules: &[InStoreRule], code: &str) -> Result<Scanned> {
    if let Ok(gtin) = Gtin13::parse(code) {
        if let Some(item) = lookup.by_barcode(&gtin)?.filter(|i| i.active) {
            return Ok(Scanned::Item { sku: item.sku });
        }
        if let Some(label) = read_in_store(rules, &gtin) {
            if let Some(item) = lookup.by_sku(&label.item_code)?.filter(|i| i.active) {
                return Ok(match label.value {
                    // A weighed item's catalog price is per unit, never a bag's price.
                    Embedded::Price if label.amount == item.price_minor && !item.unit.is_weighed() => {
                        Scanned::Item { sku: item.sku }
                    }
                    Embedded::Price => {
                        Scanned::Label { sku: item.sku, label_minor: label.amount, catalog_minor: item.price_minor }
                    }
                    Embedded::WeightGrams => Scanned::WeightLabel { sku: item.sku, grams: label.amount },
                });
            }
        }
    }
    let upper = code.to_ascii_uppercase();
    let skus: &[&str] = if upper == code { &[code] } else { &[code, &upper] };
    for sku in skus {
        if let Some(item) = lookup.by_sku(sku)? {
            // An inactive item's own SKU is not sold, whatever else the code could match.
            return Ok(if item.active { Scanned::Item { sku: item.sku } } else { Scanned::Unknown });
        }
    }
    Ok(Scanned::Unknown)
}
