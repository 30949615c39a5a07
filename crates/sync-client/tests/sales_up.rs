//! Completed sales travel up (record 0051), against the REAL back office on a private
//! PostgreSQL with real ledger files: each sale's header, lines and rates arrive row for
//! row as the register's own receipt has them, a sale canceled after it completed is
//! marked, and sales of 1,000 lines are sent in batches that fit the body limit.
use crate::support;
use crate::register;

use paydesk_tax::{Discount, Dining, TaxClass};
use paydesk_domain::*;
use paydesk_ledger::*;
use register::Register;
use paydesk_sync_proto::Fact;
use serde_json::Value;
use support::Harness;

const T: i64 = 1_790_000_000_000;

impl Register {
    /// A fresh ledger with the Japanese demo store (not paired).
    fn demo() -> Register {
        let mut r = Register::new();
        r.ledger.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
        r
    }
    /// Every outbox row still queued: (seq, at_ms, fact).
    fn queued(&self) -> Vec<(i64, i64, Value)> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let rows = self.ledger.sync_log().outbox_batch(after, MAX_OUTBOX_BATCH).unwrap();
            let Some(last) = rows.last() else { return out };
            after = last.seq;
            out.extend(rows.into_iter().map(|r| (r.seq as i64, r.at_ms, serde_json::from_str(&r.fact_json).unwrap())));
        }
    }
    fn card(&mut self, cart: CartId, at: i64) -> Payment {
        let l = &mut self.ledger;
        let p = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, at).unwrap().payment;
        l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", at + 1).unwrap();
        let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}", p.id), amount: p.amount, state_if_new: PaymentState::Captured };
        l.payments_mut().record_psp_result(&rec, at + 2).unwrap();
        l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", at + 3).unwrap();
        p
    }
}

type Header = (i64, String, String, String, Option<String>, i64, i64, i64, i64, bool);
type Line = (i64, i32, String, String, i32, i64, String, i64, i64);
type Rate = (i64, String, i32, i64, i64, i64);

fn class(c: TaxClass) -> String {
    serde_json::to_value(c).unwrap().as_str().unwrap().to_string()
}

/// What the register's own tables and receipts say about its sales, in the back office's
/// row shapes. Names are the receipt's (the store's language), not the outbox's.
fn register_side(l: &Ledger, carts: &[CartId]) -> (Vec<Header>, Vec<Line>, Vec<Rate>) {
    let (mut heads, mut lines, mut rates) = (Vec::new(), Vec::new(), Vec::new());
    for &cart in carts {
        let sale = l.sales().by_cart(cart).unwrap();
        let c = &sale.cart;
        let tax = c.tax.as_ref();
        let sum: i64 = c.lines.iter().map(|x| x.line_total.amount_minor).sum();
        let dining = serde_json::to_value(c.dining).unwrap().as_str().unwrap().to_string();
        let mode = tax.map(|t| serde_json::to_value(t.price_mode).unwrap().as_str().unwrap().to_string());
        heads.push((
            cart.0,
            format!("{:06}", cart.0),
            c.currency.code().to_string(),
            dining,
            mode,
            tax.map_or(sum, |t| t.subtotal),
            tax.map_or(0, |t| t.sale_discount),
            tax.map_or(0, |t| t.tax_total),
            sale.totals.total_minor,
            sale.state == SaleState::Canceled,
        ));
        let names: Vec<String> = match l.receipts().data(cart) {
            Ok((data, _)) => {
                assert_eq!(data.receipt_no, format!("{:06}", cart.0), "the receipt's number");
                data.lines.into_iter().map(|x| x.name).collect()
            }
            // a canceled sale prints no receipt: the catalog's name in the store's language
            Err(_) => c.lines.iter().map(|x| l.catalog().item(&x.sku).unwrap().unwrap().name_in(paydesk_domain::Locale::Ja).to_string()).collect(),
        };
        for (i, (x, name)) in c.lines.iter().zip(names).enumerate() {
            let (discount, net) = tax.map_or((0, x.line_total.amount_minor), |t| (t.lines[i].discount, t.lines[i].net));
            lines.push((cart.0, i as i32 + 1, x.sku.clone(), name, x.quantity as i32, x.unit_price.amount_minor, class(x.tax_class), discount, net));
        }
        for r in tax.map_or(&[][..], |t| &t.rates[..]) {
            rates.push((cart.0, class(r.class), r.ppm as i32, r.base, r.tax, r.gross));
        }
    }
    (heads, lines, rates)
}

