//! Bounded retries of one logical request with one idempotency key (record 0007):
//! exponential backoff with jitter (seeded from the injected RNG), `Retry-After`
//! honoured, a bounded interactive phase. Built on `backon`; sleeping goes
//! through the injected clock so the simulation runs it in virtual time.

use crate::attempt::AttemptKind;
use crate::clock::SharedClock;
use crate::notify::{Notification, Notifier, Subject};
use crate::psp::{AttemptOutcome, PspClient, RetryReason};
use crate::rng::SharedRandom;
use crate::transport::HttpRequest;
use backon::{ExponentialBuilder, Retryable};
use serde::Serialize;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Delay before the second attempt.
    pub min_delay: Duration,
    /// Cap on a single backoff delay.
    pub max_delay: Duration,
    pub factor: f32,
    /// Attempts in one phase (first attempt included).
    pub max_attempts: u32,
    /// Wall time of the phase (attempts + waits). Past it, the caller moves the
    /// work to the background queue.
    pub phase_budget: Duration,
    /// A `Retry-After` longer than this ends the phase instead of blocking the cashier.
    pub max_retry_after: Duration,
    /// After this many consecutive attempts that reached no server (refused,
    /// reset before any answer), the PSP is taken as unreachable and the phase
    /// ends early (the caller may then store the payment offline).
    pub max_unreachable: u32,
}

impl RetryPolicy {
    /// The cashier is waiting: a few seconds, then the background queue.
    pub fn interactive() -> Self {
        Self {
            min_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(3),
            factor: 2.0,
            max_attempts: 8,
            phase_budget: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(10),
            max_unreachable: 3,
        }
    }
    /// The reconciler / forwarder: fewer attempts per pass; the next pass retries.
    pub fn background() -> Self {
        Self {
            min_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(5),
            factor: 2.0,
            max_attempts: 4,
            phase_budget: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(10),
            max_unreachable: 2,
        }
    }
}

/// One attempt as recorded in the payment's timeline.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AttemptRecord {
    pub attempt: u32,
    pub started_ms: i64,
    pub latency_ms: u64,
    pub outcome: AttemptKind,
    pub message: String,
    pub replayed: bool,
    /// The answer proves this attempt executed nothing at the PSP (never reached it,
    /// or refused before execution).
    pub executed_nothing: bool,
    /// Backoff chosen after this attempt, if another attempt followed.
    pub backoff_ms: Option<u64>,
}

/// The final answer of a phase.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum PhaseResult<T> {
    /// A non-retryable outcome (Ok, Declined, Unknown, Fatal).
    Final(AttemptOutcome<T>),
    /// Every attempt was retryable and the phase ran out. `never_sent` is true
    /// when no attempt can have reached the PSP (all refused before sending);
    /// `unreachable` when no attempt got any answer from a server (refused or
    /// reset: the PSP is offline as far as the register can tell).
    Exhausted { last: RetryReason, never_sent: bool, unreachable: bool },
}

struct RetryErr {
    reason: RetryReason,
    retry_after: Option<Duration>,
}

/// One phase's setting: the client, the register's injected clock, randomness and
/// notifier, the policy, whose attempts these are, and the number the first attempt gets
/// (a phase that continues earlier attempts counts on from them).
pub struct Phase<'a> {
    pub client: &'a PspClient,
    pub policy: &'a RetryPolicy,
    pub clock: &'a SharedClock,
    pub rng: &'a SharedRandom,
    pub notifier: &'a Notifier,
    pub subject: &'a Subject,
    pub first_attempt_no: u32,
}

