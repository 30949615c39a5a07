//! What the back office publishes, applied at the register (record 0049): catalog items
//! by SKU and the tax setup as a whole. Applying is idempotent (a version already held
//! changes nothing) and audited like a local edit, with no actor: the back office is
//! the author.

use std::ops::Deref;
use crate::ledger::Catalog;
use paydesk_tax::{PriceMode, RateTable, Rounding};

use super::categories::{category_exists, set_item_category_tx};
use super::products::{barcode_owner, item_by_sku, published_version, upsert_tx, Source};
use super::settings::{settings_tx, tax_published_version, write_settings_from, TaxSource};
use super::{check_item, CatalogItem};
use crate::error::Result;
use crate::ledger::audit::{append_audit, AuditInput};
use crate::ledger::Ledger;
use crate::write_tx::WriteTx;

/// One item as the back office published it at `version`. `category` is the key of one
/// of this register's categories (record 0133); None: the back office said none, and
/// the register's own choice for the item stays (record 0137).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedItem {
    pub version: i64,
    pub item: CatalogItem,
    pub category: Option<String>,
}

/// What applying a page of items did. `refused` names each item this register cannot
/// hold and why (another currency, a shape its ledger refuses); the rest are applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublishedReport {
    pub applied: usize,
    pub unchanged: usize,
    pub refused: Vec<(String, String)>,
}

/// The tax setup as the back office published it at `version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedTax {
    pub version: i64,
    pub price_mode: PriceMode,
    pub rounding: Rounding,
    pub registration_number: Option<String>,
    pub rates: RateTable,
}

/// The back office's item takes its barcode from any other SKU here: the back office
/// holds each barcode on one SKU of its own, and a local item that used it loses it
/// (audited), so the store's central catalog wins and a sync never stalls on it.
fn take_barcode(tx: &WriteTx<'_>, item: &CatalogItem, now_ms: i64) -> Result<()> {
    let Some(b) = &item.barcode else { return Ok(()) };
    let Some(owner) = barcode_owner(tx, b, &item.sku)? else { return Ok(()) };
    let before = item_by_sku(tx, &owner)?;
    tx.exec_cached("UPDATE products SET barcode = NULL WHERE sku = ?1", [&owner])?;
    let after = item_by_sku(tx, &owner)?;
    let input = AuditInput {
        actor_id: None,
        before: before.map(|b| serde_json::to_string(&b)).transpose()?,
        after: after.map(|a| serde_json::to_string(&a)).transpose()?,
        reason: Some(format!("barcode {b} published by the back office for {}", item.sku)),
        ..AuditInput::new("catalog_item", &format!("product {owner}"))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(())
}

impl Catalog<&mut Ledger> {
    /// Applies one page of published items in one transaction. An item whose version
    /// this register already holds (or a newer one) is unchanged: a page read twice
    /// changes nothing.
    pub fn apply_published_items(&mut self, items: &[PublishedItem], now_ms: i64) -> Result<PublishedReport> {
        let tx = self.write_tx()?;
        let currency = settings_tx(&tx)?.currency;
        let mut report = PublishedReport::default();
        for p in items {
            let item = &p.item;
            if let Some(problem) = check_item(item).into_iter().next() {
                report.refused.push((item.sku.clone(), problem.message));
                continue;
            }
            if item.currency != currency {
                report.refused.push((item.sku.clone(), format!("priced in {}; this register sells in {}", item.currency.code(), currency.code())));
                continue;
            }
            if published_version(&tx, &item.sku)?.is_some_and(|held| held >= p.version) {
                report.unchanged += 1;
                continue;
            }
            // A category this register does not have refuses the whole item before
            // anything of it is written: never an item applied without its category.
            if let Some(key) = &p.category {
                if !category_exists(&tx, key)? {
                    report.refused.push((item.sku.clone(), format!("there is no category {key:?} on this register")));
                    continue;
                }
            }
            take_barcode(&tx, item, now_ms)?;
            let saved = upsert_tx(&tx, item, Source::BackOffice { version: p.version }, None, now_ms)?;
            let moved = match &p.category {
                Some(key) => set_item_category_tx(&tx, &item.sku, Some(key), None, now_ms)?,
                None => false,
            };
            if saved || moved {
                report.applied += 1;
            } else {
                report.unchanged += 1;
            }
        }
        tx.commit()?;
        Ok(report)
    }

    /// Applies the published tax setup: the store settings' tax fields and the rate
    /// table, replaced together in one transaction and audited. False when this
    /// version (or a newer one) is already in use.
    pub fn apply_published_tax(&mut self, tax: &PublishedTax, now_ms: i64) -> Result<bool> {
        tax.rates.validate().map_err(|e| crate::error::Error::InvalidInput(format!("published rates: {e}")))?;
        let tx = self.write_tx()?;
        if tax_published_version(&tx)?.is_some_and(|held| held >= tax.version) {
            return Ok(false);
        }
        // Marked published first: the outbox trigger for the register's own tax setup
        // (record 0052) must see the change as the back office's, not echo it back up.
        tx.exec_cached("UPDATE store_settings SET tax_published_version = ?1 WHERE id = 1", [tax.version])?;
        let mut settings = settings_tx(&tx)?;
        settings.price_mode = tax.price_mode;
        settings.rounding = tax.rounding;
        settings.registration_number = tax.registration_number.clone();
        write_settings_from(&tx, settings, TaxSource::BackOffice, None, now_ms)?;
        let reason = format!("published by the back office at version {}", tax.version);
        super::rates::write_rates_tx(&tx, &tax.rates, None, Some(reason), now_ms)?;
        tx.commit()?;
        Ok(true)
    }
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The back office's version of the tax setup in use (None: the register's own).
    pub fn tax_published_version(&self) -> Result<Option<i64>> {
        tax_published_version(&self.conn)
    }
}
