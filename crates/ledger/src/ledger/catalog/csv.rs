//! CSV import and export of the catalog (record 0059). Import checks the whole file
//! first and reports EVERY bad line with its line number and field; a file with any
//! problem imports nothing. Export writes exactly the columns import reads.
//!
//! An exported file is opened in spreadsheets, which run a cell that starts with `=`,
//! `+`, `-` or `@` (or a tab or CR before one) as a formula: such a cell is written with
//! a leading apostrophe, which a spreadsheet shows as text, and import takes it off again,
//! so a name like "-10% off" goes out and comes back unchanged ([`neutralise_cell`]).

use std::ops::Deref;
use crate::ledger::Catalog;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::products::{all_items, barcode_owner, published_version, upsert_tx, Source};
use super::categories::{categories_tx, check_category_key, set_item_category_tx};
use super::settings::settings_tx;
use super::{check_item, class_str, parse_barcode, parse_class, CatalogItem, PriceKind, MAX_NAME_CHARS, MAX_SKU_CHARS};
use crate::error::Result;
use crate::ledger::Ledger;
use paydesk_domain::money::Currency;
use paydesk_tax::{Gtin13, SaleUnit};

/// The header, in this order. A file without the last column (`unit`, record 0134: piece,
/// kilogram or hundred_grams) is read too: every item in it is sold by the piece; one
/// without the last two (`price_kind`, record 0126) has only fixed-price items too.
pub const COLUMNS: [&str; 9] =
    ["sku", "barcode", "name_en", "name_ja", "price_minor", "tax_class", "active", "price_kind", "unit"];
/// The columns of a file written before open prices (record 0126).
const OLD_COLUMNS: usize = 7;
/// The columns of a file written before weighed goods (record 0134).
const PRE_UNIT_COLUMNS: usize = 8;
/// An optional column after all of [`COLUMNS`] (record 0133): the item's category key, empty
/// for none. A file without it leaves every item's category as it is.
pub const CATEGORY_COLUMN: &str = "category";

/// One row of a file: its line, the item, and its category when the file has the column
/// (`Some(None)`: in none).
pub type CsvRow = (u64, CatalogItem, Option<Option<String>>);
/// Largest file accepted, in bytes.
pub const MAX_CSV_BYTES: usize = 4 * 1024 * 1024;
/// Most data rows in one file.
pub const MAX_CSV_ROWS: usize = 20_000;
/// Most problems listed (the count is still exact).
const MAX_LISTED: usize = 1_000;

/// One problem: the file's line (1 = the header), the column, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsvProblem {
    pub line: u64,
    pub field: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportReport {
    pub rows: usize,
    /// Items added or changed (identical rows write nothing).
    pub changed: usize,
}

/// Whether a spreadsheet could take `cell` for a formula once its leading apostrophes are
/// gone: they are counted in, so that an apostrophe added here is told apart from one
/// that was in the name.
fn looks_like_formula(cell: &str) -> bool {
    cell.trim_start_matches('\'').starts_with(['=', '+', '-', '@', '\t', '\r'])
}

/// A cell as exported: with a leading apostrophe if it could run as a formula.
pub fn neutralise_cell(cell: &str) -> std::borrow::Cow<'_, str> {
    if looks_like_formula(cell) {
        format!("'{cell}").into()
    } else {
        cell.into()
    }
}

/// A cell as imported: the apostrophe [`neutralise_cell`] added taken off (a cell that
/// starts with one without looking like a formula after it is kept as typed).
pub fn restore_cell(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if looks_like_formula(rest) => rest,
        Some(_) | None => cell,
    }
}

fn problem(line: u64, field: &str, message: impl Into<String>) -> CsvProblem {
    CsvProblem { line, field: field.to_string(), message: message.into() }
}

/// Four shapes of header: before open prices (7 columns), before weighed goods (8), today's
/// (9), today's and the category (10). The category follows all of today's columns only, so
/// no cell is read as another column's.
fn known_header(got: &[&str]) -> bool {
    let with_category = got.len() == COLUMNS.len() + 1 && got[..COLUMNS.len()] == COLUMNS && got.last() == Some(&CATEGORY_COLUMN);
    got == COLUMNS || got == &COLUMNS[..PRE_UNIT_COLUMNS] || got == &COLUMNS[..OLD_COLUMNS] || with_category
}

