//! The store's categories (issue #30, record 0133): data, not words of the app. A category
//! is a key (`drinks`) with an English and an optional Japanese name and a place among the
//! register's tabs; an item is in at most one (`product_categories`, v30). Every
//! change is one audit row, like the items'.

use std::ops::Deref;

use paydesk_domain::Locale;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::products::{upsert_tx, Source};
use super::{CatalogItem, FieldProblem};
use crate::error::{Error, Result};
use crate::ledger::audit::{append_audit, AuditInput};
use crate::ledger::{collect, Cached, Catalog, Ledger};
use crate::write_tx::WriteTx;

/// Longest key, and longest name in either language (the schema's CHECKs too).
pub const MAX_CATEGORY_KEY: usize = 32;
pub const MAX_CATEGORY_NAME: usize = 40;
/// Categories in one store (the register shows each as a tab).
pub const MAX_CATEGORIES: usize = 50;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Category {
    pub key: String,
    pub name_en: String,
    pub name_ja: Option<String>,
    pub position: i64,
}

impl Category {
    /// The name in `locale`, English when it has no Japanese one.
    pub fn name_in(&self, locale: Locale) -> &str {
        match (locale, &self.name_ja) {
            (Locale::Ja, Some(n)) => n,
            (Locale::Ja, None) | (Locale::En, _) => &self.name_en,
        }
    }
}

/// A key is 1..=32 of a-z, 0-9, `_` and `-`: the same in every language and in a CSV cell.
pub fn check_category_key(key: &str) -> Option<FieldProblem> {
    let ok = (1..=MAX_CATEGORY_KEY).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    (!ok).then(|| FieldProblem {
        field: "category",
        message: format!("category {key:?}: 1 to {MAX_CATEGORY_KEY} of a-z, 0-9, _ and -"),
    })
}

/// Every problem of a category (empty when it is valid).
pub fn check_category(c: &Category) -> Vec<FieldProblem> {
    let mut out: Vec<FieldProblem> = check_category_key(&c.key).into_iter().collect();
    let name = |field: &'static str, n: &str| {
        let chars = n.chars().count();
        (chars == 0 || chars > MAX_CATEGORY_NAME || n.trim() != n || n.chars().any(char::is_control))
            .then(|| FieldProblem { field, message: format!("the name {n:?}: 1 to {MAX_CATEGORY_NAME} characters, no space at either end") })
    };
    out.extend(name("category_name_en", &c.name_en));
    out.extend(c.name_ja.as_deref().and_then(|n| name("category_name_ja", n)));
    out
}

fn category_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Category>> {
    Ok(Ok(Category { key: r.get(0)?, name_en: r.get(1)?, name_ja: r.get(2)?, position: r.get(3)? }))
}

const CATEGORY_SQL: &str = "SELECT key, name_en, name_ja, position FROM categories";

/// The categories in tab order (position, then key).
pub(super) fn categories_tx(conn: &rusqlite::Connection) -> Result<Vec<Category>> {
    collect(conn, &format!("{CATEGORY_SQL} ORDER BY position, key"), [], category_of)
}

