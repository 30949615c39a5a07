//! Facts that cannot be true are refused whole with their own code (422 naming the rule
//! and the seq) and nothing of the batch is applied; checkout and refund keys are each
//! register's own, so another register's key never blocks a batch; the dashboard stays
//! up whatever a register managed to store (record 0040, 0043).
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_backoffice::state::now_ms;
use paydesk_sync_proto::{Batch, Fact, PaymentState, RefundState, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::json;
use support::*;

const T: i64 = 1_700_000_000_000;

fn at(fact: Fact) -> Row {
    Row { at_ms: T, fact }
}

fn json_row(fact: serde_json::Value) -> Row {
    Row { at_ms: T, fact: serde_json::from_value(fact).unwrap() }
}

fn pay(key: &str, amount: i64, currency: &str) -> Vec<Row> {
    vec![
        at(Fact::PaymentCreated { checkout_key: key.into(), amount, currency: currency.into() }),
        at(Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Authorizing, psp_id: None }),
        at(Fact::PaymentState { checkout_key: key.into(), state: PaymentState::Captured, psp_id: Some(format!("pi_{key}")) }),
    ]
}

fn refund(rk: &str, key: &str, amount: i64) -> Vec<Row> {
    vec![
        at(Fact::RefundCreated { refund_key: rk.into(), checkout_key: key.into(), amount }),
        at(Fact::RefundState { refund_key: rk.into(), state: RefundState::Succeeded, psp_refund_id: None }),
    ]
}

fn batch(reg: &RegisterClient, first: u64, rows: Vec<Row>) -> Batch {
    Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None } }
}

