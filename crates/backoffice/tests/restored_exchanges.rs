//! A replacement's exchange of its predecessor's sale (record 0153, addendum "the link to
//! the back office", V21): the register sends the restored return (kept under the
//! predecessor's sale, V16) and then `exchange_recorded` naming the predecessor as
//! `sale_register`. The back office stores the link once, beside the register's own
//! exchanges (their ids are another counter), and the dashboard says "sale 1 of Front till ·
//! exchanged for sale 1". A link no ledger could have written is refused whole with
//! `exchange_contradicts_sale` and its seq, nothing applied: from a register that never
//! restored the predecessor, naming a return that is not a restored return of that sale
//! taken back by the sender, a credit above that return's worth, a sale the predecessor
//! never completed. The same link again under another seq is refused; a redelivered batch
//! changes nothing. And V21 upgrades a V20 database holding an exchange.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::Row;
use serde_json::{json, Value};
use crate::facts::*;
use support::*;
use crate::upgrades::Older;

/// Return `k` of `sale`: line `line` (`sku`, worth `net`) back, of register `of` (None: the sender's).
fn ret(sale: i64, k: i64, (line, sku, net): (i64, &str, i64), of: Option<&str>) -> Row {
    let mut f = json!({"kind": "return_recorded", "sale": sale, "return_no": format!("{sale:06}-R{k}"), "currency": "jpy",
                       "total": net, "tax_total": 0, "cash_out": 0, "rates": [],
                       "lines": [{"line": line, "sku": sku, "quantity": 1, "tax_class": "exempt", "net": net}]});
    if let Some(of) = of {
        f["sale_register"] = json!(of);
    }
    row(f)
}

fn exchange(id: i64, (old, k): (i64, i64), new: i64, credit: i64, of: Option<&str>) -> Row {
    exchange_parts(id, (old, k), new, credit, of, None)
}

/// An exchange, with its credit per tender of the old sale when `parts` (record 0157).
fn exchange_parts(id: i64, (old, k): (i64, i64), new: i64, credit: i64, of: Option<&str>, parts: Option<Value>) -> Row {
    let mut f = json!({"kind": "exchange_recorded", "exchange": id, "old_sale": old, "return_no": format!("{old:06}-R{k}"),
                       "new_sale": new, "credit": credit, "currency": "jpy"});
    if let Some(of) = of {
        f["sale_register"] = json!(of);
    }
    if let Some(p) = parts {
        f["credit_parts"] = p;
    }
    row(f)
}

async fn snapshot(h: &Harness) -> Vec<i64> {
    let mut out = vec![];
    for t in ["journal", "sale_exchanges", "sale_returns", "sales"] {
        out.push(h.count(&format!("SELECT count(*) FROM {t}")).await);
    }
    out
}

async fn refused(reg: &RegisterClient, first: u64, rows: Vec<Row>, name: &str) -> (u16, String, Option<i64>, String) {
    let e = reg.send(&batch(reg, first, rows), &name.replace(' ', "-")).await.expect_err(name);
    let ClientError::Refused(r) = e else { panic!("{name}: {e:?}") };
    (r.status, r.code().to_string(), r.body["error"]["seq"].as_i64(), r.body["error"]["message"].as_str().unwrap_or("").to_string())
}

