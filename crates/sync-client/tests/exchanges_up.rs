//! Exchanges travel up as what they are made of (record 0123) and as the `exchange_recorded`
//! link between the two sales (record 0145), against the REAL back office
//! on a private PostgreSQL with a real ledger file: the return of the old sale, the new
//! sale, and only the money that moved (the difference paid, or given back). No exchange
//! fact is needed for the owner's numbers to be true: the back office takes every row, and
//! its takings (tenders less refunds and cash given back) equal its net sales (sales less
//! returns), exactly as the register's books balance.
use crate::register;
use crate::support;

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;
use register::Register;
use support::Harness;

const T: i64 = 1_790_000_000_000;

fn captured_card(l: &mut Ledger, cart: CartId, amount: Option<i64>, at: i64) {
    let p = l.sales_mut().open_card_tender(cart, amount, &CheckoutOptions::card("pm_card_visa"), None, at).unwrap().payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", at + 1).unwrap();
    let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}", p.id), amount: p.amount, state_if_new: PaymentState::Captured };
    l.payments_mut().record_psp_result(&rec, at + 2).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", at + 3).unwrap();
}

#[tokio::test]
async fn an_exchange_arrives_as_its_return_its_new_sale_and_the_money_that_moved_and_the_books_balance() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    // The old sale, lines in SKU order: 0 COF-001 ×2 (¥250), 1 MUG-001 (¥1,650): ¥1,000 by
    // card, the rest in cash.
    let old = l.carts_mut().create(Currency::Jpy, T + 10).unwrap();
    l.carts_mut().add(old, "COF-001", 2, T + 10).unwrap();
    l.carts_mut().add(old, "MUG-001", 1, T + 10).unwrap();
    captured_card(l, old, Some(1000), T + 11);
    let due = l.sales().by_cart(old).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(old, due, None, T + 15).unwrap();
    // The mug for two mugs: ¥1,650 credited, the other ¥1,650 paid in cash.
    let dearer = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(dearer, "MUG-001", 2, T + 20).unwrap();
    let x = l.returns_mut().exchange(old, &[Returned { line: 1, quantity: 1 }], dearer, Some("a pair"), false, T + 21).unwrap();
    assert_eq!((x.credit_minor, x.new_sale.totals.due_minor), (1650, 1650));
    l.sales_mut().pay_cash(dearer, 1650, None, T + 22).unwrap();
    // A coffee for a croissant: ¥220 credited, ¥30 given back (the card has nothing left:
    // the first exchange's credit took it, so cash).
    let cheaper = l.carts_mut().create(Currency::Jpy, T + 30).unwrap();
    l.carts_mut().add(cheaper, "CRO-001", 1, T + 30).unwrap();
    let y = l.returns_mut().exchange(old, &[Returned { line: 0, quantity: 1 }], cheaper, None, false, T + 31).unwrap();
    assert_eq!((y.credit_minor, y.new_sale.state, y.ret.cash_out_minor + y.ret.card_refunds.iter().map(|(_, r)| r.amount.amount_minor).sum::<i64>()), (220, SaleState::Paid, 30));
    for (_, r) in &y.ret.card_refunds {
        l.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, T + 32).unwrap();
    }

    let outbox = reg.ledger.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap();
    reg.pair(&h, &store).await;
    let round = reg.sync_loop().round().await.unwrap();
    assert_eq!(round.rows_sent, outbox.len() as u64, "every row taken");
    let db = h.db().await;
    let journal: i64 = db.query_one("SELECT count(*) FROM journal", &[]).await.unwrap().get(0);
    assert_eq!(journal, outbox.len() as i64);

    // The owner's figures: 3 sales, 2 returns, net = sales - returns ...
    let l = &reg.ledger;
    let sold: i64 = [old, dearer, cheaper].iter().map(|c| l.sales().by_cart(*c).unwrap().totals.total_minor).sum();
    let returned = x.ret.record.total_minor + y.ret.record.total_minor;
    let dash = h.owner.get("/admin/dashboard").await.unwrap();
    let net = &dash["sales_net"][0];
    assert_eq!(
        (net["sales"].as_i64(), net["sold"].as_i64(), net["returns"].as_i64(), net["returned"].as_i64(), net["net"].as_i64()),
        (Some(3), Some(sold), Some(2), Some(returned), Some(sold - returned)),
        "{dash}"
    );
    // ... and what came in less what went out is the same figure: the credit moved no money.
    let took: i64 = dash["tenders_by_store"].as_array().unwrap().iter().map(|t| t["amount"].as_i64().unwrap() - t["change_given"].as_i64().unwrap()).sum();
    let card_back: i64 = dash["refunds"].as_array().unwrap().iter().filter(|r| r["state"] == "succeeded").map(|r| r["amount"].as_i64().unwrap()).sum();
    let cash_back = net["cash_refunded"].as_i64().unwrap();
    assert_eq!(took - card_back - cash_back, sold - returned, "takings less money given back = net sales: {dash}");
    assert_eq!(took, sold - x.credit_minor - y.credit_minor, "tenders are the sales less what the credits paid");

    // The exchanges themselves (record 0145): each links the old sale, its return and the new
    // sale with the credit, stored once; the dashboard says "exchanged for sale N".
    let mut links: Vec<(i64, String, i64, i64, bool)> = dash["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["old_sale_id"].as_i64().unwrap(), e["return_no"].as_str().unwrap().to_string(), e["new_sale_id"].as_i64().unwrap(), e["credit"].as_i64().unwrap(), e["new_sale_completed"].as_bool().unwrap()))
        .collect();
    links.sort();
    assert_eq!(
        links,
        vec![(old.0, x.ret.record.number.clone(), dearer.0, 1650, true), (old.0, y.ret.record.number.clone(), cheaper.0, 220, true)],
        "{dash}"
    );
    // Each exchange's fact follows its return's in the journal.
    let kinds: Vec<String> = db.query("SELECT kind FROM journal ORDER BY seq", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    let after_return: Vec<&str> = kinds.windows(2).filter(|w| w[1] == "exchange_recorded").map(|w| w[0].as_str()).collect();
    assert_eq!(after_return, ["return_recorded", "return_recorded"], "{kinds:?}");
    // A second round sends nothing more and stores nothing twice.
    let again = reg.sync_loop().round().await.unwrap();
    assert_eq!(again.rows_sent, 0);
    assert_eq!(db.query_one("SELECT count(*) FROM sale_exchanges", &[]).await.unwrap().get::<_, i64>(0), 2);
}
