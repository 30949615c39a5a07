//! The catalog as a CSV the owner uploads (record 0147): a header row naming the item's
//! fields as `PUT /admin/stores/{store}/catalog` takes them (`sku,barcode,name_en,name_ja,
//! price,currency,tax_class,active,price_kind,unit,category`; `sku`, `name_en`, `price` and
//! `tax_class` required, the others optional and in any order), then one item a row.
//! RFC 4180: cells quoted with `"` may hold commas, quotes (doubled) and line breaks.
//!
//! The result is the items as JSON documents, the body a preview and a publish then take.
//! An optional column left out of the header is left out of every document, so the
//! publish keeps the stored item's value for it (record 0137's rule for the item's shape);
//! an empty cell of an optional column is "none" (no barcode, no Japanese name, no
//! category, fixed price, by the piece, active). Every refusal names its row (the header
//! is row 1) and, for a cell, its column. `csv_cell.rs` writes cells for spreadsheets; it
//! has nothing to read them, so this reader is its own.
use crate::error::ApiError;
use paydesk_sync_proto::catalog::{PriceKind, MAX_ITEMS_PER_PUBLISH, MAX_PRICE};
use paydesk_sync_proto::Item;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// The largest upload read, in bytes (500 items of long names fit well within it).
pub const MAX_CSV_BYTES: usize = 256 * 1024;
/// Item rows one upload may hold: one publish's worth.
pub const MAX_CSV_ROWS: usize = MAX_ITEMS_PER_PUBLISH;
/// The longest cell read, in characters (an item's own limits are narrower and checked
/// after: a SKU 64, a name 120).
pub const MAX_CELL_CHARS: usize = 200;

/// The columns, as the item's fields are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Sku,
    Barcode,
    NameEn,
    NameJa,
    Price,
    Currency,
    TaxClass,
    Active,
    PriceKind,
    Unit,
    Category,
}

impl Column {
    pub const ALL: [Column; 11] = [
        Column::Sku,
        Column::Barcode,
        Column::NameEn,
        Column::NameJa,
        Column::Price,
        Column::Currency,
        Column::TaxClass,
        Column::Active,
        Column::PriceKind,
        Column::Unit,
        Column::Category,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Column::Sku => "sku",
            Column::Barcode => "barcode",
            Column::NameEn => "name_en",
            Column::NameJa => "name_ja",
            Column::Price => "price",
            Column::Currency => "currency",
            Column::TaxClass => "tax_class",
            Column::Active => "active",
            Column::PriceKind => "price_kind",
            Column::Unit => "unit",
            Column::Category => "category",
        }
    }

    const fn required(self) -> bool {
        match self {
            Column::Sku | Column::NameEn | Column::Price | Column::TaxClass => true,
            Column::Barcode
            | Column::NameJa
            | Column::Currency
            | Column::Active
            | Column::PriceKind
            | Column::Unit
            | Column::Category => false,
        }
    }
}

/// What is wrong with one cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellProblem {
    Empty,
    TooLong { chars: usize },
    /// Minor units are whole numbers: "150", never "1.50".
    NotWholeNumber,
    OutOfRange,
    NotOneOf(&'static [&'static str]),
    /// The item's own rule for the field (`Item::validate`), in its words.
    Invalid(String),
}

