//! The demo store's staff (record 0068): a new demo store gets an owner, a manager and
//! a cashier with the PINs the README lists; a store that has staff is never given more.

use paydesk_access::lockout::LockoutPolicy;
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_ledger::*;

fn pin(s: &str) -> Pin {
    Pin::parse(s).unwrap()
}

fn ledger() -> (tempfile::TempDir, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let l = Ledger::open(dir.path().join("ledger.db")).unwrap();
    (dir, l)
}

#[test]
fn the_demo_store_gets_one_member_per_role_with_the_readme_pins() {
    for (locale, names) in [(DemoLocale::EnUs, ["Olivia", "Marcus", "Casey"]), (DemoLocale::JaJp, ["山田", "佐藤", "鈴木"])] {
        let (_dir, mut l) = ledger();
        let added = l.catalog_mut().seed_demo_staff(locale, 1_000).unwrap();
        let got: Vec<(&str, Role)> = added.iter().map(|s| (s.name.as_str(), s.role)).collect();
        assert_eq!(got, vec![(names[0], Role::Owner), (names[1], Role::Manager), (names[2], Role::Cashier)]);
        for (name, want) in names.iter().zip(["1111", "2222", "3333"]) {
            let s = l.roster_mut().check_pin(name, &pin(want), PinPurpose::SignIn, LockoutPolicy::default(), 2_000).unwrap();
            assert_eq!(&s.name, name);
        }
        // The owner is the store's first member, added by nobody; the others by the owner.
        let log = l.audit().log().unwrap();
        let adds: Vec<Option<i64>> = log.iter().filter(|e| e.action == "staff_add").map(|e| e.actor_id).collect();
        assert_eq!(adds, vec![None, Some(added[0].id), Some(added[0].id)]);
        assert!(l.audit().verify(None).unwrap().is_intact());
    }
}

#[test]
fn a_store_with_staff_is_not_given_the_demo_staff() {
    let (_dir, mut l) = ledger();
    l.roster_mut().add("Aiko", Role::Owner, &pin("1357"), None, 1).unwrap();
    assert!(l.catalog_mut().seed_demo_staff(DemoLocale::EnUs, 2).unwrap().is_empty());
    assert_eq!(l.roster().list().unwrap().len(), 1);
}
