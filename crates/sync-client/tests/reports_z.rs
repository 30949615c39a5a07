//! The owner's reports agree with the registers' Z reports (record 0140), on the REAL back
//! office (private PostgreSQL) fed by a REAL register ledger: a Tokyo store, two shifts over
//! two days with cash and card sales, one sale paid across midnight (record 0138), a return
//! (cash) and a return (card refund), and a canceled sale. The report by tender and its
//! totals equal the two Z reports' takings to the yen; each day alone equals the register's
//! End of day of that day; by item and by category the rows sum to the same net.
use crate::register;
use crate::support;

use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;
use register::Register;
use serde_json::{json, Value};
use support::Harness;

/// 2026-12-01 00:00 in Tokyo (15:00 UTC the day before).
const DEC_1: i64 = 1_796_083_200_000 - 9 * HOUR;
const DEC_2: i64 = DEC_1 + 24 * HOUR;
const HOUR: i64 = 3_600_000;
const MINUTE: i64 = 60_000;

fn card(l: &mut Ledger, cart: CartId, amount: Option<i64>, at: i64) {
    let p = l.sales_mut().open_card_tender(cart, amount, &CheckoutOptions::card("pm_card_visa"), None, at).unwrap().payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", at + 1).unwrap();
    let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}", p.id), amount: p.amount, state_if_new: PaymentState::Captured };
    l.payments_mut().record_psp_result(&rec, at + 2).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", at + 3).unwrap();
}

fn cart(l: &mut Ledger, items: &[(&str, i64)], at: i64) -> CartId {
    let c = l.carts_mut().create(Currency::Jpy, at).unwrap();
    for (sku, q) in items {
        l.carts_mut().add(c, sku, *q, at).unwrap();
    }
    c
}

/// The figures compared: (sale count, sales, refunds, net, cash sales, card sales, cash refunds, card refunds).
type Figures = (i64, i64, i64, i64, i64, i64, i64, i64);

fn of_takings(t: &Takings) -> Figures {
    let kind = |k: TenderKind| t.by_kind.iter().filter(|x| x.kind == k).map(|x| x.amount_minor).sum::<i64>();
    (t.sale_count, t.sales_minor, t.refunds_minor, t.net_minor, kind(TenderKind::Cash), kind(TenderKind::Card), t.cash_refunds_minor, t.card_refunds_minor)
}

fn add(a: Figures, b: Figures) -> Figures {
    (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3, a.4 + b.4, a.5 + b.5, a.6 + b.6, a.7 + b.7)
}

fn less(a: Figures, b: Figures) -> Figures {
    (a.0 - b.0, a.1 - b.1, a.2 - b.2, a.3 - b.3, a.4 - b.4, a.5 - b.5, a.6 - b.6, a.7 - b.7)
}

/// The back office's report by tender as the same figures.
async fn of_report(h: &Harness, store: &str, from: &str, to: &str) -> Figures {
    let r = h.owner.get(&format!("/admin/reports?by=tender&from={from}&to={to}&store={store}")).await.unwrap();
    let totals = r["totals"].as_array().unwrap();
    assert_eq!(totals.len(), 1, "one currency: {r}");
    let t = &totals[0];
    let row = |key: &str, f: &str| r["rows"].as_array().unwrap().iter().filter(|x| x["key"] == key).map(|x| x[f].as_i64().unwrap()).sum::<i64>();
    let i = |f: &str| t[f].as_i64().unwrap();
    (i("sales"), i("sold"), i("returned"), i("net"), row("cash", "sold"), row("card", "sold"), row("cash", "returned"), row("card", "returned"))
}

/// (sold, returned, net) summed over a report's rows.
async fn summed(h: &Harness, by: &str, store: &str) -> (i64, i64, i64, Value) {
    let r = h.owner.get(&format!("/admin/reports?by={by}&from=2026-12-01&to=2026-12-02&store={store}")).await.unwrap();
    let sum = |f: &str| r["rows"].as_array().unwrap().iter().map(|x| x[f].as_i64().unwrap()).sum::<i64>();
    (sum("sold"), sum("returned"), sum("net"), r)
}