async fn back_office_side(h: &Harness) -> (Vec<Header>, Vec<Line>, Vec<Rate>) {
    let db = h.db().await;
    let heads = db
        .query(
            "SELECT sale_id, receipt_no, currency, dining, price_mode, subtotal, sale_discount, tax_total, total, canceled_at_ms IS NOT NULL
             FROM sales ORDER BY sale_id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6), r.get(7), r.get(8), r.get(9)))
        .collect();
    let lines = db
        .query("SELECT sale_id, line_no, sku, name, quantity, unit_price, tax_class, discount, total FROM sale_lines ORDER BY sale_id, line_no", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6), r.get(7), r.get(8)))
        .collect();
    // rates in the order the register lists them: standard, reduced, exempt
    let rates = db
        .query(
            "SELECT sale_id, class, ppm, base, tax, gross FROM sale_rates
             ORDER BY sale_id, array_position(ARRAY['standard','reduced','exempt'], class)",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
        .collect();
    (heads, lines, rates)
}

/// Every sale row of the outbox is exactly serde's form of its `Fact` (what the wire
/// re-serializes), so the back office's stored copy compares equal on a resend.
fn assert_serde_form(queued: &[(i64, i64, Value)]) {
    for (seq, _, f) in queued.iter().filter(|(_, _, f)| f["kind"].as_str().unwrap().starts_with("sale_")) {
        let fact: Fact = serde_json::from_value(f.clone()).unwrap_or_else(|e| panic!("seq {seq}: {e}"));
        assert_eq!(&serde_json::to_value(&fact).unwrap(), f, "seq {seq}");
    }
}

#[tokio::test]
async fn sales_with_their_lines_and_tax_arrive_row_for_row() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::demo();
    let l = &mut reg.ledger;
    // cash: a line discount, two rates
    let a = l.carts_mut().create(Currency::Jpy, T + 10).unwrap();
    l.carts_mut().add(a, "TEA-001", 2, T + 10).unwrap();
    l.carts_mut().add(a, "MUG-001", 1, T + 10).unwrap();
    l.carts_mut().set_line_discount(a, "TEA-001", Some(Discount::Percent { basis_points: 1000 }), T + 10).unwrap();
    l.sales_mut().pay_cash(a, 2_000, None, T + 11).unwrap();
    // card, eaten in (the reduced items taxed at the standard rate), a sale discount
    let b = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(b, "SAN-001", 2, T + 20).unwrap();
    l.carts_mut().add(b, "COF-001", 3, T + 20).unwrap();
    l.carts_mut().set_dining(b, Dining::EatIn, T + 20).unwrap();
    l.carts_mut().set_sale_discount(b, Some(Discount::Amount { amount: 55 }), T + 20).unwrap();
    reg.card(b, T + 21);
    // an exempt gift card alone: no tax computed
    let l = &mut reg.ledger;
    let c = l.carts_mut().create(Currency::Jpy, T + 30).unwrap();
    l.carts_mut().add(c, "GFT-025", 2, T + 30).unwrap();
    l.sales_mut().pay_cash(c, 10_000, None, T + 31).unwrap();
    // paid by a card accepted offline, declined when forwarded, then canceled
    let d = l.carts_mut().create(Currency::Jpy, T + 40).unwrap();
    l.carts_mut().add(d, "CRO-001", 1, T + 40).unwrap();
    let p = l.sales_mut().open_card_tender(d, None, &CheckoutOptions::card("pm_card_visa"), None, T + 41).unwrap().payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::QueuedOffline, "accepted offline", T + 42).unwrap();
    l.payments_mut().transition(p.id, PaymentState::QueuedOffline, PaymentState::Authorizing, "forwarded", T + 43).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", T + 44).unwrap();
    l.sales_mut().begin_cancel(d, "customer left", T + 45, &|_| false).unwrap();
    if l.sales().by_cart(d).unwrap().state != SaleState::Canceled {
        l.sales_mut().finish_cancel(d, T + 46).unwrap();
    }
    // a sale still open is not sent
    let e = l.carts_mut().create(Currency::Jpy, T + 50).unwrap();
    l.carts_mut().add(e, "MUG-001", 1, T + 50).unwrap();

    let want = reg.queued();
    assert_serde_form(&want);
    reg.pair(&h, &store).await;
    let round = reg.sync_loop().round().await.unwrap();
    assert_eq!(round.rows_sent, want.len() as u64);
    let journal: Vec<(i64, i64, Value)> =
        h.db().await.query("SELECT seq, at_ms, fact FROM journal ORDER BY seq", &[]).await.unwrap().iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    assert_eq!(journal, want, "the journal row by row");

    let mine = register_side(&reg.ledger, &[a, b, c, d]);
    let theirs = back_office_side(&h).await;
    assert_eq!(mine.0.len(), 4);
    assert!(mine.0[3].9, "the last sale was canceled");
    assert_eq!(mine.0[2].4, None, "the gift card sale has no price mode");
    assert!(mine.2.iter().any(|r| r.0 == b.0 && r.1 == "standard") && !mine.2.iter().any(|r| r.0 == b.0 && r.1 == "reduced"), "eaten in: {:?}", mine.2);
    assert_eq!(theirs.0, mine.0, "sales row for row");
    assert_eq!(theirs.1, mine.1, "lines row for row");
    assert_eq!(theirs.2, mine.2, "rates row for row");
    // the back office's totals are the tenders' (the sale was paid what it says)
    let paid: i64 = h.db().await.query_one("SELECT sum(total)::int8 FROM sales WHERE canceled_at_ms IS NULL", &[]).await.unwrap().get(0);
    assert_eq!(paid, mine.0.iter().filter(|x| !x.9).map(|x| x.8).sum::<i64>());

    // the open sale, paid now, follows in the next round
    reg.ledger.sales_mut().pay_cash(e, 2_000, None, T + 60).unwrap();
    reg.sync_loop().round().await.unwrap();
    assert_eq!(back_office_side(&h).await, register_side(&reg.ledger, &[a, b, c, d, e]));
}

