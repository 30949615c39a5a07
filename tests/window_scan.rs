//! The real window under Xvfb: scan items like a barcode scanner (type + Enter) and
//! see the cart and its total.

use paydesk_e2e::{App, Launch};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scanning_fills_the_cart_and_total() {
    let app = App::start("scan", Launch::default()).await;

    // Keyboard-first: the barcode field has focus on start.
    let focused = app.js("return document.activeElement && document.activeElement.id").await;
    assert_eq!(focused, "scan");

    app.scan("COF-001").await; // SKU
    app.wait_js("return document.querySelectorAll('#cart-lines li').length === 1", "one cart line", paydesk_e2e::LONG).await;
    // a barcode (EAN-13) of the croissant, as a scanner would type it
    let barcode = app
        .js("return document.querySelector('.item[data-sku=\"CRO-001\"] .sku').textContent.split(' · ')[1]")
        .await;
    app.scan(barcode.as_str().unwrap()).await;
    app.scan("COF-001").await;
    app.wait_js(
        "return document.getElementById('cart-total').textContent === '$8.69'",
        "total $8.69",
        paydesk_e2e::LONG,
    )
    .await;
    assert_eq!(app.text("#cart-lines li[data-sku='COF-001'] .line-total").await, "$5.00");
    assert_eq!(app.text("#charge").await, "Charge $8.69");

    // An unknown code is said in words, and the field keeps it selected for a rescan.
    app.scan("NOPE-404").await;
    app.wait_js(
        "return document.getElementById('alert').textContent.includes('No item has the code')",
        "an unknown-item message",
        paydesk_e2e::LONG,
    )
    .await;

    // The strict CSP holds: the UI worked without a single violation ...
    let violations = app.js("return document.body.dataset.cspViolations || '0'").await;
    assert_eq!(violations, "0", "{}", app.js("return document.body.dataset.cspLast").await);
    // ... and eval is refused (that attempt is the one violation reported).
    let refused = app
        .js("try { new Function('return 1')(); return 'eval allowed'; } catch (e) { return 'refused'; }")
        .await;
    assert_eq!(refused, "refused", "CSP must forbid eval");

    app.screenshot("register-cart").await;
    app.close().await;
}

/// Any retail barcode (issue #30): an item saved with its 12-digit UPC-A is rung by a
/// scanner that types the UPC-A, and again by one that types the same code as EAN-13 (a
/// leading 0): one item, one line, two of it; the catalog keeps the 13-digit form. An EAN-8
/// item scans too. A UPC-A with a wrong check digit (a misread) rings nothing: it is no
/// barcode, and no SKU either.
async fn upc_a_and_ean_8_at(width: u32, height: u32) {
    let app = App::start(&format!("scan-upc-{width}x{height}"), Launch { width, height, ..Launch::default() }).await;
    for (sku, barcode, name) in [("TISSUE", "036000291452", "Tissues"), ("GUM", "96385074", "Gum")] {
        let item = format!("{{ sku: '{sku}', barcode: '{barcode}', name_en: '{name}', name_ja: '', price: '1.00', tax_class: 'exempt', active: true }}");
        let saved = app.js(&format!("return window.__TAURI__.core.invoke('save_item', {{ item: {item} }}).then((r) => r.barcode, (e) => JSON.stringify(e))")).await;
        assert_eq!(saved.as_str().map(str::len), Some(13), "stored as 13 digits: {saved}");
    }
    app.js("return window.__TAURI__.core.invoke('get_catalog').then(() => true)").await;
    let lines = |n: usize, q: u32| format!("return document.querySelectorAll('#cart-lines li').length === {n} && document.querySelector(\"#cart-lines li[data-sku='TISSUE'] input\")?.value === '{q}'");
    app.scan("036000291452").await;
    app.wait_js(&lines(1, 1), "the UPC-A rings the tissues", paydesk_e2e::LONG).await;
    app.scan("0036000291452").await;
    app.wait_js(&lines(1, 2), "the same code as EAN-13 is the same item", paydesk_e2e::LONG).await;
    app.scan("96385074").await;
    app.wait_js("return document.querySelectorAll(\"#cart-lines li[data-sku='GUM']\").length === 1", "the EAN-8 rings the gum", paydesk_e2e::LONG).await;
    app.screenshot(&format!("scan-upc-{width}x{height}")).await;
    app.scan("036000291453").await;
    app.wait_js("return document.getElementById('alert').textContent.includes('No item has the code')", "the misread said", paydesk_e2e::LONG).await;
    assert_eq!(app.js("return document.querySelectorAll('#cart-lines li').length").await, 2, "nothing rung by a misread code");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_upc_a_an_ean_13_of_it_and_an_ean_8_ring_up_at_1280x800() {
    upc_a_and_ean_8_at(1280, 800).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_upc_a_an_ean_13_of_it_and_an_ean_8_ring_up_at_1024x768() {
    upc_a_and_ean_8_at(1024, 768).await;
}
