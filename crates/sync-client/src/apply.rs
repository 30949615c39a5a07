//! Applying what the back office publishes to this register's ledger (record 0049,
//! record 0049, 0050, 0137): settings, catalog items, the tax setup and staff. Each is idempotent, so a page
//! read again after a crash changes nothing; what this register cannot hold is named,
//! never silently dropped.
use crate::clock::now_ms;
use crate::error::SyncError;
use paydesk_ledger::{CatalogItem, Ledger, PriceKind, PublishedItem, PublishedStaff, PublishedTax};
use paydesk_domain::Currency;
use paydesk_sync_proto::{Item, PriceKind as WirePriceKind, StaffMember, StoreSettings, StoreTax};

/// Reasons kept per round (the rest are counted): a bound on what one bad publish costs.
pub const MAX_REASONS: usize = 20;

/// What one page of changes did to the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub items_applied: u64,
    pub items_unchanged: u64,
    pub tax_changed: bool,
    pub staff_applied: u64,
    /// "what: why" for each change this register could not take.
    pub not_applied: Vec<String>,
}

impl Applied {
    pub fn refuse(&mut self, what: String) {
        if self.not_applied.len() < MAX_REASONS {
            self.not_applied.push(what);
        }
    }
}

/// The fields the ledger's store settings share with the back office's: name, currency,
/// receipt footer and, when the back office says one, the time zone (record 0137). One
/// write through the ledger's own setter, which checks the zone by its rule: a zone this
/// register refuses leaves every field as it was (the caller names it). Written only
/// when one differs (every write is audited).
pub fn settings(ledger: &mut Ledger, s: &StoreSettings) -> Result<(), SyncError> {
    let mut cur = ledger.catalog().store_settings()?;
    let before = cur.clone();
    cur.name = s.store_name.clone();
    cur.receipt_footer = s.receipt_footer.clone();
    let currency: Currency = s.currency.parse().map_err(|_| SyncError::Input(format!("currency {:?} is not one this register sells in", s.currency)))?;
    cur.currency = currency;
    if let Some(zone) = &s.time_zone {
        cur.time_zone = zone.clone();
    }
    // The store's offline caps bound this register's own (record 0139). Kept first: a zone
    // this register refuses must not leave it taking more offline than its store allows.
    // The wire checked them (`StoreSettings::validate`); the ledger checks them again.
    let caps = paydesk_ledger::PublishedCaps { currency, per_payment_minor: s.offline_max_payment, total_minor: s.offline_max_total };
    ledger.catalog_mut().set_published_offline_caps(Some(caps), now_ms())?;
    if cur != before {
        ledger.catalog_mut().set_store_settings(cur, None, now_ms())?;
    }
    Ok(())
}

/// The wire's price kind in the ledger's words (the same three).
fn price_kind(k: WirePriceKind) -> PriceKind {
    match k {
        WirePriceKind::Fixed => PriceKind::Fixed,
        WirePriceKind::Open => PriceKind::Open,
        WirePriceKind::Department => PriceKind::Department,
    }
}

/// The wire's item as the ledger holds it, with its shape (record 0137: a weighed item
/// stays weighed whatever else the back office edits); Err names what this register
/// cannot hold.
fn item(i: &Item) -> Result<CatalogItem, String> {
    let currency: Currency = i.currency.parse().map_err(|_| format!("currency {:?} is not one this register sells in", i.currency))?;
    Ok(CatalogItem {
        sku: i.sku.clone(),
        barcode: i.gtin().map_err(|e| format!("barcode {e}"))?,
        name_en: i.name_en.clone(),
        name_ja: i.name_ja.clone(),
        price_minor: i.price,
        currency,
        tax_class: i.tax_class,
        active: i.active,
        price_kind: price_kind(i.price_kind),
        unit: i.unit,
    })
}

/// One page of items, in one ledger transaction.
pub fn items(ledger: &mut Ledger, page: &[(u64, Item)], out: &mut Applied) -> Result<(), SyncError> {
    let mut ready = Vec::with_capacity(page.len());
    for (version, i) in page {
        match item(i) {
            Ok(item) => ready.push(PublishedItem { version: *version as i64, item, category: i.category.clone() }),
            Err(why) => out.refuse(format!("item {}: {why}", i.sku)),
        }
    }
    let report = ledger.catalog_mut().apply_published_items(&ready, now_ms())?;
    out.items_applied += report.applied as u64;
    out.items_unchanged += report.unchanged as u64;
    for (sku, why) in report.refused {
        out.refuse(format!("item {sku}: {why}"));
    }
    Ok(())
}

/// The tax setup, replaced as a whole.
pub fn tax(ledger: &mut Ledger, version: u64, t: &StoreTax, out: &mut Applied) -> Result<(), SyncError> {
    let rates = match t.rate_table() {
        Ok(r) => r,
        Err(e) => {
            out.refuse(format!("tax: {e}"));
            return Ok(());
        }
    };
    let published = PublishedTax {
        version: version as i64,
        price_mode: t.price_mode,
        rounding: t.rounding,
        registration_number: t.registration_number.clone(),
        rates,
    };
    match ledger.catalog_mut().apply_published_tax(&published, now_ms()) {
        Ok(changed) => out.tax_changed |= changed,
        // A rule of this register's ledger (the wire's checks passed): named, not fatal.
        Err(paydesk_ledger::Error::InvalidInput(m)) => out.refuse(format!("tax: {m}")),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// Published staff members, in one ledger transaction. The role names are the ledger's
/// own, so a name this build does not know is named, not guessed.
pub fn staff(ledger: &mut Ledger, page: &[(u64, StaffMember)], out: &mut Applied) -> Result<(), SyncError> {
    let mut ready = Vec::with_capacity(page.len());
    for (version, m) in page {
        match paydesk_access::Role::parse(m.role.as_str()) {
            Ok(role) => ready.push(PublishedStaff { version: *version as i64, name: m.name.clone(), role, active: m.active, pin_hash: m.pin_hash.clone() }),
            Err(e) => out.refuse(format!("staff {}: role {:?}", m.name, e.0)),
        }
    }
    if ready.is_empty() {
        return Ok(());
    }
    let report = ledger.roster_mut().apply_published(&ready, now_ms())?;
    out.staff_applied += report.applied as u64;
    for (name, why) in report.refused {
        out.refuse(format!("staff {name}: {why}"));
    }
    Ok(())
}
