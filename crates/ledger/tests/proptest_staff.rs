//! Random sequences of what people do at a register that signs staff in (record 0066,
//! record 0067): sign in and out, open and close shifts, sell for cash, take payments, refund,
//! pay in and out. After every step: a refused action wrote no money row; every money
//! row written names the person signed in at that moment, lies in an open shift, and has
//! its audit row naming the same person; the chain stays intact and every closed shift
//! has its Z report.

use paydesk_access::lockout::LockoutPolicy;
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_domain::*;
use paydesk_ledger::*;
use proptest::prelude::*;

const T: i64 = 1_790_000_000_000;
/// Owner, manager, cashier (their PINs).
const STAFF: [(&str, Role, &str); 3] = [("Aiko", Role::Owner, "1357"), ("Mika", Role::Manager, "2468"), ("Ben", Role::Cashier, "1234")];

#[derive(Debug, Clone)]
enum Op {
    SignIn(usize),
    SignOut,
    Open(usize),
    Close { by: usize, approver: Option<usize>, off_by: i64 },
    CashSale { qty: i64, extra: i64 },
    Payment(i64),
    Refund { sale: usize, amount: i64 },
    Paid { by: usize, approver: Option<usize>, out: bool, amount: i64 },
}

fn who() -> impl Strategy<Value = usize> {
    0usize..3
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => who().prop_map(Op::SignIn),
        1 => Just(Op::SignOut),
        2 => who().prop_map(Op::Open),
        1 => (who(), proptest::option::of(who()), -500i64..500).prop_map(|(by, approver, off_by)| Op::Close { by, approver, off_by }),
        3 => (1i64..3, 0i64..3000).prop_map(|(qty, extra)| Op::CashSale { qty, extra }),
        1 => (1i64..5000).prop_map(Op::Payment),
        1 => (0usize..8, 1i64..2000).prop_map(|(sale, amount)| Op::Refund { sale, amount }),
        1 => (who(), proptest::option::of(who()), any::<bool>(), 1i64..3000)
            .prop_map(|(by, approver, out, amount)| Op::Paid { by, approver, out, amount }),
    ]
}

fn count(l: &Ledger, table: &str) -> i64 {
    l.connection().query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
}

const MONEY: [&str; 5] = ["payments", "tenders", "refunds", "cash_movements", "paid_in_out"];

fn counts(l: &Ledger) -> Vec<i64> {
    MONEY.iter().map(|t| count(l, t)).collect()
}

