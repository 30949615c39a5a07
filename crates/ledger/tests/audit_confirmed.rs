//! The head the back office confirmed, kept in the ledger (record 0053): written only when
//! it changes, read back after a reopen, checked by `verify_audit`, and what a batch says
//! about the chain (the hash at the confirmed seq as stored now, the Z heads past it).
//! The schema step that adds it keeps an older file's data.

use std::path::Path;

use paydesk_access::audit::{Anchor, Break};
use paydesk_access::lockout::LockoutPolicy;
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_ledger::*;

const T: i64 = 1_790_000_000_000;

fn dc(d: i64, n: i64) -> DenominationCount {
    DenominationCount { denomination_minor: d, count: n }
}

fn sql(path: &Path, statements: &str) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(statements).unwrap();
}

/// A store with a manager signed in, a shift closed (Z 1) and the next one open.
fn register(path: &Path) -> (Ledger, ZReport) {
    let mut l = Ledger::open(path).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let pin = Pin::parse("2468").unwrap();
    let m = l.roster_mut().add("Mika", Role::Manager, &pin, None, T + 1).unwrap().id;
    l.roster_mut().sign_in("Mika", &pin, LockoutPolicy::default(), T + 2).unwrap();
    l.shifts_mut().open(Actor::alone(m), &[dc(1_000, 1)], T + 3).unwrap();
    let z = l.shifts_mut().close(Actor::alone(m), &[dc(1_000, 1)], T + 4).unwrap();
    l.shifts_mut().open(Actor::alone(m), &[dc(1_000, 1)], T + 5).unwrap();
    l.roster_mut().sign_out(T + 6).unwrap();
    (l, z)
}

#[test]
fn the_confirmed_head_is_kept_checked_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let (mut l, z) = register(&path);
    let head = l.audit().head().unwrap();
    assert!(head.seq > z.audit_head.seq + 1);

    // Never confirmed: the batch says so, and carries the Z head.
    assert_eq!(l.audit().confirmed().unwrap(), None);
    let s = l.audit().snapshot().unwrap();
    assert_eq!((s.head, s.at_confirmed, s.z_heads.clone()), (head, None, vec![(1, z.audit_head)]));

    // Confirmed: written once, kept across a reopen, checked by verify.
    assert!(l.audit_mut().set_confirmed(head, T + 100).unwrap());
    assert!(!l.audit_mut().set_confirmed(head, T + 200).unwrap(), "the same head again writes nothing");
    drop(l);
    let mut l = Ledger::open(&path).unwrap();
    let c = l.audit().confirmed().unwrap().unwrap();
    assert_eq!((c.anchor, c.confirmed_at_ms), (head, T + 100));
    assert!(l.audit().verify(None).unwrap().is_intact());
    let s = l.audit().snapshot().unwrap();
    assert_eq!((s.at_confirmed, s.z_heads.len()), (Some((head.seq, Some(head.hash))), 0), "the Z head is behind the confirmed one");

    // The tail deleted by SQL: the chain ends before the confirmed row, and says so in
    // what it reports; the Z report's head is still there, so only the anchor sees it.
    sql(&path, &format!("DELETE FROM audit_log WHERE id > {}", z.audit_head.seq + 1));
    let v = l.audit().verify(None).unwrap();
    assert_eq!(v.breaks, vec![Break::BehindConfirmed { last_seq: z.audit_head.seq + 1, confirmed_seq: head.seq }]);
    assert_eq!(l.audit().snapshot().unwrap().at_confirmed, Some((head.seq, None)));

    // A later confirmation (a back office that says otherwise) replaces it.
    let other = Anchor { seq: 1, hash: l.audit().chain().unwrap()[0].hash };
    assert!(l.audit_mut().set_confirmed(other, T + 300).unwrap());
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn an_ack_drops_rows_and_keeps_the_confirmed_head_in_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut l, _) = register(&dir.path().join("ledger.db"));
    let high = l.sync_log().outbox_stats().unwrap().high_water;
    let head = l.audit().head().unwrap();
    let commits = l.commit_count();
    assert_eq!(l.sync_log_mut().outbox_ack_confirming(high, Some(head), T + 100).unwrap(), high);
    assert_eq!(l.commit_count(), commits + 1, "one commit for both");
    assert_eq!(l.audit().confirmed().unwrap().unwrap().anchor, head);
    // Nothing new to drop, a new head confirmed (a redelivered batch's ack): still kept.
    let earlier = Anchor { seq: 1, hash: l.audit().chain().unwrap()[0].hash };
    assert_eq!(l.sync_log_mut().outbox_ack_confirming(high, Some(earlier), T + 200).unwrap(), 0);
    assert_eq!(l.audit().confirmed().unwrap().unwrap().anchor, earlier);
    // Nothing to drop and nothing new: no commit at all.
    let commits = l.commit_count();
    assert_eq!(l.sync_log_mut().outbox_ack_confirming(high, Some(earlier), T + 300).unwrap(), 0);
    assert_eq!(l.sync_log_mut().outbox_ack_confirming(high, None, T + 300).unwrap(), 0);
    assert_eq!(l.commit_count(), commits);
    assert_eq!(l.audit().confirmed().unwrap().unwrap().confirmed_at_ms, T + 200);
}

#[test]
fn a_file_of_the_version_before_gains_the_confirmed_head_and_keeps_its_chain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let (l, z) = register(&path);
    let rows = l.audit().chain().unwrap();
    drop(l);
    // The version before the one that made `audit_confirmed` (later migrations run again).
    let before = paydesk_ledger::schema::MIGRATIONS.iter().position(|m| m.contains("audit_confirmed")).unwrap();
    crate::common::undo_named_rates(&rusqlite::Connection::open(&path).unwrap());
    sql(&path, &format!("DROP TABLE audit_confirmed; PRAGMA user_version = {before};"));
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(l.audit().chain().unwrap(), rows);
    assert_eq!(l.shifts().z_report(1).unwrap().unwrap().audit_head, z.audit_head);
    assert_eq!(l.audit().confirmed().unwrap(), None);
    assert!(l.audit().verify(None).unwrap().is_intact());
    let head = l.audit().head().unwrap();
    assert!(l.audit_mut().set_confirmed(head, T + 100).unwrap());
}