/// Run the request produced by `make_request` (same key and parameters each
/// time) until a non-retryable outcome or the phase ends.
pub async fn run_phase<T>(
    phase: Phase<'_>,
    make_request: impl Fn() -> HttpRequest + Send + Sync + 'static,
) -> (PhaseResult<T>, Vec<AttemptRecord>)
where
    T: serde::de::DeserializeOwned + Send + 'static,
{
    let Phase { client, policy, clock, rng, notifier, subject, first_attempt_no } = phase;
    let tally = Arc::new(Mutex::new(Tally::new(first_attempt_no)));
    let backoff = ExponentialBuilder::default()
        .with_min_delay(policy.min_delay)
        .with_max_delay(policy.max_delay)
        .with_factor(policy.factor)
        .with_max_times(policy.max_attempts.saturating_sub(1) as usize)
        .with_jitter_seed(rng.next_u64())
        .with_jitter();
    let attempter =
        Attempter { client: client.clone(), clock: clock.clone(), notifier: notifier.clone(), subject: subject.clone(), tally: tally.clone() };
    let attempt_fn = move || attempter.clone().attempt::<T>(make_request());
    let sleep_clock = clock.clone();
    let pacing = Pacing::new(policy, clock, tally.clone());
    let (notify_tally, notify_notifier, notify_subject) = (tally.clone(), notifier.clone(), subject.clone());

    // Boxed as `dyn Future + Send` so callers' futures stay provably Send
    // (rustc cannot see through the higher-ranked closure types otherwise).
    let retry_fut: std::pin::Pin<Box<dyn std::future::Future<Output = Result<AttemptOutcome<T>, RetryErr>> + Send>> = Box::pin(attempt_fn
        .retry(backoff)
        .sleep(move |d: Duration| sleep_clock.sleep(d))
        .when(|_e: &RetryErr| true)
        .adjust(move |e: &RetryErr, dur: Option<Duration>| pacing.delay(e, dur))
        .notify(move |e: &RetryErr, d: Duration| note_backoff(&notify_tally, &notify_notifier, &notify_subject, e, d)));
    let result = retry_fut.await;

    let mut t = tally.lock();
    let recs = std::mem::take(&mut t.records);
    match result {
        Ok(outcome) => (PhaseResult::Final(outcome), recs),
        Err(e) => (PhaseResult::Exhausted { last: e.reason, never_sent: t.all_never_sent, unreachable: t.all_unreachable }, recs),
    }
}

/// What a phase learns across its attempts. Shared (behind one lock) by the attempt, the
/// pacing and the notify closures, which backon calls one at a time.
struct Tally {
    records: Vec<AttemptRecord>,
    /// The number the last attempt got.
    last_attempt_no: u32,
    /// No attempt can have reached the PSP (all refused before sending).
    all_never_sent: bool,
    /// No attempt got any answer from a server.
    all_unreachable: bool,
    /// Attempts in a row that reached no server: the phase ends at the policy's limit.
    consecutive_unreachable: u32,
}

impl Tally {
    fn new(first_attempt_no: u32) -> Self {
        Tally {
            records: Vec::new(),
            last_attempt_no: first_attempt_no.saturating_sub(1),
            all_never_sent: true,
            all_unreachable: true,
            consecutive_unreachable: 0,
        }
    }

    /// Counts an attempt's outcome; a retryable one becomes backon's error.
    fn count<T>(&mut self, out: AttemptOutcome<T>) -> Result<AttemptOutcome<T>, RetryErr> {
        match out {
            AttemptOutcome::Retry { reason, retry_after } => {
                if !reason.never_sent() {
                    self.all_never_sent = false;
                }
                if reason.unreachable() {
                    self.consecutive_unreachable += 1;
                } else {
                    self.all_unreachable = false;
                    self.consecutive_unreachable = 0;
                }
                Err(RetryErr { reason, retry_after })
            }
            other => {
                self.all_never_sent = false;
                self.all_unreachable = false;
                Ok(other)
            }
        }
    }
}

/// What one attempt needs, owned, so each attempt's future is `'static` (backon calls
/// the attempt closure again for every retry).
#[derive(Clone)]
struct Attempter {
    client: PspClient,
    clock: SharedClock,
    notifier: Notifier,
    subject: Subject,
    tally: Arc<Mutex<Tally>>,
}

impl Attempter {
    /// One attempt: numbered, announced, sent, recorded and counted.
    async fn attempt<T: serde::de::DeserializeOwned>(self, req: HttpRequest) -> Result<AttemptOutcome<T>, RetryErr> {
        let n = {
            let mut t = self.tally.lock();
            t.last_attempt_no += 1;
            t.last_attempt_no
        };
        let subject = &self.subject;
        self.notifier.send(Notification::AttemptStarted { subject: subject.clone(), attempt: n });
        let started = self.clock.now_ms();
        let out: AttemptOutcome<T> = self.client.attempt(req).await;
        let latency = (self.clock.now_ms() - started).max(0) as u64;
        let rec = AttemptRecord {
            attempt: n,
            started_ms: started,
            latency_ms: latency,
            outcome: out.kind(),
            message: out.words(),
            replayed: out.replayed(),
            executed_nothing: out.executed_nothing(),
            backoff_ms: None,
        };
        self.notifier.send(Notification::AttemptOutcome {
            subject: subject.clone(),
            attempt: n,
            outcome: rec.outcome,
            message: rec.message.clone(),
            latency_ms: latency,
        });
        if rec.replayed {
            self.notifier.send(Notification::Replayed { subject: subject.clone(), attempt: n });
        }
        let mut t = self.tally.lock();
        t.records.push(rec);
        t.count(out)
    }
}