/// Parses and checks a file on its own (no ledger): the items with their line numbers,
/// or every problem found.
pub fn parse_catalog_csv(bytes: &[u8], currency: Currency) -> std::result::Result<Vec<CsvRow>, Vec<CsvProblem>> {
    if bytes.len() > MAX_CSV_BYTES {
        return Err(vec![problem(0, "file", format!("{} bytes; at most {MAX_CSV_BYTES}", bytes.len()))]);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut rdr = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    let mut problems = Vec::new();
    let mut items = Vec::new();
    let mut skus: HashMap<String, u64> = HashMap::new();
    // Keyed by the 13-digit form: a UPC-A and its EAN-13 on two lines are one barcode.
    let mut barcodes: HashMap<Gtin13, u64> = HashMap::new();
    let mut width = COLUMNS.len();
    for (i, rec) in rdr.records().enumerate() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                problems.push(problem(line, "file", format!("not readable as CSV (UTF-8): {e}")));
                // The reader cannot resume reliably after a broken quote or encoding.
                break;
            }
        };
        let line = rec.position().map_or(i as u64 + 1, |p| p.line());
        if i == 0 {
            let got: Vec<&str> = rec.iter().map(str::trim).collect();
            if !known_header(&got) {
                problems.push(problem(line, "header", format!("expected {} (and {CATEGORY_COLUMN}, optional)", COLUMNS.join(","))));
                break;
            }
            width = got.len();
            continue;
        }
        if i > MAX_CSV_ROWS {
            problems.push(problem(line, "file", format!("more than {MAX_CSV_ROWS} rows")));
            break;
        }
        if rec.len() != width {
            problems.push(problem(line, "row", format!("{} fields; expected {width}", rec.len())));
            continue;
        }
        let item = item_of_row(&rec, line, currency, &mut problems);
        let category = (width > COLUMNS.len()).then(|| {
            let cell = restore_cell(rec.get(COLUMNS.len()).unwrap_or("")).trim();
            if let Some(p) = (!cell.is_empty()).then(|| check_category_key(cell)).flatten() {
                problems.push(problem(line, p.field, p.message));
            }
            (!cell.is_empty()).then(|| cell.to_string())
        });
        if let Some(first) = skus.insert(item.sku.clone(), line) {
            problems.push(problem(line, "sku", format!("SKU {:?} is also on line {first}", item.sku)));
        }
        if let Some(b) = &item.barcode {
            if let Some(first) = barcodes.insert(b.clone(), line) {
                problems.push(problem(line, "barcode", format!("barcode {b} is also on line {first}")));
            }
        }
        items.push((line, item, category));
    }
    if items.is_empty() && problems.is_empty() {
        problems.push(problem(1, "file", "no header and no rows"));
    }
    if problems.is_empty() {
        Ok(items)
    } else {
        Err(problems)
    }
}

/// One row's item, its cells parsed and checked; each problem found goes on `problems`
/// (the item is then only good for finding more problems, never stored).
fn item_of_row(rec: &csv::StringRecord, line: u64, currency: Currency, problems: &mut Vec<CsvProblem>) -> CatalogItem {
    let before = problems.len();
    let f = |k: usize| restore_cell(rec.get(k).unwrap_or(""));
    let price_minor = match f(4).parse::<i64>() {
        Ok(p) => p,
        Err(_) if f(4).is_empty() => {
            problems.push(problem(line, "price_minor", "the price is missing"));
            0
        }
        Err(_) => {
            problems.push(problem(line, "price_minor", format!("{:?} is not a whole number of minor units", f(4))));
            0
        }
    };
    let tax_class = parse_class(f(5)).unwrap_or_else(|| {
        problems.push(problem(line, "tax_class", format!("{:?}: expected standard, reduced or exempt", f(5))));
        paydesk_tax::TaxClass::Exempt
    });
    let active = match f(6) {
        "1" | "true" => true,
        "0" | "false" => false,
        other => {
            problems.push(problem(line, "active", format!("{other:?}: expected 1 or 0")));
            true
        }
    };
    let price_kind = match rec.len() > OLD_COLUMNS {
        false => PriceKind::Fixed,
        true if f(7).is_empty() => PriceKind::Fixed,
        true => PriceKind::parse(f(7)).unwrap_or_else(|| {
            problems.push(problem(line, "price_kind", format!("{:?}: expected fixed, open or department", f(7))));
            PriceKind::Fixed
        }),
    };
    let unit = match rec.len() > PRE_UNIT_COLUMNS {
        false => SaleUnit::Piece,
        true if f(8).is_empty() => SaleUnit::Piece,
        true => SaleUnit::parse(f(8)).unwrap_or_else(|| {
            problems.push(problem(line, "unit", format!("{:?}: expected piece, kilogram or hundred_grams", f(8))));
            SaleUnit::Piece
        }),
    };
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let barcode = match f(1) {
        "" => None,
        cell => parse_barcode(cell).map_err(|p| problems.push(problem(line, p.field, p.message))).ok(),
    };
    let item = CatalogItem {
        sku: f(0).chars().take(MAX_SKU_CHARS + 1).collect(),
        barcode,
        name_en: f(2).chars().take(MAX_NAME_CHARS + 1).collect(),
        name_ja: opt(&f(3).chars().take(MAX_NAME_CHARS + 1).collect::<String>()),
        price_minor,
        currency,
        tax_class,
        active,
        price_kind,
        unit,
    };
    for p in check_item(&item) {
        if p.field != "price_minor" || problems[before..].iter().all(|q| q.field != "price_minor") {
            problems.push(problem(line, p.field, p.message));
        }
    }
    item
}

