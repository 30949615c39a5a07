//! Up: batches applied exactly once per (register, seq). Redelivered, duplicated and
//! reordered batches change nothing; a gap is held, never skipped; the ack is the
//! highest contiguous seq; bad input is a clear 4xx and changes nothing.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_backoffice::state::Limits;
use paydesk_sync_proto::{Batch, Fact, PaymentState, RefundState, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::json;
use support::*;

fn created(key: &str, amount: i64) -> Row {
    Row { at_ms: 1_700_000_000_000, fact: Fact::PaymentCreated { checkout_key: key.into(), amount, currency: "usd".into() } }
}

fn state(key: &str, s: PaymentState, psp: Option<&str>) -> Row {
    Row { at_ms: 1_700_000_001_000, fact: Fact::PaymentState { checkout_key: key.into(), state: s, psp_id: psp.map(Into::into) } }
}

/// Three rows per payment: created, authorizing, captured.
fn sale(key: &str, amount: i64) -> Vec<Row> {
    vec![created(key, amount), state(key, PaymentState::Authorizing, None), state(key, PaymentState::Captured, Some(&format!("pi_{key}")))]
}

fn batch(reg: &RegisterClient, first: u64, rows: Vec<Row>) -> Batch {
    Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: first, rows, health: RegisterHealth { app_version: "0.1.0".into(), queued: 3, offline_waiting: 0, audit: None } }
}

fn refused(e: ClientError) -> (u16, String, String) {
    match e {
        ClientError::Refused(r) => (r.status, r.code().to_string(), r.body["error"]["message"].as_str().unwrap_or("").to_string()),
        ClientError::Transport(t) => panic!("transport: {t}"),
    }
}

/// Everything the back office holds for this test's registers, to compare before/after.
async fn snapshot(h: &Harness) -> serde_json::Value {
    let db = h.db().await;
    let mut out = serde_json::Map::new();
    for (name, sql) in [
        ("journal", "SELECT register_id::text, seq, fact::text FROM journal ORDER BY 1, 2"),
        ("payments", "SELECT checkout_key, amount::text, state, coalesce(psp_id, '') FROM payments ORDER BY 1"),
        ("refunds", "SELECT refund_key, amount::text, state FROM refunds ORDER BY 1"),
        ("acked", "SELECT register_id::text, acked_through::text FROM registers ORDER BY 1"),
        ("held", "SELECT register_id::text, first_seq::text, last_seq::text FROM held_batches ORDER BY 1, 2"),
    ] {
        let rows = db.query(sql, &[]).await.unwrap();
        let v: Vec<Vec<String>> = rows
            .iter()
            .map(|r| (0..r.len()).map(|i| r.try_get::<_, String>(i).unwrap_or_else(|_| r.get::<_, i64>(i).to_string())).collect())
            .collect();
        out.insert(name.into(), json!(v));
    }
    serde_json::Value::Object(out)
}

