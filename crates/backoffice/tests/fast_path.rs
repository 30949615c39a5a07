//! The pipelined apply (record 0149): a batch mixing the fast path's facts (payments and
//! refunds, written set-based in one round trip) with the per-fact path's (shift, sales,
//! tenders) is stored once however often and however concurrently it comes, and a fact
//! sent again with another content is refused, typed, whichever path it belongs to.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::{Ack, Batch, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::{json, Value};
use support::*;

fn row(at: i64, fact: Value) -> Row {
    Row { at_ms: 1_700_000_000_000 + at, fact: serde_json::from_value(fact).unwrap() }
}

fn sale(id: i64, total: i64) -> Value {
    json!({
        "kind": "sale_completed", "sale": id, "receipt_no": format!("{id:06}"), "currency": "usd", "dining": "take_out",
        "price_mode": null, "subtotal": total, "sale_discount": 0, "tax_total": 0, "total": total, "rates": [],
        "lines": [{"sku": "A", "name": "A", "quantity": 1, "unit_price": total, "tax_class": "exempt", "discount": 0, "total": total}]
    })
}

/// Seqs 1-12: a shift, a card sale of `card_amount` (payment created, authorizing, captured; its sale and
/// card tender), part of it refunded, and a cash sale.
fn mixed(card_amount: i64) -> Vec<Row> {
    vec![
        row(0, json!({"kind": "shift_opened", "shift": 1, "currency": "usd", "float": 10000})),
        row(10, json!({"kind": "payment_created", "checkout_key": "k1", "amount": card_amount, "currency": "usd"})),
        row(20, json!({"kind": "payment_state", "checkout_key": "k1", "state": "authorizing", "psp_id": null})),
        row(30, json!({"kind": "payment_state", "checkout_key": "k1", "state": "captured", "psp_id": "pi_k1"})),
        row(40, sale(1, card_amount)),
        row(40, json!({"kind": "tender_added", "sale": 1, "tender_seq": 1, "method": "card", "amount": card_amount, "currency": "usd",
                       "checkout_key": "k1", "cash_tendered": null, "change": null, "rounding": null, "shift": 1})),
        row(50, json!({"kind": "refund_created", "refund_key": "r1", "checkout_key": "k1", "amount": 1000})),
        row(60, json!({"kind": "refund_state", "refund_key": "r1", "state": "succeeded", "psp_refund_id": "re_r1"})),
        row(60, json!({"kind": "payment_state", "checkout_key": "k1", "state": "partially_refunded", "psp_id": null})),
        row(70, sale(2, 1500)),
        row(70, json!({"kind": "tender_added", "sale": 2, "tender_seq": 1, "method": "cash", "amount": 1500, "currency": "usd",
                       "checkout_key": null, "cash_tendered": 2000, "change": 500, "rounding": 0, "shift": 1})),
        row(80, json!({"kind": "paid_in_out", "entry": 1, "shift": 1, "direction": "paid_out", "amount": 300, "currency": "usd", "reason": "milk"})),
    ]
}

fn batch(reg: &RegisterClient, first: u64, rows: Vec<Row>) -> Batch {
    Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None } }
}

fn conflict(r: Result<Ack, ClientError>) -> String {
    match r {
        Err(ClientError::Refused(e)) => {
            assert_eq!((e.status, e.code()), (409, "conflict"), "{}", e.body);
            e.body["error"]["message"].as_str().unwrap_or("").to_string()
        }
        other => panic!("expected 409 conflict, got {other:?}"),
    }
}

