//! Wrong-PIN lockout (record 0063). After `max_failures` wrong PINs in a row a staff
//! member is locked for `lock_ms`; each further lock before a right PIN lasts twice the
//! one before (at most [`MAX_GROWTH`] doublings, never past [`LOCK_MS_RANGE`]'s end), so
//! guessing a 4-digit PIN takes years, not days. A right PIN resets the count. The state
//! is three numbers the ledger keeps (per staff member for sign-ins and PIN changes, per
//! staff member on this register for approval PINs) and updates in the same transaction
//! as the check's audit row, so a restart does not forgive the failures.
//!
//! The ledger's lock ends at a wall-clock time; moving the clock forward must not end it
//! early, so the app also keeps each lock it saw on a monotonic clock ([`MonotonicLocks`]).

use serde::{Deserialize, Serialize};

/// Limits, from the store's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockoutPolicy {
    pub max_failures: u32,
    pub lock_ms: i64,
}

impl Default for LockoutPolicy {
    fn default() -> Self {
        LockoutPolicy { max_failures: 5, lock_ms: 5 * 60 * 1000 }
    }
}

/// Settings outside these bounds are refused: a lock of zero would disable the guard,
/// one of days would lock a store out of its own register.
pub const MAX_FAILURES_RANGE: std::ops::RangeInclusive<u32> = 3..=20;
pub const LOCK_MS_RANGE: std::ops::RangeInclusive<i64> = 30_000..=24 * 60 * 60 * 1000;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("max wrong PINs must be between {min} and {max}, not {0}", min = MAX_FAILURES_RANGE.start(), max = MAX_FAILURES_RANGE.end())]
    MaxFailures(u32),
    #[error("the lock must last between {min} s and {max} s, not {0} ms", min = LOCK_MS_RANGE.start() / 1000, max = LOCK_MS_RANGE.end() / 1000)]
    LockMs(i64),
}

impl LockoutPolicy {
    pub fn new(max_failures: u32, lock_ms: i64) -> Result<LockoutPolicy, PolicyError> {
        if !MAX_FAILURES_RANGE.contains(&max_failures) {
            return Err(PolicyError::MaxFailures(max_failures));
        }
        if !LOCK_MS_RANGE.contains(&lock_ms) {
            return Err(PolicyError::LockMs(lock_ms));
        }
        Ok(LockoutPolicy { max_failures, lock_ms })
    }
}

/// Locked until `until_ms`: say so, with the time, and do not check the PIN at all
/// (so a locked account gives a thief no answers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("locked after too many wrong PINs until {until_ms} (epoch ms)")]
pub struct Locked {
    pub until_ms: i64,
}

/// Doublings of the lock at most: the 7th lock in a row lasts 64 × `lock_ms`.
pub const MAX_GROWTH: u32 = 6;

/// Per staff member: wrong PINs since the last right one, the lock if any, and how many
/// locks came one after another since the last right PIN (each lasts twice the last).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinAttempts {
    pub failures: u32,
    pub locked_until_ms: Option<i64>,
    pub locks: u32,
}

impl LockoutPolicy {
    /// How long the lock after `earlier_locks` locks in a row lasts.
    pub fn lock_ms_after(&self, earlier_locks: u32) -> i64 {
        let grown = self.lock_ms.saturating_mul(1_i64 << earlier_locks.min(MAX_GROWTH));
        grown.min(*LOCK_MS_RANGE.end()).max(self.lock_ms)
    }
}

impl PinAttempts {
    /// Before checking a PIN: refuse while locked.
    pub fn check(&self, now_ms: i64) -> Result<(), Locked> {
        match self.locked_until_ms {
            Some(until_ms) if now_ms < until_ms => Err(Locked { until_ms }),
            Some(_) | None => Ok(()),
        }
    }

    /// After a wrong PIN. The count restarts once a lock has passed, so each lock
    /// follows a fresh run of `max_failures` wrong PINs.
    pub fn after_failure(self, policy: LockoutPolicy, now_ms: i64) -> PinAttempts {
        let failures = match self.locked_until_ms {
            Some(until) if now_ms >= until => 1,
            Some(_) | None => self.failures.saturating_add(1),
        };
        if failures >= policy.max_failures {
            let until = now_ms.saturating_add(policy.lock_ms_after(self.locks));
            PinAttempts { failures: 0, locked_until_ms: Some(until), locks: self.locks.saturating_add(1) }
        } else {
            PinAttempts { failures, locked_until_ms: None, locks: self.locks }
        }
    }

    /// After a right PIN.
    pub fn after_success(self) -> PinAttempts {
        PinAttempts::default()
    }
}

/// Locks as a monotonic clock sees them (record 0063): the ledger's `locked_until_ms` is
/// wall-clock time, which whoever can set the clock could move past; a lock seen here
/// lasts its full length on a clock nobody sets. Held in memory by the app (a restart
/// keeps the ledger's wall-clock lock, which only the clock's owner can move).
///
/// The monotonic time is passed in (`mono`: time since any fixed start, e.g. an
/// `Instant` taken at start-up), so the rule is tested without waiting.
#[derive(Debug, Default)]
pub struct MonotonicLocks {
    until: std::collections::HashMap<String, std::time::Duration>,
}

