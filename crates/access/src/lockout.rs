//! Wrong-PIN lockout (design §12.3). After `max_failures` wrong PINs in a row a staff
//! member is locked for `lock_ms`; a right PIN resets the count. The state is two
//! numbers the ledger keeps per staff member and updates in the same transaction as
//! the sign-in's audit row, so a restart does not forgive the failures.

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

/// Per staff member: wrong PINs since the last right one, and the lock if any.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinAttempts {
    pub failures: u32,
    pub locked_until_ms: Option<i64>,
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
            PinAttempts { failures: 0, locked_until_ms: Some(now_ms.saturating_add(policy.lock_ms)) }
        } else {
            PinAttempts { failures, locked_until_ms: None }
        }
    }

    /// After a right PIN.
    pub fn after_success(self) -> PinAttempts {
        PinAttempts::default()
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
        assert_eq!(a, PinAttempts { failures: 1, locked_until_ms: None });
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
    fn policy_limits_are_enforced() {
        assert_eq!(LockoutPolicy::new(0, 300_000), Err(PolicyError::MaxFailures(0)));
        assert_eq!(LockoutPolicy::new(5, 0), Err(PolicyError::LockMs(0)));
        assert_eq!(LockoutPolicy::new(3, 30_000), Ok(LockoutPolicy { max_failures: 3, lock_ms: 30_000 }));
    }
}
