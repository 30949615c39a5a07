//! The store's catalog as the register shows it: items from the ledger (record 0061),
//! in the store's language, and the checks on what a scanner or the keyboard types.
//! Prices are integer minor units of the store currency.

use paydesk_tax::TaxClass;
use paydesk_ledger::CatalogItem;
use serde::Serialize;

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::money;

/// One catalog item on the register's screen.
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
}

pub fn class_name(c: TaxClass) -> &'static str {
    match c {
        TaxClass::Standard => "standard",
        TaxClass::Reduced => "reduced",
        TaxClass::Exempt => "exempt",
    }
}

impl Item {
    pub fn of(i: &CatalogItem, lang: &str) -> Item {
        Item {
            sku: i.sku.clone(),
            barcode: i.barcode.clone().unwrap_or_default(),
            name: i.name_in(lang).to_string(),
            price: i.price_minor,
            price_display: money::format(i.price_minor, i.currency.code()),
            tax_class: class_name(i.tax_class),
        }
    }
}

/// Validates what a scanner or the keyboard typed: 1–32 characters of `[A-Za-z0-9-]`.
pub fn validate_code(code: &str) -> AppResult<String> {
    let code = code.trim();
    if code.is_empty() {
        return Err(AppError::InvalidInput(tr!(active(), "input-code-empty")));
    }
    if code.len() > 32 || !code.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(AppError::InvalidInput(tr!(active(), "input-code-chars", max = 32)));
    }
    Ok(code.to_string())
}

pub const MAX_QUANTITY: u32 = 999;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_validated() {
        assert!(validate_code("  COF-001 ").is_ok());
        assert!(validate_code("").is_err());
        assert!(validate_code("a'; drop table").is_err());
        assert!(validate_code(&"9".repeat(33)).is_err());
    }
}
