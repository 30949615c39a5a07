//! End to end over real loopback: offline store-and-forward, the dedup-window
//! guard with the PSP's test clock, the idempotent event consumer, and 20
//! concurrent "charge this cart" calls.

use crate::common;
use common::*;
use mock_psp::{Fault, FaultConfig};
use paydesk_ledger::{CheckoutOptions, Ledger, NewProduct};
use paydesk_domain::{Currency, Money};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

const PI_PATH: &str = "/v1/payment_intents";

/// Offline caps are per currency (record 0129): with no flags, a dollar register holds
/// about ¥10,000 per payment offline ($65.00), not 10,000 minor units ($100); caps set in
/// yen never apply to a dollar payment; a cap without its currency is refused by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_caps_are_the_same_money_in_every_currency() {
    let dir = tempfile::tempdir().unwrap();
    let mut psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");
    psp.stop().await;

    let over = run(&db, &url, &[], &["checkout", "--amount", "6501", "--currency", "usd"]).await;
    assert_eq!(over.code, Some(1), "{}{}", over.stdout, over.stderr);
    assert_eq!(over.json()["error"]["code"], "offline_refused");
    assert!(over.stderr.contains("6501 > 6500"), "{}", over.stderr);
    let at = run(&db, &url, &[], &["checkout", "--amount", "6500", "--currency", "usd"]).await;
    assert_eq!(at.code, Some(3), "queued: {}{}", at.stdout, at.stderr);
    assert_eq!(at.json()["state"], "queued_offline");
    let yen = run(&db, &url, &[], &["checkout", "--amount", "10000", "--currency", "jpy"]).await;
    assert_eq!(yen.code, Some(3), "¥10,000 is within the yen default: {}{}", yen.stdout, yen.stderr);

    let in_yen = ["--offline-currency", "jpy", "--offline-max-payment", "50000", "--offline-max-total", "90000"];
    let usd = run(&db, &url, &in_yen, &["checkout", "--amount", "7000", "--currency", "usd"]).await;
    assert_eq!(usd.code, Some(1), "yen caps are not dollar caps: {}{}", usd.stdout, usd.stderr);
    assert!(usd.stderr.contains("7000 > 6500"), "{}", usd.stderr);

    let bare = run(&db, &url, &["--offline-max-payment", "5000"], &["checkout", "--amount", "100", "--currency", "usd"]).await;
    assert_eq!(bare.code, Some(64), "a usage error: {}{}", bare.stdout, bare.stderr);
    assert!(bare.stderr.contains("--offline-currency"), "{}", bare.stderr);
    let rows = ledger(&db, &url).await;
    assert_eq!(rows.iter().filter(|r| r["state"] == "queued_offline").count(), 2, "{rows:?}");
}

