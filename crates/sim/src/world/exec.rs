//! The simulation's executor: one thread, no runtime, no timers. Futures are polled
//! until they finish or sleep in virtual time; two futures of a double submit are polled
//! in a fixed order; a simulated register crash is a panic caught here.

use super::time::TimeCore;
use super::PspFuture;
use mock_psp::Outcome;
use paydesk_register::CrashPoint;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

/// The payload of the panic that models a register crash at a named point.
#[derive(Debug, Clone, Copy)]
pub struct SimCrash(pub CrashPoint);

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
    *core.pending_sleep.lock() = None;
    let (flag, waker) = flag_waker();
    let mut cx = Context::from_waker(&waker);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(o) => return Ok(o),
            Poll::Pending => {
                if let Some(d) = core.pending_sleep.lock().take() {
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

