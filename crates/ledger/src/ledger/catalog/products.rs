//! Upserting and listing catalog items; each change is one audit row with the item
//! before and after (record 0059).

use std::ops::Deref;
use crate::ledger::Catalog;
use paydesk_tax::{Gtin13, SaleUnit};
use rusqlite::{params, Connection, OptionalExtension};

use super::{check_item, class_str, parse_class, CatalogItem, PriceKind, MAX_PRODUCTS};
use crate::error::{Error, Result};
use crate::ledger::audit::{append_audit, AuditInput};
use crate::ledger::{collect, Cached, Ledger};
use crate::write_tx::WriteTx;

const ITEM_SQL: &str = "SELECT p.sku, p.barcode, p.name, ja.name, p.price_minor, p.currency, p.tax_class, p.active, COALESCE(k.kind, 'fixed'),
            u.per_grams
     FROM products p LEFT JOIN product_names ja ON ja.product_id = p.id AND ja.lang = 'ja'
          LEFT JOIN product_price_kinds k ON k.product_id = p.id
          LEFT JOIN product_units u ON u.product_id = p.id";

fn item_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<CatalogItem>> {
    let currency: String = r.get(5)?;
    let class: String = r.get(6)?;
    let barcode: Option<String> = r.get(1)?;
    let kind: String = r.get(8)?;
    let per_grams: Option<i64> = r.get(9)?;
    let item = (r.get(0)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get::<_, i64>(7)?);
    Ok((|| {
        let tax_class =
            parse_class(&class).ok_or(Error::UnknownValue { what: "tax class", value: class.clone() })?;
        // Stored codes were checked on the way in (v06's CHECK keeps 13 digits; the check
        // digit was checked by the rule of its day, the same digit rule as now).
        let price_kind = PriceKind::parse(&kind).ok_or(Error::UnknownValue { what: "price kind", value: kind.clone() })?;
        let unit = match per_grams {
            None => SaleUnit::Piece,
            Some(g) => SaleUnit::from_per_grams(g).ok_or(Error::UnknownValue { what: "grams per unit", value: g.to_string() })?,
        };
        let barcode = barcode.map(|b| Gtin13::parse(&b).map_err(|_| Error::UnknownValue { what: "barcode", value: b })).transpose()?;
        Ok(CatalogItem {
            sku: item.0,
            barcode,
            name_en: item.1,
            name_ja: item.2,
            price_minor: item.3,
            currency: currency.parse()?,
            tax_class,
            active: item.4 == 1,
            price_kind,
            unit,
        })
    })())
}

pub(super) fn item_by_sku(conn: &Connection, sku: &str) -> Result<Option<CatalogItem>> {
    conn.row_cached(&format!("{ITEM_SQL} WHERE p.sku = ?1"), [sku], item_of).optional()?.transpose()
}

/// Product `id` and its category key (a search's hit, record 0133).
pub(super) fn item_by_id(conn: &Connection, id: i64) -> Result<Option<(CatalogItem, Option<String>)>> {
    let Some(item) = conn.row_cached(&format!("{ITEM_SQL} WHERE p.id = ?1"), [id], item_of).optional()?.transpose()? else {
        return Ok(None);
    };
    let category = conn.row_cached("SELECT category FROM product_categories WHERE product_id = ?1", [id], |r| r.get(0)).optional()?;
    Ok(Some((item, category)))
}

/// The item holding `barcode`, by the unique index `products_barcode` (v06): one row
/// read whatever the catalog's size, the scanner's lookup (record 0115).
pub(super) fn item_by_barcode(conn: &Connection, barcode: &Gtin13) -> Result<Option<CatalogItem>> {
    conn.row_cached(&format!("{ITEM_SQL} {BY_BARCODE}"), [barcode.as_str()], item_of).optional()?.transpose()
}

/// `p.barcode = ?` implies `barcode IS NOT NULL`, so SQLite uses the partial index
/// (a test below holds it to the query plan).
const BY_BARCODE: &str = "WHERE p.barcode = ?1";

/// The active department keys (record 0126), by SKU: the few keys over the items.
pub(super) fn department_items(conn: &Connection) -> Result<Vec<CatalogItem>> {
    collect(conn, &format!("{ITEM_SQL} WHERE k.kind = 'department' AND p.active = 1 ORDER BY p.sku"), [], item_of)
}

