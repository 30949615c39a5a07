//! The scanner's path (record 0115): a scanned or typed code becomes the SKU to ring up
//! through `engine.catalog().scan`, which reads the ledger's indexes (the barcode's, the
//! SKU's) a row at a time. No table of the catalog is kept here any more: it was rebuilt
//! from every item on each unknown scan (50,000 items listed per miss), and a barcode that
//! moved to another SKU is always read as it is now.

use paydesk_register::usecases::Scanned;
use paydesk_register::Engine;
use paydesk_tax::InStoreRule;

use crate::error::{AppError, AppResult, LabelRefusal};
use crate::money;

/// The store's in-store label rules (GS1 prefixes 02 / 20–29) as the ledger keeps them
/// (record 0136): read once, on the first scan, and kept until the Settings screen sets new
/// ones ([`Barcodes::set`]), so a scan costs its point reads and no read of the rules.
#[derive(Default)]
pub struct Barcodes {
    rules: std::sync::RwLock<Option<Vec<InStoreRule>>>,
}

impl Barcodes {
    /// The rules a scan reads labels by: the cached ones, or the ledger's, read now.
    fn rules(&self, engine: &Engine) -> AppResult<Vec<InStoreRule>> {
        if let Some(r) = self.rules.read().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref() {
            return Ok(r.clone());
        }
        let read = engine.counter_rules().label_rules()?;
        *self.rules.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(read.clone());
        Ok(read)
    }

    /// The rules just stored: the next scan reads labels by them.
    pub fn set(&self, rules: Vec<InStoreRule>) {
        *self.rules.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(rules);
    }

    /// The SKU of the active item this code rings up: a barcode (UPC-A, EAN-8 or EAN-13,
    /// one item whichever form is scanned), an in-store label at its item's catalog
    /// price, or a SKU (any letter case). Refused: an unknown code, and a label at another
    /// price (a quantity change names a line's item, never a label: see `ring_for`).
    pub fn sku_for(&self, engine: &Engine, code: &str) -> AppResult<String> {
        match engine.catalog().scan(code, &self.rules(engine)?)? {
            Scanned::Item { sku } => Ok(sku),
            Scanned::Unknown => Err(AppError::UnknownItem(code.to_string())),
            Scanned::Label { sku, label_minor, catalog_minor } => {
                let currency = engine.store().settings()?.currency;
                Err(AppError::InStoreLabel(LabelRefusal::PriceDiffers {
                    sku,
                    label: money::format(label_minor, currency),
                    catalog: money::format(catalog_minor, currency),
                }))
            }
            Scanned::WeightLabel { sku, grams } => Err(AppError::InStoreLabel(LabelRefusal::Weight { sku, grams })),
        }
    }

    /// What a scan rings up (record 0126): an item at its catalog price, a price label's
    /// item at the price printed, or a weight label's item at its weight (record 0134),
    /// each of the last two a line of its own. An unknown code is refused as by
    /// [`Barcodes::sku_for`].
    pub fn ring_for(&self, engine: &Engine, code: &str) -> AppResult<Ring> {
        match engine.catalog().scan(code, &self.rules(engine)?)? {
            Scanned::Label { sku, label_minor, catalog_minor } => Ok(Ring::Label { sku, price_minor: label_minor, catalog_minor }),
            Scanned::Item { sku } => Ok(Ring::Catalog { sku }),
            Scanned::WeightLabel { sku, grams } => Ok(Ring::Weighed { sku, grams }),
            Scanned::Unknown => self.sku_for(engine, code).map(|sku| Ring::Catalog { sku }),
        }
    }
}

/// What one scan adds to the sale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ring {
    Catalog { sku: String },
    /// A price label's item at the price printed; `catalog_minor` is the item's own price
    /// (a label below it is a markdown, bounded like a discount).
    Label { sku: String, price_minor: i64, catalog_minor: i64 },
    Weighed { sku: String, grams: i64 },
}
