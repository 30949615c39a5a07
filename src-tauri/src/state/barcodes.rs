//! Barcode → SKU of the catalog's active items, for the scanner: a table kept here, read
//! again from the ledger on a miss or a stale hit.

use std::collections::HashMap;
use std::sync::Mutex;

use paydesk_register::Engine;

use crate::base::lock;
use crate::error::AppResult;

#[derive(Default)]
pub struct Barcodes {
    table: Mutex<HashMap<String, String>>,
}

impl Barcodes {
    /// The SKU of the active item with this SKU (any letter case) or barcode. SKUs are
    /// looked up directly; barcodes through the table, checked against the ledger on
    /// every hit: the catalog screen, the CLI or the back office's sync (record 0049) may
    /// have changed the item, and a barcode that moved to another SKU must never ring up
    /// the old one.
    pub fn sku_for(&self, engine: &Engine, code: &str) -> AppResult<Option<String>> {
        for sku in [code.to_string(), code.to_ascii_uppercase()] {
            if let Some(i) = engine.catalog().item(&sku)? {
                return Ok(i.active.then_some(i.sku));
            }
        }
        let cached = lock(&self.table).get(code).cloned();
        if let Some(sku) = cached {
            let item = engine.catalog().item(&sku)?;
            if item.as_ref().is_some_and(|i| i.active && i.barcode.as_deref() == Some(code)) {
                return Ok(Some(sku));
            }
        }
        let items = engine.catalog().list()?;
        let table: HashMap<String, String> = items
            .into_iter()
            .filter(|i| i.active)
            .filter_map(|i| i.barcode.map(|b| (b, i.sku)))
            .collect();
        let found = table.get(code).cloned();
        *lock(&self.table) = table;
        Ok(found)
    }

    /// Forgets the table (after the catalog changed here).
    pub fn forget(&self) {
        lock(&self.table).clear();
    }
}
