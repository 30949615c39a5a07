//! What the screen holds for the sale on it that the engine does not: the discounts a
//! manager approved for it (checked again at its first tender, design §12.9).

use paydesk_ledger::tax::Discount;
use paydesk_ledger::CartId;

/// A discount above the cashier's limit on its base as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Above {
    /// The line's SKU, or "sale".
    pub subject: String,
    pub discount: Discount,
    pub base: i64,
}

/// The discounts a manager approved for a sale, as they were then.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Approved {
    pub(crate) cart: Option<CartId>,
    pub(crate) above: Vec<Above>,
}
