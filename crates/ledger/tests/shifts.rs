//! Shifts in the ledger (record 0066): a float counted by denomination, paid in / out
//! with a reason and the role table, X reports, a close on a blind count with over and
//! short, Z numbers consecutive across reopens and never changed by plain SQL, and no
//! money moving outside an open shift once the store signs staff in.

use std::path::Path;

use paydesk_access::pin::Pin;
use paydesk_access::{Authorization, Role};
use paydesk_domain::*;
use paydesk_ledger::*;

/// A time in 2026 (tax rates are by date).
const T: i64 = 1_790_000_000_000;

fn dc(d: i64, n: i64) -> DenominationCount {
    DenominationCount { denomination_minor: d, count: n }
}

struct Store {
    owner: i64,
    manager: i64,
    cashier: i64,
}

/// A ja-JP demo store (¥, prices tax-inclusive) with an owner, a manager and a cashier.
fn store(l: &mut Ledger) -> Store {
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T + 1).unwrap();
    let pin = |s: &str| Pin::parse(s).unwrap();
    let owner = l.roster_mut().add("Aiko", Role::Owner, &pin("1357"), None, T + 2).unwrap().id;
    let manager = l.roster_mut().add("Mika", Role::Manager, &pin("2468"), Some(owner), T + 3).unwrap().id;
    let cashier = l.roster_mut().add("Ben", Role::Cashier, &pin("1234"), Some(owner), T + 4).unwrap().id;
    Store { owner, manager, cashier }
}

fn sign_in(l: &mut Ledger, name: &str) {
    let pin = match name {
        "Aiko" => "1357",
        "Mika" => "2468",
        _ => "1234",
    };
    l.roster_mut().sign_in(name, &Pin::parse(pin).unwrap(), paydesk_access::lockout::LockoutPolicy::default(), T).unwrap();
}

/// A paid cash sale of one mug (¥1,650) with `tendered` yen; returns the change.
fn cash_sale(l: &mut Ledger, tendered: i64, now: i64) -> i64 {
    let cart = l.carts_mut().create(Currency::Jpy, T + now).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, T + now).unwrap();
    let paid = l.sales_mut().pay_cash(cart, tendered, None, T + now).unwrap();
    assert_eq!(paid.sale.state, SaleState::Paid);
    paid.split.change_minor
}

#[test]
fn no_money_moves_outside_an_open_shift_once_staff_sign_in() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T + 1).unwrap();
    // No staff yet (the simulator, a demo before its owner): sales need no shift.
    assert!(!l.shifts().required().unwrap());
    cash_sale(&mut l, 2_000, 10);
    let s = store(&mut l);
    assert!(l.shifts().required().unwrap());
    let cart = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, T + 20).unwrap();
    assert!(matches!(l.sales_mut().pay_cash(cart, 2_000, None, T + 21), Err(Error::NotSignedIn)));
    sign_in(&mut l, "Ben");
    assert!(matches!(l.sales_mut().pay_cash(cart, 2_000, None, T + 21), Err(Error::NoOpenShift)));
    let e = l.shifts_mut().open(Actor::alone(s.manager), &[], T + 22).unwrap_err();
    assert!(matches!(e, Error::NotTheOperator { staff_id } if staff_id == s.manager), "{e:?}");
    assert!(e.to_string().contains("not the person signed in"), "{e}");
    assert!(matches!(l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, T + 22), Err(Error::NoOpenShift)));
    assert!(matches!(
        l.payments_mut().create(&NewPayment { amount: Money::new(500, Currency::Jpy), options: CheckoutOptions::card("pm_card_visa") }, T + 23),
        Err(Error::NoOpenShift)
    ));
    assert!(l.sales().by_cart(cart).unwrap().tenders.is_empty(), "a refused tender leaves nothing behind");
    l.shifts_mut().open(Actor::alone(s.cashier), &[dc(1_000, 10)], T + 30).unwrap();
    assert_eq!(l.sales_mut().pay_cash(cart, 2_000, None, T + 31).unwrap().sale.state, SaleState::Paid);
    // A second shift while one is open is refused.
    assert!(matches!(l.shifts_mut().open(Actor::alone(s.cashier), &[], T + 32), Err(Error::ShiftAlreadyOpen { .. })));
    l.roster_mut().sign_out(T + 33).unwrap();
    assert!(matches!(l.shifts_mut().x_report(Actor::alone(s.cashier), T + 34), Err(Error::NotSignedIn)));
}

