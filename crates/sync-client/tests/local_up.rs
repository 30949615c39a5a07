//! A register's own catalog items, staff and tax setup travel up (record 0052), against
//! the REAL back office on a private PostgreSQL with a real ledger file: they arrive row for
//! row in the register's own tables there; what the owner publishes, applied at the
//! register and edited again at the back office, never comes back up as a local edit; no
//! PIN and no PIN hash is anywhere in the back office's database.
use crate::support;
use crate::register;

use paydesk_access::{Pin, Role};
use paydesk_tax::{PriceMode, TaxClass};
use paydesk_domain::*;
use paydesk_ledger::*;
use register::Register;
use serde_json::{json, Value};
use support::Harness;


fn local(sku: &str, price: i64, name_ja: Option<&str>) -> CatalogItem {
    CatalogItem {
        sku: sku.into(),
        barcode: None,
        name_en: format!("Local {sku}"),
        name_ja: name_ja.map(Into::into),
        price_minor: price,
        currency: Currency::Jpy,
        tax_class: TaxClass::Standard,
        active: true,
        price_kind: paydesk_ledger::PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    }
}

fn published(sku: &str, price: i64) -> Value {
    json!({"sku": sku, "barcode": null, "name_en": format!("Item {sku}"), "name_ja": null,
           "price": price, "currency": "jpy", "tax_class": "reduced", "active": true})
}

type ItemRow = (String, String, Option<String>, i64, String, bool);

/// 2026-01-01T00:00:00Z: the back office refuses a time before 2020 (record 0039).
const T0: i64 = 1_767_225_600_000;

