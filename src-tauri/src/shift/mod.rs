//! Shifts and the audit log in the app (record 0069): the Shift tab's commands over the
//! ledger's shifts (record 0066) and the Audit view over its chain (record 0064).
//!
//! | file        | commands                                                            |
//! |-------------|---------------------------------------------------------------------|
//! | `open.rs`   | `shift_status`, `shift_open` (float counted by denomination)        |
//! | `cash.rs`   | `paid_in`, `paid_out` (amount and reason)                           |
//! | `no_sale.rs`| `open_drawer_no_sale` ("No sale": the drawer kicked, audited; 0127) |
//! | `report.rs` | `x_report`, `shift_close` (blind count → Z), `z_report`             |
//! | `print.rs`  | `print_shift_report` (an X or a Z on the store's printer)           |
//! | `audit.rs`  | `audit_verify`, `audit_page`                                        |
//!
//! This file holds what they share: who acts (the person signed in, and a manager's
//! approval when their role needs one), how a count arrives, and the ledger's refusals
//! in the screen's words (`crate::error::shift::refusal`, kept in `error/shift.rs`: the error conversion
//! calls it for every ledger error of this kind, whichever command met it).

pub mod audit;
pub mod cash;
pub mod no_sale;
pub mod open;
pub mod print;
pub mod report;

use paydesk_access::Action;
use paydesk_ledger::{Actor, DenominationCount};
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::staff::Approval;
use crate::state::AppState;

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
        return Err(AppError::InvalidCount(tr!(active(), "input-count-lines", max = MAX_COUNT_LINES.to_string())));
    }
    Ok(lines.iter().map(|l| DenominationCount { denomination_minor: l.denomination_minor, count: l.count }).collect())
}

/// Who acts: the person signed in, with the approver the staff gate checked (one approval
/// path for every command, record 0068). A shift step is always someone's: on a register
/// without staff there is nobody to act. The ledger checks the role table again inside
/// the action's own transaction and writes both names in its audit row.
pub fn actor(state: &AppState, action: Action, approval: Option<&Approval>) -> AppResult<Actor> {
    let granted = crate::ops::Operation::new(action, approval).permit(state)?;
    let staff_id = granted.actor_id().ok_or(AppError::NotSignedIn)?;
    Ok(Actor { staff_id, approver_id: granted.approver_id() })
}

/// The staff's names by id, read once for a report or a page of the audit log (the
/// engine's, read with the figures they name).
pub use paydesk_register::usecases::StaffNames;