pub(super) fn all_items(conn: &Connection) -> Result<Vec<CatalogItem>> {
    collect(conn, &format!("{ITEM_SQL} ORDER BY p.sku"), [], item_of)
}

/// The SKU that already holds `barcode`, other than `sku` itself.
pub(super) fn barcode_owner(conn: &Connection, barcode: &Gtin13, sku: &str) -> Result<Option<String>> {
    Ok(conn
        .row_cached("SELECT sku FROM products WHERE barcode = ?1 AND sku <> ?2", params![barcode.as_str(), sku], |r| r.get(0))
        .optional()?)
}

/// The back office's version of the item `sku` holds; None for the register's own
/// items and unknown SKUs (record 0049).
pub(super) fn published_version(conn: &Connection, sku: &str) -> Result<Option<i64>> {
    Ok(conn
        .row_cached("SELECT published_version FROM products WHERE sku = ?1", [sku], |r| r.get::<_, Option<i64>>(0))
        .optional()?
        .flatten())
}

/// Who writes an item: the register's own screens and files, or the back office's
/// publish at `version` (record 0049).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    Local,
    BackOffice { version: i64 },
}

/// Writes one valid item (insert or update by SKU) and its audit row. The caller
/// checked it with `check_item`; the barcode's uniqueness is checked here. A local
/// write of an item the back office publishes is refused.
pub(super) fn upsert_tx(tx: &WriteTx<'_>, item: &CatalogItem, source: Source, actor_id: Option<i64>, now_ms: i64) -> Result<bool> {
    if let Some(p) = check_item(item).into_iter().next() {
        return Err(Error::InvalidItem { field: p.field, message: format!("{}: {}", item.sku, p.message) });
    }
    let published = match source {
        Source::Local => {
            if published_version(tx, &item.sku)?.is_some() {
                return Err(Error::PublishedItem { sku: item.sku.clone() });
            }
            None
        }
        Source::BackOffice { version } => Some(version),
    };
    if let Some(b) = &item.barcode {
        if let Some(owner) = barcode_owner(tx, b, &item.sku)? {
            return Err(Error::InvalidItem { field: "barcode", message: format!("barcode {b} already belongs to {owner}") });
        }
    }
    let before = item_by_sku(tx, &item.sku)?;
    if before.as_ref() == Some(item) {
        if published.is_some() {
            tx.exec_cached("UPDATE products SET published_version = ?2 WHERE sku = ?1", params![item.sku, published])?;
        }
        return Ok(false);
    }
    if before.is_none() {
        let n: i64 = tx.row_cached("SELECT count(*) FROM products", [], |r| r.get(0))?;
        if n as usize >= MAX_PRODUCTS {
            return Err(Error::InvalidInput(format!("the catalog is full ({MAX_PRODUCTS} products)")));
        }
    }
    write_item_tx(tx, item, published)?;
    let input = AuditInput {
        actor_id,
        before: before.map(|b| serde_json::to_string(&b)).transpose()?,
        after: Some(serde_json::to_string(item)?),
        ..AuditInput::new("catalog_item", &format!("product {}", item.sku))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(true)
}

/// The product row (insert or update by SKU) and its names: English always, Japanese
/// when given (a name taken away is deleted).
fn write_item_tx(tx: &WriteTx<'_>, item: &CatalogItem, published: Option<i64>) -> Result<()> {
    tx.exec_cached(
        "INSERT INTO products (sku, name, price_minor, currency, barcode, tax_class, active, published_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT(sku) DO UPDATE SET name = excluded.name, price_minor = excluded.price_minor,
             currency = excluded.currency, barcode = excluded.barcode, tax_class = excluded.tax_class,
             active = excluded.active, published_version = excluded.published_version",
        params![
            item.sku,
            item.name_en,
            item.price_minor,
            item.currency.code(),
            item.barcode.as_ref().map(Gtin13::as_str),
            class_str(item.tax_class),
            i64::from(item.active),
            published
        ],
    )?;
    let id: i64 = tx.row_cached("SELECT id FROM products WHERE sku = ?1", [&item.sku], |r| r.get(0))?;
    match item.price_kind {
        PriceKind::Fixed => tx.exec_cached("DELETE FROM product_price_kinds WHERE product_id = ?1", [id])?,
        PriceKind::Open | PriceKind::Department => tx.exec_cached(
            "INSERT INTO product_price_kinds (product_id, kind) VALUES (?1, ?2)
             ON CONFLICT(product_id) DO UPDATE SET kind = excluded.kind",
            params![id, item.price_kind.as_str()],
        )?,
    };
    match item.unit.per_grams() {
        None => tx.exec_cached("DELETE FROM product_units WHERE product_id = ?1", [id])?,
        Some(per_grams) => tx.exec_cached(
            "INSERT INTO product_units (product_id, per_grams) VALUES (?1, ?2)
             ON CONFLICT(product_id) DO UPDATE SET per_grams = excluded.per_grams",
            params![id, per_grams],
        )?,
    };
    tx.exec_cached(
        "INSERT INTO product_names (product_id, lang, name) VALUES (?1, 'en', ?2)
         ON CONFLICT(product_id, lang) DO UPDATE SET name = excluded.name",
        params![id, item.name_en],
    )?;
    match &item.name_ja {
        Some(n) => tx.exec_cached(
            "INSERT INTO product_names (product_id, lang, name) VALUES (?1, 'ja', ?2)
             ON CONFLICT(product_id, lang) DO UPDATE SET name = excluded.name",
            params![id, n],
        )?,
        None => tx.exec_cached("DELETE FROM product_names WHERE product_id = ?1 AND lang = 'ja'", [id])?,
    };
    // Last: the writes above dropped the item's search keys (v30's triggers).
    super::search::index_product(tx, id)?;
    Ok(())
}

impl Catalog<&mut Ledger> {
    /// Inserts or updates catalog items by SKU, all or none. Returns how many changed
    /// (an item identical to the stored one writes nothing and no audit row).
    pub fn upsert(&mut self, items: &[CatalogItem], actor_id: Option<i64>, now_ms: i64) -> Result<usize> {
        let tx = self.write_tx()?;
        let mut changed = 0;
        for item in items {
            changed += usize::from(upsert_tx(&tx, item, Source::Local, actor_id, now_ms)?);
        }
        tx.commit()?;
        Ok(changed)
    }
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The active department keys, by SKU (record 0126).
    pub fn department_keys(&self) -> Result<Vec<CatalogItem>> {
        department_items(&self.conn)
    }

    /// The whole catalog, by SKU (active and inactive).
    pub fn items(&self) -> Result<Vec<CatalogItem>> {
        all_items(&self.conn)
    }

    pub fn item(&self, sku: &str) -> Result<Option<CatalogItem>> {
        item_by_sku(&self.conn, sku)
    }

    /// The item holding this barcode (active or not), read by the barcode's index: the
    /// scanner's lookup, never a listing of the catalog (record 0115).
    pub fn by_barcode(&self, barcode: &Gtin13) -> Result<Option<CatalogItem>> {
        item_by_barcode(&self.conn, barcode)
    }

    /// Whether the back office publishes `sku` (a local edit of it is refused, record 0049).
    pub fn is_published(&self, sku: &str) -> Result<bool> {
        Ok(published_version(&self.conn, sku)?.is_some())
    }

    /// The SKUs the back office publishes (their edit screens are read-only, record 0049).
    pub fn published_skus(&self) -> Result<Vec<String>> {
        collect(&self.conn, "SELECT sku FROM products WHERE published_version IS NOT NULL ORDER BY sku", [], |r| Ok(Ok(r.get::<_, String>(0)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner's lookup is one index search, not a scan of `products`: 50,000 items
    /// must stay instant (issue #30).
    #[test]
    fn the_barcode_lookup_searches_the_barcode_index() {
        let l = Ledger::open_in_memory(Box::new(crate::types::SeededKeys::new(1))).unwrap();
        let plan = collect(&l.conn, &format!("EXPLAIN QUERY PLAN {ITEM_SQL} {BY_BARCODE}"), ["0000000000000"], |r| Ok(Ok(r.get::<_, String>(3)?))).unwrap();
        assert!(plan.iter().any(|d| d.contains("USING INDEX products_barcode (barcode=?)")), "{plan:?}");
        assert!(!plan.iter().any(|d| d.starts_with("SCAN p")), "{plan:?}");
    }
}