impl Catalog<&mut Ledger> {
    /// Imports a catalog file in the store's currency, all or nothing: `Ok(Err(..))`
    /// lists every problem (at most 1000 of them) and nothing was written. A SKU
    /// already in the catalog is updated; a barcode held by another stored SKU (that
    /// the file does not move) is a problem of that line.
    pub fn import_csv(
        &mut self,
        bytes: &[u8],
        actor_id: Option<i64>,
        now_ms: i64,
    ) -> Result<std::result::Result<ImportReport, Vec<CsvProblem>>> {
        let currency = settings_tx(&self.conn)?.currency;
        let items = match parse_catalog_csv(bytes, currency) {
            Ok(items) => items,
            Err(mut p) => {
                p.truncate(MAX_LISTED);
                return Ok(Err(p));
            }
        };
        let in_file: HashMap<&str, Option<&Gtin13>> =
            items.iter().map(|(_, i, _)| (i.sku.as_str(), i.barcode.as_ref())).collect();
        let tx = self.write_tx()?;
        let mut problems = Vec::new();
        let known: std::collections::HashSet<String> = categories_tx(&tx)?.into_iter().map(|c| c.key).collect();
        for (line, item, category) in &items {
            if let Some(Some(k)) = category {
                if !known.contains(k) {
                    problems.push(problem(*line, "category", format!("there is no category {k:?}")));
                }
            }
            if published_version(&tx, &item.sku)?.is_some() {
                problems.push(problem(*line, "sku", format!("{} is managed by the back office; change it there", item.sku)));
            }
            let Some(b) = &item.barcode else { continue };
            if let Some(owner) = barcode_owner(&tx, b, &item.sku)? {
                let moved = in_file.get(owner.as_str()).is_some_and(|ob| *ob != Some(b));
                if !moved {
                    problems.push(problem(*line, "barcode", format!("barcode {b} already belongs to {owner}")));
                }
            }
        }
        if !problems.is_empty() {
            problems.truncate(MAX_LISTED);
            return Ok(Err(problems));
        }
        // Items that give a barcode up go first, so the one taking it over finds it free.
        let (givers, rest): (Vec<_>, Vec<_>) = items.iter().partition(|(_, i, _)| {
            all_barcode_changes(&tx, i).unwrap_or(false)
        });
        let mut changed = 0;
        for (_, item, category) in givers.into_iter().chain(rest) {
            let mut moved = false;
            let saved = upsert_tx(&tx, item, Source::Local, actor_id, now_ms)?;
            if let Some(k) = category {
                moved = set_item_category_tx(&tx, &item.sku, k.as_deref(), actor_id, now_ms)?;
            }
            changed += usize::from(saved || moved);
        }
        tx.commit()?;
        Ok(Ok(ImportReport { rows: items.len(), changed }))
    }
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The catalog as CSV, in the columns import reads.
    pub fn export_csv(&self) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let csv_err = |e: csv::Error| crate::error::Error::InvalidInput(format!("CSV: {e}"));
        w.write_record(COLUMNS.iter().chain([&CATEGORY_COLUMN])).map_err(csv_err)?;
        let by_sku: HashMap<String, String> = self.item_categories()?.into_iter().collect();
        for i in all_items(&self.conn)? {
            let price = i.price_minor.to_string();
            let category = by_sku.get(&i.sku).map_or("", String::as_str);
            let row = [
                i.sku.as_str(),
                i.barcode.as_ref().map_or("", Gtin13::as_str),
                i.name_en.as_str(),
                i.name_ja.as_deref().unwrap_or(""),
                price.as_str(),
                class_str(i.tax_class),
                if i.active { "1" } else { "0" },
                i.price_kind.as_str(),
                i.unit.as_str(),
                category,
            ];
            w.write_record(row.map(neutralise_cell).iter().map(|c| c.as_bytes())).map_err(csv_err)?;
        }
        let bytes = w.into_inner().map_err(|e| crate::error::Error::InvalidInput(format!("CSV: {e}")))?;
        Ok(String::from_utf8(bytes).expect("written from strings"))
    }
}

/// Whether the stored item of this SKU has a barcode the file changes.
fn all_barcode_changes(conn: &rusqlite::Connection, item: &CatalogItem) -> Result<bool> {
    Ok(super::products::item_by_sku(conn, &item.sku)?
        .is_some_and(|old| old.barcode.is_some() && old.barcode != item.barcode))
}
