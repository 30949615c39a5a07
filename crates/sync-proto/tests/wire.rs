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

fn tender(method: &str, amount: i64, key: serde_json::Value, given: serde_json::Value, change: serde_json::Value, rounding: serde_json::Value) -> serde_json::Value {
    json!({"kind": "tender_added", "sale": 7, "tender_seq": 1, "method": method, "amount": amount, "currency": "jpy", "checkout_key": key,
           "cash_tendered": given, "change": change, "rounding": rounding, "shift": 3})
}

#[test]
fn tenders_and_shifts_read_back() {
    let rows = vec![
        row(json!({"kind": "shift_opened", "shift": 3, "currency": "jpy", "float": 0})),
        row(tender("cash", 1650, json!(null), json!(2000), json!(350), json!(0))),
        row(tender("card", 500, json!("k"), json!(null), json!(null), json!(null))),
        row(json!({"kind": "tender_superseded", "sale": 7, "tender_seq": 1})),
        row(json!({"kind": "paid_in_out", "entry": 1, "shift": 3, "direction": "paid_in", "amount": 1000, "currency": "jpy", "reason": "change top-up"})),
        row(json!({"kind": "shift_closed", "shift": 3, "z_number": 1, "counted": 900, "expected": 1000, "over_short": -100})),
    ];
    let b: Batch = serde_json::from_value(batch(rows.clone())).unwrap();
    b.validate().unwrap();
    let kinds: Vec<&str> = b.rows.iter().map(|r| r.fact.kind()).collect();
    assert_eq!(kinds, ["shift_opened", "tender_added", "tender_added", "tender_superseded", "paid_in_out", "shift_closed"]);
    // the JSON the ledger's triggers write is exactly serde's form, so the back office's
    // stored copy compares equal on a resend
    for (r, want) in b.rows.iter().zip(&rows) {
        assert_eq!(&serde_json::to_value(&r.fact).unwrap(), &want["fact"]);
    }
}

/// A tender names the member who took it (record 0143); an older register's has no staff and
/// reads as none; either form writes back the same JSON (the back office compares a resend).
#[test]
fn a_tenders_member_reads_back_and_an_old_tender_has_none() {
    let mut named = tender("cash", 1650, json!(null), json!(2000), json!(350), json!(0));
    named["staff"] = json!(4);
    named["staff_name"] = json!("Casey");
    let old = tender("card", 500, json!("k"), json!(null), json!(null), json!(null));
    let b = parse(batch(vec![row(named.clone()), row(old.clone())])).unwrap();
    let staff: Vec<(Option<i64>, Option<&str>)> = b
        .rows
        .iter()
        .map(|r| match &r.fact {
            Fact::TenderAdded(t) => (t.staff, t.staff_name.as_deref()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(staff, [(Some(4), Some("Casey")), (None, None)]);
    for (r, want) in b.rows.iter().zip([&named, &old]) {
        assert_eq!(&serde_json::to_value(&r.fact).unwrap(), want);
    }
    let mut broken = named.clone();
    broken["staff"] = json!(0);
    assert!(parse(batch(vec![row(broken)])).unwrap_err().contains("staff must be between 1"));
    let mut broken = named.clone();
    broken["staff_name"] = json!(" Casey");
    assert!(parse(batch(vec![row(broken)])).unwrap_err().contains("staff_name has a control character or a space"));
    let mut broken = named;
    broken.as_object_mut().unwrap().remove("staff");
    assert!(parse(batch(vec![row(broken)])).unwrap_err().contains("staff_name names a member but no staff id"));
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
        (batch(vec![row(json!({"kind": "catalog_item", "checkout_key": "k"}))]), "unknown variant `catalog_item`"),
        // tenders and shifts (record 0047)
        (batch(vec![row(tender("card", 500, json!(null), json!(null), json!(null), json!(null)))]), "checkout_key is required for a card tender"),
        (batch(vec![row(tender("card", 500, json!("k"), json!(600), json!(100), json!(0)))]), "a card tender has no cash"),
        (batch(vec![row(tender("cash", 500, json!(null), json!(1000), json!(400), json!(0)))]), "cash 1000 less change 400 must be the amount 500"),
        (batch(vec![row(tender("cash", 500, json!(null), json!(1000), json!(-500), json!(0)))]), "change must be between 0"),
        (batch(vec![row(tender("cheque", 500, json!(null), json!(500), json!(0), json!(0)))]), "unknown variant `cheque`"),
        (batch(vec![row(json!({"kind": "tender_added", "sale": 1, "tender_seq": 1, "method": "cash", "amount": 5, "currency": "jpy"}))]), "a cash tender needs cash_tendered, change and rounding"),
        (batch(vec![row(json!({"kind": "shift_opened", "shift": 0, "currency": "jpy", "float": 0}))]), "shift must be between 1"),
        (batch(vec![row(json!({"kind": "shift_closed", "shift": 1, "z_number": 1, "counted": 900, "expected": 1000, "over_short": 100}))]), "over_short must be counted 900 less expected 1000"),
        (batch(vec![row(json!({"kind": "paid_in_out", "entry": 1, "shift": 1, "direction": "paid_out", "amount": 5, "currency": "jpy", "reason": "  "}))]), "reason is empty"),
        (batch(vec![row(json!({"kind": "paid_in_out", "entry": 1, "shift": 1, "direction": "sideways", "amount": 5, "currency": "jpy", "reason": "x"}))]), "unknown variant `sideways`"),
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
    let mut s = StoreSettings { store_name: "Main St".into(), currency: "usd".into(), receipt_footer: "Thanks".into(), offline_max_payment: 5000, offline_max_total: 20000, time_zone: None };
    s.validate().unwrap();
    s.offline_max_payment = 30000;
    assert!(s.validate().unwrap_err().to_string().contains("larger than offline_max_total"));
    let c = Changes { v: 1, since: 0, version: 3, changes: vec![Change::Settings { version: 3, settings: s.clone() }], more: false };
    let back: Changes = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
}

#[test]
fn any_valid_batch_survives_the_wire() {
    // Cases that got through every assertion (a case returned early, or rejected by
    // a filter, is not one): a property that checks nothing must not pass.
    let reached = std::sync::atomic::AtomicU32::new(0);
    proptest!(ProptestConfig::default(), |(first in 1u64..1_000_000, amounts in proptest::collection::vec(1i64..=MAX_AMOUNT, 1..50))| {
        let rows: Vec<Row> = amounts.iter().enumerate().map(|(i, a)| Row { at_ms: i as i64, fact: Fact::PaymentCreated { checkout_key: format!("key-{i}"), amount: *a, currency: "jpy".into() } }).collect();
        let b = Batch { v: PROTOCOL_VERSION, register_id: "reg".into(), first_seq: first, rows, health: RegisterHealth::default() };
        b.validate().unwrap();
        let back: Batch = serde_json::from_slice(&serde_json::to_vec(&b).unwrap()).unwrap();
        prop_assert_eq!(back.last_seq(), first + amounts.len() as u64 - 1);
        prop_assert_eq!(back, b);
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("any_valid_batch_survives_the_wire: {n} cases reached the assertions");
    assert!(n >= 256, "only {n} cases reached the assertions, at least 256 expected");
}