/// PSP refusing connections: payments are accepted offline within the limits,
/// refused past a limit with a clear message; when the PSP is back each stored
/// payment is forwarded once, in order, and a decline after forwarding is
/// surfaced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_store_and_forward_within_limits_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");
    psp.stop().await; // cable pulled: connections refused
    let limits = ["--offline-currency", "jpy", "--offline-max-payment", "5000", "--offline-max-total", "8000", "--offline-max-count", "2"];

    let a = run(&db, &url, &limits, &["checkout", "--amount", "1000", "--currency", "jpy"]).await;
    assert_eq!(a.code, Some(3), "queued: {}{}", a.stdout, a.stderr);
    assert_eq!(a.json()["state"], "queued_offline");
    let ka = a.json()["checkout_key"].as_str().unwrap().to_string();
    let b = run(&db, &url, &limits, &["checkout", "--amount", "2000", "--currency", "jpy", "--card", "pm_card_chargeDeclined"]).await;
    assert_eq!(b.code, Some(3), "{}{}", b.stdout, b.stderr);
    let kb = b.json()["checkout_key"].as_str().unwrap().to_string();

    let big = run(&db, &url, &limits, &["checkout", "--amount", "6000", "--currency", "jpy"]).await;
    assert_eq!(big.code, Some(1), "{}{}", big.stdout, big.stderr);
    assert_eq!(big.json()["error"]["code"], "offline_refused");
    assert!(big.stderr.contains("per payment"), "{}", big.stderr);
    assert!(big.stderr.contains("Nothing was charged"), "{}", big.stderr);
    let third = run(&db, &url, &limits, &["checkout", "--amount", "100", "--currency", "jpy"]).await;
    assert_eq!(third.code, Some(1));
    assert!(third.stderr.contains("count limit"), "{}", third.stderr);

    // Still offline: recovery keeps them queued, in order, nothing lost.
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    assert_eq!(rec.json()["still_queued"], 2);
    assert_eq!(rec.json()["forwarded"], 0);

    psp.restart().await; // PSP back on the same port and database
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    let rep = rec.json();
    assert_eq!(rep["forwarded"], 2, "{rep}");
    assert_eq!(rep["declined_after_forward"], 1, "{rep}");
    assert!(rec.stderr.contains("DECLINED when forwarded"), "surfaced loudly: {}", rec.stderr);
    assert_eq!(rep["still_queued"], 0);

    let rows = ledger(&db, &url).await;
    let state = |k: &str| rows.iter().find(|r| r["checkout_key"] == k).unwrap()["state"].as_str().unwrap().to_string();
    assert_eq!(state(&ka), "captured");
    assert_eq!(state(&kb), "failed");
    assert_eq!(rows.iter().filter(|r| r["state"] == "canceled").count(), 2, "the refused ones: nothing charged");
    let by_key = psp.intents_by_key().await;
    assert_eq!(by_key.len(), 2, "only the two accepted ones reached the PSP");
    // In order: the first stored was forwarded first.
    let mut last_attempt = vec![];
    for k in [&ka, &kb] {
        let show = run(&db, &url, &[], &["show", "--payment", k]).await.json();
        last_attempt.push(
            show["timeline"].as_array().unwrap().iter().filter(|t| t["kind"] == "attempt").map(|t| t["at_ms"].as_i64().unwrap()).max().unwrap(),
        );
    }
    let (ta, tb) = (last_attempt[0], last_attempt[1]);
    assert!(ta <= tb, "forwarded in order: {ta} then {tb}");
    // Forwarded once: a second recovery sends nothing more.
    let before = psp.stats().await;
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.json()["forwarded"], 0);
    let after = psp.stats().await;
    assert_eq!(before["executions"], after["executions"], "nothing sent again");
    assert_eq!(before["replays"], after["replays"], "nothing sent again");
    assert_eq!(psp.stats().await["charges"], 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// Dedup-window guard with the PSP's test clock: past retention − margin the
/// register never resends a key (the PSP has forgotten it, so a resend would
/// charge again); search decides: found = adopt, not found = never charged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn window_guard_searches_instead_of_resending() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");
    let short = ["--attempt-timeout", "150ms", "--max-attempts", "2"];

    // k1: never reached execution (every request dropped) -> pending, not charged.
    psp.psp().script_fault(PI_PATH, Fault::DropRequest, 1000, None);
    let r1 = run(&db, &url, &short, &["checkout", "--amount", "1100", "--currency", "jpy"]).await;
    assert_eq!(r1.code, Some(3), "{}{}", r1.stdout, r1.stderr);
    let k1 = r1.json()["checkout_key"].as_str().unwrap().to_string();
    psp.psp().clear_script();
    // k2: charged, the answer lost, then no answers at all -> pending, charged.
    psp.psp().script_fault(PI_PATH, Fault::DropResponse, 1, None);
    psp.psp().script_fault(PI_PATH, Fault::DropRequest, 1000, None);
    let r2 = run(&db, &url, &short, &["checkout", "--amount", "2200", "--currency", "jpy"]).await;
    assert_eq!(r2.code, Some(3), "{}{}", r2.stdout, r2.stderr);
    let k2 = r2.json()["checkout_key"].as_str().unwrap().to_string();
    psp.psp().clear_script();
    assert_eq!(psp.intents_by_key().await.get(&k2).map(Vec::len), Some(1));

    // 25 h pass at the PSP; it forgets the keys.
    let adv = psp.admin_post("/__admin/clock/advance", &[("seconds", "90000")]).await;
    assert!(adv["now_ms"].as_i64().is_some(), "{adv}");
    let purged = psp.admin_post("/__admin/purge", &[]).await;
    assert!(purged["purged"].as_u64().unwrap() >= 1, "k2's key is forgotten (k1 never got one): {purged}");

    // The register's clock moves the same 25 h; recovery must search, not resend.
    let rec = run(&db, &url, &["--clock-offset", "25h"], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    let rep = rec.json();
    assert_eq!(rep["resolved"], 2, "{rep}");
    assert_eq!(rep["resolved_by_search"], 2, "{rep}");
    let by_key = psp.intents_by_key().await;
    assert!(!by_key.contains_key(&k1), "k1 was never resent (a resend would have charged it now)");
    assert_eq!(by_key[&k2].len(), 1, "k2 not charged twice");
    let rows = ledger(&db, &url).await;
    let row = |k: &str| rows.iter().find(|r| r["checkout_key"] == k).unwrap().clone();
    assert_eq!(row(&k1)["state"], "failed");
    assert!(row(&k1)["last_error"].as_str().unwrap().contains("never charged"));
    assert_eq!(row(&k2)["state"], "captured");
    assert_ledger_equals_psp(&db, &psp).await;
}

/// Events redelivered (overlap window + the PSP's duplicate/out-of-order fault)
/// are applied exactly once: one journal row per event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_redelivered_out_of_order_one_journal_row_each() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");
    let mut keys = vec![];
    for (amt, card) in [("1000", "pm_card_visa"), ("2000", "pm_card_visa"), ("3000", "pm_card_chargeDeclined")] {
        let r = run(&db, &url, &[], &["checkout", "--amount", amt, "--currency", "jpy", "--card", card]).await;
        keys.push(r.json()["checkout_key"].as_str().unwrap().to_string());
    }
    let rf = run(&db, &url, &[], &["refund", "--payment", &keys[0], "--amount", "400"]).await;
    assert_eq!(rf.code, Some(0), "{}{}", rf.stdout, rf.stderr);

    let mut cfg = FaultConfig::none();
    cfg.set_rate(Fault::DuplicateEvents, 1.0);
    psp.psp().set_faults(cfg);
    let mut applied = 0;
    let mut dups = 0;
    for _ in 0..3 {
        let r = run(&db, &url, &[], &["events"]).await;
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        applied += r.json()["applied"].as_u64().unwrap();
        dups += r.json()["duplicates"].as_u64().unwrap();
    }
    psp.psp().set_faults(FaultConfig::none());
    let distinct: HashSet<String> = psp.events().await.iter().map(|e| e["id"].as_str().unwrap().to_string()).collect();
    assert!(distinct.len() >= 4, "succeeded×2, failed, refund: {}", distinct.len());
    assert_eq!(applied as usize, distinct.len(), "each event applied once");
    assert!(dups as usize >= 2 * distinct.len(), "redelivery was real: {dups}");
    let journal = Ledger::open(&db).unwrap().sync_log().journal().unwrap();
    assert_eq!(journal.len(), distinct.len(), "one journal row per event");
    let jids: HashSet<String> = journal.iter().map(|j| j.event_id.clone()).collect();
    assert_eq!(jids, distinct);
    let total = Ledger::open(&db).unwrap().sync_log().journal_total(Currency::Jpy).unwrap();
    assert_eq!(total, 1000 + 2000 - 400, "sales minus refunds");
    assert_ledger_equals_psp(&db, &psp).await;
}

