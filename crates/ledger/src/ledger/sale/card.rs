//! Card tenders (design §8.3): a card tender IS a payment with its own checkout key
//! (design §3 rules 1-6 unchanged), for part or all of what the sale still needs. Its
//! key, request and tender row are committed in ONE transaction before anything is sent.

use serde::{Deserialize, Serialize};

use super::{admit_tender_tx, insert_tender_tx, refresh_cart_tx, sale_tx, tender_by_id};
use crate::error::{Error, Result};
use crate::ledger::payments::insert_payment;
use crate::ledger::rows::payment_by_id_tx;
use crate::ledger::Ledger;
use crate::money::Money;
use crate::tender::*;
use crate::types::*;

/// What [`Ledger::open_card_tender`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardTender {
    pub tender: Tender,
    pub payment: Payment,
    /// False: the sale's pending card tender for the same amount, returned as it is (a
    /// repeated press resumes the same key, design §3.3).
    pub is_new: bool,
}

impl Ledger {
    /// Opens a card tender of `amount_minor` (everything still open when `None`) for the
    /// sale of `cart_id`: a new payment (state `created`, fresh key, exact request) and
    /// its tender row, committed together before the caller sends anything.
    ///
    /// * a pending card tender of the sale for the same amount (or `None`) is returned
    ///   with `is_new == false`: pressing Charge again reuses its key;
    /// * a pending card tender otherwise refuses with [`Error::TenderUnknownOutstanding`]
    ///   unless `override_reason` is given (the pending one is superseded, audited);
    /// * more than is open is [`Error::TenderExceedsDue`]; a paid sale
    ///   [`Error::SaleComplete`]; a canceled one [`Error::SaleCanceled`].
    pub fn open_card_tender(
        &mut self,
        cart_id: CartId,
        amount_minor: Option<i64>,
        options: &CheckoutOptions,
        override_reason: Option<&str>,
        now_ms: i64,
    ) -> Result<CardTender> {
        if let Some(a) = amount_minor {
            if a <= 0 {
                return Err(Error::InvalidAmount(format!("a card tender of {a} must be greater than zero")));
            }
        }
        let key = self.new_key();
        let tx = self.write_tx()?;
        if override_reason.is_none() {
            let sale = sale_tx(&tx, cart_id)?;
            if let Some(t) = sale.unknown_tender() {
                if amount_minor.is_none_or(|a| a == t.amount.amount_minor) {
                    let payment = payment_by_id_tx(&tx, t.payment_id.expect("a card tender has a payment"))?;
                    return Ok(CardTender { tender: t.clone(), payment, is_new: false });
                }
            }
        }
        let sale = admit_tender_tx(&tx, cart_id, override_reason, now_ms)?;
        let open = sale.totals.open_minor();
        let amount = amount_minor.unwrap_or(open);
        if amount > open || amount <= 0 {
            return Err(Error::TenderExceedsDue { cart_id: cart_id.0, requested_minor: amount, open_minor: open });
        }
        let money = Money::positive(amount, sale.cart.currency)?;
        let pid = insert_payment(&tx, &key, money, options, Some(cart_id), now_ms)?;
        let id = insert_tender_tx(&tx, cart_id, TenderKind::Card, money, Some(pid), None, now_ms)?;
        refresh_cart_tx(&tx, cart_id, now_ms)?;
        let tender = tender_by_id(&tx, cart_id, id)?;
        let payment = payment_by_id_tx(&tx, pid)?;
        tx.commit()?;
        Ok(CardTender { tender, payment, is_new: true })
    }
}
