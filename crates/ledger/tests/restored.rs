//! A replacement register's restored history (schema v10, record 0048): appended in seq
//! order without a gap, resumable, read-only, and never in the outbox.
use crate::common;
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
    let outbox_before = l.sync_log().outbox_stats().unwrap();
    assert!(outbox_before.high_water >= 1);

    assert!(matches!(l.sync_log_mut().append_restored("a", &[row(1)], 10), Err(Error::InvalidInput(_))), "not begun");
    assert_eq!(l.sync_log_mut().begin_restore(&source("a", 5), 10).unwrap(), 0);
    assert_eq!(l.sync_log_mut().append_restored("a", &[row(1), row(2)], 11).unwrap(), 2);
    // A gap or a replay is refused whole: the page's earlier rows are not kept either.
    assert!(l.sync_log_mut().append_restored("a", &[row(3), row(5)], 12).is_err());
    assert!(l.sync_log_mut().append_restored("a", &[row(2)], 12).is_err());
    assert!(matches!(l.sync_log_mut().append_restored("a", &[row(6)], 12), Err(Error::InvalidInput(_))), "past the source's end");
    assert_eq!(l.sync_log().restored_rows("a", 0, 500).unwrap(), vec![row(1), row(2)]);
    // Begun again (a resumed run): it resumes after what is held.
    assert_eq!(l.sync_log_mut().begin_restore(&source("a", 5), 20).unwrap(), 2);
    assert_eq!(l.sync_log().restore_sources().unwrap()[0].finished_at_ms, None);
    assert_eq!(l.sync_log_mut().append_restored("a", &[row(3), row(4), row(5)], 21).unwrap(), 5);
    let s = &l.sync_log().restore_sources().unwrap()[0];
    assert_eq!((s.restored_through, s.acked_through, s.finished_at_ms, s.described_json.as_str()), (5, 5, Some(21), r#"{"queued_at_last_sync":2}"#));
    assert_eq!(l.sync_log().restored_rows("a", 3, 1).unwrap(), vec![row(4)]);
    assert_eq!(l.sync_log().restored_rows("a", 0, 10_000).unwrap().len(), 5, "a read is bounded, and here holds all");

    // Read-only, even by raw SQL.
    assert!(l.connection().execute("UPDATE restored_history SET at_ms = 0 WHERE seq = 1", []).is_err());
    assert!(l.connection().execute("DELETE FROM restored_history", []).is_err());
    assert!(l.connection().execute("INSERT INTO restored_history (source, seq, at_ms, kind, fact, restored_at_ms) VALUES ('a', 6, 0, 'x', 'not json', 0)", []).is_err());
    // Nothing of it went to the outbox.
    assert_eq!(l.sync_log().outbox_stats().unwrap(), outbox_before);
    assert_eq!(count(&l, "SELECT count(*) FROM outbox WHERE fact LIKE '%\"k1\"%'"), 0);
}

#[test]
fn bad_sources_and_pages_are_refused() {
    let mut l = mem();
    assert!(matches!(l.sync_log_mut().begin_restore(&source("", 1), 1), Err(Error::InvalidInput(_))));
    assert!(matches!(l.sync_log_mut().begin_restore(&source(&"x".repeat(256), 1), 1), Err(Error::InvalidInput(_))));
    let not_json = RestoreSourceRow { described_json: "{".into(), ..source("a", 1) };
    assert!(l.sync_log_mut().begin_restore(&not_json, 1).is_err(), "the description is JSON");
    l.sync_log_mut().begin_restore(&source("a", 1000), 1).unwrap();
    let page: Vec<RestoredRow> = (1..=501).map(row).collect();
    assert!(matches!(l.sync_log_mut().append_restored("a", &page, 2), Err(Error::InvalidInput(_))));
    assert_eq!(l.sync_log().restore_sources().unwrap()[0].restored_through, 0);
}

fn fact(seq: u64, json: String) -> RestoredRow {
    let kind = serde_json::from_str::<serde_json::Value>(&json).unwrap()["kind"].as_str().unwrap().to_string();
    RestoredRow { seq, at_ms: 1_000 + seq as i64, kind, fact_json: json }
}

fn created(seq: u64, key: &str, amount: i64, currency: &str) -> RestoredRow {
    fact(seq, format!(r#"{{"kind":"payment_created","checkout_key":"{key}","amount":{amount},"currency":"{currency}"}}"#))
}

fn state(seq: u64, key: &str, state: &str) -> RestoredRow {
    fact(seq, format!(r#"{{"kind":"payment_state","checkout_key":"{key}","state":"{state}","psp_id":null}}"#))
}

/// The Back office section's list (record 0048): each payment of one predecessor with
/// its last state, newest first, paged by seq; another source's rows and other kinds of
/// fact never mix in, and a key that looks like SQL is only a key.
#[test]
fn restored_payments_are_listed_newest_first_with_their_last_state_paged() {
    let mut l = mem();
    let odd = "k'); DROP TABLE restored_history; --";
    let rows = vec![
        created(1, "k1", 1200, "usd"),
        state(2, "k1", "authorizing"),
        state(3, "k1", "captured"),
        created(4, "k2", 450, "usd"),
        fact(5, r#"{"kind":"refund_created","refund_key":"r1","checkout_key":"k1","amount":200}"#.into()),
        created(6, odd, 3000, "jpy"),
        state(7, odd, "failed"),
        state(8, "k2", "captured"),
        state(9, "k2", "refunded"),
        created(10, "k4", 99, "usd"),
    ];
    l.sync_log_mut().begin_restore(&source("a", rows.len() as u64), 1).unwrap();
    l.sync_log_mut().append_restored("a", &rows, 2).unwrap();
    // Another predecessor with the same key: not listed under "a", and its state not taken.
    l.sync_log_mut().begin_restore(&source("b", 2), 3).unwrap();
    l.sync_log_mut().append_restored("b", &[created(1, "k1", 5, "usd"), state(2, "k1", "failed")], 4).unwrap();

    let all = l.sync_log().restored_payments("a", None, 50).unwrap();
    let got: Vec<(u64, &str, i64, &str, Option<&str>)> =
        all.iter().map(|p| (p.seq, p.checkout_key.as_str(), p.amount, p.currency.as_str(), p.state.as_deref())).collect();
    assert_eq!(
        got,
        vec![(10, "k4", 99, "usd", None), (6, odd, 3000, "jpy", Some("failed")), (4, "k2", 450, "usd", Some("refunded")), (1, "k1", 1200, "usd", Some("captured"))]
    );
    assert_eq!((all[3].at_ms, all[3].state_at_ms), (1_001, Some(1_003)));
    // Paged: two, then the rest after the last seq seen.
    let first = l.sync_log().restored_payments("a", None, 2).unwrap();
    assert_eq!(first.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![10, 6]);
    let next = l.sync_log().restored_payments("a", Some(6), 2).unwrap();
    assert_eq!(next.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![4, 1]);
    assert!(l.sync_log().restored_payments("a", Some(1), 2).unwrap().is_empty());
    assert_eq!(l.sync_log().restored_payments("b", None, 50).unwrap().iter().map(|p| p.state.clone()).collect::<Vec<_>>(), vec![Some("failed".to_string())]);
    assert!(l.sync_log().restored_payments("nobody", None, 50).unwrap().is_empty());
    assert_eq!(count(&l, "SELECT count(*) FROM restored_history"), 12, "nothing was dropped");
    // Bounded: at most a page of MAX_RESTORED_PAGE, whatever is asked.
    assert_eq!(l.sync_log().restored_payments("a", None, usize::MAX).unwrap().len(), 4);
}