/// 20 concurrent "charge this cart" calls (double clicks, Enter-mashing): one
/// checkout key, one charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_charges_of_one_cart_one_key_one_charge() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let mut ledger = Ledger::open(&db).unwrap();
    ledger
        .carts_mut().seed_catalog(&[NewProduct { sku: "COFFEE".into(), name: "Coffee".into(), price: Money::new(450, Currency::Jpy) }])
        .unwrap();
    let cart = ledger.carts_mut().create(Currency::Jpy, 0).unwrap();
    ledger.carts_mut().add(cart, "COFFEE", 2, 0).unwrap();
    // The first answer is lost, so the racing calls meet retries and replays too.
    psp.psp().script_fault(PI_PATH, Fault::DropResponse, 1, None);
    let transport = Arc::new(HttpTransport::new(&psp.url(), KEY, Duration::from_secs(2)).unwrap());
    let cfg = EngineConfig { attempt_timeout: Duration::from_secs(2), ..EngineConfig::default() };
    let engine = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), cfg);
    let mut tasks = vec![];
    for _ in 0..20 {
        let e = engine.clone();
        tasks.push(tokio::spawn(async move { e.charge_cart(cart, CheckoutOptions::card("pm_card_visa")).await }));
    }
    let mut keys = HashSet::new();
    for t in tasks {
        let r = t.await.unwrap().expect("charge");
        assert_eq!(r.state.as_str(), "captured");
        keys.insert(r.checkout_key);
    }
    assert_eq!(keys.len(), 1, "one checkout key");
    let key = keys.into_iter().next().unwrap();
    let by_key = psp.intents_by_key().await;
    assert_eq!(by_key.len(), 1);
    assert_eq!(by_key[&key].len(), 1, "one charge");
    assert_eq!(by_key[&key][0]["amount"], 900);
    assert_eq!(psp.stats().await["charges"], 1);
    // Charging the paid cart again does not charge again.
    let again = engine.charge_cart(cart, CheckoutOptions::card("pm_card_visa")).await;
    assert!(again.is_err() || again.unwrap().checkout_key == key);
    assert_eq!(psp.stats().await["charges"], 1);
    drop(engine);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// The cart flow the desktop app uses: Charge again after a decline returns the
