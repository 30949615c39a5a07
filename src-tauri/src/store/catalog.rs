//! The store's catalog (record 0061): the sale screen's list of active items in the
//! store's language (`get_catalog`), and the catalog screen: every item (active or not)
//! with its fields, one item edited or added with a problem per field (the ledger's
//! `check_item`), CSV import that lists EVERY bad line and field and imports nothing from
//! a bad file, and CSV export saved in the data folder. Prices are integer minor units of
//! the store currency.

use paydesk_tax::{SaleUnit, TaxClass};
use paydesk_ledger::ledger::catalog::{check_item, parse_barcode, MAX_CSV_BYTES};
use paydesk_ledger::{CatalogItem, PriceKind};
use paydesk_domain::{Locale, Money};
use serde::{Deserialize, Serialize};
use paydesk_access::Action;
use tauri::State;

use crate::staff::Approval;

use crate::error::{AppError, AppResult, ErrorCode, Problem};
use crate::i18n::{active, tr};
use crate::money;
use crate::ops::Operation;
use crate::state::AppState;
use crate::wording::class_name;

/// One catalog item on the register's sale screen.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    pub sku: String,
    pub barcode: String,
    /// The name in the store's language (English when it has none).
    pub name: String,
    pub price: i64,
    pub price_display: String,
    /// standard | reduced | exempt
    pub tax_class: &'static str,
    /// fixed | open: an open-price item asks for its price when tapped (record 0126).
    pub price_kind: &'static str,
    /// The key of its category (the register's tab), if any (record 0133).
    pub category: Option<String>,
    /// piece | kilogram | hundred_grams: a weighed item asks for its grams (record 0134).
    pub unit: &'static str,
}

impl Item {
    pub fn of(i: &CatalogItem, locale: Locale) -> Item {
        Item {
            sku: i.sku.clone(),
            barcode: i.barcode.as_ref().map(|b| b.to_string()).unwrap_or_default(),
            name: i.name_in(locale).to_string(),
            price: i.price_minor,
            // A weighed item's price is per unit: "$0.69/kg", "¥398/100g" (record 0134).
            price_display: match i.unit.is_weighed() {
                true => format!("{}/{}", money::format(i.price_minor, i.currency), i.unit.label()),
                false => money::format(i.price_minor, i.currency),
            },
            tax_class: class_name(i.tax_class),
            price_kind: i.price_kind.as_str(),
            category: None,
            unit: i.unit.as_str(),
        }
    }

    pub fn in_category(self, category: Option<String>) -> Item {
        Item { category, ..self }
    }
}

/// The register's catalog: the store's active items, names in its language, each with
/// its category's key (the tabs filter on it). Department keys are not among them: they
/// are the row of keys over the items (`department_keys`).
#[tauri::command]
pub fn get_catalog(state: State<'_, AppState>) -> AppResult<Vec<Item>> {
    let items = state.engine().catalog().list()?;
    let (_, in_category) = state.engine().catalog().categories()?;
    let by_sku: std::collections::HashMap<String, String> = in_category.into_iter().collect();
    Ok(items
        .iter()
        .filter(|i| i.active && i.price_kind != PriceKind::Department)
        .map(|i| Item::of(i, state.locale).in_category(by_sku.get(&i.sku).cloned()))
        .collect())
}

/// Where an export is written, in the data folder.
pub const EXPORT_FILE: &str = "catalog-export.csv";

#[derive(Debug, Serialize)]
pub struct CatalogRow {
    pub sku: String,
    pub barcode: String,
    /// In the store's language.
    pub name: String,
    pub name_en: String,
    pub name_ja: String,
    pub price_minor: i64,
    pub price_display: String,
    /// As typed in the form ("2.50", "250").
    pub price_plain: String,
    pub tax_class: &'static str,
    pub active: bool,
    /// The back office publishes this item: the screen shows it read-only (record 0049).
    pub published: bool,
    /// Its category's key, "" for none (record 0133).
    pub category: String,
    /// fixed | open | department (record 0126): the form shows and keeps it.
    pub price_kind: &'static str,
    /// piece | kilogram | hundred_grams (record 0134); a weighed item's `price_display`
    /// names its unit ("$0.69/kg"), so the list never shows a per-kg price as a piece's.
    pub unit: &'static str,
}

#[derive(Debug, Serialize)]
pub struct CatalogScreen {
    pub currency: String,
    pub lang: &'static str,
    pub items: Vec<CatalogRow>,
    /// The categories an item can be put in, named in the store's language.
    pub categories: Vec<super::search::Tab>,
    /// Each tax class's rate today as the receipt prints it ("8.875%"), by class name, so
    /// a New York store's form does not offer Japan's 10 % (record 0131).
    pub class_rates: std::collections::BTreeMap<&'static str, String>,
}