/// The audit row `action` about `subject`: its actor and approver.
fn audited(l: &Ledger, action: &str, subject: &str) -> Option<(Option<i64>, Option<i64>)> {
    use rusqlite::OptionalExtension;
    l.connection()
        .query_row("SELECT actor_id, approver_id FROM audit_log WHERE action = ?1 AND subject = ?2", [action, subject], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()
        .unwrap()
}

fn ids(l: &Ledger, sql: &str) -> Vec<(i64, Option<i64>)> {
    let mut st = l.connection().prepare(sql).unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn every_money_movement_names_who_and_has_its_audit_row() {
    // Cases that got through every assertion (a case returned early, or rejected by
    // a filter, is not one): a property that checks nothing must not pass.
    let reached = std::sync::atomic::AtomicU32::new(0);
    // 48 cases: each opens a ledger file and runs up to 40 steps (96 took a minute).
    proptest!(ProptestConfig { cases: 48, ..ProptestConfig::default() }, |(ops in proptest::collection::vec(op(), 1..40))| {
        let dir = tempfile::tempdir().unwrap();
        let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
        let mut staff = Vec::new();
        for (name, role, pin) in STAFF {
            let by = staff.first().copied();
            staff.push(l.roster_mut().add(name, role, &Pin::parse(pin).unwrap(), by, T).unwrap().id);
        }
        let mut operator: Option<i64> = None;
        let mut sales: Vec<CartId> = Vec::new();
        let actor = |by: usize, approver: Option<usize>, staff: &[i64]| Actor { staff_id: staff[by], approver_id: approver.map(|a| staff[a]) };
        for (step, op) in ops.iter().enumerate() {
            let now = T + 1_000 * (step as i64 + 1);
            let before = counts(&l);
            let ok = match op {
                Op::SignIn(i) => {
                    let (name, _, pin) = STAFF[*i];
                    let r = l.roster_mut().sign_in(name, &Pin::parse(pin).unwrap(), LockoutPolicy::default(), now);
                    if r.is_ok() { operator = Some(staff[*i]); }
                    r.is_ok()
                }
                Op::SignOut => { l.roster_mut().sign_out(now).unwrap(); operator = None; true }
                Op::Open(i) => l.shifts_mut().open(Actor::alone(staff[*i]), &[DenominationCount { denomination_minor: 1_000, count: 5 }], now).is_ok(),
                Op::Close { by, approver, off_by } => {
                    let expected = l.shifts().current().unwrap().map(|_| ());
                    // A count near the drawer: ¥1 coins make any amount.
                    let counted = match expected {
                        Some(()) => {
                            let x: i64 = l.connection().query_row(
                                "SELECT s.float_minor + COALESCE((SELECT SUM(amount_minor) FROM cash_movements WHERE shift_id = s.id), 0)
                                 + COALESCE((SELECT SUM(CASE kind WHEN 'paid_in' THEN amount_minor ELSE -amount_minor END) FROM paid_in_out WHERE shift_id = s.id), 0)
                                 FROM shifts s WHERE s.closed_at_ms IS NULL", [], |r| r.get(0)).unwrap();
                            (x + off_by).max(0)
                        }
                        None => 0,
                    };
                    match l.shifts_mut().close(actor(*by, *approver, &staff), &[DenominationCount { denomination_minor: 1, count: counted.min(100_000) }], now) {
                        Ok(z) => {
                            prop_assert_eq!(z.over_short_minor, counted.min(100_000) - z.expected_minor);
                            true
                        }
                        Err(_) => false,
                    }
                }
                Op::CashSale { qty, extra } => {
                    let cart = l.carts_mut().create(Currency::Jpy, now).unwrap();
                    l.carts_mut().add(cart, "TEA-001", *qty, now).unwrap();
                    let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
                    match l.sales_mut().pay_cash(cart, due + extra, None, now) {
                        Ok(_) => { sales.push(cart); true }
                        Err(_) => false,
                    }
                }
                Op::Payment(amount) => l.payments_mut().create(&NewPayment { amount: Money::new(*amount, Currency::Jpy), options: CheckoutOptions::card("pm_card_visa") }, now).is_ok(),
                Op::Refund { sale, amount } => match sales.get(*sale) {
                    Some(cart) => l.sales_mut().plan_refund(*cart, Some(*amount), Some("customer returned it"), now).is_ok(),
                    None => false,
                },
                Op::Paid { by, approver, out, amount } => {
                    let kind = if *out { PaidKind::PaidOut } else { PaidKind::PaidIn };
                    l.shifts_mut().paid_in_out(actor(*by, *approver, &staff), kind, *amount, "float change", now).is_ok()
                }
            };
            let after = counts(&l);
            if !ok {
                prop_assert_eq!(&before, &after, "a refused {:?} wrote a money row", op);
            } else if after != before {
                // Money moved: someone was signed in and a shift was open.
                prop_assert!(operator.is_some(), "{:?} moved money with nobody signed in", op);
                prop_assert!(l.shifts().current().unwrap().is_some() || matches!(op, Op::Close { .. }), "{:?} outside a shift", op);
            }
        }

        // Every money row names a person, and its audit row names the same person.
        for (id, staff_id) in ids(&l, "SELECT id, staff_id FROM tenders") {
            prop_assert!(staff_id.is_some(), "tender {} names nobody", id);
            prop_assert_eq!(audited(&l, "tender", &format!("tender:{id}")).map(|a| a.0), Some(staff_id));
        }
        for (id, staff_id) in ids(&l, "SELECT id, staff_id FROM refunds") {
            prop_assert!(staff_id.is_some());
            prop_assert_eq!(audited(&l, "refund_created", &format!("refund:{id}")).map(|a| a.0), Some(staff_id));
        }
        let mut st = l.connection().prepare("SELECT idempotency_key, staff_id FROM payments WHERE cart_id IS NULL").unwrap();
        let loose: Vec<(String, Option<i64>)> = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect();
        for (key, staff_id) in loose {
            prop_assert!(staff_id.is_some());
            prop_assert_eq!(audited(&l, "payment_created", &format!("payment:{key}")).map(|a| a.0), Some(staff_id));
        }
        for (id, staff_id) in ids(&l, "SELECT id, staff_id FROM cash_movements") {
            prop_assert!(staff_id.is_some(), "cash movement {} names nobody", id);
        }
        prop_assert_eq!(count(&l, "cash_movements WHERE shift_id IS NULL"), 0);
        for (id, staff_id) in ids(&l, "SELECT id, staff_id FROM paid_in_out") {
            let a = audited(&l, "paid_in", &format!("paid_in_out:{id}")).or_else(|| audited(&l, "paid_out", &format!("paid_in_out:{id}")));
            prop_assert_eq!(a.map(|a| a.0), Some(staff_id));
        }
        prop_assert_eq!(count(&l, "shifts WHERE closed_at_ms IS NOT NULL"), l.shifts().last_z_number().unwrap());
        let v = l.audit().verify(None).unwrap();
        prop_assert!(v.is_intact(), "{:?}", v.breaks);
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("every_money_movement_names_who_and_has_its_audit_row: {n} cases reached the assertions");
    assert!(n >= 48, "only {n} cases reached the assertions, at least 48 expected");
}
