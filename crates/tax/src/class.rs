//! What an item is for tax, and how the customer takes it: the vocabulary the rate table is
//! keyed by and the errors name. Kept apart from `rates` so `error` can name a class without
//! importing the rate table, which itself returns `TaxError` (issue #31: no import circles).

use serde::{Deserialize, Serialize};

/// What an item is, for tax. The rate is looked up in a [`RateTable`](crate::RateTable); a
/// class never carries a number, so a change of rate is a change of data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaxClass {
    /// The standard rate (10 % in Japan since 2019-10-01).
    Standard,
    /// Food and non-alcoholic drink: the reduced rate (8 %) when taken out, the standard rate
    /// when eaten in (see [`Dining`]).
    Reduced,
    /// Not taxed (stamps, some fees). Listed on the receipt at 0 % with no tax.
    Exempt,
}

impl TaxClass {
    /// Every class (ui/contract.js lists them).
    pub const ALL: [TaxClass; 3] = [TaxClass::Standard, TaxClass::Reduced, TaxClass::Exempt];
}

/// How the customer takes the food, chosen per sale at the register. Eating in is a meal
/// service and is taxed at the standard rate even for reduced-class items; taking out keeps
/// the reduced rate. Standard and exempt items are unaffected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dining {
    EatIn,
    #[default]
    TakeOut,
}

impl Dining {
    /// The class an item's tax is computed under for this sale.
    pub fn effective_class(self, class: TaxClass) -> TaxClass {
        match (self, class) {
            (Dining::EatIn, TaxClass::Reduced) => TaxClass::Standard,
            (Dining::EatIn | Dining::TakeOut, c) => c,
        }
    }
}