#[test]
fn the_drawer_is_float_plus_cash_minus_change_refunds_and_paid_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    let s = store(&mut l);
    sign_in(&mut l, "Ben");
    let shift = l.shifts_mut().open(Actor::alone(s.cashier), &[dc(5_000, 1), dc(1_000, 4), dc(100, 10)], T + 100).unwrap();
    assert_eq!(shift.float_minor, 10_000);
    assert_eq!(shift.float_counts, vec![dc(5_000, 1), dc(1_000, 4), dc(100, 10)]);
    assert_eq!(cash_sale(&mut l, 2_000, 110), 350);
    assert_eq!(cash_sale(&mut l, 10_000, 120), 8_350);

    // Paid in / out is a manager's: a cashier alone is refused, with the manager it is
    // recorded with both names; nobody approves their own.
    let e = l.shifts_mut().paid_in_out(Actor::alone(s.cashier), PaidKind::PaidOut, 500, "milk for the coffee", T + 130).unwrap_err();
    assert!(matches!(e, Error::NotAllowed { authorization: Authorization::NeedsApproval { min_role: Role::Manager }, .. }), "{e:?}");
    sign_in(&mut l, "Mika");
    let e = l.shifts_mut().paid_in_out(Actor { staff_id: s.manager, approver_id: Some(s.manager) }, PaidKind::PaidIn, 500, "change top-up", T + 130);
    assert!(e.is_ok(), "a manager acts alone; the named approver is not consulted: {e:?}");
    sign_in(&mut l, "Ben");
    let out = l.shifts_mut().paid_in_out(Actor { staff_id: s.cashier, approver_id: Some(s.manager) }, PaidKind::PaidOut, 800, "milk for the coffee", T + 131).unwrap();
    assert_eq!((out.staff_id, out.approver_id), (s.cashier, Some(s.manager)));
    let with_mika = Actor { staff_id: s.cashier, approver_id: Some(s.manager) };
    // Each refusal is typed, with the shift's currency and its figures.
    let jpy = Currency::Jpy;
    let e = l.shifts_mut().paid_in_out(with_mika, PaidKind::PaidOut, 0, "nothing", T + 132).unwrap_err();
    assert!(matches!(e, Error::ShiftRefused(ShiftRefusal::PaidAmountOutOfRange { currency: Currency::Jpy, amount_minor: 0 })), "{e:?}");
    let e = l.shifts_mut().paid_in_out(with_mika, PaidKind::PaidIn, 10_000_001, "a typo of zeros", T + 132).unwrap_err();
    assert!(matches!(e, Error::ShiftRefused(ShiftRefusal::PaidAmountOutOfRange { amount_minor: 10_000_001, .. })), "{e:?}");
    let e = l.shifts_mut().paid_in_out(with_mika, PaidKind::PaidOut, 100, "x", T + 132).unwrap_err();
    assert!(matches!(e, Error::ShiftRefused(ShiftRefusal::ReasonInvalid)), "a reason of 3+ characters: {e:?}");
    let e = l.shifts_mut().paid_in_out(with_mika, PaidKind::PaidOut, 100, "two\nlines", T + 132).unwrap_err();
    assert!(matches!(e, Error::ShiftRefused(ShiftRefusal::ReasonInvalid)), "one printed line: {e:?}");
    let e = l.shifts_mut().paid_in_out(with_mika, PaidKind::PaidOut, 1_000_000, "more than the drawer holds", T + 133).unwrap_err();
    let Error::ShiftRefused(ShiftRefusal::PaidOutAboveDrawer { currency, amount_minor, drawer_minor }) = e else { panic!("{e:?}") };
    assert_eq!((currency, amount_minor), (jpy, 1_000_000));
    assert!(drawer_minor < amount_minor, "{drawer_minor}");
    assert!(e.to_string().contains("more than the drawer should hold"), "the CLI's words: {e}");

    // A cash refund of part of the first sale leaves the drawer too.
    let first = CartId(1);
    let plan = l.sales_mut().plan_refund(first, Some(650), Some("customer returned it"), T + 140).unwrap();
    assert_eq!(plan.cash_out_minor, 650);

    let x = l.shifts_mut().x_report(Actor::alone(s.cashier), T + 150).unwrap();
    assert_eq!(x.cash_received_minor, 12_000);
    assert_eq!(x.change_given_minor, 8_700);
    assert_eq!(x.cash_refunds_minor, 650);
    assert_eq!((x.paid_in_minor, x.paid_out_minor), (500, 800));
    assert_eq!(x.expected_drawer_minor, 10_000 + 12_000 - 8_700 - 650 + 500 - 800);
    assert_eq!(x.tenders, vec![TenderTotal { kind: TenderKind::Cash, count: 2, amount_minor: 3_300 }]);
    assert_eq!(x.sales, 2);

    // Close on a blind count ¥100 short; the manager approves the cashier's close.
    let expected = x.expected_drawer_minor;
    assert_eq!(expected, 12_350);
    let counted = [dc(10_000, 1), dc(1_000, 2), dc(100, 2), dc(50, 1)]; // 12,250
    let e = l.shifts_mut().close(Actor::alone(s.cashier), &counted, T + 160).unwrap_err();
    assert!(matches!(e, Error::NotAllowed { .. }), "{e:?}");
    let z = l.shifts_mut().close(Actor { staff_id: s.cashier, approver_id: Some(s.manager) }, &counted, T + 161).unwrap();
    assert_eq!((z.z_number, z.counted_minor, z.expected_minor, z.over_short_minor), (1, 12_250, 12_350, -100));
    assert_eq!(z.approver_id, Some(s.manager));
    assert_eq!(z.audit_head, l.audit().head().unwrap(), "the Z report keeps the head after its own row");
    assert_eq!(l.shifts().z_report(1).unwrap().unwrap(), z);
    assert!(l.shifts().current().unwrap().is_none());
    assert!(matches!(l.shifts_mut().x_report(Actor::alone(s.cashier), T + 170), Err(Error::NoOpenShift)));

    // The next shift counts over; its Z is number 2 and starts from its own float.
    sign_in(&mut l, "Aiko");
    l.shifts_mut().open(Actor::alone(s.owner), &[dc(1_000, 5)], T + 200).unwrap();
    cash_sale(&mut l, 1_650, 210);
    let z2 = l.shifts_mut().close(Actor::alone(s.owner), &[dc(1_000, 7)], T + 220).unwrap();
    assert_eq!((z2.z_number, z2.expected_minor, z2.over_short_minor), (2, 6_650, 350));
    assert!(l.audit().verify(Some(z2.audit_head)).unwrap().is_intact());
}