#[tokio::test]
async fn sales_of_a_thousand_lines_go_in_batches_that_fit_the_body_limit() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::demo();
    let l = &mut reg.ledger;
    // the longest lines a sale can hold: 64-character SKUs, 120-character Japanese names
    let items: Vec<CatalogItem> = (0..paydesk_sync_proto::MAX_SALE_LINES)
        .map(|i| CatalogItem {
            sku: format!("BULK-{i:04}-{}", "X".repeat(54)),
            barcode: None,
            name_en: format!("Bulk {i}"),
            name_ja: Some(format!("{i:04}{}", "品".repeat(116))),
            price_minor: 1,
            currency: Currency::Jpy,
            tax_class: TaxClass::Exempt,
            active: true,
            price_kind: paydesk_ledger::PriceKind::Fixed,
            unit: paydesk_tax::SaleUnit::Piece,
        })
        .collect();
    l.catalog_mut().upsert(&items, None, T).unwrap();
    let mut carts = Vec::new();
    for k in 0..3 {
        let cart = l.carts_mut().create(Currency::Jpy, T + 10 + k).unwrap();
        // test set-up: 1,000 lines in one statement (adding them one by one is slow, not different)
        l.connection()
            .execute(
                "INSERT INTO cart_lines (cart_id, line_no, product_id, quantity, unit_price_minor, tax_class)
                 SELECT ?1, row_number() OVER (ORDER BY sku), id, 1, price_minor, tax_class FROM products WHERE sku LIKE 'BULK-%'",
                [cart.0],
            )
            .unwrap();
        l.sales_mut().pay_cash(cart, 1_000, None, T + 20 + k).unwrap();
        carts.push(cart);
    }
    let big: Vec<usize> = reg.queued().iter().filter(|(_, _, f)| f["kind"] == "sale_completed").map(|(_, _, f)| f.to_string().len()).collect();
    assert_eq!(big.len(), 3, "three sale rows");
    assert!(big.iter().sum::<usize>() > paydesk_sync_proto::limits::MAX_BODY_BYTES, "together they exceed one request: {big:?}");
    assert!(big.iter().all(|n| *n < paydesk_sync::run::BATCH_ROW_BYTES), "each fits one: {big:?}");

    let want = reg.queued();
    assert_serde_form(&want);
    reg.pair(&h, &store).await;
    let round = reg.sync_loop().round().await.unwrap();
    assert_eq!(round.rows_sent, want.len() as u64);
    assert!(round.batches >= 2, "{round:?}");
    let mine = register_side(&reg.ledger, &carts);
    assert_eq!(mine.1.len(), 3_000);
    assert_eq!(back_office_side(&h).await, mine);
}
