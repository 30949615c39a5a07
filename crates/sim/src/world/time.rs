//! Virtual time: one clock core shared by the PSP's clock and the register's (plus a
//! bounded skew), and the PSP executions parked in a virtual sleep until time passes
//! their deadline.

use super::exec::drive_psp;
use super::PspFuture;
use paydesk_register::clock::BoxFuture;
use parking_lot::Mutex;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// A PSP execution asleep in virtual time (the "slow" fault): it holds its
/// idempotency claim and finishes once the clock passes `deadline`.
struct Parked {
    deadline: i64,
    seq: u64,
    fut: PspFuture,
    /// A request's execution (counted in `late_completions` when it finishes), not a
    /// task the PSP started by itself (a reader's delayed presentation).
    request: bool,
}

/// Virtual time, shared by both clocks. Also owns the parked PSP executions, which
/// are resumed (one at a time, in deadline order) whenever time moves past them.
pub struct TimeCore {
    now: AtomicI64,
    /// The register's clock minus the PSP's (bounded skew; the dedup margin covers it).
    skew: AtomicI64,
    /// Set by a PSP sleep that could not complete yet: its deadline.
    pub(super) pending_sleep: Mutex<Option<i64>>,
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
    pub(super) fn park(&self, deadline: i64, fut: PspFuture) {
        self.park_as(deadline, fut, true);
    }
    /// A request whose client does not wait for it (a customer's slow tap).
    pub fn park_request(&self, deadline: i64, fut: PspFuture) {
        self.park_as(deadline, fut, true);
    }
    fn park_as(&self, deadline: i64, fut: PspFuture, request: bool) {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst);
        self.parked.lock().push(Parked { deadline, seq, fut, request });
    }
    /// A task the PSP runs by itself later (a card held by the presentation-delay fault,
    /// the auto-present switch): parked until the next time time moves, then run like a
    /// slow execution, in deadline order. Dies with the PSP like one (`kill_parked`).
    pub fn park_task(&self, task: mock_psp::clock::BoxFuture) {
        let fut: PspFuture = Box::pin(async move {
            task.await;
            // Nobody waits for this answer: the outcome is only a placeholder.
            mock_psp::Outcome::DropRequest
        });
        self.park_as(self.now(), fut, false);
    }
    pub fn parked_count(&self) -> usize {
        self.parked.lock().len()
    }
    /// The PSP process died: every execution in progress is gone (its claim stays
    /// locked until the lock expires; a retry then re-drives it).
    pub fn kill_parked(&self) -> usize {
        let v = std::mem::take(&mut *self.parked.lock());
        v.len()
    }
    fn release_due(&self) {
        loop {
            let now = self.now();
            let next = {
                let mut p = self.parked.lock();
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
                    if item.request {
                        self.late_completions.fetch_add(1, Ordering::SeqCst);
                    }
                }
                Err(deadline) => self.park_as(deadline.max(now + 1), item.fut, item.request),
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
            *self.core.pending_sleep.lock() = Some(self.deadline);
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
    /// No runtime and no other thread here: the task runs in virtual time.
    fn spawn(&self, task: mock_psp::clock::BoxFuture) {
        self.0.park_task(task);
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


#[cfg(test)]
mod tests {
    use super::*;
    use mock_psp::Clock;
    use std::sync::atomic::AtomicBool;

    /// A task the PSP starts by itself (a held card's later authorization) runs in virtual
    /// time: not before its sleep is over, and as soon as time moves past it.
    #[test]
    fn a_task_spawned_through_the_psp_clock_runs_when_virtual_time_passes_its_sleep() {
        let core = TimeCore::new(1_000);
        let clock = PspClock(core.clone());
        let done = Arc::new(AtomicBool::new(false));
        let (d, sleep) = (done.clone(), clock.sleep(Duration::from_millis(3_000)));
        clock.spawn(Box::pin(async move {
            sleep.await;
            d.store(true, Ordering::SeqCst);
        }));
        assert_eq!(core.parked_count(), 1);
        core.advance(2_999);
        assert!(!done.load(Ordering::SeqCst), "ran before its time");
        core.advance(1);
        assert!(done.load(Ordering::SeqCst), "did not run once its time came");
        assert_eq!(core.parked_count(), 0);
        assert_eq!(core.late_completions.load(Ordering::SeqCst), 0, "a task is not a late request");
    }
}
