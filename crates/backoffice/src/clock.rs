//! Milliseconds since the epoch, the back office's own clock. A module of its own, below
//! `state`: `session` reads the clock and `state` holds the session policy, so the clock
//! cannot live in `state` without the two importing each other (issue #31).

/// Milliseconds since the epoch, the back office's own clock.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}
