//! The ryōshūsho (領収書) issued at the counter (issue #29, record 0112, schema v19): one
//! per sale, a second issue is a reprint with the first addressee and description, a
//! different addressee or description is refused with nothing written, an unpaid sale
//! gets none, every issue is in the audit chain; and the upgrade from a v18 file keeps
//! every row.

use paydesk_domain::*;
use paydesk_ledger::*;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

/// A ja-JP demo store with a paid cash sale (¥1,900, ¥2,000 tendered) and an open one.
fn store() -> (Ledger, CartId, CartId) {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let paid = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(paid, "COF-001", 1, AT).unwrap();
    l.carts_mut().add(paid, "MUG-001", 1, AT).unwrap();
    l.sales_mut().pay_cash(paid, 2000, None, AT + 1).unwrap();
    let open = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(open, "MUG-001", 1, AT).unwrap();
    (l, paid, open)
}

fn issue<'a>(addressee: &'a str, description: &'a str) -> RyoshushoIssue<'a> {
    RyoshushoIssue { addressee, description, total_minor: 1900, cash_minor: 1900, stamp_duty_minor: None, issued_by: None }
}

fn rows(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn one_per_sale_and_a_second_issue_is_a_reprint_with_the_first_words() {
    let (mut l, cart, _) = store();
    assert_eq!(l.receipts().ryoshusho(cart).unwrap(), None);
    let first = l.receipts_mut().issue_ryoshusho(cart, &issue(" 株式会社ペイデスク ", "お品代として"), AT + 10).unwrap();
    assert!(!first.reprint);
    let r = &first.record;
    assert_eq!((r.number.as_str(), r.addressee.as_str(), r.total_minor, r.cash_minor, r.print_count), (format!("{:06}-1", cart.0).as_str(), "株式会社ペイデスク", 1900, 1900, 1));

    // The same words again (trimmed alike): the recorded document, as a reprint, counted.
    let again = l.receipts_mut().issue_ryoshusho(cart, &issue("株式会社ペイデスク", "お品代として"), AT + 20).unwrap();
    assert!(again.reprint);
    assert_eq!(again.record, RyoshushoRecord { print_count: 2, ..first.record.clone() }, "the first issue's words, amounts and date");
    // Other amounts in a later request change nothing: the record states what was issued.
    let amounts = RyoshushoIssue { total_minor: 5, cash_minor: 0, stamp_duty_minor: Some(200), ..issue("株式会社ペイデスク", "お品代として") };
    let third = l.receipts_mut().issue_ryoshusho(cart, &amounts, AT + 30).unwrap();
    assert_eq!((third.record.total_minor, third.record.stamp_duty_minor, third.record.print_count), (1900, None, 3));
    assert_eq!(rows(&l, "SELECT count(*) FROM ryoshusho"), 1, "one row per sale");
    assert_eq!(l.receipts().ryoshusho(cart).unwrap(), Some(third.record));

    let audit: Vec<(String, Option<String>)> = l.audit().log().unwrap().into_iter().map(|e| (e.action, e.detail)).filter(|(a, _)| a.starts_with("ryoshusho")).collect();
    let subject = Some(format!("ryoshusho {:06}-1 (sale {})", cart.0, cart.0));
    assert_eq!(audit, vec![("ryoshusho_issue".into(), subject.clone()), ("ryoshusho_reprint".into(), subject.clone()), ("ryoshusho_reprint".into(), subject)]);
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn another_addressee_or_description_is_refused_and_nothing_is_written() {
    let (mut l, cart, _) = store();
    l.receipts_mut().issue_ryoshusho(cart, &issue("山田太郎", "お品代として"), AT + 10).unwrap();
    let (commits, audit) = (l.commit_count(), l.audit().log().unwrap().len());
    for (addressee, description) in [("山田花子", "お品代として"), ("山田太郎", "飲食代として"), ("", "お品代として")] {
        let e = l.receipts_mut().issue_ryoshusho(cart, &issue(addressee, description), AT + 20).unwrap_err();
        assert!(matches!(&e, Error::RyoshushoDiffers { cart_id, number } if *cart_id == cart.0 && *number == format!("{:06}-1", cart.0)), "{e:?}");
    }
    assert_eq!((l.commit_count(), l.audit().log().unwrap().len()), (commits, audit), "nothing written");
    assert_eq!(l.receipts().ryoshusho(cart).unwrap().unwrap().print_count, 1);
}

#[test]
fn an_unpaid_sale_gets_none() {
    let (mut l, _, open) = store();
    let commits = l.commit_count();
    let e = l.receipts_mut().issue_ryoshusho(open, &issue("山田太郎", "お品代として"), AT + 10).unwrap_err();
    assert!(matches!(e, Error::RyoshushoUnpaid { state: "open", .. }), "{e:?}");
    // Part paid is not paid either.
    l.sales_mut().pay_cash(open, 1000, None, AT + 11).unwrap();
    let e = l.receipts_mut().issue_ryoshusho(open, &issue("山田太郎", "お品代として"), AT + 12).unwrap_err();
    assert!(matches!(e, Error::RyoshushoUnpaid { state: "partially_paid", .. }), "{e:?}");
    assert!(matches!(l.receipts_mut().issue_ryoshusho(CartId(999), &issue("", "x"), AT).unwrap_err(), Error::UnknownCart(999)));
    assert_eq!(rows(&l, "SELECT count(*) FROM ryoshusho"), 0);
    assert_eq!(l.commit_count(), commits + 1, "only the cash tender was written");
}

#[test]
fn the_upgrade_from_v18_keeps_every_row_and_then_issues() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let cart = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
        l.carts_mut().add(cart, "MUG-001", 2, AT).unwrap();
        l.sales_mut().pay_cash(cart, 5000, None, AT + 1).unwrap();
        l.receipts_mut().record_print(cart, "escpos", "127.0.0.1:9100", PrintOutcome::Printed, None, AT + 2).unwrap();
        cart
    };
    // The v18 file: this build's file without the v19 table, at version 18.
    let counts = |c: &rusqlite::Connection| -> Vec<(String, i64)> {
        let names: Vec<String> = c
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'ryoshusho' ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        names.into_iter().map(|n| { let k = c.query_row(&format!("SELECT count(*) FROM \"{n}\""), [], |r| r.get(0)).unwrap(); (n, k) }).collect()
    };
    let before = {
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_named_rates(&c);
        c.execute_batch("DROP TABLE ryoshusho; PRAGMA user_version = 18;").unwrap();
        counts(&c)
    };
    assert!(before.iter().any(|(n, k)| n == "receipt_prints" && *k == 1), "{before:?}");
    assert!(before.iter().any(|(n, k)| n == "audit_log" && *k > 0), "{before:?}");

    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(counts(l.connection()), before, "every row of every table kept");
    assert!(l.audit().verify(None).unwrap().is_intact());
    let first = l.receipts_mut().issue_ryoshusho(cart, &RyoshushoIssue { total_minor: 3300, cash_minor: 3300, ..issue("", "お品代として") }, AT + 3).unwrap();
    assert!(!first.reprint);
    assert_eq!(l.sales().by_cart(cart).unwrap().state, SaleState::Paid);
}
