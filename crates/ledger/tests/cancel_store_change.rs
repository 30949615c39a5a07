//! A canceled sale gives back a store tender's change (record 0148, closing the gap record
//! 0118 named): a card accepted offline pays part of a sale, a voucher that gives no change
//! and a gift card that gives change from the drawer pay the rest, the card is declined
//! when it is forwarded (the sale reopens with a balance), and the sale is canceled. The
//! cancel's own transaction takes the gift card's change back into the drawer and tells the
//! cashier what to collect and what to give back; X, Z and End of day then balance.

use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_domain::*;
use paydesk_ledger::*;

/// A time in 2026 (tax rates are by date).
const T: i64 = 1_790_000_000_000;

fn dc(d: i64, n: i64) -> DenominationCount {
    DenominationCount { denomination_minor: d, count: n }
}

#[test]
fn a_canceled_sale_takes_a_gift_cards_change_back_into_the_drawer_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T + 1).unwrap();
    // The types are the owner's catalog; defined before staff exist (no one to sign in).
    let voucher = l.tender_types_mut().add("商品券", StoreTenderKind::Voucher, false, true, T + 2).unwrap();
    let gift = l.tender_types_mut().add("Gift card", StoreTenderKind::Voucher, true, true, T + 2).unwrap();
    let pin = |s: &str| Pin::parse(s).unwrap();
    let owner = l.roster_mut().add("Aiko", Role::Owner, &pin("1357"), None, T + 3).unwrap().id;
    let manager = l.roster_mut().add("Mika", Role::Manager, &pin("2468"), Some(owner), T + 3).unwrap().id;
    let cashier = l.roster_mut().add("Ben", Role::Cashier, &pin("1234"), Some(owner), T + 3).unwrap().id;
    l.roster_mut().sign_in("Ben", &pin("1234"), paydesk_access::lockout::LockoutPolicy::default(), T + 4).unwrap();
    l.shifts_mut().open(Actor::alone(cashier), &[dc(1_000, 10)], T + 5).unwrap();
    let float = 10_000;

    let cart = l.carts_mut().create(Currency::Jpy, T + 10).unwrap();
    l.carts_mut().add(cart, "MUG-001", 2, T + 10).unwrap();
    let total = l.sales().by_cart(cart).unwrap().totals.due_minor;
    // The processor is unreachable: a card for ¥1,000 is accepted offline.
    let card = l.sales_mut().open_card_tender(cart, Some(1_000), &CheckoutOptions::card("pm_card_chargeDeclined"), None, T + 11).unwrap();
    l.payments_mut().transition(card.payment.id, PaymentState::Created, PaymentState::QueuedOffline, "accepted offline", T + 12).unwrap();
    // A ¥500 voucher (no change), then a gift card worth more than the rest: change ¥300.
    l.sales_mut().pay_store(cart, voucher.id, 500, Some("GV-7"), None, T + 13).unwrap();
    let rest = total - 1_500;
    let paid = l.sales_mut().pay_store(cart, gift.id, rest + 300, Some("GC-42"), None, T + 14).unwrap();
    assert_eq!((paid.split.amount_minor, paid.split.change_minor, paid.sale.state), (rest, 300, SaleState::Paid));
    assert_eq!(l.shifts_mut().x_report(Actor::alone(cashier), T + 15).unwrap().expected_drawer_minor, float - 300, "the change left the drawer");

    // Forwarded, the card is declined: the sale reopens with ¥1,000 owed.
    l.payments_mut().transition(card.payment.id, PaymentState::QueuedOffline, PaymentState::Authorizing, "forwarded", T + 20).unwrap();
    l.payments_mut().transition(card.payment.id, PaymentState::Authorizing, PaymentState::Failed, "declined at forwarding", T + 21).unwrap();
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::UnpaidBalance);

    // The customer would rather not buy: the sale is canceled.
    let plan = l.sales_mut().begin_cancel(cart, "customer gave the mugs back", T + 30, &|_| false).unwrap();
    assert_eq!(plan.state, SaleState::Canceled);
    assert!(plan.actions.is_empty(), "nothing was charged at the PSP");
    assert_eq!((plan.cash_returned_minor, plan.change_collected_minor), (0, 300), "take the ¥300 change back, give no cash");
    let told: Vec<(&str, Option<&str>, i64, i64)> = plan
        .store_given_back
        .iter()
        .map(|g| (g.type_name.as_str(), g.reference.as_deref(), g.give_back_minor, g.change_collected_minor))
        .collect();
    assert_eq!(told, vec![("商品券", Some("GV-7"), 500, 0), ("Gift card", Some("GC-42"), rest + 300, 300)]);
    // Recorded in the cancel's own transaction: a movement into the drawer on the gift card.
    let moves: Vec<(CashMovementKind, i64, Option<TenderId>)> =
        l.sales().cash_movements(Some(cart)).unwrap().iter().map(|m| (m.kind, m.amount.amount_minor, m.tender_id)).collect();
    assert_eq!(moves, vec![(CashMovementKind::ChangeOut, -300, Some(paid.tender.id)), (CashMovementKind::SaleIn, 300, Some(paid.tender.id))]);

    // Pressed again: nothing more moves and nothing more is asked of the cashier.
    let again = l.sales_mut().begin_cancel(cart, "customer gave the mugs back", T + 31, &|_| false).unwrap();
    assert_eq!((again.state, again.change_collected_minor, again.store_given_back.len()), (SaleState::Canceled, 0, 0));
    assert_eq!(l.sales().cash_movements(Some(cart)).unwrap().len(), 2);

    // The drawer is as it was: X says the float, and a count of the float closes even.
    assert_eq!(l.sales().expected_drawer().unwrap(), vec![(Currency::Jpy, 0)]);
    let x = l.shifts_mut().x_report(Actor::alone(cashier), T + 40).unwrap();
    assert_eq!((x.cash_received_minor, x.change_given_minor, x.cash_cancel_returns_minor), (300, 300, 0));
    assert_eq!(x.expected_drawer_minor, float);
    let takings = x.takings.as_ref().unwrap();
    assert_eq!(takings.canceled_sales, 1);
    let z = l.shifts_mut().close(Actor { staff_id: cashier, approver_id: Some(manager) }, &[dc(1_000, 10)], T + 50).unwrap();
    assert_eq!((z.expected_minor, z.counted_minor, z.over_short_minor), (float, float, 0));
    let day = l.sales().tender_day(0).unwrap();
    assert!(day.unpaid_balances.iter().all(|u| u.cart_id != cart), "a canceled sale owes nothing");
}
