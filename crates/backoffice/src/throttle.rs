//! Attempts at a secret, throttled (record 0038, 0043): owner sign-in and register
//! pairing. Each has a budget per source address and one for everyone per window; past
//! either the answer is 429 with `Retry-After` until the window ends, whatever was sent.
//! Memory is bounded: at most `max_sources` addresses are tracked per window, and when
//! that many are, a new address counts against the global budget only once it is full
//! (so a spray of addresses costs a fixed amount of memory and still hits the global cap).
//!
//! The source is the TCP peer. Behind a reverse proxy every attempt comes from the
//! proxy's address, so the per-source budget becomes the proxy's and the global one
//! still holds; the proxy should throttle by client address itself (README).
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleLimits {
    /// Attempts one address may make per window.
    pub per_source: u32,
    /// Attempts everyone together may make per window.
    pub global: u32,
    pub window: Duration,
    /// Addresses tracked at once.
    pub max_sources: usize,
}

impl ThrottleLimits {
    /// Sign-in: an owner mistypes a few times, a guesser is held to 10 a minute.
    pub const SIGN_IN: ThrottleLimits = ThrottleLimits { per_source: 10, global: 100, window: Duration::from_secs(60), max_sources: 10_000 };
    /// Pairing: a store sets up a few registers at a time.
    pub const PAIRING: ThrottleLimits = ThrottleLimits { per_source: 20, global: 200, window: Duration::from_secs(60), max_sources: 10_000 };
}

struct Window {
    started: Instant,
    global: u32,
    sources: HashMap<IpAddr, u32>,
}

pub struct Throttle {
    limits: ThrottleLimits,
    window: Mutex<Window>,
}

impl Throttle {
    pub fn new(limits: ThrottleLimits) -> Throttle {
        Throttle { limits, window: Mutex::new(Window { started: Instant::now(), global: 0, sources: HashMap::new() }) }
    }

    /// Counts one attempt from `source`; `Err(wait)` when over a budget.
    pub fn attempt(&self, source: IpAddr) -> Result<(), Duration> {
        self.attempt_at(source, Instant::now())
    }

    fn attempt_at(&self, source: IpAddr, now: Instant) -> Result<(), Duration> {
        let mut w = self.window.lock().unwrap_or_else(|p| p.into_inner());
        if now >= w.started + self.limits.window {
            *w = Window { started: now, global: 0, sources: HashMap::new() };
        }
        let wait = (w.started + self.limits.window).saturating_duration_since(now).max(Duration::from_secs(1));
        if w.global >= self.limits.global {
            return Err(wait);
        }
        let tracked = w.sources.len();
        match w.sources.get_mut(&source) {
            Some(n) if *n >= self.limits.per_source => return Err(wait),
            Some(n) => *n += 1,
            None if tracked >= self.limits.max_sources => {}
            None => {
                w.sources.insert(source, 1);
            }
        }
        w.global += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_source_then_global_then_a_new_window() {
        let t = Throttle::new(ThrottleLimits { per_source: 2, global: 3, window: Duration::from_secs(60), max_sources: 2 });
        let (a, b, c): (IpAddr, IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap(), "10.0.0.3".parse().unwrap());
        let now = Instant::now();
        assert!(t.attempt_at(a, now).is_ok() && t.attempt_at(a, now).is_ok());
        assert!(matches!(t.attempt_at(a, now), Err(w) if w <= Duration::from_secs(60)), "a's budget is spent");
        assert!(t.attempt_at(b, now).is_ok());
        assert!(t.attempt_at(c, now).is_err(), "the global budget is spent");
        let later = now + Duration::from_secs(61);
        assert!(t.attempt_at(a, later).is_ok(), "a new window");
        assert!(t.attempt_at(b, later).is_ok());
        // a third address is not tracked (max_sources) but still counts globally
        assert!(t.attempt_at(c, later).is_ok());
        assert!(t.attempt_at(c, later).is_err(), "global");
        assert!(t.window.lock().unwrap().sources.len() <= 2);
    }
}