/// (status, code, seq, message)
fn refused(e: ClientError) -> (u16, String, i64, String) {
    match e {
        ClientError::Refused(r) => {
            (r.status, r.code().to_string(), r.body["error"]["seq"].as_i64().unwrap_or(-1), r.body["error"]["message"].as_str().unwrap_or("").to_string())
        }
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

/// Everything a batch could have changed.
async fn snapshot(h: &Harness) -> Vec<String> {
    let db = h.db().await;
    let mut out = vec![];
    for sql in [
        "SELECT string_agg(concat_ws('|', register_id, seq, fact::text), ';' ORDER BY register_id, seq) FROM journal",
        "SELECT string_agg(concat_ws('|', register_id, checkout_key, amount, currency, state), ';' ORDER BY register_id, checkout_key) FROM payments",
        "SELECT string_agg(concat_ws('|', register_id, refund_key, amount, state), ';' ORDER BY register_id, refund_key) FROM refunds",
        "SELECT string_agg(concat_ws('|', register_id, sale_id, tender_seq), ';' ORDER BY 1) FROM tenders",
        "SELECT string_agg(concat_ws('|', register_id, sale_id), ';' ORDER BY 1) FROM sales",
        "SELECT string_agg(concat_ws('|', register_id, acked_through), ';' ORDER BY 1) FROM registers",
        "SELECT string_agg(concat_ws('|', register_id, first_seq), ';' ORDER BY 1) FROM held_batches",
    ] {
        out.push(db.query_one(sql, &[]).await.unwrap().get::<_, Option<String>>(0).unwrap_or_default());
    }
    out
}

fn sale_completed(id: i64, currency: &str, total: i64) -> serde_json::Value {
    json!({
        "kind": "sale_completed", "sale": id, "receipt_no": format!("{id:06}"), "currency": currency, "dining": "take_out",
        "price_mode": null, "subtotal": total, "sale_discount": 0, "tax_total": 0, "total": total, "rates": [],
        "lines": [{"sku": "A", "name": "A", "quantity": 1, "unit_price": total, "tax_class": "exempt", "discount": 0, "total": total}]
    })
}

fn cash(sale: i64, amount: i64, currency: &str) -> serde_json::Value {
    json!({"kind": "tender_added", "sale": sale, "tender_seq": 1, "method": "cash", "amount": amount, "currency": currency,
           "checkout_key": null, "cash_tendered": amount, "change": 0, "rounding": 0, "shift": null})
}

fn card(sale: i64, amount: i64, currency: &str, key: &str) -> serde_json::Value {
    json!({"kind": "tender_added", "sale": sale, "tender_seq": 1, "method": "card", "amount": amount, "currency": currency,
           "checkout_key": key, "cash_tendered": null, "change": null, "rounding": null, "shift": null})
}

#[tokio::test]
async fn facts_that_cannot_be_true_are_refused_by_rule_and_seq_and_nothing_is_applied() {
    let h = Harness::start().await;
    let (store, a) = h.store_with_register("Main St").await;
    let b = h.register_in(&store, "Till 2").await;
    // A: payment k1 of 10.00, refunded 6.00 (seqs 1-5); B: its own payment kb (1-3)
    let mut rows = pay("k1", 1000, "usd");
    rows.extend(refund("r1", "k1", 600));
    assert_eq!(a.send(&batch(&a, 1, rows), "a1").await.unwrap().acked_through, 5);
    b.send(&batch(&b, 1, pay("kb", 700, "usd")), "b1").await.unwrap();
    let before = snapshot(&h).await;

    let now = now_ms();
    let cases: Vec<(&str, Vec<Row>, &str, i64)> = vec![
        // 6.00 of 10.00 already refunded: 5.00 more is above what is left (seq 6 and 7 are a good payment first)
        ("over", { let mut r = pay("k2", 100, "usd"); r.extend(refund("r2", "k1", 500)); r }, "refund_exceeds_payment", 9),
        ("foreign", refund("r3", "kb", 100), "refund_of_other_register", 6),
        ("unknown", refund("r4", "nope", 100), "refund_of_unknown_payment", 6),
        ("backwards", vec![at(Fact::PaymentState { checkout_key: "k1".into(), state: PaymentState::Authorizing, psp_id: None })], "state_backwards", 6),
        ("backwards in the run", { let mut r = pay("k3", 100, "usd"); r.push(at(Fact::PaymentState { checkout_key: "k3".into(), state: PaymentState::Created, psp_id: None })); r }, "state_backwards", 9),
        ("refund backwards", vec![at(Fact::RefundState { refund_key: "r1".into(), state: RefundState::Pending, psp_refund_id: None })], "state_backwards", 6),
        ("card amount", { let mut r = pay("k4", 500, "usd"); r.push(json_row(card(1, 400, "usd", "k4"))); r }, "tender_contradicts_payment", 9),
        ("card currency", { let mut r = pay("k4", 500, "usd"); r.push(json_row(card(1, 500, "eur", "k4"))); r }, "tender_contradicts_payment", 9),
        ("card of nothing", vec![json_row(card(1, 500, "usd", "ghost"))], "tender_contradicts_payment", 6),
        ("cash currency", vec![json_row(cash(2, 300, "eur")), json_row(sale_completed(2, "usd", 300))], "tender_contradicts_sale", 6),
        ("cash above total", vec![json_row(cash(2, 900, "usd")), json_row(sale_completed(2, "usd", 300))], "tender_contradicts_sale", 6),
        ("far future", vec![Row { at_ms: 9_000_000_000_000_000_000, ..pay("k5", 100, "usd").remove(0) }], "time_out_of_range", 6),
        ("two days ahead", { let mut r = pay("k5", 100, "usd"); r[1].at_ms = now + 2 * 86_400_000; r }, "time_out_of_range", 7),
        ("before 2020", { let mut r = pay("k5", 100, "usd"); r[2].at_ms = 1_000; r }, "time_out_of_range", 8),
    ];
    for (name, rows, code, seq) in cases {
        let (status, got, got_seq, message) = refused(a.send(&batch(&a, 6, rows), &format!("bad-{}", name.replace(' ', "-"))).await.unwrap_err());
        assert_eq!((status, got.as_str(), got_seq), (422, code, seq), "{name}: {message}");
        assert!(message.starts_with(&format!("seq {seq}:")), "{name}: {message}");
        assert_eq!(snapshot(&h).await, before, "{name}: nothing applied");
    }
    // a time that is not even in a batch that would be held is refused before it is held
    let (status, code, _, _) = refused(a.send(&batch(&a, 50, vec![Row { at_ms: i64::MAX, ..pay("k9", 1, "usd").remove(0) }]), "held").await.unwrap_err());
    assert_eq!((status, code.as_str()), (422, "time_out_of_range"));
    assert_eq!(snapshot(&h).await, before);

    // what is true is applied: the last 4.00 of k1, a clock an hour ahead, a split sale
    let mut good = refund("r5", "k1", 400);
    good.push(at(Fact::PaymentState { checkout_key: "k1".into(), state: PaymentState::Refunded, psp_id: None }));
    good.extend(pay("k6", 200, "usd"));
    good[3].at_ms = now + 3_600_000;
    good.push(json_row(cash(3, 100, "usd")));
    good.push(json_row(json!({"kind": "tender_added", "sale": 3, "tender_seq": 2, "method": "card", "amount": 200, "currency": "usd",
        "checkout_key": "k6", "cash_tendered": null, "change": null, "rounding": null, "shift": null})));
    good.push(json_row(sale_completed(3, "usd", 300)));
    assert_eq!(a.send(&batch(&a, 6, good), "good").await.unwrap().acked_through, 14);
    // and a refund failed frees its amount for another
    let mut again = vec![
        at(Fact::RefundCreated { refund_key: "r6".into(), checkout_key: "k6".into(), amount: 200 }),
        at(Fact::RefundState { refund_key: "r6".into(), state: RefundState::Failed, psp_refund_id: None }),
    ];
    again.extend(refund("r7", "k6", 200));
    assert_eq!(a.send(&batch(&a, 15, again), "again").await.unwrap().acked_through, 18);
}

/// The refund check reads each refunded payment by its key (record 0149, second addendum):
/// a payment created in the same batch as its refunds counts, the batch's own refunds count
/// against it and each other, a stored refund counts beside two new ones, and another
/// register's payment or refunds under the same key never do.
#[tokio::test]
async fn refunds_in_one_batch_count_against_a_payment_of_the_same_batch_and_each_other() {
    let h = Harness::start().await;
    let (store, a) = h.store_with_register("Main St").await;
    let b = h.register_in(&store, "Till 2").await;
    // B uses the key "p1" too, and refunds 400 of its 500: none of it is A's
    let mut squat = pay("p1", 500, "usd");
    squat.extend(refund("rb", "p1", 400));
    b.send(&batch(&b, 1, squat), "b").await.unwrap();
    let before = snapshot(&h).await;
    let cases: Vec<(&str, Vec<Row>, i64)> = vec![
        // the payment (seqs 1-3) and one refund above it (4-5), all new
        ("one above its new payment", { let mut r = pay("p1", 1000, "usd"); r.extend(refund("r1", "p1", 1001)); r }, 4),
        // two refunds of a new payment, each within it, 6.00 + 5.00 above its 10.00: the seq of the later one
        ("two above their new payment", { let mut r = pay("p1", 1000, "usd"); r.extend(refund("r1", "p1", 600)); r.extend(refund("r2", "p1", 500)); r }, 6),
    ];
    for (name, rows, seq) in cases {
        let (status, code, got_seq, message) = refused(a.send(&batch(&a, 1, rows), &format!("bad-{}", name.replace(' ', "-"))).await.unwrap_err());
        assert_eq!((status, code.as_str(), got_seq), (422, "refund_exceeds_payment", seq), "{name}: {message}");
        assert!(message.contains("come to 1001") || message.contains("come to 1100"), "{name}: {message}");
        assert_eq!(snapshot(&h).await, before, "{name}: nothing applied");
    }
    // exactly its amount in two refunds with its payment: applied (B's 400 is not counted)
    let mut rows = pay("p1", 1000, "usd");
    rows.extend(refund("r1", "p1", 600));
    rows.extend(refund("r2", "p1", 400));
    assert_eq!(a.send(&batch(&a, 1, rows), "good").await.unwrap().acked_through, 7);
    // a payment stored with 3.00 refunded: two new refunds of 4.00 come to 11.00 (seq 13, the later)
    let mut rows = pay("p2", 1000, "usd");
    rows.extend(refund("r3", "p2", 300));
    assert_eq!(a.send(&batch(&a, 8, rows), "p2").await.unwrap().acked_through, 12);
    let before = snapshot(&h).await;
    let mut rows = refund("r4", "p2", 400);
    rows.extend(refund("r5", "p2", 400));
    let (status, code, got_seq, message) = refused(a.send(&batch(&a, 13, rows), "over-stored").await.unwrap_err());
    assert_eq!((status, code.as_str(), got_seq), (422, "refund_exceeds_payment", 15), "{message}");
    assert!(message.contains("come to 1100"), "{message}");
    assert_eq!(snapshot(&h).await, before);
    // with 4.00 and 3.00 it is exactly 10.00: applied
    let mut rows = refund("r4", "p2", 400);
    rows.extend(refund("r5", "p2", 300));
    assert_eq!(a.send(&batch(&a, 13, rows), "exact-stored").await.unwrap().acked_through, 16);
    // a refund of a key only B has, and of one nobody has, keep their own refusals
    let (_, code, got_seq, _) = refused(a.send(&batch(&a, 17, refund("r6", "p-none", 1)), "unknown").await.unwrap_err());
    assert_eq!((code.as_str(), got_seq), ("refund_of_unknown_payment", 17));
    b.send(&batch(&b, 6, pay("pb", 100, "usd")), "b2").await.unwrap();
    let (_, code, got_seq, _) = refused(a.send(&batch(&a, 17, refund("r6", "pb", 1)), "foreign").await.unwrap_err());
    assert_eq!((code.as_str(), got_seq), ("refund_of_other_register", 17));
}

#[tokio::test]
async fn a_key_another_register_used_never_blocks_a_registers_batch() {
    let h = Harness::start().await;
    let (store, a) = h.store_with_register("Main St").await;
    let b = h.register_in(&store, "Till 2").await;
    // B (buggy or hostile) takes the key A will use, and refunds under A's refund key
    let mut squat = pay("shared", 100, "usd");
    squat.extend(refund("shared-refund", "shared", 50));
    b.send(&batch(&b, 1, squat), "b").await.unwrap();
    // A's own payment and refund with those keys apply, each to A's own rows
    let mut rows = pay("shared", 900, "usd");
    rows.extend(refund("shared-refund", "shared", 900));
    assert_eq!(a.send(&batch(&a, 1, rows), "a").await.unwrap().acked_through, 5);
    let db = h.db().await;
    let got: Vec<(String, i64, String)> = db
        .query("SELECT r.name, p.amount, p.state FROM payments p JOIN registers r USING (store_id, register_id) WHERE checkout_key = 'shared' ORDER BY r.name", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(got, [("Main St register".to_string(), 900, "captured".to_string()), ("Till 2".to_string(), 100, "captured".to_string())]);
    assert_eq!(h.count("SELECT count(*) FROM refunds WHERE refund_key = 'shared-refund'").await, 2);
    // the dashboard's refund list pairs each refund with its own register's payment
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    assert_eq!(d["refunds"].as_array().unwrap().len(), 2, "{}", d["refunds"]);
}

#[tokio::test]
async fn the_dashboard_loads_whatever_sums_and_times_a_register_managed_to_store() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    reg.send(&batch(&reg, 1, pay("k1", 1000, "usd")), "one").await.unwrap();
    // rows stored before these checks existed (or written by hand): sums past BIGINT and
    // a time no calendar holds
    let db = h.db().await;
    let register: uuid::Uuid = db.query_one("SELECT register_id FROM registers", &[]).await.unwrap().get(0);
    let store: uuid::Uuid = store.parse().unwrap();
    for (key, at) in [("huge-1", T), ("huge-2", 9_000_000_000_000_000_000i64)] {
        db.execute(
            "INSERT INTO payments (store_id, register_id, checkout_key, amount, currency, state, created_at_ms, updated_at_ms)
             VALUES ($1, $2, $3, 9000000000000000000, 'usd', 'captured', $4, $4)",
            &[&store, &register, &key, &at],
        )
        .await
        .unwrap();
    }
    let d = h.owner.get("/admin/dashboard").await.expect("the dashboard still loads");
    assert_eq!(d["sales_by_store"][0]["amount"], json!(i64::MAX), "saturated, not wrapped: {}", d["sales_by_store"]);
    assert_eq!(d["sales_by_register"][0]["amount"], json!(i64::MAX));
    // the chart leaves out the hour no calendar holds; the rest is there
    let hours = d["sales_by_hour"].as_array().unwrap();
    assert_eq!(hours.iter().map(|h| h["sales"].as_i64().unwrap()).sum::<i64>(), 2, "{hours:?}");
    assert!(hours.len() <= 200);
}

/// A card-present payment's facts (issue 27): created, on the reader, paid — accepted; a
/// reader payment going back to a keyed send (`authorizing`) is a move its state machine
/// never makes, refused by rule and seq with nothing applied.
#[tokio::test]
async fn a_reader_payments_facts_are_accepted_and_on_reader_backwards_is_refused() {
    let h = Harness::start().await;
    let (_store, a) = h.store_with_register("Main St").await;
    let rows = vec![
        at(Fact::PaymentCreated { checkout_key: "kr".into(), amount: 700, currency: "usd".into() }),
        at(Fact::PaymentState { checkout_key: "kr".into(), state: PaymentState::OnReader, psp_id: Some("pi_kr".into()) }),
        at(Fact::PaymentState { checkout_key: "kr".into(), state: PaymentState::Captured, psp_id: Some("pi_kr".into()) }),
        at(Fact::PaymentCreated { checkout_key: "ks".into(), amount: 300, currency: "usd".into() }),
        at(Fact::PaymentState { checkout_key: "ks".into(), state: PaymentState::OnReader, psp_id: Some("pi_ks".into()) }),
    ];
    assert_eq!(a.send(&batch(&a, 1, rows), "reader-good").await.unwrap().acked_through, 5);
    let before = snapshot(&h).await;
    let bad = vec![at(Fact::PaymentState { checkout_key: "ks".into(), state: PaymentState::Authorizing, psp_id: Some("pi_ks".into()) })];
    let (status, code, seq, message) = refused(a.send(&batch(&a, 6, bad), "reader-bad").await.unwrap_err());
    assert_eq!((status, code.as_str(), seq), (422, "state_backwards", 6), "{message}");
    assert_eq!(snapshot(&h).await, before, "nothing applied");
    let good = vec![at(Fact::PaymentState { checkout_key: "ks".into(), state: PaymentState::Canceled, psp_id: Some("pi_ks".into()) })];
    assert_eq!(a.send(&batch(&a, 6, good), "reader-abandoned").await.unwrap().acked_through, 6);
}
