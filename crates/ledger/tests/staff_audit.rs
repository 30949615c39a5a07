//! Staff and the audit chain in the ledger (record 0062): a staff member's PIN is stored
//! hashed and checked under the lockout, failures survive a reopen, every change and
//! PIN check leaves a chained audit row, and a row changed, deleted or moved by plain
//! SQL on the file is found and named. Schema v4 -> v5 chains the rows written before.

use std::path::Path;

use paydesk_access::audit::Break;
use paydesk_access::lockout::LockoutPolicy;
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_ledger::*;

fn pin(s: &str) -> Pin {
    Pin::parse(s).unwrap()
}

fn sql(path: &Path, statements: &str) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(statements).unwrap();
}

#[test]
fn wrong_pins_lock_the_staff_member_across_a_reopen_and_each_try_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let policy = LockoutPolicy::default();
    {
        let mut l = Ledger::open(&path).unwrap();
        let owner = l.roster_mut().add("Aiko", Role::Owner, &pin("1357"), None, 1_000).unwrap();
        l.roster_mut().add("Ben", Role::Cashier, &pin("2468"), Some(owner.id), 2_000).unwrap();
        assert_eq!(l.roster_mut().check_pin("Ben", &pin("2468"), PinPurpose::SignIn, policy, 3_000).unwrap().role, Role::Cashier);
        // A sign-in says no tries left (an unknown name could not say any, issue 28)
        for _ in 0..3 {
            let e = l.roster_mut().check_pin("Ben", &pin("0000"), PinPurpose::SignIn, policy, 4_000).unwrap_err();
            assert!(matches!(e, Error::WrongPin { attempts_left: None }), "{e:?}");
        }
        // An unknown name answers like a wrong PIN and writes nothing.
        assert!(matches!(
            l.roster_mut().check_pin("Nobody", &pin("0000"), PinPurpose::SignIn, policy, 4_000),
            Err(Error::WrongPin { attempts_left: None })
        ));
        assert!(l.roster_mut().add("Ben", Role::Manager, &pin("1111"), Some(owner.id), 5_000).is_err(), "names are unique");
    }
    // Killed and restarted: the three failures still count.
    let mut l = Ledger::open(&path).unwrap();
    let e = l.roster_mut().check_pin("Ben", &pin("0001"), PinPurpose::SignIn, policy, 10_000).unwrap_err();
    assert!(matches!(e, Error::WrongPin { attempts_left: None }), "{e:?}");
    let e = l.roster_mut().check_pin("Ben", &pin("0002"), PinPurpose::SignIn, policy, 11_000).unwrap_err();
    assert!(matches!(e, Error::StaffLocked { until_ms: 311_000 }), "{e:?}");
    // Locked: even the right PIN is not checked.
    assert!(matches!(
        l.roster_mut().check_pin("Ben", &pin("2468"), PinPurpose::SignIn, policy, 311_000 - 1),
        Err(Error::StaffLocked { .. })
    ));
    assert_eq!(l.roster_mut().check_pin("Ben", &pin("2468"), PinPurpose::SignIn, policy, 311_000).unwrap().name, "Ben");

    let log = l.audit().log().unwrap();
    let actions: Vec<&str> = log.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        ["staff_add", "staff_add", "sign_in", "sign_in_failed", "sign_in_failed", "sign_in_failed", "sign_in_failed", "sign_in_failed", "sign_in"]
    );
    assert_eq!(log[1].actor_id, Some(1), "Aiko added Ben");
    assert!(log[7].after.as_deref().unwrap().contains("311000"), "the lock is in the row: {:?}", log[7]);
    assert!(l.audit().verify(Some(l.audit().head().unwrap())).unwrap().is_intact());
    // The hash is not the PIN.
    let stored: String = l.connection().query_row("SELECT pin_hash FROM staff WHERE name = 'Ben'", [], |r| r.get(0)).unwrap();
    assert!(stored.starts_with("$argon2id$") && !stored.contains("2468"));
}

#[test]
fn a_pin_change_needs_the_old_pin() {
    let mut l = Ledger::open_in_memory(Box::new(RandomKeys)).unwrap();
    let policy = LockoutPolicy::default();
    l.roster_mut().add("Chie", Role::Manager, &pin("1234"), None, 1).unwrap();
    assert!(matches!(l.roster_mut().change_pin("Chie", &pin("9999"), &pin("4321"), policy, 2), Err(Error::WrongPin { attempts_left: Some(4) })));
    l.roster_mut().change_pin("Chie", &pin("1234"), &pin("4321"), policy, 3).unwrap();
    // Audited as a PIN change, not as a sign-in.
    let actions: Vec<String> = l.audit().log().unwrap().into_iter().map(|r| r.action).collect();
    assert_eq!(actions, ["staff_add", "pin_change_failed", "pin_change_checked", "pin_change"]);
    assert!(l.roster_mut().check_pin("Chie", &pin("1234"), PinPurpose::SignIn, policy, 4).is_err());
    assert!(l.roster_mut().check_pin("Chie", &pin("4321"), PinPurpose::Approval, policy, 5).is_ok());
    let last = l.audit().log().unwrap().pop().unwrap();
    assert_eq!(last.action, "approval_pin");
}

