//! The cashier's window end to end: real app, real embedded mock PSP over loopback
//! HTTP, driven through WebDriver under Xvfb. Every test also checks the PSP side
//! through the PSP's own API and admin stats, not the screen alone.

use paydesk_e2e::{App, Launch, LONG};

/// Coffee ×2 + croissant = $8.25, and 8.875 % New York City tax on the coffees (record 0131,
/// the croissant to go is grocery food): $8.69, typed like a scanner.
async fn ring_up(app: &App) {
    app.scan("COF-001").await;
    app.scan("COF-001").await;
    app.scan("CRO-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$8.69'", "total $8.69", LONG).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn charge_shows_a_receipt_and_charges_once() {
    let app = App::start("charge", Launch::default()).await;
    let psp = app.psp().await;
    ring_up(&app).await;
    app.click("#charge").await;
    let key = app.wait_result("approved").await;

    let receipt = app.text("#receipt").await;
    assert!(receipt.contains("$8.69") && receipt.contains("APPROVED"), "{receipt}");
    assert!(receipt.contains("2 × Coffee, regular"), "{receipt}");
    app.wait_js("return document.getElementById('psp-status').dataset.online === 'true'", "PSP online", LONG).await;
    app.screenshot("receipt").await;

    // PSP side: exactly one charge, for this key and amount.
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["amount"], 869);
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(psp.stats().await["charges"], 1);

    // Enter on "New sale" gives the next customer an empty cart, focus back on the scanner.
    app.el("#new-sale").await.send_keys(paydesk_e2e::thirtyfour::Key::Enter).await.unwrap();
    app.wait_js(
        "return document.getElementById('checkout').hidden && document.activeElement.id === 'scan' && document.getElementById('cart-total').textContent === '$0.00'",
        "an empty cart for the next customer",
        LONG,
    )
    .await;
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_response_is_retried_with_the_same_key_and_replayed() {
    let app = App::start("lost-response", Launch::default()).await;
    let psp = app.psp().await;
    ring_up(&app).await;
    // Case B: the PSP charges, then drops the connection before answering.
    psp.script("/v1/payment_intents", "drop_response", 1, None).await;
    app.click("#charge").await;
    let key = app.wait_result("approved").await;

    let progress = app.progress_text().await.to_lowercase();
    assert!(progress.contains("no answer — the payment may have gone through; retrying with the same key"), "{progress}");
    assert!(progress.contains("already charged — replayed"), "{progress}");
    let note = app.text("#result").await;
    assert!(note.contains("charged once"), "{note}");
    app.screenshot("retry-replayed").await;

    let stats = psp.stats().await;
    assert_eq!(stats["charges"], 1, "{stats}");
    assert!(stats["replays"].as_u64().unwrap() >= 1, "{stats}");
    assert_eq!(psp.intents_for(&key).await.len(), 1);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn charge_pressed_five_times_fast_is_one_charge() {
    let app = App::start("mash", Launch::default()).await;
    let psp = app.psp().await;
    ring_up(&app).await;
    // Slow processor, so every press lands while the first charge is still running.
    psp.script("/v1/payment_intents", "slow", 1, Some(1500)).await;
    // 5 clicks in one burst, then F12 mashing, then 5 direct IPC calls at once.
    app.js("for (let i = 0; i < 5; i++) document.getElementById('charge').click(); return true").await;
    let body = app.el("body").await;
    for _ in 0..3 {
        let _ = body.send_keys(paydesk_e2e::thirtyfour::Key::F12).await;
    }
    app.js(
        "window.__mash = Promise.all([1,2,3,4,5].map(() => window.__TAURI__.core.invoke('charge', { paymentMethod: 'pm_card_visa' }))).then(r => r.map(o => o.checkout_key)); return true",
    )
    .await;
    let key = app.wait_result("approved").await;
    let keys = app
        .wait_js("if (!window.__done) window.__mash.then(k => window.__done = k); return window.__done", "the 5 IPC charges", LONG)
        .await;
    for k in keys.as_array().unwrap() {
        assert_eq!(k.as_str().unwrap(), key, "every press reuses the open checkout's key");
    }

    let stats = psp.stats().await;
    assert_eq!(stats["charges"], 1, "{stats}");
    assert_eq!(psp.intents_for(&key).await.len(), 1);
    let payments = app.js("return window.__TAURI__.core.invoke('list_payments').then(l => l.length)").await;
    assert_eq!(payments, 1);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decline_then_try_another_card_uses_a_new_key() {
    let app = App::start("decline", Launch::default()).await;
    let psp = app.psp().await;
    ring_up(&app).await;
    app.js("document.getElementById('card').value = 'pm_card_chargeDeclined'; return true").await;
    app.click("#charge").await;
    let declined_key = app.wait_result("declined").await;
    let text = app.text("#result").await;
    assert!(text.contains("Declined"), "{text}");
    app.screenshot("declined").await;

    // "Try another card" (the retry-card list defaults to the Visa): a new key.
    app.click("#try-another-card").await;
    let paid_key = app.wait_result("approved").await;
    assert_ne!(paid_key, declined_key, "a new payment gets a new key");

    let failed = psp.intents_for(&declined_key).await;
    assert_eq!(failed.len(), 1);
    assert_ne!(failed[0]["status"], "succeeded");
    let paid = psp.intents_for(&paid_key).await;
    assert_eq!(paid.len(), 1);
    assert_eq!(paid[0]["status"], "succeeded");
    let stats = psp.stats().await;
    assert_eq!(stats["charges"], 1, "{stats}");
    assert_eq!(stats["declines"], 1, "{stats}");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_payment_is_accepted_then_forwarded_when_the_psp_is_back() {
    let app = App::start("offline", Launch::default()).await;
    let psp = app.psp().await;
    psp.set_offline(true).await;
    ring_up(&app).await;
    app.click("#charge").await;
    let key = app.wait_result("accepted_offline").await;
    app.wait_js(
        "return document.getElementById('pending-forward').dataset.count === '1' && document.getElementById('psp-status').dataset.online === 'false'",
        "1 waiting to be forwarded, PSP offline",
        LONG,
    )
    .await;
    app.screenshot("offline-accepted").await;
    // PSP side (admin endpoints work while it is "offline"): connections were refused.
    let stats = psp.stats().await;
    assert!(stats["faults"]["offline"].as_u64().unwrap() >= 1, "{stats}");
    assert_eq!(stats["charges"], 0, "{stats}");

    // Cable back in: the background pass forwards it with its own key.
    psp.set_offline(false).await;
    app.wait_js(
        "return document.getElementById('pending-forward').dataset.count === '0' && document.getElementById('psp-status').dataset.online === 'true'",
        "the queue forwarded, PSP online",
        LONG,
    )
    .await;
    // The receipt on screen turns from "accepted offline" into "paid (forwarded)".
    app.wait_result("approved").await;
    let title = app.text("#checkout-title").await;
    assert_eq!(title, "Paid (forwarded)");
    app.screenshot("offline-forwarded").await;
    // Shown in the payments list as paid.
    app.click("#new-sale").await;
    app.click(".tab[data-view='payments']").await;
    let k = serde_json::to_string(&key).unwrap();
    app.wait_js(
        &format!("const r = document.querySelector(`#payments-rows tr[data-id=${{JSON.stringify({k})}}]`); return r && r.innerText.includes('Paid')"),
        "the forwarded payment listed as Paid",
        LONG,
    )
    .await;
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0]["status"], "succeeded");
    assert_eq!(psp.stats().await["charges"], 1);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_refund_from_the_payments_list() {
    let app = App::start("refund", Launch::default()).await;
    let psp = app.psp().await;
    ring_up(&app).await;
    app.click("#charge").await;
    let key = app.wait_result("approved").await;
    app.click("#new-sale").await;

    app.click(".tab[data-view='payments']").await;
    app.wait_js("return !!document.getElementById('refund-amount')", "the refund form", LONG).await;
    let amount = app.el("#refund-amount").await;
    amount.clear().await.unwrap();
    amount.send_keys("2.00").await.unwrap();
    // A double click: one refund (checked at the PSP below), not two of 2.00.
    app.record_announcements().await;
    app.js("const b = document.getElementById('refund-partial'); b.click(); b.click(); return true").await;
    app.wait_announced("Refunded $2.00.").await;
    app.wait_js(
        "const h = document.querySelector('#payment-detail h2'); return h && h.textContent.includes('Partly refunded')",
        "the payment shown as partly refunded",
        LONG,
    )
    .await;
    app.wait_js("return document.querySelector('#timeline svg') !== null", "the timeline picture", LONG).await;
    // The timeline reads in the order things happened: times never go back, the key
    // is committed first, and the request is sent before its attempt is answered.
    let tl = app
        .js(&format!(
            "return window.__TAURI__.core.invoke('get_payment', {{ id: {} }}).then(p => p.timeline.map(t => [t.at, t.label]))",
            serde_json::to_string(&key).unwrap()
        ))
        .await;
    let tl: Vec<(i64, String)> = serde_json::from_value(tl).unwrap();
    assert!(tl.windows(2).all(|w| w[0].0 <= w[1].0), "out of time order: {tl:?}");
    let pos = |label: &str| tl.iter().position(|(_, l)| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {tl:?}"));
    assert_eq!(pos("Key committed"), 0, "{tl:?}");
    assert!(pos("Sent to the processor") < pos("Attempt 1"), "{tl:?}");
    assert!(pos("Attempt 1") < pos("Paid"), "{tl:?}");
    app.screenshot("payments-timeline").await;

    // PSP side: one refund of 200 against this payment's intent.
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1);
    let stats = psp.stats().await;
    assert_eq!(stats["refunds"], 1, "{stats}");
    let pi = intents[0]["id"].as_str().unwrap();
    let charges = psp.get(&format!("/v1/payment_intents/{pi}")).await;
    assert_eq!(charges["amount"], 869);
    let refund_id = app
        .js(&format!(
            "return window.__TAURI__.core.invoke('get_payment', {{ id: {} }}).then(p => p.refunds[0].psp_refund_id)",
            serde_json::to_string(&key).unwrap()
        ))
        .await;
    let refund = psp.get(&format!("/v1/refunds/{}", refund_id.as_str().unwrap())).await;
    assert_eq!(refund["amount"], 200, "{refund}");
    assert_eq!(refund["status"], "succeeded", "{refund}");
    assert_eq!(refund["payment_intent"], pi, "{refund}");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_of_day_report_matches_the_psp() {
    let app = App::start("report", Launch::default()).await;
    let psp = app.psp().await;
    // sale 1: $8.69, with a lost response (a duplicate charge prevented)
    ring_up(&app).await;
    psp.script("/v1/payment_intents", "drop_response", 1, None).await;
    app.click("#charge").await;
    let k1 = app.wait_result("approved").await;
    app.click("#new-sale").await;
    // sale 2: mug $14.95 + tax = $16.28, refunded $4.95
    app.scan("MUG-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$16.28'", "total $16.28", LONG).await;
    app.click("#charge").await;
    let k2 = app.wait_result("approved").await;
    app.click("#new-sale").await;
    let r = app
        .js(&format!(
            "return window.__TAURI__.core.invoke('refund', {{ paymentId: {}, amount: '4.95' }}).then(r => r.state)",
            serde_json::to_string(&k2).unwrap()
        ))
        .await;
    assert_eq!(r, "succeeded");
    // sale 3: declined, then cancelled
    app.scan("TEA-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$3.27'", "total $3.27", LONG).await;
    app.js("document.getElementById('card').value = 'pm_card_chargeDeclined'; return true").await;
    app.click("#charge").await;
    app.wait_result("declined").await;
    app.click("#cancel-sale").await;

    app.click(".tab[data-view='report']").await;
    app.wait_js("const t = document.getElementById('r-gross'); return t && t.dataset.value === '2497'", "gross $24.97", LONG).await;
    let value = |id: &str| {
        let id = id.to_string();
        let app = &app;
        async move { app.js(&format!("return document.getElementById('{id}').dataset.value")).await }
    };
    assert_eq!(value("r-refunds").await, "495");
    assert_eq!(value("r-net").await, "2002");
    assert_eq!(value("r-count").await, "2");
    assert_eq!(value("r-declined").await, "1");
    let dupes: u64 = value("r-dupes").await.as_str().unwrap().parse().unwrap();
    assert!(dupes >= 1, "the replayed attempt counts as a prevented duplicate");
    assert!(app.text("#r-net").await.contains("$20.02"));
    app.wait_js("return document.querySelectorAll('#report-chart svg rect').length > 0", "the per-hour chart", LONG).await;
    // Money on the chart is written like money: "$0.00" … "$25.00" on the axis (the
    // largest hour is $24.97 → steps of $5.00 or $10.00), and the bar's own label.
    let axis = app.js("return [...document.querySelectorAll('#report-chart .axis-label')].map(t => t.textContent)").await;
    let axis: Vec<&str> = axis.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(axis.len(), 5, "{axis:?}");
    assert_eq!(axis[0], "$0.00", "{axis:?}");
    assert!(axis.iter().all(|t| t.starts_with('$') && t.ends_with(".00") && !t.to_lowercase().contains("usd")), "{axis:?}");
    let chart = app.js("return document.getElementById('report-chart').textContent").await;
    let chart = chart.as_str().unwrap();
    // both sales in one hour, or each in its own
    assert!(chart.contains("$24.97") || (chart.contains("$8.69") && chart.contains("$16.28")), "{chart}");
    app.screenshot("report").await;

    // PSP side: the same money.
    let mut captured = 0;
    for k in [&k1, &k2] {
        let pis = psp.intents_for(k).await;
        assert_eq!(pis.len(), 1);
        captured += pis[0]["amount_received"].as_i64().unwrap();
    }
    assert_eq!(captured, 2497);
    let stats = psp.stats().await;
    assert_eq!(stats["charges"], 2, "{stats}");
    assert_eq!(stats["refunds"], 1, "{stats}");
    assert_eq!(stats["declines"], 1, "{stats}");

    app.click(".tab[data-view='settings']").await;
    app.wait_js("return !!document.getElementById('set-fault_profile')", "the settings form", LONG).await;
    app.screenshot("settings").await;
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readable_at_1024_by_768() {
    let app = App::start("small", Launch { width: 1024, height: 768, ..Launch::default() }).await;
    let _ = app.driver.set_window_rect(0, 0, 1024, 768).await;
    ring_up(&app).await;
    // Everything the cashier needs is on screen without scrolling.
    let visible = app
        .js(
            "const inView = id => { const r = document.getElementById(id).getBoundingClientRect(); \
             return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth; }; \
             return ['scan','cart-total','charge','psp-status','pending-forward','last-sync'].filter(id => !inView(id))",
        )
        .await;
    assert_eq!(visible, serde_json::json!([]), "cut off at 1024×768: {visible}");
    app.screenshot("register-1024x768").await;
    // Settings at 1024×768: the whole form and its Save button without scrolling.
    app.click(".tab[data-view='settings']").await;
    app.el("#save-settings").await;
    let cut = app
        .js(
            "const r = document.getElementById('save-settings').getBoundingClientRect(); \
             return r.bottom <= document.querySelector('.statusbar').getBoundingClientRect().top && r.right <= window.innerWidth",
        )
        .await;
    assert_eq!(cut, true, "Save settings is cut off at 1024×768");
    app.screenshot("settings-1024x768").await;
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_outcome_guards_a_new_payment() {
    let app = App::start("unknown", Launch::default()).await;
    let psp = app.psp().await;
    ring_up(&app).await;
    // Case C: the processor takes a minute; every retry finds it still working.
    psp.script("/v1/payment_intents", "slow", 1, Some(60_000)).await;
    app.click("#charge").await;
    let key = app.wait_result("unknown").await;
    let progress = app.progress_text().await.to_lowercase();
    assert!(progress.contains("processor still working on this payment"), "{progress}");
    app.screenshot("unknown-outcome").await;

    // A new sale (or a new card) is refused without a reason ...
    let err = app
        .js("return window.__TAURI__.core.invoke('new_sale', {}).then(() => 'ok', e => e.code)")
        .await;
    assert_eq!(err, "previous_outcome_unknown");
    assert!(app.js("return document.getElementById('override-next-sale').disabled").await.as_bool().unwrap());
    // ... and allowed with one, which goes to the audit log.
    app.el("#override-reason").await.send_keys("customer paid cash instead").await.unwrap();
    app.click("#override-next-sale").await;
    app.wait_js(
        "return document.getElementById('checkout').hidden && document.getElementById('cart-total').textContent === '$0.00'",
        "a new sale after the override",
        LONG,
    )
    .await;

    // PSP side: at most one charge for the key, never a second one.
    let stats = psp.stats().await;
    assert!(stats["conflicts"].as_u64().unwrap() >= 1, "{stats}");
    assert!(stats["charges"].as_u64().unwrap() <= 1, "{stats}");
    assert!(psp.intents_for(&key).await.len() <= 1);
    app.close().await;
}
