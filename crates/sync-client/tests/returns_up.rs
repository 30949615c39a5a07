//! Returns and the drawer's cash refunds travel up (record 0119), against the REAL back
//! office on a private PostgreSQL with a real ledger file: each return arrives with its
//! lines and tax per rate row for row as the register recorded it, each cash hand-back
//! (by a return or a refund by amount) as its drawer movement, and the owner's dashboard
//! nets them: sales less returns, tax per rate less the tax given back, the cash refunded.
use crate::register;
use crate::support;

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_sync_proto::Fact;
use paydesk_tax::{Returned, TaxClass};
use register::Register;
use serde_json::Value;
use support::Harness;

const T: i64 = 1_790_000_000_000;

fn class(c: TaxClass) -> String {
    serde_json::to_value(c).unwrap().as_str().unwrap().to_string()
}

fn queued(reg: &Register) -> Vec<(i64, i64, Value)> {
    let rows = reg.ledger.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap();
    rows.into_iter().map(|r| (r.seq as i64, r.at_ms, serde_json::from_str(&r.fact_json).unwrap())).collect()
}

fn captured_card(l: &mut Ledger, cart: CartId, at: i64) {
    let p = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, at).unwrap().payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", at + 1).unwrap();
    let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}", p.id), amount: p.amount, state_if_new: PaymentState::Captured };
    l.payments_mut().record_psp_result(&rec, at + 2).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", at + 3).unwrap();
}

type Head = (i64, String, String, i64, i64, i64);
type Line = (String, i32, String, i32, String, i64);
type Rate = (String, String, i32, i64, i64, i64);
/// (movement, sale, amount)
type CashOut = (i64, i64, i64);
type Side = (Vec<Head>, Vec<Line>, Vec<Rate>, Vec<CashOut>);

fn register_side(l: &Ledger, carts: &[CartId]) -> Side {
    let (mut heads, mut lines, mut rates) = (Vec::new(), Vec::new(), Vec::new());
    for &cart in carts {
        for r in l.returns().by_sale(cart).unwrap() {
            heads.push((cart.0, r.number.clone(), r.currency.code().to_string(), r.total_minor, r.tax_minor, r.cash_out_minor));
            for x in &r.lines {
                lines.push((r.number.clone(), x.line as i32 + 1, x.sku.clone(), x.quantity as i32, class(x.class), x.net_minor));
            }
            for x in &r.rates {
                rates.push((r.number.clone(), class(x.class), x.ppm as i32, x.base, x.tax, x.gross));
            }
        }
    }
    heads.sort();
    lines.sort();
    rates.sort();
    let mut st = l.connection().prepare("SELECT id, cart_id, -amount_minor FROM cash_movements WHERE kind = 'refund_out' ORDER BY id").unwrap();
    let cash = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    (heads, lines, rates, cash)
}