#[tokio::test]
async fn redelivered_duplicated_and_reordered_batches_apply_each_seq_once() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let b1 = batch(&reg, 1, sale("k1", 1200)); // seqs 1-3
    let b2 = batch(&reg, 4, sale("k2", 800)); // 4-6
    let b3 = batch(&reg, 7, sale("k3", 500)); // 7-9

    // reordered: 3 and 2 arrive before 1; both are held, nothing is acknowledged
    let a3 = reg.send(&b3, "key-3").await.unwrap();
    assert_eq!((a3.acked_through, a3.held, a3.applied), (0, true, 0));
    let a2 = reg.send(&b2, "key-2").await.unwrap();
    assert_eq!((a2.acked_through, a2.held), (0, true));
    assert_eq!(h.count("SELECT count(*) FROM payments").await, 0, "held rows are not applied");
    // 1 fills the gap: all three apply, in order
    let a1 = reg.send(&b1, "key-1").await.unwrap();
    assert_eq!((a1.acked_through, a1.held, a1.applied), (9, false, 9));
    assert_eq!(h.count("SELECT count(*) FROM held_batches").await, 0);
    let before = snapshot(&h).await;

    // redelivered (same key) and duplicated (a new key, same rows): nothing changes
    for (b, key) in [(&b1, "key-1"), (&b2, "key-2"), (&b3, "key-3"), (&b2, "retry-of-2"), (&b1, "another")] {
        let a = reg.send(b, key).await.unwrap();
        assert_eq!((a.acked_through, a.applied, a.held), (9, 0, false));
    }
    // the same batch sent 8 times at once: still applied once
    let b4 = batch(&reg, 10, sale("k4", 300));
    let sends = (0..8).map(|i| {
        let (reg, b) = (reg.clone(), b4.clone());
        tokio::spawn(async move { reg.send(&b, &format!("concurrent-{i}")).await.unwrap() })
    });
    let acks: Vec<_> = futures_join(sends).await;
    assert_eq!(acks.iter().map(|a| a.applied).sum::<u64>(), 3, "{acks:?}");
    assert!(acks.iter().all(|a| a.acked_through == 12));
    let after = snapshot(&h).await;
    assert_eq!(after["journal"].as_array().unwrap().len(), 12);
    assert_eq!(before["payments"].as_array().unwrap().len() + 1, after["payments"].as_array().unwrap().len());
    assert_eq!(h.count("SELECT count(*) FROM payments WHERE state = 'captured'").await, 4);
    assert_eq!(h.count("SELECT sum(amount)::int8 FROM payments").await, 2800);
    // an overlapping resend (old rows + new ones) applies only the new ones
    let mut overlap = sale("k4", 300);
    overlap.extend(sale("k5", 100));
    let a = reg.send(&batch(&reg, 10, overlap), "overlap").await.unwrap();
    assert_eq!((a.acked_through, a.applied), (15, 3));
}

async fn futures_join<T: Send + 'static>(handles: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut out = vec![];
    for h in handles.collect::<Vec<_>>() {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test]
