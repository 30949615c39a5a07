//! A tender's fact names who took it (record 0143): `staff` is the register's id of the member
//! signed in, `staff_name` their name then (a published member's id means nothing at the back
//! office); a register without staff writes neither, as before. The upgrade from the version
//! before recreates the trigger and leaves facts already queued as they were.

use crate::common;
use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_domain::*;
use paydesk_ledger::*;
use serde_json::Value;

const T: i64 = 1_790_000_000_000;

fn tenders(l: &Ledger) -> Vec<Value> {
    l.sync_log()
        .outbox_batch(0, MAX_OUTBOX_BATCH)
        .unwrap()
        .into_iter()
        .map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap())
        .filter(|f| f["kind"] == "tender_added")
        .collect()
}

fn mug_for_cash(l: &mut Ledger, at: i64) {
    let cart = l.carts_mut().create(Currency::Jpy, at).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, at).unwrap();
    l.sales_mut().pay_cash(cart, 2_000, None, at + 1).unwrap();
}

fn sign_in(l: &mut Ledger, name: &str, pin: &str, at: i64) {
    l.roster_mut().sign_in(name, &Pin::parse(pin).unwrap(), paydesk_access::lockout::LockoutPolicy::default(), at).unwrap();
}

/// A ja-JP store with an owner of its own and a cashier the back office published.
fn staffed(l: &mut Ledger) -> i64 {
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let owner = l.roster_mut().add("Aiko", Role::Owner, &Pin::parse("1357").unwrap(), None, T + 1).unwrap().id;
    let hash = paydesk_access::pin::hash_pin(&Pin::parse("3333").unwrap());
    let casey = PublishedStaff { version: 2, name: "Casey".into(), role: Role::Cashier, active: true, pin_hash: hash };
    l.roster_mut().apply_published(&[casey], T + 2).unwrap();
    sign_in(l, "Aiko", "1357", T + 3);
    l.shifts_mut().open(Actor::alone(owner), &[], T + 4).unwrap();
    owner
}

#[test]
fn each_tender_names_the_member_signed_in_and_none_without_staff() {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    mug_for_cash(&mut l, T + 1);
    let plain = tenders(&l);
    assert_eq!(plain.len(), 1);
    assert!(plain[0].get("staff").is_none() && plain[0].get("staff_name").is_none(), "no staff, no keys: {}", plain[0]);

    let mut l = common::mem();
    let owner = staffed(&mut l);
    mug_for_cash(&mut l, T + 10);
    l.roster_mut().sign_out(T + 20).unwrap();
    sign_in(&mut l, "Casey", "3333", T + 21);
    mug_for_cash(&mut l, T + 22);
    let casey = l.roster().by_name("Casey").unwrap().unwrap();
    assert!(casey.published);
    let got: Vec<(Option<i64>, Option<String>)> =
        tenders(&l).iter().map(|f| (f["staff"].as_i64(), f["staff_name"].as_str().map(String::from))).collect();
    assert_eq!(got, [(Some(owner), Some("Aiko".to_string())), (Some(casey.id), Some("Casey".to_string()))]);
}

#[test]
fn the_upgrade_recreates_the_trigger_and_keeps_queued_facts_as_they_were() {
    let before = common::before_tender_staff();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    {
        let mut l = Ledger::open(&path).unwrap();
        staffed(&mut l);
    }
    // The file as the version before left it: its trigger, then a tender it queued (without a
    // staff; the ledger opened at its own version does not migrate again), and its version.
    common::undo_tender_staff(&rusqlite::Connection::open(&path).unwrap());
    {
        let mut l = Ledger::open(&path).unwrap();
        mug_for_cash(&mut l, T + 10);
    }
    let queued = {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {before};")).unwrap();
        let sql: String = c.query_row("SELECT sql FROM sqlite_schema WHERE name = 'outbox_tender_added'", [], |r| r.get(0)).unwrap();
        assert!(!sql.contains("staff"), "the old trigger: {sql}");
        let fact: String = c.query_row("SELECT fact FROM outbox WHERE json_extract(fact, '$.kind') = 'tender_added'", [], |r| r.get(0)).unwrap();
        assert!(!fact.contains("staff"), "{fact}");
        fact
    };
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    // no back-fill: the queued fact is the text it was
    let old = tenders(&l);
    assert_eq!(old.len(), 1);
    assert_eq!(old[0], serde_json::from_str::<Value>(&queued).unwrap());
    // the next tender names its member
    mug_for_cash(&mut l, T + 30);
    let all = tenders(&l);
    assert_eq!((all.len(), all[1]["staff_name"].as_str()), (2, Some("Aiko")));
    assert!(l.audit().verify(None).unwrap().is_intact());
}
