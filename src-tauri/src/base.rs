//! The two helpers every layer of the app uses, at the bottom so that none of them has
//! to import the app's state for them: the wall clock in milliseconds and a mutex lock
//! that survives a panicked holder (the values kept behind it stay usable).

use std::sync::Mutex;

/// Milliseconds since the epoch, as the ledger keeps times.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The value behind `m`, even after a holder panicked (poisoning is not a reason to
/// stop a register).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
