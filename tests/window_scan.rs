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
