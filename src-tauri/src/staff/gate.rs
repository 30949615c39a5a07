//! The role table for the app's commands (design §12.2, §12.9). Every command that
//! sells, refunds, overrides, discounts above the cashier limit, edits settings or the
//! catalog calls [`authorize`] before it acts; the screen only hides buttons.
//!
//! Below the action's role the answer is `approval_required`: the screen asks a manager
//! inline and sends the same command again with their name and PIN, checked here under
//! the lockout (an approval PIN, audited by the ledger either way).

use paydesk_access::{authorize as table, Action, Authorization};
use paydesk_ledger::Staff;

use super::locks::Counter;
use super::{check_name, parse_pin, Approval};
use crate::error::{AppError, AppResult};
use crate::state::AppState;

/// Who may go ahead: nobody on a register without staff (it works as before staff
/// existed), else the person signed in and, when their role was not enough, who
/// approved.
#[derive(Debug, Clone, Default)]
pub struct Granted {
    pub actor: Option<Staff>,
    pub approver: Option<Staff>,
}

impl Granted {
    pub fn actor_id(&self) -> Option<i64> {
        self.actor.as_ref().map(|s| s.id)
    }
    pub fn approver_id(&self) -> Option<i64> {
        self.approver.as_ref().map(|s| s.id)
    }
}

/// Whether the person signed in may do `action` now, with `approval` when one was given.
pub fn authorize(state: &AppState, action: Action, approval: Option<&Approval>) -> AppResult<Granted> {
    let paydesk_register::usecases::Session { has_staff, signed_in: me } = state.engine().staff().session()?;
    if !has_staff {
        return Ok(Granted::default());
    }
    let me = me.ok_or(AppError::NotSignedIn)?;
    let min_role = match table(me.person(), action, None) {
        Authorization::Allowed => return Ok(Granted { actor: Some(me), approver: None }),
        Authorization::NeedsApproval { min_role } => min_role,
        // Without an approver the table answers only the two above; anything else is a no.
        refused @ (Authorization::Approved { .. } | Authorization::ApproverTooLow { .. } | Authorization::SelfApproval) => {
            return Err(AppError::NotAllowed { action, authorization: refused })
        }
    };
    let Some(approval) = approval else {
        return Err(AppError::ApprovalRequired { action, min_role });
    };
    let name = check_name(&approval.name)?.to_string();
    let pin = parse_pin(&approval.pin)?;
    let approver = approval_pin(state, &name, &pin)?;
    match table(me.person(), action, Some(approver.person())) {
        Authorization::Approved { .. } => Ok(Granted { actor: Some(me), approver: Some(approver) }),
        Authorization::Allowed => Ok(Granted { actor: Some(me), approver: None }),
        refused @ (Authorization::NeedsApproval { .. } | Authorization::ApproverTooLow { .. } | Authorization::SelfApproval) => {
            Err(AppError::NotAllowed { action, authorization: refused })
        }
    }
}

/// An approver's PIN, counted on this register's approvals at their name (never their
/// own sign-in, design §12.3), and under the monotonic lock when the app runs.
fn approval_pin(state: &AppState, name: &str, pin: &paydesk_access::Pin) -> AppResult<Staff> {
    state.pin_locks.guard(Counter::Approval, name, || {
        Ok(state.engine().staff().check_approval_pin(name, pin)?)
    })
}

/// The largest discount a cashier gives alone: 10 % of what it applies to (a line, or
/// the sale after its line discounts), as a percentage or as an amount. Above it the
/// discount is [`Action::DiscountAboveLimit`], a manager's.
pub const CASHIER_DISCOUNT_LIMIT_BP: i64 = 1_000;

/// Whether `d` on `base` (minor units) is above the cashier's limit.
pub fn discount_above_limit(d: paydesk_tax::Discount, base: i64) -> bool {
    use paydesk_tax::Discount;
    match d {
        Discount::Percent { basis_points } => i64::from(basis_points) > CASHIER_DISCOUNT_LIMIT_BP,
        // amount / base > 10 %, in integers: amount × 10 000 > base × 1 000.
        Discount::Amount { amount } => i128::from(amount) * 10_000 > i128::from(base.max(0)) * i128::from(CASHIER_DISCOUNT_LIMIT_BP),
    }
}

/// For an approved action whose ledger write takes no approver (settings, the catalog, a
/// discount, a cancel, an override): one audit row naming both people, just before the
/// action. A refund is recorded with its approver in its own row instead.
pub fn record_approval(state: &AppState, granted: &Granted, action: Action, subject: &str) -> AppResult<()> {
    let Some(approver) = granted.approver_id() else { return Ok(()) };
    state.engine().audit().record_approval(granted.actor_id(), approver, action, subject)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_tax::Discount;

    #[test]
    fn a_cashier_gives_at_most_ten_percent_alone() {
        assert!(!discount_above_limit(Discount::Percent { basis_points: 1000 }, 0));
        assert!(discount_above_limit(Discount::Percent { basis_points: 1001 }, 0));
        assert!(!discount_above_limit(Discount::Amount { amount: 100 }, 1000));
        assert!(discount_above_limit(Discount::Amount { amount: 101 }, 1000));
        assert!(discount_above_limit(Discount::Amount { amount: 1 }, 0));
    }
}