/// decline (no new key); "Try another card" is a new key; while the outcome is
/// unknown a new payment is refused unless overridden with a reason (audited).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cart_decline_try_another_card_and_override_guard() {
    use paydesk_register::{EngineError, RetryPolicy};
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let mut ledger = Ledger::open(&db).unwrap();
    ledger
        .carts_mut().seed_catalog(&[NewProduct { sku: "TEA".into(), name: "Tea".into(), price: Money::new(300, Currency::Jpy) }])
        .unwrap();
    let cart = ledger.carts_mut().create(Currency::Jpy, 0).unwrap();
    ledger.carts_mut().add(cart, "TEA", 1, 0).unwrap();
    let transport = Arc::new(HttpTransport::new(&psp.url(), KEY, Duration::from_secs(2)).unwrap());
    let cfg = EngineConfig {
        attempt_timeout: Duration::from_millis(200),
        interactive: RetryPolicy { max_attempts: 2, min_delay: Duration::from_millis(20), ..RetryPolicy::interactive() },
        ..EngineConfig::default()
    };
    let engine = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), cfg);

    let d = engine.charge_cart(cart, CheckoutOptions::card("pm_card_chargeDeclined")).await.unwrap();
    assert_eq!(d.state.as_str(), "failed");
    let again = engine.charge_cart(cart, CheckoutOptions::card("pm_card_visa")).await.unwrap();
    assert_eq!(again.checkout_key, d.checkout_key, "Charge again is not a new intent");
    assert_eq!(again.state.as_str(), "failed");

    // Try another card: new key; its answers are all dropped -> unknown.
    psp.psp().script_fault(PI_PATH, Fault::DropRequest, 1000, None);
    let p = engine.new_payment_after(&d.checkout_key, CheckoutOptions::card("pm_card_visa"), None).await.unwrap();
    assert_ne!(p.checkout_key, d.checkout_key);
    assert_eq!(p.state.as_str(), "authorizing");
    psp.psp().clear_script();
    let refused = engine.new_payment_after(&p.checkout_key, CheckoutOptions::card("pm_card_visa"), None).await;
    assert!(matches!(refused, Err(EngineError::PreviousOutcomeUnknown { .. })), "{refused:?}");
    let blank = engine.new_payment_after(&p.checkout_key, CheckoutOptions::card("pm_card_visa"), Some("  ")).await;
    assert!(matches!(blank, Err(EngineError::InvalidInput(_))));
    let o = engine
        .new_payment_after(&p.checkout_key, CheckoutOptions::card("pm_card_visa"), Some("customer must leave"))
        .await
        .unwrap();
    assert_ne!(o.checkout_key, p.checkout_key);
    assert_eq!(o.state.as_str(), "captured");
    let audit = engine.audit().log().unwrap();
    assert_eq!(audit.len(), 1, "{audit:?}");
    assert_eq!(audit[0].reason, "customer must leave");
    // The unknown one is still resolved with its own key.
    engine.recover().await.unwrap();
    drop(engine);
    assert_ledger_equals_psp(&db, &psp).await;
    assert_eq!(psp.intents_by_key().await.len(), 3, "declined + the overridden unknown + the new one");
}