/// Why an upload is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CsvError {
    TooLarge { bytes: usize },
    NoHeader,
    UnknownColumn { column: String },
    DuplicateColumn { column: &'static str },
    MissingColumn { column: &'static str },
    NoRows,
    TooManyRows,
    /// A row whose cell count is not the header's.
    Width { row: usize, cells: usize, expected: usize },
    /// A quoted cell still open at the end of the file.
    UnclosedQuote { row: usize },
    /// A quote inside an unquoted cell, or text after a closing quote.
    StrayQuote { row: usize },
    Cell { row: usize, column: &'static str, problem: CellProblem },
    DuplicateSku { row: usize, first_row: usize },
    /// No currency column and the store has no settings to take it from.
    NoCurrency,
}

impl CsvError {
    fn message(&self) -> String {
        match self {
            CsvError::TooLarge { bytes } => format!("the file is {bytes} bytes; at most {MAX_CSV_BYTES}"),
            CsvError::NoHeader => "the file is empty: its first row names the columns".into(),
            CsvError::UnknownColumn { column } => {
                let known: Vec<&str> = Column::ALL.iter().map(|c| c.as_str()).collect();
                format!("row 1: column {column:?} is not an item field ({})", known.join(", "))
            }
            CsvError::DuplicateColumn { column } => format!("row 1: column {column} is named twice"),
            CsvError::MissingColumn { column } => format!("row 1: the header has no {column} column"),
            CsvError::NoRows => "the file has a header and no items".into(),
            CsvError::TooManyRows => format!("the file has more than {MAX_CSV_ROWS} items; upload at most {MAX_CSV_ROWS} at a time"),
            CsvError::Width { row, cells, expected } => format!("row {row}: {cells} cells; the header has {expected}"),
            CsvError::UnclosedQuote { row } => format!("row {row}: a quoted cell is never closed"),
            CsvError::StrayQuote { row } => format!("row {row}: a quote inside a cell (quote the whole cell and double the quote)"),
            CsvError::Cell { row, column, problem } => {
                let what = match problem {
                    CellProblem::Empty => "is empty".to_string(),
                    CellProblem::TooLong { chars } => format!("is {chars} characters long; at most {MAX_CELL_CHARS}"),
                    CellProblem::NotWholeNumber => "must be a whole number of minor units (150, not 1.50)".to_string(),
                    CellProblem::OutOfRange => format!("must be between 0 and {MAX_PRICE}"),
                    CellProblem::NotOneOf(words) => format!("must be one of {}", words.join(", ")),
                    CellProblem::Invalid(why) => why.clone(),
                };
                format!("row {row}, column {column}: {what}")
            }
            CsvError::DuplicateSku { row, first_row } => format!("row {row}, column sku: the SKU is already on row {first_row}"),
            CsvError::NoCurrency => "the file has no currency column and the store has no settings yet: add a currency column".into(),
        }
    }

    fn row(&self) -> Option<usize> {
        match self {
            CsvError::UnknownColumn { .. } | CsvError::DuplicateColumn { .. } | CsvError::MissingColumn { .. } => Some(1),
            CsvError::Width { row, .. }
            | CsvError::UnclosedQuote { row }
            | CsvError::StrayQuote { row }
            | CsvError::Cell { row, .. }
            | CsvError::DuplicateSku { row, .. } => Some(*row),
            CsvError::TooLarge { .. } | CsvError::NoHeader | CsvError::NoRows | CsvError::TooManyRows | CsvError::NoCurrency => None,
        }
    }

    fn column(&self) -> Option<String> {
        match self {
            CsvError::UnknownColumn { column } => Some(column.clone()),
            CsvError::DuplicateColumn { column } | CsvError::MissingColumn { column } | CsvError::Cell { column, .. } => Some(column.to_string()),
            CsvError::DuplicateSku { .. } => Some("sku".into()),
            CsvError::TooLarge { .. }
            | CsvError::NoHeader
            | CsvError::NoRows
            | CsvError::TooManyRows
            | CsvError::Width { .. }
            | CsvError::UnclosedQuote { .. }
            | CsvError::StrayQuote { .. }
            | CsvError::NoCurrency => None,
        }
    }
}

impl From<CsvError> for ApiError {
    fn from(e: CsvError) -> Self {
        ApiError::BadCsv { row: e.row(), column: e.column(), message: e.message() }
    }
}

/// Splits the text into records of cells (RFC 4180), with each record's row number. Stops
/// past `MAX_CSV_ROWS + 1` records (the header and a publish's worth).
fn records(text: &str) -> Result<Vec<Vec<String>>, CsvError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut cell = String::new();
    let mut quoted = false; // inside a quoted cell
    let mut was_quoted = false; // this cell was quoted (and closed)
    let mut chars = text.chars().peekable();
    let end_row = |row: &mut Vec<String>, out: &mut Vec<Vec<String>>| {
        // a blank line is no record
        if !(row.len() == 1 && row[0].is_empty()) {
            out.push(std::mem::take(row));
        }
        row.clear();
    };
    while let Some(c) = chars.next() {
        let n = out.len() + 1;
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                '"' => {
                    quoted = false;
                    was_quoted = true;
                }
                other => cell.push(other),
            }
            continue;
        }
        match c {
            '"' if cell.is_empty() && !was_quoted => quoted = true,
            '"' => return Err(CsvError::StrayQuote { row: n }),
            ',' => {
                row.push(std::mem::take(&mut cell));
                was_quoted = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                row.push(std::mem::take(&mut cell));
                was_quoted = false;
                end_row(&mut row, &mut out);
                if out.len() > MAX_CSV_ROWS + 1 {
                    return Err(CsvError::TooManyRows);
                }
            }
            _ if was_quoted => return Err(CsvError::StrayQuote { row: n }),
            other => cell.push(other),
        }
    }
    if quoted {
        return Err(CsvError::UnclosedQuote { row: out.len() + 1 });
    }
    if !cell.is_empty() || was_quoted || !row.is_empty() {
        row.push(cell);
        end_row(&mut row, &mut out);
    }
    if out.len() > MAX_CSV_ROWS + 1 {
        return Err(CsvError::TooManyRows);
    }
    Ok(out)
}

