//! The card-reader part of `paydesk-cli bench` (issue #27): a reader checkout measured
//! beside today's keyed-token checkout, in the same run, against the same PSP.
//!
//! Printed per reader checkout: the durable commits the register makes before the
//! cashier sees "Paid" (aim: at most 3 — the key, the process attempt, the result), the
//! PSP requests the register sends, and the time from the customer's tap to "Paid" as a
//! multiple of the PSP's own answer time for the tap plus one poll interval (aim: at most
//! 1.5x). The customer is a second engine on its own ledger file and transport, so its
//! requests and commits are not counted as the register's.

use paydesk_ledger::{CheckoutOptions, Ledger};
use paydesk_domain::{Currency, Money};
use paydesk_register::clock::BoxFuture;
use paydesk_register::transport::{HttpRequest, HttpResponse, HttpTransport, SharedTransport, Transport, TransportError};
use paydesk_register::{Engine, EngineConfig, EngineError, OsRandom, ReaderOutcome, SystemClock, TestCard};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the customer waits for the reader to start collecting before giving up.
const COLLECTING_WITHIN: Duration = Duration::from_secs(10);
/// The customer's look at the reader (not measured: it only decides when to tap).
const CUSTOMER_LOOK: Duration = Duration::from_millis(5);
/// Reader checkouts in one run: each lasts about one poll interval.
pub(crate) const MAX_READER_CHECKOUTS: usize = 20;

/// Counts the requests the register sends (every attempt, retries included).
struct Counting {
    inner: SharedTransport,
    sent: AtomicU64,
}

impl Transport for Counting {
    fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>> {
        self.sent.fetch_add(1, Ordering::SeqCst);
        self.inner.send(req)
    }
    fn endpoint(&self) -> Option<String> {
        self.inner.endpoint()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// One reader checkout: what the register did and how long the tap took to show.
struct Measured {
    commits: u64,
    requests: u64,
    /// The customer's tap (its POST) until the charge call answered "Paid".
    tap_to_paid_ms: f64,
    /// The PSP's own answer time for the tap.
    tap_answer_ms: f64,
}

/// Runs `n` reader checkouts and one keyed-token checkout for comparison; `None` with a
/// message on stderr when the PSP has no simulated readers or a checkout was not paid.
pub(crate) async fn run(psp_url: &str, psp_key: &str, db: &str, n: usize, currency: Currency) -> Option<Value> {
    let n = n.clamp(1, MAX_READER_CHECKOUTS);
    let http = |timeout| HttpTransport::new(psp_url, psp_key, timeout).map_err(|e| eprintln!("{e}")).ok();
    let counting = Arc::new(Counting { inner: Arc::new(http(Duration::from_secs(2))?), sent: AtomicU64::new(0) });
    let open = |path: String| Ledger::open(&path).map_err(|e| eprintln!("cannot open {path}: {e}")).ok();
    let cfg = EngineConfig::default();
    let poll_ms = cfg.reader.poll_interval.as_secs_f64() * 1000.0;
    let register = Engine::new(open(format!("{db}.reader"))?, counting.clone(), Arc::new(SystemClock::new()), Arc::new(OsRandom), cfg);
    let customer = Engine::new(
        open(format!("{db}.customer"))?,
        Arc::new(http(Duration::from_secs(2))?),
        Arc::new(SystemClock::new()),
        Arc::new(OsRandom),
        EngineConfig::default(),
    );
    let reader = match setup(&register).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("reader bench: no simulated reader at this PSP: {e}");
            return None;
        }
    };
    // Today's keyed-token checkout through the same counting transport, for the comparison.
    let (before_c, before_r) = (register.commit_count(), counting.sent.load(Ordering::SeqCst));
    let keyed = register.checkout_amount(Money::new(1_000, currency), CheckoutOptions::card("pm_card_visa")).await;
    if !matches!(&keyed, Ok(r) if r.outcome == paydesk_register::CheckoutOutcome::Paid) {
        eprintln!("reader bench: the keyed checkout was not paid: {keyed:?}");
        return None;
    }
    let keyed_commits = register.commit_count() - before_c;
    let keyed_requests = counting.sent.load(Ordering::SeqCst) - before_r;