/// The mock's admin "offline" switch resets every connection (what the desktop
/// app's fault profile uses): payments are stored offline; past a limit the
/// refusal never resends (an attempt may have reached the PSP) and search
/// decides; back online, the stored ones are forwarded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_offline_resets_are_stored_and_forwarded() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let url = psp.url();
    let db = dir.path().join("register.db");
    let limits = ["--offline-max-count", "1"];
    psp.psp().set_offline(true, None);
    let a = run(&db, &url, &limits, &["checkout", "--amount", "1000", "--currency", "jpy"]).await;
    assert_eq!(a.code, Some(3), "{}{}", a.stdout, a.stderr);
    assert_eq!(a.json()["state"], "queued_offline");
    // Refused offline, but its attempts may have reached the PSP (reset connections):
    // the cashier is told "pending" with the key, never "not accepted".
    let b = run(&db, &url, &limits, &["checkout", "--amount", "1000", "--currency", "jpy"]).await;
    assert_eq!(b.code, Some(3), "{}{}", b.stdout, b.stderr);
    assert_eq!((b.json()["outcome"].as_str(), b.json()["error_code"].as_str()), (Some("pending"), Some("offline_refused")), "{}", b.stdout);
    assert_eq!(b.json()["state"], "authorizing");
    assert!(b.json()["message"].as_str().unwrap().contains("never resends"), "{}", b.stdout);
    psp.psp().set_offline(false, None);
    let rec = run(&db, &url, &[], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    let rep = rec.json();
    assert_eq!(rep["forwarded"], 1, "{rep}");
    // The refused one is searched, never resent. Its attempts may have reached the PSP
    // moments ago and search lags behind writes: "not found" is not conclusive yet.
    assert_eq!((rep["resolved_by_search"].as_u64(), rep["still_pending"].as_u64()), (Some(0), Some(1)), "{rep}");
    assert_eq!(ledger(&db, &url).await[1]["state"], "authorizing");
    // Past search_settle_ms (2 min) after its last attempt: not found = never charged.
    let rec = run(&db, &url, &["--clock-offset", "3m"], &["recover"]).await;
    assert_eq!(rec.code, Some(0), "{}", rec.stderr);
    let rep = rec.json();
    assert_eq!(rep["resolved_by_search"], 1, "the refused one: search, not resend: {rep}");
    let rows = ledger(&db, &url).await;
    assert_eq!(rows[0]["state"], "captured");
    assert_eq!(rows[1]["state"], "failed");
    assert_eq!(psp.intents().await.len(), 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// The periodic reconciler resolves a pending checkout with no cashier
/// action; the resolution is observed through the engine's notifications.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_reconciler_resolves_pending_checkouts() {
    use paydesk_register::{Notification, RetryPolicy, Subject};
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let transport = Arc::new(HttpTransport::new(&psp.url(), KEY, Duration::from_secs(2)).unwrap());
    let cfg = EngineConfig {
        attempt_timeout: Duration::from_millis(150),
        interactive: RetryPolicy { max_attempts: 2, min_delay: Duration::from_millis(20), ..RetryPolicy::interactive() },
        ..EngineConfig::default()
    };
    let engine = Engine::new(Ledger::open(&db).unwrap(), transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), cfg);
    psp.psp().script_fault(PI_PATH, Fault::DropResponse, 1, None);
    psp.psp().script_fault(PI_PATH, Fault::DropRequest, 1, None);
    let r = engine.checkout_amount(Money::new(777, Currency::Jpy), CheckoutOptions::card("pm_card_visa")).await.unwrap();
    assert_eq!(r.state.as_str(), "authorizing", "pending after the interactive phase");
    assert_eq!(engine.status().unwrap().in_flight, 1);
    let mut rx = engine.subscribe();
    let bg = engine.spawn_background(Duration::from_millis(200));
    let key = r.checkout_key.clone();
    let resolved = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match rx.recv().await {
                Ok(Notification::Resolved { subject: Subject::Checkout(k), state, .. }) if k == key => break state,
                Ok(_) => {}
                Err(e) => panic!("notifications: {e}"),
            }
        }
    })
    .await
    .expect("resolved in the background");
    assert_eq!(resolved.as_str(), "captured");
    bg.abort();
    let st = engine.status().unwrap();
    assert_eq!(st.in_flight, 0);
    assert_eq!(st.psp_online, Some(true));
    assert!(st.last_sync_ms.is_some());
    assert!(engine.status_of(&key).unwrap().replayed, "the background resend was a replay");
    drop(engine);
    assert_eq!(psp.stats().await["charges"], 1);
    assert_ledger_equals_psp(&db, &psp).await;
}