fn header(cells: &[String]) -> Result<Vec<Column>, CsvError> {
    let mut cols = Vec::with_capacity(cells.len());
    for name in cells {
        let name = name.trim();
        let col = Column::ALL.into_iter().find(|c| c.as_str() == name).ok_or_else(|| CsvError::UnknownColumn { column: name.chars().take(40).collect() })?;
        if cols.contains(&col) {
            return Err(CsvError::DuplicateColumn { column: col.as_str() });
        }
        cols.push(col);
    }
    if let Some(c) = Column::ALL.into_iter().find(|c| c.required() && !cols.contains(c)) {
        return Err(CsvError::MissingColumn { column: c.as_str() });
    }
    Ok(cols)
}

/// One cell read as its column's value; `Value::Null` for an empty optional cell.
fn value(col: Column, raw: &str, row: usize) -> Result<Value, CsvError> {
    let bad = |problem| CsvError::Cell { row, column: col.as_str(), problem };
    let chars = raw.chars().count();
    if chars > MAX_CELL_CHARS {
        return Err(bad(CellProblem::TooLong { chars }));
    }
    // Names keep their spaces as typed (the item's rule refuses them at either end); the
    // words and numbers are read trimmed.
    let word = raw.trim();
    if word.is_empty() {
        return if col.required() { Err(bad(CellProblem::Empty)) } else { Ok(Value::Null) };
    }
    let one_of = |words: &'static [&'static str]| if words.contains(&word) { Ok(json!(word)) } else { Err(bad(CellProblem::NotOneOf(words))) };
    match col {
        Column::Sku | Column::NameEn | Column::NameJa | Column::Category => Ok(json!(raw)),
        Column::Barcode => Ok(json!(word)),
        Column::Currency => Ok(json!(word.to_ascii_lowercase())),
        Column::Price => {
            if !word.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(if word.starts_with('-') { CellProblem::OutOfRange } else { CellProblem::NotWholeNumber }));
            }
            match word.parse::<i64>() {
                Ok(p) if p <= MAX_PRICE => Ok(json!(p)),
                Ok(_) | Err(_) => Err(bad(CellProblem::OutOfRange)),
            }
        }
        Column::TaxClass => one_of(&["standard", "reduced", "exempt"]),
        Column::Active => match word {
            "true" | "yes" | "1" => Ok(json!(true)),
            "false" | "no" | "0" => Ok(json!(false)),
            _ => Err(bad(CellProblem::NotOneOf(&["true", "false"]))),
        },
        Column::PriceKind => one_of(&["fixed", "open", "department"]),
        Column::Unit => one_of(&["piece", "kilogram", "hundred_grams"]),
    }
}