#[test]
fn a_shift_does_not_close_under_a_part_paid_sale() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    let s = store(&mut l);
    sign_in(&mut l, "Mika");
    l.shifts_mut().open(Actor::alone(s.manager), &[], T + 10).unwrap();
    let cart = l.carts_mut().create(Currency::Jpy, T + 11).unwrap();
    l.carts_mut().add(cart, "MUG-001", 2, T + 11).unwrap();
    l.sales_mut().pay_cash(cart, 1_000, None, T + 12).unwrap();
    let e = l.shifts_mut().close(Actor::alone(s.manager), &[dc(1_000, 1)], T + 13).unwrap_err();
    assert!(matches!(e, Error::ShiftHasOpenSale { cart_id } if cart_id == cart.0), "{e:?}");
    l.sales_mut().pay_cash(cart, 2_300, None, T + 14).unwrap();
    let z = l.shifts_mut().close(Actor::alone(s.manager), &[dc(1_000, 3), dc(100, 3)], T + 15).unwrap();
    assert_eq!((z.expected_minor, z.over_short_minor), (3_300, 0));
}

fn sql(path: &Path, statements: &str) -> Result<(), rusqlite::Error> {
    rusqlite::Connection::open(path)?.execute_batch(statements)
}

#[test]
fn z_numbers_survive_a_reopen_and_plain_sql_cannot_change_or_skip_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        let s = store(&mut l);
        sign_in(&mut l, "Mika");
        for i in 0..3 {
            l.shifts_mut().open(Actor::alone(s.manager), &[dc(1_000, 1)], T + 100 + i).unwrap();
            l.shifts_mut().close(Actor::alone(s.manager), &[dc(1_000, 1)], T + 150 + i).unwrap();
        }
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.shifts().last_z_number().unwrap(), 3);
    let manager = l.roster().by_name("Mika").unwrap().unwrap().id;
    assert_eq!(l.roster().signed_in().unwrap().map(|s| s.id), Some(manager), "the session survives a reopen");
    l.shifts_mut().open(Actor::alone(manager), &[], T + 200).unwrap();
    assert_eq!(l.shifts_mut().close(Actor::alone(manager), &[], T + 201).unwrap().z_number, 4);
    let z4_head = l.audit().head().unwrap();
    drop(l);

    let e = sql(&path, "UPDATE z_reports SET counted_minor = counted_minor + 1000, over_short_minor = over_short_minor + 1000 WHERE z_number = 2").unwrap_err();
    assert!(e.to_string().contains("never changed"), "{e}");
    let e = sql(&path, "DELETE FROM z_reports WHERE z_number = 4").unwrap_err();
    assert!(e.to_string().contains("never deleted"), "{e}");
    let e = sql(&path, "INSERT INTO z_reports SELECT 9, 99, closed_at_ms, closed_by, approver_id, counted_counts, counted_minor, expected_minor, over_short_minor, report, audit_seq, audit_hash FROM z_reports WHERE z_number = 1").unwrap_err();
    assert!(e.to_string().contains("consecutively"), "{e}");
    // Someone who drops the triggers to erase the last close and its audit row is found
    // by the head printed on that Z report (kept apart from the file).
    sql(&path, "DROP TRIGGER z_reports_never_deleted; DELETE FROM z_reports WHERE z_number = 4;
                DELETE FROM audit_log WHERE id = (SELECT MAX(id) FROM audit_log);").unwrap();
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.shifts().last_z_number().unwrap(), 3);
    assert!(l.audit().verify(None).unwrap().is_intact(), "the chain alone cannot see rows cut from its end");
    assert!(!l.audit().verify(Some(z4_head)).unwrap().is_intact(), "the printed Z head finds the cut");
    let z3 = l.shifts().z_report(3).unwrap().unwrap();
    assert!(z3.audit_head.seq < z4_head.seq);
}

