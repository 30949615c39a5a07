//! The register's books beyond payments and refunds (record 0047): a sale's tenders
//! (cash, card or one of the store's own, with the change given) and the drawer's shifts (float, paid in and out,
//! the close with its Z number and over/short). They travel as `Fact` kinds; this module
//! holds their vocabulary and checks.
use crate::limits::MAX_AMOUNT;
// The id and amount checks live in `text` (so `store_tenders` needs nothing from here);
// the modules that read them here keep doing so.
pub(crate) use crate::text::{amount_or_zero, id};
use crate::store_tenders::StoreTender;
use crate::{text, ProtoError};
use serde::{Deserialize, Serialize};

/// How a tender paid (record 0028): `"cash"`, `"card"`, or `{"store": {...}}` with the
/// store tender type it was taken on (record 0121).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TenderMethod {
    Cash,
    Card,
    Store(StoreTender),
}

impl TenderMethod {
    pub const fn as_str(&self) -> &'static str {
        match self {
            TenderMethod::Cash => "cash",
            TenderMethod::Card => "card",
            TenderMethod::Store(_) => "store",
        }
    }
}

/// Cash into or out of the drawer outside a sale (record 0066).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawerMove {
    PaidIn,
    PaidOut,
}

impl DrawerMove {
    pub const fn as_str(self) -> &'static str {
        match self {
            DrawerMove::PaidIn => "paid_in",
            DrawerMove::PaidOut => "paid_out",
        }
    }
}

/// A tender as the register recorded it: `sale` is the register's own sale (cart) id,
/// `tender_seq` its place in the sale. Card tenders name their payment; cash tenders
/// carry what was handed over, the change and the rounding
/// (`cash_tendered - change = amount + rounding`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tender {
    pub sale: i64,
    pub tender_seq: i64,
    pub method: TenderMethod,
    pub amount: i64,
    pub currency: String,
    pub checkout_key: Option<String>,
    pub cash_tendered: Option<i64>,
    pub change: Option<i64>,
    pub rounding: Option<i64>,
    /// The drawer session it belongs to; `None` where the store runs without shifts.
    pub shift: Option<i64>,
    /// The register's id of the staff member signed in when it was taken (record 0143);
    /// `None` on a register run without staff, and from a register older than schema v35.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff: Option<i64>,
    /// That member's name then: a member the back office published has an id only the
    /// register knows (no `staff_saved` is sent for them), so the name is what labels them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staff_name: Option<String>,
}

/// Money that may be negative (rounding down, an expected drawer, a shortage).
pub(crate) fn signed_amount(field: &str, a: i64) -> Result<(), ProtoError> {
    if !(-MAX_AMOUNT..=MAX_AMOUNT).contains(&a) {
        return Err(ProtoError::field(field, format!("must be within ±{MAX_AMOUNT} minor units, got {a}")));
    }
    Ok(())
}

impl Tender {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        id(&f("sale"), self.sale)?;
        if !(1..=1000).contains(&self.tender_seq) {
            return Err(ProtoError::field(f("tender_seq"), format!("must be between 1 and 1000, got {}", self.tender_seq)));
        }
        text::amount(&f("amount"), self.amount)?;
        text::currency(&f("currency"), &self.currency)?;
        if let Some(s) = self.shift {
            id(&f("shift"), s)?;
        }
        if let Some(s) = self.staff {
            id(&f("staff"), s)?;
        }
        if let Some(n) = &self.staff_name {
            if self.staff.is_none() {
                return Err(ProtoError::field(f("staff_name"), "names a member but no staff id"));
            }
            crate::staff::check_staff_name(&f("staff_name"), n)?;
        }
        match &self.method {
            TenderMethod::Store(st) => {
                let cash_or_card = self.checkout_key.is_some() || self.cash_tendered.is_some() || self.rounding.is_some();
                st.validate(self.amount, cash_or_card, self.change, f)?
            }
            TenderMethod::Card => {
                let key = self.checkout_key.as_deref().ok_or_else(|| ProtoError::field(f("checkout_key"), "is required for a card tender"))?;
                text::key(&f("checkout_key"), key)?;
                if self.cash_tendered.is_some() || self.change.is_some() || self.rounding.is_some() {
                    return Err(ProtoError::field(f("cash_tendered"), "a card tender has no cash, change or rounding"));
                }
            }
            TenderMethod::Cash => {
                if self.checkout_key.is_some() {
                    return Err(ProtoError::field(f("checkout_key"), "a cash tender has no payment"));
                }
                let (Some(given), Some(change), Some(rounding)) = (self.cash_tendered, self.change, self.rounding) else {
                    return Err(ProtoError::field(f("cash_tendered"), "a cash tender needs cash_tendered, change and rounding"));
                };
                amount_or_zero(&f("cash_tendered"), given)?;
                amount_or_zero(&f("change"), change)?;
                signed_amount(&f("rounding"), rounding)?;
                if given - change != self.amount + rounding {
                    return Err(ProtoError::field(f("change"), format!("cash {given} less change {change} must be the amount {} plus rounding {rounding}", self.amount)));
                }
            }
        }
        Ok(())
    }
}