/// The item's own rules (`Item::validate`) for one row, with the column at fault: each
/// cell is checked alone on an otherwise valid item, then the rules between fields (an
/// open price has no price of its own: the price; a weighed item is not open: the unit).
fn item_rules(doc: &Map<String, Value>, row: usize) -> Result<(), CsvError> {
    let invalid = |column: Column, why: String| CsvError::Cell { row, column: column.as_str(), problem: CellProblem::Invalid(why) };
    let read = |column: Column, v: Value| serde_json::from_value::<Item>(v).map_err(|e| invalid(column, e.to_string()));
    let base = json!({"sku": "A", "name_en": "A", "price": 0, "currency": "jpy", "tax_class": "standard", "active": true});
    for col in Column::ALL {
        if let Some(v) = doc.get(col.as_str()) {
            let mut one = base.clone();
            one[col.as_str()] = v.clone();
            read(col, one)?.validate().map_err(|e| invalid(col, e.to_string()))?;
        }
    }
    let item = read(Column::Sku, Value::Object(doc.clone()))?;
    item.validate().map_err(|e| invalid(if item.unit.is_weighed() && item.price_kind.is_open() { Column::Unit } else { Column::Price }, e.to_string()))
}

/// Reads an upload into item documents for `PUT …/catalog`. `store_currency`: the
/// currency of items whose row does not say one.
pub fn parse(text: &str, store_currency: Option<&str>) -> Result<Vec<Value>, CsvError> {
    if text.len() > MAX_CSV_BYTES {
        return Err(CsvError::TooLarge { bytes: text.len() });
    }
    let recs = records(text)?;
    let Some((head, rows)) = recs.split_first() else { return Err(CsvError::NoHeader) };
    let cols = header(head)?;
    if rows.is_empty() {
        return Err(CsvError::NoRows);
    }
    if rows.len() > MAX_CSV_ROWS {
        return Err(CsvError::TooManyRows);
    }
    let currency = if cols.contains(&Column::Currency) { None } else { Some(store_currency.ok_or(CsvError::NoCurrency)?) };
    let mut first_row: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(rows.len());
    for (i, cells) in rows.iter().enumerate() {
        let row = i + 2;
        if cells.len() != cols.len() {
            return Err(CsvError::Width { row, cells: cells.len(), expected: cols.len() });
        }
        let mut doc = Map::new();
        for (col, raw) in cols.iter().zip(cells) {
            let v = value(*col, raw, row)?;
            // Empty optional cells: "none" for the item's options, the default for the rest.
            let v = match (col, v) {
                (Column::Active, Value::Null) => json!(true),
                (Column::PriceKind, Value::Null) => json!(PriceKind::Fixed.as_str()),
                (Column::Unit, Value::Null) => json!("piece"),
                (Column::Currency, Value::Null) => match store_currency {
                    Some(c) => json!(c),
                    None => return Err(CsvError::Cell { row, column: "currency", problem: CellProblem::Empty }),
                },
                (_, v) => v,
            };
            doc.insert(col.as_str().to_string(), v);
        }
        if let Some(c) = currency {
            doc.insert("currency".into(), json!(c));
        }
        doc.entry("active").or_insert(json!(true));
        let sku = doc["sku"].as_str().unwrap_or_default().to_string();
        if let Some(first) = first_row.get(&sku) {
            return Err(CsvError::DuplicateSku { row, first_row: *first });
        }
        first_row.insert(sku, row);
        // The item's own rules, named by row and column here rather than at the publish.
        item_rules(&doc, row)?;
        out.push(Value::Object(doc));
    }
    Ok(out)
}