#[tokio::test]
async fn the_reports_of_two_days_equal_the_registers_z_reports_and_end_of_day_to_the_yen() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Shibuya").await.unwrap();
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": "Asia/Tokyo"})).await.unwrap();

    let mut reg = Register::new();
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, DEC_1).unwrap();
    assert_eq!(l.catalog().store_settings().unwrap().time_zone, "Asia/Tokyo");
    let owner = l.roster_mut().add("Aiko", Role::Owner, &Pin::parse("1357").unwrap(), None, DEC_1 + 1).unwrap().id;
    l.roster_mut().sign_in("Aiko", &Pin::parse("1357").unwrap(), paydesk_access::lockout::LockoutPolicy::default(), DEC_1 + 2).unwrap();

    // Dec 1, shift 1 from 09:00 Tokyo
    l.shifts_mut().open(Actor::alone(owner), &[], DEC_1 + 9 * HOUR).unwrap();
    let a = cart(l, &[("TEA-001", 2), ("MUG-001", 1)], DEC_1 + 9 * HOUR + 5 * MINUTE);
    l.sales_mut().pay_cash(a, 10_000, None, DEC_1 + 9 * HOUR + 6 * MINUTE).unwrap();
    let b = cart(l, &[("COF-001", 3), ("MUG-001", 1)], DEC_1 + 10 * HOUR);
    card(l, b, None, DEC_1 + 10 * HOUR + MINUTE);
    // accepted offline, declined when forwarded, canceled: never takings
    let c = cart(l, &[("CRO-001", 1)], DEC_1 + 11 * HOUR);
    let p = l.sales_mut().open_card_tender(c, None, &CheckoutOptions::card("pm_card_visa"), None, DEC_1 + 11 * HOUR + 1).unwrap().payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::QueuedOffline, "accepted offline", DEC_1 + 11 * HOUR + 2).unwrap();
    l.payments_mut().transition(p.id, PaymentState::QueuedOffline, PaymentState::Authorizing, "forwarded", DEC_1 + 11 * HOUR + 3).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", DEC_1 + 11 * HOUR + 4).unwrap();
    l.sales_mut().begin_cancel(c, "customer left", DEC_1 + 11 * HOUR + 5, &|_| false).unwrap();
    if l.sales().by_cart(c).unwrap().state != SaleState::Canceled {
        l.sales_mut().finish_cancel(c, DEC_1 + 11 * HOUR + 6).unwrap();
    }
    // part-paid in cash, then canceled and the cash handed back: never takings
    let e = cart(l, &[("MUG-001", 1)], DEC_1 + 12 * HOUR);
    l.sales_mut().pay_cash(e, 500, None, DEC_1 + 12 * HOUR + 1).unwrap();
    l.sales_mut().begin_cancel(e, "changed their mind", DEC_1 + 12 * HOUR + 2, &|_| false).unwrap();
    if l.sales().by_cart(e).unwrap().state != SaleState::Canceled {
        l.sales_mut().finish_cancel(e, DEC_1 + 12 * HOUR + 3).unwrap();
    }
    // ¥1,000 cash at 23:59, the rest by card at 00:01 (record 0138)
    let x = cart(l, &[("MUG-001", 1), ("CRO-001", 2)], DEC_2 - 2 * MINUTE);
    l.sales_mut().pay_cash(x, 1_000, None, DEC_2 - MINUTE).unwrap();
    card(l, x, None, DEC_2 + MINUTE);
    assert_eq!(l.sales().by_cart(x).unwrap().state, SaleState::Paid);
    let z1 = l.shifts_mut().close(Actor::alone(owner), &[], DEC_2 + 30 * MINUTE).unwrap();

    // Dec 2, shift 2 from 09:00: a cash sale, the mug of sale a back for cash, a coffee of
    // sale b back to the card
    l.shifts_mut().open(Actor::alone(owner), &[], DEC_2 + 9 * HOUR).unwrap();
    let d = cart(l, &[("COF-001", 1)], DEC_2 + 9 * HOUR + 30 * MINUTE);
    l.sales_mut().pay_cash(d, 1_000, None, DEC_2 + 9 * HOUR + 31 * MINUTE).unwrap();
    let mug = l.returns_mut().take_back(a, &[Returned { line: 1, quantity: 1 }], None, false, DEC_2 + 10 * HOUR).unwrap();
    assert!(mug.record.lines[0].sku == "MUG-001" && mug.cash_out_minor > 0 && mug.card_refunds.is_empty(), "{mug:?}");
    let cof = l.returns_mut().take_back(b, &[Returned { line: 0, quantity: 1 }], None, false, DEC_2 + 11 * HOUR).unwrap();
    assert_eq!((cof.card_refunds.len(), cof.cash_out_minor), (1, 0));
    for (_, r) in &cof.card_refunds {
        l.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, DEC_2 + 11 * HOUR + 1).unwrap();
    }
    let z2 = l.shifts_mut().close(Actor::alone(owner), &[], DEC_2 + 20 * HOUR).unwrap();

    reg.pair(&h, &store).await;
    reg.sync_loop().round().await.unwrap();
    assert_eq!(h.count("SELECT count(*) FROM shifts WHERE z_number IS NOT NULL").await, 2, "both shifts closed up");

    let zs = add(of_takings(z1.report.takings.as_ref().unwrap()), of_takings(z2.report.takings.as_ref().unwrap()));
    assert_eq!(zs.0, 4, "a, b, x, d: the canceled sale is not one, the split sale is one: {zs:?}");
    assert!(zs.6 > 0 && zs.7 > 0, "a cash and a card refund: {zs:?}");
    // both days = both Z reports
    assert_eq!(of_report(&h, &store, "2026-12-01", "2026-12-02").await, zs, "by tender, Dec 1-2 against Z1 + Z2");
    // each day = the register's End of day of that day (the split sale is Dec 1's; its card Dec 2's)
    let since = |at: i64| of_takings(&reg.ledger.sales().takings(Currency::Jpy, Period::Since(at)).unwrap().0);
    let (dec_2, both) = (since(DEC_2), since(DEC_1));
    assert_eq!(both, zs);
    assert_eq!(of_report(&h, &store, "2026-12-02", "2026-12-02").await, dec_2, "Dec 2 alone");
    assert_eq!(of_report(&h, &store, "2026-12-01", "2026-12-01").await, less(both, dec_2), "Dec 1 alone");
    assert_eq!(less(both, dec_2).0, 3, "a, b and the split sale are Dec 1's");

    // by item and by category the rows sum to the money (tax-inclusive yen, no sale discount)
    for by in ["item", "category"] {
        let (sold, returned, net, r) = summed(&h, by, &store).await;
        assert_eq!((sold, returned, net), (zs.1, zs.2, zs.3), "by {by}: {r}");
    }
    let (_, _, _, items) = summed(&h, "item", &store).await;
    let mug_row = items["rows"].as_array().unwrap().iter().find(|r| r["key"] == "MUG-001").unwrap().clone();
    assert_eq!((mug_row["count"].as_i64(), mug_row["sales"].as_i64()), (Some(3 - 1), Some(3)), "three mugs sold in three sales, one back: {mug_row}");
    assert!(items["rows"].as_array().unwrap().iter().all(|r| r["key"] != "CRO-001" || r["count"] == 2), "the canceled croissant is not sold: {items}");

    // by hour, in Tokyo's hours: the first cash sale at 09:06 is hour 09
    let (_, _, net, hours) = summed(&h, "hour", &store).await;
    assert_eq!(net, zs.3);
    let nine = hours["rows"].as_array().unwrap().iter().find(|r| r["key"] == "09").expect("hour 09").clone();
    let a_total = reg.ledger.sales().by_cart(a).unwrap().totals.total_minor;
    let d_total = reg.ledger.sales().by_cart(d).unwrap().totals.total_minor;
    assert_eq!(nine["sold"].as_i64(), Some(a_total + d_total), "{hours}");
    let x_total = reg.ledger.sales().by_cart(x).unwrap().totals.total_minor;
    let midnight = hours["rows"].as_array().unwrap().iter().find(|r| r["key"] == "00").expect("hour 00").clone();
    assert_eq!((midnight["sold"].as_i64(), midnight["sales"].as_i64()), (Some(x_total - 1_000), Some(0)), "the split sale's card, not the sale: {hours}");
}