#[tokio::test]
async fn local_edits_arrive_and_published_ones_never_come_back() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Shibuya").await.unwrap();
    let mut reg = Register::paired(&h, &store).await;
    let l = &mut reg.ledger;
    let mut settings = l.catalog().store_settings().unwrap();
    settings.currency = Currency::Jpy;
    settings.price_mode = PriceMode::Exclusive;
    l.catalog_mut().set_store_settings(settings, None, T0 + 1).unwrap();
    l.catalog_mut().upsert(&[local("OWN-1", 100, Some("自家製")), local("OWN-2", 200, None)], None, T0 + 2).unwrap();
    let mut retired = local("OWN-2", 250, None);
    retired.active = false;
    l.catalog_mut().upsert(&[retired], None, T0 + 3).unwrap();
    let pin = Pin::parse("73196482").unwrap();
    let mika = l.roster_mut().add("Mika", Role::Manager, &pin, None, T0 + 4).unwrap();
    let mika_hash: String = l.connection().query_row("SELECT pin_hash FROM staff WHERE id = ?1", [mika.id], |r| r.get(0)).unwrap();

    // the owner publishes an item, a member and the tax setup
    let path = |p: &str| format!("/admin/stores/{store}/{p}");
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&path("settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&path("catalog"), &json!({"items": [published("PUB-1", 150)]})).await.unwrap();
    h.owner.put(&path("staff"), &json!({"staff": [{"name": "Olivia", "role": "owner", "active": true, "pin": "1111"}]})).await.unwrap();
    let tax = json!({"price_mode": "inclusive", "rounding": "half_up", "registration_number": null, "rates": [
        {"class": "standard", "ppm": 100000, "effective_from": "2019-10-01"},
        {"class": "reduced", "ppm": 80000, "effective_from": "2019-10-01"},
        {"class": "exempt", "ppm": 0}]});
    h.owner.put(&path("tax"), &json!({"expected_version": 0, "tax": tax})).await.unwrap();

    let mut sync = reg.sync_loop();
    let first = sync.round().await.unwrap();
    assert_eq!((first.items_applied, first.staff_applied, first.tax_changed), (1, 1, true), "{first:?}");
    // the owner edits the published item again; two more rounds carry it down and send what is new
    h.owner.put(&path("catalog"), &json!({"items": [published("PUB-1", 180)]})).await.unwrap();
    sync.round().await.unwrap();
    sync.round().await.unwrap();
    assert_eq!(reg.ledger.catalog().item("PUB-1").unwrap().unwrap().price_minor, 180);
    assert_eq!(reg.ledger.sync_log().outbox_stats().unwrap().queued, 0);

    let db = h.db().await;
    let journal: Vec<Value> = db.query("SELECT fact FROM journal ORDER BY seq", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    let kinds: Vec<&str> = journal.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    // PUB-1, Olivia and the published setup were applied at the register and never sent back
    assert!(!journal.iter().any(|f| f["sku"] == "PUB-1" || f["name"] == "Olivia"), "{journal:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "tax_setup_changed").count(), 1, "only the register's own setup: {kinds:?}");
    let own_tax = journal.iter().find(|f| f["kind"] == "tax_setup_changed").unwrap();
    assert_eq!(own_tax["price_mode"], "exclusive");

    // the register's own items, row for row, and nothing of the published catalog
    let mut st = reg.ledger.connection().prepare("SELECT sku FROM products WHERE published_version IS NULL ORDER BY sku").unwrap();
    let skus: Vec<String> = st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    let mine: Vec<ItemRow> = skus
        .iter()
        .map(|s| {
            let i = reg.ledger.catalog().item(s).unwrap().unwrap();
            (i.sku, i.name_en, i.name_ja, i.price_minor, paydesk_sync_proto::catalog::class_name(i.tax_class).to_string(), i.active)
        })
        .collect();
    assert_eq!(skus, ["OWN-1", "OWN-2"]);
    let theirs: Vec<ItemRow> = db
        .query("SELECT sku, name_en, name_ja, price, tax_class, active FROM register_items ORDER BY sku", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
        .collect();
    assert_eq!(theirs, mine, "the register's own items, the retired one retired");
    let staff: Vec<(i64, String, String, bool)> = db
        .query("SELECT staff_id, name, role, active FROM register_staff ORDER BY staff_id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    assert_eq!(staff, [(mika.id, "Mika".to_string(), "manager".to_string(), true)]);
    let tax: (String, String) = db.query_one("SELECT price_mode, rounding FROM register_tax", &[]).await.map(|r| (r.get(0), r.get(1))).unwrap();
    assert_eq!(tax, ("exclusive".to_string(), "down".to_string()));
    // the published copies are the owner's, untouched by the register's
    let published_price: i64 = db.query_one("SELECT (item->>'price')::int8 FROM catalog_items WHERE sku = 'PUB-1'", &[]).await.unwrap().get(0);
    assert_eq!(published_price, 180);

    // Mika's PIN hash (and her 8-digit PIN) are nowhere in the back office's database: every text-like
    // column of every table of the service's schema is searched.
    let cols = db
        .query(
            "SELECT table_name, column_name FROM information_schema.columns
             WHERE table_schema = 'public' AND data_type IN ('text', 'jsonb', 'json', 'character varying', 'bytea')",
            &[],
        )
        .await
        .unwrap();
    assert!(cols.len() > 20, "the search covers the schema: {} columns", cols.len());
    for c in &cols {
        let (t, col): (String, String) = (c.get(0), c.get(1));
        // names come from information_schema, quoted as identifiers
        let sql = format!("SELECT count(*) FROM \"{t}\" WHERE position($1 in \"{col}\"::text) > 0 OR position($2 in \"{col}\"::text) > 0");
        let n: i64 = db.query_one(&sql, &[&mika_hash.as_str(), &"73196482"]).await.unwrap().get(0);
        assert_eq!(n, 0, "{t}.{col} holds Mika's PIN or its hash");
    }
}

/// A register's own weighed item, department key and filed item reach the back office with
/// their shape (record 0137, ledger v34): the back office lists loose bananas per kg, not as
/// a piece item, and a change of unit alone goes up too.
#[tokio::test]
async fn a_registers_own_items_arrive_with_how_they_are_priced_and_sold() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Loose goods").await.unwrap();
    let mut reg = Register::paired(&h, &store).await;
    let l = &mut reg.ledger;
    let mut settings = l.catalog().store_settings().unwrap();
    settings.currency = Currency::Jpy;
    l.catalog_mut().set_store_settings(settings, None, T0 + 1).unwrap();
    let bananas = CatalogItem { unit: paydesk_tax::SaleUnit::Kilogram, ..local("BAN-1", 398, None) };
    let key = CatalogItem { price_kind: paydesk_ledger::PriceKind::Department, price_minor: 0, ..local("DEPT-1", 0, None) };
    l.catalog_mut().upsert(&[bananas.clone(), key, local("PLAIN-1", 100, None)], None, T0 + 2).unwrap();
    let mut sync = reg.sync_loop();
    sync.round().await.unwrap();
    let db = h.db().await;
    let rows = |db: tokio_postgres::Client| async move {
        db.query("SELECT sku, price_kind, unit FROM register_items ORDER BY sku", &[])
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, String>(1), r.get::<_, String>(2)))
            .collect::<Vec<_>>()
    };
    let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        rows(db).await,
        [s("BAN-1", "fixed", "kilogram"), s("DEPT-1", "department", "piece"), s("PLAIN-1", "fixed", "piece")]
    );
    // Per 100 g from now on: the unit alone changed, and the back office hears it.
    reg.ledger.catalog_mut().upsert(&[CatalogItem { unit: paydesk_tax::SaleUnit::HundredGrams, ..bananas }], None, T0 + 3).unwrap();
    sync.round().await.unwrap();
    assert_eq!(rows(h.db().await).await[0], s("BAN-1", "fixed", "hundred_grams"));
}
