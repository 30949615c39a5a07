//! The catalog and tax setup published at the REAL back office (private PostgreSQL)
//! reaching a register's real ledger file through the sync loop (record 0049): applied
//! once, read-only at the register, a barcode taken over from a local item, what the
//! register cannot hold named, and a large catalog caught up in one round of pages.
use crate::support;
use crate::register;

use paydesk_tax::{Rounding, TaxClass};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_sync::store::SyncState;
use register::Register;
use serde_json::{json, Value};
use support::Harness;

impl Register {
    fn audit_rows(&self) -> usize {
        self.ledger.audit().log().unwrap().len()
    }
}

fn item(sku: &str, price: i64, barcode: Option<&str>, currency: &str) -> Value {
    json!({"sku": sku, "barcode": barcode, "name_en": format!("Item {sku}"), "name_ja": format!("商品 {sku}"),
           "price": price, "currency": currency, "tax_class": "reduced", "active": true})
}

fn tax() -> Value {
    json!({"price_mode": "exclusive", "rounding": "half_up", "registration_number": "T7000012050002", "rates": [
        {"class": "standard", "ppm": 100000, "effective_from": "2019-10-01"},
        {"class": "reduced", "ppm": 80000, "effective_from": "2019-10-01"},
        {"class": "exempt", "ppm": 0}]})
}

