//! A card on a reader in the real window (issue #27): Settings registers the embedded PSP's
//! simulated reader, the sale is rung up, the card tender offers "Card reader", the panel
//! says it waits for the customer's card, the simulated customer's card is declined, "Try
//! another card" hands the same intent to the reader again, an approving card is tapped and
//! the panel says "Paid". Checked at the PSP too: one intent for the checkout key,
//! card_present, succeeded, one charge.

use paydesk_e2e::{App, Launch, PspProcess, LONG};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_sale_declined_then_paid_by_the_simulated_customer_says_paid_and_charges_once() {
    let app = App::start("reader", Launch::default()).await;
    let psp = app.psp().await;

    // Settings → Card reader: the test-mode button registers the simulated reader.
    app.click(".tab[data-view='settings']").await;
    app.click("#reader-register-simulated").await;
    let listed = app
        .wait_js("const li = document.querySelector('#reader-list li'); return li && li.dataset.id", "the reader listed", LONG)
        .await;
    let reader = listed.as_str().unwrap().to_string();
    assert!(reader.starts_with("tmr_"), "{reader}");
    app.screenshot("reader-settings").await;

    // Ring up $8.69 ($8.25 and New York City tax, record 0131) and open the card tender: the reader is offered and chosen.
    app.click(".tab[data-view='register']").await;
    app.scan("COF-001").await;
    app.scan("COF-001").await;
    app.scan("CRO-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$8.69'", "total $8.69", LONG).await;
    app.click("#pay-split").await;
    let method = app
        .wait_js("const s = document.getElementById('tender-card-method'); return s && s.value", "the card form", LONG)
        .await;
    assert_eq!(method.as_str(), Some(format!("reader:{reader}").as_str()), "the registered reader comes first");
    app.click("#card-confirm").await;

    // The panel waits for the customer's card, with the simulated customer (test mode).
    app.wait_js(
        "const p = document.getElementById('reader-panel'); return p && p.dataset.outcome === 'waiting_for_card'",
        "the reader waiting for a card",
        LONG,
    )
    .await;
    assert_eq!(app.text("#reader-head").await, "Waiting for the customer's card…");
    let key = app.js("return document.getElementById('reader-panel').dataset.key").await.as_str().unwrap().to_string();
    assert!(app.text("#reader-key").await.contains(&key));
    assert_eq!(psp.stats().await["charges"], 0, "nothing charged before the card");
    app.screenshot("reader-waiting").await;

    // A declined card first: said so, nothing charged, and "Try another card" hands the SAME
    // intent to the reader again.
    app.click("#reader-sim-declined").await;
    app.wait_js(
        "const p = document.getElementById('reader-panel'); return p && p.dataset.outcome === 'not_charged' && p.dataset.why === 'declined'",
        "the decline",
        LONG,
    )
    .await;
    assert_eq!(app.text("#reader-head").await, "Declined — try another card");
    assert_eq!(app.text("#reader-again").await, "Try another card");
    app.screenshot("reader-declined").await;
    app.click("#reader-again").await;
    app.wait_js(
        "const p = document.getElementById('reader-panel'); return p && p.dataset.outcome === 'waiting_for_card' && p.dataset.attempt === '2'",
        "the reader waiting for the second card",
        LONG,
    )
    .await;
    app.click("#reader-sim-approved").await;
    let done = app
        .wait_js(
            "const d = document.getElementById('tender-done'); return d && d.dataset.state === 'paid' && d.innerText",
            "the sale paid",
            LONG,
        )
        .await;
    let done = done.as_str().unwrap();
    assert!(done.contains("Paid") && done.contains("Visa •••• 4242"), "{done}");
    let shot = app.screenshot("reader-paid").await;
    assert!(shot.exists());

    // The PSP: one card_present intent for this key, succeeded, one charge.
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!((intents[0]["amount"].as_i64(), intents[0]["status"].as_str()), (Some(869), Some("succeeded")));
    assert_eq!(intents[0]["payment_method_types"][0], "card_present");
    assert_eq!(psp.stats().await["charges"], 1);
    app.close().await;
}

