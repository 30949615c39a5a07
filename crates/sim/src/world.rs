//! The simulated world: one virtual clock shared by the register and the mock PSP,
//! an in-process transport that calls [`MockPsp::handle`] directly, and the
//! bookkeeping of slow PSP executions that are still "running" in virtual time.
//!
//! Determinism: nothing here waits on the wall clock, and there is no other thread:
//! the PSP runs its writes inline on this thread
//! (`inline_writes_for_single_threaded_simulation`), and every PSP request is driven
//! to completion (or to its virtual sleep) before the simulation makes its next
//! decision, so the order of PSP writes — and with it every id, every fault draw and
//! every answer — is a pure function of the seed.

use mock_psp::{MockPsp, Outcome, PspRequest};
use paydesk_register::clock::BoxFuture;
use paydesk_register::transport::{HttpRequest, HttpResponse, Method, Transport, TransportError};
use paydesk_register::CrashPoint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

pub type PspFuture = Pin<Box<dyn Future<Output = Outcome> + Send>>;

/// The payload of the panic that models a register crash at a named point.
#[derive(Debug, Clone, Copy)]
pub struct SimCrash(pub CrashPoint);

/// A PSP execution asleep in virtual time (the "slow" fault): it holds its
/// idempotency claim and finishes once the clock passes `deadline`.
struct Parked {
    deadline: i64,
    seq: u64,
    fut: PspFuture,
}

/// Virtual time, shared by both clocks. Also owns the parked PSP executions, which
/// are resumed (one at a time, in deadline order) whenever time moves past them.
pub struct TimeCore {
    now: AtomicI64,
    /// The register's clock minus the PSP's (bounded skew; the dedup margin covers it).
    skew: AtomicI64,
    /// Set by a PSP sleep that could not complete yet: its deadline.
    pending_sleep: Mutex<Option<i64>>,
    parked: Mutex<Vec<Parked>>,
    seq: AtomicU64,
    /// Parked executions that finished after their client had given up.
    pub late_completions: AtomicU64,
}

impl TimeCore {
    pub fn new(start_ms: i64) -> Arc<Self> {
        Arc::new(TimeCore {
            now: AtomicI64::new(start_ms),
            skew: AtomicI64::new(0),
            pending_sleep: Mutex::new(None),
            parked: Mutex::new(Vec::new()),
            seq: AtomicU64::new(0),
            late_completions: AtomicU64::new(0),
        })
    }
    pub fn now(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
    pub fn set_skew(&self, ms: i64) {
        self.skew.store(ms, Ordering::SeqCst);
    }
    pub fn skew(&self) -> i64 {
        self.skew.load(Ordering::SeqCst)
    }
    /// Moves time forward and lets every parked execution that is due finish.
    pub fn advance(&self, d_ms: i64) {
        if d_ms > 0 {
            self.now.fetch_add(d_ms, Ordering::SeqCst);
        }
        self.release_due();
    }
    fn park(&self, deadline: i64, fut: PspFuture) {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst);
        self.parked.lock().unwrap().push(Parked { deadline, seq, fut });
    }
    pub fn parked_count(&self) -> usize {
        self.parked.lock().unwrap().len()
    }
    /// The PSP process died: every execution in progress is gone (its claim stays
    /// locked until the lock expires; a retry then re-drives it).
    pub fn kill_parked(&self) -> usize {
        let v = std::mem::take(&mut *self.parked.lock().unwrap());
        v.len()
    }
    fn release_due(&self) {
        loop {
            let now = self.now();
            let next = {
                let mut p = self.parked.lock().unwrap();
                let idx = p
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.deadline <= now)
                    .min_by_key(|(_, x)| (x.deadline, x.seq))
                    .map(|(i, _)| i);
                idx.map(|i| p.swap_remove(i))
            };
            let Some(mut item) = next else { break };
            match drive_psp(&mut item.fut, self) {
                Ok(_) => {
                    self.late_completions.fetch_add(1, Ordering::SeqCst);
                }
                Err(deadline) => self.park(deadline.max(now + 1), item.fut),
            }
        }
    }
}

/// The PSP's clock: virtual time; `sleep` completes once time has passed its deadline
/// (it never registers a waker: the driver resumes it explicitly).
pub struct PspClock(pub Arc<TimeCore>);