#[tokio::test]
async fn a_restored_exchange_links_the_predecessors_sale_to_the_replacements_and_an_impossible_one_is_refused() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let a = h.register_in(&store, "Front till").await;
    let a_id = a.paired.register_id.clone();
    // A: sale 1, and its own return R1 of one "A".
    let mut rows = two_line_cash_sale(1);
    rows.push(ret(1, 1, (0, "A", 300), None));
    assert_eq!(a.send(&batch(&a, 1, rows), "a").await.unwrap().acked_through, 3);
    h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.unwrap();
    let b = h.register_in(&store, "New till").await;
    let c = h.register_in(&store, "Back till").await;
    b.get("/v1/restore/rows", &[("from", a_id.as_str())]).await.unwrap();
    let b_id = b.paired.register_id.clone();

    // B: its own sale 1 (the new sale: the same id as A's, another register's), A's "B" back
    // as restored return R2 (400), exchanged into B's sale 1 for 400; then B's own sale 2,
    // its own return and own exchange 1 into sale 3 (own exchange ids are another counter).
    let mut rows = two_line_cash_sale(1);
    rows.push(ret(1, 2, (1, "B", 400), Some(&a_id)));
    // Its credit per tender of A's sale (record 0157): all 400 out of A's cash tender 1.
    rows.push(exchange_parts(1, (1, 2), 1, 400, Some(&a_id), Some(json!([{"tender_seq": 1, "amount": 400}]))));
    rows.extend(two_line_cash_sale(2));
    rows.extend(two_line_cash_sale(3));
    rows.push(ret(2, 1, (0, "A", 300), None));
    rows.push(exchange(1, (2, 1), 3, 300, None));
    assert_eq!(b.send(&batch(&b, 1, rows.clone()), "b").await.unwrap().acked_through, 10);
    let stored = h
        .count(&format!(
        "SELECT count(*) FROM sale_exchanges WHERE register_id::text = '{b_id}' AND old_register_id::text = '{a_id}'
           AND exchange_id = 1 AND old_sale_id = 1 AND return_no = '000001-R2' AND new_sale_id = 1 AND credit = 400"
        ))
        .await;
    assert_eq!(stored, 1, "the restored link, the old sale under A");
    let parts = format!(
        "SELECT count(*) FROM sale_exchange_parts WHERE register_id::text = '{b_id}' AND old_register_id::text = '{a_id}'
           AND exchange_id = 1 AND old_sale_id = 1 AND tender_seq = 1 AND amount = 400"
    );
    assert_eq!(h.count(&parts).await, 1, "its credit kept against A's tender, where A's own exchanges' parts are counted too (V23)");
    assert_eq!(h.count(&format!("SELECT count(*) FROM sale_exchanges WHERE register_id::text = '{b_id}' AND old_register_id = register_id")).await, 1);
    let before = snapshot(&h).await;
    assert_eq!(before, vec![13, 2, 3, 4]);

    // Impossible links: refused by rule and seq, nothing of the batch applied.
    let zero = "00000000-0000-0000-0000-000000000000";
    let cases: Vec<(&str, &RegisterClient, Vec<Row>, &str)> = vec![
        ("a register that never restored A", &c, vec![exchange(1, (1, 2), 1, 100, Some(&a_id))], "never restored from"),
        ("no such predecessor", &b, vec![exchange(2, (1, 2), 4, 100, Some(zero))], "never restored from"),
        ("A's own return, not taken back here", &b, vec![exchange(2, (1, 1), 4, 100, Some(&a_id))], "was not taken back by this register"),
        ("a return A's sale never had", &b, vec![exchange(2, (1, 7), 4, 100, Some(&a_id))], "return 000001-R7 was never recorded by register"),
        ("a sale A never completed", &b, vec![exchange(2, (9, 1), 4, 100, Some(&a_id))], "sale 9 was never completed by register"),
        ("B's own return named as A's", &b, vec![exchange(2, (2, 1), 4, 100, Some(&a_id))], "sale 2 was never completed by register"),
        (
            "a credit above the restored return",
            &b,
            vec![ret(1, 3, (0, "A", 300), Some(&a_id)), exchange(2, (1, 3), 4, 301, Some(&a_id))],
            "credits 301 out of return 000001-R3, which came to 300",
        ),
        ("A's restored return as B's own", &b, vec![exchange(2, (1, 2), 4, 100, None)], "return 000001-R2 was never recorded by this register"),
        (
            "a credit part of a tender A's sale never had",
            &b,
            vec![ret(1, 3, (0, "A", 300), Some(&a_id)), exchange_parts(2, (1, 3), 4, 300, Some(&a_id), Some(json!([{"tender_seq": 2, "amount": 300}])))],
            "credits tender 2 of sale 1, which it does not have",
        ),
    ];
    for (name, reg, rows, want) in cases {
        let first = if reg.paired.register_id == b_id { 11 } else { 1 };
        let seq = first as i64 + rows.len() as i64 - 1;
        let (status, code, got_seq, msg) = refused(reg, first, rows, name).await;
        assert_eq!((status, code.as_str(), got_seq), (422, "exchange_contradicts_sale", Some(seq)), "{name}: {msg}");
        assert!(msg.contains(want), "{name}: {msg} (wanted {want})");
        assert_eq!(snapshot(&h).await, before, "{name}: nothing applied");
    }
    // The same link again under another seq, or a second link of the same return: refused,
    // still one row.
    for (name, x) in [("twice", exchange(1, (1, 2), 1, 400, Some(&a_id))), ("same return", exchange(2, (1, 2), 4, 400, Some(&a_id)))] {
        let (status, _, _, msg) = refused(&b, 11, vec![x], name).await;
        assert_eq!(status, 422, "{name}: {msg}");
        assert_eq!(snapshot(&h).await, before, "{name}");
    }
    // The same batch again (a redelivery) is acknowledged and changes nothing.
    assert_eq!(b.send(&batch(&b, 1, rows), "b").await.unwrap().acked_through, 10);
    assert_eq!(snapshot(&h).await, before);

    // The dashboard: "sale 1 of Front till · 000001-R2 · exchanged for sale 1" sent by New
    // till; B's own exchange names no other register.
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let mut x: Vec<(String, i64, Option<String>, String, i64, i64, bool)> = d["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            let s = |k: &str| x[k].as_str().map(str::to_string);
            let n = |k: &str| x[k].as_i64().unwrap();
            (s("register").unwrap(), n("old_sale_id"), s("old_register"), s("return_no").unwrap(), n("new_sale_id"), n("credit"), x["new_sale_completed"].as_bool().unwrap())
        })
        .collect();
    x.sort();
    assert_eq!(
        x,
        vec![
            ("New till".into(), 1, Some("Front till".into()), "000001-R2".into(), 1, 400, true),
            ("New till".into(), 2, None, "000002-R1".into(), 3, 300, true),
        ],
        "{d}"
    );
}

