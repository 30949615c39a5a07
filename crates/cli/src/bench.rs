//! `paydesk-cli bench`: end-to-end checkouts through the engine (ledger commits
//! + PSP request) vs the same PSP requests alone, over loopback, in one run.

use paydesk_ledger::{CheckoutOptions, Ledger};
use paydesk_domain::{Currency, Money};
use paydesk_register::psp::{AttemptOutcome, CreateIntent, PaymentIntent, PspClient};
use paydesk_register::rng::new_key;
use paydesk_register::transport::HttpTransport;
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

struct Run {
    per_sec: f64,
    p50: f64,
    p99: f64,
    ok: usize,
}

async fn timed<F, Fut>(n: usize, concurrency: usize, f: F) -> Run
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let f = Arc::new(f);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency.max(1) {
        let f = f.clone();
        let next = next.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut ok = 0;
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= n {
                    break;
                }
                let t = Instant::now();
                if f(i).await {
                    ok += 1;
                }
                lat.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            (lat, ok)
        }));
    }
    let mut all = Vec::new();
    let mut ok = 0;
    for t in tasks {
        let (l, o) = t.await.expect("bench task");
        all.extend(l);
        ok += o;
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Run { per_sec: n as f64 / elapsed, p50: pct(&all, 0.5), p99: pct(&all, 0.99), ok }
}

pub async fn run(psp_url: &str, psp_key: &str, db: &str, n: usize, concurrency: usize, currency: Currency) -> i32 {
    let ledger = match Ledger::open(db) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot open {db}: {e}");
            return 1;
        }
    };
    let transport = match HttpTransport::new(psp_url, psp_key, Duration::from_secs(2)) {
        Ok(t) => Arc::new(t),
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let engine = Engine::new(ledger, transport.clone(), Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default());
    let client = PspClient::new(transport, Duration::from_secs(10));
    // Warm-up: connection pool, SQLite pages.
    let _ = engine.checkout_amount(Money::new(100, currency), CheckoutOptions::card("pm_card_visa")).await;

    let e = engine.clone();
    let e2e = timed(n, concurrency, move |_| {
        let e = e.clone();
        async move {
            matches!(
                e.checkout_amount(Money::new(100, currency), CheckoutOptions::card("pm_card_visa")).await,
                Ok(r) if r.outcome == paydesk_register::CheckoutOutcome::Paid
            )
        }
    })
    .await;
    let c = client.clone();
    let psp_only = timed(n, concurrency, move |_| {
        let c = c.clone();
        async move {
            let key = new_key(&OsRandom);
            let p = CreateIntent {
                amount: 100,
                currency: currency.code().into(),
                payment_method: "pm_card_visa".into(),
                capture_method: "automatic".into(),
                checkout_key: key.clone(),
            };
            matches!(c.attempt::<PaymentIntent>(c.create_intent_request(&p, &key)).await, AttemptOutcome::Ok { .. })
        }
    })
    .await;
    let commits = match durable_commits(&engine, currency).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("commit count: {e}");
            return 1;
        }
    };
    // The card reader beside it (issue #27): a PSP without simulated readers skips it.
    let reader = crate::bench_reader::run(psp_url, psp_key, db, n.min(crate::bench_reader::MAX_READER_CHECKOUTS), currency).await;
    let ratio = psp_only.per_sec / e2e.per_sec.max(1e-9);
    let _ = std::io::Write::write_all(&mut std::io::stdout(), format!("{}\n",         json!({
            "n": n, "concurrency": concurrency,
            "end_to_end": {"checkouts_per_s": e2e.per_sec, "p50_ms": e2e.p50, "p99_ms": e2e.p99, "ok": e2e.ok},
            "psp_only": {"requests_per_s": psp_only.per_sec, "p50_ms": psp_only.p50, "p99_ms": psp_only.p99, "ok": psp_only.ok},
            "overhead_ratio_throughput": ratio,
            "overhead_ratio_p50": e2e.p50 / psp_only.p50.max(1e-9),
            "durable_commits_before_answer": commits,
            "reader_checkout": reader,
        })
    ).as_bytes());
    eprintln!(
        "end-to-end: {:.1} checkouts/s p50 {:.2} ms p99 {:.2} ms | PSP only: {:.1} req/s p50 {:.2} ms p99 {:.2} ms | register overhead x{:.2} (throughput), x{:.2} (p50)",
        e2e.per_sec, e2e.p50, e2e.p99, psp_only.per_sec, psp_only.p50, psp_only.p99, ratio, e2e.p50 / psp_only.p50.max(1e-9)
    );
    eprintln!(
        "durable commits before the answer: single-card checkout {} | card tender {} (goal <= 2) | cash sale {} (goal 1)",
        commits["single_card_checkout"], commits["card_tender"], commits["cash_sale"]
    );
    0
}

/// Durable commits (the ledger's commit hook: one fsync each) each kind of payment
/// makes before its answer is returned (record 0028, 0030): today's single-card
/// checkout of a cart, a card tender for part of a sale, and a cash sale.
async fn durable_commits(engine: &Engine, currency: Currency) -> Result<serde_json::Value, paydesk_register::EngineError> {
    let commits = || engine.commit_count();
    engine.catalog().seed(&[paydesk_ledger::NewProduct { sku: "BENCH".into(), name: "Bench item".into(), price: Money::new(1000, currency) }])?;
    let one_item = [("BENCH".to_string(), 1)];
    let cart = || engine.carts().create_with(currency, &one_item, None);
    let card = CheckoutOptions::card("pm_card_visa");
    let c1 = cart()?;
    let before = commits();
    engine.charge_cart(c1, card.clone()).await?;
    let single = commits() - before;
    let c2 = cart()?;
    let before = commits();
    engine.charge_card_tender(c2, Some(400), card.clone(), None).await?;
    let tender = commits() - before;
    let before = commits();
    engine.pay_cash(c2, 600, None)?;
    let split_cash = commits() - before;
    let c3 = cart()?;
    let before = commits();
    engine.pay_cash(c3, 1000, None)?;
    let cash = commits() - before;
    Ok(json!({
        "single_card_checkout": single,
        "card_tender": tender,
        "cash_completing_a_split": split_cash,
        "cash_sale": cash,
        "goal": {"card_tender": 2, "cash_sale": 1},
    }))
}
