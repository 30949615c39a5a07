//! Wrong-PIN locks on a monotonic clock as well (record 0063). The ledger keeps each
//! lock as a wall-clock time, which survives a restart but ends early if someone moves
//! the clock forward; every lock the ledger answers is also kept here, on a clock nobody
//! sets, and a PIN check is refused while either says locked.

use std::sync::Mutex;
use std::time::Instant;

use paydesk_access::MonotonicLocks;

use crate::error::{AppError, AppResult};
use crate::base::{lock, now_ms};

/// Which counter a PIN check counts on: a member's own (sign-in, PIN change) or the
/// approvals typed at their name on this register.
#[derive(Debug, Clone, Copy)]
pub enum Counter {
    Own,
    Approval,
}

pub struct Locks {
    start: Instant,
    seen: Mutex<MonotonicLocks>,
}

impl Default for Locks {
    fn default() -> Self {
        Locks { start: Instant::now(), seen: Mutex::new(MonotonicLocks::default()) }
    }
}

impl Locks {
    /// Runs `check` (a PIN check by the ledger) for `name` unless a lock seen earlier is
    /// still on by the monotonic clock; keeps a lock it answers, forgets one after a
    /// right PIN.
    pub fn guard<T>(&self, counter: Counter, name: &str, check: impl FnOnce() -> AppResult<T>) -> AppResult<T> {
        let key = match counter {
            Counter::Own => format!("own:{}", name.trim()),
            Counter::Approval => format!("approval:{}", name.trim()),
        };
        if let Some(ms) = lock(&self.seen).remaining_ms(&key, self.start.elapsed()) {
            return Err(AppError::StaffLocked { until_ms: now_ms().saturating_add(ms) });
        }
        let answer = check();
        match &answer {
            Err(AppError::StaffLocked { until_ms }) => {
                lock(&self.seen).note(&key, until_ms.saturating_sub(now_ms()), self.start.elapsed());
            }
            Ok(_) => lock(&self.seen).forget(&key),
            Err(_) => {}
        }
        answer
    }

    /// An owner reset `name`'s PIN (record 0127): the locks seen at their name, own and
    /// approval, are lifted here as the ledger lifted its own.
    pub fn forget(&self, name: &str) {
        let mut seen = lock(&self.seen);
        seen.forget(&format!("own:{}", name.trim()));
        seen.forget(&format!("approval:{}", name.trim()));
    }
}
