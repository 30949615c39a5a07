//! The one table of who may do what (record 0062). Every gated action names the least
//! role that may do it alone; below that role the action needs an approval, on the
//! spot, by someone else holding that role (their PIN). The table is a `match` with no
//! catch-all arm: a new action does not compile until someone decides who may do it.
//!
//! The register's commands call [`authorize`] before they act; the screen only hides
//! the buttons a role cannot use, it decides nothing.

use crate::role::Role;
use serde::{Deserialize, Serialize};

/// Everything the register gates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Ring up items and take tenders.
    Sell,
    /// Open a shift with its counted float.
    OpenShift,
    /// Print or show an X report (the shift so far, nothing closes).
    XReport,
    /// Refund a payment or a sale.
    Refund,
    /// Cancel a sale that already has settled tenders (money goes back).
    CancelSettledSale,
    /// Start a new payment while an earlier one's outcome is unknown (rule 3's override).
    OverrideUnknownOutcome,
    /// A discount above the store's limit for cashiers.
    DiscountAboveLimit,
    /// A typed (open) price above the store's open-price limit (record 0126).
    OpenPriceAboveLimit,
    /// Mark a sale tax exempt with its reason, or clear that (record 0135).
    TaxExempt,
    /// Open the cash drawer without a sale.
    OpenDrawerNoSale,
    /// Put cash in or take it out of the drawer outside a sale.
    PaidInOut,
    /// Close the shift: blind count, Z report.
    CloseShift,
    /// Store settings, the processor and its key.
    Settings,
    /// Add, change or import catalog items.
    CatalogEdit,
    /// Add staff, change roles, reset PINs.
    StaffAdmin,
}

impl Action {
    pub const ALL: [Action; 15] = [
        Action::Sell,
        Action::OpenShift,
        Action::XReport,
        Action::Refund,
        Action::CancelSettledSale,
        Action::OverrideUnknownOutcome,
        Action::DiscountAboveLimit,
        Action::OpenPriceAboveLimit,
        Action::TaxExempt,
        Action::OpenDrawerNoSale,
        Action::PaidInOut,
        Action::CloseShift,
        Action::Settings,
        Action::CatalogEdit,
        Action::StaffAdmin,
    ];

    /// The least role that may do this alone.
    pub fn min_role(self) -> Role {
        match self {
            Action::Sell | Action::OpenShift | Action::XReport => Role::Cashier,
            // Money leaves the store or a guard is bypassed: a second person looks.
            Action::Refund
            | Action::CancelSettledSale
            | Action::OverrideUnknownOutcome
            | Action::DiscountAboveLimit
            | Action::OpenPriceAboveLimit
            // The store forgoes tax it would owe: someone who answers for it checks the
            // certificate or card.
            | Action::TaxExempt
            | Action::OpenDrawerNoSale
            | Action::PaidInOut
            | Action::CloseShift
            | Action::CatalogEdit => Role::Manager,
            // Where the money goes (the processor and its key) and who holds which keys.
            Action::Settings | Action::StaffAdmin => Role::Owner,
        }
    }

    /// The name stored in audit rows.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Sell => "sell",
            Action::OpenShift => "open_shift",
            Action::XReport => "x_report",
            Action::Refund => "refund",
            Action::CancelSettledSale => "cancel_settled_sale",
            Action::OverrideUnknownOutcome => "override_unknown_outcome",
            Action::DiscountAboveLimit => "discount_above_limit",
            Action::OpenPriceAboveLimit => "open_price_above_limit",
            Action::TaxExempt => "tax_exempt",
            Action::OpenDrawerNoSale => "open_drawer_no_sale",
            Action::PaidInOut => "paid_in_out",
            Action::CloseShift => "close_shift",
            Action::Settings => "settings",
            Action::CatalogEdit => "catalog_edit",
            Action::StaffAdmin => "staff_admin",
        }
    }
}

/// Someone signed in or approving: their staff id and role (as the ledger has them now,
/// not as the screen remembers them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub staff_id: i64,
    pub role: Role,
}