async fn a_gap_is_held_until_it_fills_never_skipped() {
    let h = Harness::start().await;
    let (_s, reg) = h.store_with_register("Main St").await;
    reg.send(&batch(&reg, 1, sale("k1", 100)), "a").await.unwrap();
    // 4-6 lost in transit; 7-9 and 10-12 arrive
    assert_eq!(reg.send(&batch(&reg, 7, sale("k3", 100)), "c").await.unwrap().acked_through, 3);
    assert_eq!(reg.send(&batch(&reg, 10, sale("k4", 100)), "d").await.unwrap().acked_through, 3);
    assert_eq!(h.count("SELECT max(seq) FROM journal").await, 3, "nothing past the gap is applied");
    assert_eq!(h.count("SELECT count(*) FROM held_batches").await, 2);
    // the register still has 4.. in its outbox (ack says 3); it resends from 4
    let a = reg.send(&batch(&reg, 4, sale("k2", 100)), "b").await.unwrap();
    assert_eq!((a.acked_through, a.applied), (12, 9));
    assert_eq!(h.count("SELECT count(*) FROM journal").await, 12);
    let seqs: Vec<i64> = h.db().await.query("SELECT seq FROM journal ORDER BY seq", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(seqs, (1..=12).collect::<Vec<_>>());
}

#[tokio::test]
async fn held_batches_per_register_are_bounded() {
    let h = Harness::with_limits(Limits { max_held_batches: 2, ..Limits::default() }).await;
    let (_s, reg) = h.store_with_register("Main St").await;
    reg.send(&batch(&reg, 10, sale("a", 1)), "1").await.unwrap();
    reg.send(&batch(&reg, 20, sale("b", 1)), "2").await.unwrap();
    let before = snapshot(&h).await;
    let (status, code, msg) = refused(reg.send(&batch(&reg, 30, sale("c", 1)), "3").await.unwrap_err());
    assert_eq!((status, code.as_str()), (429, "too_many"), "{msg}");
    assert!(msg.contains("send the missing rows first"), "{msg}");
    assert_eq!(snapshot(&h).await, before);
    // a resend of an already-held batch is still accepted
    assert!(reg.send(&batch(&reg, 20, sale("b", 1)), "2").await.unwrap().held);
}

#[tokio::test]
async fn bad_input_is_a_clear_4xx_and_changes_nothing() {
    let h = Harness::start().await;
    let (_a, reg) = h.store_with_register("Store A").await;
    let (store_b, reg_b) = h.store_with_register("Store B").await;
    let reg_b2 = h.register_in(&store_b, "B till 2").await;
    reg.send(&batch(&reg, 1, sale("k1", 100)), "first").await.unwrap();
    reg_b.send(&batch(&reg_b, 1, sale("kb", 100)), "first").await.unwrap();
    let before = snapshot(&h).await;
    let http = reqwest::Client::new();
    let url = format!("{}/v1/sync/batches", h.url);
    let raw = |token: &str, key: Option<&str>, ct: &str, body: Vec<u8>| {
        let mut r = http.post(&url).bearer_auth(token).header("content-type", ct).body(body);
        if let Some(k) = key {
            r = r.header("Idempotency-Key", k);
        }
        r.send()
    };
    let status_code = |r: reqwest::Response| async move {
        let s = r.status().as_u16();
        let v: serde_json::Value = r.json().await.unwrap_or_default();
        (s, v["error"]["code"].as_str().unwrap_or("").to_string(), v["error"]["message"].as_str().unwrap_or("").to_string())
    };
    let good = serde_json::to_vec(&batch(&reg, 4, sale("k2", 100))).unwrap();
    let cases: Vec<(&str, (u16, &str), reqwest::Response)> = vec![
        ("malformed JSON", (400, "malformed_batch"), raw(&reg.paired.token, Some("m"), "application/json", b"{\"v\":1,".to_vec()).await.unwrap()),
        ("not JSON", (415, "unsupported_media_type"), raw(&reg.paired.token, Some("m"), "text/plain", good.clone()).await.unwrap()),
        ("no Idempotency-Key", (400, "bad_request"), raw(&reg.paired.token, None, "application/json", good.clone()).await.unwrap()),
        ("wrong token", (401, "unauthenticated"), raw("pdr.0.0.0", Some("w"), "application/json", good.clone()).await.unwrap()),
        ("too large", (413, "too_large"), raw(&reg.paired.token, Some("big"), "application/json", vec![b' '; 2 * 1024 * 1024]).await.unwrap()),
    ];
    for (what, (want_status, want_code), resp) in cases {
        let (s, c, m) = status_code(resp).await;
        assert_eq!((s, c.as_str()), (want_status, want_code), "{what}: {m}");
    }
    // typed cases through the client
    let mut zero_amount = batch(&reg, 4, sale("k2", 100));
    zero_amount.rows[0] = created("k2", 0);
    let (s, c, m) = refused(reg.send(&zero_amount, "z").await.unwrap_err());
    assert_eq!((s, c.as_str()), (400, "bad_field"), "{m}");
    assert!(m.contains("rows[0] (seq 4).amount"), "{m}");
    // another store's register named in the batch, and a sibling register's id
    let (s, c, _) = refused(reg.send(&batch(&reg_b, 4, sale("k2", 100)), "x").await.unwrap_err());
    assert_eq!((s, c.as_str()), (403, "forbidden"));
    let (s, c, _) = refused(reg_b.send(&batch(&reg_b2, 1, sale("k9", 100)), "y").await.unwrap_err());
    assert_eq!((s, c.as_str()), (403, "forbidden"));
    // a seq from the future
    let (s, c, m) = refused(reg.send(&batch(&reg, 5_000_000, sale("kf", 100)), "f").await.unwrap_err());
    assert_eq!((s, c.as_str()), (422, "unprocessable"), "{m}");
    assert!(m.contains("past the acknowledged seq 3"), "{m}");
    // the same seqs with different content: the stored history stands
    let (s, c, m) = refused(reg.send(&batch(&reg, 1, sale("k1", 999)), "changed").await.unwrap_err());
    assert_eq!((s, c.as_str()), (409, "conflict"), "{m}");
    assert!(m.contains("seq 1 is already stored with different content"), "{m}");
    // a used Idempotency-Key with another batch
    let (s, c, _) = refused(reg.send(&batch(&reg, 4, sale("k2", 100)), "first").await.unwrap_err());
    assert_eq!((s, c.as_str()), (422, "unprocessable"));
    // a fact about a payment the register never created: the whole batch is refused,
    // its good first rows included
    let mut orphan = sale("k2", 100);
    orphan.push(state("never-created", PaymentState::Captured, None));
    let (s, c, m) = refused(reg.send(&batch(&reg, 4, orphan), "o").await.unwrap_err());
    assert_eq!((s, c.as_str()), (422, "unprocessable"), "{m}");
    assert!(m.contains("seq 7"), "{m}");
    // an unknown fact kind and an unsupported version
    let mut v = serde_json::to_value(batch(&reg, 4, sale("k2", 100))).unwrap();
    v["rows"][0]["fact"]["kind"] = json!("tender_added");
    let (s, c, _) = status_code(raw(&reg.paired.token, Some("t"), "application/json", serde_json::to_vec(&v).unwrap()).await.unwrap()).await;
    assert_eq!((s, c.as_str()), (400, "malformed_batch"));
    v["rows"][0]["fact"]["kind"] = json!("payment_created");
    v["v"] = json!(9);
    let (s, c, _) = status_code(raw(&reg.paired.token, Some("t"), "application/json", serde_json::to_vec(&v).unwrap()).await.unwrap()).await;
    assert_eq!((s, c.as_str()), (400, "unsupported_version"));

    assert_eq!(snapshot(&h).await, before, "a refused request changed something");
    // and the register carries on from where it was
    assert_eq!(reg.send(&batch(&reg, 4, sale("k2", 100)), "next").await.unwrap().acked_through, 6);
}

#[tokio::test]
async fn projections_follow_each_registers_journal_and_health_is_recorded() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Main St").await;
    let reg2 = h.register_in(&store, "Till 2").await;
    let mut rows = sale("k1", 1000);
    rows.push(Row { at_ms: 1_700_000_000_005, fact: Fact::RefundCreated { refund_key: "r1".into(), checkout_key: "k1".into(), amount: 400 } });
    rows.push(Row { at_ms: 1_700_000_000_006, fact: Fact::RefundState { refund_key: "r1".into(), state: RefundState::Succeeded, psp_refund_id: Some("re_1".into()) } });
    rows.push(state("k1", PaymentState::PartiallyRefunded, None));
    rows.push(created("k2", 700));
    rows.push(state("k2", PaymentState::Failed, None));
    let mut b = batch(&reg, 1, rows);
    b.health = RegisterHealth { app_version: "0.2.0".into(), queued: 42, offline_waiting: 2, audit: None };
    assert_eq!(reg.send(&b, "one").await.unwrap().acked_through, 8);
    // a sibling register cannot move this register's payment
    let (s, _, _) = refused(reg2.send(&batch(&reg2, 1, vec![state("k1", PaymentState::Refunded, None)]), "steal").await.unwrap_err());
    assert_eq!(s, 422);
    let db = h.db().await;
    let p = db.query_one("SELECT state, psp_id, amount FROM payments WHERE checkout_key = 'k1'", &[]).await.unwrap();
    assert_eq!((p.get::<_, String>(0), p.get::<_, String>(1), p.get::<_, i64>(2)), ("partially_refunded".into(), "pi_k1".into(), 1000));
    let f = db.query_one("SELECT state, psp_refund_id, amount FROM refunds WHERE refund_key = 'r1'", &[]).await.unwrap();
    assert_eq!((f.get::<_, String>(0), f.get::<_, String>(1), f.get::<_, i64>(2)), ("succeeded".into(), "re_1".into(), 400));
    assert_eq!(db.query_one("SELECT state FROM payments WHERE checkout_key = 'k2'", &[]).await.unwrap().get::<_, String>(0), "failed");
    let r = db.query_one("SELECT app_version, queued, offline_waiting, acked_through, last_sync_ms IS NOT NULL FROM registers WHERE name = 'Main St register'", &[]).await.unwrap();
    assert_eq!((r.get::<_, String>(0), r.get::<_, i64>(1), r.get::<_, i64>(2), r.get::<_, i64>(3), r.get::<_, bool>(4)), ("0.2.0".into(), 42, 2, 8, true));
}