/// The policy's limits on waiting, applied to backon's proposed delay.
struct Pacing {
    clock: SharedClock,
    phase_start: i64,
    budget_ms: i64,
    max_retry_after: Duration,
    max_unreachable: u32,
    tally: Arc<Mutex<Tally>>,
}

impl Pacing {
    fn new(policy: &RetryPolicy, clock: &SharedClock, tally: Arc<Mutex<Tally>>) -> Self {
        Pacing {
            clock: clock.clone(),
            phase_start: clock.now_ms(),
            budget_ms: policy.phase_budget.as_millis() as i64,
            max_retry_after: policy.max_retry_after,
            max_unreachable: policy.max_unreachable.max(1),
            tally,
        }
    }

    /// The wait before the next attempt, or `None` to end the phase: the PSP looks
    /// unreachable, its `Retry-After` is too long for a waiting cashier, or the wait
    /// would pass the phase's budget. A `Retry-After` is never cut short.
    fn delay(&self, e: &RetryErr, proposed: Option<Duration>) -> Option<Duration> {
        let d = proposed?;
        if self.tally.lock().consecutive_unreachable >= self.max_unreachable {
            return None;
        }
        let d = match e.retry_after {
            Some(ra) if ra > self.max_retry_after => return None,
            Some(ra) => d.max(ra),
            None => d,
        };
        let elapsed = self.clock.now_ms() - self.phase_start;
        if elapsed + d.as_millis() as i64 > self.budget_ms {
            return None;
        }
        Some(d)
    }
}

