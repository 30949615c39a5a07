//! The register's own items, staff and tax setup on the wire (record 0052): the ledger
//! trigger's JSON reads back and writes out exactly as serde's form; a broken rule is
//! named with its row; no field for a PIN or its hash is accepted.
use paydesk_sync_proto::*;
use serde_json::{json, Value};

fn parse(fact: Value) -> Result<Batch, String> {
    let v = json!({"v": 1, "register_id": "r1", "first_seq": 4, "rows": [{"at_ms": 1, "fact": fact}],
                   "health": {"app_version": "0.1.0", "queued": 0, "offline_waiting": 0}});
    let b: Batch = serde_json::from_value(v).map_err(|e| e.to_string())?;
    b.validate().map_err(|e| format!("{}: {e}", e.code()))?;
    Ok(b)
}

fn item() -> Value {
    json!({"kind": "item_saved", "sku": "TEA-900", "barcode": "4901234567894", "name_en": "Barley tea", "name_ja": "麦茶",
           "price": 150, "currency": "jpy", "tax_class": "reduced", "active": true})
}

fn tax() -> Value {
    json!({"kind": "tax_setup_changed", "price_mode": "exclusive", "rounding": "half_up", "registration_number": null, "rates": [
        {"class": "standard", "name": "", "ppm": 100000, "effective_from": "2019-10-01"},
        {"class": "reduced", "name": "", "ppm": 80000, "effective_from": "2019-10-01"},
        {"class": "exempt", "name": "", "ppm": 0, "effective_from": null}]})
}

#[test]
fn the_ledgers_facts_read_back_in_the_same_form() {
    let staff = json!({"kind": "staff_saved", "staff": 3, "name": "Mika", "role": "manager", "active": false});
    for want in [item(), tax(), staff] {
        let b = parse(want.clone()).unwrap();
        assert_eq!(serde_json::to_value(&b.rows[0].fact).unwrap(), want);
    }
}

#[test]
fn each_broken_rule_is_named_with_its_row() {
    let cases: Vec<(Value, &str)> = vec![
        ({ let mut f = item(); f["barcode"] = json!("4901234567890"); f }, "rows[0] (seq 4).item \"TEA-900\": barcode"),
        ({ let mut f = item(); f["name_en"] = json!(""); f }, "name_en is empty"),
        ({ let mut f = item(); f["price"] = json!(-1); f }, "price must be between 0"),
        ({ let mut f = item(); f["currency"] = json!("JPY"); f }, "currency must be three lower-case"),
        ({ let mut f = tax(); f["registration_number"] = json!("T123"); f }, "rows[0] (seq 4).registration_number"),
        ({ let mut f = tax(); f["rates"] = json!([]); f }, "rows[0] (seq 4).rates has no row for the standard class"),
        (json!({"kind": "staff_saved", "staff": 0, "name": "Mika", "role": "manager", "active": true}), "rows[0] (seq 4).staff must be between 1"),
        (json!({"kind": "staff_saved", "staff": 1, "name": " Mika", "role": "manager", "active": true}), "rows[0] (seq 4).name has a control character or a space"),
        (json!({"kind": "staff_saved", "staff": 1, "name": "Mika", "role": "boss", "active": true}), "unknown variant `boss`"),
        (json!({"kind": "staff_saved", "staff": 1, "name": "Mika", "role": "manager", "active": true, "pin_hash": "$argon2id$x"}), "unknown field `pin_hash`"),
    ];
    for (fact, want) in cases {
        let err = parse(fact.clone()).unwrap_err();
        assert!(err.contains(want), "{fact}: {err} (wanted {want})");
    }
}