/// 20 `paydesk-cli checkout --cart N` processes at once (separate processes,
/// one ledger file, one PSP): one checkout key, one charge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_processes_charging_one_cart_one_key_one_charge() {
    let dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(dir.path()).await;
    let db = dir.path().join("register.db");
    let cart = {
        let mut ledger = Ledger::open(&db).unwrap();
        ledger
            .carts_mut().seed_catalog(&[NewProduct { sku: "BREAD".into(), name: "Bread".into(), price: Money::new(250, Currency::Jpy) }])
            .unwrap();
        let cart = ledger.carts_mut().create(Currency::Jpy, 0).unwrap();
        ledger.carts_mut().add(cart, "BREAD", 3, 0).unwrap();
        cart
    };
    let cart_arg = cart.0.to_string();
    let mut kids = vec![];
    for _ in 0..20 {
        kids.push(cli(&db, &psp.url(), &[], &["checkout", "--cart", &cart_arg]).output());
    }
    let mut keys = HashSet::new();
    for k in kids {
        let r: Run = k.await.unwrap().into();
        assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
        assert_eq!(r.json()["state"], "captured");
        keys.insert(r.json()["checkout_key"].as_str().unwrap().to_string());
    }
    assert_eq!(keys.len(), 1, "one checkout key across 20 processes");
    let by_key = psp.intents_by_key().await;
    assert_eq!(by_key.len(), 1);
    assert_eq!(by_key.values().next().unwrap().len(), 1);
    assert_eq!(by_key.values().next().unwrap()[0]["amount"], 750);
    assert_eq!(psp.stats().await["charges"], 1);
    assert_eq!(ledger(&db, &psp.url()).await.len(), 1);
    assert_ledger_equals_psp(&db, &psp).await;
}
