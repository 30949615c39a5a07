//! Cash tenders (record 0030): the amount handed over, the change, and the store's cash
//! rounding, recorded with the sale's completion and the drawer's movements in ONE
//! transaction (one durable commit).

use std::ops::Deref;
use crate::ledger::Sales;
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{admit_tender_tx, cash_rounding_tx, insert_tender_tx, PaidBy, refresh_cart_tx, tender_by_id, Sale};
use crate::error::{Error, Result};
use crate::ledger::{collect, Ledger};
use paydesk_domain::money::{Currency, Money};
use crate::tender::*;
use crate::types::*;
use crate::write_tx::WriteTx;

/// What [`Sales::pay_cash`] recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashTender {
    pub tender: Tender,
    pub split: CashSplit,
    /// The sale after it (paid when this cash completed it).
    pub sale: Sale,
}

impl Sales<&mut Ledger> {
    /// Takes `tendered_minor` in cash for the sale of `cart_id`. Cash that covers what
    /// is open (rounded to the currency's cash rounding) completes the sale and the
    /// difference is the change; less is a part payment. One transaction: the tender,
    /// the drawer's `sale_in` / `change_out`, the cart marked paid when complete.
    /// Refused while a card tender's outcome is unknown unless `override_reason` is
    /// given (that tender is then superseded, audited).
    pub fn pay_cash(&mut self, cart_id: CartId, tendered_minor: i64, override_reason: Option<&str>, now_ms: i64) -> Result<CashTender> {
        let tx = self.write_tx()?;
        let sale = admit_tender_tx(&tx, cart_id, override_reason, now_ms)?;
        let open = sale.totals.open_minor();
        if open <= 0 {
            // Everything left is reserved by a held (authorized) card tender.
            return Err(Error::TenderExceedsDue { cart_id: cart_id.0, requested_minor: tendered_minor, open_minor: 0 });
        }
        let currency = sale.cart.currency;
        let increment = cash_rounding_tx(&tx, currency)?;
        let split = CashSplit::compute(open, tendered_minor, increment, currency)?;
        let id = insert_tender_tx(&tx, cart_id, Money::new(split.amount_minor, currency), PaidBy::Cash(&split), now_ms)?;
        if split.tendered_minor > 0 {
            movement_tx(&tx, CashMovementKind::SaleIn, split.tendered_minor, currency, cart_id, Some(id), now_ms)?;
        }
        if split.change_minor > 0 {
            movement_tx(&tx, CashMovementKind::ChangeOut, -split.change_minor, currency, cart_id, Some(id), now_ms)?;
        }
        let sale = refresh_cart_tx(&tx, cart_id, now_ms)?;
        // Cash that covers everything open completes the sale, unless a held card
        // tender still has to be captured.
        assert!(
            !split.completes || sale.totals.outstanding_minor > 0 || sale.state == SaleState::Paid,
            "sale {cart_id}: cash completed it but it is {}",
            sale.state.as_str()
        );
        let tender = tender_by_id(&tx, cart_id, id)?;
        tx.commit()?;
        Ok(CashTender { tender, split, sale })
    }

    /// Sets the store's cash rounding for a currency (1 = none; at most
    /// [`MAX_CASH_ROUNDING_INCREMENT`]). Applies to cash tenders from now on.
    pub fn set_cash_rounding(&mut self, currency: Currency, increment_minor: i64) -> Result<()> {
        if !(1..=MAX_CASH_ROUNDING_INCREMENT).contains(&increment_minor) {
            return Err(Error::InvalidAmount(format!(
                "cash rounding {increment_minor} must be between 1 and {MAX_CASH_ROUNDING_INCREMENT} minor units"
            )));
        }
        let tx = self.write_tx()?;
        if increment_minor == 1 {
            tx.exec_cached("DELETE FROM cash_rounding WHERE currency = ?1", [currency.code()])?;
        } else {
            tx.exec_cached(
                "INSERT INTO cash_rounding (currency, increment_minor) VALUES (?1, ?2)
                 ON CONFLICT(currency) DO UPDATE SET increment_minor = excluded.increment_minor",
                params![currency.code(), increment_minor],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

impl<L: Deref<Target = Ledger>> Sales<L> {
    /// The cash rounding increment of a currency (1 = none).
    pub fn cash_rounding(&self, currency: Currency) -> Result<i64> {
        cash_rounding_tx(&self.conn, currency)
    }

    /// What the drawer should hold per currency: the sum of every cash movement.
    pub fn expected_drawer(&self) -> Result<Vec<(Currency, i64)>> {
        collect(
            &self.conn,
            "SELECT currency, SUM(amount_minor) FROM cash_movements GROUP BY currency ORDER BY currency",
            [],
            |r| {
                let c: String = r.get(0)?;
                let sum: i64 = r.get(1)?;
                Ok(c.parse::<paydesk_domain::money::Currency>().map(|c| (c, sum)).map_err(crate::Error::from))
            },
        )
    }

    /// The drawer's movements of one sale (or all, `None`), in order.
    pub fn cash_movements(&self, cart_id: Option<CartId>) -> Result<Vec<CashMovement>> {
        collect(
            &self.conn,
            "SELECT id, at_ms, kind, amount_minor, currency, cart_id, tender_id FROM cash_movements
             WHERE ?1 IS NULL OR cart_id = ?1 ORDER BY id",
            params![cart_id.map(|c| c.0)],
            |r| {
                let kind: String = r.get(2)?;
                let amount: i64 = r.get(3)?;
                let currency: String = r.get(4)?;
                let id = r.get(0)?;
                let at_ms = r.get(1)?;
                let cart_id = r.get::<_, Option<i64>>(5)?.map(CartId);
                let tender_id = r.get::<_, Option<i64>>(6)?.map(TenderId);
                Ok((|| {
                    Ok(CashMovement { id, at_ms, kind: kind.parse()?, amount: Money::new(amount, currency.parse()?), cart_id, tender_id })
                })())
            },
        )
    }
}

/// One drawer movement; `amount_minor` signed (+ in). A tender's `sale_in`,
/// `change_out` and `cancel_return` are written at most once (a unique index):
/// returns false when it was already there.
pub(super) fn movement_tx(
    tx: &WriteTx<'_>,
    kind: CashMovementKind,
    amount_minor: i64,
    currency: Currency,
    cart_id: CartId,
    tender_id: Option<TenderId>,
    now_ms: i64,
) -> Result<bool> {
    assert!(amount_minor != 0 && (amount_minor > 0) == kind.is_in(), "{} of {amount_minor}", kind.as_str());
    let n = tx.exec_cached(
        "INSERT INTO cash_movements (at_ms, kind, amount_minor, currency, cart_id, tender_id, shift_id, staff_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, (SELECT id FROM shifts WHERE closed_at_ms IS NULL),
                 (SELECT staff_id FROM register_session WHERE id = 1)) ON CONFLICT DO NOTHING",
        params![now_ms, kind.as_str(), amount_minor, currency.code(), cart_id.0, tender_id.map(|t| t.0)],
    )?;
    Ok(n == 1)
}