#[tokio::test]
async fn one_big_batch_leaves_the_projections_where_row_by_row_batches_do() {
    let h = Harness::start().await;
    let (store, one_by_one) = h.store_with_register("Main St").await;
    let at_once = h.register_in(&store, "Till 2").await;
    let rows = |tag: &str| paydesk_backoffice::demo::journal(tag, 60, 1_764_600_000_000, 3);
    let (a, b) = (rows("a"), rows("b"));
    assert!(a.len() > 200 && a.len() <= 500);
    for (i, row) in a.iter().enumerate() {
        one_by_one.send(&batch(&one_by_one, 1 + i as u64, vec![row.clone()]), &format!("r{i}")).await.unwrap();
    }
    assert_eq!(at_once.send(&batch(&at_once, 1, b.clone()), "all").await.unwrap().acked_through, b.len() as u64);
    let db = h.db().await;
    let view = |sql: &'static str| {
        let db = &db;
        async move {
            let mut out: Vec<String> = db.query(sql, &[]).await.unwrap().iter().map(|r| r.get::<_, String>(0)).collect();
            out.sort();
            out
        }
    };
    // the same facts with the tag swapped must give the same rows
    let p = "SELECT concat_ws('|', checkout_key, amount, currency, state, psp_id, created_at_ms, updated_at_ms) FROM payments WHERE checkout_key LIKE '_-%'";
    let f = "SELECT concat_ws('|', refund_key, checkout_key, amount, state, psp_refund_id, created_at_ms, updated_at_ms) FROM refunds";
    let (pa, fa) = (view(p).await, view(f).await);
    let only = |v: &[String], tag: &str| -> Vec<String> { v.iter().filter(|s| s.starts_with(tag)).map(|s| s.replace("a-", "b-").replace("pi_a_", "pi_b_").replace("re_a_", "re_b_")).collect() };
    let only_b = |v: &[String]| -> Vec<String> { v.iter().filter(|s| s.starts_with("b-")).cloned().collect() };
    assert_eq!(only(&pa, "a-"), only_b(&pa));
    assert_eq!(only(&fa, "a-"), only_b(&fa));
    assert_eq!(only_b(&pa).len(), 60);
    assert!(only_b(&pa).iter().any(|s| s.contains("|partially_refunded|pi_b_")), "{pa:?}");
}

