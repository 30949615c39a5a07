//! The wall clock in Unix milliseconds, for the timestamps the ledger records when it applies
//! what the back office sent. A module of its own so `apply` and `restore` need not import
//! `run`, the loop that calls them (issue #31: no import circles).

pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}
