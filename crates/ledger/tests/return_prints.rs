//! Each print of a return document (issue #29, record 0117): the original until a copy may
//! have come out, then reprints, per return; an unknown return refused; and the upgrade
//! from the version before (a file with a return and no `return_prints`).

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_tax::Returned;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
const PRINTER: &str = "127.0.0.1:9100";

/// A paid cash sale of the ja-JP demo store and one return of its first line.
fn returned(l: &mut Ledger) -> (CartId, i64) {
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(cart, "COF-001", 2, AT).unwrap();
    let due = l.sales().by_cart(cart).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(cart, due, None, AT + 1).unwrap();
    let plan = l.returns_mut().take_back(cart, &[Returned { line: 0, quantity: 1 }], None, false, AT + 2).unwrap();
    (cart, plan.record.id)
}

fn demo(l: &mut Ledger) {
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
}

#[test]
fn a_return_document_is_the_original_until_paper_may_have_come_out() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(3))).unwrap();
    demo(&mut l);
    let (cart, first) = returned(&mut l);
    assert!(!l.returns().next_print_is_reprint(first).unwrap());
    let off = PrintOutcome::Failed { may_have_printed: false };
    let p1 = l.returns_mut().record_print(first, "escpos", PRINTER, off, Some("connection refused"), AT + 3).unwrap();
    assert!(!p1.reprint && !p1.paper, "{p1:?}");
    assert!(!l.returns().next_print_is_reprint(first).unwrap(), "a printer that was off printed nothing");
    let p2 = l.returns_mut().record_print(first, "escpos", PRINTER, PrintOutcome::Printed, None, AT + 4).unwrap();
    assert_eq!((p2.print_no, p2.reprint), (2, false));
    let p3 = l.returns_mut().record_print(first, "escpos", PRINTER, PrintOutcome::Printed, None, AT + 5).unwrap();
    assert_eq!((p3.print_no, p3.reprint), (3, true));
    assert_eq!(l.returns().prints(first).unwrap(), vec![p1, p2, p3]);

    // A second return of the same sale has its own original.
    let second = l.returns_mut().take_back(cart, &[Returned { line: 0, quantity: 1 }], None, false, AT + 6).unwrap().record.id;
    let s1 = l.returns_mut().record_print(second, "escpos", PRINTER, PrintOutcome::Printed, None, AT + 7).unwrap();
    assert_eq!((s1.print_no, s1.reprint), (1, false));

    // The trigger holds the rule even for a write that skips the store.
    let forged = l.connection().execute(
        "INSERT INTO return_prints (return_id, print_no, reprint, format, target, outcome, at_ms, paper)
         VALUES (?1, 9, 0, 'escpos', '127.0.0.1:9100', 'printed', 1, 1)",
        [first],
    );
    assert!(forged.unwrap_err().to_string().contains("unmarked until a copy"));
}

#[test]
fn a_print_of_an_unknown_return_is_refused() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(4))).unwrap();
    demo(&mut l);
    let e = l.returns_mut().record_print(77, "escpos", PRINTER, PrintOutcome::Printed, None, AT).unwrap_err();
    assert!(matches!(e, Error::UnknownReturn(77)), "{e:?}");
}

#[test]
fn the_upgrade_from_the_version_before_keeps_a_return_and_records_its_prints() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let id = {
        let mut l = Ledger::open(&path).unwrap();
        demo(&mut l);
        returned(&mut l).1
    };
    let before_version = MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS return_prints")).unwrap() as i64;
    let returns_before = {
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_named_rates(&c);
        c.execute_batch(&format!("DROP TABLE return_prints; PRAGMA user_version = {before_version};")).unwrap();
        c.query_row("SELECT count(*) FROM returns", [], |r| r.get::<_, i64>(0)).unwrap()
    };
    assert_eq!(returns_before, 1);
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(l.returns().by_id(id).unwrap().seq, 1, "the return kept");
    assert!(l.audit().verify(None).unwrap().is_intact());
    let p = l.returns_mut().record_print(id, "escpos", PRINTER, PrintOutcome::Printed, None, AT + 9).unwrap();
    assert_eq!((p.print_no, p.reprint), (1, false));
}
