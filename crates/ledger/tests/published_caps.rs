//! The back office's offline caps as this register keeps them (record 0139): replaced whole,
//! written only when they change, audited with no actor, refused when they are not money
//! (negative, or a payment cap above the total) with nothing written; and the upgrade from
//! the version before adds the table to a file whose sales read as before.

use crate::common;
use paydesk_domain::*;
use paydesk_ledger::*;

const AT: i64 = 1_796_083_200_000;

fn caps(per_payment_minor: i64, total_minor: i64) -> PublishedCaps {
    PublishedCaps { currency: Currency::Usd, per_payment_minor, total_minor }
}

fn audit_rows(l: &Ledger) -> Vec<(Option<i64>, String, String)> {
    let mut s = l.connection().prepare("SELECT actor_id, after_doc, reason FROM audit_log WHERE action = 'published_offline_caps' ORDER BY id").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn published_caps_are_kept_whole_audited_once_and_refused_when_not_money() {
    let mut l = common::mem();
    assert_eq!(l.catalog().published_offline_caps().unwrap(), None);
    assert!(l.catalog_mut().set_published_offline_caps(Some(caps(2_000, 5_000)), AT).unwrap());
    assert!(!l.catalog_mut().set_published_offline_caps(Some(caps(2_000, 5_000)), AT + 1).unwrap());
    assert!(l.catalog_mut().set_published_offline_caps(Some(caps(1_000, 5_000)), AT + 2).unwrap());
    assert_eq!(l.catalog().published_offline_caps().unwrap(), Some(caps(1_000, 5_000)));
    for bad in [caps(-1, 5_000), caps(6_000, 5_000)] {
        let e = l.catalog_mut().set_published_offline_caps(Some(bad), AT + 3).unwrap_err();
        assert!(matches!(e, Error::InvalidInput(ref m) if m.contains("per payment")), "{bad:?}: {e}");
    }
    assert_eq!(l.catalog().published_offline_caps().unwrap(), Some(caps(1_000, 5_000)), "a refusal changes nothing");
    // Plain SQL cannot store caps that are not money either.
    let e = l.connection().execute("UPDATE published_offline_caps SET per_payment_minor = 9000", []);
    assert!(e.is_err(), "a payment cap above the total");
    assert!(l.catalog_mut().set_published_offline_caps(None, AT + 4).unwrap());
    let rows = audit_rows(&l);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().all(|(actor, _, reason)| actor.is_none() && reason == "published by the back office"), "{rows:?}");
    assert_eq!(rows[2].1, "null");
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn the_upgrade_adds_the_caps_table_and_a_file_from_before_reads_as_before() {
    let before = paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("CREATE TABLE IF NOT EXISTS published_offline_caps"))
        .expect("the published caps migration");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    let paid = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, AT).unwrap();
        let c = l.carts_mut().create(Currency::Usd, AT).unwrap();
        l.carts_mut().add(c, "COF-001", 1, AT).unwrap();
        l.sales_mut().pay_cash(c, 300, None, AT + 1).unwrap();
        c
    };
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("DROP TABLE published_offline_caps; PRAGMA user_version = {before};")).unwrap();
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    assert_eq!(l.catalog().published_offline_caps().unwrap(), None, "none published until the back office says so");
    assert_eq!(l.sales().by_cart(paid).unwrap().state, SaleState::Paid);
    assert!(l.catalog_mut().set_published_offline_caps(Some(caps(2_000, 5_000)), AT + 2).unwrap());
    assert!(l.audit().verify(None).unwrap().is_intact());
}
