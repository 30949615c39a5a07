//! The catalog screen (F5) in the real window: a bad CSV pasted in shows EVERY bad line
//! and field and imports nothing; a good one imports and the item scans at once; an item
//! form shows its problem per field; export writes the file in the data folder. Files
//! chosen with the file picker (WebDriver types the path into the file input) are read
//! and imported the same way: a bad file lists its bad lines, a good one imports.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use serde_json::Value;

const HEADER: &str = "sku,barcode,name_en,name_ja,price_minor,tax_class,active";

async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

/// Puts `csv` in the paste box (as a paste does) and presses Import.
async fn import(app: &App, csv: &str) {
    app.driver
        .execute("document.getElementById('csv-text').value = arguments[0]; return true", vec![Value::from(csv)])
        .await
        .unwrap();
    app.click("#csv-import").await;
}

async fn row_count(app: &App) -> i64 {
    app.js("return +document.getElementById('catalog-rows').dataset.count").await.as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_import_shows_every_bad_line_and_a_good_file_scans_at_once() {
    let app = App::start("catalog", Launch::default()).await;
    key(&app, Key::F5).await;
    app.wait_js("return +document.getElementById('catalog-rows').dataset.count === 17", "the 14 demo items, the weighed item and 2 department keys", LONG).await;

    let bad = format!(
        "{HEADER}\nONI-001,,Rice ball,おにぎり,150,reduced,true\nBAD-1,4900000000011,Bad barcode,,-5,reduced,true\nBAD-2,,,,100,luxury,maybe\n"
    );
    import(&app, &bad).await;
    app.wait_js("return document.getElementById('csv-msg').dataset.outcome === 'csv_rejected'", "the file refused", LONG).await;
    let listed = app
        .js("return [...document.querySelectorAll('#csv-problems li')].map((li) => li.dataset.line + ':' + li.dataset.field)")
        .await;
    let listed: Vec<&str> = listed.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for want in ["3:barcode", "3:price_minor", "4:name_en", "4:tax_class", "4:active"] {
        assert!(listed.contains(&want), "{want} not listed: {listed:?}");
    }
    assert!(!listed.iter().any(|l| l.starts_with("2:")), "the good line is not a problem: {listed:?}");
    assert!(app.text("#csv-msg").await.contains("Nothing was imported"));
    assert_eq!(row_count(&app).await, 17, "nothing imported");

    import(&app, &format!("{HEADER}\nONI-001,4901234567894,Rice ball,おにぎり,150,reduced,true\n")).await;
    app.wait_js("return document.getElementById('csv-msg').dataset.outcome === 'imported'", "the file imported", LONG).await;
    app.wait_js("return +document.getElementById('catalog-rows').dataset.count === 18", "18 items", LONG).await;

    // A field's problem next to the field; nothing saved.
    app.click("#catalog-rows tr[data-sku='ONI-001'] button").await;
    let price = app.el("#item-price_minor").await;
    price.clear().await.unwrap();
    price.send_keys("1.5.0").await.unwrap();
    app.click("#item-save").await;
    app.wait_js("return document.getElementById('item-err-price_minor').textContent !== ''", "the price's problem", LONG).await;
    assert_eq!(app.js("return document.getElementById('item-form').dataset.code").await, Value::from("invalid_item"));

    app.click("#catalog-export").await;
    app.wait_js("return !document.getElementById('csv-export-text').hidden", "the export", LONG).await;
    let export = std::fs::read_to_string(app.data_dir.join("catalog-export.csv")).unwrap();
    assert!(export.contains("ONI-001,4901234567894,Rice ball,おにぎり,150,reduced,1"), "{export}");

    // The register knows the new item by its barcode at once.
    key(&app, Key::F1).await;
    app.scan("4901234567894").await;
    app.wait_js("return !!document.querySelector(\".cart-line[data-sku='ONI-001']\")", "the rice ball in the cart", LONG).await;
    app.wait_js("return !!document.querySelector(\".item[data-sku='ONI-001']\")", "the rice ball in the register's catalog", LONG).await;
    app.close().await;
}

/// Chooses `path` in the CSV file picker (as WebDriver does: the path typed into the
/// file input), waits until the file is read into the box, and presses Import.
async fn import_file(app: &App, path: &std::path::Path) {
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    app.el("#csv-file").await.send_keys(path.to_str().unwrap()).await.unwrap();
    app.wait_js(&format!("return document.getElementById('csv-text').dataset.file === '{name}'"), "the file read", LONG).await;
    app.click("#csv-import").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_csv_file_chosen_in_the_picker_is_imported_and_a_bad_one_lists_its_lines() {
    let app = App::start("catalog-file", Launch::default()).await;
    let files = tempfile::tempdir().unwrap();
    key(&app, Key::F5).await;
    app.wait_js("return +document.getElementById('catalog-rows').dataset.count === 17", "the 14 demo items, the weighed item and 2 department keys", LONG).await;

    let bad = files.path().join("bad.csv");
    std::fs::write(&bad, format!("{HEADER}\nYUZ-001,,Yuzu soda,ゆずソーダ,200,reduced,true\nBAD-3,123,,,abc,reduced,true\n")).unwrap();
    import_file(&app, &bad).await;
    app.wait_js("return document.getElementById('csv-msg').dataset.outcome === 'csv_rejected'", "the file refused", LONG).await;
    let listed = app
        .js("return [...document.querySelectorAll('#csv-problems li')].map((li) => li.dataset.line + ':' + li.dataset.field)")
        .await;
    let listed: Vec<&str> = listed.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for want in ["3:barcode", "3:name_en", "3:price_minor"] {
        assert!(listed.contains(&want), "{want} not listed: {listed:?}");
    }
    assert!(!listed.iter().any(|l| l.starts_with("2:")), "the good line is not a problem: {listed:?}");
    assert_eq!(row_count(&app).await, 17, "nothing imported from a file with errors");

    let good = files.path().join("good.csv");
    std::fs::write(&good, format!("{HEADER}\nYUZ-001,,Yuzu soda,ゆずソーダ,200,reduced,true\n")).unwrap();
    import_file(&app, &good).await;
    app.wait_js("return document.getElementById('csv-msg').dataset.outcome === 'imported'", "the file imported", LONG).await;
    app.wait_js("return +document.getElementById('catalog-rows').dataset.count === 18", "18 items", LONG).await;
    assert!(app.js("return document.querySelector(\"#catalog-rows tr[data-sku='YUZ-001']\") !== null").await.as_bool().unwrap());
    app.close().await;
}

/// Items and the tax setup the back office publishes (record 0049), written into the
/// app's own ledger as the sync loop writes them: the catalog screen shows a "Back
/// office" badge where Edit was, the store form shows the tax fields locked with the
/// reason, and the rest of the store form still saves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn published_items_show_a_badge_and_the_tax_fields_are_locked() {
    use paydesk_tax::{PriceMode, RateTable, Rounding};
    use paydesk_ledger::{Ledger, PublishedItem, PublishedTax};
    let app = App::start("catalog-published", Launch::default()).await;
    {
        let mut l = Ledger::open(app.data_dir.join("ledger.db")).unwrap();
        let mug = l.catalog().item("MUG-001").unwrap().expect("a demo item");
        let r = l.catalog_mut().apply_published_items(&[PublishedItem { version: 3, item: paydesk_ledger::CatalogItem { price_minor: 1_595, ..mug }, category: None }], 1).unwrap();
        assert_eq!(r.applied, 1);
        let tax = PublishedTax { version: 4, price_mode: PriceMode::Exclusive, rounding: Rounding::HalfUp, registration_number: None, rates: RateTable::japan() };
        assert!(l.catalog_mut().apply_published_tax(&tax, 2).unwrap());
    }
    key(&app, Key::F5).await;
    app.wait_js("return !!document.querySelector(\"#catalog-rows tr[data-sku='MUG-001'] [data-published]\")", "the badge on the published item", LONG).await;
    let edit_buttons = app.js("return document.querySelectorAll(\"#catalog-rows tr[data-sku='MUG-001'] button\").length").await;
    assert_eq!(edit_buttons, Value::from(0), "no Edit on a published item");
    assert_eq!(app.text("#catalog-rows tr[data-sku='MUG-001'] [data-published]").await, "Back office");
    app.wait_js("return !!document.getElementById('store-tax-published')", "the store form's reason", LONG).await;
    let locked = app
        .js("return [document.getElementById('store-rounding').disabled, document.getElementById('store-price_mode').disabled, document.getElementById('store-registration_number').readOnly]")
        .await;
    assert_eq!(locked, serde_json::json!([true, true, true]));
    app.screenshot("catalog-published").await;
    // The fields the register owns still save, the locked ones going as they are.
    let phone = app.el("#store-phone").await;
    phone.clear().await.unwrap();
    phone.send_keys("555-0100").await.unwrap();
    app.click("#store-save").await;
    app.wait_js("return document.getElementById('store-msg').dataset.outcome === 'saved'", "the store saved", LONG).await;
    let l = Ledger::open(app.data_dir.join("ledger.db")).unwrap();
    let s = l.catalog().store_settings().unwrap();
    assert_eq!((s.phone.as_str(), s.rounding, s.price_mode), ("555-0100", Rounding::HalfUp, PriceMode::Exclusive));
    app.close().await;
}

/// The item form says how an item is priced and sold (records 0126, 0134), and names each
/// tax class by this store's rate: the New York cafe's standard class is 8.875 %, not
/// Japan's 10 %. An owner adds olives sold per 100 g from the form; the list shows their
/// price per 100 g, the ledger holds them weighed, and renaming the demo's bananas keeps
/// them sold per kg. Both at 1280x800 and 1024x768 (the form must fit the smaller screen).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_item_form_sets_how_an_item_is_sold_and_names_classes_by_the_stores_rates() {
    for (w, h) in [(1280, 800), (1024, 768)] {
        let app = App::start(&format!("catalog-form-{w}"), Launch { width: w, height: h, ..Launch::default() }).await;
        key(&app, Key::F5).await;
        app.wait_js("return +document.getElementById('catalog-rows').dataset.count === 17", "the demo catalog", LONG).await;
        let bananas = app.text("#catalog-rows tr[data-sku='2100001']").await;
        assert!(bananas.contains("$0.69/kg"), "a per-kg price shown as a piece's: {bananas}");

        app.click("#catalog-add").await;
        let classes = app.js("return [...document.querySelectorAll('#item-tax_class option')].map((o) => o.textContent)").await;
        assert_eq!(classes, serde_json::json!(["standard (8.875%)", "reduced (0% take-out)", "exempt"]));
        for (field, text) in [("sku", "OLV-100"), ("name_en", "Olives"), ("price_minor", "1.20")] {
            app.el(&format!("#item-{field}")).await.send_keys(text).await.unwrap();
        }
        app.js("const u = document.getElementById('item-unit'); u.value = 'hundred_grams'; return true").await;
        let form = app.el("#item-form").await.rect().await.unwrap();
        assert!(form.x + form.width <= f64::from(w) + 0.5, "the form runs off a {w}px window: {form:?}");
        let p = app.screenshot(&format!("catalog-form-{w}")).await;
        let _ = std::fs::create_dir_all("/work/shots");
        let _ = std::fs::copy(&p, format!("/work/shots/catalog-form-{w}x{h}.png"));
        app.click("#item-save").await;
        app.wait_js("return !!document.querySelector(\"#catalog-rows tr[data-sku='OLV-100']\")", "the olives listed", LONG).await;
        assert!(app.text("#catalog-rows tr[data-sku='OLV-100']").await.contains("$1.20/100g"));

        // Renamed from the form, the bananas stay weighed: the form shows and sends their unit.
        app.click("#catalog-rows tr[data-sku='2100001'] button").await;
        assert_eq!(app.el("#item-unit").await.value().await.unwrap().as_deref(), Some("kilogram"));
        let name = app.el("#item-name_en").await;
        name.clear().await.unwrap();
        name.send_keys("Bananas, loose").await.unwrap();
        app.click("#item-save").await;
        app.wait_js("return document.querySelector(\"#catalog-rows tr[data-sku='2100001']\")?.textContent.includes('Bananas, loose')", "the bananas renamed", LONG).await;

        let l = paydesk_ledger::Ledger::open_reader(app.data_dir.join("ledger.db")).unwrap();
        let olives = l.catalog().item("OLV-100").unwrap().unwrap();
        assert_eq!((olives.price_minor, olives.unit, olives.price_kind), (120, paydesk_tax::SaleUnit::HundredGrams, paydesk_ledger::PriceKind::Fixed));
        assert_eq!(l.catalog().item("2100001").unwrap().unwrap().unit, paydesk_tax::SaleUnit::Kilogram);
        drop(l);
        app.close().await;
    }
}
