//! Card tenders (record 0028): a card tender IS a payment with its own checkout key
//! (docs/design.md rules 1-6 unchanged), for part or all of what the sale still needs. Its
//! key, request and tender row are committed in ONE transaction before anything is sent.

use crate::ledger::Sales;
use serde::{Deserialize, Serialize};

use super::{admit_tender_tx, insert_tender_tx, PaidBy, refresh_cart_tx, sale_tx, tender_by_id};
use crate::error::{Error, Result};
use crate::ledger::payments::insert_payment;
use crate::ledger::rows::payment_by_id_tx;
use crate::ledger::Ledger;
use paydesk_domain::money::Money;
use crate::tender::*;
use crate::types::*;
use crate::write_tx::WriteTx;

/// What [`Sales::open_card_tender`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardTender {
    pub tender: Tender,
    pub payment: Payment,
    /// False: the sale's pending card tender for the same amount, returned as it is (a
    /// repeated press resumes the same key, record 0005).
    pub is_new: bool,
}

impl Sales<&mut Ledger> {
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
        check_card_amount(amount_minor)?;
        let key = self.new_key();
        let tx = self.write_tx()?;
        let money = match admit_card_tender_tx(&tx, cart_id, amount_minor, override_reason, now_ms)? {
            CardAdmission::Resume(pending) => return Ok(*pending),
            CardAdmission::New(money) => money,
        };
        let pid = insert_payment(&tx, &key, money, options, Some(cart_id), now_ms)?;
        let id = insert_tender_tx(&tx, cart_id, money, PaidBy::Card(pid), now_ms)?;
        refresh_cart_tx(&tx, cart_id, now_ms)?;
        let tender = tender_by_id(&tx, cart_id, id)?;
        let payment = payment_by_id_tx(&tx, pid)?;
        tx.commit()?;
        Ok(CardTender { tender, payment, is_new: true })
    }
}

/// What a card tender's admission found (keyed and reader tenders alike).
pub(in crate::ledger) enum CardAdmission {
    /// The sale's pending card tender for the same amount (or no amount given): pressing
    /// again resumes its key (record 0005).
    Resume(Box<CardTender>),
    /// A new tender of this amount may be committed in this transaction.
    New(Money),
}

/// A card tender's amount, checked before a key is made: `None` is "what is open".
pub(in crate::ledger) fn check_card_amount(amount_minor: Option<i64>) -> Result<()> {
    match amount_minor {
        Some(a) if a <= 0 => Err(Error::InvalidAmount(format!("a card tender of {a} must be greater than zero"))),
        Some(_) | None => Ok(()),
    }
}

/// Inside the tender's write transaction: resumes the sale's pending card tender for the
/// same amount (unless overridden), else admits a new one and says how much it is — at
/// most what is still open, never zero.
pub(in crate::ledger) fn admit_card_tender_tx(
    tx: &WriteTx<'_>,
    cart_id: CartId,
    amount_minor: Option<i64>,
    override_reason: Option<&str>,
    now_ms: i64,
) -> Result<CardAdmission> {
    if override_reason.is_none() {
        let sale = sale_tx(tx, cart_id)?;
        if let Some(t) = sale.unknown_tender() {
            if amount_minor.is_none_or(|a| a == t.amount.amount_minor) {
                let payment = payment_by_id_tx(tx, t.payment_id.expect("a card tender has a payment"))?;
                return Ok(CardAdmission::Resume(Box::new(CardTender { tender: t.clone(), payment, is_new: false })));
            }
        }
    }
    let sale = admit_tender_tx(tx, cart_id, override_reason, now_ms)?;
    let open = sale.totals.open_minor();
    let amount = amount_minor.unwrap_or(open);
    if amount > open || amount <= 0 {
        return Err(Error::TenderExceedsDue { cart_id: cart_id.0, requested_minor: amount, open_minor: open });
    }
    Ok(CardAdmission::New(Money::positive(amount, sale.cart.currency)?))
}
