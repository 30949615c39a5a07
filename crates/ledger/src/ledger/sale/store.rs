//! Store tenders (record 0118): an amount of one of the store's own tender types (a
//! voucher, a standalone terminal, …) with its slip or approval number, recorded with the
//! sale's completion in ONE transaction. Settled at once, like cash, but nothing enters
//! the drawer; a type that gives change pays the change out of the drawer, one that does
//! not is capped at what is due and the rest is forfeited (never change).

use serde::{Deserialize, Serialize};

use super::cash::movement_tx;
use super::{admit_tender_tx, insert_tender_tx, refresh_cart_tx, tender_by_id, PaidBy, Sale};
use crate::error::{Error, Result};
use crate::ledger::tender_types::tender_type_tx;
use crate::ledger::{Ledger, Sales};
use crate::tender::*;
use crate::types::*;
use paydesk_domain::money::Money;
use paydesk_domain::tender_type::{checked_reference, StoreSplit};
use paydesk_domain::TenderTypeId;

/// What [`Sales::pay_store`] recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreTender {
    pub tender: Tender,
    pub split: StoreSplit,
    /// The sale after it (paid when this tender completed it).
    pub sale: Sale,
}

impl Sales<&mut Ledger> {
    /// Takes `offered_minor` of the store tender type `type_id` for the sale of `cart_id`,
    /// with the slip or approval number `reference` (1-40 characters) if there is one.
    /// It pays at most what is open; above that the type's `gives_change` decides between
    /// change out of the drawer (a `change_out` movement) and forfeiting the rest. Refused
    /// for an unknown or inactive type, and while a card tender's outcome is unknown
    /// unless `override_reason` is given (as [`Sales::pay_cash`]).
    pub fn pay_store(
        &mut self,
        cart_id: CartId,
        type_id: TenderTypeId,
        offered_minor: i64,
        reference: Option<&str>,
        override_reason: Option<&str>,
        now_ms: i64,
    ) -> Result<StoreTender> {
        let reference = reference
            .map(|r| checked_reference(r).ok_or_else(|| Error::InvalidInput("a slip number needs 1 to 40 printable characters".into())))
            .transpose()?;
        if offered_minor <= 0 {
            return Err(Error::InvalidAmount(format!("a store tender of {offered_minor} must be greater than zero")));
        }
        let tx = self.write_tx()?;
        let ty = tender_type_tx(&tx, type_id)?;
        if !ty.active {
            return Err(Error::TenderTypeInactive { id: type_id.0, name: ty.name });
        }
        let sale = admit_tender_tx(&tx, cart_id, override_reason, now_ms)?;
        let open = sale.totals.open_minor();
        let split = StoreSplit::compute(open, offered_minor, ty.gives_change)
            .ok_or(Error::TenderExceedsDue { cart_id: cart_id.0, requested_minor: offered_minor, open_minor: open })?;
        let currency = sale.cart.currency;
        let paid_by = PaidBy::Store { type_id, split: &split, reference };
        let id = insert_tender_tx(&tx, cart_id, Money::new(split.amount_minor, currency), paid_by, now_ms)?;
        if split.change_minor > 0 {
            // Change for a voucher worth more than the sale comes out of the drawer like
            // cash change, so the drawer count knows it.
            crate::ledger::shift::admit_money_tx(&tx)?;
            movement_tx(&tx, CashMovementKind::ChangeOut, -split.change_minor, currency, cart_id, Some(id), now_ms)?;
        }
        let sale = refresh_cart_tx(&tx, cart_id, now_ms)?;
        let tender = tender_by_id(&tx, cart_id, id)?;
        tx.commit()?;
        Ok(StoreTender { tender, split, sale })
    }
}