#[tokio::test]
async fn a_change_before_its_creation_in_one_batch_is_refused() {
    let h = Harness::start().await;
    let (_s, reg) = h.store_with_register("Main St").await;
    let rows = vec![state("k1", PaymentState::Captured, None), created("k1", 100)];
    let (s, c, m) = refused(reg.send(&batch(&reg, 1, rows), "x").await.unwrap_err());
    assert_eq!((s, c.as_str()), (422, "unprocessable"), "{m}");
    assert!(m.starts_with("seq 1:"), "{m}");
    assert_eq!(h.count("SELECT count(*) FROM journal").await, 0);
}

/// `at_ms` is an offset from a moment in 2023 (the back office refuses times before 2020).
fn book(at_ms: i64, fact: serde_json::Value) -> Row {
    Row { at_ms: 1_700_000_000_000 + at_ms, fact: serde_json::from_value(fact).unwrap() }
}

/// Tenders and shifts that do not follow the register's own order are refused whole,
/// naming the seq, and change nothing (record 0047).
#[tokio::test]
async fn tender_and_shift_facts_out_of_the_registers_order_are_refused() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    let opened = book(1, json!({"kind": "shift_opened", "shift": 1, "currency": "jpy", "float": 5000}));
    reg.send(&batch(&reg, 1, vec![opened.clone()]), "b1").await.unwrap();
    let books = |db: tokio_postgres::Client| async move {
        let n = |sql: &'static str| {
            let db = &db;
            async move { db.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
        };
        (n("SELECT count(*) FROM tenders").await, n("SELECT count(*) FROM shifts WHERE z_number IS NOT NULL").await, n("SELECT count(*) FROM drawer_moves").await)
    };
    let before = (snapshot(&h).await, books(h.db().await).await);
    let cases = [
        (json!({"kind": "shift_opened", "shift": 1, "currency": "jpy", "float": 0}), "shift 1 was already recorded"),
        (json!({"kind": "shift_closed", "shift": 2, "z_number": 1, "counted": 0, "expected": 0, "over_short": 0}), "closes shift 2 with Z 1, but that shift is not open here"),
        (json!({"kind": "paid_in_out", "entry": 1, "shift": 9, "direction": "paid_in", "amount": 5, "currency": "jpy", "reason": "top-up"}), "moves cash in shift 9"),
        (json!({"kind": "tender_superseded", "sale": 4, "tender_seq": 1}), "supersedes tender 1 of sale 4"),
    ];
    for (i, (fact, want)) in cases.into_iter().enumerate() {
        // a good row first: the refusal takes the whole batch back
        let rows = vec![book(2, json!({"kind": "tender_added", "sale": 3, "tender_seq": 1, "method": "cash", "amount": 1650, "currency": "jpy",
            "checkout_key": null, "cash_tendered": 2000, "change": 350, "rounding": 0, "shift": 1})), book(3, fact)];
        let (status, code, message) = refused(reg.send(&batch(&reg, 2, rows.clone()), &format!("bad-{i}")).await.unwrap_err());
        assert_eq!((status, code.as_str()), (422, "unprocessable"), "{message}");
        assert!(message.contains("seq 3") && message.contains(want), "{message} (wanted {want})");
        assert_eq!((snapshot(&h).await, books(h.db().await).await), before, "{want}: nothing changed");
    }
    // in order, the same kinds apply
    let closed = book(9, json!({"kind": "shift_closed", "shift": 1, "z_number": 1, "counted": 6700, "expected": 6650, "over_short": 50}));
    let good = vec![
        book(2, json!({"kind": "tender_added", "sale": 3, "tender_seq": 1, "method": "cash", "amount": 1650, "currency": "jpy",
            "checkout_key": null, "cash_tendered": 2000, "change": 350, "rounding": 0, "shift": 1})),
        book(3, json!({"kind": "paid_in_out", "entry": 1, "shift": 1, "direction": "paid_in", "amount": 1000, "currency": "jpy", "reason": "top-up"})),
        closed.clone(),
    ];
    reg.send(&batch(&reg, 2, good), "good").await.unwrap();
    assert_eq!(books(h.db().await).await, (1, 1, 1));
    // a second close of the same shift is refused too
    let (status, _, message) = refused(reg.send(&batch(&reg, 5, vec![closed]), "again").await.unwrap_err());
    assert_eq!(status, 422, "{message}");
}