#[test]
fn counts_are_checked_against_the_currency() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    let s = store(&mut l);
    sign_in(&mut l, "Ben");
    let e = l.shifts_mut().open(Actor::alone(s.cashier), &[dc(25, 4)], T + 10).unwrap_err();
    assert!(matches!(e, Error::ShiftRefused(ShiftRefusal::UnknownDenomination { currency: Currency::Jpy, denomination_minor: 25 })), "{e:?}");
    assert!(e.to_string().contains("25 is not a JPY note or coin"), "{e}");
    assert!(l.shifts().current().unwrap().is_none(), "a refused open writes nothing");
    let e = l.shifts_mut().open(Actor { staff_id: s.cashier, approver_id: Some(999) }, &[], T + 10).unwrap_err();
    assert!(matches!(e, Error::InactiveStaff { staff_id: 999, who: "approver" }), "{e:?}");
    assert!(e.to_string().contains("not an active staff member"), "{e}");
}

const CYCLE_ENV: &str = "PAYDESK_LEDGER_SHIFT_CYCLE";

/// Opens a shift, sells a mug for cash, closes on an exact count and reports each Z
/// number after its commit; never stops on its own, so the parent's SIGKILL lands at
/// an arbitrary point, often inside a close.
fn cycle_child(path: &str) -> ! {
    use std::io::Write;
    let mut l = Ledger::open(path).unwrap();
    if l.roster().list().unwrap().is_empty() {
        store(&mut l);
    }
    let manager = l.roster().by_name("Mika").unwrap().unwrap().id;
    sign_in(&mut l, "Mika");
    let out = std::io::stdout();
    for i in 0i64.. {
        let now = 1_000 * i;
        // A shift left open by a kill may hold its sale already (the kill landed between
        // the sale's commit and the close): one sale per shift, or the count is off.
        let sold_already = match l.shifts().current().unwrap() {
            None => {
                l.shifts_mut().open(Actor::alone(manager), &[dc(1_000, 2)], T + now).unwrap();
                false
            }
            Some(_) => l.shifts_mut().x_report(Actor::alone(manager), T + now).unwrap().sales > 0,
        };
        if !sold_already {
            cash_sale(&mut l, 2_000, now + 1);
        }
        let z = l.shifts_mut().close(Actor::alone(manager), &[dc(1_000, 3), dc(100, 6), dc(50, 1)], T + now + 2).unwrap();
        assert_eq!(z.over_short_minor, 0);
        let mut o = out.lock();
        writeln!(o, "Z {}", z.z_number).unwrap();
        o.flush().unwrap();
    }
    unreachable!()
}

