//! Weighed goods in the real window (issue #30, record 0134), at 1280×800 and 1024×768 in
//! the en-US demo store: a scale label scanned in the scan field rings 452 g of bananas at
//! $0.69/kg as one line showing "0.452 kg @ $0.69/kg" and $0.31; the bananas tapped in
//! the item list ask for their grams, and 1000 g ring a second line of $0.69. Screenshots
//! to /work/shots/weighed-<size>.png when that folder exists.

use paydesk_e2e::{App, Launch, LONG};

/// A scale label under the default weight rule: 21 + item 00001 + the grams in 5 digits.
fn label(grams: u32) -> String {
    let data = format!("2100001{grams:05}");
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

async fn weigh_at(width: u32, height: u32) {
    let name = format!("weighed-{width}x{height}");
    let app = App::start(&name, Launch { width, height, ..Launch::default() }).await;
    app.scan(&label(452)).await;
    app.wait_js("return document.querySelectorAll('#cart-lines li[data-weighed=\"true\"]').length === 1", "one weighed line", LONG).await;
    let line = "#cart-lines li[data-weighed='true']";
    assert_eq!(app.text(&format!("{line} .unit")).await, "0.452 kg @ $0.69/kg");
    assert_eq!(app.text(&format!("{line} .line-total")).await, "$0.31");

    // From the item list (priced per kilogram): the grams are asked for, then rung as a
    // line of their own.
    assert_eq!(app.text(".item[data-sku='2100001'] .price").await, "$0.69/kg");
    app.click(".item[data-sku='2100001']").await;
    app.wait_js("return !document.getElementById('weigh').hidden", "the grams prompt", LONG).await;
    let grams = app.el("#weigh-grams").await;
    grams.send_keys("1000").await.unwrap();
    app.click("#weigh-ok").await;
    app.wait_js("return document.querySelectorAll('#cart-lines li[data-weighed=\"true\"]').length === 2", "two weighed lines", LONG).await;
    let totals = app.js("return [...document.querySelectorAll('#cart-lines li[data-weighed=\"true\"] .line-total')].map((e) => e.textContent)").await;
    assert_eq!(totals, serde_json::json!(["$0.31", "$0.69"]));
    // Both lines and the prompt's field fit the window: nothing spills past its right edge.
    let spill = app.js("return [...document.querySelectorAll('#cart-lines li')].some((li) => li.getBoundingClientRect().right > window.innerWidth)").await;
    assert_eq!(spill, false, "a cart line spills at {width}x{height}");
    // A weighed line has no count to step: one button takes it off, nothing else.
    let controls = app.js("return [...document.querySelectorAll('#cart-lines li[data-weighed=\"true\"] .qty > :not([hidden])')].map((e) => e.className || e.tagName)").await;
    assert_eq!(controls, serde_json::json!(["line-remove", "line-remove"]), "{controls}");
    let png = app.screenshot(&name).await;
    if std::path::Path::new("/work/shots").is_dir() {
        std::fs::copy(&png, format!("/work/shots/{name}.png")).unwrap();
    }
    app.click("#cart-lines li[data-weighed='true'] .line-remove").await;
    app.wait_js("return document.querySelectorAll('#cart-lines li[data-weighed=\"true\"]').length === 1", "the first weighing taken off", LONG).await;
    assert_eq!(app.text("#cart-lines li[data-weighed='true'] .line-total").await, "$0.69", "the second weighing is left");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weight_label_and_typed_grams_ring_weighed_lines_at_1280x800() {
    weigh_at(1280, 800).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weight_label_and_typed_grams_ring_weighed_lines_at_1024x768() {
    weigh_at(1024, 768).await;
}
