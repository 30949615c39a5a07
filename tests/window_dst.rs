//! Receipt times across New York's two summer-time changes in the real window (issue #30,
//! record 0131): the en-US demo cafe's ledger holds four cash sales made at known instants
//! (the ledger takes each sale's time as a fact, so the test needs no fake clock):
//!
//! | UTC              | New York          |                                   |
//! |------------------|-------------------|-----------------------------------|
//! | 2026-03-08 06:30 | 01:30 EST (−5)    | half an hour before clocks go on  |
//! | 2026-03-08 07:30 | 03:30 EDT (−4)    | an hour later; 02:30 never exists |
//! | 2026-11-01 05:30 | 01:30 EDT (−4)    | the first 01:30 of the day        |
//! | 2026-11-01 06:30 | 01:30 EST (−5)    | the second, an hour later         |
//!
//! Payments → Receipts lists each at its wall-clock time, newest first, each receipt
//! prints the same time, and none is shown at UTC or at a fixed offset. Run at 1280x800,
//! then the same data at 1024x768.

use std::path::Path;

use paydesk_domain::Currency;
use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::{CartId, DemoLocale, Ledger};

/// (instant in ms since the epoch, the store's wall-clock time as the list prints it).
const SALES: [(i64, &str); 4] = [
    (1_772_951_400_000, "2026-03-08 01:30"),
    (1_772_955_000_000, "2026-03-08 03:30"),
    (1_793_511_000_000, "2026-11-01 01:30"),
    (1_793_514_600_000, "2026-11-01 01:30"),
];

/// The en-US demo cafe (America/New_York) with one coffee paid in cash at each instant.
fn store_with_sales(dir: &Path) -> Vec<CartId> {
    let mut l = Ledger::open(dir.join("ledger.db")).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, SALES[0].0 - 60_000).unwrap();
    assert_eq!(l.catalog().store_settings().unwrap().time_zone, "America/New_York");
    SALES
        .iter()
        .map(|&(at, _)| {
            let cart = l.carts_mut().create(Currency::Usd, at).unwrap();
            l.carts_mut().add(cart, "COF-001", 1, at).unwrap();
            l.sales_mut().pay_cash(cart, 1_000, None, at).unwrap();
            cart
        })
        .collect()
}

async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

/// The Receipts list as shown: (cart, time column) per row, top to bottom.
async fn listed(app: &App) -> Vec<(i64, String)> {
    let rows = app
        .js("return [...document.querySelectorAll('#sales-rows tr')].map((r) => [+r.dataset.cart, r.children[0].textContent])")
        .await;
    rows.as_array().unwrap().iter().map(|r| (r[0].as_i64().unwrap(), r[1].as_str().unwrap().to_string())).collect()
}

/// Opens `cart`'s receipt from the list and returns its text.
async fn receipt(app: &App, cart: CartId) -> String {
    app.click(&format!("#sale-show-{}", cart.0)).await;
    app.wait_js(
        &format!("return document.querySelector('#payment-detail .receipt-panel[data-cart=\"{}\"]')?.dataset.loaded === 'true'", cart.0),
        "the receipt shown",
        LONG,
    )
    .await;
    app.text("#payment-detail #sale-receipt").await
}

async fn check(app: &App, carts: &[CartId], shot: &str) {
    key(app, Key::F2).await;
    let last = carts.last().unwrap().0;
    app.wait_js(&format!("return document.querySelector('#sale-show-{last}') !== null"), "the sales in the Receipts list", LONG).await;
    // Newest first, each at New York's wall clock: the repeated 01:30 twice, no 02:30.
    let want: Vec<(i64, String)> = carts.iter().zip(SALES).rev().map(|(c, (_, time))| (c.0, time.to_string())).collect();
    assert_eq!(listed(app).await, want);
    for (cart, (_, time)) in carts.iter().zip(SALES) {
        let text = receipt(app, *cart).await;
        assert!(text.contains(time), "receipt of cart {} should say {time}:\n{text}", cart.0);
        // Neither UTC nor a fixed offset leaks onto the receipt.
        for wrong in ["06:30", "07:30", "05:30", "02:30", "UTC"] {
            assert!(!text.contains(wrong), "receipt of cart {} says {wrong}:\n{text}", cart.0);
        }
    }
    let p = app.screenshot(shot).await;
    let _ = std::fs::create_dir_all("/work/shots");
    let _ = std::fs::copy(&p, format!("/work/shots/{shot}.png"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn receipts_made_across_new_yorks_clock_changes_show_the_stores_wall_clock_time() {
    let prep = tempfile::tempdir().unwrap();
    let carts = store_with_sales(prep.path());
    let launch = Launch { data_from: Some(prep.path().to_path_buf()), ..Launch::default() };
    let app = App::start("dst", launch.clone()).await;
    check(&app, &carts, "dst-receipts-1280x800").await;
    app.kill_app();
    let small = App::start("dst-1024", Launch { data_from: Some(app.data_dir.clone()), width: 1024, height: 768, ..launch }).await;
    check(&small, &carts, "dst-receipts-1024x768").await;
}