/// What the back office holds of one register: its journal, projections and books.
async fn held(h: &Harness, reg: &RegisterClient) -> Vec<String> {
    let db = h.db().await;
    let id: uuid::Uuid = reg.paired.register_id.parse().unwrap();
    let mut out = vec![];
    for sql in [
        "SELECT string_agg(concat_ws('|', seq, at_ms, kind, fact::text), ';' ORDER BY seq) FROM journal WHERE register_id = $1",
        "SELECT string_agg(concat_ws('|', checkout_key, amount, currency, state, psp_id, created_at_ms, updated_at_ms), ';' ORDER BY checkout_key) FROM payments WHERE register_id = $1",
        "SELECT string_agg(concat_ws('|', refund_key, checkout_key, amount, state, psp_refund_id, created_at_ms, updated_at_ms), ';' ORDER BY refund_key) FROM refunds WHERE register_id = $1",
        "SELECT string_agg(concat_ws('|', sale_id, total), ';' ORDER BY sale_id) FROM sales WHERE register_id = $1",
        "SELECT string_agg(concat_ws('|', sale_id, tender_seq, method, amount, checkout_key), ';' ORDER BY sale_id) FROM tenders WHERE register_id = $1",
        "SELECT string_agg(concat_ws('|', shift_id, float_amount), ';') FROM shifts WHERE register_id = $1",
        "SELECT string_agg(concat_ws('|', entry_id, amount), ';') FROM drawer_moves WHERE register_id = $1",
        "SELECT acked_through::text FROM registers WHERE register_id = $1",
    ] {
        out.push(db.query_one(sql, &[&id]).await.unwrap().get::<_, Option<String>>(0).unwrap_or_default());
    }
    out
}

#[tokio::test]
async fn a_mixed_batch_sent_twice_and_concurrently_is_stored_once_and_a_changed_duplicate_is_refused() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    let b = batch(&reg, 1, mixed(2500));

    // Eight copies at once: six under keys of their own, two under one key. The register's
    // lock lets one apply; every other finds the seqs stored and compares them.
    let sends = (0..8).map(|i| {
        let (reg, b) = (reg.clone(), b.clone());
        tokio::spawn(async move { reg.send(&b, &format!("copy-{}", i.min(6))).await })
    });
    let mut applied = 0;
    for s in sends {
        let ack = s.await.unwrap().expect("every copy is acknowledged");
        assert_eq!((ack.acked_through, ack.held), (12, false));
        applied += ack.applied;
    }
    assert_eq!(applied, 12, "exactly one copy applied the rows");
    // and once more, after the race
    let ack = reg.send(&b, "copy-again").await.unwrap();
    assert_eq!((ack.acked_through, ack.applied), (12, 0));

    let stored = held(&h, &reg).await;
    assert_eq!(h.count("SELECT count(*) FROM journal").await, 12);
    let p = &stored[1];
    assert!(p.starts_with("k1|2500|usd|partially_refunded|pi_k1|1700000000010|1700000000060"), "{p}");
    assert!(stored[2].starts_with("r1|k1|1000|succeeded|re_r1|1700000000050|1700000000060"), "{}", stored[2]);
    assert_eq!(stored[3..], ["1|2500;2|1500", "1|1|card|2500|k1;2|1|cash|1500", "1|10000", "1|300", "12"]);

    // The same seqs with another content: a fast-path fact (the payment's amount, and the
    // card tender's with it, so the batch is otherwise possible), then a per-fact one alone.
    let m = conflict(reg.send(&batch(&reg, 1, mixed(2600)), "changed-payment").await);
    assert!(m.contains("seq 2 is already stored with different content"), "{m}");
    let mut rows = mixed(2500);
    rows[9] = row(70, sale(2, 1600));
    let m = conflict(reg.send(&batch(&reg, 1, rows), "changed-sale").await);
    assert!(m.contains("seq 10 is already stored with different content"), "{m}");
    // a longer resend whose stored part changed is refused whole: its new seq is not applied
    let mut rows = mixed(2500);
    rows[11] = row(80, json!({"kind": "paid_in_out", "entry": 1, "shift": 1, "direction": "paid_out", "amount": 400, "currency": "usd", "reason": "milk"}));
    rows.push(row(90, json!({"kind": "paid_in_out", "entry": 2, "shift": 1, "direction": "paid_in", "amount": 100, "currency": "usd", "reason": "change"})));
    let m = conflict(reg.send(&batch(&reg, 1, rows), "changed-and-longer").await);
    assert!(m.contains("seq 12 is already stored with different content"), "{m}");
    assert_eq!(held(&h, &reg).await, stored, "nothing changed");

    // Two different batches for the same seqs racing on a fresh register: one is stored,
    // the other refused, and the projections are the stored one's.
    let other = h.register_in(&store, "Till 2").await;
    let (x, y) = (batch(&other, 1, mixed(2500)), batch(&other, 1, mixed(2600)));
    let (rx, ry) = {
        let (o1, o2) = (other.clone(), other.clone());
        let tx = tokio::spawn(async move { o1.send(&x, "x").await });
        let ty = tokio::spawn(async move { o2.send(&y, "y").await });
        (tx.await.unwrap(), ty.await.unwrap())
    };
    let won = match (rx, ry) {
        (Ok(a), refused) => {
            assert!(conflict(refused).contains("already stored with different content"));
            assert_eq!(a.applied, 12);
            2500
        }
        (refused, Ok(a)) => {
            assert!(conflict(refused).contains("already stored with different content"));
            assert_eq!(a.applied, 12);
            2600
        }
        (Err(a), Err(b)) => panic!("both refused: {a:?} {b:?}"),
    };
    let theirs = held(&h, &other).await;
    let created = format!(r#"2|1700000000010|payment_created|{{"kind": "payment_created", "amount": {won}, "currency": "usd", "checkout_key": "k1"}}"#);
    assert!(theirs[0].contains(&created), "{}", theirs[0]);
    assert!(theirs[1].starts_with(&format!("k1|{won}|usd|partially_refunded|pi_k1|")), "{}", theirs[1]);
    assert!(theirs[4].starts_with(&format!("1|1|card|{won}|k1")), "{}", theirs[4]);
    assert_eq!(h.count("SELECT count(*) FROM journal").await, 24);
}

