//! Bounded exponential back-off: 1 s, 2 s, 4 s … never above the cap, reset on success.
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    cap: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(first: Duration, cap: Duration) -> Backoff {
        let first = first.min(cap);
        Backoff { first, cap, next: first }
    }

    /// The wait before the next attempt; doubles up to the cap.
    pub fn next_delay(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(self.cap);
        d
    }

    pub fn reset(&mut self) {
        self.next = self.first;
    }
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff::new(Duration::from_secs(1), Duration::from_secs(60))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_cap_and_resets() {
        let mut b = Backoff::new(Duration::from_millis(100), Duration::from_millis(500));
        let got: Vec<u128> = (0..5).map(|_| b.next_delay().as_millis()).collect();
        assert_eq!(got, vec![100, 200, 400, 500, 500]);
        b.reset();
        assert_eq!(b.next_delay().as_millis(), 100);
    }
}
