//! What the role check answers ([`Granted`]) and the cashier's discount limit (design
//! record 0062, 0068). The check itself is the operation gate's (`ops.rs`): every command
//! that sells, refunds, overrides, discounts above the cashier limit, edits settings or
//! the catalog goes through it before it acts; the screen only hides buttons.

use paydesk_ledger::Staff;

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
