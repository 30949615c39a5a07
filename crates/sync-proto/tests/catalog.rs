//! The catalog and tax documents the back office publishes (record 0049): what is
//! refused and why, and how a list of changes must be ordered.
use paydesk_sync_proto::*;
use serde_json::json;

fn item() -> Item {
    Item {
        sku: "TEA-500".into(),
        barcode: Some("4901234567894".into()),
        name_en: "Green tea 500 ml".into(),
        name_ja: Some("緑茶 500ml".into()),
        price: 150,
        currency: "jpy".into(),
        tax_class: TaxClass::Reduced,
        active: true,
        price_kind: PriceKind::Fixed,
        unit: SaleUnit::Piece,
        category: None,
    }
}

fn tax() -> StoreTax {
    serde_json::from_value(json!({
        "price_mode": "inclusive", "rounding": "down", "registration_number": "T7000012050002",
        "rates": [
            {"class": "standard", "ppm": 100000, "effective_from": "2019-10-01"},
            {"class": "reduced", "ppm": 80000, "effective_from": "2019-10-01"},
            {"class": "exempt", "ppm": 0}
        ]
    }))
    .unwrap()
}

fn refusal(r: Result<(), ProtoError>) -> String {
    r.expect_err("refused").to_string()
}

#[test]
fn an_item_reads_from_json_and_each_bad_field_is_named() {
    let parsed: Item = serde_json::from_value(json!({
        "sku": "TEA-500", "barcode": "4901234567894", "name_en": "Green tea 500 ml", "name_ja": "緑茶 500ml",
        "price": 150, "currency": "jpy", "tax_class": "reduced", "active": true
    }))
    .unwrap();
    assert_eq!(parsed, item());
    parsed.validate().unwrap();
    let unknown = serde_json::from_value::<Item>(json!({"sku": "A", "name_en": "a", "price": 1, "currency": "jpy", "tax_class": "reduced", "active": true, "colour": "red"}));
    assert!(unknown.unwrap_err().to_string().contains("colour"));

    let bad = |f: &dyn Fn(&mut Item)| {
        let mut i = item();
        f(&mut i);
        refusal(i.validate())
    };
    assert!(bad(&|i| i.sku = String::new()).contains("sku is empty"));
    assert!(bad(&|i| i.sku = "x".repeat(65)).contains("at most 64"));
    assert!(bad(&|i| i.sku = " TEA".into()).contains("starts or ends with a space"));
    assert!(bad(&|i| i.barcode = Some("4901234567890".into())).contains("check digit"), "{}", bad(&|i| i.barcode = Some("4901234567890".into())));
    assert!(bad(&|i| i.name_en = "a\u{7}b".into()).contains("control character"));
    assert!(bad(&|i| i.name_ja = Some("名".repeat(121))).contains("name_ja"));
    assert!(bad(&|i| i.price = -1).contains("price"));
    assert!(bad(&|i| i.price = catalog::MAX_PRICE + 1).contains("price"));
    assert!(bad(&|i| i.currency = "JPY".into()).contains("currency"));
}

#[test]
fn a_tax_setup_needs_a_valid_number_real_dates_and_a_rate_for_every_class() {
    tax().validate().unwrap();
    let table = tax().rate_table().unwrap();
    assert_eq!(table, paydesk_tax::RateTable::japan());

    let bad = |f: &dyn Fn(&mut StoreTax)| {
        let mut t = tax();
        f(&mut t);
        refusal(t.validate())
    };
    assert!(bad(&|t| t.registration_number = Some("T1000012050002".into())).contains("registration_number"));
    assert!(bad(&|t| t.rates[0].effective_from = Some("2019-02-30".into())).contains("YYYY-MM-DD"));
    assert!(bad(&|t| t.rates[0].effective_from = Some("2019-1-01".into())).contains("YYYY-MM-DD"));
    assert!(bad(&|t| t.rates[0].effective_from = Some("20é9-10-01".into())).contains("YYYY-MM-DD"));
    assert!(bad(&|t| t.rates[2].ppm = 100).contains("exempt"));
    assert!(bad(&|t| t.rates[0].ppm = 1_000_001).contains("over 100"));
    assert!(bad(&|t| {
        t.rates.remove(1);
    })
    .contains("no row for the reduced class"));
    assert!(bad(&|t| {
        let twin = t.rates[0].clone();
        t.rates.push(twin);
    })
    .contains("same day"));
    assert!(bad(&|t| t.rates = (0..65).map(|i| TaxRate { class: TaxClass::Standard, name: String::new(), ppm: 100_000, effective_from: Some(format!("{}-01-01", 1950 + i)) }).collect()).contains("at most 64"));
    // A leap day is a day.
    catalog::parse_day("f", "2024-02-29").unwrap();
    assert!(catalog::parse_day("f", "2023-02-29").is_err());
}