/// One item as typed in the form.
#[derive(Debug, Clone, Deserialize)]
pub struct ItemForm {
    pub sku: String,
    pub barcode: String,
    pub name_en: String,
    pub name_ja: String,
    pub price: String,
    pub tax_class: String,
    pub active: bool,
    /// fixed (left out: fixed) | open | department (record 0126).
    #[serde(default)]
    pub price_kind: Option<String>,
    /// A category key, "" for none; absent leaves the item's category as it is (record 0133).
    #[serde(default)]
    pub category: Option<String>,
    /// piece (left out: piece) | kilogram | hundred_grams (record 0134).
    #[serde(default)]
    pub unit: Option<String>,
}

fn row(i: &CatalogItem, locale: Locale, published: bool) -> CatalogRow {
    let cur = i.currency;
    CatalogRow {
        sku: i.sku.clone(),
        barcode: i.barcode.as_ref().map(|b| b.to_string()).unwrap_or_default(),
        name: i.name_in(locale).to_string(),
        name_en: i.name_en.clone(),
        name_ja: i.name_ja.clone().unwrap_or_default(),
        price_minor: i.price_minor,
        price_display: Item::of(i, locale).price_display,
        price_plain: money::plain(i.price_minor, cur),
        tax_class: class_name(i.tax_class),
        active: i.active,
        published,
        category: String::new(),
        price_kind: i.price_kind.as_str(),
        unit: i.unit.as_str(),
    }
}

#[tauri::command]
pub fn list_catalog(state: State<'_, AppState>) -> AppResult<CatalogScreen> {
    let paydesk_register::usecases::CatalogScreen { items, store, published, class_ppm } = state.engine().catalog().screen()?;
    let published: std::collections::HashSet<String> = published.into_iter().collect();
    let (categories, in_category) = state.engine().catalog().categories()?;
    let by_sku: std::collections::HashMap<String, String> = in_category.into_iter().collect();
    let locale = store.locale;
    Ok(CatalogScreen {
        currency: store.currency.code().to_ascii_uppercase(),
        lang: locale.code(),
        items: items
            .iter()
            .map(|i| CatalogRow { category: by_sku.get(&i.sku).cloned().unwrap_or_default(), ..row(i, locale, published.contains(&i.sku)) })
            .collect(),
        categories: categories.iter().map(|c| super::search::Tab { key: c.key.clone(), name: c.name_in(locale).to_string() }).collect(),
        class_rates: class_ppm
            .into_iter()
            .map(|(c, ppm)| (class_name(c), ppm.map_or_else(|| "?".to_string(), |p| format!("{}%", paydesk_tax::percent_text(p)))))
            .collect(),
    })
}

fn field(field: &str, message: impl Into<String>) -> Problem {
    Problem { line: None, field: field.to_string(), message: message.into() }
}

/// The form as an item, or every problem of it (by field). A form that leaves out the price
/// kind or the sale unit (the catalog screen's form has neither field) keeps `existing`'s:
/// changing a name must not turn a weighed item into a piece item, or a department key
/// into a fixed-price item.
pub fn item_of(f: &ItemForm, currency: paydesk_domain::Currency, existing: Option<&CatalogItem>) -> Result<CatalogItem, Vec<Problem>> {
    let mut problems = Vec::new();
    let price = match Money::parse(f.price.trim(), currency) {
        Ok(m) => m.amount_minor,
        Err(_) => {
            problems.push(field("price_minor", format!("“{}” is not a price in {}", f.price.trim(), currency.code())));
            0
        }
    };
    let tax_class = match f.tax_class.as_str() {
        "standard" => TaxClass::Standard,
        "reduced" => TaxClass::Reduced,
        "exempt" => TaxClass::Exempt,
        _ => {
            problems.push(field("tax_class", "choose standard, reduced or exempt"));
            TaxClass::Standard
        }
    };
    let price_kind = match f.price_kind.as_deref().map(PriceKind::parse) {
        None => existing.map_or(PriceKind::Fixed, |e| e.price_kind),
        Some(Some(k)) => k,
        Some(None) => {
            problems.push(field("price_kind", "choose fixed, open or department"));
            PriceKind::Fixed
        }
    };
    let unit = match f.unit.as_deref().map(SaleUnit::parse) {
        None => existing.map_or(SaleUnit::Piece, |e| e.unit),
        Some(Some(u)) => u,
        Some(None) => {
            problems.push(field("unit", "choose piece, kilogram or hundred_grams"));
            SaleUnit::Piece
        }
    };
    let opt = |s: &str| (!s.trim().is_empty()).then(|| s.to_string());
    // The one barcode rule (record 0115): a UPC-A, EAN-8 or EAN-13, saved as 13 digits.
    let barcode = opt(&f.barcode).and_then(|b| parse_barcode(b.trim()).map_err(|p| problems.push(field(p.field, p.message))).ok());
    let item = CatalogItem {
        sku: f.sku.clone(),
        barcode,
        name_en: f.name_en.clone(),
        name_ja: opt(&f.name_ja),
        price_minor: price,
        currency,
        tax_class,
        active: f.active,
        price_kind,
        unit,
    };
    problems.extend(check_item(&item).into_iter().map(|p| field(p.field, p.message)));
    if problems.is_empty() {
        Ok(item)
    } else {
        Err(problems)
    }
}

