//! The receipt-print migration (record 0058, schema v15):
//! prints recorded before keep their numbers and marks, a failure from before counts as
//! if paper may have come out (its sale's next copy stays a reprint), and the new rule
//! applies to every print after the upgrade.

use std::path::Path;

use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::*;

/// How many migrations come before the one that adds `receipt_prints.paper`.
fn before_prints() -> usize {
    MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE receipt_prints_paper")).expect("the migration is in MIGRATIONS")
}

fn write_old_file(path: &Path) {
    let n = before_prints();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;").unwrap();
    for m in &MIGRATIONS[..n] {
        c.execute_batch(m).unwrap();
    }
    c.execute_batch(&format!(
        "PRAGMA user_version = {n};
         INSERT INTO carts (id, currency, state, created_at_ms, updated_at_ms) VALUES
             (1, 'jpy', 'paid', 1, 1), (2, 'jpy', 'paid', 1, 1);
         INSERT INTO receipt_prints (cart_id, print_no, reprint, format, target, outcome, error, at_ms) VALUES
             (1, 1, 0, 'escpos', '127.0.0.1:9100', 'failed', 'connection refused', 2),
             (1, 2, 1, 'escpos', '127.0.0.1:9100', 'printed', NULL, 3);"
    ))
    .unwrap();
}

#[test]
fn old_prints_keep_their_marks_and_new_ones_follow_the_paper_rule() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    write_old_file(&path);
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);

    let old = l.receipts().prints(CartId(1)).unwrap();
    let seen: Vec<(i64, bool, &str, bool)> = old.iter().map(|p| (p.print_no, p.reprint, p.outcome.as_str(), p.paper)).collect();
    assert_eq!(seen, vec![(1, false, "failed", true), (2, true, "printed", true)]);
    assert!(l.receipts().next_print_is_reprint(CartId(1)).unwrap());
    let third = l.receipts_mut().record_print(CartId(1), "escpos", "127.0.0.1:9100", PrintOutcome::Printed, None, 4).unwrap();
    assert_eq!((third.print_no, third.reprint), (3, true));

    // A sale never printed before the upgrade: a printer that is off leaves it the original.
    let off = PrintOutcome::Failed { may_have_printed: false };
    let first = l.receipts_mut().record_print(CartId(2), "escpos", "127.0.0.1:9100", off, Some("refused"), 5).unwrap();
    assert_eq!((first.print_no, first.reprint), (1, false));
    let second = l.receipts_mut().record_print(CartId(2), "escpos", "127.0.0.1:9100", PrintOutcome::Printed, None, 6).unwrap();
    assert_eq!((second.print_no, second.reprint), (2, false));
    assert!(l.receipts().next_print_is_reprint(CartId(2)).unwrap());
}
