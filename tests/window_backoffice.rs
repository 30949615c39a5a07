//! The back office inside the app (record 0045, 0048), in the real window against the
//! REAL back office on a private PostgreSQL (crates/backoffice/tests/support): register A
//! sends its sales up and the owner marks it replaced; this register pairs through
//! Settings → Back office, restores A's history by name through the form and lists A's
//! payments with their amounts; run again, the restore adds nothing. The same section in
//! Japanese after a restart. Screenshots at 1280×800 (English) and 1024×768 (Japanese).
#[path = "../crates/backoffice/tests/support/mod.rs"]
pub(crate) mod bo;

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, StaffStart, LONG};
use paydesk_sync_proto::{Batch, Fact, PaymentState, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::{json, Value};

/// A's sales as its journal sends them: each payment created, then captured.
fn sales(sales: &[(&str, i64)]) -> Vec<Row> {
    let mut rows = Vec::new();
    for (i, (key, amount)) in sales.iter().enumerate() {
        let at = 1_764_000_000_000 + i as i64 * 60_000;
        rows.push(Row { at_ms: at, fact: Fact::PaymentCreated { checkout_key: (*key).into(), amount: *amount, currency: "usd".into() } });
        let state = Fact::PaymentState { checkout_key: (*key).into(), state: PaymentState::Captured, psp_id: Some(format!("pi_{key}")) };
        rows.push(Row { at_ms: at + 1_000, fact: state });
    }
    rows
}

/// Settings (F4), scrolled to the Back office section.
async fn back_office(app: &App) {
    app.el("body").await.send_keys(Key::F4).await.unwrap();
    app.wait_js("return !document.getElementById('view-settings').hidden", "the Settings screen", LONG).await;
    app.el("#backoffice-settings").await;
}

/// The listed payments as (key, amount shown, last state shown).
async fn listed(app: &App) -> Value {
    app.js(
        "return [...document.querySelectorAll('#restored-payments tbody tr')].map((r) => \
           [r.dataset.key, r.children[1].textContent, r.children[2].textContent]);",
    )
    .await
}

async fn restore(app: &App, from: &str) -> Value {
    // Scrolled to, as a cashier would: the form sits low in the Settings screen.
    app.el("#restore-form").await;
    app.js("document.getElementById('restore-form').scrollIntoView({ block: 'center' })").await;
    let f = app.el("#restore-from").await;
    f.clear().await.unwrap();
    f.send_keys(from).await.unwrap();
    app.js("const d = document.getElementById('restore-message').dataset; delete d.added; delete d.code;").await;
    app.click("#restore-run").await;
    app.wait_js(
        "const m = document.getElementById('restore-message'); \
         return m.dataset.added !== undefined ? { added: m.dataset.added, text: m.textContent } : (m.dataset.code && { error: m.dataset.code, text: m.textContent })",
        "the restore to finish",
        LONG,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replacement_pairs_restores_its_predecessor_and_lists_its_payments() {
    let h = bo::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let a = h.register_in(&store, "Front till").await;
    let a_id = a.paired.register_id.clone();
    let rows = sales(&[("k-coffee", 1200), ("k-mugs", 450), ("k-beans", 3000)]);
    let n = rows.len() as u64;
    let batch = Batch {
        v: PROTOCOL_VERSION,
        register_id: a_id.clone(),
        first_seq: 1,
        rows,
        health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: None },
    };
    a.send(&batch, "a-1").await.expect("A's sales reach the back office");
    h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.expect("A replaced");
    let code = h.owner.pairing_code(&store, "Front till").await.unwrap();

    let launch = Launch { staff: StaffStart::OwnerNoShift, ..Launch::default() };
    let app = App::start("backoffice", launch).await;
    back_office(&app).await;
    assert_eq!(app.text("#backoffice-title").await, "Back office");
    app.el("#backoffice-form").await;
    app.js("document.getElementById('backoffice-form').scrollIntoView({ block: 'center' })").await;
    app.el("#backoffice-url").await.send_keys(&h.url).await.unwrap();
    app.el("#backoffice-code").await.send_keys(&code).await.unwrap();
    app.click("#backoffice-pair").await;
    let paired = app.wait_js("const p = document.getElementById('backoffice-paired'); return p && p.textContent", "paired", LONG).await;
    assert!(paired.as_str().unwrap().contains("“Front till”"), "{paired}");
    let empty = app
        .wait_js(
            "const e = document.getElementById('restored-error'); \
             return document.getElementById('restored-none') ? 'empty' : (e && 'error: ' + e.textContent)",
            "an empty restored history",
            LONG,
        )
        .await;
    assert_eq!(empty, "empty");

    // A name nobody has is refused with its own code, in words.
    let r = restore(&app, "Back till").await;
    assert_eq!(r["error"], "restore_unknown_register", "{r}");
    assert!(r["text"].as_str().unwrap().contains("“Back till”"), "{r}");

    // By name: A's whole history, and its payments listed newest first with their amounts.
    let r = restore(&app, "Front till").await;
    assert_eq!(r["added"], n.to_string(), "{r}");
    assert_eq!(r["text"], format!("Restored {n} rows from “Front till”. Its history is complete here: {n} rows."));
    app.wait_js("return document.querySelectorAll('#restored-payments tbody tr').length === 3", "A's payments listed", LONG).await;
    let want = json!([["k-beans", "$30.00", "Paid"], ["k-mugs", "$4.50", "Paid"], ["k-coffee", "$12.00", "Paid"]]);
    assert_eq!(listed(&app).await, want);
    let src = app.js("const s = document.querySelector('.restored-source'); return [s.dataset.id, s.dataset.complete, s.textContent]").await;
    assert_eq!((src[0].as_str(), src[1].as_str()), (Some(a_id.as_str()), Some("true")), "{src}");
    assert!(src[2].as_str().unwrap().contains(&format!("{n} of {n} rows")), "{src}");

    // Again: nothing added, and it says so.
    let r = restore(&app, "Front till").await;
    assert_eq!(r["added"], "0", "{r}");
    assert_eq!(r["text"], format!("Nothing new from “Front till”: all {n} rows of its history were already here."));
    assert_eq!(listed(&app).await, want);
    app.js("document.getElementById('backoffice-settings').scrollIntoView()").await;
    app.screenshot("backoffice-restored-1280x800").await;

    // The same register in Japanese at 1024×768: the section's words, the list, and the
    // restore run once more for nothing. Its data folder is copied once the app is gone
    // (killed: the ledger's WAL is kept and read back as after a crash).
    app.kill_app();
    let copy = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&app.data_dir).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), copy.path().join(e.file_name())).unwrap();
        }
    }
    app.close().await;
    let launch = Launch {
        width: 1024,
        height: 768,
        env: vec![("PAYDESK_FAULT_PROFILE".into(), "none".into()), ("LANG".into(), "ja_JP.UTF-8".into()), ("LC_ALL".into(), "ja_JP.UTF-8".into())],
        data_from: Some(copy.path().to_path_buf()),
        staff: StaffStart::OwnerNoShift,
        ..Launch::default()
    };
    let app = App::start("backoffice-ja", launch).await;
    let _ = app.driver.set_window_rect(0, 0, 1024, 768).await;
    assert_eq!(app.js("return document.documentElement.lang").await, "ja");
    back_office(&app).await;
    app.wait_js("return document.querySelectorAll('#restored-payments tbody tr').length === 3", "A's payments listed", LONG).await;
    assert_eq!(app.text("#backoffice-title").await, "バックオフィス");
    let words = app.js("return document.getElementById('backoffice-settings').innerText").await;
    let words = words.as_str().unwrap();
    for w in ["置き換えたレジから履歴を復元", "復元した履歴", "金額", "最後の状態"] {
        assert!(words.contains(w), "{w} in: {words}");
    }
    assert_eq!(listed(&app).await[0][1], "$30.00", "money in the payment's own currency");
    let r = restore(&app, "Front till").await;
    assert_eq!(r["added"], "0", "{r}");
    assert!(r["text"].as_str().unwrap().contains("新しく復元するものはありません"), "{r}");
    let cut = app
        .js(
            "const W = window.innerWidth, out = []; \
             if (document.body.scrollWidth > W) out.push('the page scrolls sideways'); \
             for (const e of document.querySelectorAll('#backoffice-settings button, #backoffice-settings input')) { \
               const r = e.getBoundingClientRect(); if (r.right > W + 0.5) out.push(e.id || e.textContent); } \
             return out;",
        )
        .await;
    assert_eq!(cut, json!([]), "cut off at 1024×768");
    app.js("document.getElementById('backoffice-settings').scrollIntoView()").await;
    app.screenshot("backoffice-restored-ja-1024x768").await;
    app.close().await;
}