async fn back_office_side(h: &Harness) -> Side {
    let db = h.db().await;
    let heads = db
        .query("SELECT sale_id, return_no, currency, total, tax_total, cash_out FROM sale_returns ORDER BY sale_id, return_no", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
        .collect();
    let lines = db
        .query("SELECT return_no, line_no, sku, quantity, tax_class, net FROM sale_return_lines ORDER BY return_no, line_no", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
        .collect();
    let rates = db
        .query("SELECT return_no, class, ppm, base, tax, gross FROM sale_return_rates ORDER BY return_no, class", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
        .collect();
    let cash = db
        .query("SELECT movement_id, sale_id, amount FROM cash_refunds ORDER BY movement_id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    (heads, lines, rates, cash)
}

#[tokio::test]
async fn returns_and_cash_refunds_arrive_row_for_row_and_the_dashboard_nets_them() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    // a cash sale, lines in SKU order: 0 CRO-001 (8 %), 1 MUG-001 (10 %), 2 TEA-001 ×2 (8 %)
    let a = l.carts_mut().create(Currency::Jpy, T + 10).unwrap();
    for (sku, q) in [("TEA-001", 2), ("MUG-001", 1), ("CRO-001", 1)] {
        l.carts_mut().add(a, sku, q, T + 10).unwrap();
    }
    l.sales_mut().pay_cash(a, 10_000, None, T + 11).unwrap();
    // a card sale: 0 COF-001 ×3 (8 %), 1 MUG-001 (10 %)
    let b = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(b, "COF-001", 3, T + 20).unwrap();
    l.carts_mut().add(b, "MUG-001", 1, T + 20).unwrap();
    captured_card(l, b, T + 21);

    // the mug of the cash sale comes back (cash out), then a refund by amount (cash out),
    // then one tea (8 %); one coffee of the card sale (a card refund, no cash)
    let mug = l.returns_mut().take_back(a, &[Returned { line: 1, quantity: 1 }], Some("chipped"), false, T + 30).unwrap();
    assert!(mug.card_refunds.is_empty() && mug.cash_out_minor == mug.record.total_minor, "{mug:?}");
    let by_amount = l.sales_mut().plan_refund(a, Some(100), Some("goodwill"), T + 31).unwrap();
    assert_eq!(by_amount.cash_out_minor, 100);
    let tea = l.returns_mut().take_back(a, &[Returned { line: 2, quantity: 1 }], None, false, T + 32).unwrap();
    assert_eq!(tea.record.rates.iter().map(|r| (r.class, r.ppm)).collect::<Vec<_>>(), [(TaxClass::Reduced, 80_000)]);
    let cof = l.returns_mut().take_back(b, &[Returned { line: 0, quantity: 1 }], None, false, T + 33).unwrap();
    assert_eq!((cof.card_refunds.len(), cof.cash_out_minor), (1, 0));
    for (_, r) in &cof.card_refunds {
        l.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, T + 34).unwrap();
    }

    let want = queued(&reg);
    let kinds: Vec<&str> = want.iter().map(|(_, _, f)| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "return_recorded").count(), 3, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "cash_refunded").count(), 3, "{kinds:?}");
    // each new row is exactly serde's form of its fact, and valid on the wire
    for (seq, _, f) in want.iter().filter(|(_, _, f)| matches!(f["kind"].as_str(), Some("return_recorded" | "cash_refunded"))) {
        let fact: Fact = serde_json::from_value(f.clone()).unwrap_or_else(|e| panic!("seq {seq}: {e}"));
        assert_eq!(&serde_json::to_value(&fact).unwrap(), f, "seq {seq}");
    }

    reg.pair(&h, &store).await;
    let round = reg.sync_loop().round().await.unwrap();
    assert_eq!(round.rows_sent, want.len() as u64);
    let journal: Vec<(i64, i64, Value)> =
        h.db().await.query("SELECT seq, at_ms, fact FROM journal ORDER BY seq", &[]).await.unwrap().iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    assert_eq!(journal, want, "the journal row by row");

    let mine = register_side(&reg.ledger, &[a, b]);
    assert_eq!((mine.0.len(), mine.3.len()), (3, 3));
    assert_eq!(back_office_side(&h).await, mine, "returns, their lines and rates, and the cash out, row for row");

    // the dashboard: what the ledger says the sales came to, less what came back
    let l = &reg.ledger;
    let sold: i64 = [a, b].iter().map(|c| l.sales().by_cart(*c).unwrap().totals.total_minor).sum();
    let returned: i64 = mine.0.iter().map(|x| x.3).sum();
    let cash: i64 = mine.3.iter().map(|x| x.2).sum();
    assert_eq!(cash, mug.cash_out_minor + 100 + tea.cash_out_minor);
    let dash = h.owner.get("/admin/dashboard").await.unwrap();
    let net = &dash["sales_net"][0];
    assert_eq!(
        (net["sales"].as_i64(), net["sold"].as_i64(), net["returns"].as_i64(), net["returned"].as_i64(), net["net"].as_i64(), net["cash_refunded"].as_i64()),
        (Some(2), Some(sold), Some(3), Some(returned), Some(sold - returned), Some(cash)),
        "{dash}"
    );
    // tax per rate: the sales' own rates less the returns' rates, as the register has them
    let mut want_tax: Vec<(String, i64, i64, i64, i64)> = Vec::new();
    for c in [a, b] {
        for r in &l.sales().by_cart(c).unwrap().cart.tax.unwrap().rates {
            let back: (i64, i64) = mine.2.iter().filter(|x| x.1 == class(r.class)).fold((0, 0), |s, x| (s.0 + x.5, s.1 + x.4));
            match want_tax.iter_mut().find(|w| w.0 == class(r.class)) {
                Some(w) => (w.1, w.2) = (w.1 + r.gross, w.2 + r.tax),
                None => want_tax.push((class(r.class), r.gross, r.tax, back.0, back.1)),
            }
        }
    }
    let got: Vec<(String, i64, i64, i64, i64)> = dash["tax_net"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["class"].as_str().unwrap().to_string(), r["sold_gross"].as_i64().unwrap(), r["sold_tax"].as_i64().unwrap(), r["returned_gross"].as_i64().unwrap(), r["returned_tax"].as_i64().unwrap()))
        .collect();
    assert_eq!(got, want_tax, "{dash}");
    for r in dash["tax_net"].as_array().unwrap() {
        assert_eq!(r["net_tax"].as_i64().unwrap(), r["sold_tax"].as_i64().unwrap() - r["returned_tax"].as_i64().unwrap());
    }
}
