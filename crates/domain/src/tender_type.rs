//! The store's own tender types (issue #29, record 0118): a gift voucher (商品券), a
//! standalone terminal for e-money or QR codes, a store account. The owner names them and
//! says whether change is given and whether they count as cash for the 領収書 stamp rule;
//! the cashier then records an amount and a slip or approval number against one.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::money::ValueError;

/// Longest name of a tender type, and longest slip / approval number (characters).
pub const MAX_TENDER_TYPE_NAME: usize = 40;
/// Longest slip or approval number recorded with a store tender (characters).
pub const MAX_TENDER_REFERENCE: usize = 40;

/// Row id of a tender type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TenderTypeId(pub i64);

impl std::fmt::Display for TenderTypeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What kind of thing a store tender is (the reports group by type; the kind says what
/// the owner meant, and is what the back office can sum across stores).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreTenderKind {
    /// A paper or card voucher (商品券, gift certificate).
    Voucher,
    /// A card terminal not connected to the register (its own slip).
    ExternalTerminal,
    /// E-money on a standalone reader (transit IC, …).
    EMoney,
    /// A QR code payment (PayPay, …) on the customer's phone.
    Qr,
    /// Charged to the customer's account with the store, paid later.
    StoreAccount,
}

impl StoreTenderKind {
    /// Every kind (`as_str` is exhaustive).
    pub const ALL: [StoreTenderKind; 5] = [
        StoreTenderKind::Voucher,
        StoreTenderKind::ExternalTerminal,
        StoreTenderKind::EMoney,
        StoreTenderKind::Qr,
        StoreTenderKind::StoreAccount,
    ];

    /// The storage and wire form (`tender_types.kind`).
    pub const fn as_str(self) -> &'static str {
        match self {
            StoreTenderKind::Voucher => "voucher",
            StoreTenderKind::ExternalTerminal => "external_terminal",
            StoreTenderKind::EMoney => "e_money",
            StoreTenderKind::Qr => "qr",
            StoreTenderKind::StoreAccount => "store_account",
        }
    }

    /// What a new type of this kind gives by default: only a voucher is commonly worth
    /// more than the sale (the rest are charged for the exact amount), and a store that
    /// gives change on vouchers says so explicitly.
    pub const fn default_gives_change(self) -> bool {
        match self {
            StoreTenderKind::Voucher
            | StoreTenderKind::ExternalTerminal
            | StoreTenderKind::EMoney
            | StoreTenderKind::Qr
            | StoreTenderKind::StoreAccount => false,
        }
    }
}

impl FromStr for StoreTenderKind {
    type Err = ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        StoreTenderKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| ValueError::UnknownValue { what: "store tender kind", value: s.to_string() })
    }
}

/// A tender type the store defined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TenderType {
    pub id: TenderTypeId,
    /// What the cashier, the receipt and the reports call it (1-40 characters).
    pub name: String,
    pub kind: StoreTenderKind,
    /// More than is due gives change out of the drawer; otherwise the tender is capped at
    /// what is due and the rest is forfeited (a ¥1,000 voucher on an ¥800 sale).
    pub gives_change: bool,
    /// Counts like cash toward the 領収書 revenue stamp threshold.
    pub counts_for_stamp: bool,
    /// Offered at the counter; an inactive type stays on the sales that used it.
    pub active: bool,
}

/// A tender type's name, trimmed: 1-40 characters, no control characters.
pub fn checked_name(name: &str) -> Option<&str> {
    let n = name.trim();
    let len = n.chars().count();
    ((1..=MAX_TENDER_TYPE_NAME).contains(&len) && !n.chars().any(char::is_control)).then_some(n)
}

/// A slip or approval number, trimmed: 1-40 characters, no control characters.
pub fn checked_reference(reference: &str) -> Option<&str> {
    let r = reference.trim();
    let len = r.chars().count();
    ((1..=MAX_TENDER_REFERENCE).contains(&len) && !r.chars().any(char::is_control)).then_some(r)
}

/// What a store tender of `offered_minor` records against `due_minor` (> 0): the amount
/// it pays of the sale, the change given from the drawer, and what is forfeited. A type
/// that gives change pays at most what is due and gives the rest back; one that does not
/// pays at most what is due and the rest is forfeited, never taken from the drawer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSplit {
    pub offered_minor: i64,
    pub amount_minor: i64,
    pub change_minor: i64,
    pub forfeited_minor: i64,
}

impl StoreSplit {
    /// `None` when nothing is due or nothing is offered.
    pub fn compute(due_minor: i64, offered_minor: i64, gives_change: bool) -> Option<StoreSplit> {
        if due_minor <= 0 || offered_minor <= 0 {
            return None;
        }
        let amount = offered_minor.min(due_minor);
        let over = offered_minor - amount;
        let (change, forfeited) = if gives_change { (over, 0) } else { (0, over) };
        Some(StoreSplit { offered_minor, amount_minor: amount, change_minor: change, forfeited_minor: forfeited })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip() {
        for k in StoreTenderKind::ALL {
            assert_eq!(k.as_str().parse::<StoreTenderKind>().unwrap(), k);
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.as_str()));
        }
        assert!("cheque".parse::<StoreTenderKind>().is_err());
    }

    #[test]
    fn names_and_references_are_bounded() {
        assert_eq!(checked_name("  商品券 "), Some("商品券"));
        assert_eq!(checked_name(""), None);
        assert_eq!(checked_name(&"x".repeat(41)), None);
        assert_eq!(checked_name(&"券".repeat(40)), Some("券".repeat(40).as_str()));
        assert_eq!(checked_name("a\nb"), None);
        assert_eq!(checked_reference("A-123"), Some("A-123"));
        assert_eq!(checked_reference(&"1".repeat(41)), None);
    }

    #[test]
    fn a_voucher_without_change_is_capped_and_the_rest_forfeited() {
        let s = StoreSplit::compute(800, 1000, false).unwrap();
        assert_eq!((s.amount_minor, s.change_minor, s.forfeited_minor), (800, 0, 200));
        let s = StoreSplit::compute(800, 1000, true).unwrap();
        assert_eq!((s.amount_minor, s.change_minor, s.forfeited_minor), (800, 200, 0));
        let s = StoreSplit::compute(800, 500, false).unwrap();
        assert_eq!((s.amount_minor, s.change_minor, s.forfeited_minor), (500, 0, 0));
        assert_eq!(StoreSplit::compute(0, 500, false), None);
        assert_eq!(StoreSplit::compute(800, 0, true), None);
    }
}