/// Adds or changes one item (by SKU). Problems come back per field, nothing is written.
#[tauri::command]
pub fn save_item(state: State<'_, AppState>, item: ItemForm, approval: Option<Approval>) -> AppResult<CatalogRow> {
    let op = Operation::new(Action::CatalogEdit, approval.as_ref()).authorize(&state)?;
    let engine = state.engine();
    let store = engine.store().settings()?;
    let existing = engine.catalog().item(&item.sku)?;
    let it = item_of(&item, store.currency, existing.as_ref()).map_err(|problems| AppError::Rejected {
        code: ErrorCode::InvalidItem,
        message: tr!(active(), "catalog-item-not-saved", count = problems.len()),
        problems,
    })?;
    // Before the approval is recorded: nothing was approved that cannot happen here.
    if engine.catalog().is_published(&it.sku)? {
        return Err(AppError::ManagedByBackOffice(crate::error::Managed::Item(it.sku)));
    }
    let granted = op.audit_approval(format!("product:{}", it.sku)).permit(&state)?;
    let refused = |f: &str, m: String| AppError::Rejected {
        code: ErrorCode::InvalidItem,
        message: tr!(active(), "catalog-item-not-saved", count = 1),
        problems: vec![field(f, m)],
    };
    let saved = match item.category.as_deref() {
        None => engine.catalog().save(&it, granted.actor_id()).map(|n| n > 0),
        Some(k) => engine.catalog().save_in_category(&it, (!k.is_empty()).then_some(k), granted.actor_id()),
    };
    saved.map_err(|e| match e {
        // The one check the item alone cannot make (its barcode held by another SKU):
        // the ledger names the field.
        paydesk_ledger::Error::InvalidItem { field: f, message } => refused(f, message),
        // The catalog is full: refused as the item's own (its SKU cannot be added).
        paydesk_ledger::Error::InvalidInput(m) => refused("sku", m),
        other => AppError::from(other),
    })?;
    let category = match item.category {
        Some(k) => k,
        None => engine.catalog().categories()?.1.into_iter().find(|(sku, _)| *sku == it.sku).map(|(_, k)| k).unwrap_or_default(),
    };
    Ok(CatalogRow { category, ..row(&it, store.locale, false) })
}

#[derive(Debug, Serialize)]
pub struct ImportResult {
    pub rows: usize,
    pub changed: usize,
    pub message: String,
}

/// Imports a catalog file's text (read by the UI from a chosen file or pasted), all or
/// nothing: any problem lists every bad line and field and writes nothing.
#[tauri::command]
pub fn import_catalog(state: State<'_, AppState>, csv: String, approval: Option<Approval>) -> AppResult<ImportResult> {
    let op = Operation::new(Action::CatalogEdit, approval.as_ref()).authorize(&state)?;
    if csv.len() > MAX_CSV_BYTES {
        return Err(AppError::InvalidInput(tr!(active(), "input-csv-too-large", bytes = csv.len(), mb = MAX_CSV_BYTES / (1024 * 1024))));
    }
    if csv.trim().is_empty() {
        return Err(AppError::InvalidInput(tr!(active(), "input-csv-empty")));
    }
    let granted = op.audit_approval("catalog:import").permit(&state)?;
    let res = state.engine().catalog().import_csv(csv.as_bytes(), granted.actor_id())?;
    match res {
        Ok(r) => Ok(ImportResult {
            rows: r.rows,
            changed: r.changed,
            message: tr!(active(), "catalog-imported", rows = r.rows, changed = r.changed),
        }),
        Err(problems) => Err(AppError::Rejected {
            code: crate::error::ErrorCode::CsvRejected,
            message: tr!(active(), "catalog-import-rejected", count = problems.len()),
            problems: problems
                .into_iter()
                .map(|p| Problem { line: Some(p.line), field: p.field, message: p.message })
                .collect(),
        }),
    }
}

#[derive(Debug, Serialize)]
pub struct ExportResult {
    pub csv: String,
    pub path: String,
    pub rows: usize,
}

/// The catalog as CSV (the columns import reads), also saved in the data folder.
#[tauri::command]
pub fn export_catalog(state: State<'_, AppState>) -> AppResult<ExportResult> {
    let csv = state.engine().catalog().export_csv()?;
    let path = state.stored.data_dir.join(EXPORT_FILE);
    std::fs::write(&path, &csv)?;
    Ok(ExportResult { rows: csv.lines().count().saturating_sub(1), csv, path: path.display().to_string() })
}
