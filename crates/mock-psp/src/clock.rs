//! Injected time. The server never reads the wall clock directly: every timestamp
//! (Stripe `created`, key retention, lock expiry) and every fault delay goes through a
//! [`Clock`], so tests can move time and a simulation can run under virtual time.
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// The latest time a clock may be moved to: 9999-12-31T23:59:59.999Z. Every sum of a
/// timestamp and a configured duration (retention, lock timeout, offline end) then
/// stays far inside `i64` milliseconds.
pub const MAX_CLOCK_MS: i64 = 253_402_300_799_999;

/// `d` in whole milliseconds, saturating at `i64::MAX` (a `Duration` can hold far more).
pub fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// `now + d`, or `None` when the result would pass [`MAX_CLOCK_MS`].
fn moved(now: i64, d: Duration) -> Option<i64> {
    now.checked_add(duration_ms(d)).filter(|t| *t <= MAX_CLOCK_MS)
}

pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch, as this clock sees it.
    fn now_ms(&self) -> i64;
    /// A future that completes once `d` of this clock's time has passed.
    fn sleep(&self, d: Duration) -> BoxFuture;
    /// Move time forward (test clock). Returns false if this clock cannot be moved, or
    /// not that far (past [`MAX_CLOCK_MS`]); time is then unchanged.
    fn advance(&self, _d: Duration) -> bool {
        false
    }
    /// Runs `task` on its own, later (a reader's delayed presentation, the auto-present
    /// switch). Default: a tokio task. A single-threaded simulation without a runtime
    /// overrides it to run the task in its own virtual time, so it stays deterministic.
    fn spawn(&self, task: BoxFuture) {
        tokio::spawn(task);
    }
}

/// Wall-clock time plus an adjustable offset: the default clock of the server.
/// `advance` moves the offset (the admin endpoint's "test clock"); sleeps are real.
#[derive(Default)]
pub struct SystemClock {
    offset_ms: AtomicI64,
}

impl SystemClock {
    pub fn new() -> Self {
        Self::default()
    }
}

fn wall_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(duration_ms).unwrap_or(0)
}

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        wall_ms().saturating_add(self.offset_ms.load(Ordering::SeqCst))
    }
    fn sleep(&self, d: Duration) -> BoxFuture {
        Box::pin(tokio::time::sleep(d))
    }
    fn advance(&self, d: Duration) -> bool {
        let real = wall_ms();
        self.offset_ms
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |off| {
                let now = real.saturating_add(off);
                moved(now, d).and_then(|t| off.checked_add(t - now))
            })
            .is_ok()
    }
}

/// Virtual time that moves only when told to (deterministic simulation). Sleeps
/// complete when `advance`/`set` moves time past their deadline. Cloning shares the time.
#[derive(Clone)]
pub struct ManualClock {
    inner: std::sync::Arc<ManualInner>,
}

struct ManualInner {
    now_ms: AtomicI64,
    tick: tokio::sync::Notify,
}

impl ManualClock {
    pub fn new(start_ms: i64) -> Self {
        Self {
            inner: std::sync::Arc::new(ManualInner {
                now_ms: AtomicI64::new(start_ms),
                tick: tokio::sync::Notify::new(),
            }),
        }
    }
    pub fn set(&self, ms: i64) {
        self.inner.now_ms.store(ms, Ordering::SeqCst);
        self.inner.tick.notify_waiters();
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.inner.now_ms.load(Ordering::SeqCst)
    }
    fn sleep(&self, d: Duration) -> BoxFuture {
        let deadline = self.now_ms().saturating_add(duration_ms(d));
        let inner = self.inner.clone();
        Box::pin(async move {
            loop {
                let notified = inner.tick.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if inner.now_ms.load(Ordering::SeqCst) >= deadline {
                    return;
                }
                notified.await;
            }
        })
    }
    fn advance(&self, d: Duration) -> bool {
        let ok = self.inner.now_ms.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| moved(now, d)).is_ok();
        if ok {
            self.inner.tick.notify_waiters();
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A move past year 9999 (or by more than an `i64` of milliseconds) is refused and
    /// leaves the time as it was; reading the time never overflows.
    #[test]
    fn advance_is_checked_and_now_saturates() {
        let s = SystemClock::new();
        let before = s.now_ms();
        assert!(!s.advance(Duration::MAX));
        assert!(!s.advance(Duration::from_millis(i64::MAX as u64)));
        assert!(s.now_ms() - before < 60_000);
        assert!(s.advance(Duration::from_secs(3600)));
        assert!(s.now_ms() >= before + 3_600_000);
        let m = ManualClock::new(MAX_CLOCK_MS - 10);
        assert!(!m.advance(Duration::from_millis(11)));
        assert!(m.advance(Duration::from_millis(10)));
        assert_eq!(m.now_ms(), MAX_CLOCK_MS);
        assert_eq!(duration_ms(Duration::MAX), i64::MAX);
    }
}
