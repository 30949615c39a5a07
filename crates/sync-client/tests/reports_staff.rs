//! Sales by staff agree with the register's Z report (record 0143), on the REAL back office
//! fed by a REAL register ledger in a Tokyo store: Aiko (the register's own owner) and Casey
//! (a cashier published from the back office) share one shift; a sale Casey began in cash
//! and Aiko finished by card is Casey's sale with Aiko's card money; a return counts against
//! the member whose sale it was. Their two rows sum to the Z report; a sale rung before the
//! register had staff (outside any shift) is "(no staff)", and all the rows sum to the
//! report's totals and the register's End of day.
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
const HOUR: i64 = 3_600_000;
const MINUTE: i64 = 60_000;

fn card(l: &mut Ledger, cart: CartId, at: i64) {
    let p = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, at).unwrap().payment;
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

fn sign_in(l: &mut Ledger, name: &str, pin: &str, at: i64) {
    l.roster_mut().sign_in(name, &Pin::parse(pin).unwrap(), paydesk_access::lockout::LockoutPolicy::default(), at).unwrap();
}

/// (sales, sold, returned, net) of a report row or total.
type Figures = (i64, i64, i64, i64);

fn figures(r: &Value) -> Figures {
    let i = |f: &str| r[f].as_i64().unwrap();
    (i("sales"), i("sold"), i("returned"), i("net"))
}

fn add(a: Figures, b: Figures) -> Figures {
    (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3)
}

fn of_takings(t: &Takings) -> Figures {
    (t.sale_count, t.sales_minor, t.refunds_minor, t.net_minor)
}

#[tokio::test]
async fn two_members_rows_sum_to_the_z_report_and_every_row_to_the_day() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Shibuya").await.unwrap();
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": "Asia/Tokyo"})).await.unwrap();

    let mut reg = Register::new();
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, DEC_1).unwrap();
    // 08:00, before the register had staff: no shift, no member
    let n = cart(l, &[("COF-001", 1)], DEC_1 + 8 * HOUR);
    l.sales_mut().pay_cash(n, 1_000, None, DEC_1 + 8 * HOUR + 1).unwrap();
    let owner = l.roster_mut().add("Aiko", Role::Owner, &Pin::parse("1357").unwrap(), None, DEC_1 + 8 * HOUR + 2).unwrap().id;
    reg.pair(&h, &store).await;
    h.owner
        .put(&format!("/admin/stores/{store}/staff"), &json!({"staff": [
            {"name": "Olivia", "role": "owner", "active": true, "pin": "1111"},
            {"name": "Casey", "role": "cashier", "active": true, "pin": "3333"}]}))
        .await
        .unwrap();
    assert_eq!(reg.sync_loop().round().await.unwrap().staff_applied, 2);

    let l = &mut reg.ledger;
    sign_in(l, "Aiko", "1357", DEC_1 + 9 * HOUR - 1);
    l.shifts_mut().open(Actor::alone(owner), &[], DEC_1 + 9 * HOUR).unwrap();
    // Aiko: a in cash
    let a = cart(l, &[("TEA-001", 2), ("MUG-001", 1)], DEC_1 + 9 * HOUR + 5 * MINUTE);
    l.sales_mut().pay_cash(a, 10_000, None, DEC_1 + 9 * HOUR + 6 * MINUTE).unwrap();
    // Casey: b by card; x begun with ¥1,000 cash ...
    reg.ledger.roster_mut().sign_out(DEC_1 + 10 * HOUR - 2).unwrap();
    let l = &mut reg.ledger;
    sign_in(l, "Casey", "3333", DEC_1 + 10 * HOUR - 1);
    let b = cart(l, &[("COF-001", 3), ("MUG-001", 1)], DEC_1 + 10 * HOUR);
    card(l, b, DEC_1 + 10 * HOUR + MINUTE);
    let x = cart(l, &[("MUG-001", 1), ("CRO-001", 2)], DEC_1 + 11 * HOUR);
    l.sales_mut().pay_cash(x, 1_000, None, DEC_1 + 11 * HOUR + 1).unwrap();
    // ... and finished by Aiko by card
    reg.ledger.roster_mut().sign_out(DEC_1 + 11 * HOUR + 2).unwrap();
    let l = &mut reg.ledger;
    sign_in(l, "Aiko", "1357", DEC_1 + 11 * HOUR + 3);
    card(l, x, DEC_1 + 11 * HOUR + 10 * MINUTE);
    assert_eq!(l.sales().by_cart(x).unwrap().state, SaleState::Paid);
    // returns, both handed back by Aiko: a's mug in cash (Aiko's sale), a coffee of b to the
    // card (Casey's sale)
    let mug = l.returns_mut().take_back(a, &[Returned { line: 1, quantity: 1 }], None, false, DEC_1 + 12 * HOUR).unwrap();
    assert!(mug.cash_out_minor > 0 && mug.card_refunds.is_empty(), "{mug:?}");
    let cof = l.returns_mut().take_back(b, &[Returned { line: 0, quantity: 1 }], None, false, DEC_1 + 13 * HOUR).unwrap();
    assert_eq!((cof.card_refunds.len(), cof.cash_out_minor), (1, 0));
    for (_, r) in &cof.card_refunds {
        l.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, DEC_1 + 13 * HOUR + 1).unwrap();
    }
    let z = l.shifts_mut().close(Actor::alone(owner), &[], DEC_1 + 20 * HOUR).unwrap();
    reg.sync_loop().round().await.unwrap();

    let total = |c: CartId| reg.ledger.sales().by_cart(c).unwrap().totals.total_minor;
    let (a_total, b_total, x_total, n_total) = (total(a), total(b), total(x), total(n));
    let r = h.owner.get(&format!("/admin/reports?by=staff&from=2026-12-01&to=2026-12-01&store={store}")).await.unwrap();
    let rows = r["rows"].as_array().unwrap();
    let by = |label: &str| figures(rows.iter().find(|x| x["label"] == label).unwrap_or_else(|| panic!("no row {label}: {r}")));
    assert_eq!(rows.len(), 3, "{r}");
    let (aiko, casey, none) = (by("Aiko"), by("Casey"), by("(no staff)"));
    // the sale counts where it began (Casey's x), the money where it was taken
    assert_eq!((aiko.0, aiko.1, aiko.2), (1, a_total + x_total - 1_000, mug.cash_out_minor), "Aiko: {r}");
    let coffee_back: i64 = cof.card_refunds.iter().map(|(_, f)| f.amount.amount_minor).sum();
    assert_eq!((casey.0, casey.1, casey.2), (2, b_total + 1_000, coffee_back), "Casey: {r}");
    assert_eq!(none, (1, n_total, 0, n_total), "the sale before staff: {r}");
    // the two members are the Z report; every row is the report's total and the End of day
    assert_eq!(add(aiko, casey), of_takings(z.report.takings.as_ref().unwrap()), "Aiko + Casey = Z");
    let totals = r["totals"].as_array().unwrap();
    assert_eq!(totals.len(), 1, "{r}");
    let all_rows = add(add(aiko, casey), none);
    assert_eq!(all_rows, figures(&totals[0]), "rows = totals");
    let day = reg.ledger.sales().takings(Currency::Jpy, Period::Since(DEC_1)).unwrap().0;
    assert_eq!(all_rows, of_takings(&day), "rows = End of day");
    // the same for all stores
    let all = h.owner.get("/admin/reports?by=staff&from=2026-12-01&to=2026-12-01").await.unwrap();
    assert_eq!(all["rows"].as_array().unwrap().len(), 3, "{all}");
}