struct SleepUntil {
    core: Arc<TimeCore>,
    deadline: i64,
}

impl Future for SleepUntil {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.core.now() >= self.deadline {
            Poll::Ready(())
        } else {
            *self.core.pending_sleep.lock().unwrap() = Some(self.deadline);
            Poll::Pending
        }
    }
}

impl mock_psp::Clock for PspClock {
    fn now_ms(&self) -> i64 {
        self.0.now()
    }
    fn sleep(&self, d: Duration) -> mock_psp::clock::BoxFuture {
        Box::pin(SleepUntil { core: self.0.clone(), deadline: self.0.now() + d.as_millis() as i64 })
    }
    fn advance(&self, d: Duration) -> bool {
        self.0.advance(d.as_millis() as i64);
        true
    }
}

/// The register's clock: virtual time plus skew; `sleep` (backoff) moves time.
pub struct RegisterClock(pub Arc<TimeCore>);

impl paydesk_register::Clock for RegisterClock {
    fn now_ms(&self) -> i64 {
        self.0.now() + self.0.skew()
    }
    fn sleep(&self, d: Duration) -> BoxFuture<'static, ()> {
        let core = self.0.clone();
        let ms = d.as_millis() as i64;
        Box::pin(async move {
            core.advance(ms);
            YieldOnce(false).await;
        })
    }
}

/// Returns `Pending` once (waking itself at once): a point where a concurrent
/// future of the same run (a double submit) gets its turn, in a fixed order.
pub struct YieldOnce(pub bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

// ------------------------------------------------------------------ driving futures

/// A waker for one executor loop: sets its own flag, then unparks the thread. The
/// flag (not the thread's single park token, which nested loops share) says whether
/// this loop was woken, so a wake-up meant for the outer loop is never lost to an
/// inner one.
struct FlagWaker {
    woken: AtomicBool,
    thread: std::thread::Thread,
}
impl Wake for FlagWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.thread.unpark();
    }
}

fn flag_waker() -> (Arc<FlagWaker>, Waker) {
    let f = Arc::new(FlagWaker { woken: AtomicBool::new(false), thread: std::thread::current() });
    (f.clone(), Waker::from(f))
}

/// A PSP future waits only for the writer thread (a real wake-up) or for virtual
/// time (a parked sleep, reported through `pending_sleep`). A future that waits for
/// neither this long is stuck: a bug, reported loudly rather than hanging.
const STALL: Duration = Duration::from_secs(60);

/// Polls a PSP request until it answers (`Ok`) or sleeps in virtual time
/// (`Err(deadline)`).
pub fn drive_psp(fut: &mut PspFuture, core: &TimeCore) -> Result<Outcome, i64> {
    *core.pending_sleep.lock().unwrap() = None;
    let (flag, waker) = flag_waker();
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(o) => return Ok(o),
            Poll::Pending => {
                if let Some(d) = core.pending_sleep.lock().unwrap().take() {
                    return Err(d);
                }
                wait_for(&flag);
            }
        }
    }
}

fn wait_for(flag: &FlagWaker) {
    let t = std::time::Instant::now();
    while !flag.woken.swap(false, Ordering::SeqCst) {
        std::thread::park_timeout(STALL);
        if t.elapsed() >= STALL {
            panic!("simulation stalled: a future waited {STALL:?} for a wake-up that never came");
        }
    }
}

/// Runs a future to completion on this thread (the simulation's executor: no
/// runtime, no timers, no other tasks).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let (flag, waker) = flag_waker();
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        wait_for(&flag);
    }
}

/// Polls two futures in a fixed order (A, then B) until both finish: a concurrent
/// double submit whose interleaving depends on nothing but the seed.
pub async fn join2<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = Box::pin(a);
    let mut b = Box::pin(b);
    let mut ra = None;
    let mut rb = None;
    std::future::poll_fn(move |cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            Poll::Ready((ra.take().unwrap(), rb.take().unwrap()))
        } else {
            Poll::Pending
        }
    })
    .await
}

/// Catches the panic of a simulated crash (and only that kind) raised while polling.
pub struct CatchCrash<F>(pub Pin<Box<F>>);

