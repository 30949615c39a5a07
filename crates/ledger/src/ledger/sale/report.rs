//! What End of day reads about tenders (record 0033): totals per tender kind, the cash
//! the drawer should hold, sales with an unpaid balance, and charges of superseded
//! tenders that are owed back. Read-only.

use std::ops::Deref;
use crate::ledger::Sales;
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::sale_tx;
use crate::ledger::takings::{takings_tx, Period};
use crate::error::Result;
use crate::ledger::{collect, Ledger};
use paydesk_domain::money::Currency;
use crate::tender::*;
use paydesk_domain::TenderKind;
use crate::types::*;

/// Most sales listed per section of the report.
const MAX_LISTED: i64 = 500;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TenderKindTotal {
    pub kind: TenderKind,
    pub currency: Currency,
    pub count: i64,
    pub settled_minor: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnpaidBalance {
    pub cart_id: CartId,
    pub currency: Currency,
    pub total_minor: i64,
    pub due_minor: i64,
    pub state: SaleState,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct TenderDay {
    /// Tenders created since the report's start that count as takings (settled or
    /// accepted offline, their sale not canceled), per kind and currency.
    pub by_kind: Vec<TenderKindTotal>,
    /// Sum of every cash movement per currency: what the drawer should hold. `None` while
    /// a shift is open: that figure belongs to the blind close (record 0069), and only
    /// the audited X report shows it until the close. One rule for the app and the CLI.
    pub expected_drawer: Option<Vec<(Currency, i64)>>,
    /// Sales that were paid until an offline card tender was declined and whose balance
    /// is still owed, oldest first, at most 500.
    pub unpaid_balances: Vec<UnpaidBalance>,
    /// Unpaid balances beyond those listed (the list never hides that there are more).
    pub unpaid_balances_not_listed: i64,
    /// Canceled sales whose refunds are not all confirmed yet.
    pub canceling: Vec<CartId>,
    /// Checkout keys of superseded card tenders whose payment went through anyway.
    pub superseded_charged: Vec<String>,
    /// Such charges beyond those listed.
    pub superseded_charged_not_listed: i64,
}

impl<L: Deref<Target = Ledger>> Sales<L> {
    /// The tender part of End of day for tenders created at or after `since_ms`.
    pub fn tender_day(&self, since_ms: i64) -> Result<TenderDay> {
        // Per kind by the takings' definitions (End of day's headline figures and the X /
        // Z reports): a canceled sale's tenders are not takings.
        let currencies = collect(
            &self.conn,
            "SELECT DISTINCT currency FROM tenders WHERE created_at_ms >= ?1 ORDER BY currency",
            params![since_ms],
            |r| Ok(r.get::<_, String>(0)?.parse::<Currency>().map_err(crate::Error::from)),
        )?;
        let mut by_kind: Vec<TenderKindTotal> = Vec::new();
        for currency in currencies {
            let t = takings_tx(&self.conn, currency, Period::Since(since_ms))?;
            by_kind.extend(t.by_kind.into_iter().map(|k| TenderKindTotal { kind: k.kind, currency, count: k.count, settled_minor: k.amount_minor }));
        }
        // Every sale with a declined offline tender is read, not the first few: a balance
        // collected later no longer counts, and a LIMIT here once hid the newest unpaid
        // ones behind older, settled ones. They are few (offline declines), and listed
        // up to MAX_LISTED with a count of the rest.
        let reopened = collect(
            &self.conn,
            "SELECT DISTINCT t.cart_id FROM tenders t JOIN payments p ON p.id = t.payment_id
             WHERE p.offline = 1 AND p.state = 'failed' AND t.standing = 'active' ORDER BY t.cart_id",
            [],
            |r| Ok(Ok(CartId(r.get(0)?))),
        )?;
        let mut unpaid_balances = Vec::new();
        let mut unpaid_balances_not_listed = 0i64;
        for cart in reopened {
            let s = sale_tx(&self.conn, cart)?;
            match s.state {
                SaleState::UnpaidBalance if unpaid_balances.len() < MAX_LISTED as usize => unpaid_balances.push(UnpaidBalance {
                    cart_id: cart,
                    currency: s.cart.currency,
                    total_minor: s.totals.total_minor,
                    due_minor: s.totals.due_minor,
                    state: s.state,
                }),
                SaleState::UnpaidBalance => unpaid_balances_not_listed += 1,
                SaleState::Open | SaleState::PartiallyPaid | SaleState::Paid | SaleState::Canceling | SaleState::Canceled => {}
            }
        }
        const SUPERSEDED_CHARGED: &str = "FROM tenders t JOIN payments p ON p.id = t.payment_id
             WHERE t.standing = 'superseded' AND p.state IN ('captured','authorized','queued_offline','partially_refunded')";
        let superseded_charged = collect(
            &self.conn,
            &format!("SELECT p.idempotency_key {SUPERSEDED_CHARGED} ORDER BY p.id LIMIT ?1"),
            params![MAX_LISTED],
            |r| Ok(Ok(r.get(0)?)),
        )?;
        let superseded_all: i64 = self.conn.query_row(&format!("SELECT count(*) {SUPERSEDED_CHARGED}"), [], |r| r.get(0))?;
        Ok(TenderDay {
            by_kind,
            expected_drawer: match self.shifts().current()? {
                Some(_open) => None,
                None => Some(self.expected_drawer()?),
            },
            unpaid_balances,
            unpaid_balances_not_listed,
            canceling: self.canceling()?,
            superseded_charged_not_listed: superseded_all - superseded_charged.len() as i64,
            superseded_charged,
        })
    }
}