/// The most locks remembered (names are bounded by the staff table; this bounds a flood).
const MAX_MONOTONIC_LOCKS: usize = 1_000;

impl MonotonicLocks {
    /// A lock the ledger answered for `who`, `remaining_ms` long from now.
    pub fn note(&mut self, who: &str, remaining_ms: i64, mono: std::time::Duration) {
        let until = mono + std::time::Duration::from_millis(remaining_ms.max(0) as u64);
        if self.until.len() >= MAX_MONOTONIC_LOCKS {
            self.until.retain(|_, t| *t > mono);
        }
        if self.until.len() < MAX_MONOTONIC_LOCKS {
            let e = self.until.entry(who.to_string()).or_default();
            *e = (*e).max(until);
        }
    }

    /// The lock still on for `who` by the monotonic clock, in ms, if any.
    pub fn remaining_ms(&self, who: &str, mono: std::time::Duration) -> Option<i64> {
        let until = *self.until.get(who)?;
        (until > mono).then(|| (until - mono).as_millis().min(i64::MAX as u128) as i64)
    }

    /// A right PIN for `who`: nothing of theirs is locked any more.
    pub fn forget(&mut self, who: &str) {
        self.until.remove(who);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_wrong_pins_lock_for_five_minutes_then_the_count_restarts() {
        let p = LockoutPolicy::default();
        let mut a = PinAttempts::default();
        for i in 0..4 {
            a = a.after_failure(p, 1_000 + i);
            assert_eq!(a.check(1_000 + i), Ok(()), "after {} wrong", i + 1);
        }
        a = a.after_failure(p, 2_000);
        assert_eq!(a.check(2_000), Err(Locked { until_ms: 302_000 }));
        assert_eq!(a.check(301_999), Err(Locked { until_ms: 302_000 }));
        assert_eq!(a.check(302_000), Ok(()));
        // One wrong PIN after the lock is one, not six.
        a = a.after_failure(p, 302_001);
        assert_eq!(a, PinAttempts { failures: 1, locked_until_ms: None, locks: 1 });
    }

    #[test]
    fn a_right_pin_forgives_earlier_wrong_ones() {
        let p = LockoutPolicy::default();
        let mut a = PinAttempts::default();
        for i in 0..4 {
            a = a.after_failure(p, i);
        }
        a = a.after_success();
        for i in 0..4 {
            a = a.after_failure(p, 10 + i);
        }
        assert_eq!(a.check(20), Ok(()));
    }

    #[test]
    fn each_lock_in_a_row_lasts_twice_the_last_up_to_a_bound_and_a_right_pin_starts_over() {
        let p = LockoutPolicy::default();
        let mut a = PinAttempts::default();
        let mut now = 0;
        let mut lengths = vec![];
        for _ in 0..9 {
            for _ in 0..p.max_failures {
                a = a.after_failure(p, now);
            }
            let until = a.locked_until_ms.expect("locked");
            lengths.push((until - now) / 60_000);
            now = until;
        }
        assert_eq!(lengths, [5, 10, 20, 40, 80, 160, 320, 320, 320], "minutes");
        // the bound is also the policy range's end
        let long = LockoutPolicy::new(3, 6 * 60 * 60 * 1000).unwrap();
        assert_eq!(long.lock_ms_after(MAX_GROWTH), *LOCK_MS_RANGE.end());
        a = a.after_success();
        for _ in 0..p.max_failures {
            a = a.after_failure(p, now);
        }
        assert_eq!(a.locked_until_ms, Some(now + 5 * 60_000));
    }

    #[test]
    fn a_lock_lasts_its_length_on_the_monotonic_clock_whatever_the_wall_clock_says() {
        use std::time::Duration;
        let mut m = MonotonicLocks::default();
        let start = Duration::from_secs(100);
        m.note("Olivia", 300_000, start);
        // the wall clock moved on by an hour: the monotonic one by a minute
        assert_eq!(m.remaining_ms("Olivia", start + Duration::from_secs(60)), Some(240_000));
        assert_eq!(m.remaining_ms("Casey", start), None);
        assert_eq!(m.remaining_ms("Olivia", start + Duration::from_secs(300)), None);
        // a shorter answer later does not shorten it
        m.note("Olivia", 300_000, start);
        m.note("Olivia", 1_000, start);
        assert_eq!(m.remaining_ms("Olivia", start), Some(300_000));
        m.forget("Olivia");
        assert_eq!(m.remaining_ms("Olivia", start), None);
    }

    #[test]
    fn policy_limits_are_enforced() {
        assert_eq!(LockoutPolicy::new(0, 300_000), Err(PolicyError::MaxFailures(0)));
        assert_eq!(LockoutPolicy::new(5, 0), Err(PolicyError::LockMs(0)));
        assert_eq!(LockoutPolicy::new(3, 30_000), Ok(LockoutPolicy { max_failures: 3, lock_ms: 30_000 }));
    }
}