#[test]
fn kinds_parse_and_an_unknown_one_is_named() {
    assert_eq!(ChangeKind::parse_list("settings,item,tax,staff").unwrap(), ChangeKind::ALL.to_vec());
    assert_eq!(ChangeKind::parse_list("item,item").unwrap(), vec![ChangeKind::Item]);
    assert_eq!(ChangeKind::parse_list(&ChangeKind::all_list()).unwrap(), ChangeKind::ALL.to_vec());
    assert!(ChangeKind::parse_list("settings,shifts").unwrap_err().to_string().contains("\"shifts\""));
}

#[test]
fn changes_must_come_in_version_order_within_the_answer() {
    let ok = Changes {
        v: 1,
        since: 2,
        version: 9,
        changes: vec![Change::Tax { version: 3, tax: tax() }, Change::Item { version: 5, item: item() }],
        more: false,
    };
    ok.validate().unwrap();
    let json = serde_json::to_value(&ok).unwrap();
    assert_eq!(json["changes"][1]["kind"], "item");
    assert_eq!(serde_json::from_value::<Changes>(json).unwrap(), ok);

    let mut twice = ok.clone();
    twice.changes.push(Change::Item { version: 5, item: item() });
    assert!(refusal(twice.validate()).contains("out of order"));
    let mut beyond = ok.clone();
    beyond.version = 4;
    assert!(refusal(beyond.validate()).contains("out of order"));
    let mut bad_item = ok.clone();
    bad_item.changes[1] = Change::Item { version: 5, item: Item { price: -5, ..item() } };
    assert!(refusal(bad_item.validate()).contains("price"));
    // An answer from a back office older than `more` reads as the last page.
    let old: Changes = serde_json::from_value(json!({"v": 1, "since": 0, "version": 0, "changes": []})).unwrap();
    assert!(!old.more);
}

/// Record 0131: rates in parts per million with names; a document stored or a fact queued
/// before says basis points and reads exactly (× 100); both at once is refused.
#[test]
fn named_rates_in_ppm_and_the_older_basis_points_read_alike() {
    let nyc = json!({"price_mode": "exclusive", "rounding": "half_up", "rates": [
        {"class": "standard", "name": "NY State", "ppm": 40000, "effective_from": "2009-08-01"},
        {"class": "standard", "name": "New York City", "ppm": 45000, "effective_from": "2009-08-01"},
        {"class": "standard", "name": "MCTD", "ppm": 3750, "effective_from": "2009-08-01"},
        {"class": "reduced", "ppm": 0}, {"class": "exempt", "ppm": 0}]});
    let t: StoreTax = serde_json::from_value(nyc).unwrap();
    t.validate().unwrap();
    let table = t.rate_table().unwrap();
    let day = paydesk_tax::YearMonthDay { year: 2026, month: 12, day: 4 };
    assert_eq!(table.rate(TaxClass::Standard, day).unwrap().ppm, 88_750);
    // Written back with names and ppm.
    assert_eq!(serde_json::to_value(&t).unwrap()["rates"][1], json!({"class": "standard", "name": "New York City", "ppm": 45000, "effective_from": "2009-08-01"}));
    let old: TaxRate = serde_json::from_value(json!({"class": "reduced", "basis_points": 800, "effective_from": "2019-10-01"})).unwrap();
    assert_eq!((old.ppm, old.name.as_str()), (80_000, ""));
    let old: SaleRate = serde_json::from_value(json!({"class": "standard", "basis_points": 1000, "base": 1000, "tax": 100, "gross": 1100})).unwrap();
    assert_eq!(old.ppm, 100_000);
    assert!(serde_json::from_value::<TaxRate>(json!({"class": "reduced", "basis_points": 800, "ppm": 80000})).is_err());
    assert!(serde_json::from_value::<TaxRate>(json!({"class": "reduced"})).is_err());
    assert!(serde_json::from_value::<TaxRate>(json!({"class": "reduced", "ppm": 1, "rate": 2})).is_err(), "unknown fields are still refused");
}
