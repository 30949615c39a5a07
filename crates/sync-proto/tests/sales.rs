//! `sale_completed` and `sale_canceled` on the wire (record 0051): the ledger trigger's
//! JSON reads back and writes out exactly as serde's form, and every broken rule is
//! refused naming its field.
use paydesk_sync_proto::*;
use serde_json::{json, Value};

/// The fact the ledger writes for two teas with 10 % off (reduced) and a mug (standard),
/// prices including tax (`crates/ledger/tests/outbox_sales.rs`).
fn tea_and_mug() -> Value {
    json!({
        "kind": "sale_completed", "sale": 7, "receipt_no": "000007", "currency": "jpy",
        "dining": "take_out", "price_mode": "inclusive",
        "subtotal": 1938, "sale_discount": 0, "tax_total": 171, "total": 1938,
        "rates": [
            {"class": "standard", "ppm": 100000, "base": 1500, "tax": 150, "gross": 1650},
            {"class": "reduced", "ppm": 80000, "base": 267, "tax": 21, "gross": 288}
        ],
        "lines": [
            {"sku": "MUG-001", "name": "PayDeskマグカップ", "quantity": 1, "unit_price": 1650, "tax_class": "standard", "discount": 0, "total": 1650},
            {"sku": "TEA-001", "name": "緑茶", "quantity": 2, "unit_price": 160, "tax_class": "reduced", "discount": 32, "total": 288}
        ]
    })
}

fn untaxed() -> Value {
    json!({
        "kind": "sale_completed", "sale": 3, "receipt_no": "000003", "currency": "usd", "dining": "take_out",
        "price_mode": null, "subtotal": 1275, "sale_discount": 0, "tax_total": 0, "total": 1275, "rates": [],
        "lines": [
            {"sku": "BAG", "name": "Bagel", "quantity": 1, "unit_price": 225, "tax_class": "exempt", "discount": 0, "total": 225},
            {"sku": "COF", "name": "Coffee", "quantity": 3, "unit_price": 350, "tax_class": "exempt", "discount": 0, "total": 1050}
        ]
    })
}

/// A New York City sale made tax exempt (record 0135), as the ledger's view writes it: every
/// line in the exempt class at 0 %, the reason at the end.
fn exempt() -> Value {
    json!({
        "kind": "sale_completed", "sale": 4, "receipt_no": "000004", "currency": "usd", "dining": "take_out",
        "price_mode": "exclusive", "subtotal": 945, "sale_discount": 0, "tax_total": 0, "total": 945,
        "rates": [{"class": "exempt", "ppm": 0, "base": 945, "tax": 0, "gross": 945}],
        "lines": [
            {"sku": "COF-001", "name": "Coffee, regular", "quantity": 1, "unit_price": 250, "tax_class": "standard", "discount": 0, "total": 250},
            {"sku": "SAN-001", "name": "Egg sandwich", "quantity": 1, "unit_price": 695, "tax_class": "standard", "discount": 0, "total": 695}
        ],
        "tax_exempt_reason": "Resale certificate ST-120 #4471"
    })
}

#[test]
fn an_exempt_sale_carries_its_reason_and_no_tax() {
    let b = parse(exempt()).unwrap();
    assert_eq!(serde_json::to_value(&b.rows[0].fact).unwrap(), exempt());
    let Fact::SaleCompleted(s) = &b.rows[0].fact else { panic!("not a sale") };
    assert_eq!(s.tax_exempt_reason.as_deref(), Some("Resale certificate ST-120 #4471"));
    // A taxed sale does not say the word at all.
    assert!(!serde_json::to_string(&parse(tea_and_mug()).unwrap().rows[0].fact).unwrap().contains("tax_exempt_reason"));
    let broken: [(&str, Value, &str); 4] = [
        ("short", json!("ab"), "tax_exempt_reason"),
        ("long", json!("x".repeat(201)), "tax_exempt_reason"),
        ("control", json!("ok\u{1b}[0m"), "tax_exempt_reason"),
        ("taxed", json!("Diplomat card"), "tax_total"),
    ];
    for (what, reason, field) in broken {
        let mut f = if what == "taxed" { tea_and_mug() } else { exempt() };
        f["tax_exempt_reason"] = reason;
        let e = parse(f).unwrap_err();
        assert!(e.contains(field), "{what}: {e}");
    }
}

fn parse(fact: Value) -> Result<Batch, String> {
    let v = json!({"v": 1, "register_id": "r1", "first_seq": 9, "rows": [{"at_ms": 1, "fact": fact}],
                   "health": {"app_version": "0.1.0", "queued": 0, "offline_waiting": 0}});
    let b: Batch = serde_json::from_value(v).map_err(|e| e.to_string())?;
    b.validate().map_err(|e| format!("{}: {e}", e.code()))?;
    Ok(b)
}