/// A payment created again under a later seq (a register bug) keeps its first row, and the
/// later run's states still move it, as an insert that skipped it and an update did.
#[tokio::test]
async fn a_creation_sent_again_under_a_new_seq_keeps_its_row_and_takes_the_runs_last_state() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let first = vec![
        row(10, json!({"kind": "payment_created", "checkout_key": "k1", "amount": 2500, "currency": "usd"})),
        row(20, json!({"kind": "payment_state", "checkout_key": "k1", "state": "authorizing", "psp_id": "pi_first"})),
    ];
    reg.send(&batch(&reg, 1, first), "b1").await.unwrap();
    let again = vec![
        row(30, json!({"kind": "payment_created", "checkout_key": "k1", "amount": 9900, "currency": "usd"})),
        row(40, json!({"kind": "payment_state", "checkout_key": "k1", "state": "captured", "psp_id": null})),
        row(50, json!({"kind": "refund_created", "refund_key": "r1", "checkout_key": "k1", "amount": 100})),
        row(60, json!({"kind": "refund_created", "refund_key": "r1", "checkout_key": "k1", "amount": 200})),
        row(70, json!({"kind": "refund_state", "refund_key": "r1", "state": "succeeded", "psp_refund_id": "re_1"})),
    ];
    let ack = reg.send(&batch(&reg, 3, again), "b2").await.unwrap();
    assert_eq!((ack.acked_through, ack.applied), (7, 5));
    let stored = held(&h, &reg).await;
    // amount and creation time the first's; state, time of change the run's; the PSP id kept
    assert_eq!(stored[1], "k1|2500|usd|captured|pi_first|1700000000010|1700000000040");
    // a refund created twice in one run: its first creation, moved to its last state
    assert_eq!(stored[2], "r1|k1|100|succeeded|re_1|1700000000050|1700000000070");
}

