//! Offline store-and-forward limits (record 0009), like Stripe Terminal's and
//! Square's: per payment, total stored, count, and age of the oldest stored one.
//!
//! Money caps are per currency (record 0129): 10,000 minor units is ¥10,000 but $100, so
//! one number for every currency would let a dollar register store ten times the risk a
//! yen one does. Each currency has a default cap of about the same money, and the store's
//! own caps are held with the currency they were set in.

use std::time::Duration;

use paydesk_domain::Currency;

/// How much money may be held offline in one currency: per payment and stored in total,
/// in that currency's minor units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoneyCap {
    pub per_payment: i64,
    pub total: i64,
}

impl MoneyCap {
    /// About ¥10,000 per payment and ¥50,000 stored, in each currency: round figures at
    /// about ¥150 to the dollar, ¥160 to the euro, ¥190 to the pound and ₩9 to the yen,
    /// rounded DOWN (a default should not hold more risk than the yen one). Not a live
    /// rate: a store that wants other figures sets its own.
    pub const fn default_for(currency: Currency) -> MoneyCap {
        match currency {
            Currency::Jpy => MoneyCap { per_payment: 10_000, total: 50_000 },
            Currency::Usd => MoneyCap { per_payment: 6_500, total: 32_500 },
            Currency::Eur => MoneyCap { per_payment: 6_000, total: 30_000 },
            Currency::Gbp => MoneyCap { per_payment: 5_000, total: 25_000 },
            Currency::Krw => MoneyCap { per_payment: 90_000, total: 450_000 },
        }
    }
}

/// The money caps in force: the store's own for the currency it set them in, the
/// default of about the same money for every other currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OfflineCaps {
    /// The store's caps and the currency they are in; `None`: defaults everywhere.
    pub own: Option<(Currency, MoneyCap)>,
}

impl OfflineCaps {
    /// The store's caps in `currency` (other currencies keep their defaults).
    pub fn own(currency: Currency, cap: MoneyCap) -> OfflineCaps {
        OfflineCaps { own: Some((currency, cap)) }
    }

    /// The caps for a payment in `currency`.
    pub fn for_currency(&self, currency: Currency) -> MoneyCap {
        match self.own {
            Some((set_in, cap)) if set_in == currency => cap,
            Some(_) | None => MoneyCap::default_for(currency),
        }
    }