#[test]
fn the_ledgers_sale_reads_back_and_writes_out_in_the_same_form() {
    for want in [tea_and_mug(), untaxed(), json!({"kind": "sale_canceled", "sale": 7})] {
        let b = parse(want.clone()).unwrap();
        assert_eq!(serde_json::to_value(&b.rows[0].fact).unwrap(), want);
    }
    let Fact::SaleCompleted(s) = parse(tea_and_mug()).unwrap().rows.remove(0).fact else { panic!("not a sale") };
    assert_eq!((s.price_mode, s.dining, s.lines[1].tax_class), (Some(PriceMode::Inclusive), Dining::TakeOut, TaxClass::Reduced));
    assert_eq!(Fact::SaleCompleted(s).kind(), "sale_completed");
}

#[test]
fn an_exclusive_sale_adds_its_tax() {
    let mut f = tea_and_mug();
    f["price_mode"] = json!("exclusive");
    f["rates"] = json!([
        {"class": "standard", "ppm": 100000, "base": 1650, "tax": 165, "gross": 1815},
        {"class": "reduced", "ppm": 80000, "base": 288, "tax": 23, "gross": 311}
    ]);
    (f["tax_total"], f["total"]) = (json!(188), json!(2126));
    parse(f.clone()).unwrap();
    f["total"] = json!(1938);
    assert!(parse(f).unwrap_err().contains("must be the sum of the rates' gross 2126"));
}

#[test]
fn each_broken_rule_is_named() {
    type Edit = fn(&mut Value);
    let cases: Vec<(Edit, &str)> = vec![
        (|f| f["sale"] = json!(0), "rows[0] (seq 9).sale must be between 1"),
        (|f| f["receipt_no"] = json!("A7"), "receipt_no must be 1 to 20 digits"),
        (|f| f["receipt_no"] = json!(""), "receipt_no must be 1 to 20 digits"),
        (|f| f["currency"] = json!("JPY"), "currency must be three lower-case"),
        (|f| f["dining"] = json!("drive_through"), "unknown variant `drive_through`"),
        (|f| f["lines"] = json!([]), "lines must hold 1 to 1000 lines, got 0"),
        (|f| f["lines"][0]["quantity"] = json!(0), "lines[0].quantity must be between 1 and 9999"),
        (|f| f["lines"][0]["quantity"] = json!(10_000), "lines[0].quantity must be between 1 and 9999"),
        (|f| f["lines"][0]["unit_price"] = json!(-1), "lines[0].unit_price must be between 0"),
        (|f| f["lines"][0]["unit_price"] = json!(1.5), "invalid type: floating point"),
        (|f| f["lines"][1]["discount"] = json!(321), "lines[1].discount must be between 0 and the line's 320"),
        (|f| f["lines"][1]["total"] = json!(289), "lines[1].total must be 320 less the discount 32, got 289"),
        (|f| f["lines"][1]["name"] = json!(""), "lines[1].name must be 1 to 120 characters, got 0"),
        (|f| f["lines"][1]["name"] = json!("x".repeat(121)), "lines[1].name must be 1 to 120 characters, got 121"),
        (|f| f["lines"][1]["name"] = json!("tea\u{1b}[0m"), "lines[1].name has a control character"),
        (|f| f["lines"][1]["sku"] = json!("S".repeat(65)), "lines[1].sku must be 1 to 64 characters"),
        (|f| f["lines"][1]["tax_class"] = json!("luxury"), "unknown variant `luxury`"),
        (|f| f["lines"][1]["colour"] = json!("red"), "unknown field `colour`"),
        (|f| f["subtotal"] = json!(1937), "subtotal must be the sum of the lines' totals 1938"),
        (|f| f["total"] = json!(0), "total must be between 1"),
        (|f| f["rates"][0]["gross"] = json!(1651), "rates[0].gross must be base 1500 plus tax 150"),
        (|f| f["rates"][1]["class"] = json!("standard"), "rates[1].class is listed twice"),
        (|f| f["rates"][1]["ppm"] = json!(1_000_001), "rates[1].ppm must be between 0 and 1000000"),
        (|f| f["rates"] = json!([]), "rates is empty for a taxed sale"),
        (|f| f["tax_total"] = json!(170), "tax_total must be the sum of the rates' tax 171"),
        (|f| f["sale_discount"] = json!(1939), "sale_discount is larger than the subtotal"),
        (|f| f["sale_discount"] = json!(100), "total must be subtotal less sale discount = 1838"),
        (|f| f["price_mode"] = json!(null), "lines[0] is taxed or discounted, so the sale needs its price_mode"),
        (|f| f["lines"] = json!(vec![f["lines"][0].clone(); 1001]), "lines must hold 1 to 1000 lines, got 1001"),
    ];
    for (edit, want) in cases {
        let mut f = tea_and_mug();
        edit(&mut f);
        let err = parse(f.clone()).unwrap_err();
        assert!(err.contains(want), "{err} (wanted {want})");
    }
    let mut f = untaxed();
    f["tax_total"] = json!(1);
    assert!(parse(f).unwrap_err().contains("price_mode is null, so the sale has no rates, discount or tax"));
    assert!(parse(json!({"kind": "sale_canceled", "sale": -3})).unwrap_err().contains("sale must be between 1"));
}