#[tokio::test]
async fn published_items_and_tax_reach_the_ledger_once_and_are_read_only_there() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Shibuya").await.unwrap();
    let mut reg = Register::paired(&h, &store).await;
    // A local item first, holding the barcode the back office will publish for TEA.
    let local = CatalogItem {
        sku: "LOCAL-1".into(),
        barcode: Some(paydesk_tax::Gtin13::parse("4901234567894").unwrap()),
        name_en: "Local".into(),
        name_ja: None,
        price_minor: 100,
        currency: Currency::Jpy,
        tax_class: TaxClass::Standard,
        active: true,
        price_kind: paydesk_ledger::PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    };
    let mut settings = reg.ledger.catalog().store_settings().unwrap();
    settings.currency = Currency::Jpy;
    reg.ledger.catalog_mut().set_store_settings(settings, None, 1).unwrap();
    reg.ledger.catalog_mut().upsert(std::slice::from_ref(&local), None, 2).unwrap();

    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&path("settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&path("catalog"), &json!({"items": [item("TEA", 150, Some("4901234567894"), "jpy"), item("RICE", 300, None, "jpy")]})).await.unwrap();
    h.owner.put(&path("tax"), &json!({"expected_version": 0, "tax": tax()})).await.unwrap();

    let mut sync = reg.sync_loop();
    let round = sync.round().await.unwrap();
    assert_eq!((round.items_applied, round.tax_changed, round.settings_version), (2, true, 4), "{round:?}");
    assert!(round.not_applied.is_empty(), "{round:?}");
    let tea = reg.ledger.catalog().item("TEA").unwrap().expect("published");
    assert_eq!((tea.price_minor, tea.name_ja.as_deref(), tea.barcode.as_ref().map(paydesk_tax::Gtin13::as_str)), (150, Some("商品 TEA"), Some("4901234567894")));
    assert_eq!(reg.ledger.catalog().published_skus().unwrap(), vec!["RICE".to_string(), "TEA".to_string()]);
    // The local item gave its barcode up, and the audit log says why.
    assert_eq!(reg.ledger.catalog().item("LOCAL-1").unwrap().unwrap().barcode, None);
    let log = reg.ledger.audit().log().unwrap();
    assert!(log.iter().any(|e| e.detail.as_deref() == Some("product LOCAL-1") && e.reason.contains("published by the back office for TEA")), "{log:?}");
    // The tax setup is the back office's now.
    let tax_now = reg.ledger.catalog().tax_settings().unwrap();
    assert_eq!(tax_now.rounding, Rounding::HalfUp);
    assert_eq!(reg.ledger.catalog().store_settings().unwrap().registration_number.as_deref(), Some("T7000012050002"));
    assert_eq!(reg.ledger.catalog().tax_published_version().unwrap(), Some(4));

    // Read-only here: each local path is refused with the typed error.
    let edited = CatalogItem { price_minor: 1, ..tea.clone() };
    let e = reg.ledger.catalog_mut().upsert(&[edited], None, 10).unwrap_err();
    assert!(matches!(&e, Error::PublishedItem { sku } if sku == "TEA"), "{e}");
    let csv = "sku,barcode,name_en,name_ja,price_minor,tax_class,active\nTEA,,Tea,,1,reduced,true\n";
    let problems = reg.ledger.catalog_mut().import_csv(csv.as_bytes(), None, 11).unwrap().unwrap_err();
    assert!(problems.iter().any(|p| p.message.contains("managed by the back office")), "{problems:?}");
    let mut s = reg.ledger.catalog().store_settings().unwrap();
    s.rounding = Rounding::Down;
    assert!(matches!(reg.ledger.catalog_mut().set_store_settings(s, None, 12).unwrap_err(), Error::PublishedTax));
    // ...while the fields the register owns still change.
    let mut s = reg.ledger.catalog().store_settings().unwrap();
    s.phone = "03-0000-0000".into();
    reg.ledger.catalog_mut().set_store_settings(s, None, 13).unwrap();

    // A round with nothing new writes nothing (no audit row per round).
    let audits = reg.audit_rows();
    let again = sync.round().await.unwrap();
    assert_eq!((again.items_applied, again.tax_changed), (0, false));
    assert_eq!(reg.audit_rows(), audits);

    // A price change and a retirement arrive as such; scanning the retired item stops.
    h.owner.put(&path("catalog"), &json!({"items": [item("TEA", 160, Some("4901234567894"), "jpy"), json!({"sku": "RICE", "name_en": "Item RICE", "price": 300, "currency": "jpy", "tax_class": "reduced", "active": false})]})).await.unwrap();
    let round = sync.round().await.unwrap();
    assert_eq!(round.items_applied, 2, "{round:?}");
    assert_eq!(reg.ledger.catalog().item("TEA").unwrap().unwrap().price_minor, 160);
    assert!(!reg.ledger.catalog().item("RICE").unwrap().unwrap().active);

    // A state file that lost its version (an old backup) gets everything again; applying
    // it changes nothing.
    drop(sync);
    let state_path = SyncState::path_in(reg.dir.path());
    let mut st = SyncState::load(&state_path).unwrap();
    st.settings_version = 0;
    st.save(&state_path).unwrap();
    let audits = reg.audit_rows();
    let round = reg.sync_loop().round().await.unwrap();
    assert_eq!((round.items_applied, round.tax_changed, round.settings_version), (0, false, 6), "{round:?}");
    assert_eq!(reg.audit_rows(), audits);
}

#[tokio::test]
async fn what_the_register_cannot_hold_is_named_and_a_large_catalog_catches_up_in_one_round() {
    let h = Harness::start().await;
    // No settings published: the back office cannot check currencies, the register does.
    let store = h.owner.create_store("Mixed").await.unwrap();
    let reg = Register::paired(&h, &store).await;
    assert_eq!(reg.ledger.catalog().store_settings().unwrap().currency, Currency::Usd);
    let path = format!("/admin/stores/{store}/catalog");
    h.owner.put(&path, &json!({"items": [item("USD-1", 250, None, "usd"), item("YEN-1", 300, None, "jpy"), item("CHF-1", 300, None, "chf")]})).await.unwrap();
    for chunk in 0..3 {
        let items: Vec<Value> = (0..400).map(|i| item(&format!("SKU-{:05}", chunk * 400 + i), 100 + i, None, "usd")).collect();
        h.owner.put(&path, &json!({"items": items})).await.unwrap();
    }
    let mut sync = reg.sync_loop();
    let round = sync.round().await.unwrap();
    assert_eq!(round.items_applied, 1 + 1200, "{round:?}");
    assert_eq!(round.settings_version, 1203);
    assert_eq!(round.not_applied.len(), 2, "{round:?}");
    assert!(round.not_applied.iter().any(|w| w.contains("YEN-1") && w.contains("priced in jpy")), "{round:?}");
    assert!(round.not_applied.iter().any(|w| w.contains("CHF-1") && w.contains("\"chf\"")), "{round:?}");
    assert_eq!(reg.ledger.catalog().items().unwrap().len(), 1201);
    assert!(reg.ledger.catalog().item("YEN-1").unwrap().is_none());
    // The version moved past them: the next round does not stall on them.
    assert_eq!(sync.round().await.unwrap().items_applied, 0);
}

