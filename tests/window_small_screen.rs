//! The register on a 1024×768 screen (issue #28, found by trying it): the window opens
//! inside the screen; a receipt that could not print for want of a printer stops saying
//! so once one is saved, and prints; About names the fault profile just chosen in
//! Settings; the Back office pairing row lines its fields up under their labels with
//! Pair beside them; and the screen tells the time in the store's time zone, as the
//! receipt does, whatever zone the computer is in.

use std::time::Duration;

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, LONG};
use paydesk_receipt::test_printer::TestPrinter;
use serde_json::Value;

async fn key(app: &App, k: Key) {
    app.el("body").await.send_keys(k).await.unwrap();
}

/// The pairing form's problems: each field under its label, both fields on one line,
/// Pair level with them, everything inside the section.
const BACKOFFICE_ROW: &str = r#"
const form = document.getElementById('backoffice-form');
if (!form) return ['no pairing form'];
const r = (e) => e.getBoundingClientRect();
const url = document.getElementById('backoffice-url'), code = document.getElementById('backoffice-code');
const pair = document.getElementById('backoffice-pair');
const out = [];
for (const input of [url, code]) {
  const label = form.querySelector(`label[for="${input.id}"]`);
  const l = r(label), i = r(input);
  const text = [...label.childNodes].find((n) => n.nodeType === Node.ELEMENT_NODE && n !== input) || label;
  const tr = r(text);
  if (!(tr.bottom <= i.top + 1 && Math.abs(tr.left - i.left) <= 1)) out.push(`#${input.id} is not under its label`);
  if (l.right > r(form).right + 0.5) out.push(`#${input.id}'s label sticks out of the form`);
}
if (Math.abs(r(url).top - r(code).top) > 1) out.push(`the fields are not on one line (${r(url).top} vs ${r(code).top})`);
if (Math.abs(r(pair).bottom - r(url).bottom) > 2) out.push(`Pair is not level with the fields (${r(pair).bottom} vs ${r(url).bottom})`);
if (r(pair).right > r(form).right + 0.5) out.push('Pair sticks out of the form');
return out;
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_1024_by_768_screen() {
    let printer = TestPrinter::start().unwrap();
    let launch = Launch { width: 1024, height: 768, ..Launch::default() };
    let app = App::start("small-screen", launch).await;

    // The window fits the screen it opened on.
    let size = app.js("return [window.outerWidth, window.outerHeight, screen.width, screen.height]").await;
    let [w, h, sw, sh] = [0, 1, 2, 3].map(|i| size[i].as_i64().unwrap());
    assert!(w <= sw && h <= sh, "a {w}×{h} window on a {sw}×{sh} screen");

    // The store is in Tokyo; the computer is not (the harness's zone is UTC).
    key(&app, Key::F5).await;
    let zone = app.el("#store-time_zone").await;
    // The en-US demo store is a New York City cafe (record 0131).
    assert_eq!(zone.value().await.unwrap().as_deref(), Some("America/New_York"));
    zone.clear().await.unwrap();
    zone.send_keys("Asia/Tokyo").await.unwrap();
    app.click("#store-save").await;
    app.wait_js("return document.getElementById('store-msg').dataset.outcome === 'saved'", "the store saved", LONG).await;
    key(&app, Key::F1).await;

    // A cash sale; Print says no printer is set, and where to set one.
    app.scan("COF-001").await;
    key(&app, Key::F6).await;
    app.click("#cash-form .quick-cash.exact").await;
    app.el("#cash-tendered").await.send_keys(Key::Enter).await.unwrap();
    app.wait_js("return document.querySelector('#tender-done .receipt-panel')?.dataset.loaded === 'true'", "the receipt", LONG).await;
    // The receipt and the clock tell Tokyo's time (within the minute the sale took).
    let tokyo = "const f = (ms) => { const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Tokyo', year: 'numeric', \
                 month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(ms)) \
                 .map((x) => [x.type, x.value])); return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`; }; ";
    let on_receipt = app
        .js(&format!(
            "{tokyo} const t = document.getElementById('sale-receipt').textContent; \
             return [Date.now() - 60000, Date.now()].some((ms) => t.includes(f(ms)))"
        ))
        .await;
    assert_eq!(on_receipt, Value::Bool(true), "{}", app.text("#sale-receipt").await);
    let clock = app
        .wait_js(
            "const f = (ms) => new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit' }).format(new Date(ms)); \
             const c = document.getElementById('clock').textContent; return [Date.now() - 60000, Date.now()].some((ms) => c === f(ms))",
            "the clock on Tokyo time",
            LONG,
        )
        .await;
    assert_eq!(clock, Value::Bool(true));
    app.click("#tender-done #print-receipt").await;
    app.wait_js("return document.getElementById('receipt-msg').dataset.code === 'printer_not_set'", "no printer set", LONG).await;
    let msg = app.text("#receipt-msg").await;
    assert!(msg.contains("Catalog tab (F5)"), "{msg}");

    // The printer saved in Catalog → Store: back at the receipt, the message is gone and
    // Print prints.
    // The Store form is drawn again once its data loads (each visit): the value must go
    // into the field of THIS draw, not the last visit's, which the new draw replaces.
    // A test printer's port is off 9100-9109, so the screen asks and the owner says yes
    // (as window_store does).
    let draws = app.js("return Number(document.getElementById('store-form').dataset.draws || 0)").await.as_u64().unwrap();
    key(&app, Key::F5).await;
    app.wait_js(&format!("return Number(document.getElementById('store-form').dataset.draws || 0) > {draws}"), "the store form drawn for this visit", LONG).await;
    app.js(&format!("const f = document.getElementById('store-printer'); f.value = '{}'; f.dispatchEvent(new Event('input')); window.confirm = () => true; return true", printer.addr())).await;
    app.click("#printer-save").await;
    app.wait_js("return document.getElementById('store-msg').dataset.outcome === 'printer-saved'", "the printer saved", LONG).await;
    key(&app, Key::F1).await;
    let left = app.js("const m = document.getElementById('receipt-msg'); return [m.textContent, m.dataset.code]").await;
    assert_eq!(left, serde_json::json!(["", ""]), "the receipt still says no printer is set");
    app.click("#tender-done #print-receipt").await;
    app.wait_js("return document.getElementById('receipt-msg').dataset.code === 'printed'", "printed", LONG).await;
    let job = printer.next_job(Duration::from_secs(30)).expect("a print job").expect("ESC/POS");
    assert!(job.texts().join("\n").contains("Coffee"), "{:?}", job.texts());
    app.screenshot("small-screen-receipt-1024x768").await;
    app.click("#tender-new-sale").await;

    // Settings: another fault profile saved, and About says so.
    key(&app, Key::F4).await;
    app.wait_js("return (document.getElementById('about-psp')?.textContent || '').includes('none')", "About", LONG).await;
    app.js("const s = document.getElementById('set-fault_profile'); s.value = 'flaky'; return true").await;
    app.click("#save-settings").await;
    app.wait_js("return (document.getElementById('settings-msg')?.dataset.applied || '') !== ''", "the settings saved", LONG).await;
    app.wait_js("return document.getElementById('about-psp').textContent.includes('flaky')", "About to name the new profile", LONG).await;

    // The Back office pairing row.
    let el = app.el("#backoffice-form").await;
    el.scroll_into_view().await.unwrap();
    let problems = app.js(BACKOFFICE_ROW).await;
    app.screenshot("small-screen-settings-1024x768").await;
    assert_eq!(problems, Value::Array(vec![]));
    app.close().await;
}