/// What [`authorize`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Authorization {
    /// The actor's role suffices.
    Allowed,
    /// Below the role, but an approver holding it said yes. Both names go in the audit row.
    Approved { approver_id: i64 },
    /// Ask for an approval by someone holding `min_role`.
    NeedsApproval { min_role: Role },
    /// The approver does not hold `min_role` either.
    ApproverTooLow { min_role: Role },
    /// Nobody approves their own action.
    SelfApproval,
}

impl Authorization {
    /// Whether the action may go ahead.
    pub fn is_granted(self) -> bool {
        match self {
            Authorization::Allowed | Authorization::Approved { .. } => true,
            Authorization::NeedsApproval { .. } | Authorization::ApproverTooLow { .. } | Authorization::SelfApproval => false,
        }
    }
}

/// Whether `actor` may do `action`, given an approver whose PIN the caller has already
/// checked (or none). An approver is only consulted when the actor's role falls short,
/// so a manager's own refund is never recorded as "approved".
pub fn authorize(actor: Person, action: Action, approver: Option<Person>) -> Authorization {
    let min_role = action.min_role();
    if actor.role.at_least(min_role) {
        return Authorization::Allowed;
    }
    match approver {
        None => Authorization::NeedsApproval { min_role },
        Some(a) if a.staff_id == actor.staff_id => Authorization::SelfApproval,
        Some(a) if !a.role.at_least(min_role) => Authorization::ApproverTooLow { min_role },
        Some(a) => Authorization::Approved { approver_id: a.staff_id },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASHIER: Person = Person { staff_id: 1, role: Role::Cashier };
    const MANAGER: Person = Person { staff_id: 2, role: Role::Manager };
    const OWNER: Person = Person { staff_id: 3, role: Role::Owner };

    #[test]
    fn a_cashier_refund_needs_a_manager_and_records_who_approved() {
        assert_eq!(authorize(CASHIER, Action::Refund, None), Authorization::NeedsApproval { min_role: Role::Manager });
        assert_eq!(authorize(CASHIER, Action::Refund, Some(MANAGER)), Authorization::Approved { approver_id: 2 });
        assert_eq!(authorize(MANAGER, Action::Refund, None), Authorization::Allowed);
        // A manager's own refund is not "approved" by someone who happened to be asked.
        assert_eq!(authorize(MANAGER, Action::Refund, Some(OWNER)), Authorization::Allowed);
    }

    #[test]
    fn approvals_need_the_role_and_another_person() {
        let other_cashier = Person { staff_id: 9, role: Role::Cashier };
        assert_eq!(
            authorize(CASHIER, Action::Refund, Some(other_cashier)),
            Authorization::ApproverTooLow { min_role: Role::Manager }
        );
        assert_eq!(
            authorize(MANAGER, Action::Settings, Some(MANAGER)),
            Authorization::SelfApproval
        );
        assert_eq!(
            authorize(CASHIER, Action::StaffAdmin, Some(MANAGER)),
            Authorization::ApproverTooLow { min_role: Role::Owner }
        );
        assert_eq!(authorize(CASHIER, Action::StaffAdmin, Some(OWNER)), Authorization::Approved { approver_id: 3 });
    }

    #[test]
    fn the_table_as_a_store_expects_it() {
        for a in Action::ALL {
            // An owner may do everything alone; a cashier sells alone and nothing that
            // moves money out or changes who or where.
            assert_eq!(authorize(OWNER, a, None), Authorization::Allowed, "{a:?}");
            let cashier_alone = authorize(CASHIER, a, None).is_granted();
            let expected = matches!(a, Action::Sell | Action::OpenShift | Action::XReport);
            assert_eq!(cashier_alone, expected, "{a:?}");
        }
        assert!(!authorize(MANAGER, Action::Settings, None).is_granted());
        assert!(!authorize(MANAGER, Action::StaffAdmin, None).is_granted());
        assert!(authorize(MANAGER, Action::CloseShift, None).is_granted());
        let names: std::collections::HashSet<_> = Action::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(names.len(), Action::ALL.len(), "audit names are distinct");
    }
}