/// The chosen wait goes on the last attempt's record and out as a notification.
fn note_backoff(tally: &Mutex<Tally>, notifier: &Notifier, subject: &Subject, e: &RetryErr, d: Duration) {
    let mut t = tally.lock();
    let attempt = t.records.last().map(|r| r.attempt).unwrap_or(0);
    if let Some(last) = t.records.last_mut() {
        last.backoff_ms = Some(d.as_millis() as u64);
    }
    notifier.send(Notification::BackingOff {
        subject: subject.clone(),
        attempt,
        delay_ms: d.as_millis() as u64,
        reason: e.reason.words(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{BoxFuture, VirtualClock};
    use crate::psp::PaymentIntent;
    use crate::rng::SeededRandom;
    use crate::transport::{HttpResponse, Transport, TransportError};
    use std::collections::VecDeque;

    /// Scripted answers, recording every request seen (unit-test transport).
    struct Script {
        answers: Mutex<VecDeque<Result<HttpResponse, TransportError>>>,
        seen: Mutex<Vec<HttpRequest>>,
    }
    impl Transport for Script {
        fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>> {
            self.seen.lock().push(req);
            let a = self.answers.lock().pop_front().unwrap_or(Err(TransportError::Timeout));
            Box::pin(async move { a })
        }
    }
    fn ok(replayed: bool) -> Result<HttpResponse, TransportError> {
        let mut headers = vec![];
        if replayed {
            headers.push(("idempotent-replayed".to_string(), "true".to_string()));
        }
        Ok(HttpResponse { status: 200, headers, body: br#"{"id":"pi_1","amount":5,"currency":"jpy","status":"succeeded"}"#.to_vec() })
    }
    fn status(s: u16, ra: Option<&str>) -> Result<HttpResponse, TransportError> {
        let headers = ra.map(|v| vec![("retry-after".to_string(), v.to_string())]).unwrap_or_default();
        Ok(HttpResponse { status: s, headers, body: b"{}".to_vec() })
    }

    async fn run(
        answers: Vec<Result<HttpResponse, TransportError>>,
        policy: RetryPolicy,
    ) -> (PhaseResult<PaymentIntent>, Vec<AttemptRecord>, Vec<HttpRequest>, Vec<Notification>, i64) {
        let script = Arc::new(Script { answers: Mutex::new(answers.into()), seen: Mutex::new(vec![]) });
        let client = PspClient::new(script.clone(), Duration::from_secs(1));
        let clock: SharedClock = Arc::new(VirtualClock::new(0));
        let rng: SharedRandom = Arc::new(SeededRandom::new(1));
        let notifier = Notifier::default();
        let mut rx = notifier.subscribe();
        let subject = Subject::Checkout("k1".into());
        let form = vec![("amount".to_string(), "5".to_string())];
        let phase = Phase { client: &client, policy: &policy, clock: &clock, rng: &rng, notifier: &notifier, subject: &subject, first_attempt_no: 1 };
        let c = client.clone();
        let (res, recs) = run_phase::<PaymentIntent>(phase, move || c.create_intent_request_from_form(form.clone(), "k1")).await;
        let mut notes = vec![];
        while let Ok(n) = rx.try_recv() {
            notes.push(n);
        }
        let seen = script.seen.lock().clone();
        (res, recs, seen, notes, clock.now_ms())
    }

    #[tokio::test]
    async fn same_key_same_body_until_success_with_replay() {
        let (res, recs, seen, notes, _) = run(
            vec![Err(TransportError::Timeout), Err(TransportError::Reset("eof".into())), ok(true)],
            RetryPolicy::interactive(),
        )
        .await;
        assert!(matches!(res, PhaseResult::Final(AttemptOutcome::Ok { replayed: true, .. })));
        assert_eq!(seen.len(), 3);
        for r in &seen {
            assert_eq!(r.idempotency_key.as_deref(), Some("k1"));
            assert_eq!(r.encoded_body(), seen[0].encoded_body());
        }
        assert_eq!(recs.iter().map(|r| r.outcome.label()).collect::<Vec<_>>(), ["timeout", "connection_lost", "replayed"]);
        assert!(recs[0].backoff_ms.is_some() && recs[2].backoff_ms.is_none());
        assert!(notes.iter().any(|n| matches!(n, Notification::Replayed { attempt: 3, .. })));
        assert_eq!(notes.iter().filter(|n| matches!(n, Notification::BackingOff { .. })).count(), 2);
    }

    #[tokio::test]
    async fn honours_retry_after_and_stops_on_non_retryable() {
        let (res, recs, _, _, elapsed) =
            run(vec![status(409, Some("2")), status(429, None), status(503, None), status(402, None)], RetryPolicy::interactive())
                .await;
        assert!(matches!(res, PhaseResult::Final(AttemptOutcome::Declined { .. })));
        assert_eq!(recs.len(), 4);
        assert!(recs[0].backoff_ms.unwrap() >= 2000, "Retry-After honoured: {:?}", recs[0]);
        assert!(elapsed >= 2000);
        for s in [400u16, 401, 500] {
            let (res, recs, ..) = run(vec![status(s, None), ok(false)], RetryPolicy::interactive()).await;
            assert!(matches!(res, PhaseResult::Final(AttemptOutcome::Fatal(_) | AttemptOutcome::Unknown { .. })), "{s}");
            assert_eq!(recs.len(), 1, "{s} must not be retried");
        }
    }

    #[tokio::test]
    async fn bounded_phase_and_backoff_grows_with_jitter() {
        let p = RetryPolicy { max_attempts: 5, ..RetryPolicy::interactive() };
        let (res, recs, seen, ..) = run(vec![], p.clone()).await; // all timeouts
        assert!(matches!(res, PhaseResult::Exhausted { never_sent: false, unreachable: false, .. }));
        assert_eq!(seen.len(), 5);
        let delays: Vec<u64> = recs.iter().filter_map(|r| r.backoff_ms).collect();
        assert_eq!(delays.len(), 4);
        for (i, d) in delays.iter().enumerate() {
            let base = (p.min_delay.as_millis() as u64) << i;
            let base = base.min(p.max_delay.as_millis() as u64);
            assert!(*d >= base && *d <= base * 2, "delay {i} = {d}, base {base}");
        }
        // budget: the phase ends when the next wait would pass the budget
        let p = RetryPolicy { max_attempts: 100, phase_budget: Duration::from_secs(2), ..RetryPolicy::interactive() };
        let (_, recs, ..) = run(vec![], p).await;
        let waited: u64 = recs.iter().filter_map(|r| r.backoff_ms).sum();
        assert!(waited <= 2000 && recs.len() < 10, "{recs:?}");
        // a Retry-After beyond the interactive limit ends the phase at once
        let (res, recs, ..) = run(vec![status(503, Some("3600"))], RetryPolicy::interactive()).await;
        assert!(matches!(res, PhaseResult::Exhausted { .. }));
        assert_eq!(recs.len(), 1);
    }

    #[tokio::test]
    async fn refused_everywhere_is_never_sent() {
        let refused = || Err(TransportError::ConnectRefused("x".into()));
        let p = RetryPolicy { max_attempts: 3, ..RetryPolicy::interactive() };
        let (res, recs, ..) = run(vec![refused(), refused(), refused(), ok(false)], RetryPolicy::interactive()).await;
        assert!(matches!(res, PhaseResult::Exhausted { never_sent: true, unreachable: true, .. }));
        assert_eq!(recs.len(), 3, "unreachable: the phase ends after max_unreachable attempts");
        let (res, ..) = run(vec![refused(), Err(TransportError::Timeout), refused()], p).await;
        assert!(matches!(res, PhaseResult::Exhausted { never_sent: false, .. }));
    }
}
