//! The demo store (record 0059): the app's 14 demo items, 1 weighed item (record 0134) and
//! 2 department keys (record 0126) as seed data, in two
//! variants. en-US/USD is a cafe in New York City (record 0131): dollar shelf prices
//! without tax, NY State 4 % + New York City 4.5 % + MCTD 0.375 % on what is taxable, half
//! a cent rounded up. Kept simple: what a cafe prepares (hot drinks, sandwiches, salad,
//! soup), candy and goods are taxable; bottled water, whole bakery items and packaged snacks
//! taken out are grocery food, exempt in New York (the reduced class, at 0 % there; eaten in
//! they are taxable like in Japan); the gift card is not a sale of goods. ja-JP/JPY has
//! Japanese names, yen prices, food and drink at the reduced rate (8 % taken out, 10 % eaten
//! in), goods at the standard rate and the gift card exempt.

use crate::ledger::Catalog;
use paydesk_access::pin::{hash_pin, Pin};
use paydesk_access::Role;
use paydesk_tax::{ean_check_digit, Gtin13, PriceMode, RateTable, Rounding, SaleUnit, TaxClass};
use serde::{Deserialize, Serialize};

use super::categories::{save_category_tx, set_item_category_tx, Category};
use super::products::{upsert_tx, Source};
use super::rates::write_rates_tx;
use super::settings::write_settings_tx;
use super::{CatalogItem, PriceKind, StoreSettings};
use paydesk_domain::Locale;
use crate::error::{Error, Result};
use crate::ledger::staff::{add_staff_tx, Staff};
use crate::ledger::{Cached, Ledger};
use paydesk_domain::money::Currency;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DemoLocale {
    EnUs,
    JaJp,
}

/// (SKU, 12 data digits of the barcode, English name, Japanese name, USD cents, yen, class in
/// Japan, class in New York)
type Demo = (&'static str, &'static str, &'static str, &'static str, i64, i64, TaxClass, TaxClass);

const DEMO: [Demo; 14] = [
    ("COF-001", "490000000001", "Coffee, regular", "ブレンドコーヒー", 250, 250, TaxClass::Reduced, TaxClass::Standard),
    ("COF-002", "490000000002", "Cafe latte", "カフェラテ", 420, 420, TaxClass::Reduced, TaxClass::Standard),
    ("TEA-001", "490000000011", "Green tea", "緑茶", 300, 160, TaxClass::Reduced, TaxClass::Standard),
    ("WAT-001", "490000000021", "Sparkling water", "炭酸水", 180, 130, TaxClass::Reduced, TaxClass::Reduced),
    ("BAG-001", "490000000101", "Bagel, sesame", "ごまベーグル", 275, 240, TaxClass::Reduced, TaxClass::Reduced),
    ("CRO-001", "490000000102", "Croissant", "クロワッサン", 325, 220, TaxClass::Reduced, TaxClass::Reduced),
    ("MUF-001", "490000000103", "Blueberry muffin", "ブルーベリーマフィン", 350, 280, TaxClass::Reduced, TaxClass::Reduced),
    ("SAN-001", "490000000201", "Egg sandwich", "たまごサンド", 695, 390, TaxClass::Reduced, TaxClass::Standard),
    ("SAL-001", "490000000202", "Garden salad", "グリーンサラダ", 850, 480, TaxClass::Reduced, TaxClass::Standard),
    ("SOU-001", "490000000203", "Tomato soup", "トマトスープ", 575, 420, TaxClass::Reduced, TaxClass::Standard),
    ("CHO-001", "490000000301", "Dark chocolate bar", "ダークチョコレート", 299, 250, TaxClass::Reduced, TaxClass::Standard),
    ("CHP-001", "490000000302", "Sea salt chips", "うすしおポテトチップス", 199, 180, TaxClass::Reduced, TaxClass::Reduced),
    ("MUG-001", "490000000401", "PayDesk mug", "PayDeskマグカップ", 1495, 1650, TaxClass::Standard, TaxClass::Standard),
    ("GFT-025", "490000000402", "Gift card $25", "ギフトカード 3,000円", 2500, 3000, TaxClass::Exempt, TaxClass::Exempt),
];

