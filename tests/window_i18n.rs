//! The Japanese screen (record 0070): in Settings the cashier picks 日本語 and the whole
//! register switches at once, without a restart — tabs, the cart, Charge, an error from
//! Rust — the choice is saved with the settings, and English comes back the same way.
//! Money is built by ui/i18n.js from integer minor units (¥1,200, $12.00) in the window
//! itself. Screenshots of the Japanese register at 1280×800 and 1024×768 go to
//! docs/screenshots/ with PAYDESK_SCREENSHOTS=docs.
//!
//! The app's demo store is still USD (a JPY store comes with the store settings), so the
//! cart shows dollars; yen amounts are checked through the same formatMoney the screens use.

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use serde_json::Value;

async fn register(app: &App) {
    app.el("body").await.send_keys(Key::F1).await.unwrap();
    app.wait_js("return !document.getElementById('view-register').hidden", "the register", LONG).await;
}

/// formatMoney from the module the screens import, run in the window.
async fn format_money(app: &App, minor: &str, currency: &str) -> String {
    let script = format!(
        "const done = arguments[arguments.length - 1]; \
         import('./i18n.js').then((m) => done(m.formatMoney({minor}, '{currency}')), (e) => done('error: ' + e));"
    );
    let v = app.driver.execute_async(&script, vec![]).await.expect("run formatMoney").json().clone();
    v.as_str().unwrap_or_default().to_string()
}

/// Shown buttons, fields and the total that lie outside the window (empty: none). An
/// element inside a pane that scrolls on its own (the item grid) is reached by scrolling
/// that pane: the pane is measured instead, and it must lie inside the window.
async fn outside_window(app: &App) -> Vec<String> {
    let v = app
        .js(
            "const W = window.innerWidth, H = window.innerHeight, out = []; \
             const pane = (e) => { for (let p = e.parentElement; p; p = p.parentElement) { \
               const o = getComputedStyle(p).overflowY; \
               if ((o === 'auto' || o === 'scroll') && p.scrollHeight > p.clientHeight) return p; } return e; }; \
             if (document.body.scrollWidth > W) out.push('the page scrolls sideways'); \
             for (const e of document.querySelectorAll('button, input, select, #cart-total, .topbar *')) { \
               if (!e.getClientRects().length || e.closest('[hidden]')) continue; \
               const r = pane(e).getBoundingClientRect(); \
               if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5) \
                 out.push((e.id || e.tagName) + ' ' + (e.textContent || '').trim().slice(0, 30)); } \
             return out;",
        )
        .await;
    match v {
        Value::Array(a) => a.iter().map(|x| x.as_str().unwrap_or_default().to_string()).collect(),
        other => vec![format!("unexpected {other}")],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_switch_the_whole_register_to_japanese_and_back() {
    let app = App::start("i18n", Launch::default()).await;
    assert_eq!(app.js("return document.documentElement.lang").await, "en");
    assert_eq!(app.text("#cart-title").await, "Cart");
    app.scan("COF-001").await;
    app.scan("CRO-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$5.97'", "total $5.97", LONG).await;

    app.choose_language("ja").await;
    // The settings screen itself is redrawn in Japanese.
    app.wait_js("return document.getElementById('save-settings').textContent === '設定を保存'", "settings in Japanese", LONG).await;
    let saved = std::fs::read_to_string(app.data_dir.join("settings.json")).expect("settings.json");
    let saved: Value = serde_json::from_str(&saved).expect("settings.json is JSON");
    assert_eq!(saved["language"], "ja", "{saved}");

    register(&app).await;
    // Static text (index.html), text the screens draw, and the tab titles.
    assert_eq!(app.text(".tab[data-view=register] span").await, "レジ");
    assert_eq!(app.text("#cart-title").await, "明細");
    assert_eq!(app.js("return document.getElementById('tender-title').textContent").await, "お支払い");
    app.wait_js(
        "return document.getElementById('charge').textContent === 'カード決済 $5.97'",
        "Charge in Japanese with the cart's total",
        LONG,
    )
    .await;
    let unit = app.text(".cart-line .unit").await;
    assert!(unit.starts_with("単価 $"), "{unit}");
    assert_eq!(app.js("return document.querySelector('.tab[data-view=payments]').title").await, "決済履歴 (F2)");
    app.wait_js("return document.getElementById('psp-status').textContent.startsWith('PSP')", "the status bar", LONG).await;
    let bar = app.text("#pending-forward").await;
    assert!(bar.starts_with("送信待ち"), "{bar}");

    for (w, h, name) in [(1280, 800, "register-ja"), (1024, 768, "register-ja-1024x768")] {
        app.driver.set_window_rect(0, 0, w, h).await.expect("set the window size");
        app.wait_js(&format!("return window.innerWidth <= {w} && window.innerHeight <= {h}"), "the new size", LONG).await;
        let bad = outside_window(&app).await;
        assert!(bad.is_empty(), "at {w}x{h} in Japanese: {bad:?}");
        app.screenshot(name).await;
    }

    // An error put in words by Rust (AppError) arrives in Japanese; its code does not change.
    app.scan("NO-SUCH-9").await;
    app.wait_js(
        "const e = document.getElementById('scan-error'); return !e.hidden && e.textContent.includes('コード「NO-SUCH-9」の商品はありません')",
        "the unknown-code error in Japanese",
        LONG,
    )
    .await;
    // Typing in the field clears the error, as it does for the cashier.
    app.js("const s = document.getElementById('scan'); s.value = ''; s.dispatchEvent(new Event('input'));").await;
    app.wait_js("return document.getElementById('scan-error').hidden", "the error to clear", LONG).await;

    // Money from integer minor units, as the screens format it.
    assert_eq!(format_money(&app, "1200", "JPY").await, "¥1,200");
    assert_eq!(format_money(&app, "1234567", "jpy").await, "¥1,234,567");
    assert_eq!(format_money(&app, "1200", "USD").await, "$12.00");
    assert_eq!(format_money(&app, "-50", "USD").await, "−$0.50");
    assert_eq!(format_money(&app, "'9007199254740993'", "USD").await, "$90,071,992,547,409.93");

    // And back: English again, at once.
    app.choose_language("en").await;
    register(&app).await;
    assert_eq!(app.text("#cart-title").await, "Cart");
    app.wait_js("return document.getElementById('charge').textContent === 'Charge $5.97'", "Charge in English", LONG).await;
    assert_eq!(app.text(".tab[data-view=register] span").await, "Register");
    app.close().await;
}
