//! Dedup-window guard (record 0008): never resend a key whose first attempt is
//! older than the PSP's retention minus a safety margin; past it, search by
//! `metadata['checkout_key']` instead (not found = never charged).

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DedupWindow {
    /// How long the PSP remembers a key (Stripe: 24 h).
    pub retention: Duration,
    /// Safety margin for clock skew and slow paths (default 1 h).
    pub margin: Duration,
}

impl Default for DedupWindow {
    fn default() -> Self {
        Self { retention: Duration::from_secs(24 * 3600), margin: Duration::from_secs(3600) }
    }
}

impl DedupWindow {
    /// The latest age at which a key may still be sent.
    pub fn safe_age(&self) -> Duration {
        self.retention.saturating_sub(self.margin)
    }
    /// May a request whose first attempt happened at `first_attempt_ms` be sent
    /// (again) at `now_ms`? A missing first attempt (never sent) is always safe:
    /// nothing can be remembered or forgotten.
    pub fn may_send(&self, first_attempt_ms: Option<i64>, now_ms: i64) -> bool {
        match first_attempt_ms {
            None => true,
            Some(first) => {
                let age = now_ms.saturating_sub(first);
                // A clock that went backwards gives a negative age: still inside.
                age < self.safe_age().as_millis() as i64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const H: i64 = 3_600_000;
    #[test]
    fn guard_boundaries() {
        let w = DedupWindow::default();
        assert!(w.may_send(None, 100 * H));
        assert!(w.may_send(Some(0), 0));
        assert!(w.may_send(Some(0), 23 * H - 1));
        assert!(!w.may_send(Some(0), 23 * H));
        assert!(!w.may_send(Some(0), 48 * H));
        assert!(w.may_send(Some(10 * H), 0), "clock went back: still inside");
        let short = DedupWindow { retention: Duration::from_secs(10), margin: Duration::from_secs(20) };
        assert!(!short.may_send(Some(0), 0), "margin above retention: never resend");
    }
}
