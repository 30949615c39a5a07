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

/// Only active items, in `category` when one is given (?3).
const FILTER: &str = "JOIN products p ON p.id = s.product_id WHERE p.active = 1
    AND (?3 IS NULL OR EXISTS (SELECT 1 FROM product_categories c WHERE c.product_id = p.id AND c.category = ?3))";

/// The whole SKU (?1) or the 13-digit barcode (?2).
fn exact_sql() -> String {
    format!(
        "SELECT s.product_id FROM product_search s {FILTER} AND s.product_id IN (
             SELECT product_id FROM product_search WHERE sku_key = ?1
             UNION SELECT id FROM products WHERE barcode = ?2)
         LIMIT ?4"
    )
}

/// The keys a prefix is looked for in, each by its own index.
const PREFIX_KEYS: [&str; 4] = ["s.sku_key", "s.en_key", "s.ja_key", "p.barcode"];

/// ?1 <= key < ?2 is "starts with ?1" (?2 is ?1 and the last code point): a range of the
/// key's index, read in its order and stopped at ?4 — a one-letter query does not
/// gather thousands of rows to sort them.
fn prefix_sql(key: &str) -> String {
    format!("SELECT s.product_id FROM product_search s {FILTER} AND {key} >= ?1 AND {key} < ?2 ORDER BY {key} LIMIT ?4")
}

/// instr, not LIKE: the folded query is compared as it is (no wildcard to escape). Read
/// in table order and stopped at ?4; only a query that matches fewer reads every row.
/// CROSS JOIN keeps the narrow key table the outer loop (SQLite does not reorder it):
/// a product row is read only for a key that matched.
fn contains_sql() -> String {
    format!("SELECT s.product_id FROM product_search s CROSS {FILTER} AND instr(s.all_key, ?1) > 0 LIMIT ?4")
}

/// The ids one statement finds (?1, ?2: the query's bounds, ?3 the category, ?4 how many).
fn ids(conn: &Connection, sql: &str, first: &str, second: &str, category: Option<&str>, want: usize) -> Result<Vec<i64>> {
    collect(conn, sql, params![first, second, category, want as i64], |r| Ok(Ok(r.get(0)?)))
}

pub(super) fn search(conn: &Connection, query: &SearchQuery, category: Option<&str>, limit: usize) -> Result<Vec<Found>> {
    let limit = limit.min(MAX_RESULTS);
    let q = query.folded();
    let upper = format!("{q}\u{10FFFF}");
    // A typed UPC-A or EAN-8 is the 13-digit code the ledger stores.
    let code = paydesk_tax::Gtin13::parse(q).map(|g| g.as_str().to_string()).unwrap_or_else(|_| q.to_string());
    let mut seen = HashSet::new();
    let mut out: Vec<Found> = Vec::new();
    for kind in [MatchKind::Code, MatchKind::Prefix, MatchKind::Contains] {
        if out.len() >= limit {
            break;
        }
        // As many as are still wanted, plus those already taken (they may match again).
        let want = limit - out.len() + seen.len();
        let found: Vec<i64> = match kind {
            MatchKind::Code => ids(conn, &exact_sql(), q, &code, category, want)?,
            MatchKind::Prefix => {
                let mut all = Vec::new();
                for key in PREFIX_KEYS {
                    all.extend(ids(conn, &prefix_sql(key), q, &upper, category, want)?);
                }
                all
            }
            MatchKind::Contains => ids(conn, &contains_sql(), q, &upper, category, want)?,
        };
        let mut step = Vec::new();
        for id in found {
            if seen.insert(id) {
                if let Some((item, category)) = item_by_id(conn, id)? {
                    step.push(Found { item, category, matched: kind });
                }
            }
        }
        // By SKU within a kind, then as many as there is room for.
        step.sort_by(|a, b| a.item.sku.cmp(&b.item.sku));
        step.truncate(limit - out.len());
        out.extend(step);
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
        for sql in [exact_sql(), prefix_sql("s.sku_key"), prefix_sql("s.en_key"), prefix_sql("s.ja_key"), prefix_sql("p.barcode")] {
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
