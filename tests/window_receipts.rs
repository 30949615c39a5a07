//! Past receipts in the real window (record 0058, 0057): a cash-only sale — which has
//! no card payment to reach it by — is listed under Payments (F2) → Receipts, its receipt
//! is shown and reprinted to the ESC/POS test printer over loopback TCP, marked
//! 【再発行】; and its printable page opens in a window of its own with the receipt's
//! lines, the tax per rate and the store's registration number.

use std::time::Duration;

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_receipt::test_printer::{Printout, TestPrinter};

fn ja() -> Launch {
    let mut l = Launch::default();
    l.env.push(("PAYDESK_DEMO_STORE".into(), "ja-JP".into()));
    l
}

async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

fn job(printer: &TestPrinter) -> Printout {
    printer.next_job(Duration::from_secs(30)).expect("a print job").expect("ESC/POS the test printer understands")
}

/// Coffee (8 %) and a mug (10 %), paid in cash; the sale's number.
async fn cash_sale(app: &App) -> i64 {
    app.scan("COF-001").await;
    app.scan("MUG-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '¥1,900'", "the total", LONG).await;
    key(app, Key::F6).await;
    let field = app.el("#cash-form #cash-tendered").await;
    field.send_keys("2000").await.unwrap();
    field.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.getElementById('tender-done')?.dataset.state === 'paid'", "the sale paid", LONG).await;
    app.wait_js("return document.querySelector('.receipt-panel')?.dataset.loaded === 'true'", "the receipt", LONG).await;
    app.js("return +document.querySelector('.receipt-panel').dataset.cart").await.as_i64().unwrap()
}

/// Prints from the receipt panel inside `scope` (the register's, or the Payments detail).
async fn print_and_wait(app: &App, scope: &str) -> String {
    app.click(&format!("{scope} #print-receipt")).await;
    app.wait_js(
        &format!(
            "const p = document.querySelector('{scope} .receipt-panel'); \
             return p.querySelector('#receipt-msg').dataset.code === 'printed' && !p.querySelector('#print-receipt').disabled"
        ),
        "printed",
        LONG,
    )
    .await;
    app.text(&format!("{scope} #receipt-msg")).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cash_sales_receipt_is_reprinted_from_the_receipts_list_and_opens_as_a_page() {
    let printer = TestPrinter::start().unwrap();
    let app = App::start("receipts-ja", ja()).await;
    let addr = printer.addr().to_string();
    app.js(&format!("return window.__TAURI__.core.invoke('save_printer', {{ printer: '{addr}', confirmPort: true }}).then(() => true)")).await;
    let cart = cash_sale(&app).await;

    // The original comes out at the register.
    print_and_wait(&app, "#view-register").await;
    let first = job(&printer);
    assert!(!first.texts().join("\n").contains("再発行"));

    // Next customer; the cash sale has no card payment, and is in the Receipts list.
    app.click("#tender-new-sale").await;
    key(&app, Key::F2).await;
    let show = format!("#sale-show-{cart}");
    app.wait_js(&format!("return document.querySelector('{show}') !== null"), "the sale in the Receipts list", LONG).await;
    let row = app.text(&format!("#sales-rows tr[data-cart='{cart}']")).await;
    assert!(row.contains("¥1,900") && row.contains("現金 ¥2,000") && row.contains(&format!("{cart:06}")), "{row}");
    app.click(&show).await;
    app.wait_js(
        &format!("return document.querySelector('#payment-detail .receipt-panel[data-cart=\"{cart}\"]')?.dataset.loaded === 'true'"),
        "the receipt shown",
        LONG,
    )
    .await;
    let shown = app.text("#payment-detail #sale-receipt").await;
    assert!(shown.contains("8%対象") && shown.contains("T7000012050002"), "{shown}");
    assert_eq!(app.text("#payment-detail #print-receipt").await, "再発行");

    // Reprinted from the list: marked, no drawer kick.
    print_and_wait(&app, "#payment-detail").await;
    let again = job(&printer);
    let text = again.texts().join("\n");
    assert!(text.contains("【再発行】") && text.contains("10%対象"), "{text}");
    assert_eq!((again.cuts, again.kicks.len()), (1, 0));

    // The printable page in its own window: the receipt's rows, tax per rate, the
    // registration number; then back to the register's window.
    let main = app.driver.window().await.unwrap();
    app.click("#payment-detail #receipt-page").await;
    app.wait_js(
        &format!("return document.querySelector('#payment-detail .receipt-panel').dataset.page === 'receipt-{cart}'"),
        "the page opened",
        LONG,
    )
    .await;
    let page = page_text(&app, &main, "T7000012050002").await;
    for want in ["ブレンドコーヒー", "※", "8%対象", "10%対象", "T7000012050002", "¥1,900"] {
        assert!(page.contains(want), "{want:?} not on the printable page:\n{page}");
    }
    assert!(!page.contains("再発行"), "the page is the customer's receipt, unmarked:\n{page}");
    // Its Print button is there (hidden on paper); the window may call no command.
    let button = app.driver.find(By::Id("print-page")).await.unwrap();
    assert_eq!(button.text().await.unwrap(), "このページを印刷");
    app.driver.switch_to_window(main).await.unwrap();
    assert_eq!(app.text("#payment-detail #print-receipt").await, "再発行");
    app.close().await;
}

/// Switches to the window that is not `main` and returns its text once it shows `want`.
async fn page_text(app: &App, main: &WindowHandle, want: &str) -> String {
    let deadline = std::time::Instant::now() + LONG;
    loop {
        let handles = app.driver.windows().await.unwrap();
        if let Some(other) = handles.into_iter().find(|h| h != main) {
            app.driver.switch_to_window(other).await.unwrap();
            if let Ok(body) = app.driver.find(By::Tag("body")).await {
                let text = body.text().await.unwrap_or_default();
                if text.contains(want) {
                    return text;
                }
            }
            app.driver.switch_to_window(main.clone()).await.unwrap();
        }
        assert!(std::time::Instant::now() < deadline, "no window with {want:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
