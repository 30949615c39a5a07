//! What End of day reads about tenders (design §8.7): totals per tender kind, the cash
//! the drawer should hold, sales with an unpaid balance, and charges of superseded
//! tenders that are owed back. Read-only.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{load_tenders, sale_tx};
use crate::error::Result;
use crate::ledger::{collect, Ledger};
use crate::money::Currency;
use crate::tender::*;
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
    /// Settled tenders created since the report's start, per kind and currency.
    pub by_kind: Vec<TenderKindTotal>,
    /// Sum of every cash movement per currency: what the drawer should hold.
    pub expected_drawer: Vec<(Currency, i64)>,
    /// Sales that were paid until an offline card tender was declined.
    pub unpaid_balances: Vec<UnpaidBalance>,
    /// Canceled sales whose refunds are not all confirmed yet.
    pub canceling: Vec<CartId>,
    /// Checkout keys of superseded card tenders whose payment went through anyway.
    pub superseded_charged: Vec<String>,
}

impl Ledger {
    /// The tender part of End of day for tenders created at or after `since_ms`.
    pub fn tender_day(&self, since_ms: i64) -> Result<TenderDay> {
        let carts = collect(
            &self.conn,
            "SELECT DISTINCT cart_id FROM tenders WHERE created_at_ms >= ?1 ORDER BY cart_id",
            params![since_ms],
            |r| Ok(Ok(CartId(r.get(0)?))),
        )?;
        let mut by_kind: Vec<TenderKindTotal> = Vec::new();
        for cart in carts {
            for t in load_tenders(&self.conn, cart)? {
                if t.created_at_ms < since_ms || !t.state.is_settled() {
                    continue;
                }
                match by_kind.iter_mut().find(|k| k.kind == t.kind && k.currency == t.amount.currency) {
                    Some(k) => {
                        k.count += 1;
                        k.settled_minor = k.settled_minor.checked_add(t.amount.amount_minor).ok_or(crate::Error::Overflow)?;
                    }
                    None => by_kind.push(TenderKindTotal {
                        kind: t.kind,
                        currency: t.amount.currency,
                        count: 1,
                        settled_minor: t.amount.amount_minor,
                    }),
                }
            }
        }
        let reopened = collect(
            &self.conn,
            "SELECT DISTINCT t.cart_id FROM tenders t JOIN payments p ON p.id = t.payment_id
             WHERE p.offline = 1 AND p.state = 'failed' AND t.standing = 'active' ORDER BY t.cart_id LIMIT ?1",
            params![MAX_LISTED],
            |r| Ok(Ok(CartId(r.get(0)?))),
        )?;
        let mut unpaid_balances = Vec::new();
        for cart in reopened {
            let s = sale_tx(&self.conn, cart)?;
            if s.state == SaleState::UnpaidBalance {
                unpaid_balances.push(UnpaidBalance {
                    cart_id: cart,
                    currency: s.cart.currency,
                    total_minor: s.totals.total_minor,
                    due_minor: s.totals.due_minor,
                    state: s.state,
                });
            }
        }
        let superseded_charged = collect(
            &self.conn,
            "SELECT p.idempotency_key FROM tenders t JOIN payments p ON p.id = t.payment_id
             WHERE t.standing = 'superseded' AND p.state IN ('captured','authorized','queued_offline','partially_refunded')
             ORDER BY p.id LIMIT ?1",
            params![MAX_LISTED],
            |r| Ok(Ok(r.get(0)?)),
        )?;
        Ok(TenderDay {
            by_kind,
            expected_drawer: self.expected_drawer()?,
            unpaid_balances,
            canceling: self.sales_canceling()?,
            superseded_charged,
        })
    }
}
