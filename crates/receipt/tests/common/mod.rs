//! Sales the receipt tests share: a Japanese convenience-store sale and an English one.
#![allow(dead_code)]

use paydesk_domain::{Currency, TenderKind};
use paydesk_domain::Locale;
use paydesk_receipt::*;
use paydesk_tax::{Dining, Discount, PriceMode, RateTable, RegistrationNumber, Rounding, TaxClass, TaxSettings};

pub fn ja_store() -> StoreInfo {
    StoreInfo {
        name: "ペイデスク商店 渋谷店".into(),
        address: "東京都渋谷区神南1-2-3".into(),
        phone: "03-1234-5678".into(),
        // The National Tax Agency's own corporate number: a real, valid check digit.
        registration_number: Some(RegistrationNumber::parse("T7000012050002").unwrap()),
    }
}

pub fn at() -> LocalDateTime {
    LocalDateTime { year: 2026, month: 12, day: 1, hour: 21, minute: 5 }
}

/// Two rice balls and a tea (reduced, take-out), a magazine (standard), paid ¥1,000 cash.
pub fn ja_sale() -> SaleData {
    SaleData {
        store: ja_store(),
        language: Locale::Ja,
        currency: Currency::Jpy,
        receipt_no: "0042".into(),
        issued_at: at(),
        lines: vec![
            LineInput { name: "おにぎり 鮭".into(), unit_price: 140, quantity: 2, class: TaxClass::Reduced, discount: None, weight: None },
            LineInput { name: "緑茶 500ml".into(), unit_price: 160, quantity: 1, class: TaxClass::Reduced, discount: None, weight: None },
            LineInput { name: "週刊誌".into(), unit_price: 550, quantity: 1, class: TaxClass::Standard, discount: None, weight: None },
        ],
        dining: Dining::TakeOut,
        sale_discount: None,
        tenders: vec![Tender { kind: TenderKind::Cash, amount: 1000, card: None, store: None }],
        header: vec!["いらっしゃいませ".into()],
        footer: vec!["またお越しください".into()],
        cashier: None,
        register_no: None,
        tax_exempt_reason: None,
    }
}

pub fn en_sale() -> SaleData {
    SaleData {
        store: StoreInfo { name: "PayDesk Café".into(), address: "1 Main St, Springfield".into(), phone: "555-0100".into(), registration_number: None },
        language: Locale::En,
        currency: Currency::Usd,
        receipt_no: "A-7".into(),
        issued_at: at(),
        lines: vec![
            LineInput { name: "Coffee beans 1 lb".into(), unit_price: 1450, quantity: 1, class: TaxClass::Reduced, discount: None, weight: None },
            LineInput {
                name: "Mug".into(),
                unit_price: 900,
                quantity: 2,
                class: TaxClass::Standard,
                discount: Some(Discount::Percent { basis_points: 1000 }),
                weight: None,
            },
        ],
        dining: Dining::TakeOut,
        sale_discount: None,
        tenders: vec![Tender { kind: TenderKind::Card, amount: 3000, card: None, store: None }, Tender { kind: TenderKind::Cash, amount: 2000, card: None, store: None }],
        header: vec![],
        footer: vec!["Thank you!".into()],
        cashier: None,
        register_no: None,
        tax_exempt_reason: None,
    }
}

pub fn inclusive() -> TaxSettings {
    TaxSettings::japan_default()
}

pub fn exclusive() -> TaxSettings {
    TaxSettings { rates: RateTable::japan(), rounding: Rounding::Down, price_mode: PriceMode::Exclusive }
}
