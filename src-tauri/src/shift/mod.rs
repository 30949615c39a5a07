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

use std::collections::HashMap;

use paydesk_ledger::access::Action;
use paydesk_ledger::{Actor, DenominationCount, Ledger};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult};
use crate::state::AppState;
pub use crate::staff::Approval;

/// Denominations one count may list (every currency has fewer).
pub const MAX_COUNT_LINES: usize = 32;

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

/// Who acts: the person signed in, with the approver the staff gate checked (one approval
/// path for every command, design §12.9). A shift step is always someone's: on a register
/// without staff there is nobody to act. The ledger checks the role table again inside
/// the action's own transaction and writes both names in its audit row.
pub fn actor(state: &AppState, action: Action, approval: Option<&Approval>) -> AppResult<Actor> {
    let granted = crate::staff::authorize(state, action, approval)?;
    let staff_id = granted.actor_id().ok_or(AppError::NotSignedIn)?;
    Ok(Actor { staff_id, approver_id: granted.approver_id() })
}

/// The staff's names by id, read once for a report or a page of the audit log (a report
/// names several people; one query instead of one per name).
pub struct StaffNames(HashMap<i64, String>);

impl StaffNames {
    pub fn load(l: &Ledger) -> AppResult<StaffNames> {
        Ok(StaffNames(l.staff_list()?.into_iter().map(|s| (s.id, s.name)).collect()))
    }

    /// A staff member's name (an id the ledger no longer knows prints as "#id").
    pub fn name(&self, id: i64) -> String {
        self.0.get(&id).cloned().unwrap_or_else(|| format!("#{id}"))
    }
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