/// Staff published at the back office sign in at the register with the PIN set there
/// (record 0050); their PIN cannot be changed locally; a retirement stops their
/// sign-in; a new PIN from the back office clears a lock.
#[tokio::test]
async fn published_staff_sign_in_with_the_back_offices_pin() {
    use paydesk_access::{LockoutPolicy, Pin, Role};
    let h = Harness::start().await;
    let store = h.owner.create_store("Shibuya").await.unwrap();
    let mut reg = Register::paired(&h, &store).await;
    let path = format!("/admin/stores/{store}/staff");
    h.owner
        .put(&path, &json!({"staff": [
            {"name": "Olivia", "role": "owner", "active": true, "pin": "1111"},
            {"name": "Casey", "role": "cashier", "active": true, "pin": "3333"}]}))
        .await
        .unwrap();
    let mut sync = reg.sync_loop();
    let round = sync.round().await.unwrap();
    assert_eq!(round.staff_applied, 2, "{round:?}");
    let pin = |p: &str| Pin::parse(p).unwrap();
    let policy = LockoutPolicy::default();
    let casey = reg.ledger.roster_mut().sign_in("Casey", &pin("3333"), policy, 100).unwrap();
    assert_eq!(casey.role, Role::Cashier);
    reg.ledger.roster_mut().sign_out(101).unwrap();
    assert_eq!(reg.ledger.roster().published_names().unwrap(), vec!["Casey".to_string(), "Olivia".to_string()]);
    // The hash never reaches the audit log.
    let log = serde_json::to_string(&reg.ledger.audit().log().unwrap().iter().map(|e| (&e.before, &e.after)).collect::<Vec<_>>()).unwrap();
    assert!(!log.contains("argon2"), "{log}");

    // Her PIN is the back office's: refused before the old one is even checked.
    let e = reg.ledger.roster_mut().change_pin("Casey", &pin("3333"), &pin("4444"), policy, 102).unwrap_err();
    assert!(matches!(&e, Error::PublishedStaff { name } if name == "Casey"), "{e}");

    // Locked by wrong PINs here; a new PIN from the back office clears the lock.
    for i in 0..policy.max_failures {
        let _ = reg.ledger.roster_mut().sign_in("Casey", &pin("0000"), policy, 200 + i as i64);
    }
    assert!(matches!(reg.ledger.roster_mut().sign_in("Casey", &pin("3333"), policy, 300), Err(Error::StaffLocked { .. })));
    h.owner.put(&path, &json!({"staff": [{"name": "Casey", "role": "manager", "active": true, "pin": "5555"}]})).await.unwrap();
    assert_eq!(sync.round().await.unwrap().staff_applied, 1);
    assert_eq!(reg.ledger.roster_mut().sign_in("Casey", &pin("5555"), policy, 301).unwrap().role, Role::Manager);
    reg.ledger.roster_mut().sign_out(302).unwrap();
    // The same round again writes nothing.
    let audits = reg.audit_rows();
    assert_eq!(sync.round().await.unwrap().staff_applied, 0);
    assert_eq!(reg.audit_rows(), audits);

    // Retired: her PIN no longer signs in (the same answer as a wrong one).
    h.owner.put(&path, &json!({"staff": [{"name": "Casey", "role": "manager", "active": false}]})).await.unwrap();
    sync.round().await.unwrap();
    assert!(matches!(reg.ledger.roster_mut().sign_in("Casey", &pin("5555"), policy, 400), Err(Error::WrongPin { .. })));
}
