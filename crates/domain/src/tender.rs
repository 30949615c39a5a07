//! How a tender pays (record 0028). The ledger's tenders, the receipt's tender lines and the
//! reports all speak of the same kinds: cash, card, and the store's own tender types
//! (record 0118, [`crate::tender_type`]).

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::money::ValueError;

/// How a tender pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TenderKind {
    /// Notes and coins in the drawer; settled the moment it is recorded.
    Cash,
    /// A payment at the PSP (its own checkout key, docs/design.md rules 1-6).
    Card,
    /// One of the store's own tender types (a voucher, a standalone terminal, …; record
    /// 0118): settled the moment it is recorded, like cash, but never in the drawer.
    Store,
}

impl TenderKind {
    /// Every kind (ui/contract.js lists them).
    pub const ALL: [TenderKind; 3] = [TenderKind::Cash, TenderKind::Card, TenderKind::Store];

    /// The storage and wire form (`tenders.kind`).
    pub const fn as_str(self) -> &'static str {
        match self {
            TenderKind::Cash => "cash",
            TenderKind::Card => "card",
            TenderKind::Store => "store",
        }
    }
}

impl FromStr for TenderKind {
    type Err = ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        match s {
            "cash" => Ok(TenderKind::Cash),
            "card" => Ok(TenderKind::Card),
            "store" => Ok(TenderKind::Store),
            other => Err(ValueError::UnknownValue { what: "tender kind", value: other.to_string() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms_round_trip() {
        for k in TenderKind::ALL {
            assert_eq!(k.as_str().parse::<TenderKind>().unwrap(), k);
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.as_str()));
        }
        assert!(matches!("cheque".parse::<TenderKind>(), Err(ValueError::UnknownValue { what: "tender kind", .. })));
    }
}
