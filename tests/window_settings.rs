//! Settings take effect without a restart: in the Settings screen the cashier points
//! the register at another processor (a real `mock-psp` process with its own key),
//! and the next checkout is charged there — checked at both PSPs, not on screen alone.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, PspProcess, LONG};

async fn ring_up_and_charge(app: &App) -> String {
    app.scan("COF-001").await;
    app.scan("CRO-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$5.97'", "total $5.97", LONG).await;
    app.click("#charge").await;
    app.wait_result("approved").await
}

async fn next_customer(app: &App) {
    app.click("#new-sale").await;
    app.wait_js("return document.getElementById('checkout').hidden", "the cart for the next customer", LONG).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_psp_in_settings_gets_the_next_checkout() {
    let app = App::start("settings-psp", Launch::default()).await;
    let embedded = app.psp().await;
    let other = PspProcess::start("sk_test_other_processor");

    let first = ring_up_and_charge(&app).await;
    assert_eq!(embedded.intents_for(&first).await.len(), 1);
    next_customer(&app).await;

    // F4, type the other PSP's URL and key, save.
    app.el("body").await.send_keys(Key::F4).await.unwrap();
    // The offline money limits say which currency they are typed in.
    app.wait_js(
        "const i = document.getElementById('set-offline_max_amount'); \
         return !!i && i.parentElement.textContent.includes('Largest single payment (USD)') && i.value === '65.00'",
        "the offline limit to name its currency",
        LONG,
    )
    .await;
    // Where the key is kept is said under it: this harness gives the app no desktop
    // session, so no keychain — the file, in the warning colour, with the reason.
    let storage = app.text("#key-storage").await;
    assert!(storage.contains("settings.json"), "{storage}");
    let why = app.js("return document.getElementById('key-storage').title").await;
    assert!(why.as_str().unwrap_or("").contains("no desktop session"), "{why}");
    let url = app.el("#set-psp_url").await;
    url.clear().await.unwrap();
    url.send_keys(&other.psp.url).await.unwrap();
    let key = app.el("#set-psp_key").await;
    key.clear().await.unwrap();
    key.send_keys(&other.psp.key).await.unwrap();
    app.click("#save-settings").await;
    let msg = app
        .wait_js(
            "const m = document.getElementById('settings-msg'); return m && m.dataset.applied === 'now' && m.textContent",
            "the settings to be in use",
            LONG,
        )
        .await;
    let msg = msg.as_str().unwrap();
    assert!(msg.contains("in use now") && msg.contains(&other.psp.url), "{msg}");
    let bar = format!("return document.getElementById('fault-profile').textContent === {:?}", format!("PSP: {}", other.psp.url));
    app.wait_js(&bar, "the status bar to name the new PSP", LONG).await;
    app.screenshot("settings-applied").await;

    // The next checkout goes to the new PSP, once, and never to the old one.
    app.el("body").await.send_keys(Key::F1).await.unwrap();
    let second = ring_up_and_charge(&app).await;
    assert_ne!(second, first);
    let at_other = other.psp.intents_for(&second).await;
    assert_eq!(at_other.len(), 1, "{at_other:?}");
    assert_eq!(at_other[0]["amount"], 597);
    assert_eq!(at_other[0]["status"], "succeeded");
    assert_eq!(other.psp.stats().await["charges"], 1);
    assert!(embedded.intents_for(&second).await.is_empty());
    assert_eq!(embedded.stats().await["charges"], 1);
    app.close().await;
}

/// The store's offline caps, published by its back office (record 0139), are said under the
/// register's own on the Settings screen, so an owner who types $65 here is not left to
/// believe it is in force when the store allows $20. The engine's use of them is tested in
/// `crates/register/tests/offline_caps.rs`. At 1024x768, where the form is tightest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stores_published_offline_caps_are_said_under_the_registers_own() {
    let prep = tempfile::tempdir().unwrap();
    {
        let mut l = paydesk_ledger::Ledger::open(prep.path().join("ledger.db")).unwrap();
        l.catalog_mut().seed_demo_store(paydesk_ledger::DemoLocale::EnUs, None, 1).unwrap();
        let caps = paydesk_ledger::PublishedCaps { currency: paydesk_domain::Currency::Usd, per_payment_minor: 2_000, total_minor: 5_000 };
        l.catalog_mut().set_published_offline_caps(Some(caps), 2).unwrap();
    }
    let launch = Launch { data_from: Some(prep.path().to_path_buf()), width: 1024, height: 768, ..Launch::default() };
    let app = App::start("settings-store-caps", launch).await;
    app.el("body").await.send_keys(Key::F4).await.unwrap();
    app.wait_js("return !!document.getElementById('offline-store-caps')", "the store's caps under the register's", LONG).await;
    let said = app.text("#offline-store-caps").await;
    assert!(said.contains("$20.00 per payment") && said.contains("$50.00 held offline"), "{said}");
    assert_eq!(app.el("#set-offline_max_amount").await.value().await.unwrap().as_deref(), Some("65.00"), "the register's own figure stays its own");
    // The card reader section below draws only what is there (it once showed "null").
    app.wait_js("return !!document.getElementById('reader-form')", "the card reader section", LONG).await;
    let reader = app.text("#reader-settings-body").await;
    assert!(!reader.contains("null"), "{reader}");
    app.js("document.getElementById('offline-store-caps').scrollIntoView(); return true").await;
    let p = app.screenshot("settings-store-caps-1024").await;
    let _ = std::fs::create_dir_all("/work/shots");
    let _ = std::fs::copy(&p, "/work/shots/settings-store-caps-1024x768.png");
    app.close().await;
}
