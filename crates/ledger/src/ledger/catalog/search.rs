//! Finding items by a typed query (issue #30, record 0133): by SKU prefix, barcode digits
//! or name in either language, case-, width- and kana-insensitive. Every product has a row
//! of folded keys in `product_search` (v30), written here after each write of an item and
//! at open for any product left without one; each key is indexed, so an exact code or a
//! prefix is a range read. Only "contains" reads the narrow key table, in SKU order and
//! stopping at the limit.

use std::collections::HashSet;
use std::ops::Deref;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::products::item_by_id;
use super::CatalogItem;
use crate::error::Result;
use crate::ledger::{collect, Cached, Catalog, Ledger};

/// Longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 40;
/// Most items one search returns.
pub const MAX_RESULTS: usize = 50;

/// The search form of a text: NFKC (full-width letters and digits become ASCII, half-width
/// katakana full-width), lower case, katakana as hiragana, whitespace removed. A query and
/// the keys it is compared with are both folded, so カフェ, ｶﾌｪ and かふぇ are one word.
pub fn fold(s: &str) -> String {
    s.nfkc().flat_map(char::to_lowercase).filter(|c| !c.is_whitespace()).map(hiragana).collect()
}

/// Katakana ァ..ヶ as the hiragana 0x60 below it (ー and the others stay as they are).
fn hiragana(c: char) -> char {
    match c {
        '\u{30A1}'..='\u{30F6}' => char::from_u32(c as u32 - 0x60).unwrap_or(c),
        _ => c,
    }
}

/// Why a query is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum QueryProblem {
    #[error("the search is empty")]
    Empty,
    #[error("the search has {chars} characters; at most {max}")]
    TooLong { chars: usize, max: usize },
    #[error("the search contains a control character")]
    Control,
}

/// A checked query: 1..=40 printable characters with something left once folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    folded: String,
}

impl SearchQuery {
    pub fn parse(text: &str) -> std::result::Result<SearchQuery, QueryProblem> {
        let chars = text.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(QueryProblem::TooLong { chars, max: MAX_QUERY_CHARS });
        }
        if text.chars().any(char::is_control) {
            return Err(QueryProblem::Control);
        }
        let folded = fold(text);
        if folded.is_empty() {
            return Err(QueryProblem::Empty);
        }
        Ok(SearchQuery { folded })
    }

    pub fn folded(&self) -> &str {
        &self.folded
    }
}

/// How an item matched, best first: the order results come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// The whole SKU or barcode.
    Code,
    /// The start of the SKU, the barcode or a name.
    Prefix,
    /// Somewhere in the SKU or a name.
    Contains,
}

/// One item found, with its category key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    pub item: CatalogItem,
    pub category: Option<String>,
    pub matched: MatchKind,
}

/// Only active items, in `category` when one is given.
const FILTER: &str = "JOIN products p ON p.id = s.product_id WHERE p.active = 1
    AND (?3 IS NULL OR EXISTS (SELECT 1 FROM product_categories c WHERE c.product_id = p.id AND c.category = ?3))";

fn exact_sql() -> String {
    format!(
        "SELECT s.product_id FROM product_search s {FILTER} AND s.product_id IN (
             SELECT product_id FROM product_search WHERE sku_key = ?1
             UNION SELECT id FROM products WHERE barcode = ?2)
         ORDER BY s.sku_key LIMIT ?4"
    )
}

/// ?1 ≤ key < ?2 is "starts with ?1" on the index (?2 is ?1 and the last code point).
fn prefix_sql() -> String {
    format!(
        "SELECT s.product_id FROM product_search s {FILTER} AND s.product_id IN (
             SELECT product_id FROM product_search WHERE sku_key >= ?1 AND sku_key < ?2
             UNION SELECT product_id FROM product_search WHERE en_key >= ?1 AND en_key < ?2
             UNION SELECT product_id FROM product_search WHERE ja_key >= ?1 AND ja_key < ?2
             UNION SELECT id FROM products WHERE barcode >= ?1 AND barcode < ?2)
         ORDER BY s.sku_key LIMIT ?4"
    )
}

/// instr, not LIKE: the folded query is compared as it is (no wildcard to escape).
fn contains_sql() -> String {
    format!("SELECT s.product_id FROM product_search s {FILTER} AND instr(s.all_key, ?1) > 0 ORDER BY s.sku_key LIMIT ?4")
}