/// Ten chained rows on a file, then `tamper` by plain SQL, then verify.
fn tampered(tamper: &str) -> Vec<Break> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let head = {
        let mut l = Ledger::open(&path).unwrap();
        for i in 1..=10 {
            let input = AuditInput { reason: Some(format!("reason {i}")), ..AuditInput::new("override", &format!("cart:{i}")) };
            l.audit_mut().record_action(&input, 1_000 * i).unwrap();
        }
        l.audit().head().unwrap()
    };
    sql(&path, tamper);
    let l = Ledger::open(&path).unwrap();
    l.audit().verify(Some(head)).unwrap().breaks
}

#[test]
fn plain_sql_tampering_is_found_and_named() {
    assert_eq!(tampered(""), vec![]);
    assert_eq!(tampered("UPDATE audit_log SET reason = 'nothing to see' WHERE id = 4"), vec![Break::Changed { seq: 4 }]);
    assert_eq!(tampered("DELETE FROM audit_log WHERE id = 6"), vec![Break::Deleted { from_seq: 6, to_seq: 6 }]);
    assert_eq!(
        tampered("UPDATE audit_log SET id = 100 WHERE id = 2; UPDATE audit_log SET id = 2 WHERE id = 3; UPDATE audit_log SET id = 3 WHERE id = 100;"),
        vec![Break::Reordered { seq: 2, written_at: 3 }, Break::Reordered { seq: 3, written_at: 2 }]
    );
    assert_eq!(
        tampered("DELETE FROM audit_log WHERE id > 8"),
        vec![Break::Truncated { last_seq: 8, head_seq: 10 }]
    );
}

#[test]
fn upgrade_from_v4_chains_the_rows_written_before() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        for m in &MIGRATIONS[..4] {
            c.execute_batch(m).unwrap();
        }
        // Row 2 was removed by hand long ago: the upgrade renumbers, no gap is reported.
        c.execute_batch(
            "PRAGMA user_version = 4;
             INSERT INTO audit_log (id, at_ms, action, reason, detail) VALUES
                 (1, 10, 'new_payment_override', 'customer left', 'payment 3'),
                 (3, 20, 'new_payment_override', 'card reader froze', NULL);",
        )
        .unwrap();
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), MIGRATIONS.len() as i64);
    let log = l.audit().log().unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!((log[0].id, log[0].reason.as_str(), log[0].detail.as_deref()), (1, "customer left", Some("payment 3")));
    assert_eq!((log[1].id, log[1].reason.as_str(), log[1].detail.as_deref()), (2, "card reader froze", None));
    l.audit_mut().record_register_action("new_payment_override", "after the upgrade", None, 30).unwrap();
    let v = l.audit().verify(Some(l.audit().head().unwrap())).unwrap();
    assert!(v.is_intact(), "{:?}", v.breaks);
    assert_eq!(v.rows_checked, 3);
}

/// Wrong approval PINs typed at a member's name count on this register's counter for
/// them, apart from their own (issue 28): five lock their approvals here, never their
/// sign-in; a right approval PIN resets that counter alone.
#[test]
fn wrong_approval_pins_lock_approvals_at_that_name_and_never_the_members_sign_in() {
    let dir = tempfile::tempdir().unwrap();
    let mut l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    let policy = LockoutPolicy::default();
    l.roster_mut().add("Aiko", Role::Owner, &pin("1357"), None, 1_000).unwrap();
    for left in [4, 3, 2, 1] {
        let e = l.roster_mut().check_pin("Aiko", &pin("0000"), PinPurpose::Approval, policy, 2_000).unwrap_err();
        assert!(matches!(e, Error::WrongPin { attempts_left: Some(n) } if n == left), "{e:?}");
    }
    let e = l.roster_mut().check_pin("Aiko", &pin("0000"), PinPurpose::Approval, policy, 2_000).unwrap_err();
    assert!(matches!(e, Error::StaffLocked { until_ms: 302_000 }), "{e:?}");
    assert!(matches!(l.roster_mut().check_pin("Aiko", &pin("1357"), PinPurpose::Approval, policy, 3_000), Err(Error::StaffLocked { .. })));
    // her own sign-in is untouched, and her row shows no lock
    assert_eq!(l.roster_mut().check_pin("Aiko", &pin("1357"), PinPurpose::SignIn, policy, 3_000).unwrap().locked_until_ms, None);
    // the next lock of her approvals lasts twice as long
    for _ in 0..5 {
        let _ = l.roster_mut().check_pin("Aiko", &pin("0000"), PinPurpose::Approval, policy, 302_000);
    }
    assert!(matches!(
        l.roster_mut().check_pin("Aiko", &pin("1357"), PinPurpose::Approval, policy, 302_001),
        Err(Error::StaffLocked { until_ms: 902_000 })
    ));
    assert!(l.roster_mut().check_pin("Aiko", &pin("1357"), PinPurpose::Approval, policy, 902_000).is_ok());
}
