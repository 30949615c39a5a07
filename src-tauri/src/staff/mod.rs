//! Staff at the register (record 0068): who is signed in and the check in front of every
//! command (the role check itself is `ops.rs`; the sign-in screen's commands are the
//! `sign_in` feature; the owner's Staff screen is the `staff_admin` feature).
//!
//! | file         | what it holds                                                         |
//! |--------------|-----------------------------------------------------------------------|
//! | `gate.rs`    | [`gate::Granted`] (who acts, who approved) and the cashier's discount limit |
//! | `guard.rs`   | [`guard::check`]: in front of every command, a session and the idle lock |
//!
//! The ledger holds the session (`register_session`), so "who did it" is decided in the
//! same transaction as the money row; this module only asks the ledger and puts its
//! answers in the screen's words.

pub mod gate;
pub mod guard;

use paydesk_access::pin::Pin;
use paydesk_access::Role;
use paydesk_ledger::Staff;
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult};

pub use gate::Granted;

/// A staff member as the screen shows them: never the PIN hash.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StaffView {
    pub name: String,
    pub role: Role,
    /// Locked after wrong PINs until this time (ms since the epoch), if still locked.
    pub locked_until_ms: Option<i64>,
}

impl StaffView {
    pub fn of(s: &Staff, now_ms: i64) -> StaffView {
        StaffView { name: s.name.clone(), role: s.role, locked_until_ms: s.locked_until_ms.filter(|t| *t > now_ms) }
    }
}

/// A manager's approval sent with a command the signed-in person may not do alone.
#[derive(Debug, Clone, Deserialize)]
pub struct Approval {
    pub name: String,
    pub pin: String,
}

/// Longest name the sign-in screen sends (the ledger's limit is 60 characters).
const MAX_NAME_BYTES: usize = 240;

pub(crate) fn check_name(name: &str) -> AppResult<&str> {
    let n = name.trim();
    if n.is_empty() || n.len() > MAX_NAME_BYTES || n.chars().any(char::is_control) {
        return Err(AppError::InvalidInput(crate::i18n::t(crate::i18n::id!("staff-name-invalid"))));
    }
    Ok(n)
}

/// A PIN as typed: 4 to 8 digits, else a clear error (nothing is checked or counted).
pub(crate) fn parse_pin(pin: &str) -> AppResult<Pin> {
    Pin::parse(pin).map_err(|_| AppError::InvalidInput(crate::i18n::t(crate::i18n::id!("staff-pin-invalid"))))
}
