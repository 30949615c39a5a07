//! Injected time. The server never reads the wall clock directly: every timestamp
//! (Stripe `created`, key retention, lock expiry) and every fault delay goes through a
//! [`Clock`], so tests can move time and a simulation can run under virtual time.
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch, as this clock sees it.
    fn now_ms(&self) -> i64;
    /// A future that completes once `d` of this clock's time has passed.
    fn sleep(&self, d: Duration) -> BoxFuture;
    /// Move time forward (test clock). Returns false if this clock cannot be moved.
    fn advance(&self, _d: Duration) -> bool {
        false
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

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        let real = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        real + self.offset_ms.load(Ordering::SeqCst)
    }
    fn sleep(&self, d: Duration) -> BoxFuture {
        Box::pin(tokio::time::sleep(d))
    }
    fn advance(&self, d: Duration) -> bool {
        self.offset_ms.fetch_add(d.as_millis() as i64, Ordering::SeqCst);
        true
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
        let deadline = self.now_ms() + d.as_millis() as i64;
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
        self.inner.now_ms.fetch_add(d.as_millis() as i64, Ordering::SeqCst);
        self.inner.tick.notify_waiters();
        true
    }
}
