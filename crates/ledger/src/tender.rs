//! Sales paid by several tenders (record 0028): the vocabulary — what a tender is, the
//! state each one is in as the sale sees it, the sale's state — and the arithmetic the
//! ledger applies in its write path: what is settled and due, cash rounding and change.
//! Pure functions over integer minor units; the ledger calls them inside the
//! transaction that writes, and the property tests call them directly.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use paydesk_domain::money::{Currency, Money};
use paydesk_domain::state::PaymentState;
use paydesk_domain::TenderKind;
use crate::types::{CartId, PaymentId};

/// Row id of a tender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TenderId(pub i64);

impl std::fmt::Display for TenderId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What is stored about a tender beyond its payment (column `tenders.standing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TenderStanding {
    /// Part of the sale: counts according to its [`TenderState`].
    Active,
    /// A card tender whose outcome was unknown when the cashier overrode it with a
    /// reason to take another tender (record 0028). It never counts toward the sale,
    /// even if its payment later succeeds: that money is owed back to the customer.
    Superseded,
}

impl TenderStanding {
    pub const fn as_str(self) -> &'static str {
        match self {
            TenderStanding::Active => "active",
            TenderStanding::Superseded => "superseded",
        }
    }
}

impl std::str::FromStr for TenderStanding {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "active" => Ok(TenderStanding::Active),
            "superseded" => Ok(TenderStanding::Superseded),
            other => Err(Error::UnknownValue { what: "tender standing", value: other.to_string() }),
        }
    }
}

/// A tender as the sale sees it, derived from its kind, its standing and (for a card)
/// its payment's state and offline flag — never stored, so it cannot disagree with the
/// payment (record 0029).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TenderState {
    /// Money taken: cash recorded, or the card payment captured (refunds later do not
    /// undo the sale; they are returns).
    Settled,
    /// A card payment accepted offline (queued, or being forwarded): counts as settled
    /// until the PSP declines it, which reopens the sale's amount due.
    Offline,
    /// Authorized, not captured (manual capture): the amount is reserved but not settled.
    Held,
    /// The card payment's outcome is not known yet (`created`, `authorizing`,
    /// `capturing`): reserved, and it blocks any new tender (record 0028).
    Pending,
    /// Declined, failed or voided: nothing taken; frees its amount.
    Void,
    /// Overridden while pending; never counts ([`TenderStanding::Superseded`]).
    Superseded,
}

impl TenderState {
    /// A card tender's state from its payment.
    pub const fn of_card(standing: TenderStanding, payment: PaymentState, offline: bool) -> TenderState {
        if let TenderStanding::Superseded = standing {
            return TenderState::Superseded;
        }
        match payment {
            PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded => TenderState::Settled,
            PaymentState::QueuedOffline => TenderState::Offline,
            // A forwarded offline payment whose answer is not in yet: the customer left
            // with the goods, the sale stays settled until the PSP says otherwise.
            PaymentState::Authorizing if offline => TenderState::Offline,
            PaymentState::Created | PaymentState::Authorizing | PaymentState::Capturing | PaymentState::OnReader => {
                TenderState::Pending
            }
            PaymentState::Authorized => TenderState::Held,
            PaymentState::Failed | PaymentState::Canceled => TenderState::Void,
        }
    }

    /// A cash tender's state.
    pub const fn of_cash(standing: TenderStanding) -> TenderState {
        match standing {
            TenderStanding::Active => TenderState::Settled,
            TenderStanding::Superseded => TenderState::Superseded,
        }
    }

    /// Counts toward the sale's settled amount.
    pub const fn is_settled(self) -> bool {
        match self {
            TenderState::Settled | TenderState::Offline => true,
            TenderState::Held | TenderState::Pending | TenderState::Void | TenderState::Superseded => false,
        }
    }

    /// Its amount is taken out of what a new tender may cover (settled, held or pending).
    pub const fn reserves_amount(self) -> bool {
        match self {
            TenderState::Settled | TenderState::Offline | TenderState::Held | TenderState::Pending => true,
            TenderState::Void | TenderState::Superseded => false,
        }
    }

    /// Its outcome is unknown: no new tender starts without an override.
    pub const fn is_unknown(self) -> bool {
        match self {
            TenderState::Pending => true,
            TenderState::Settled | TenderState::Offline | TenderState::Held | TenderState::Void | TenderState::Superseded => {
                false
            }
        }
    }

    /// Every state (ui/contract.js lists them; `as_str` is exhaustive).
    pub const ALL: [TenderState; 6] = [
        TenderState::Settled,
        TenderState::Offline,
        TenderState::Held,
        TenderState::Pending,
        TenderState::Void,
        TenderState::Superseded,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            TenderState::Settled => "settled",
            TenderState::Offline => "offline",
            TenderState::Held => "held",
            TenderState::Pending => "pending",
            TenderState::Void => "void",
            TenderState::Superseded => "superseded",
        }
    }
}

/// Where a sale stands (record 0029), derived from its cart, tenders and cancel row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SaleState {
    /// Nothing tendered (or every tender void): the cart can still be edited.
    Open,
    /// Some money settled or a tender outstanding; an amount is still due.
    PartiallyPaid,
    /// Settled tenders add up to the total.
    Paid,
    /// It was paid, then a card tender accepted offline was declined when forwarded:
    /// the amount due is open again and must be collected (End of day lists it).
    UnpaidBalance,
    /// Canceled by the cashier; refunds of its card tenders are still being confirmed.
    Canceling,
    /// Canceled: every settled card tender refunded or voided, cash handed back.
    Canceled,
}

impl SaleState {
    /// Every state (ui/contract.js lists them; `as_str` is exhaustive).
    pub const ALL: [SaleState; 6] = [
        SaleState::Open,
        SaleState::PartiallyPaid,
        SaleState::Paid,
        SaleState::UnpaidBalance,
        SaleState::Canceling,
        SaleState::Canceled,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SaleState::Open => "open",
            SaleState::PartiallyPaid => "partially_paid",
            SaleState::Paid => "paid",
            SaleState::UnpaidBalance => "unpaid_balance",
            SaleState::Canceling => "canceling",
            SaleState::Canceled => "canceled",
        }
    }

    /// A new tender may be added.
    pub const fn takes_tenders(self) -> bool {
        match self {
            SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance => true,
            SaleState::Paid | SaleState::Canceling | SaleState::Canceled => false,
        }
    }

    /// The cashier may still cancel it (a paid sale is refunded instead).
    pub const fn may_cancel(self) -> bool {
        match self {
            SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance | SaleState::Canceling => true,
            SaleState::Paid | SaleState::Canceled => false,
        }
    }
}

/// Stored state of a sale cancel (table `sale_cancels`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CancelState {
    Canceling,
    Canceled,
}

impl CancelState {
    pub const fn as_str(self) -> &'static str {
        match self {
            CancelState::Canceling => "canceling",
            CancelState::Canceled => "canceled",
        }
    }
}

impl std::str::FromStr for CancelState {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "canceling" => Ok(CancelState::Canceling),
            "canceled" => Ok(CancelState::Canceled),
            other => Err(Error::UnknownValue { what: "cancel state", value: other.to_string() }),
        }
    }
}

/// Why cash moved in or out of the drawer (table `cash_movements`; signed amounts, + in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CashMovementKind {
    /// What the customer handed over for a cash tender; on a store tender, the change it
    /// gave handed back by the customer when its sale was canceled (record 0148).
    SaleIn,
    /// Change given back for a cash tender or a change-giving store tender.
    ChangeOut,
    /// A canceled sale's cash handed back.
    CancelReturn,
    /// A refund paid in cash.
    RefundOut,
}

impl CashMovementKind {
    pub const ALL: [CashMovementKind; 4] =
        [CashMovementKind::SaleIn, CashMovementKind::ChangeOut, CashMovementKind::CancelReturn, CashMovementKind::RefundOut];

    pub const fn as_str(self) -> &'static str {
        match self {
            CashMovementKind::SaleIn => "sale_in",
            CashMovementKind::ChangeOut => "change_out",
            CashMovementKind::CancelReturn => "cancel_return",
            CashMovementKind::RefundOut => "refund_out",
        }
    }

    /// Money into the drawer (+) or out of it (-).
    pub const fn is_in(self) -> bool {
        match self {
            CashMovementKind::SaleIn => true,
            CashMovementKind::ChangeOut | CashMovementKind::CancelReturn | CashMovementKind::RefundOut => false,
        }
    }
}

impl std::str::FromStr for CashMovementKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        CashMovementKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| Error::UnknownValue { what: "cash movement kind", value: s.to_string() })
    }
}

/// One tender row, with its derived state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tender {
    pub id: TenderId,
    pub cart_id: CartId,
    /// 1, 2, … within the sale.
    pub seq: i64,
    pub kind: TenderKind,
    /// What it pays of the sale.
    pub amount: Money,
    pub standing: TenderStanding,
    pub state: TenderState,
    /// Card only: the payment (its checkout key is `checkout_key`).
    pub payment_id: Option<PaymentId>,
    pub checkout_key: Option<String>,
    pub payment_state: Option<PaymentState>,
    /// Card only: accepted offline (stored and forwarded, record 0009).
    pub offline: bool,
    /// Cash only: handed over, given back, and the cash rounding (+ the customer paid
    /// more than the exact amount, - less): `tendered - change = amount + rounding`.
    pub cash_tendered_minor: Option<i64>,
    pub change_minor: Option<i64>,
    pub rounding_minor: Option<i64>,
    pub created_at_ms: i64,
    /// Why it was superseded (the cashier's override reason).
    pub superseded_reason: Option<String>,
    /// Store tender only (record 0118): its type, slip number, and what was forfeited
    /// (boxed: a card or cash tender carries no more than a pointer for it).
    pub store: Option<Box<StoreTenderInfo>>,
}

/// What a store tender (record 0118) records beyond its amount. `change_minor` of the
/// tender is the change given from the drawer (only a type that gives change);
/// `offered - change - forfeited = amount`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreTenderInfo {
    pub tender_type_id: paydesk_domain::TenderTypeId,
    /// The type's name as it is now (the receipt and reports print it).
    pub type_name: String,
    pub type_kind: paydesk_domain::StoreTenderKind,
    /// Counts like cash for the 領収書 stamp rule.
    pub counts_for_stamp: bool,
    /// The slip or approval number the cashier typed, if any.
    pub reference: Option<String>,
    /// The face value handed over (a ¥1,000 voucher).
    pub offered_minor: i64,
    /// What was not paid out as change because the type gives none.
    pub forfeited_minor: i64,
}

/// A sale's money: `due = total - settled`, always derived (record 0029).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SaleTotals {
    pub total_minor: i64,
    pub settled_minor: i64,
    /// Held or pending card tenders: not settled, but a new tender may not cover them.
    pub outstanding_minor: i64,
    pub due_minor: i64,
}

impl SaleTotals {
    /// Totals of `(state, amount)` pairs against the sale's total. Refuses (an error,
    /// never a wrapped number) a sum that overflows; the caller asserts that settled
    /// never exceeds the total.
    pub fn of(total_minor: i64, tenders: impl IntoIterator<Item = (TenderState, i64)>) -> Result<SaleTotals> {
        let mut settled: i64 = 0;
        let mut outstanding: i64 = 0;
        for (state, amount) in tenders {
            if state.is_settled() {
                settled = settled.checked_add(amount).ok_or(Error::Overflow)?;
            } else if state.reserves_amount() {
                outstanding = outstanding.checked_add(amount).ok_or(Error::Overflow)?;
            }
        }
        let due = total_minor.checked_sub(settled).ok_or(Error::Overflow)?;
        Ok(SaleTotals { total_minor, settled_minor: settled, outstanding_minor: outstanding, due_minor: due })
    }

    /// What a new tender may cover: due minus what held or pending tenders reserve.
    pub fn open_minor(&self) -> i64 {
        (self.due_minor - self.outstanding_minor).max(0)
    }
}

/// Cash rounding of one currency: amounts paid in cash are rounded to the nearest
/// multiple of `increment_minor` (1 = none), halves up (record 0030).
pub fn round_cash(due_minor: i64, increment_minor: i64) -> i64 {
    assert!(increment_minor >= 1, "cash rounding increment {increment_minor}");
    if increment_minor == 1 {
        return due_minor;
    }
    let rem = due_minor.rem_euclid(increment_minor);
    let down = due_minor - rem;
    if rem * 2 >= increment_minor {
        down + increment_minor
    } else {
        down
    }
}

/// The largest rounding increment a store may set (10.00 in a 2-decimal currency).
pub const MAX_CASH_ROUNDING_INCREMENT: i64 = 1000;

/// What a cash tender records, computed before anything is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashSplit {
    /// What it pays of the sale.
    pub amount_minor: i64,
    pub tendered_minor: i64,
    pub change_minor: i64,
    /// `tendered - change - amount`: the cash rounding, + when rounded up.
    pub rounding_minor: i64,
    /// It pays everything that was open.
    pub completes: bool,
}

impl CashSplit {
    /// `tendered` cash against `open` (what the sale still needs, > 0) with the
    /// currency's rounding. Cash that covers the rounded amount completes the sale and
    /// gets change; less than that is a part payment without rounding. Between the exact
    /// and the rounded amount is refused: no coin makes that difference.
    pub fn compute(open_minor: i64, tendered_minor: i64, increment_minor: i64, currency: Currency) -> Result<CashSplit> {
        if open_minor <= 0 {
            return Err(Error::InvalidAmount("nothing is due".into()));
        }
        if tendered_minor < 0 {
            return Err(Error::InvalidAmount(format!("cash tendered {tendered_minor} is negative")));
        }
        let rounded = round_cash(open_minor, increment_minor);
        if tendered_minor >= rounded {
            let change = tendered_minor - rounded;
            let split = CashSplit {
                amount_minor: open_minor,
                tendered_minor,
                change_minor: change,
                rounding_minor: rounded - open_minor,
                completes: true,
            };
            debug_assert_eq!(split.tendered_minor - split.change_minor, split.amount_minor + split.rounding_minor);
            return Ok(split);
        }
        if tendered_minor == 0 {
            return Err(Error::InvalidAmount("cash tendered must be greater than zero".into()));
        }
        if tendered_minor >= open_minor {
            return Err(Error::InvalidAmount(format!(
                "{} covers the exact amount but not the cash amount {} (rounded to {} in cash)",
                Money::new(tendered_minor, currency),
                Money::new(rounded, currency),
                Money::new(increment_minor, currency),
            )));
        }
        Ok(CashSplit {
            amount_minor: tendered_minor,
            tendered_minor,
            change_minor: 0,
            rounding_minor: 0,
            completes: false,
        })
    }
}

/// One movement of the drawer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashMovement {
    pub id: i64,
    pub at_ms: i64,
    pub kind: CashMovementKind,
    /// Signed: + into the drawer.
    pub amount: Money,
    pub cart_id: Option<CartId>,
    pub tender_id: Option<TenderId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_goes_to_the_nearest_increment_halves_up() {
        assert_eq!(round_cash(1003, 5), 1005);
        assert_eq!(round_cash(1002, 5), 1000);
        assert_eq!(round_cash(1005, 5), 1005);
        assert_eq!(round_cash(1007, 5), 1005);
        assert_eq!(round_cash(1008, 5), 1010);
        assert_eq!(round_cash(1234, 1), 1234);
        assert_eq!(round_cash(2, 5), 0);
    }

    #[test]
    fn cash_covering_the_rounded_amount_completes_with_change() {
        let s = CashSplit::compute(1003, 2000, 5, Currency::Eur).unwrap();
        assert_eq!(s, CashSplit { amount_minor: 1003, tendered_minor: 2000, change_minor: 995, rounding_minor: 2, completes: true });
        let s = CashSplit::compute(1002, 1000, 5, Currency::Eur).unwrap();
        assert_eq!((s.change_minor, s.rounding_minor, s.completes), (0, -2, true));
        let part = CashSplit::compute(1003, 500, 5, Currency::Eur).unwrap();
        assert_eq!((part.amount_minor, part.change_minor, part.completes), (500, 0, false));
        assert!(CashSplit::compute(1003, 1004, 5, Currency::Eur).is_err());
        assert!(CashSplit::compute(1003, 0, 5, Currency::Eur).is_err());
        assert!(CashSplit::compute(0, 10, 1, Currency::Eur).is_err());
    }

    #[test]
    fn every_payment_state_maps_to_one_tender_state() {
        for p in PaymentState::ALL {
            let s = TenderState::of_card(TenderStanding::Active, p, false);
            assert!(!(s.is_settled() && s.is_unknown()), "{p}: {s:?}");
            assert_eq!(TenderState::of_card(TenderStanding::Superseded, p, false), TenderState::Superseded);
        }
        assert_eq!(TenderState::of_card(TenderStanding::Active, PaymentState::Authorizing, true), TenderState::Offline);
    }
}