/// What does not fit in the reader panel at this size: a button or a line past the
/// panel's right edge, or the page wider than the window.
const PANEL_FITS: &str = r#"
const p = document.getElementById('reader-panel');
if (!p) return ['no reader panel'];
const right = p.getBoundingClientRect().right + 0.5;
const out = [];
for (const e of p.querySelectorAll('button, h3, p')) {
  if (e.getBoundingClientRect().right > right) out.push(`${e.id || e.tagName} sticks out of the panel`);
}
if (document.documentElement.scrollWidth > window.innerWidth) out.push('the page scrolls sideways');
return out;
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reader_panel_fits_a_1024_by_768_screen() {
    let app = App::start("reader-small", Launch { width: 1024, height: 768, ..Launch::default() }).await;
    // The reader registered through the bridge (Settings' own button is the other test's).
    let reg = app
        .js("return window.__TAURI__.core.invoke('reader_register', { code: 'simulated-wpe', label: 'Front counter till number one' }).then((v) => v.readers.length)")
        .await;
    assert_eq!(reg, 1);
    app.scan("MUG-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$16.28'", "total $16.28", LONG).await;
    app.click("#pay-split").await;
    app.click("#card-confirm").await;
    app.wait_js(
        "const p = document.getElementById('reader-panel'); return p && p.dataset.outcome === 'waiting_for_card'",
        "the reader waiting for a card",
        LONG,
    )
    .await;
    let problems = app.js(PANEL_FITS).await;
    assert_eq!(problems, serde_json::json!([]), "waiting: {problems}");
    app.screenshot("reader-waiting-1024").await;
    app.click("#reader-sim-insufficient").await;
    app.wait_js(
        "const p = document.getElementById('reader-panel'); return p && p.dataset.outcome === 'not_charged'",
        "insufficient funds, not charged",
        LONG,
    )
    .await;
    let problems = app.js(PANEL_FITS).await;
    assert_eq!(problems, serde_json::json!([]), "declined: {problems}");
    app.screenshot("reader-declined-1024").await;
    app.close().await;
}

/// Registers the embedded PSP's simulated reader through the bridge; its id.
async fn bridge_reader(app: &App) -> String {
    let v = app
        .js("return window.__TAURI__.core.invoke('reader_register', { code: 'simulated-wpe', label: 'Front till' }).then((v) => v.readers[0].id)")
        .await;
    v.as_str().expect("a reader id").to_string()
}

/// Arms a fault of the embedded PSP for the next card handed to the reader (what the
/// panel's "Next card: …" buttons do, before the first card is handed over).
async fn arm(app: &App, fault: &str) {
    let said = app.js(&format!("return window.__TAURI__.core.invoke('reader_arm_fault', {{ fault: '{fault}' }})")).await;
    assert!(said.is_string(), "{fault}: {said}");
}

/// Rings up the $14.95 mug ($16.28 with tax) and hands it to the reader from the card form; the checkout key.
async fn mug_to_reader(app: &App) -> String {
    app.scan("MUG-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$16.28'", "total $16.28", LONG).await;
    app.click("#pay-split").await;
    app.wait_js("const s = document.getElementById('tender-card-method'); return s && s.value.startsWith('reader:')", "the reader chosen", LONG)
        .await;
    app.click("#card-confirm").await;
    let key = app.wait_js("const p = document.getElementById('reader-panel'); return p && p.dataset.key", "the reader panel", LONG).await;
    key.as_str().unwrap().to_string()
}

async fn outcome(app: &App, kind: &str, why: &str, what: &str) {
    let script = format!(
        "const p = document.getElementById('reader-panel'); return p && p.dataset.outcome === '{kind}' && (p.dataset.why === '{why}' || '{why}' === '')"
    );
    app.wait_js(&script, what, LONG).await;
}

/// The customer cancels on the reader: not charged, said so; "Take cash instead" cancels the
/// intent at the PSP and the sale is paid in cash. Nothing was ever charged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_customer_cancels_then_take_cash_instead_completes_the_sale_and_cancels_the_intent() {
    let app = App::start("reader-cancels", Launch::default()).await;
    let psp = app.psp().await;
    bridge_reader(&app).await;
    arm(&app, "customer_cancels").await;
    let key = mug_to_reader(&app).await;
    outcome(&app, "waiting_for_card", "", "the reader waiting").await;
    app.click("#reader-sim-approved").await;
    outcome(&app, "not_charged", "customer_canceled", "the customer's cancel").await;
    assert!(app.text("#reader-msg").await.contains("not charged"), "{}", app.text("#reader-msg").await);
    app.screenshot("reader-customer-canceled").await;

    app.click("#reader-abandon").await;
    outcome(&app, "not_charged", "intent_canceled", "the intent closed").await;
    app.click("#tender-cash").await;
    app.click("#cash-form .quick-cash.exact").await;
    app.click("#cash-confirm").await;
    app.wait_js("const d = document.getElementById('tender-done'); return d && d.dataset.state === 'paid'", "the sale paid in cash", LONG)
        .await;
    app.screenshot("reader-cash-instead").await;

    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "canceled", "never chargeable again");
    assert_eq!(psp.stats().await["charges"], 0);
    app.close().await;
}