/// V21 on a V20 database holding a register's own exchange: the exchange keeps its meaning
/// (its old sale is the sender's own), and the new rules stand on it.
#[tokio::test]
async fn v21_upgrades_a_v20_database_keeping_its_exchanges_the_senders_own() {
    let old = Older::at(20).await;
    let c = &old.client;
    let (s, r) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    c.batch_execute(&format!(
        "INSERT INTO stores (store_id, name, created_ms) VALUES ('{s}', 'S', 1);
         INSERT INTO registers (store_id, register_id, name, token_hash, paired_ms, acked_through) VALUES ('{s}', '{r}', 'R', '\\x00', 1, 9);
         INSERT INTO sales (store_id, register_id, sale_id, receipt_no, currency, dining, subtotal, sale_discount, tax_total, total, completed_at_ms)
         VALUES ('{s}', '{r}', 1, '000001', 'jpy', 'take_out', 1000, 0, 0, 1000, 1), ('{s}', '{r}', 2, '000002', 'jpy', 'take_out', 600, 0, 0, 600, 2);
         INSERT INTO sale_returns (store_id, register_id, sale_id, return_no, currency, total, tax_total, cash_out, returned_at_ms)
         VALUES ('{s}', '{r}', 1, '000001-R1', 'jpy', 500, 0, 0, 3), ('{s}', '{r}', 1, '000001-R2', 'jpy', 500, 0, 0, 4);
         INSERT INTO sale_exchanges (store_id, register_id, exchange_id, old_sale_id, return_no, new_sale_id, credit, currency, exchanged_at_ms)
         VALUES ('{s}', '{r}', 1, 1, '000001-R1', 2, 500, 'jpy', 3);"
    ))
    .await
    .unwrap();
    old.upgrade().await.expect("migrates to V21");
    let row = c.query_one("SELECT old_register_id = register_id, exchange_id, return_no FROM sale_exchanges", &[]).await.unwrap();
    assert_eq!((row.get::<_, bool>(0), row.get::<_, i64>(1), row.get::<_, String>(2)), (true, 1, "000001-R1".to_string()));
    let insert = |id: i64, ret: &str, new: i64, old_reg: &str| {
        format!(
            "INSERT INTO sale_exchanges (store_id, register_id, exchange_id, old_sale_id, return_no, new_sale_id, credit, currency, exchanged_at_ms, old_register_id)
             VALUES ('{s}', '{r}', {id}, 1, '{ret}', {new}, 100, 'jpy', 5, {old_reg})"
        )
    };
    use tokio_postgres::error::SqlState;
    for (name, sql, state) in [
        ("no old register", insert(2, "000001-R2", 3, "NULL"), SqlState::NOT_NULL_VIOLATION),
        ("an own exchange into its old sale", insert(2, "000001-R2", 1, &format!("'{r}'")), SqlState::CHECK_VIOLATION),
        ("a second exchange of one return", insert(2, "000001-R1", 3, &format!("'{r}'")), SqlState::UNIQUE_VIOLATION),
        ("a return of another register", insert(2, "000001-R2", 3, &format!("'{}'", uuid::Uuid::new_v4())), SqlState::FOREIGN_KEY_VIOLATION),
    ] {
        let e = c.batch_execute(&sql).await.unwrap_err();
        assert_eq!(e.code(), Some(&state), "{name}: {e}");
    }
    c.batch_execute(&insert(2, "000001-R2", 3, &format!("'{r}'"))).await.expect("a second own exchange of another return");
}