impl<F: Future> Future for CatchCrash<F> {
    type Output = Result<F::Output, SimCrash>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || inner.poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => match payload.downcast::<SimCrash>() {
                Ok(c) => Poll::Ready(Err(*c)),
                Err(other) => std::panic::resume_unwind(other),
            },
        }
    }
}

/// Silences the default panic message for simulated crashes (they are expected);
/// every other panic is reported as usual.
pub fn install_quiet_crash_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<SimCrash>().is_none() {
                prev(info);
            }
        }));
    });
}

// ------------------------------------------------------------------ the wire

/// Counters of what went over the simulated wire.
#[derive(Debug, Default, Clone)]
pub struct WireStats {
    pub requests: u64,
    pub posts: u64,
    /// A request carrying an idempotency key already sent before.
    pub retries: u64,
    /// Answers with `Idempotent-Replayed: true`.
    pub replays: u64,
    /// 409 `idempotency_key_in_use`.
    pub conflicts: u64,
    /// Fault kinds as the register experienced them.
    pub faults: BTreeMap<&'static str, u64>,
    pub status: BTreeMap<u16, u64>,
}

impl WireStats {
    fn fault(&mut self, k: &'static str) {
        *self.faults.entry(k).or_default() += 1;
    }
}

/// Test-only defects the audit must catch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlantedBug {
    /// The client retries a payment-intent POST with a fresh idempotency key (same
    /// parameters): the classic double charge.
    FreshKeyOnRetry,
}

/// Where the simulation injects "execution began, then failed" (a stored 500 that
/// every retry of the key replays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stored500 {
    /// On every POST (payment intents, captures, cancels, refunds).
    Everywhere,
    /// Only on payment-intent creates.
    CreatesOnly,
}

pub struct Wire {
    pub core: Arc<TimeCore>,
    pub psp: MockPsp,
    secret: String,
    rng: Mutex<ChaCha8Rng>,
    pub stats: Mutex<WireStats>,
    seen: Mutex<HashMap<String, u32>>,
    /// Register crash armed for the next time this point is reached.
    pub armed_crash: Mutex<Option<CrashPoint>>,
    pub crashes: Mutex<BTreeMap<&'static str, u64>>,
    /// The next POST kills the PSP mid-execution (after its claim, before executing).
    pub psp_crash_next_post: AtomicBool,
    pub psp_crashes: AtomicU64,
    pub bug: Mutex<Option<PlantedBug>>,
    /// Probability of a stored 500 per POST, and where.
    pub stored_500: Mutex<(f64, Stored500)>,
    /// Sales left in a misconfiguration period: every request carries a secret key
    /// the PSP does not know (a store owner typed the wrong key), answered 401.
    pub wrong_key_sales: AtomicU64,
    /// The register's ledger stops accepting writes right after the next key commit
    /// (the disk filled): the engine to make read-only, taken by the crash hook.
    pub fill_disk_after_key: Mutex<Option<paydesk_register::Engine>>,
    /// The next payment-intent create executes, its answer is lost, and the cable is
    /// pulled right after: later attempts are refused (an attempt may have reached
    /// the PSP, then the register cannot reach it).
    pub cable_pull_after_next_create: AtomicBool,
}

