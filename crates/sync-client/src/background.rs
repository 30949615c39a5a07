//! The sync loop on a thread of its own, at a lower CPU priority (record 0045, "beside
//! checkout, never in its path").
//!
//! Why a thread and not a task on the app's runtime: the loop's work is CPU and disk
//! (reading the outbox, serializing up to 500 rows, the ack's DELETE, applying catalog
//! pages), and on a register's two cores a round that runs while a sale is being made
//! would take CPU from the checkout's own tasks. On its own thread with a nice value of
//! [`SYNC_NICE`], the kernel gives the checkout's threads the CPU first whenever both
//! want it, and the loop still gets a share (nice 10 against 0 is roughly 1 to 10 under
//! Linux's scheduler), so it is never starved while it holds SQLite's write lock for
//! an ack — the one moment a checkout could wait on it. (SCHED_IDLE would risk exactly
//! that inversion, which is why it is not used.)
//!
//! Linux only: there `setpriority(PRIO_PROCESS, tid)` changes one thread. Elsewhere the
//! call would change the whole process, so the thread keeps the normal priority.
use crate::backoff::Backoff;
use crate::run::SyncLoop;
use std::sync::Arc;
use std::time::Duration;

/// The nice value of the sync thread (0 is normal, 19 the lowest priority).
pub const SYNC_NICE: i32 = 10;

/// Starts `sync.run(...)` on a thread named `paydesk-sync` with its own single-threaded
/// runtime, at [`SYNC_NICE`]. It returns when `stop` turns true (or its sender is gone).
pub fn spawn(
    sync: SyncLoop,
    interval: Duration,
    backoff: Backoff,
    stop: tokio::sync::watch::Receiver<bool>,
    poke: Arc<tokio::sync::Notify>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    spawn_low_priority("paydesk-sync", move || {
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => {
                tracing::error!("the sync loop's runtime did not start: {e}");
                return;
            }
        };
        rt.block_on(sync.run(interval, backoff, stop, poke));
    })
}

/// Runs `f` on a new named thread whose CPU priority is lowered to [`SYNC_NICE`] before
/// `f` starts (threads it creates inherit the value).
pub fn spawn_low_priority<F>(name: &str, f: F) -> std::io::Result<std::thread::JoinHandle<()>>
where
    F: FnOnce() + Send + 'static,
{
    std::thread::Builder::new().name(name.to_string()).spawn(move || {
        if let Err(e) = lower_this_thread() {
            // Not fatal: the loop still works, only without the priority.
            tracing::warn!("the sync thread keeps the normal CPU priority: {e}");
        }
        f()
    })
}

/// The calling thread's nice value (Linux; `None` elsewhere).
pub fn this_thread_nice() -> Option<i32> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid and getpriority take no pointers. getpriority may return -1 as
        // a value, so errno is cleared first and read after.
        unsafe {
            *libc::__errno_location() = 0;
            let n = libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t);
            if n == -1 && *libc::__errno_location() != 0 {
                return None;
            }
            Some(n)
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Lowers the calling thread to [`SYNC_NICE`]; never raises it (a register started with
/// `nice 15` keeps 15 for its sync thread).
fn lower_this_thread() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let now = this_thread_nice().ok_or_else(std::io::Error::last_os_error)?;
        if now >= SYNC_NICE {
            return Ok(());
        }
        // SAFETY: no pointers; the tid is this thread's own.
        let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, SYNC_NICE) };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn the_thread_runs_at_the_lower_priority_and_the_caller_keeps_its_own() {
        let before = this_thread_nice().expect("nice of the test thread");
        // A thread started from the low-priority one inherits its value (reqwest's
        // resolver threads, tokio's blocking pool).
        let inherited = spawn_low_priority("nice-test", || {
            let n = this_thread_nice();
            let child = std::thread::spawn(this_thread_nice).join().unwrap();
            assert_eq!(child, n, "a thread started by the sync thread");
        })
        .unwrap()
        .join();
        assert!(inherited.is_ok());
        let (tx, rx) = std::sync::mpsc::channel();
        spawn_low_priority("nice-test-2", move || tx.send(this_thread_nice()).unwrap()).unwrap().join().unwrap();
        let got = rx.recv().unwrap().expect("nice of the sync thread");
        // Raising a nice value needs no privilege, so this holds as root or not; a test
        // process already at 10 or more stays where it is (the value only goes up).
        assert_eq!(got, SYNC_NICE.max(before), "sync thread nice");
        assert_eq!(this_thread_nice(), Some(before), "the caller's priority did not change");
    }
}
