//! An owner's staff admin in the ledger (record 0127): a role change, a PIN reset and
//! retirement, each audited with who did it and (role, active) sent up as a fact; every
//! refusal typed and writing nothing; the last active owner kept; a retired member who
//! cannot sign in, approve or come back under the same name.

use crate::common::*;
use paydesk_access::lockout::LockoutPolicy;
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_ledger::*;
use serde_json::{json, Value};

const T: i64 = 1_790_000_000_000;

fn pin(s: &str) -> Pin {
    Pin::parse(s).unwrap()
}

/// Everything a refusal must leave as it was: the staff rows (hashes and counters
/// included), the approval counters, the session, the audit chain and the outbox.
fn everything(l: &Ledger) -> (String, i64, u64, String) {
    let c = l.connection();
    let rows: String = c
        .query_row(
            "SELECT coalesce(group_concat(id || name || role || active || pin_hash || pin_failures || coalesce(locked_until_ms, '-') || pin_locks, '|'), '')
               || (SELECT coalesce(group_concat(staff_id || failures, ','), '') FROM approval_pin_attempts)
               || (SELECT coalesce(group_concat(staff_id), '') FROM register_session)
             FROM staff",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let audit = count(l, "SELECT count(*) FROM audit_log");
    let head = l.audit().head().unwrap();
    (rows, audit, l.sync_log().outbox_stats().unwrap().high_water, format!("{}:{:?}", head.seq, head.hash))
}

fn facts(l: &Ledger, after: u64) -> Vec<Value> {
    // The audit rows that go up beside them (record 0146) are `audit_rows.rs`'s to test.
    l.sync_log()
        .outbox_batch(after, MAX_OUTBOX_BATCH)
        .unwrap()
        .into_iter()
        .map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap())
        .filter(|f| f["kind"] != "audit_row")
        .collect()
}

/// Aiko the owner, Mika a manager, Ben a cashier.
fn store() -> (Ledger, Staff, Staff, Staff) {
    let mut l = mem();
    let aiko = l.roster_mut().add("Aiko", Role::Owner, &pin("1357"), None, T).unwrap();
    let mika = l.roster_mut().add("Mika", Role::Manager, &pin("2468"), Some(aiko.id), T).unwrap();
    let ben = l.roster_mut().add("Ben", Role::Cashier, &pin("3333"), Some(aiko.id), T).unwrap();
    (l, aiko, mika, ben)
}

fn refused(l: &mut Ledger, what: &str, f: impl FnOnce(&mut Ledger) -> Result<Staff>) -> Error {
    let before = everything(l);
    let e = f(l).expect_err(what);
    assert_eq!(everything(l), before, "{what}: a refusal writes nothing ({e})");
    e
}

