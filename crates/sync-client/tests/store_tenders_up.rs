//! The store's own tenders travel up (record 0121), against the REAL back office on a
//! private PostgreSQL with a real ledger file: a ¥1,000 voucher on an ¥800 sale (¥200
//! forfeited), a PayPay tender with its slip beside cash, and a return whose refund goes
//! back to the voucher arrive row for row as the register recorded them, and the owner's
//! dashboard shows per store tender type what the register's takings show.
use crate::register;
use crate::support;

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_sync_proto::{Fact, TenderMethod};
use paydesk_tax::Returned;
use register::Register;
use serde_json::Value;
use support::Harness;

const T: i64 = 1_790_000_000_000;

/// (sale, tender_seq, amount, type name, kind, slip, offered, forfeited, change)
type StoreRow = (i64, i32, i64, String, String, Option<String>, i64, i64, i64);
/// (refund, sale, tender_seq, amount)
type RefundRow = (i64, i64, i32, i64);

fn register_side(l: &Ledger) -> (Vec<StoreRow>, Vec<RefundRow>) {
    let mut st = l
        .connection()
        .prepare(
            "SELECT t.cart_id, t.seq, t.amount_minor, y.name, y.kind, t.reference, t.offered_minor, t.forfeited_minor, t.change_minor
             FROM tenders t JOIN tender_types y ON y.id = t.tender_type_id ORDER BY t.cart_id, t.seq",
        )
        .unwrap();
    let tenders = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut st = l.connection().prepare("SELECT s.id, s.cart_id, t.seq, s.amount_minor FROM store_refunds s JOIN tenders t ON t.id = s.tender_id ORDER BY s.id").unwrap();
    let refunds = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap().map(Result::unwrap).collect();
    (tenders, refunds)
}

async fn back_office_side(h: &Harness) -> (Vec<StoreRow>, Vec<RefundRow>) {
    let db = h.db().await;
    let tenders = db
        .query(
            "SELECT sale_id, tender_seq, amount, tender_type_name, tender_type_kind, slip, offered, forfeited, change_given
             FROM tenders WHERE method = 'store' ORDER BY sale_id, tender_seq",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6), r.get(7), r.get(8)))
        .collect();
    let refunds = db
        .query("SELECT refund_id, sale_id, tender_seq, amount FROM store_refunds ORDER BY refund_id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    (tenders, refunds)
}

#[tokio::test]
async fn store_tenders_and_their_refunds_arrive_row_for_row_and_the_dashboard_shows_each_type() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let voucher = l.tender_types_mut().add("商品券", StoreTenderKind::Voucher, false, true, T).unwrap();
    let paypay = l.tender_types_mut().add("PayPay", StoreTenderKind::Qr, false, false, T).unwrap();
    // an ¥800 sale (five green teas) paid with a ¥1,000 voucher: ¥200 forfeited
    let a = l.carts_mut().create(Currency::Jpy, T + 10).unwrap();
    l.carts_mut().add(a, "TEA-001", 5, T + 10).unwrap();
    assert_eq!(l.sales().by_cart(a).unwrap().totals.due_minor, 800);
    let paid = l.sales_mut().pay_store(a, voucher.id, 1_000, None, None, T + 11).unwrap();
    assert_eq!((paid.split.amount_minor, paid.split.forfeited_minor, paid.sale.state), (800, 200, SaleState::Paid));
    // a mug: ¥1,000 by PayPay with its slip, the rest in cash
    let b = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(b, "MUG-001", 1, T + 20).unwrap();
    l.sales_mut().pay_store(b, paypay.id, 1_000, Some("PP-0042-7781"), None, T + 21).unwrap();
    l.sales_mut().pay_cash(b, 1_000, None, T + 22).unwrap();
    assert_eq!(l.sales().by_cart(b).unwrap().state, SaleState::Paid);
    // two teas come back: given back to the voucher, as a voucher
    let back = l.returns_mut().take_back(a, &[Returned { line: 0, quantity: 2 }], None, false, T + 30).unwrap();
    assert_eq!((back.cash_out_minor, back.card_refunds.len()), (0, 0));

    let want: Vec<(i64, i64, Value)> = reg
        .ledger
        .sync_log()
        .outbox_batch(0, MAX_OUTBOX_BATCH)
        .unwrap()
        .into_iter()
        .map(|r| (r.seq as i64, r.at_ms, serde_json::from_str(&r.fact_json).unwrap()))
        .collect();
    // each store fact is exactly serde's form of its wire type
    let mut store_facts = 0;
    for (seq, _, f) in &want {
        let fact: Fact = serde_json::from_value(f.clone()).unwrap_or_else(|e| panic!("seq {seq}: {e}"));
        assert_eq!(&serde_json::to_value(&fact).unwrap(), f, "seq {seq}");
        store_facts += match &fact {
            Fact::TenderAdded(t) => matches!(t.method, TenderMethod::Store(_)) as usize,
            Fact::StoreRefunded { .. } => 1,
            _ => 0,
        };
    }
    assert_eq!(store_facts, 3, "two store tenders, one store refund");

    reg.pair(&h, &store).await;
    let round = reg.sync_loop().round().await.unwrap();
    assert_eq!(round.rows_sent, want.len() as u64);
    let journal: Vec<(i64, i64, Value)> =
        h.db().await.query("SELECT seq, at_ms, fact FROM journal ORDER BY seq", &[]).await.unwrap().iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    assert_eq!(journal, want, "the journal row by row");

    let mine = register_side(&reg.ledger);
    assert_eq!((mine.0.len(), mine.1.len()), (2, 1));
    assert_eq!(mine.0[0].7, 200, "the voucher's forfeit");
    assert_eq!(mine.0[1].5.as_deref(), Some("PP-0042-7781"));
    assert_eq!(back_office_side(&h).await, mine, "store tenders and store refunds, row for row");

    // the dashboard per type: the register's takings per store type, and what went back
    let (takings, _) = reg.ledger.sales().takings(Currency::Jpy, Period::Since(T)).unwrap();
    let dash = h.owner.get("/admin/dashboard").await.unwrap();
    let mut got: Vec<(String, i64, i64, i64)> = dash["store_tenders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), r["tenders"].as_i64().unwrap(), r["amount"].as_i64().unwrap(), r["refunded"].as_i64().unwrap()))
        .collect();
    got.sort();
    let mut want_types: Vec<(String, i64, i64, i64)> = takings
        .by_store_type
        .iter()
        .map(|s| {
            let refunded: i64 = mine.1.iter().filter(|x| mine.0.iter().any(|t| (t.0, t.1, t.3.as_str()) == (x.1, x.2, s.name.as_str()))).map(|x| x.3).sum();
            (s.name.clone(), s.count, s.amount_minor, refunded)
        })
        .collect();
    want_types.sort();
    assert_eq!(got, want_types, "{dash}");
    assert_eq!(takings.store_refunds_minor, want_types.iter().map(|w| w.3).sum::<i64>());
    assert_eq!(want_types.iter().find(|w| w.0 == "商品券").map(|w| (w.2, w.3)), Some((800, 320)), "{dash}");
    let v = dash["store_tenders"].as_array().unwrap().iter().find(|r| r["name"] == "商品券").unwrap();
    assert_eq!((v["kind"].as_str(), v["forfeited"].as_i64()), (Some("voucher"), Some(200)));
}