pub(super) fn search(conn: &Connection, query: &SearchQuery, category: Option<&str>, limit: usize) -> Result<Vec<Found>> {
    let limit = limit.min(MAX_RESULTS);
    let q = query.folded();
    let upper = format!("{q}\u{10FFFF}");
    // A typed UPC-A or EAN-8 is the 13-digit code the ledger stores.
    let code = paydesk_tax::Gtin13::parse(q).map(|g| g.as_str().to_string()).unwrap_or_else(|_| q.to_string());
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (sql, kind, first) in [(exact_sql(), MatchKind::Code, code.as_str()), (prefix_sql(), MatchKind::Prefix, q), (contains_sql(), MatchKind::Contains, q)] {
        if out.len() >= limit {
            break;
        }
        let second = if kind == MatchKind::Code { code.as_str() } else { upper.as_str() };
        // Asked for as many as are still wanted plus those already taken (they may match again).
        let want = (limit - out.len() + seen.len()) as i64;
        let ids: Vec<i64> = collect(conn, &sql, params![first, second, category, want], |r| Ok(Ok(r.get(0)?)))?;
        for id in ids {
            if out.len() < limit && seen.insert(id) {
                if let Some((item, category)) = item_by_id(conn, id)? {
                    out.push(Found { item, category, matched: kind });
                }
            }
        }
    }
    Ok(out)
}

/// Writes the folded keys of product `id` (its SKU, English name and Japanese name).
pub(crate) fn index_product(conn: &Connection, id: i64) -> Result<()> {
    let row: Option<(String, String, Option<String>)> = conn
        .row_cached(
            "SELECT p.sku, p.name, (SELECT n.name FROM product_names n WHERE n.product_id = p.id AND n.lang = 'ja') FROM products p WHERE p.id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((sku, en, ja)) = row else { return Ok(()) };
    let (sku, en, ja) = (fold(&sku), fold(&en), ja.as_deref().map(fold).unwrap_or_default());
    // A separator no folded text contains: "contains" never matches across two keys.
    let all = format!("{sku}\u{1}{en}\u{1}{ja}");
    conn.prepare_cached(
        "INSERT INTO product_search (product_id, sku_key, en_key, ja_key, all_key) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(product_id) DO UPDATE SET sku_key = excluded.sku_key, en_key = excluded.en_key,
             ja_key = excluded.ja_key, all_key = excluded.all_key",
    )?
    .execute(params![id, sku, en, ja, all])?;
    Ok(())
}

/// Writes the keys of every product that has none (after an upgrade, or a write by
/// another program: the triggers removed its keys). Reads first: an open with nothing to
/// do writes nothing. Returns how many products were indexed.
pub(crate) fn heal(conn: &mut Connection) -> Result<usize> {
    const MISSING: &str = "SELECT p.id FROM products p WHERE NOT EXISTS (SELECT 1 FROM product_search s WHERE s.product_id = p.id)";
    let any: bool = conn.query_row(&format!("SELECT EXISTS ({MISSING})"), [], |r| r.get(0))?;
    if !any {
        return Ok(0);
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let ids: Vec<i64> = collect(&tx, MISSING, [], |r| Ok(Ok(r.get(0)?)))?;
    for id in &ids {
        index_product(&tx, *id)?;
    }
    tx.commit()?;
    Ok(ids.len())
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// Active items matching `query`, in `category` if one is given: the exact SKU or
    /// barcode first, then a SKU, barcode or name that starts with it, then one that
    /// contains it; by SKU within each; at most `limit` (and never more than 50).
    pub fn search(&self, query: &SearchQuery, category: Option<&str>, limit: usize) -> Result<Vec<Found>> {
        search(&self.conn, query, category, limit)
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    fn plan(sql: &str) -> Vec<String> {
        let l = Ledger::open_in_memory(Box::new(crate::types::SeededKeys::new(1))).unwrap();
        collect(&l.conn, &format!("EXPLAIN QUERY PLAN {sql}"), params!["a", "b", None::<String>, 50], |r| Ok(Ok(r.get::<_, String>(3)?))).unwrap()
    }

    /// An exact code and a prefix are index reads, never a scan of the catalog: 50,000
    /// items must stay instant per keystroke (issue #30).
    #[test]
    fn exact_and_prefix_read_the_indexes() {
        for sql in [exact_sql(), prefix_sql()] {
            let p = plan(&sql);
            assert!(!p.iter().any(|d| d.starts_with("SCAN")), "{p:?}");
        }
    }

    #[test]
    fn folding_joins_case_width_and_kana() {
        assert_eq!(fold("Café Latte"), "cafélatte");
        assert_eq!(fold("ＣＯＦ－００１"), "cof-001");
        assert_eq!(fold("ｶﾌｪﾗﾃ"), fold("かふぇらて"));
        assert_eq!(fold("カフェラテ"), "かふぇらて");
        assert_eq!(fold("ヴ"), "ゔ");
    }
}