/// The demo's department keys (部門, record 0126): open-price items the cashier rings
/// with a typed price. (SKU, class; English and Japanese names in Japan, where a key
/// names its rate as Japanese registers do; the same in New York, where no rate is in
/// the name: grocery food is 0 % taken out and 8.875 % eaten in, record 0131.)
type DemoDepartment = (&'static str, TaxClass, [&'static str; 2], [&'static str; 2]);
const DEMO_DEPARTMENTS: [DemoDepartment; 2] = [
    ("DEPT-FOOD", TaxClass::Reduced, ["Food 8%", "食品 8%"], ["Grocery food", "食料品"]),
    ("DEPT-GOODS", TaxClass::Standard, ["Sundries 10%", "雑貨 10%"], ["Sundries", "雑貨"]),
];

/// The demo's categories (key, English, Japanese) in tab order: data like the items
/// (record 0133).
const DEMO_CATEGORIES: [(&str, &str, &str); 4] =
    [("drinks", "Drinks", "飲み物"), ("bakery", "Bakery", "ベーカリー"), ("food", "Food", "フード"), ("goods", "Goods", "雑貨")];

/// The demo categories, both names each.
pub fn demo_categories() -> Vec<Category> {
    DEMO_CATEGORIES
        .iter()
        .zip(1..)
        .map(|(&(key, en, ja), position)| Category { key: key.into(), name_en: en.into(), name_ja: Some(ja.into()), position })
        .collect()
}

/// The demo category of a demo SKU, by its first three letters.
pub fn demo_category(sku: &str) -> Option<&'static str> {
    if sku == DEMO_WEIGHED_SKU {
        return Some("food");
    }
    match sku.get(..3)? {
        "COF" | "TEA" | "WAT" => Some("drinks"),
        "BAG" | "CRO" | "MUF" => Some("bakery"),
        "SAN" | "SAL" | "SOU" | "CHO" | "CHP" => Some("food"),
        "MUG" | "GFT" => Some("goods"),
        _ => None,
    }
}

/// The demo's weighed item (record 0134), sold loose: bananas at $0.69 a kilogram in New
/// York, nuts at ¥398 per 100 g (100g当たり) in Tokyo. Its SKU is the item code of its scale
/// label under the default weight rule (21 + 5 item digits + 5 weight digits, record 0134):
/// a label "21 00001 00452 c" rings 452 g of it. No barcode of its own.
pub const DEMO_WEIGHED_SKU: &str = "2100001";

fn barcode(data: &str) -> Gtin13 {
    let digits: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    Gtin13::parse(&format!("{data}{}", ean_check_digit(&digits))).expect("the demo's 12 data digits and their check digit")
}

/// The demo store's settings and items for a locale (pure; [`Catalog::seed_demo_store`]
/// writes them).
pub fn demo_store(locale: DemoLocale) -> (StoreSettings, Vec<CatalogItem>) {
    let (settings, currency) = match locale {
        DemoLocale::EnUs => (
            StoreSettings {
                name: "PayDesk Demo Cafe".into(),
                address: "350 Fifth Avenue, New York, NY 10118".into(),
                phone: "+1 212 555 0100".into(),
                currency: Currency::Usd,
                locale: Locale::En,
                // US shelf prices exclude tax; NY rounds half a cent up.
                price_mode: PriceMode::Exclusive,
                registration_number: None,
                rounding: Rounding::HalfUp,
                receipt_header: "Welcome!".into(),
                receipt_footer: "Thank you for visiting.".into(),
                time_zone: "America/New_York".into(),
            },
            Currency::Usd,
        ),
        DemoLocale::JaJp => (
            StoreSettings {
                name: "PayDesk デモカフェ".into(),
                address: "東京都千代田区丸の内1-1-1".into(),
                phone: "03-5555-0100".into(),
                currency: Currency::Jpy,
                locale: Locale::Ja,
                price_mode: PriceMode::Inclusive,
                // A well-formed number (valid check digit) for the demo, not a real store's.
                registration_number: Some("T7000012050002".into()),
                rounding: Rounding::Down,
                receipt_header: "いらっしゃいませ".into(),
                receipt_footer: "またのご来店をお待ちしております".into(),
                time_zone: Locale::Ja.default_time_zone().into(),
            },
            Currency::Jpy,
        ),
    };
    let items = DEMO
        .iter()
        .map(|&(sku, code, en, ja, cents, yen, class, class_ny)| CatalogItem {
            sku: sku.into(),
            barcode: Some(barcode(code)),
            name_en: if locale == DemoLocale::JaJp && sku == "GFT-025" { "Gift card ¥3,000".into() } else { en.into() },
            name_ja: Some(ja.into()),
            price_minor: if currency == Currency::Jpy { yen } else { cents },
            currency,
            tax_class: if currency == Currency::Jpy { class } else { class_ny },
            active: true,
            price_kind: PriceKind::Fixed,
            unit: SaleUnit::Piece,
        })
        .chain(std::iter::once(demo_weighed(locale, currency)))
        .chain(DEMO_DEPARTMENTS.iter().map(|&(sku, class, in_japan, in_new_york)| {
            let [en, ja] = if currency == Currency::Jpy { in_japan } else { in_new_york };
            CatalogItem {
                sku: sku.into(),
                barcode: None,
                name_en: en.into(),
                name_ja: Some(ja.into()),
                price_minor: 0,
                currency,
                tax_class: class,
                active: true,
                price_kind: PriceKind::Department,
                unit: SaleUnit::Piece,
            }
        }))
        .collect();
    (settings, items)
}

