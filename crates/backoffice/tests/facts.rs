//! Journal rows for the rule tests: a fact at a fixed time, a batch of them, and the cash
//! sale of two untaxed lines most return and exchange tests start from.
use paydesk_backoffice::client::RegisterClient;
use paydesk_sync_proto::{Batch, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::{json, Value};

/// The time every row is stamped with.
pub const T: i64 = 1_700_000_000_000;

/// A row of `fact` (its JSON) at [`T`].
pub fn row(fact: Value) -> Row {
    Row { at_ms: T, fact: serde_json::from_value(fact).unwrap() }
}

/// A batch of `rows` from `reg` starting at seq `first`, its health empty.
pub fn batch(reg: &RegisterClient, first: u64, rows: Vec<Row>) -> Batch {
    Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None } }
}

/// Sale `id`: "A" ×2 at 300 and "B" ×1 at 400, untaxed, 1,000 in cash.
pub fn two_line_cash_sale(id: i64) -> Vec<Row> {
    vec![
        row(json!({"kind": "tender_added", "sale": id, "tender_seq": 1, "method": "cash", "amount": 1000, "currency": "jpy",
                   "checkout_key": null, "cash_tendered": 1000, "change": 0, "rounding": 0, "shift": null})),
        row(json!({
            "kind": "sale_completed", "sale": id, "receipt_no": format!("{id:06}"), "currency": "jpy", "dining": "take_out",
            "price_mode": null, "subtotal": 1000, "sale_discount": 0, "tax_total": 0, "total": 1000, "rates": [],
            "lines": [
                {"sku": "A", "name": "A", "quantity": 2, "unit_price": 300, "tax_class": "exempt", "discount": 0, "total": 600},
                {"sku": "B", "name": "B", "quantity": 1, "unit_price": 400, "tax_class": "exempt", "discount": 0, "total": 400}
            ]
        })),
    ]
}