/// Adds or changes one category by key, audited; an unchanged one writes nothing.
pub(super) fn save_category_tx(tx: &WriteTx<'_>, c: &Category, actor_id: Option<i64>, now_ms: i64) -> Result<bool> {
    if let Some(p) = check_category(c).into_iter().next() {
        return Err(Error::InvalidItem { field: p.field, message: p.message });
    }
    let before = tx.row_cached(&format!("{CATEGORY_SQL} WHERE key = ?1"), [&c.key], category_of).optional()?.transpose()?;
    if before.as_ref() == Some(c) {
        return Ok(false);
    }
    if before.is_none() {
        let n: i64 = tx.row_cached("SELECT count(*) FROM categories", [], |r| r.get(0))?;
        if n as usize >= MAX_CATEGORIES {
            return Err(Error::InvalidItem { field: "category", message: format!("the store has {MAX_CATEGORIES} categories already") });
        }
    }
    tx.exec_cached(
        "INSERT INTO categories (key, name_en, name_ja, position) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(key) DO UPDATE SET name_en = excluded.name_en, name_ja = excluded.name_ja, position = excluded.position",
        params![c.key, c.name_en, c.name_ja, c.position],
    )?;
    let input = AuditInput {
        actor_id,
        before: before.map(|b| serde_json::to_string(&b)).transpose()?,
        after: Some(serde_json::to_string(c)?),
        ..AuditInput::new("catalog_category", &format!("category {}", c.key))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(true)
}

/// Whether this register has category `key`.
pub(super) fn category_exists(tx: &WriteTx<'_>, key: &str) -> Result<bool> {
    Ok(tx.row_cached("SELECT EXISTS (SELECT 1 FROM categories WHERE key = ?1)", [key], |r| r.get(0))?)
}

/// Puts item `sku` in category `key` (None: in none), audited; unchanged writes nothing.
/// An unknown SKU or key is refused by name.
pub(super) fn set_item_category_tx(tx: &WriteTx<'_>, sku: &str, key: Option<&str>, actor_id: Option<i64>, now_ms: i64) -> Result<bool> {
    let (id, before): (i64, Option<String>) = tx
        .row_cached(
            "SELECT p.id, c.category FROM products p LEFT JOIN product_categories c ON c.product_id = p.id WHERE p.sku = ?1",
            [sku],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?
        .ok_or_else(|| Error::UnknownProduct(sku.to_string()))?;
    if before.as_deref() == key {
        return Ok(false);
    }
    if let Some(k) = key {
        if !category_exists(tx, k)? {
            return Err(Error::InvalidItem { field: "category", message: format!("{sku}: there is no category {k:?}") });
        }
    }
    match key {
        Some(k) => tx.exec_cached(
            "INSERT INTO product_categories (product_id, category) VALUES (?1, ?2)
             ON CONFLICT(product_id) DO UPDATE SET category = excluded.category",
            params![id, k],
        )?,
        None => tx.exec_cached("DELETE FROM product_categories WHERE product_id = ?1", [id])?,
    };
    let input = AuditInput {
        actor_id,
        before: before.map(|b| serde_json::to_string(&b)).transpose()?,
        after: key.map(serde_json::to_string).transpose()?,
        ..AuditInput::new("catalog_item_category", &format!("product {sku}"))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(true)
}

impl Catalog<&mut Ledger> {
    /// Adds or changes categories by key, all or none. Returns how many changed.
    pub fn save_categories(&mut self, categories: &[Category], actor_id: Option<i64>, now_ms: i64) -> Result<usize> {
        let tx = self.write_tx()?;
        let mut changed = 0;
        for c in categories {
            changed += usize::from(save_category_tx(&tx, c, actor_id, now_ms)?);
        }
        tx.commit()?;
        Ok(changed)
    }

    /// Saves one item and puts it in category `key` (or in none), in one transaction: the
    /// app's item form. Returns whether anything changed.
    pub fn upsert_in_category(&mut self, item: &CatalogItem, key: Option<&str>, actor_id: Option<i64>, now_ms: i64) -> Result<bool> {
        let tx = self.write_tx()?;
        let saved = upsert_tx(&tx, item, Source::Local, actor_id, now_ms)?;
        let moved = set_item_category_tx(&tx, &item.sku, key, actor_id, now_ms)?;
        tx.commit()?;
        Ok(saved || moved)
    }

    /// Puts item `sku` in category `key`, or in none.
    pub fn set_item_category(&mut self, sku: &str, key: Option<&str>, actor_id: Option<i64>, now_ms: i64) -> Result<bool> {
        let tx = self.write_tx()?;
        let changed = set_item_category_tx(&tx, sku, key, actor_id, now_ms)?;
        tx.commit()?;
        Ok(changed)
    }
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The categories in tab order (position, then key).
    pub fn categories(&self) -> Result<Vec<Category>> {
        categories_tx(&self.conn)
    }

    /// (SKU, category key) of every item that has a category, by SKU.
    pub fn item_categories(&self) -> Result<Vec<(String, String)>> {
        collect(&self.conn, "SELECT p.sku, c.category FROM product_categories c JOIN products p ON p.id = c.product_id ORDER BY p.sku", [], |r| Ok(Ok((r.get(0)?, r.get(1)?))))
    }
}