/// The demo's weighed item of `locale` (see [`DEMO_WEIGHED_SKU`]).
fn demo_weighed(locale: DemoLocale, currency: Currency) -> CatalogItem {
    match locale {
        DemoLocale::EnUs => CatalogItem {
            sku: DEMO_WEIGHED_SKU.into(),
            barcode: None,
            name_en: "Bananas".into(),
            name_ja: Some("バナナ".into()),
            price_minor: 69,
            currency,
            // Grocery food, exempt in New York (the reduced class at 0 %).
            tax_class: TaxClass::Reduced,
            active: true,
            price_kind: PriceKind::Fixed,
            unit: SaleUnit::Kilogram,
        },
        DemoLocale::JaJp => CatalogItem {
            sku: DEMO_WEIGHED_SKU.into(),
            barcode: None,
            name_en: "Mixed nuts (loose)".into(),
            name_ja: Some("量り売りのナッツ".into()),
            price_minor: 398,
            currency,
            tax_class: TaxClass::Reduced,
            active: true,
            price_kind: PriceKind::Fixed,
            unit: SaleUnit::HundredGrams,
        },
    }
}

/// The demo store's tax rates: New York City's for en-US, Japan's for ja-JP.
pub fn demo_rates(locale: DemoLocale) -> RateTable {
    match locale {
        DemoLocale::EnUs => RateTable::new_york_city(),
        DemoLocale::JaJp => RateTable::japan(),
    }
}

/// The demo store's staff, one per role (name, role, PIN); the README lists them.
pub fn demo_staff(locale: DemoLocale) -> [(&'static str, Role, &'static str); 3] {
    match locale {
        DemoLocale::EnUs => [("Olivia", Role::Owner, "1111"), ("Marcus", Role::Manager, "2222"), ("Casey", Role::Cashier, "3333")],
        DemoLocale::JaJp => [("山田", Role::Owner, "1111"), ("佐藤", Role::Manager, "2222"), ("鈴木", Role::Cashier, "3333")],
    }
}

impl Catalog<&mut Ledger> {
    /// Adds the demo staff of `locale` in one audited transaction, only to a store that
    /// has no staff yet (a store with any member, even an inactive one, is left alone).
    /// Returns who was added.
    pub fn seed_demo_staff(&mut self, locale: DemoLocale, now_ms: i64) -> Result<Vec<Staff>> {
        // Hashing takes ~30 ms a PIN: done before the write lock is taken.
        let hashed: Vec<(&str, Role, String)> = demo_staff(locale)
            .into_iter()
            .map(|(name, role, pin)| Pin::parse(pin).map(|p| (name, role, hash_pin(&p))))
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| Error::InvalidInput(e.to_string()))?;
        let tx = self.write_tx()?;
        let any: bool = tx.row_cached("SELECT EXISTS (SELECT 1 FROM staff)", [], |r| r.get(0))?;
        if any {
            return Ok(Vec::new());
        }
        let mut added = Vec::with_capacity(hashed.len());
        let mut owner = None;
        for (name, role, hash) in &hashed {
            // The owner is added by nobody (the store's first member); the others by the owner.
            let s = add_staff_tx(&tx, name, *role, hash, None, owner, now_ms)?;
            owner = owner.or(Some(s.id));
            added.push(s);
        }
        tx.commit()?;
        Ok(added)
    }

    /// Writes the demo store of `locale` (its tax rates, settings, the 4 categories, the 14
    /// items and the weighed one in them, and the 2 department keys) in one audited
    /// transaction. Items with the same SKU are replaced; others are left alone.
    pub fn seed_demo_store(&mut self, locale: DemoLocale, actor_id: Option<i64>, now_ms: i64) -> Result<StoreSettings> {
        let (settings, items) = demo_store(locale);
        let tx = self.write_tx()?;
        // The rates first: the settings' write sends the tax setup up with the rates in force.
        write_rates_tx(&tx, &demo_rates(locale), actor_id, Some("the demo store".into()), now_ms)?;
        let settings = write_settings_tx(&tx, settings, actor_id, now_ms)?;
        for c in demo_categories() {
            save_category_tx(&tx, &c, actor_id, now_ms)?;
        }
        for item in &items {
            upsert_tx(&tx, item, Source::Local, actor_id, now_ms)?;
            set_item_category_tx(&tx, &item.sku, demo_category(&item.sku), actor_id, now_ms)?;
        }
        tx.commit()?;
        Ok(settings)
    }
}