    let mut runs = Vec::with_capacity(n);
    for i in 0..n {
        // 1,000 + i: never an amount ending in a test decline's digits (01, 05, 55, 65, 75).
        let amount = Money::new(1_000 + 10 * i as i64, currency);
        match one(&register, &customer, &counting, &reader, amount).await {
            Ok(m) => runs.push(m),
            Err(e) => {
                eprintln!("reader bench: checkout {i}: {e}");
                return None;
            }
        }
    }
    let commits = runs.iter().map(|m| m.commits).max().unwrap_or(0);
    let requests = median(runs.iter().map(|m| m.requests as f64).collect());
    let tap_to_paid = median(runs.iter().map(|m| m.tap_to_paid_ms).collect());
    let tap_answer = median(runs.iter().map(|m| m.tap_answer_ms).collect());
    let ratio = tap_to_paid / (tap_answer + poll_ms).max(1e-9);
    eprintln!(
        "reader checkout ({n}): durable commits before Paid {commits} (aim <= 3; keyed token {keyed_commits}) | PSP requests {requests:.0} (keyed token {keyed_requests}) | tap to Paid p50 {tap_to_paid:.1} ms = x{ratio:.2} of the tap's answer {tap_answer:.1} ms + one poll {poll_ms:.0} ms (aim <= 1.5)"
    );
    Some(json!({
        "n": n,
        "durable_commits_before_paid_max": commits,
        "psp_requests_per_checkout_p50": requests,
        "keyed_token": {"durable_commits": keyed_commits, "psp_requests": keyed_requests},
        "tap_to_paid_p50_ms": tap_to_paid,
        "tap_answer_p50_ms": tap_answer,
        "poll_interval_ms": poll_ms,
        "tap_to_paid_ratio": ratio,
        "aim": {"durable_commits": 3, "tap_to_paid_ratio": 1.5},
    }))
}

async fn setup(register: &Engine) -> Result<String, EngineError> {
    let location = register.create_reader_location("Bench", &[("line1", "1 Market St"), ("city", "San Francisco"), ("country", "US")]).await?;
    Ok(register.register_reader("simulated-wpe", "Bench reader", &location).await?.reader.id)
}

async fn one(register: &Engine, customer: &Engine, counting: &Counting, reader: &str, amount: Money) -> Result<Measured, String> {
    let commits_before = register.commit_count();
    let sent_before = counting.sent.load(Ordering::SeqCst);
    let (charged, tap) = tokio::join!(
        async {
            let r = register.charge_on_reader(amount, reader).await;
            (r, Instant::now())
        },
        customer_taps(customer, reader)
    );
    let (report, answered) = charged;
    let report = report.map_err(|e| e.to_string())?;
    if report.outcome != ReaderOutcome::Paid {
        return Err(format!("not paid: {:?}", report.outcome));
    }
    let (tapped, tap_answer) = tap?;
    Ok(Measured {
        commits: register.commit_count() - commits_before,
        requests: counting.sent.load(Ordering::SeqCst) - sent_before,
        tap_to_paid_ms: answered.saturating_duration_since(tapped).as_secs_f64() * 1000.0,
        tap_answer_ms: tap_answer.as_secs_f64() * 1000.0,
    })
}

/// Waits (bounded) for the reader to collect, then taps an approving card; the moment of
/// the tap and how long the PSP took to answer it.
async fn customer_taps(customer: &Engine, reader: &str) -> Result<(Instant, Duration), String> {
    let until = Instant::now() + COLLECTING_WITHIN;
    while Instant::now() < until {
        let r = customer.reader_at_psp(reader).await.map_err(|e| e.to_string())?;
        if r.action.as_ref().is_some_and(|a| a.collecting()) {
            let tapped = Instant::now();
            customer.simulate_customer(reader, TestCard::Approved).await.map_err(|e| e.to_string())?;
            return Ok((tapped, tapped.elapsed()));
        }
        // polling another party's state: there is no signal to wait on
        tokio::time::sleep(CUSTOMER_LOOK).await;
    }
    Err("the reader never started collecting".into())
}
