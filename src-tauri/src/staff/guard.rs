//! The one check in front of every command (record 0068): once the store has staff,
//! nothing but the sign-in screen's own commands runs without someone signed in, and
//! the idle lock (`idle_lock_s`) holds in Rust, not only in the page: the first command
//! after the idle time signs the person out and answers `locked`.
//!
//! Wired in `lib.rs` around the generated invoke handler, so a new command is guarded
//! without a line of its own; only [`OPEN`] lists what runs without a session.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tauri::{Manager, Runtime};

use crate::error::{AppError, AppResult};
use crate::base::{lock, now_ms};
use crate::state::AppState;

/// What the sign-in (and first-start) screen needs to draw itself and sign someone in;
/// each answers nothing a person at a locked register should not see.
pub const OPEN: &[&str] = &[
    "whoami",
    "staff_list",
    "sign_in",
    "sign_out",
    // refused by the command itself once the store has staff
    "create_owner",
    "get_messages",
    // the status bar under the sign-in screen: PSP reachable, payments waiting
    "get_status",
    // the customer display (record 0132): it faces the customer, who sees the sale on
    // screen whoever is signed in; its window may call nothing else (capabilities/customer.json)
    "customer_view",
];

/// Asked by the page on a timer, not by a person: they need a session but do not count
/// as activity (else the idle lock would never come).
pub const POLLED: &[&str] = &["get_backoffice"];

/// When the register was last used by a person: a monotonic instant (the idle time is
/// not shortened or stretched by moving the clock) and the wall-clock time with it (a
/// suspended machine's monotonic clock stands still; its wall clock does not). Idle is
/// whichever of the two says longer.
pub struct Idle {
    last: Mutex<(Instant, i64)>,
}

impl Default for Idle {
    fn default() -> Self {
        Idle { last: Mutex::new((Instant::now(), now_ms())) }
    }
}

impl Idle {
    /// A person used the register now.
    pub fn touch(&self) {
        *lock(&self.last) = (Instant::now(), now_ms());
    }

    fn idle_for(&self) -> Duration {
        let (at, wall) = *lock(&self.last);
        let wall_idle = Duration::from_millis(u64::try_from(now_ms().saturating_sub(wall)).unwrap_or(0));
        at.elapsed().max(wall_idle)
    }

    /// For command tests: the register untouched for `d` more, without waiting for it.
    #[doc(hidden)]
    pub fn rewind(&self, d: Duration) {
        let mut last = lock(&self.last);
        let at = last.0.checked_sub(d).unwrap_or(last.0);
        *last = (at, last.1.saturating_sub(d.as_millis() as i64));
    }
}

/// Whether `command` may run now; signs out a session idle for longer than the lock.
pub fn check<R: Runtime, M: Manager<R>>(app: &M, command: &str) -> AppResult<()> {
    if OPEN.contains(&command) {
        return Ok(());
    }
    let (Some(state), Some(idle)) = (app.try_state::<AppState>(), app.try_state::<Idle>()) else {
        // Not started yet (setup runs before the window can call): nothing to guard.
        return Ok(());
    };
    let paydesk_register::usecases::Session { has_staff, signed_in: me } = state.engine().staff().session()?;
    if !has_staff {
        return Ok(());
    }
    if me.is_none() {
        return Err(AppError::NotSignedIn);
    }
    let limit_s = state.stored.settings().idle_lock_s;
    if idle.idle_for() >= Duration::from_secs(u64::from(limit_s)) {
        state.engine().staff().sign_out()?;
        return Err(AppError::IdleLocked { seconds: limit_s });
    }
    if !POLLED.contains(&command) {
        idle.touch();
    }
    Ok(())
}

/// The app's invoke handler behind [`check`]: a refused command is answered with its
/// error and never reaches the command.
pub fn guarded<R: Runtime>(
    inner: impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static,
) -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
    move |invoke: tauri::ipc::Invoke<R>| {
        let refused = check(invoke.message.webview_ref(), invoke.message.command()).err();
        match refused {
            Some(e) => {
                invoke.resolver.reject(e);
                true
            }
            None => inner(invoke),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_is_the_longer_of_the_two_clocks() {
        let idle = Idle::default();
        assert!(idle.idle_for() < Duration::from_secs(5));
        idle.rewind(Duration::from_secs(120));
        assert!(idle.idle_for() >= Duration::from_secs(120));
        // the wall clock alone says longer (a suspended machine)
        *lock(&idle.last) = (Instant::now(), now_ms() - 600_000);
        assert!(idle.idle_for() >= Duration::from_secs(600));
        idle.touch();
        assert!(idle.idle_for() < Duration::from_secs(5));
    }

    #[test]
    fn every_open_command_is_one_the_app_has() {
        let lib = include_str!("../lib.rs");
        for c in OPEN.iter().chain(POLLED) {
            assert!(lib.contains(&format!("::{c},")), "{c} is not a command of lib.rs");
        }
    }
}
