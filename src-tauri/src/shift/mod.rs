//! Shifts and the audit log in the app (design §12.10): the Shift tab's commands over the
//! ledger's shifts (§12.7) and the Audit view over its chain (§12.4).
//!
//! | file        | commands                                                            |
//! |-------------|---------------------------------------------------------------------|
//! | `open.rs`   | `shift_status`, `shift_open` (float counted by denomination)        |
//! | `cash.rs`   | `paid_in`, `paid_out` (amount and reason)                           |
//! | `report.rs` | `x_report`, `shift_close` (blind count → Z), `z_report`             |
//! | `print.rs`  | `print_shift_report` (an X or a Z on the store's printer)           |
//! | `audit.rs`  | `audit_verify`, `audit_page`                                        |
//!
//! This file holds what they share: who acts (the person signed in, and a manager's
//! approval when their role needs one), how a count arrives, and the errors.

pub mod audit;
pub mod cash;
pub mod open;
pub mod print;
pub mod report;

use paydesk_ledger::access::lockout::LockoutPolicy;
use paydesk_ledger::access::pin::Pin;
use paydesk_ledger::{Actor, DenominationCount, Ledger, PinPurpose};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult};
use crate::state::now_ms;

/// Denominations one count may list (every currency has fewer).
pub const MAX_COUNT_LINES: usize = 32;
/// Longest name typed for an approval.
const MAX_NAME_CHARS: usize = 100;
/// Longest PIN typed (a PIN is 4-8 digits; more is refused before it is hashed).
const MAX_PIN_CHARS: usize = 16;

/// A manager's approval typed on the spot: their name and PIN (design §12.2).
#[derive(Debug, Clone, Deserialize)]
pub struct Approval {
    pub name: String,
    pub pin: String,
}

/// One line of a count as the form sends it: pieces of one denomination (minor units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountInput {
    pub denomination_minor: i64,
    pub count: i64,
}

/// A count as the ledger takes it; its rules (known denominations, each once, pieces and
/// total within limits) are the ledger's, checked there.
pub fn count_of(lines: &[CountInput]) -> AppResult<Vec<DenominationCount>> {
    if lines.len() > MAX_COUNT_LINES {
        return Err(AppError::InvalidCount(crate::i18n::tr!(crate::i18n::active(), "input-count-lines", max = MAX_COUNT_LINES.to_string())));
    }
    Ok(lines.iter().map(|l| DenominationCount { denomination_minor: l.denomination_minor, count: l.count }).collect())
}

/// Who acts: the person signed in at the register, with the approver whose PIN was just
/// checked (every check is audited by the ledger, right or wrong, under the lockout).
/// Whether an approval is needed is the ledger's role table, in the action's transaction.
pub fn actor(l: &mut Ledger, approval: Option<&Approval>) -> AppResult<Actor> {
    let who = l.signed_in()?.ok_or(paydesk_ledger::Error::NotSignedIn)?;
    let approver_id = match approval {
        None => None,
        Some(a) => {
            let name = a.name.trim();
            if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || a.pin.chars().count() > MAX_PIN_CHARS {
                return Err(AppError::InvalidInput(crate::i18n::t(crate::i18n::id!("input-approval-shape"))));
            }
            let pin = Pin::parse(a.pin.trim()).map_err(|_| paydesk_ledger::Error::WrongPin { attempts_left: None })?;
            Some(l.check_pin(name, &pin, PinPurpose::Approval, LockoutPolicy::default(), now_ms())?.id)
        }
    };
    Ok(Actor { staff_id: who.id, approver_id })
}

/// A staff member's name for a report (an id the ledger no longer knows prints as "#id").
pub fn staff_name(l: &Ledger, id: i64) -> AppResult<String> {
    Ok(l.staff_list()?.into_iter().find(|s| s.id == id).map(|s| s.name).unwrap_or_else(|| format!("#{id}")))
}

/// The ledger's refusal of a count, a paid in/out or a shift step, in the cashier's
/// words; the rest (who may, who is signed in) goes through the app's shared mapping.
pub fn shift_error(e: paydesk_ledger::Error, what: Refused) -> AppError {
    use paydesk_ledger::Error as L;
    match (e, what) {
        (L::InvalidInput(m), Refused::Count) => AppError::InvalidCount(m),
        (L::InvalidInput(m) | L::InvalidAmount(m), Refused::PaidInOut) => AppError::InvalidPaidInOut(m),
        (other, Refused::Count | Refused::PaidInOut | Refused::Other) => AppError::from(other),
    }
}

/// What the ledger was refusing, so its input errors get the right code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Count,
    PaidInOut,
    Other,
}
