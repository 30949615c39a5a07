//! Injected time. Production uses the system clock and tokio timers; the
//! deterministic simulation supplies a virtual clock whose `sleep` advances
//! virtual time, so the same engine code runs in both.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A boxed, sendable future (no `async-trait` needed).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Wall-clock time in Unix milliseconds plus a sleeping primitive.
pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
    /// Completes after `d` of this clock's time.
    fn sleep(&self, d: Duration) -> BoxFuture<'static, ()>;
}

/// The real clock: `SystemTime` and `tokio::time::sleep`, optionally offset
/// (tests move the register's notion of "now" in step with the PSP's test clock).
#[derive(Debug, Default)]
pub struct SystemClock {
    offset_ms: AtomicI64,
}

impl SystemClock {
    pub fn new() -> Self {
        Self::default()
    }
    /// A system clock shifted by `offset_ms` (may be negative).
    pub fn with_offset_ms(offset_ms: i64) -> Self {
        Self { offset_ms: AtomicI64::new(offset_ms) }
    }
    pub fn advance(&self, d: Duration) {
        self.offset_ms.fetch_add(d.as_millis() as i64, Ordering::SeqCst);
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        let real = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        real + self.offset_ms.load(Ordering::SeqCst)
    }
    fn sleep(&self, d: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(d))
    }
}

pub type SharedClock = Arc<dyn Clock>;

/// Virtual time for deterministic runs: `sleep(d)` advances the clock by `d`
/// at once (and yields), so backoff schedules run instantly and reproducibly.
#[derive(Debug)]
pub struct VirtualClock {
    now: Arc<AtomicI64>,
}

impl VirtualClock {
    pub fn new(start_ms: i64) -> Self {
        Self { now: Arc::new(AtomicI64::new(start_ms)) }
    }
    pub fn advance(&self, d: Duration) {
        self.now.fetch_add(d.as_millis() as i64, Ordering::SeqCst);
    }
}

impl Clock for VirtualClock {
    fn now_ms(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }
    fn sleep(&self, d: Duration) -> BoxFuture<'static, ()> {
        let now = self.now.clone();
        Box::pin(async move {
            now.fetch_add(d.as_millis() as i64, Ordering::SeqCst);
            tokio::task::yield_now().await;
        })
    }
}
