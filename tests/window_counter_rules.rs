//! Settings → Counter rules in the real window (issue #30, record 0136), at 1280×800 and
//! 1024×768 in the en-US demo store with the owner signed in: a 22 + 4 item digits + price
//! rule is added as a row on Settings and saved; at the register a label of that layout
//! rings its item (SKU 221234, $5.00 in the catalog) as a line at the printed $3.98.
//! Screenshots of the section to /work/shots/counter-rules-<size>.png when that folder exists.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};

/// 22 + item 1234 + the price in 6 digits + the check digit.
fn label_22(price: u32) -> String {
    let data = format!("221234{price:06}");
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", paydesk_tax::ean_check_digit(&d))
}

async fn set_rule_then_scan_at(width: u32, height: u32) {
    let name = format!("counter-rules-{width}x{height}");
    let app = App::start(&name, Launch { width, height, ..Launch::default() }).await;
    let csv = app.data_dir.join("deli.csv");
    std::fs::write(&csv, "sku,barcode,name_en,name_ja,price_minor,tax_class,active\n221234,,Croquettes,コロッケ,500,reduced,1\n").unwrap();
    app.cli(&["catalog", "import", csv.to_str().unwrap()], "");

    app.el("body").await.send_keys(Key::F4).await.unwrap();
    app.wait_js("return document.querySelectorAll('#label-rule-list li.label-rule').length === 2", "the built-in rules as rows", LONG).await;
    assert!(app.text("#label-rules-state").await.contains("built-in"));
    app.js("document.getElementById('counter-rules-settings').scrollIntoView()").await;
    app.click("#rule-add").await;
    // The new row is the third; its prefix picked from the list, its digits typed.
    app.js("const s = document.querySelector('#label-rule-list li.label-rule:nth-child(3) .rule-prefix'); s.value = '22'; s.dispatchEvent(new Event('change'))").await;
    let digits = app.el("#label-rule-list li.label-rule:nth-child(3) .rule-digits").await;
    digits.clear().await.unwrap();
    digits.send_keys("4").await.unwrap();
    app.click("#counter-rules-save").await;
    app.wait_js("const m = document.getElementById('counter-rules-msg'); return !!m && m.dataset.outcome === 'saved'", "the rules saved", LONG).await;
    app.wait_js("return document.querySelectorAll('#label-rule-list li.label-rule').length === 3 && !document.getElementById('label-rules-state')",
        "the store's own three rules drawn again", LONG).await;
    // The section fits the window: nothing spills past its right edge.
    let spill = app.js("return [...document.querySelectorAll('#counter-rules-settings *')].some((e) => e.getBoundingClientRect().right > window.innerWidth)").await;
    assert_eq!(spill, false, "the counter rules spill at {width}x{height}");
    app.js("document.getElementById('counter-rules-settings').scrollIntoView()").await;
    let png = app.screenshot(&name).await;
    if std::path::Path::new("/work/shots").is_dir() {
        std::fs::copy(&png, format!("/work/shots/{name}.png")).unwrap();
    }

    app.el("body").await.send_keys(Key::F1).await.unwrap();
    app.scan(&label_22(398)).await;
    app.wait_js("return !!document.querySelector(\"#cart-lines li[data-sku='221234'] .line-total\")", "the label's line", LONG).await;
    assert_eq!(app.text("#cart-lines li[data-sku='221234'] .line-total").await, "$3.98");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counter_rules_a_label_rule_set_on_settings_rings_at_the_register_at_1280x800() {
    set_rule_then_scan_at(1280, 800).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counter_rules_a_label_rule_set_on_settings_rings_at_the_register_at_1024x768() {
    set_rule_then_scan_at(1024, 768).await;
}
