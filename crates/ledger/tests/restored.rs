//! A replacement register's restored history (schema v10, design §9.15): appended in seq
//! order without a gap, resumable, read-only, and never in the outbox.
mod common;
use common::*;
use paydesk_ledger::*;

fn source(id: &str, acked: u64) -> RestoreSourceRow {
    RestoreSourceRow {
        register_id: id.into(),
        register_name: "Front till".into(),
        acked_through: acked,
        described_json: r#"{"queued_at_last_sync":2}"#.into(),
        restored_through: 0,
        started_at_ms: 0,
        finished_at_ms: None,
    }
}

fn row(seq: u64) -> RestoredRow {
    RestoredRow { seq, at_ms: 1_000 + seq as i64, kind: "payment_created".into(), fact_json: format!(r#"{{"kind":"payment_created","checkout_key":"k{seq}","amount":100,"currency":"usd"}}"#) }
}

#[test]
fn restored_rows_are_appended_in_order_resumed_and_never_changed_or_sent() {
    let mut l = mem();
    new_payment(&mut l, 500, 1);
    let outbox_before = l.outbox_stats().unwrap();
    assert!(outbox_before.high_water >= 1);

    assert!(matches!(l.append_restored("a", &[row(1)], 10), Err(Error::InvalidInput(_))), "not begun");
    assert_eq!(l.begin_restore(&source("a", 5), 10).unwrap(), 0);
    assert_eq!(l.append_restored("a", &[row(1), row(2)], 11).unwrap(), 2);
    // A gap or a replay is refused whole: the page's earlier rows are not kept either.
    assert!(l.append_restored("a", &[row(3), row(5)], 12).is_err());
    assert!(l.append_restored("a", &[row(2)], 12).is_err());
    assert!(matches!(l.append_restored("a", &[row(6)], 12), Err(Error::InvalidInput(_))), "past the source's end");
    assert_eq!(l.restored_rows("a", 0, 500).unwrap(), vec![row(1), row(2)]);
    // Begun again (a resumed run): it resumes after what is held.
    assert_eq!(l.begin_restore(&source("a", 5), 20).unwrap(), 2);
    assert_eq!(l.restore_sources().unwrap()[0].finished_at_ms, None);
    assert_eq!(l.append_restored("a", &[row(3), row(4), row(5)], 21).unwrap(), 5);
    let s = &l.restore_sources().unwrap()[0];
    assert_eq!((s.restored_through, s.acked_through, s.finished_at_ms, s.described_json.as_str()), (5, 5, Some(21), r#"{"queued_at_last_sync":2}"#));
    assert_eq!(l.restored_rows("a", 3, 1).unwrap(), vec![row(4)]);
    assert_eq!(l.restored_rows("a", 0, 10_000).unwrap().len(), 5, "a read is bounded, and here holds all");

    // Read-only, even by raw SQL.
    assert!(l.connection().execute("UPDATE restored_history SET at_ms = 0 WHERE seq = 1", []).is_err());
    assert!(l.connection().execute("DELETE FROM restored_history", []).is_err());
    assert!(l.connection().execute("INSERT INTO restored_history (source, seq, at_ms, kind, fact, restored_at_ms) VALUES ('a', 6, 0, 'x', 'not json', 0)", []).is_err());
    // Nothing of it went to the outbox.
    assert_eq!(l.outbox_stats().unwrap(), outbox_before);
    assert_eq!(count(&l, "SELECT count(*) FROM outbox WHERE fact LIKE '%\"k1\"%'"), 0);
}

#[test]
fn bad_sources_and_pages_are_refused() {
    let mut l = mem();
    assert!(matches!(l.begin_restore(&source("", 1), 1), Err(Error::InvalidInput(_))));
    assert!(matches!(l.begin_restore(&source(&"x".repeat(256), 1), 1), Err(Error::InvalidInput(_))));
    let not_json = RestoreSourceRow { described_json: "{".into(), ..source("a", 1) };
    assert!(l.begin_restore(&not_json, 1).is_err(), "the description is JSON");
    l.begin_restore(&source("a", 1000), 1).unwrap();
    let page: Vec<RestoredRow> = (1..=501).map(row).collect();
    assert!(matches!(l.append_restored("a", &page, 2), Err(Error::InvalidInput(_))));
    assert_eq!(l.restore_sources().unwrap()[0].restored_through, 0);
}
