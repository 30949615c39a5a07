//! The customer display in the real windows (issue #30, record 0132), in a Japanese store
//! at 1280x800 and 1024x768: the cashier opens it from the topbar; it welcomes with the store's name;
//! two items rung up on the register (one reduced-rate) appear on it with ※, the legend
//! and the amount to pay; cash with change shows the change and "thank you"; a card
//! started on the reader makes it say to present the card. The display's window is
//! refused any command but its own by Tauri's capability check.
//!
//! Screenshots of the customer's window go to /work/shots/display-*.png when `xwd` and
//! netpbm are installed: WebKitWebDriver never answers a screenshot of a second window
//! (measured: page and element screenshots both hang), so the X screen is read instead.

use std::time::{Duration, Instant};

use paydesk_e2e::{App, Launch, LONG};
use paydesk_e2e::thirtyfour::prelude::*;

fn launch(width: u32, height: u32) -> Launch {
    let mut l = Launch { width, height, ..Launch::default() };
    l.env.push(("PAYDESK_DEMO_STORE".into(), "ja-JP".into()));
    l
}

/// The other window once it has opened.
async fn other_window(app: &App, main: &WindowHandle) -> WindowHandle {
    let deadline = Instant::now() + LONG;
    loop {
        if let Some(h) = app.driver.windows().await.unwrap().into_iter().find(|h| h != main) {
            return h;
        }
        assert!(Instant::now() < deadline, "the customer display did not open");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The X screen the app draws on, from its process's environment.
fn app_display(app: &App) -> Option<String> {
    let want = format!("PAYDESK_DATA_DIR={}", app.data_dir.display());
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|p| {
        let env = std::fs::read(p.path().join("environ")).ok()?;
        let vars: Vec<&[u8]> = env.split(|b| *b == 0).collect();
        vars.contains(&want.as_bytes()).then_some(())?;
        vars.iter().find_map(|v| v.strip_prefix(b"DISPLAY=")).map(|d| String::from_utf8_lossy(d).into_owned())
    })
}

/// The screen (the customer window on top) as /work/shots/display-NAME.png; best effort:
/// nothing when the tools are missing.
fn shot(app: &App, name: &str) {
    let Some(display) = app_display(app) else { return };
    let cmd = format!("xwd -root -silent -display {display} | xwdtopnm 2>/dev/null | pnmtopng > /work/shots/display-{name}.png");
    let ok = std::fs::create_dir_all("/work/shots").is_ok()
        && std::process::Command::new("sh").args(["-c", &cmd]).status().is_ok_and(|s| s.success());
    if !ok {
        let _ = std::fs::remove_file(format!("/work/shots/display-{name}.png"));
    }
}

/// On the customer window: waits until `cond` (JS over `d`, the display's data) holds,
/// and returns the display's visible text.
async fn display_shows(app: &App, cond: &str, what: &str) -> String {
    let script = format!(
        "const d = document.getElementById('display'); if (!d) return false; \
         const ok = (() => {{ {cond} }})(); return ok ? d.innerText : false"
    );
    app.wait_js(&script, what, LONG).await.as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_customer_display_follows_the_sale_from_welcome_to_thank_you_and_the_reader() {
    follows_the_sale(1280, 800).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_customer_display_follows_the_sale_on_a_1024_by_768_screen() {
    follows_the_sale(1024, 768).await;
}

async fn follows_the_sale(width: u32, height: u32) {
    let app = App::start(&format!("customer-display-{width}"), launch(width, height)).await;
    let main = app.driver.window().await.unwrap();
    // a simulated reader, registered through the bridge (window_reader.rs drives Settings')
    let readers = app
        .js("return window.__TAURI__.core.invoke('reader_register', { code: 'simulated-wpe', label: 'レジ横' }).then((v) => v.readers.length)")
        .await;
    assert_eq!(readers, 1);

    app.click(".tab[data-view='settings']").await;
    assert_eq!(app.text("#customer-display-open").await, "お客様表示を開く");
    app.click("#customer-display-open").await;
    let customer = other_window(&app, &main).await;
    app.driver.switch_to_window(customer.clone()).await.unwrap();
    let welcome = display_shows(&app, "return d.dataset.phase === 'welcome' && d.innerText.includes('いらっしゃいませ')", "the welcome").await;
    assert!(welcome.contains("PayDesk デモカフェ"), "{welcome}");
    assert!(!welcome.contains("合計") && !welcome.contains("商品"), "the welcome alone, no empty sale:\n{welcome}");
    shot(&app, &format!("welcome-{width}x{height}"));

    // Tauri's capability check: the customer's window may take no tender, read no cart.
    let refused = app
        .js("return window.__TAURI__.core.invoke('pay_cash', { tendered: '10000', seenTenders: 0 }).then(() => 'ran', (e) => String(e))")
        .await;
    assert!(refused.as_str().unwrap().contains("not allowed"), "{refused}");
    let refused = app.js("return window.__TAURI__.core.invoke('get_cart').then(() => 'ran', (e) => String(e))").await;
    assert!(refused.as_str().unwrap().contains("not allowed"), "{refused}");

    // Two items on the register: a muffin (8%, ※) and a mug (10%).
    app.driver.switch_to_window(main.clone()).await.unwrap();
    app.click(".tab[data-view='register']").await;
    app.scan_up(&["MUF-001", "MUG-001"], "¥1,930").await;
    app.driver.switch_to_window(customer.clone()).await.unwrap();
    let sale = display_shows(&app, "return d.dataset.phase === 'sale' && document.querySelectorAll('#lines tr').length === 2", "two lines").await;
    for want in ["※", "ブルーベリーマフィン", "PayDeskマグカップ", "※は軽減税率対象商品", "8%対象", "10%対象", "お支払い金額", "¥1,930"] {
        assert!(sale.contains(want), "{want:?} not on the display:\n{sale}");
    }
    assert_eq!(app.text("#lines tr:first-child .mark").await, "※");
    // The amount to pay and every line's amount lie inside the customer's window, and the
    // window inside the screen: nothing the customer must read is off an edge.
    let fits = app
        .js("const w = window.innerWidth, h = window.innerHeight;              const inside = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right <= w + 0.5 && r.bottom <= h + 0.5; };              return w <= screen.width && h <= screen.height && inside(document.getElementById('totals'))                     && [...document.querySelectorAll('#lines td.num')].every(inside)")
        .await;
    assert_eq!(fits, serde_json::json!(true), "the display at {width}x{height} cuts off what the customer must read");
    shot(&app, &format!("sale-{width}x{height}"));

    // Cash ¥2,000 for ¥1,930: the change, then thank you.
    app.driver.switch_to_window(main.clone()).await.unwrap();
    app.key(Key::F6).await;
    let f = app.el("#cash-form #cash-tendered").await;
    f.clear().await.unwrap();
    f.send_keys("2000").await.unwrap();
    f.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
    app.driver.switch_to_window(customer.clone()).await.unwrap();
    let thanks = display_shows(&app, "return d.dataset.phase === 'thank_you'", "thank you").await;
    for want in ["お釣り", "¥70", "現金", "¥2,000", "ありがとうございました"] {
        assert!(thanks.contains(want), "{want:?} not on the display:\n{thanks}");
    }
    shot(&app, &format!("thank-you-{width}x{height}"));

    // The next customer: a coffee, taken on the reader.
    app.driver.switch_to_window(main.clone()).await.unwrap();
    app.scan_up(&["COF-001"], "¥250").await;
    app.click("#pay-split").await;
    let method = app.wait_js("const s = document.getElementById('tender-card-method'); return s && s.value", "the card form", LONG).await;
    assert!(method.as_str().unwrap().starts_with("reader:"), "{method}");
    app.click("#card-confirm").await;
    app.wait_js(
        "const p = document.getElementById('reader-panel'); return p && p.dataset.outcome === 'waiting_for_card'",
        "the reader waiting for a card",
        LONG,
    )
    .await;
    app.driver.switch_to_window(customer.clone()).await.unwrap();
    let present = display_shows(&app, "return d.dataset.phase === 'present_card'", "present the card").await;
    assert!(present.contains("カードを読み取り機にかざしてください"), "{present}");
    assert!(present.contains("ブレンドコーヒー") && !present.contains("マフィン"), "only this sale:\n{present}");
    assert!(!present.contains("確認中"), "the card awaited is asked for, not listed as checking:\n{present}");
    shot(&app, &format!("present-card-{width}x{height}"));
    app.driver.switch_to_window(main).await.unwrap();
    app.close().await;
}