#[test]
fn z_numbers_stay_consecutive_and_whole_across_sigkills() {
    use std::io::BufRead;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    if let Ok(path) = std::env::var(CYCLE_ENV) {
        cycle_child(&path);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shifts.db");
    let mut acknowledged = 0;
    for round in 0..3 {
        let mut proc = Command::new(std::env::current_exe().unwrap())
            .args(["shifts::z_numbers_stay_consecutive_and_whole_across_sigkills", "--exact", "--nocapture", "--test-threads=1"])
            .env(CYCLE_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(proc.stdout.take().unwrap()).lines();
        let mut seen = 0;
        while seen < 8 + round * 3 {
            let line = lines.next().expect("child ended early").unwrap();
            if let Some(at) = line.find("Z ") {
                let z: i64 = line[at + 2..].trim().parse().unwrap();
                assert_eq!(z, acknowledged + 1, "Z numbers go up by one across restarts");
                acknowledged = z;
                seen += 1;
            }
        }
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(proc.id() as libc::pid_t, libc::SIGKILL) }, 0);
        assert_eq!(proc.wait().unwrap().signal(), Some(libc::SIGKILL));

        let l = Ledger::open(&path).unwrap();
        let last = l.shifts().last_z_number().unwrap();
        assert!(last == acknowledged || last == acknowledged + 1, "last Z {last}, acknowledged {acknowledged}");
        acknowledged = last; // a close committed just before the kill counts
        let closed: i64 = l.connection().query_row("SELECT count(*) FROM shifts WHERE closed_at_ms IS NOT NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(closed, last, "every closed shift has its Z report and no Z report lacks its shift");
        let open: i64 = l.connection().query_row("SELECT count(*) FROM shifts WHERE closed_at_ms IS NULL", [], |r| r.get(0)).unwrap();
        assert!(open <= 1);
        for n in 1..=last {
            let z = l.shifts().z_report(n).unwrap().unwrap_or_else(|| panic!("Z {n} missing"));
            assert_eq!((z.expected_minor, z.over_short_minor), (3_650, 0), "Z {n}");
        }
        let v = l.audit().verify(None).unwrap();
        assert!(v.is_intact(), "{:?}", v.breaks);
    }
}

#[test]
fn a_v7_ledger_with_staff_and_cash_sales_upgrades_and_its_next_drawer_starts_clean() {
    use paydesk_ledger::schema::MIGRATIONS;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v7.db");
    {
        // A v7 register: a store, its staff and a cash sale, made by this code before the
        // shift tables existed (the sale predates the staff, as it would have).
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
        cash_sale(&mut l, 2_000, 1);
        store(&mut l);
    }
    crate::common::undo_named_rates(&rusqlite::Connection::open(&path).unwrap());
    sql(
        &path,
        "DROP TRIGGER outbox_return_recorded; DROP TRIGGER outbox_cash_refunded; DROP VIEW return_recorded_facts; DROP TRIGGER outbox_store_refunded;
         DROP TRIGGER outbox_shift_opened; DROP TRIGGER outbox_paid_in_out; DROP TRIGGER outbox_tender_added;
         DROP TRIGGER outbox_tender_superseded; DROP TRIGGER outbox_shift_closed;
         DROP TRIGGER z_reports_consecutive; DROP TRIGGER z_reports_never_changed; DROP TRIGGER z_reports_never_deleted;
         DROP TABLE z_reports; DROP INDEX tenders_by_shift; DROP INDEX cash_movements_by_shift;
         ALTER TABLE tenders DROP COLUMN shift_id; ALTER TABLE cash_movements DROP COLUMN shift_id;
         DROP TABLE paid_in_out; DROP TABLE shifts; DROP TABLE register_session;
         ALTER TABLE payments DROP COLUMN staff_id; ALTER TABLE tenders DROP COLUMN staff_id;
         ALTER TABLE refunds DROP COLUMN staff_id; ALTER TABLE cash_movements DROP COLUMN staff_id;
         DROP TABLE restored_history; DROP TABLE restore_sources;
         DROP TRIGGER outbox_item_added; DROP TRIGGER outbox_item_changed; DROP TRIGGER outbox_item_name_ja_added;
         DROP TRIGGER outbox_item_name_ja_changed; DROP TRIGGER outbox_item_name_ja_removed; DROP TRIGGER outbox_staff_added;
         DROP TRIGGER outbox_staff_changed; DROP TRIGGER outbox_tax_changed;
         DROP VIEW local_item_facts; DROP VIEW local_staff_facts; DROP VIEW local_tax_facts;
         DROP TRIGGER outbox_sale_completed; DROP TRIGGER outbox_sale_canceled; DROP TRIGGER outbox_sale_canceled_at_once;
         DROP VIEW sale_completed_facts; DROP TABLE sales_sent;
         DROP TABLE approval_pin_attempts; ALTER TABLE staff DROP COLUMN pin_locks; ALTER TABLE store_settings DROP COLUMN time_zone;
         ALTER TABLE products DROP COLUMN published_version; ALTER TABLE store_settings DROP COLUMN tax_published_version;
         ALTER TABLE staff DROP COLUMN published_version;
         PRAGMA user_version = 7;",
    )
    .unwrap();
    assert!(MIGRATIONS.len() >= 8);
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let untagged: i64 = l.connection().query_row("SELECT count(*) FROM cash_movements WHERE shift_id IS NULL", [], |r| r.get(0)).unwrap();
    assert_eq!(untagged, 2, "the old sale's cash in and change out belong to no shift");
    assert_eq!(l.sales().by_cart(CartId(1)).unwrap().state, SaleState::Paid);
    // Staff existed before the upgrade, so money now moves inside a shift only.
    let cart = l.carts_mut().create(Currency::Jpy, T + 10).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, T + 10).unwrap();
    assert!(matches!(l.sales_mut().pay_cash(cart, 1_650, None, T + 11), Err(Error::NotSignedIn)));
    sign_in(&mut l, "Mika");
    assert!(matches!(l.sales_mut().pay_cash(cart, 1_650, None, T + 11), Err(Error::NoOpenShift)));
    let manager = l.roster().by_name("Mika").unwrap().unwrap().id;
    l.shifts_mut().open(Actor::alone(manager), &[dc(1_000, 1)], T + 12).unwrap();
    l.sales_mut().pay_cash(cart, 1_650, None, T + 13).unwrap();
    let x = l.shifts_mut().x_report(Actor::alone(manager), T + 14).unwrap();
    assert_eq!((x.cash_received_minor, x.expected_drawer_minor, x.sales), (1_650, 2_650, 1), "only this shift's cash");
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_close_rewritten_with_its_hash_recomputed_is_caught_by_the_z_reports_head() {
    use paydesk_access::audit::{record_hash, Break};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let z_head = {
        let mut l = Ledger::open(&path).unwrap();
        let s = store(&mut l);
        sign_in(&mut l, "Mika");
        l.shifts_mut().open(Actor::alone(s.manager), &[dc(1_000, 1)], T + 1).unwrap();
        let z = l.shifts_mut().close(Actor::alone(s.manager), &[dc(1_000, 1)], T + 2).unwrap();
        // Later rows do not disturb a checkpoint.
        l.shifts_mut().open(Actor::alone(s.manager), &[], T + 3).unwrap();
        assert!(l.audit().verify(None).unwrap().is_intact());
        assert!(l.audit().verify_with(None, &[z.audit_head]).unwrap().is_intact());
        z.audit_head
    };
    // Rewrite the close's own audit row (the shift's over/short) and recompute its hash
    // and the next row's link, as someone who knows the chain's formula would.
    let l = Ledger::open(&path).unwrap();
    let rows = l.audit().chain().unwrap();
    let i = rows.iter().position(|r| r.record.seq == z_head.seq).unwrap();
    let mut forged = rows[i].clone();
    forged.record.after = Some(forged.record.after.unwrap().replace("\"over_short_minor\":0", "\"over_short_minor\":5000"));
    forged.hash = record_hash(&forged.prev_hash, &forged.record);
    let mut next = rows[i + 1].clone();
    next.prev_hash = forged.hash;
    next.hash = record_hash(&next.prev_hash, &next.record);
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute("UPDATE audit_log SET after_doc = ?2, hash = ?3 WHERE id = ?1", rusqlite::params![forged.record.seq as i64, forged.record.after, forged.hash.as_slice()]).unwrap();
    c.execute("UPDATE audit_log SET prev_hash = ?2, hash = ?3 WHERE id = ?1", rusqlite::params![next.record.seq as i64, next.prev_hash.as_slice(), next.hash.as_slice()]).unwrap();
    let v = l.audit().verify(None).unwrap();
    assert_eq!(v.breaks, vec![Break::CheckpointMismatch { seq: z_head.seq }], "the Z report's stored head");
}