impl Wire {
    pub fn new(core: Arc<TimeCore>, psp: MockPsp, secret: &str, seed: u64) -> Arc<Wire> {
        Arc::new(Wire {
            core,
            psp,
            secret: secret.to_string(),
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(seed ^ 0x7769_7265)),
            stats: Mutex::new(WireStats::default()),
            seen: Mutex::new(HashMap::new()),
            armed_crash: Mutex::new(None),
            crashes: Mutex::new(BTreeMap::new()),
            psp_crash_next_post: AtomicBool::new(false),
            psp_crashes: AtomicU64::new(0),
            bug: Mutex::new(None),
            stored_500: Mutex::new((0.0, Stored500::Everywhere)),
            wrong_key_sales: AtomicU64::new(0),
            fill_disk_after_key: Mutex::new(None),
            cable_pull_after_next_create: AtomicBool::new(false),
        })
    }

    /// The register's crash hook: panics (a simulated crash) at the armed point.
    pub fn crash_hook(self: &Arc<Self>) -> paydesk_register::CrashHook {
        let w = Arc::downgrade(self);
        Arc::new(move |p: CrashPoint| {
            if let Some(w) = w.upgrade() {
                w.maybe_crash(p);
            }
        })
    }

    pub fn maybe_crash(&self, p: CrashPoint) {
        if p == CrashPoint::AfterKeyCommit {
            let engine = self.fill_disk_after_key.lock().unwrap().take();
            if let Some(e) = engine {
                // Every later write of this connection fails, as on a full disk; reads
                // still work. The simulation lifts it once the operation is over.
                e.with_ledger(|l| l.connection().pragma_update(None, "query_only", true)).expect("query_only");
            }
        }
        let fire = {
            let mut a = self.armed_crash.lock().unwrap();
            if *a == Some(p) {
                *a = None;
                true
            } else {
                false
            }
        };
        if fire {
            *self.crashes.lock().unwrap().entry(p.name()).or_default() += 1;
            std::panic::panic_any(SimCrash(p));
        }
    }

    fn latency(&self) -> i64 {
        self.rng.lock().unwrap().random_range(5..80)
    }

    fn to_psp(&self, req: &HttpRequest, key: Option<&str>) -> PspRequest {
        let (path, query) = req.path.split_once('?').unwrap_or((req.path.as_str(), ""));
        let secret = if self.wrong_key_sales.load(Ordering::SeqCst) > 0 { "sk_test_not_this_account" } else { self.secret.as_str() };
        let mut headers = vec![("authorization".to_string(), format!("Bearer {secret}"))];
        let method = match req.method {
            Method::Get => "GET",
            Method::Post => {
                headers.push(("content-type".into(), "application/x-www-form-urlencoded".into()));
                "POST"
            }
        };
        if let Some(k) = key {
            headers.push(("idempotency-key".into(), k.to_string()));
        }
        PspRequest {
            method: method.into(),
            path: path.into(),
            query: query.into(),
            headers,
            body: if req.method == Method::Post { bytes::Bytes::from(req.encoded_body()) } else { bytes::Bytes::new() },
        }
    }

    /// One HTTP exchange in virtual time.
    pub fn exchange(&self, req: HttpRequest) -> Result<HttpResponse, TransportError> {
        let timeout_ms = req.timeout.as_millis() as i64;
        let is_post = req.method == Method::Post;
        let mut key = req.idempotency_key.clone();
        {
            let mut st = self.stats.lock().unwrap();
            st.requests += 1;
            if is_post {
                st.posts += 1;
            }
        }
        if let Some(k) = &req.idempotency_key {
            let n = {
                let mut seen = self.seen.lock().unwrap();
                let n = seen.entry(k.clone()).or_insert(0);
                *n += 1;
                *n
            };
            if n > 1 {
                self.stats.lock().unwrap().retries += 1;
                if *self.bug.lock().unwrap() == Some(PlantedBug::FreshKeyOnRetry) && req.path.starts_with("/v1/payment_intents") {
                    let mut b = [0u8; 16];
                    self.rng.lock().unwrap().fill(&mut b);
                    key = Some(uuid::Builder::from_random_bytes(b).into_uuid().to_string());
                }
            }
        }
        let crash_psp = is_post && self.psp_crash_next_post.swap(false, Ordering::SeqCst);
        let path = req.path.split('?').next().unwrap_or("").to_string();
        let mut scripted = false;
        let cable_pull = !crash_psp
            && is_post
            && path == "/v1/payment_intents"
            && !self.psp.is_offline()
            && self.cable_pull_after_next_create.swap(false, Ordering::SeqCst);
        if cable_pull {
            self.psp.script_fault(&path, mock_psp::Fault::DropResponse, 1, None);
            scripted = true;
        } else if crash_psp {
            // Make this request park right after its claim, then kill the PSP.
            self.psp.script_fault(&path, mock_psp::Fault::Slow, 1, Some(1_000));
            scripted = true;
        } else if is_post {
            let (p, where_) = *self.stored_500.lock().unwrap();
            let eligible = where_ == Stored500::Everywhere || path == "/v1/payment_intents";
            if p > 0.0 && eligible && self.rng.lock().unwrap().random_bool(p) {
                self.psp.script_fault(&path, mock_psp::Fault::InternalError, 1, None);
                scripted = true;
            }
        }
        let psp = self.psp.clone();
        let preq = self.to_psp(&req, key.as_deref());
        let mut fut: PspFuture = Box::pin(async move { psp.handle(preq).await });
        let lat = self.latency();
        let outcome = match drive_psp(&mut fut, &self.core) {
            Ok(o) => {
                self.core.advance(lat);
                o
            }
            Err(deadline) => {
                if crash_psp {
                    drop(fut);
                    let killed = self.core.kill_parked();
                    self.psp_crashes.fetch_add(1, Ordering::SeqCst);
                    let mut st = self.stats.lock().unwrap();
                    st.fault("psp_crash_mid_execution");
                    *st.faults.entry("psp_crash_killed_executions").or_default() += killed as u64 + 1;
                    drop(st);
                    self.core.advance(lat);
                    return Err(TransportError::Reset("PSP crashed mid-request".into()));
                }
                self.stats.lock().unwrap().fault("slow");
                let wait = deadline - self.core.now();
                if wait + lat < timeout_ms {
                    self.core.advance(wait);
                    match drive_psp(&mut fut, &self.core) {
                        Ok(o) => {
                            self.core.advance(lat);
                            o
                        }
                        Err(d2) => {
                            self.core.advance(timeout_ms - wait);
                            self.core.park(d2, fut);
                            self.stats.lock().unwrap().fault("timeout");
                            return Err(TransportError::Timeout);
                        }
                    }
                } else {
                    self.core.park(deadline, fut);
                    self.core.advance(timeout_ms);
                    self.stats.lock().unwrap().fault("timeout");
                    return Err(TransportError::Timeout);
                }
            }
        };
        let res = match outcome {
            Outcome::Respond(r) => {
                let mut st = self.stats.lock().unwrap();
                *st.status.entry(r.status).or_default() += 1;
                if r.header("idempotent-replayed") == Some("true") {
                    st.replays += 1;
                }
                match r.status {
                    409 => {
                        st.conflicts += 1;
                    }
                    429 => st.fault("transient_429"),
                    503 => st.fault("transient_503"),
                    500 => st.fault("internal_500"),
                    _ => {}
                }
                Ok(HttpResponse {
                    status: r.status,
                    headers: r.headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone())).collect(),
                    body: r.body.to_vec(),
                })
            }
            Outcome::DropRequest => {
                self.stats.lock().unwrap().fault("drop_request");
                self.core.advance((timeout_ms - lat).max(0));
                Err(TransportError::Timeout)
            }
            Outcome::DropResponse(_) => {
                self.stats.lock().unwrap().fault("drop_response");
                // Half the time the connection is reset, half the time it just hangs.
                if self.rng.lock().unwrap().random_bool(0.5) {
                    Err(TransportError::Reset("connection closed before the answer".into()))
                } else {
                    self.core.advance((timeout_ms - lat).max(0));
                    Err(TransportError::Timeout)
                }
            }
            Outcome::Offline => {
                if scripted {
                    // Refused before the fault was drawn: it must not hit a later request.
                    self.psp.clear_script();
                }
                self.stats.lock().unwrap().fault("offline_refused");
                Err(TransportError::ConnectRefused("PSP offline".into()))
            }
        };
        if cable_pull {
            self.psp.set_offline(true, Some(std::time::Duration::from_secs(15 * 60)));
            self.stats.lock().unwrap().fault("cable_pulled_after_a_create");
        }
        if is_post && !matches!(res, Err(TransportError::ConnectRefused(_))) {
            // The request reached the PSP: a crash here loses its answer.
            self.maybe_crash(CrashPoint::AfterSend);
        }
        res
    }
}

/// The in-process transport handed to the register engine.
pub struct SimTransport(pub Arc<Wire>);

impl Transport for SimTransport {
    fn send(&self, req: HttpRequest) -> BoxFuture<'static, Result<HttpResponse, TransportError>> {
        let w = self.0.clone();
        Box::pin(async move {
            // The request is on the wire: other futures of the run may move meanwhile.
            YieldOnce(false).await;
            w.exchange(req)
        })
    }
}
