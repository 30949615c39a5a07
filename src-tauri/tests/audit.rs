//! The Audit view's verification (record 0069, 0053), command by command on Tauri's mock
//! runtime over a real ledger file: it says what "intact" means and whether, and when, the
//! back office last confirmed the chain's head; rows the back office confirmed and that
//! were then deleted from the end are named.

use crate::support;

use paydesk_ledger::Ledger;
use paydesk_sync::store::{Pairing, SyncState};
use serde_json::json;
use support::{app, call};

#[test]
fn the_audit_view_says_what_intact_means_and_when_the_back_office_confirmed_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());
    let db = dir.path().join("ledger.db");

    // No back office: intact, with what that means and what backs it.
    let v = call(&w, "audit_verify", json!({})).unwrap();
    assert_eq!((v["intact"].as_bool(), v["confirmation"].as_str(), &v["confirmed"]), (Some(true), Some("no_back_office"), &json!(null)), "{v}");
    let meaning = v["meaning"].as_str().unwrap();
    assert!(meaning.contains("\"Intact\" means") && meaning.contains("back office"), "{meaning}");

    // Paired, never confirmed yet.
    let pairing = Pairing { url: "https://bo.example".into(), store_id: "s1".into(), register_id: "r1".into(), register_name: "Till 1".into() };
    SyncState { pairing: Some(pairing), ..Default::default() }.save(&SyncState::path_in(dir.path())).unwrap();
    assert_eq!(call(&w, "audit_verify", json!({})).unwrap()["confirmation"], "never");

    // Confirmed (as the sync loop keeps it from an ack): the row and when.
    let head = {
        let mut l = Ledger::open(&db).unwrap();
        let head = l.audit().head().unwrap();
        l.audit_mut().set_confirmed(head, 1_790_000_000_000).unwrap();
        head
    };
    let v = call(&w, "audit_verify", json!({})).unwrap();
    assert_eq!((v["intact"].as_bool(), v["confirmation"].as_str()), (Some(true), Some("confirmed")), "{v}");
    assert_eq!((v["confirmed"]["seq"].as_u64(), v["confirmed"]["at_ms"].as_i64()), (Some(head.seq), Some(1_790_000_000_000)), "{v}");
    assert!(v["confirmed"]["head"].as_str().unwrap().starts_with(&format!("{}:", head.seq)));

    // The last rows deleted by SQL: the chain alone would verify; the confirmed head does not.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute("DELETE FROM audit_log WHERE id > ?1", [head.seq as i64 - 2]).unwrap();
    let v = call(&w, "audit_verify", json!({})).unwrap();
    assert_eq!(v["intact"], false, "{v}");
    let b = &v["breaks"][0];
    assert_eq!((b["kind"].as_str(), b["seq"].as_u64()), (Some("confirmed-cut"), Some(head.seq - 1)), "{v}");
    assert_eq!(b["message"], format!("Rows {} to {}, which the back office had confirmed, were deleted from the end.", head.seq - 1, head.seq));
}
