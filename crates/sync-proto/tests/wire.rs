//! The wire format as the other side sees it: JSON in, typed and validated out.
use paydesk_sync_proto::limits::{MAX_AMOUNT, MAX_ROWS_PER_BATCH};
use paydesk_sync_proto::*;
use proptest::prelude::*;
use serde_json::json;

fn row(fact: serde_json::Value) -> serde_json::Value {
    json!({"at_ms": 1_700_000_000_000i64, "fact": fact})
}

fn batch(rows: Vec<serde_json::Value>) -> serde_json::Value {
    json!({"v": 1, "register_id": "r1", "first_seq": 1, "rows": rows,
           "health": {"app_version": "0.1.0", "queued": 1, "offline_waiting": 0}})
}

fn created(key: &str, amount: i64) -> serde_json::Value {
    row(json!({"kind": "payment_created", "checkout_key": key, "amount": amount, "currency": "usd"}))
}

fn parse(v: serde_json::Value) -> Result<Batch, String> {
    let b: Batch = serde_json::from_value(v).map_err(|e| e.to_string())?;
    b.validate().map_err(|e| format!("{}: {e}", e.code()))?;
    Ok(b)
}

#[test]
fn a_well_formed_batch_reads_back_with_its_seqs() {
    let b = parse(batch(vec![
        created("k1", 1200),
        row(json!({"kind": "payment_state", "checkout_key": "k1", "state": "captured", "psp_id": "pi_1"})),
        row(json!({"kind": "refund_created", "refund_key": "rk1", "checkout_key": "k1", "amount": 200})),
        row(json!({"kind": "refund_state", "refund_key": "rk1", "state": "succeeded", "psp_refund_id": null})),
    ]))
    .unwrap();
    assert_eq!(b.last_seq(), 4);
    assert_eq!(b.rows[1].fact, Fact::PaymentState { checkout_key: "k1".into(), state: PaymentState::Captured, psp_id: Some("pi_1".into()) });
    assert_eq!(b.rows[3].fact.kind(), "refund_state");
}

#[test]
fn each_broken_rule_is_named() {
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (batch(vec![]), "empty_batch"),
        (batch(vec![created("k", 0)]), "rows[0] (seq 1).amount must be between"),
        (batch(vec![created("k", MAX_AMOUNT + 1)]), "amount must be between"),
        (batch(vec![created("k y", 5)]), "checkout_key has a space"),
        (batch(vec![created(&"k".repeat(256), 5)]), "checkout_key is 256 bytes long"),
        (batch(vec![row(json!({"kind": "payment_created", "checkout_key": "k", "amount": 5, "currency": "USD"}))]), "currency must be three lower-case"),
        (batch(vec![row(json!({"kind": "tender_added", "checkout_key": "k"}))]), "unknown variant `tender_added`"),
        (batch(vec![row(json!({"kind": "payment_state", "checkout_key": "k", "state": "paid", "psp_id": null}))]), "unknown variant `paid`"),
        (batch(vec![row(json!({"kind": "payment_created", "checkout_key": "k", "amount": 5, "currency": "usd", "extra": 1}))]), "unknown field `extra`"),
        (batch(vec![row(json!({"kind": "payment_created", "checkout_key": "k", "amount": 1.5, "currency": "usd"}))]), "invalid type: floating point"),
    ];
    for (input, want) in cases {
        let err = parse(input.clone()).unwrap_err();
        assert!(err.contains(want), "{input}: {err} (wanted {want})");
    }
    let mut v = batch(vec![created("k", 5)]);
    v["v"] = json!(2);
    assert!(parse(v).unwrap_err().starts_with("unsupported_version"));
    let mut v = batch(vec![created("k", 5)]);
    v["first_seq"] = json!(0);
    assert!(parse(v).unwrap_err().starts_with("bad_seq"));
    let many = (0..=MAX_ROWS_PER_BATCH).map(|i| created(&format!("k{i}"), 5)).collect();
    assert!(parse(batch(many)).unwrap_err().starts_with("too_many_rows"));
}

#[test]
fn settings_are_checked_before_they_are_published() {
    let mut s = StoreSettings { store_name: "Main St".into(), currency: "usd".into(), receipt_footer: "Thanks".into(), offline_max_payment: 5000, offline_max_total: 20000 };
    s.validate().unwrap();
    s.offline_max_payment = 30000;
    assert!(s.validate().unwrap_err().to_string().contains("larger than offline_max_total"));
    let c = Changes { v: 1, since: 0, version: 3, changes: vec![Change::Settings { version: 3, settings: s.clone() }] };
    let back: Changes = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
}

proptest! {
    #[test]
    fn any_valid_batch_survives_the_wire(first in 1u64..1_000_000, amounts in proptest::collection::vec(1i64..=MAX_AMOUNT, 1..50)) {
        let rows: Vec<Row> = amounts.iter().enumerate().map(|(i, a)| Row { at_ms: i as i64, fact: Fact::PaymentCreated { checkout_key: format!("key-{i}"), amount: *a, currency: "jpy".into() } }).collect();
        let b = Batch { v: PROTOCOL_VERSION, register_id: "reg".into(), first_seq: first, rows, health: RegisterHealth::default() };
        b.validate().unwrap();
        let back: Batch = serde_json::from_slice(&serde_json::to_vec(&b).unwrap()).unwrap();
        prop_assert_eq!(back.last_seq(), first + amounts.len() as u64 - 1);
        prop_assert_eq!(back, b);
    }
}