/// The reader times out yet took the card (Stripe's false negative) and the reader cannot be
/// read: pending, with the key shown, no other card offered. The customer's tap lands; Check
/// status reads it: Paid, one intent, one charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_that_charged_is_pending_with_its_key_then_paid_once_after_check_status() {
    let app = App::start("reader-pending", Launch::default()).await;
    let psp = app.psp().await;
    let reader = bridge_reader(&app).await;
    arm(&app, "timeout_charges").await;
    // The reads of the reader right after the timeout fail too: nothing proves anything.
    psp.script(&format!("/v1/terminal/readers/{reader}"), "transient_503", 10_000, None).await;
    let key = mug_to_reader(&app).await;
    outcome(&app, "pending", "reader_timeout", "pending after the timeout").await;
    // The key is shown while unsure, once (the pending message says it).
    let panel = app.text("#reader-panel").await;
    assert_eq!(panel.matches(key.as_str()).count(), 1, "{panel}");
    assert!(app.js("return !document.getElementById('reader-again')").await.as_bool().unwrap(), "no second attempt while one may run");
    app.screenshot("reader-pending").await;

    psp.admin("faults/script/clear", &[]).await;
    psp.present_card(&reader).await;
    app.click("#reader-check").await;
    let done = app
        .wait_js("const d = document.getElementById('tender-done'); return d && d.dataset.state === 'paid' && d.innerText", "paid", LONG)
        .await;
    assert!(done.as_str().unwrap().contains("Visa •••• 4242"), "{done}");
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(psp.stats().await["charges"], 1);
    app.close().await;
}

/// A crash between "sent to the reader" and "card presented": the app is SIGKILLed once the
/// reader waits, the customer taps while it is down (at the PSP, over HTTP), and the app
/// started again on the same data finds the payment Paid: one intent, one charge. The PSP
/// is its own process (an embedded one would die with the app).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_presented_while_the_app_is_down_is_paid_once_after_the_restart() {
    let psp = PspProcess::start("sk_test_reader_crash");
    let mut launch = Launch::default();
    launch.env.push(("PAYDESK_PSP_URL".into(), psp.psp.url.clone()));
    launch.env.push(("PAYDESK_PSP_KEY".into(), "sk_test_reader_crash".into()));
    let app = App::start("reader-crash", launch.clone()).await;
    let reader = bridge_reader(&app).await;
    let key = mug_to_reader(&app).await;
    outcome(&app, "waiting_for_card", "", "the reader waiting").await;

    app.kill_app();
    psp.psp.present_card(&reader).await;
    let again = App::start("reader-restarted", Launch { data_from: Some(app.data_dir.clone()), ..launch }).await;
    app.close().await;
    // Reading is all Check status does: it never processes again.
    let checked = again
        .wait_js(
            &format!("return window.__TAURI__.core.invoke('reader_check', {{ checkoutKey: '{key}' }}).then((v) => v.outcome.kind)"),
            "the payment read after the restart",
            LONG,
        )
        .await;
    assert_eq!(checked, "paid");
    let intents = psp.psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "no second intent: {intents:?}");
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(psp.psp.stats().await["charges"], 1);
    again.close().await;
}

/// The reader is busy with another action (`terminal_reader_busy`): said so, nothing is
/// charged, and the next press hands the same intent to the reader: Paid, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_reader_then_the_next_press_goes_through_and_is_paid_once() {
    let app = App::start("reader-busy", Launch::default()).await;
    let psp = app.psp().await;
    bridge_reader(&app).await;
    psp.admin("faults/script", &[("fault", "reader_busy"), ("count", "1")]).await;
    let key = mug_to_reader(&app).await;
    outcome(&app, "reader_busy", "", "the reader busy").await;
    assert_eq!(psp.stats().await["charges"], 0);
    app.screenshot("reader-busy").await;

    app.click("#reader-again").await;
    outcome(&app, "waiting_for_card", "", "the reader waiting after the second press").await;
    app.click("#reader-sim-approved").await;
    app.wait_js("const d = document.getElementById('tender-done'); return d && d.dataset.state === 'paid'", "paid", LONG).await;
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "the same intent both times: {intents:?}");
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(psp.stats().await["charges"], 1);
    app.close().await;
}