/// A payments-only run sends its rules' reads and the register's health with its writes
/// (record 0149's addendum): a refusal found in those answers still changes nothing, the
/// health included; a batch filling a gap still releases the one held behind it; a
/// redelivered fact beside new ones applies only the new; a changed one is refused.
#[tokio::test]
async fn a_payments_only_batch_refused_after_its_writes_changes_nothing_and_a_gap_filled_releases_the_held_batch() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let pay = |k: &str, at: i64| {
        vec![
            row(at, json!({"kind": "payment_created", "checkout_key": k, "amount": 2500, "currency": "usd"})),
            row(at + 1, json!({"kind": "payment_state", "checkout_key": k, "state": "authorizing", "psp_id": null})),
        ]
    };
    let with_queued = |first: u64, rows: Vec<Row>, queued: u64| {
        let mut b = batch(&reg, first, rows);
        b.health.queued = queued;
        b
    };
    let state = || async {
        let mut s = held(&h, &reg).await;
        let id: uuid::Uuid = reg.paired.register_id.parse().unwrap();
        let q: i64 = h.db().await.query_one("SELECT queued FROM registers WHERE register_id = $1", &[&id]).await.unwrap().get(0);
        s.push(q.to_string());
        s
    };
    let ack = reg.send(&with_queued(1, pay("k1", 0), 5), "b1").await.unwrap();
    assert_eq!((ack.acked_through, ack.applied), (2, 2));
    let before = state().await;
    assert_eq!(before[7..], ["2", "5"]);

    // a refund above its payment: refused by the rule read after the writes, at its seq
    let over = vec![
        row(10, json!({"kind": "refund_created", "refund_key": "r1", "checkout_key": "k1", "amount": 3000})),
        row(11, json!({"kind": "refund_state", "refund_key": "r1", "state": "succeeded", "psp_refund_id": "re_1"})),
    ];
    match reg.send(&with_queued(3, over, 9), "over").await {
        Err(ClientError::Refused(e)) => {
            assert_eq!((e.status, e.body["error"]["seq"].as_i64()), (422, Some(3)), "{}", e.body);
            assert!(e.body.to_string().contains("refund_exceeds_payment"), "{}", e.body);
        }
        other => panic!("expected the refund refused, got {other:?}"),
    }
    assert_eq!(state().await, before, "nothing applied, the health as before");

    // seqs 5-6 wait behind the gap at 3-4; filling it releases them
    let ack = reg.send(&with_queued(5, pay("k2", 20), 4), "held").await.unwrap();
    assert_eq!((ack.acked_through, ack.held), (2, true));
    let fill = vec![
        row(12, json!({"kind": "refund_created", "refund_key": "r1", "checkout_key": "k1", "amount": 1000})),
        row(13, json!({"kind": "refund_state", "refund_key": "r1", "state": "succeeded", "psp_refund_id": "re_1"})),
    ];
    let ack = reg.send(&with_queued(3, fill, 3), "fill").await.unwrap();
    assert_eq!((ack.acked_through, ack.applied, ack.held), (6, 4, false));

    // seqs 5-6 again beside new 7-8: only 7-8 apply; then 7 changed beside a new 9: refused
    let mut rows = pay("k2", 20);
    rows.extend(pay("k3", 30));
    let ack = reg.send(&with_queued(5, rows.clone(), 0), "again").await.unwrap();
    assert_eq!((ack.acked_through, ack.applied), (8, 2));
    let applied = state().await;
    assert!(applied[1].contains("k3|2500|usd|authorizing"), "{}", applied[1]);
    assert_eq!(applied[7..], ["8", "0"]);
    assert_eq!(h.count("SELECT count(*) FROM journal").await, 8);
    rows[2] = row(30, json!({"kind": "payment_created", "checkout_key": "k3", "amount": 2600, "currency": "usd"}));
    rows.push(row(40, json!({"kind": "payment_state", "checkout_key": "k3", "state": "captured", "psp_id": "pi_3"})));
    let m = conflict(reg.send(&with_queued(5, rows, 0), "changed").await);
    assert!(m.contains("seq 7 is already stored with different content"), "{m}");
    assert_eq!(state().await, applied);
}
