//! Finding items on the sale screen (issue #30, record 0133): `search_items` asks the
//! ledger's search (SKU, barcode digits, names in both languages; any case, width or
//! kana; exact code, then prefix, then contains; at most 50) and `get_categories` gives
//! the register's tabs, named in the store's language. A refused query or category is
//! `invalid_input` with words per reason (the ledger's typed [`QueryProblem`]).

use paydesk_ledger::ledger::catalog::{check_category_key, MAX_QUERY_CHARS, MAX_RESULTS};
use paydesk_ledger::{PriceKind, QueryProblem, SearchQuery};
use serde::Serialize;
use tauri::State;

use super::catalog::Item;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, id, t, tr};
use crate::state::AppState;

/// One of the register's tabs.
#[derive(Debug, Clone, Serialize)]
pub struct Tab {
    pub key: String,
    /// In the store's language (English when it has none).
    pub name: String,
}

/// The query, checked: its words per reason. Bytes are bounded before characters are
/// counted (a char is at most 4 bytes).
pub fn query_of(text: &str) -> AppResult<SearchQuery> {
    if text.len() > MAX_QUERY_CHARS * 4 {
        return Err(refused(QueryProblem::TooLong { chars: text.chars().count(), max: MAX_QUERY_CHARS }));
    }
    SearchQuery::parse(text).map_err(refused)
}

fn refused(p: QueryProblem) -> AppError {
    AppError::InvalidInput(match p {
        QueryProblem::Empty => t(id!("search-error-empty")),
        QueryProblem::TooLong { max, .. } => tr!(active(), "search-error-long", max = max),
        QueryProblem::Control => t(id!("search-error-control")),
    })
}

fn category_of(key: Option<String>) -> AppResult<Option<String>> {
    match key {
        Some(k) if check_category_key(&k).is_some() => Err(AppError::InvalidInput(t(id!("search-error-category")))),
        other => Ok(other),
    }
}

/// Active items matching `query` (in `category` when given), best first, at most 50;
/// department keys left out.
#[tauri::command]
pub fn search_items(state: State<'_, AppState>, query: String, category: Option<String>) -> AppResult<Vec<Item>> {
    let q = query_of(&query)?;
    let category = category_of(category)?;
    let found = state.engine().catalog().search(&q, category.as_deref(), MAX_RESULTS)?;
    // Department keys have their own row of keys over the items (record 0126), as in
    // `get_catalog`.
    Ok(found
        .iter()
        .filter(|f| f.item.price_kind != PriceKind::Department)
        .map(|f| Item::of(&f.item, state.locale).in_category(f.category.clone()))
        .collect())
}

/// The store's categories as the register's tabs, in order.
#[tauri::command]
pub fn get_categories(state: State<'_, AppState>) -> AppResult<Vec<Tab>> {
    let (categories, _) = state.engine().catalog().categories()?;
    Ok(categories.iter().map(|c| Tab { key: c.key.clone(), name: c.name_in(state.locale).to_string() }).collect())
}