    /// The caps for a payment in `currency`, no looser than `ceiling` when it is in that
    /// currency (record 0139): the back office's published caps bound every register of the
    /// store, and a register may be stricter. Each figure is the lower of the two.
    pub fn for_currency_within(&self, currency: Currency, ceiling: Option<(Currency, MoneyCap)>) -> MoneyCap {
        let mine = self.for_currency(currency);
        match ceiling {
            Some((c, max)) if c == currency => {
                MoneyCap { per_payment: mine.per_payment.min(max.per_payment), total: mine.total.min(max.total) }
            }
            Some(_) | None => mine,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfflineLimits {
    /// Offline acceptance allowed at all.
    pub enabled: bool,
    /// Largest single offline payment and largest stored (not yet forwarded) total, per
    /// currency.
    pub caps: OfflineCaps,
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
            caps: OfflineCaps::default(),
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
    /// May a payment of `amount` in `currency` be stored, given what is stored now?
    /// `stored`: `(currency, amount, queued_at_ms)` of each stored payment. Count and age
    /// are across currencies (one queue to forward); money is per currency.
    pub fn check(&self, currency: Currency, amount: i64, stored: &[(Currency, i64, i64)], now_ms: i64) -> Result<(), OfflineRefusal> {
        self.check_within(None, currency, amount, stored, now_ms)
    }

    /// [`OfflineLimits::check`] with the money caps no looser than the back office's
    /// `ceiling` (record 0139).
    pub fn check_within(
        &self,
        ceiling: Option<(Currency, MoneyCap)>,
        currency: Currency,
        amount: i64,
        stored: &[(Currency, i64, i64)],
        now_ms: i64,
    ) -> Result<(), OfflineRefusal> {
        if !self.enabled {
            return Err(OfflineRefusal::Disabled);
        }
        let cap = self.caps.for_currency_within(currency, ceiling);
        if amount > cap.per_payment {
            return Err(OfflineRefusal::PerPayment { amount, limit: cap.per_payment });
        }
        if stored.len() as u64 >= self.max_count as u64 {
            return Err(OfflineRefusal::Count { count: stored.len() as u32, limit: self.max_count });
        }
        let total = stored.iter().filter(|(c, _, _)| *c == currency).map(|(_, a, _)| *a).fold(0i64, |acc, a| acc.saturating_add(a));
        let would_be = total.saturating_add(amount);
        if would_be > cap.total {
            return Err(OfflineRefusal::Total { would_be, limit: cap.total });
        }
        if let Some(oldest) = stored.iter().map(|(_, _, t)| *t).min() {
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
    const JPY: Currency = Currency::Jpy;

    #[test]
    fn limits() {
        let caps = OfflineCaps::own(JPY, MoneyCap { per_payment: 100, total: 250 });
        let l = OfflineLimits { enabled: true, caps, max_count: 3, max_age: Duration::from_secs(60) };
        assert!(l.check(JPY, 100, &[], 0).is_ok());
        assert!(matches!(l.check(JPY, 101, &[], 0), Err(OfflineRefusal::PerPayment { .. })));
        assert!(matches!(l.check(JPY, 100, &[(JPY, 100, 0), (JPY, 100, 0)], 0), Err(OfflineRefusal::Total { would_be: 300, .. })));
        assert!(matches!(l.check(JPY, 1, &[(JPY, 1, 0), (JPY, 1, 0), (JPY, 1, 0)], 0), Err(OfflineRefusal::Count { .. })));
        assert!(matches!(l.check(JPY, 1, &[(JPY, 1, 0)], 61_000), Err(OfflineRefusal::Age { .. })));
        assert!(l.check(JPY, 1, &[(JPY, 1, 0)], 60_000).is_ok());
        let off = OfflineLimits { enabled: false, ..l.clone() };
        assert_eq!(off.check(JPY, 1, &[], 0), Err(OfflineRefusal::Disabled));
        assert!(OfflineRefusal::Count { count: 3, limit: 3 }.to_string().contains("limit"));
        // Another currency's stored money is not this currency's total; its count and age are.
        assert!(l.check(JPY, 100, &[(Currency::Usd, 5_000, 0), (JPY, 100, 0)], 0).is_ok());
        assert!(matches!(l.check(JPY, 1, &[(Currency::Usd, 1, 0); 3], 0), Err(OfflineRefusal::Count { .. })));
        assert!(matches!(l.check(JPY, 1, &[(Currency::Usd, 1, 0)], 61_000), Err(OfflineRefusal::Age { .. })));
    }

    #[test]
    fn caps_set_in_one_currency_do_not_apply_in_another() {
        let caps = OfflineCaps::own(JPY, MoneyCap { per_payment: 10_000, total: 50_000 });
        // ¥10,000 set by a yen store is not $100 at a dollar payment.
        assert_eq!(caps.for_currency(Currency::Usd), MoneyCap::default_for(Currency::Usd));
        assert_eq!(caps.for_currency(JPY).per_payment, 10_000);
        let l = OfflineLimits { caps, ..OfflineLimits::default() };
        assert!(matches!(l.check(Currency::Usd, 10_000, &[], 0), Err(OfflineRefusal::PerPayment { limit: 6_500, .. })));
    }

    #[test]
    fn the_back_offices_caps_bound_a_register_that_may_be_stricter() {
        let usd = Currency::Usd;
        let store = Some((usd, MoneyCap { per_payment: 2_000, total: 5_000 }));
        // A register on the defaults ($65 / $325) takes the store's $20 / $50.
        let l = OfflineLimits::default();
        assert_eq!(l.caps.for_currency_within(usd, store), MoneyCap { per_payment: 2_000, total: 5_000 });
        assert!(matches!(l.check_within(store, usd, 2_001, &[], 0), Err(OfflineRefusal::PerPayment { limit: 2_000, .. })));
        assert!(matches!(l.check_within(store, usd, 2_000, &[(usd, 4_000, 0)], 0), Err(OfflineRefusal::Total { limit: 5_000, .. })));
        assert!(l.check_within(store, usd, 1_000, &[(usd, 4_000, 0)], 0).is_ok());
        // A stricter register keeps its own figure, figure by figure.
        let strict = OfflineCaps::own(usd, MoneyCap { per_payment: 1_500, total: 9_000 });
        assert_eq!(strict.for_currency_within(usd, store), MoneyCap { per_payment: 1_500, total: 5_000 });
        // Caps published in another currency bound nothing here; none published, nothing changes.
        assert_eq!(l.caps.for_currency_within(JPY, store), MoneyCap::default_for(JPY));
        assert_eq!(l.caps.for_currency_within(usd, None), MoneyCap::default_for(usd));
    }

    #[test]
    fn defaults_are_about_the_same_money_and_never_more_than_the_yen_ones() {
        // Yen per so many minor units, at the round rates the defaults were set with
        // (record 0129): $1 = ¥150, €1 = ¥160, £1 = ¥190, ₩9 = ¥1.
        let rate = |c: Currency| -> (i64, i64) {
            match c {
                Currency::Jpy => (1, 1),
                Currency::Usd => (150, 100),
                Currency::Eur => (160, 100),
                Currency::Gbp => (190, 100),
                Currency::Krw => (1, 9),
            }
        };
        let yen = MoneyCap::default_for(JPY);
        for c in [JPY, Currency::Usd, Currency::Eur, Currency::Gbp, Currency::Krw] {
            let cap = MoneyCap::default_for(c);
            let (yen_per, minor) = rate(c);
            let in_yen = cap.per_payment * yen_per / minor;
            assert!((9_000..=yen.per_payment).contains(&in_yen), "{c:?}: about ¥{in_yen}");
            assert_eq!(cap.total * yen.per_payment, cap.per_payment * yen.total, "{c:?}: the same ratio as the yen caps");
        }
    }
}