/// The idempotency keys are pruned by age and by count per register, by the server on
/// its own; a batch resent under a pruned key is still recognised by its rows.
#[tokio::test]
async fn idempotency_keys_are_pruned_by_age_and_count_and_a_resend_still_applies_once() {
    use paydesk_backoffice::prune::{prune_batch_keys, PrunePolicy};
    let every = std::time::Duration::from_millis(100);
    let h = Harness::with_limits(Limits { prune: PrunePolicy { max_per_register: 3, interval: every, ..PrunePolicy::default() }, ..Limits::default() }).await;
    let (store, reg) = h.store_with_register("Main St").await;
    let other = h.register_in(&store, "Till 2").await;
    for i in 0..6u64 {
        reg.send(&batch(&reg, 1 + 3 * i, sale(&format!("k{i}"), 100)), &format!("key-{i}")).await.unwrap();
    }
    other.send(&batch(&other, 1, sale("o", 100)), "other-key").await.unwrap();
    // the server prunes on its own: each register keeps its newest 3
    let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while h.count("SELECT count(*) FROM batch_keys").await != 4 {
        assert!(std::time::Instant::now() < end, "the server never pruned");
        tokio::time::sleep(every).await;
    }
    let kept: Vec<String> = h.db().await.query("SELECT idem_key FROM batch_keys ORDER BY idem_key", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(kept, ["key-3", "key-4", "key-5", "other-key"]);
    // by age: keys older than max_age go whatever their count. The two keys are made 6 days
    // old (the server's own pruner, running every 100 ms with the 7-day default, keeps them)
    // and the pruning is asked for 2 days later, when they are 8 days old and the rest 2.
    let db = h.db().await;
    let day_ms = 86_400_000i64;
    let now = paydesk_backoffice::state::now_ms();
    db.execute("UPDATE batch_keys SET received_ms = $1 WHERE idem_key IN ('key-3', 'other-key')", &[&(now - 6 * day_ms)]).await.unwrap();
    let policy = PrunePolicy { max_per_register: 1000, ..PrunePolicy::default() };
    assert_eq!(policy.max_age, std::time::Duration::from_secs(7 * 86_400), "the arithmetic above assumes the 7-day default");
    assert_eq!(prune_batch_keys(&db, now + 2 * day_ms, &policy).await.unwrap(), 2);
    assert_eq!(h.count("SELECT count(*) FROM batch_keys").await, 2);
    // a pruned key's batch comes again: recognised by its stored rows, applied once
    let before = snapshot(&h).await;
    let a = reg.send(&batch(&reg, 1, sale("k0", 100)), "key-0").await.unwrap();
    assert_eq!((a.acked_through, a.applied), (18, 0));
    assert_eq!(snapshot(&h).await["journal"], before["journal"]);
}