/// V23 keeps each exchange's credit per tender and what it carried on, read back from the facts already stored:
/// register b's own exchange and its restored exchange of a's sale (the same exchange id 1,
/// two counters) each get their own parts; a fact without parts (before ledger v44) gets
/// none. A later exchange is then checked against them (`impossible_exchanges`).
#[tokio::test]
async fn v23_upgrades_a_v22_database_keeping_the_credit_parts_its_journal_holds() {
    let old = Older::at(22).await;
    let c = &old.client;
    let (s, a, b) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    let sale = |r: uuid::Uuid, id: i64| {
        format!("('{s}', '{r}', {id}, '00000{id}', 'jpy', 'take_out', 1000, 0, 0, 1000, {id})")
    };
    let fact = |x: Value| x.to_string().replace('\'', "''");
    let own = fact(json!({"kind": "exchange_recorded", "exchange": 1, "old_sale": 1, "return_no": "000001-R1", "new_sale": 2,
                          "credit": 500, "currency": "jpy", "credit_parts": [{"tender_seq": 1, "amount": 200}, {"tender_seq": 2, "amount": 250}],
                          "credit_carried": 50}));
    let restored = fact(json!({"kind": "exchange_recorded", "exchange": 1, "old_sale": 1, "return_no": "000001-R1", "new_sale": 3,
                               "credit": 400, "currency": "jpy", "sale_register": a.to_string(), "credit_parts": [{"tender_seq": 1, "amount": 400}]}));
    let partless = fact(json!({"kind": "exchange_recorded", "exchange": 2, "old_sale": 1, "return_no": "000001-R2", "new_sale": 4,
                               "credit": 100, "currency": "jpy"}));
    c.batch_execute(&format!(
        "INSERT INTO stores (store_id, name, created_ms) VALUES ('{s}', 'S', 1);
         INSERT INTO registers (store_id, register_id, name, token_hash, paired_ms, acked_through)
         VALUES ('{s}', '{a}', 'A', '\\x00', 1, 0), ('{s}', '{b}', 'B', '\\x01', 1, 3);
         INSERT INTO sales (store_id, register_id, sale_id, receipt_no, currency, dining, subtotal, sale_discount, tax_total, total, completed_at_ms)
         VALUES {}, {}, {}, {}, {};
         INSERT INTO sale_returns (store_id, register_id, sale_id, return_no, currency, total, tax_total, cash_out, returned_at_ms)
         VALUES ('{s}', '{b}', 1, '000001-R1', 'jpy', 500, 0, 0, 3), ('{s}', '{b}', 1, '000001-R2', 'jpy', 100, 0, 0, 3),
                ('{s}', '{a}', 1, '000001-R1', 'jpy', 400, 0, 0, 3);
         INSERT INTO sale_exchanges (store_id, register_id, exchange_id, old_sale_id, return_no, new_sale_id, credit, currency, exchanged_at_ms, old_register_id)
         VALUES ('{s}', '{b}', 1, 1, '000001-R1', 2, 500, 'jpy', 3, '{b}'), ('{s}', '{b}', 1, 1, '000001-R1', 3, 400, 'jpy', 3, '{a}'),
                ('{s}', '{b}', 2, 1, '000001-R2', 4, 100, 'jpy', 3, '{b}');
         INSERT INTO journal (store_id, register_id, seq, at_ms, kind, fact, received_ms)
         VALUES ('{s}', '{b}', 1, 3, 'exchange_recorded', '{own}', 3), ('{s}', '{b}', 2, 3, 'exchange_recorded', '{restored}', 3),
                ('{s}', '{b}', 3, 3, 'exchange_recorded', '{partless}', 3);",
        sale(a, 1),
        sale(b, 1),
        sale(b, 2),
        sale(b, 3),
        sale(b, 4),
    ))
    .await
    .unwrap();
    old.upgrade().await.expect("migrates to V23");
    let rows = c
        .query(
            "SELECT old_register_id = register_id, exchange_id, tender_seq, amount FROM sale_exchange_parts ORDER BY 1 DESC, 2, 3",
            &[],
        )
        .await
        .unwrap();
    let got: Vec<(bool, i64, i32, i64)> = rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect();
    assert_eq!(got, vec![(true, 1, 1, 200), (true, 1, 2, 250), (false, 1, 1, 400)], "the own and the restored exchange's parts, none guessed");
    let rows = c.query("SELECT exchange_id, old_register_id = register_id, credit_carried FROM sale_exchanges ORDER BY 2 DESC, 1", &[]).await.unwrap();
    let got: Vec<(i64, bool, i64)> = rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    assert_eq!(got, vec![(1, true, 50), (2, true, 0), (1, false, 0)], "what each carried on, 0 where its fact says nothing");
}
