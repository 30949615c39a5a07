//! Completed sales at the back office (record 0051): applied once per sale; a second
//! completion of the same sale, or a cancel of a sale never completed, refuses the whole
//! batch with 422 naming the seq, and changes nothing.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::{Batch, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::json;
use support::*;

/// Times are offsets from a moment in 2023 (the back office refuses times before 2020).
fn row(at_ms: i64, fact: serde_json::Value) -> Row {
    Row { at_ms: 1_700_000_000_000 + at_ms, fact: serde_json::from_value(fact).unwrap() }
}

fn sale(id: i64) -> serde_json::Value {
    json!({
        "kind": "sale_completed", "sale": id, "receipt_no": format!("{id:06}"), "currency": "jpy", "dining": "take_out",
        "price_mode": "inclusive", "subtotal": 1938, "sale_discount": 0, "tax_total": 171, "total": 1938,
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

fn batch(reg: &RegisterClient, first: u64, rows: Vec<Row>) -> Batch {
    Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None } }
}

fn refused(e: ClientError) -> (u16, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.body["error"]["message"].as_str().unwrap_or("").to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

async fn counts(h: &Harness) -> (i64, i64, i64, i64, i64) {
    (
        h.count("SELECT count(*) FROM journal").await,
        h.count("SELECT count(*) FROM sales").await,
        h.count("SELECT count(*) FROM sale_lines").await,
        h.count("SELECT count(*) FROM sale_rates").await,
        h.count("SELECT count(*) FROM sales WHERE canceled_at_ms IS NOT NULL").await,
    )
}

#[tokio::test]
async fn a_sale_is_recorded_once_and_a_second_completion_is_refused_naming_its_seq() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let (_other_store, other) = h.store_with_register("Other St").await;
    reg.send(&batch(&reg, 1, vec![row(10, sale(7))]), "b1").await.unwrap();
    assert_eq!(counts(&h).await, (1, 1, 2, 2, 0));
    // a resend of the same seq is recognised, not applied again
    reg.send(&batch(&reg, 1, vec![row(10, sale(7))]), "b1-again").await.unwrap();
    assert_eq!(counts(&h).await, (1, 1, 2, 2, 0));
    // another register's sale 7 is its own
    other.send(&batch(&other, 1, vec![row(10, sale(7))]), "o1").await.unwrap();
    let before = counts(&h).await;
    assert_eq!(before, (2, 2, 4, 4, 0));

    let cases = [
        (vec![row(11, sale(8)), row(12, sale(7))], "seq 3: sale 7 was already recorded under another seq"),
        (vec![row(11, sale(8)), row(12, json!({"kind": "sale_canceled", "sale": 9}))], "seq 3: cancels sale 9, which this register never completed"),
    ];
    for (i, (rows, want)) in cases.into_iter().enumerate() {
        let (status, message) = refused(reg.send(&batch(&reg, 2, rows), &format!("bad-{i}")).await.unwrap_err());
        assert_eq!(status, 422, "{message}");
        assert!(message.contains(want), "{message} (wanted {want})");
        assert_eq!(counts(&h).await, before, "{want}: nothing changed");
    }
    // a cancel after its sale, in one batch; a second cancel is refused
    reg.send(&batch(&reg, 2, vec![row(11, sale(8)), row(12, json!({"kind": "sale_canceled", "sale": 8}))]), "good").await.unwrap();
    assert_eq!(counts(&h).await, (4, 3, 6, 6, 1));
    let (status, message) = refused(reg.send(&batch(&reg, 4, vec![row(13, json!({"kind": "sale_canceled", "sale": 8}))]), "again").await.unwrap_err());
    assert!(status == 422 && message.contains("already canceled"), "{status} {message}");
    let lines: Vec<(i64, i32, String, i32, i64)> = h
        .db()
        .await
        .query("SELECT sale_id, line_no, name, quantity, total FROM sale_lines WHERE register_id = $1::text::uuid ORDER BY 1, 2", &[&reg.paired.register_id])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    assert_eq!(lines[..2], [(7, 1, "PayDeskマグカップ".to_string(), 1, 1650), (7, 2, "緑茶".to_string(), 2, 288)]);
}

/// A tax-exempt sale (record 0135) is accepted with its reason, at its one 0 % rate; the
/// journal keeps the fact as sent, reason included.
#[tokio::test]
async fn an_exempt_sale_with_its_reason_is_accepted() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Fifth Ave").await;
    let exempt = json!({
        "kind": "sale_completed", "sale": 4, "receipt_no": "000004", "currency": "usd", "dining": "take_out",
        "price_mode": "exclusive", "subtotal": 945, "sale_discount": 0, "tax_total": 0, "total": 945,
        "rates": [{"class": "exempt", "ppm": 0, "base": 945, "tax": 0, "gross": 945}],
        "lines": [
            {"sku": "COF-001", "name": "Coffee, regular", "quantity": 1, "unit_price": 250, "tax_class": "standard", "discount": 0, "total": 250},
            {"sku": "SAN-001", "name": "Egg sandwich", "quantity": 1, "unit_price": 695, "tax_class": "standard", "discount": 0, "total": 695}
        ],
        "tax_exempt_reason": "Resale certificate ST-120 #4471"
    });
    reg.send(&batch(&reg, 1, vec![row(10, exempt)]), "exempt").await.unwrap();
    assert_eq!(counts(&h).await, (1, 1, 2, 1, 0));
    assert_eq!(h.count("SELECT count(*) FROM journal WHERE fact::text LIKE '%Resale certificate ST-120%'").await, 1);
}
