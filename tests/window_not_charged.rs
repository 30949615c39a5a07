//! "Not charged" must stay true (docs/design.md, record 0014): a register pointed at a processor with
//! the wrong secret key is refused before anything runs. The cashier sees "Not charged",
//! the payment ends `failed` in the ledger, the processor holds no payment for its key,
//! and the next sale starts clean. Checked at the PSP, not on screen alone.

use paydesk_e2e::{App, Launch, PspProcess, LONG};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_secret_key_is_not_charged_and_says_so() {
    let psp = PspProcess::start("sk_test_the_right_key");
    let mut launch = Launch::default();
    launch.env.push(("PAYDESK_PSP_URL".into(), psp.psp.url.clone()));
    // The register's copy of the key is wrong: every request is answered 401.
    launch.env.push(("PAYDESK_PSP_KEY".into(), "sk_test_a_mistyped_key".into()));
    let app = App::start("not-charged", launch).await;

    app.scan("COF-001").await;
    // $2.50 and New York City's 8.875 % (record 0131).
    app.wait_js("return document.getElementById('cart-total').textContent === '$2.72'", "total $2.72", LONG).await;
    app.click("#charge").await;
    let key = app.wait_result("failed").await;

    assert_eq!(app.text("#checkout-title").await, "Not charged");
    let panel = app.text("#result").await;
    assert!(panel.contains("Nothing was charged"), "{panel}");
    // The way on is a new payment (a new key), not a retry of the refused one.
    assert_eq!(app.text("#try-another-card").await, "Start a new payment");
    // What happened says "not charged", never "declined": no card was looked at.
    let progress = app.progress_text().await;
    assert!(progress.contains("Not charged") && !progress.contains("Declined"), "{progress}");
    // The status bar blames the settings, not the network: the PSP answered.
    app.wait_js(
        "const p = document.getElementById('psp-status'); \
         return p.dataset.online === 'refusing' && p.textContent === 'PSP refuses this register'",
        "the status bar to say the PSP refuses the register",
        LONG,
    )
    .await;
    app.screenshot("not-charged").await;

    // The processor ran nothing: no payment carries the key, no charge at all.
    assert!(psp.psp.intents_for(&key).await.is_empty());
    assert_eq!(psp.psp.stats().await["charges"], 0);

    // The ledger agrees, and says so in the payments list the cashier can open (F2).
    let state = app
        .wait_js(
            &format!(
                "return window.__TAURI__.core.invoke('get_payment', {{ id: {k} }}).then(p => p.state)",
                k = serde_json::to_string(&key).unwrap()
            ),
            "the payment's state",
            LONG,
        )
        .await;
    assert_eq!(state, "failed");

    // Cancel sale: the register is free for the next customer, with an empty cart.
    app.click("#cancel-sale").await;
    app.wait_js(
        "return document.getElementById('checkout').hidden && document.getElementById('cart-total').textContent === '$0.00'",
        "an empty cart for the next customer",
        LONG,
    )
    .await;
    assert_eq!(psp.psp.stats().await["charges"], 0);
    app.close().await;
}
