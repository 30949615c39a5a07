//! The store's catalog: the seeded demo catalog and the cart built from it.
//! Prices are integer minor units of the store currency.

use serde::Serialize;

use crate::error::{AppError, AppResult};

use crate::money;

#[derive(Debug, Clone, Serialize)]
pub struct Item {
    pub sku: String,
    pub barcode: String,
    pub name: String,
    pub category: String,
    pub price: i64,
    pub price_display: String,
}

/// EAN-13 check digit for 12 digits.
pub fn ean13_check(digits12: &str) -> char {
    let sum: u32 = digits12
        .bytes()
        .enumerate()
        .map(|(i, b)| (b - b'0') as u32 * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    char::from(b'0' + ((10 - sum % 10) % 10) as u8)
}

/// (sku, 12 barcode digits, name, category, price in cents)
const DEMO: &[(&str, &str, &str, &str, i64)] = &[
    ("COF-001", "490000000001", "Coffee, regular", "Drinks", 250),
    ("COF-002", "490000000002", "Cafe latte", "Drinks", 420),
    ("TEA-001", "490000000011", "Green tea", "Drinks", 300),
    ("WAT-001", "490000000021", "Sparkling water", "Drinks", 180),
    ("BAG-001", "490000000101", "Bagel, sesame", "Bakery", 275),
    ("CRO-001", "490000000102", "Croissant", "Bakery", 325),
    ("MUF-001", "490000000103", "Blueberry muffin", "Bakery", 350),
    ("SAN-001", "490000000201", "Egg sandwich", "Deli", 695),
    ("SAL-001", "490000000202", "Garden salad", "Deli", 850),
    ("SOU-001", "490000000203", "Tomato soup", "Deli", 575),
    ("CHO-001", "490000000301", "Dark chocolate bar", "Snacks", 299),
    ("CHP-001", "490000000302", "Sea salt chips", "Snacks", 199),
    ("MUG-001", "490000000401", "PayDesk mug", "Gifts", 1495),
    ("GFT-025", "490000000402", "Gift card $25", "Gifts", 2500),
];

#[derive(Debug, Clone)]
pub struct Catalog {
    pub currency: String,
    pub items: Vec<Item>,
}

impl Catalog {
    pub fn demo() -> Self {
        let currency = "USD".to_string();
        let items = DEMO
            .iter()
            .map(|(sku, b12, name, cat, price)| Item {
                sku: sku.to_string(),
                barcode: format!("{b12}{}", ean13_check(b12)),
                name: name.to_string(),
                category: cat.to_string(),
                price: *price,
                price_display: money::format(*price, &currency),
            })
            .collect();
        Catalog { currency, items }
    }

    /// Looks a scanned code up: a barcode, or a SKU (case-insensitive).
    pub fn lookup(&self, code: &str) -> Option<&Item> {
        self.items
            .iter()
            .find(|i| i.barcode == code || i.sku.eq_ignore_ascii_case(code))
    }
}

/// Validates what a scanner or the keyboard typed: 1–32 characters of `[A-Za-z0-9-]`.
pub fn validate_code(code: &str) -> AppResult<String> {
    let code = code.trim();
    if code.is_empty() {
        return Err(AppError::InvalidInput("Type or scan a code first.".into()));
    }
    if code.len() > 32 || !code.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(AppError::InvalidInput(
            "A code has only letters, digits and dashes (at most 32).".into(),
        ));
    }
    Ok(code.to_string())
}

pub const MAX_QUANTITY: u32 = 999;

#[derive(Debug, Clone, Serialize)]
pub struct CartLine {
    pub sku: String,
    pub name: String,
    pub quantity: i64,
    pub unit_price: i64,
    pub line_total: i64,
    pub unit_price_display: String,
    pub line_total_display: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CartView {
    pub id: i64,
    pub lines: Vec<CartLine>,
    pub item_count: i64,
    pub currency: String,
    pub total: i64,
    pub total_display: String,
    /// True while a checkout is open or the cart is paid: it cannot change
    /// (design §3.2).
    pub locked: bool,
}

impl CartView {
    pub fn of(cart: &paydesk_ledger::Cart) -> CartView {
        let cur = cart.currency.code();
        let lines: Vec<CartLine> = cart
            .lines
            .iter()
            .map(|l| CartLine {
                sku: l.sku.clone(),
                name: l.name.clone(),
                quantity: l.quantity,
                unit_price: l.unit_price.amount_minor,
                line_total: l.line_total.amount_minor,
                unit_price_display: money::format(l.unit_price.amount_minor, cur),
                line_total_display: money::format(l.line_total.amount_minor, cur),
            })
            .collect();
        CartView {
            id: cart.id.0,
            item_count: lines.iter().map(|l| l.quantity).sum(),
            lines,
            currency: cur.to_string(),
            total: cart.total.amount_minor,
            total_display: money::format(cart.total.amount_minor, cur),
            locked: cart.state != paydesk_ledger::CartState::Open,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barcodes_have_valid_check_digits() {
        // a known EAN-13: 4006381333931
        assert_eq!(ean13_check("400638133393"), '1');
        let c = Catalog::demo();
        assert!(c.items.iter().all(|i| i.barcode.len() == 13));
        assert_eq!(c.lookup("cof-001").unwrap().name, "Coffee, regular");
        let b = c.items[1].barcode.clone();
        assert_eq!(c.lookup(&b).unwrap().sku, "COF-002");
    }

    #[test]
    fn codes_are_validated() {
        assert!(validate_code("  COF-001 ").is_ok());
        assert!(validate_code("").is_err());
        assert!(validate_code("a'; drop table").is_err());
        assert!(validate_code(&"9".repeat(33)).is_err());
    }
}
