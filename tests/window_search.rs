//! Finding items in the real window (issue #30, record 0133), at 1280×800 and 1024×768:
//! a hiragana query finds the item whose name is in katakana (ごまベーグル), a click on the
//! result adds it to the sale; the Bakery tab shows only the bakery's items.

use paydesk_e2e::{App, Launch, LONG};

const SHOWN: &str = "return [...document.querySelectorAll('#catalog .item')].map((b) => b.dataset.sku).join(',')";

async fn search_then_tab(width: u32, height: u32) {
    let app = App::start(&format!("search-{width}"), Launch { width, height, ..Launch::default() }).await;
    app.wait_js("return document.querySelectorAll('#catalog-tabs .cat-tab').length === 5", "All + the 4 demo tabs", LONG).await;
    app.wait_js("return document.querySelectorAll('#catalog .item').length === 15", "the 14 demo items and the weighed one", LONG).await;

    app.el("#item-search").await.send_keys("べーぐる").await.unwrap();
    app.wait_js(&format!("{{ const s = (() => {{ {SHOWN} }})(); return s === 'BAG-001'; }}"), "only the bagel found", LONG).await;
    let shot = app.screenshot(&format!("search-{width}x{height}-found")).await;
    let _ = std::fs::copy(&shot, format!("/work/shots/search-{width}x{height}-found.png"));
    app.click("#catalog .item[data-sku='BAG-001']").await;
    app.wait_js("return !!document.querySelector(\".cart-line[data-sku='BAG-001']\")", "the bagel in the sale", LONG).await;

    // The field emptied (as the cashier deletes the text), then the Bakery tab.
    app.js("const f = document.getElementById('item-search'); f.value = ''; f.dispatchEvent(new Event('input')); return true").await;
    app.wait_js("return document.querySelectorAll('#catalog .item').length === 15", "every item again", LONG).await;
    app.click("#catalog-tabs .cat-tab[data-category='bakery']").await;
    app.wait_js(&format!("{{ const s = (() => {{ {SHOWN} }})(); return s === 'BAG-001,CRO-001,MUF-001'; }}"), "only the bakery's items", LONG).await;
    assert_eq!(app.js("return document.querySelector(\"#catalog-tabs .cat-tab[data-category='bakery']\").getAttribute('aria-selected')").await, "true");
    let shot = app.screenshot(&format!("search-{width}x{height}-bakery")).await;
    let _ = std::fs::copy(&shot, format!("/work/shots/search-{width}x{height}-bakery.png"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kana_query_finds_and_adds_an_item_and_a_tab_filters_at_two_sizes() {
    search_then_tab(1280, 800).await;
    search_then_tab(1024, 768).await;
}
