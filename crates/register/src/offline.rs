//! Offline store-and-forward limits (record 0009), like Stripe Terminal's and
//! Square's: per payment, total stored, count, and age of the oldest stored one.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfflineLimits {
    /// Offline acceptance allowed at all.
    pub enabled: bool,
    /// Largest single offline payment, minor units.
    pub max_per_payment: i64,
    /// Largest total of all stored (not yet forwarded) payments, minor units.
    pub max_total: i64,
    /// Most stored payments.
    pub max_count: u32,
    /// Stored payments must be forwarded within this age; while the oldest one
    /// is older, no new offline payment is accepted.
    pub max_age: Duration,
}

impl Default for OfflineLimits {
    fn default() -> Self {
        Self {
            enabled: true,
            max_per_payment: 10_000,
            max_total: 50_000,
            max_count: 20,
            max_age: Duration::from_secs(24 * 3600),
        }
    }
}

/// Why an offline payment was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OfflineRefusal {
    Disabled,
    PerPayment { amount: i64, limit: i64 },
    Total { would_be: i64, limit: i64 },
    Count { count: u32, limit: u32 },
    Age { oldest_age_secs: u64, limit_secs: u64 },
}

impl std::fmt::Display for OfflineRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OfflineRefusal::Disabled => write!(f, "offline payments are disabled"),
            OfflineRefusal::PerPayment { amount, limit } => {
                write!(f, "offline limit per payment exceeded: {amount} > {limit}")
            }
            OfflineRefusal::Total { would_be, limit } => {
                write!(f, "offline total limit exceeded: stored total would be {would_be} > {limit}")
            }
            OfflineRefusal::Count { count, limit } => {
                write!(f, "offline count limit reached: {count} payments already stored (limit {limit})")
            }
            OfflineRefusal::Age { oldest_age_secs, limit_secs } => write!(
                f,
                "offline age limit: the oldest stored payment is {oldest_age_secs}s old (limit {limit_secs}s); forward it first"
            ),
        }
    }
}

impl OfflineLimits {
    /// May a payment of `amount` be stored, given what is stored now
    /// (`(amount, queued_at_ms)` of each stored payment)?
    pub fn check(&self, amount: i64, stored: &[(i64, i64)], now_ms: i64) -> Result<(), OfflineRefusal> {
        if !self.enabled {
            return Err(OfflineRefusal::Disabled);
        }
        if amount > self.max_per_payment {
            return Err(OfflineRefusal::PerPayment { amount, limit: self.max_per_payment });
        }
        if stored.len() as u64 >= self.max_count as u64 {
            return Err(OfflineRefusal::Count { count: stored.len() as u32, limit: self.max_count });
        }
        let total = stored.iter().map(|(a, _)| *a).fold(0i64, |acc, a| acc.saturating_add(a));
        let would_be = total.saturating_add(amount);
        if would_be > self.max_total {
            return Err(OfflineRefusal::Total { would_be, limit: self.max_total });
        }
        if let Some(oldest) = stored.iter().map(|(_, t)| *t).min() {
            let age = now_ms.saturating_sub(oldest).max(0) as u64 / 1000;
            if age > self.max_age.as_secs() {
                return Err(OfflineRefusal::Age { oldest_age_secs: age, limit_secs: self.max_age.as_secs() });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn limits() {
        let l = OfflineLimits { enabled: true, max_per_payment: 100, max_total: 250, max_count: 3, max_age: Duration::from_secs(60) };
        assert!(l.check(100, &[], 0).is_ok());
        assert!(matches!(l.check(101, &[], 0), Err(OfflineRefusal::PerPayment { .. })));
        assert!(matches!(l.check(100, &[(100, 0), (100, 0)], 0), Err(OfflineRefusal::Total { would_be: 300, .. })));
        assert!(matches!(l.check(1, &[(1, 0), (1, 0), (1, 0)], 0), Err(OfflineRefusal::Count { .. })));
        assert!(matches!(l.check(1, &[(1, 0)], 61_000), Err(OfflineRefusal::Age { .. })));
        assert!(l.check(1, &[(1, 0)], 60_000).is_ok());
        let off = OfflineLimits { enabled: false, ..l };
        assert_eq!(off.check(1, &[], 0), Err(OfflineRefusal::Disabled));
        assert!(OfflineRefusal::Count { count: 3, limit: 3 }.to_string().contains("limit"));
    }
}