#[test]
fn a_role_change_and_a_retirement_are_audited_with_who_and_sent_up_a_pin_reset_is_not_sent() {
    let (mut l, aiko, _, ben) = store();
    let h = l.sync_log().outbox_stats().unwrap().high_water;
    let changed = l.roster_mut().set_role("Ben", Role::Manager, aiko.id, T + 1).unwrap();
    assert_eq!(changed.role, Role::Manager);
    l.roster_mut().reset_pin("Ben", &pin("9090"), aiko.id, T + 2).unwrap();
    let retired = l.roster_mut().retire("Ben", aiko.id, T + 3).unwrap();
    assert!(!retired.active);
    // the reset's audit row goes up (record 0146) and carries no PIN, nor its hash
    let all: Vec<String> = l.sync_log().outbox_batch(h, MAX_OUTBOX_BATCH).unwrap().into_iter().map(|r| r.fact_json).collect();
    assert!(all.iter().any(|f| f.contains("staff_pin_reset")));
    assert!(all.iter().all(|f| !f.contains("9090") && !f.contains("argon2")), "{all:?}");
    let got = facts(&l, h);
    assert_eq!(
        got,
        [
            json!({"kind": "staff_saved", "staff": ben.id, "name": "Ben", "role": "manager", "active": true}),
            json!({"kind": "staff_saved", "staff": ben.id, "name": "Ben", "role": "manager", "active": false}),
        ],
        "a PIN reset sends nothing (no fact carries a PIN)"
    );
    let log = l.audit().log().unwrap();
    let rows: Vec<_> = log.iter().filter(|e| e.detail.as_deref() == Some(format!("staff:{}", ben.id).as_str()) && e.action != "staff_add").collect();
    let seen: Vec<(&str, Option<i64>)> = rows.iter().map(|e| (e.action.as_str(), e.actor_id)).collect();
    assert_eq!(seen, [("staff_role", Some(aiko.id)), ("staff_pin_reset", Some(aiko.id)), ("staff_retire", Some(aiko.id))]);
    assert_eq!(rows[0].before.as_deref(), Some(r#"{"role":"cashier"}"#));
    assert_eq!(rows[0].after.as_deref(), Some(r#"{"role":"manager"}"#));
    let hash: String = l.connection().query_row("SELECT pin_hash FROM staff WHERE id = ?1", [ben.id], |r| r.get(0)).unwrap();
    assert!(log.iter().all(|e| !e.after.as_deref().unwrap_or("").contains(&hash)), "no audit row holds the hash");
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_reset_pin_replaces_the_old_one_and_lifts_the_lock() {
    let (mut l, aiko, _, _) = store();
    let policy = LockoutPolicy::default();
    for _ in 0..5 {
        let _ = l.roster_mut().check_pin("Ben", &pin("0000"), PinPurpose::SignIn, policy, T + 1);
        let _ = l.roster_mut().check_pin("Ben", &pin("0000"), PinPurpose::Approval, policy, T + 1);
    }
    assert!(matches!(l.roster_mut().sign_in("Ben", &pin("3333"), policy, T + 2), Err(Error::StaffLocked { .. })));
    l.roster_mut().reset_pin("Ben", &pin("4444"), aiko.id, T + 3).unwrap();
    assert_eq!(count(&l, "SELECT count(*) FROM approval_pin_attempts WHERE failures > 0"), 0);
    assert!(matches!(l.roster_mut().sign_in("Ben", &pin("3333"), policy, T + 4), Err(Error::WrongPin { .. })));
    assert_eq!(l.roster_mut().sign_in("Ben", &pin("4444"), policy, T + 5).unwrap().name, "Ben");
}

#[test]
fn a_retired_member_cannot_sign_in_approve_or_come_back_under_the_same_name() {
    let (mut l, aiko, mika, _) = store();
    let policy = LockoutPolicy::default();
    l.roster_mut().sign_in("Mika", &pin("2468"), policy, T + 1).unwrap();
    l.roster_mut().retire("Mika", aiko.id, T + 2).unwrap();
    assert_eq!(l.roster().signed_in().unwrap(), None, "retired at the register: signed out");
    assert_eq!(count(&l, "SELECT count(*) FROM register_session"), 0);
    // Refused exactly as an unknown name: a retired member's name tells nothing.
    assert!(matches!(l.roster_mut().sign_in("Mika", &pin("2468"), policy, T + 3), Err(Error::WrongPin { attempts_left: None })));
    assert!(matches!(
        l.roster_mut().check_pin("Mika", &pin("2468"), PinPurpose::Approval, policy, T + 3),
        Err(Error::WrongPin { attempts_left: None })
    ));
    let before = everything(&l);
    let e = l.roster_mut().add("Mika", Role::Manager, &pin("1111"), Some(aiko.id), T + 4).unwrap_err();
    assert!(matches!(&e, Error::StaffRefused(StaffRefusal::RetiredName { name }) if name == "Mika"), "{e:?}");
    assert_eq!(everything(&l), before);
    // A retired member changes no more, and does nothing as an actor either.
    let e = refused(&mut l, "a retired member's role", |l| l.roster_mut().set_role("Mika", Role::Cashier, aiko.id, T + 5));
    assert!(matches!(e, Error::StaffRefused(StaffRefusal::Retired { .. })), "{e:?}");
    let e = refused(&mut l, "a retired member's PIN", |l| l.roster_mut().reset_pin("Mika", &pin("1212"), aiko.id, T + 5));
    assert!(matches!(e, Error::StaffRefused(StaffRefusal::Retired { .. })), "{e:?}");
    let e = refused(&mut l, "retired twice", |l| l.roster_mut().retire("Mika", aiko.id, T + 5));
    assert!(matches!(e, Error::StaffRefused(StaffRefusal::Retired { .. })), "{e:?}");
    l.roster_mut().set_role("Ben", Role::Owner, aiko.id, T + 6).unwrap();
    l.roster_mut().retire("Aiko", aiko.id, T + 7).unwrap();
    let e = refused(&mut l, "a retired actor", |l| l.roster_mut().set_role("Ben", Role::Cashier, aiko.id, T + 8));
    assert!(matches!(e, Error::InactiveStaff { staff_id, who: "actor" } if staff_id == aiko.id), "{e:?}");
    assert!(l.roster().list().unwrap().iter().any(|s| s.id == mika.id && !s.active), "the row stays for the history");
}

#[test]
fn the_last_active_owner_is_never_retired_or_demoted() {
    let (mut l, aiko, mika, _) = store();
    let e = refused(&mut l, "the last owner retired", |l| l.roster_mut().retire("Aiko", aiko.id, T + 1));
    assert!(matches!(&e, Error::StaffRefused(StaffRefusal::LastOwner { name }) if name == "Aiko"), "{e:?}");
    let e = refused(&mut l, "the last owner demoted", |l| l.roster_mut().set_role("Aiko", Role::Manager, aiko.id, T + 1));
    assert!(matches!(e, Error::StaffRefused(StaffRefusal::LastOwner { .. })), "{e:?}");
    // A second owner, then the first may go; then the second is the last.
    l.roster_mut().set_role("Mika", Role::Owner, aiko.id, T + 2).unwrap();
    l.roster_mut().set_role("Aiko", Role::Manager, mika.id, T + 3).unwrap();
    let e = refused(&mut l, "the new last owner", |l| l.roster_mut().retire("Mika", mika.id, T + 4));
    assert!(matches!(e, Error::StaffRefused(StaffRefusal::LastOwner { .. })), "{e:?}");
    // A retired owner is not an owner the store keeps.
    l.roster_mut().set_role("Aiko", Role::Owner, mika.id, T + 5).unwrap();
    l.roster_mut().retire("Aiko", mika.id, T + 6).unwrap();
    let e = refused(&mut l, "the last active owner", |l| l.roster_mut().set_role("Mika", Role::Cashier, mika.id, T + 7));
    assert!(matches!(e, Error::StaffRefused(StaffRefusal::LastOwner { .. })), "{e:?}");
}

#[test]
fn only_an_owner_changes_staff_and_published_unknown_or_unchanged_members_are_refused() {
    let (mut l, aiko, mika, ben) = store();
    for actor in [mika.id, ben.id] {
        let e = refused(&mut l, "a non-owner", |l| l.roster_mut().set_role("Ben", Role::Manager, actor, T + 1));
        assert!(matches!(e, Error::NotAllowed { action: "staff_admin", .. }), "{e:?}");
        let e = refused(&mut l, "a non-owner's reset", |l| l.roster_mut().reset_pin("Ben", &pin("1212"), actor, T + 1));
        assert!(matches!(e, Error::NotAllowed { .. }), "{e:?}");
        let e = refused(&mut l, "a non-owner's retire", |l| l.roster_mut().retire("Ben", actor, T + 1));
        assert!(matches!(e, Error::NotAllowed { .. }), "{e:?}");
    }
    let e = refused(&mut l, "nobody", |l| l.roster_mut().retire("Ben", 999, T + 1));
    assert!(matches!(e, Error::InactiveStaff { staff_id: 999, .. }), "{e:?}");
    let e = refused(&mut l, "unknown", |l| l.roster_mut().retire("Zed", aiko.id, T + 1));
    assert!(matches!(&e, Error::StaffRefused(StaffRefusal::Unknown { name }) if name == "Zed"), "{e:?}");
    let e = refused(&mut l, "same role", |l| l.roster_mut().set_role("Ben", Role::Cashier, aiko.id, T + 1));
    assert!(matches!(e, Error::StaffRefused(StaffRefusal::SameRole { .. })), "{e:?}");

    let hash = paydesk_access::pin::hash_pin(&pin("5555"));
    let member = PublishedStaff { version: 3, name: "Kenji".into(), role: Role::Cashier, active: true, pin_hash: hash };
    l.roster_mut().apply_published(&[member], T + 2).unwrap();
    assert!(l.roster().by_name("Kenji").unwrap().unwrap().published);
    assert!(!l.roster().by_name("Ben").unwrap().unwrap().published);
    for (what, f) in [
        ("published role", Box::new(|l: &mut Ledger| l.roster_mut().set_role("Kenji", Role::Manager, aiko.id, T + 3)) as Box<dyn FnOnce(&mut Ledger) -> Result<Staff>>),
        ("published reset", Box::new(|l: &mut Ledger| l.roster_mut().reset_pin("Kenji", &pin("1212"), aiko.id, T + 3))),
        ("published retire", Box::new(|l: &mut Ledger| l.roster_mut().retire("Kenji", aiko.id, T + 3))),
    ] {
        let e = refused(&mut l, what, f);
        assert!(matches!(&e, Error::StaffRefused(StaffRefusal::Published { name }) if name == "Kenji"), "{what}: {e:?}");
    }
}
