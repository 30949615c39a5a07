//! Returns of a sale restored from a replaced register (issue #29, record 0144): the
//! Returns store's methods for a predecessor's sale, held read-only in `restored_history`
//! (record 0048). Tables `restored_returns`, `restored_return_lines`, `restored_return_rates`,
//! `restored_return_tenders` and `restored_payments` (schema v36).
//!
//! The sale is rebuilt from the predecessor's facts (`sale.rs`) with everything given back
//! so far, its own returns and refunds included; a return is then valued, allocated and
//! recorded in ONE transaction (`take.rs`), linked to (predecessor, sale id). Card refunds
//! are ordinary refund rows on the predecessor's payment, each with its own key written
//! before any request, driven afterwards by the engine like any refund.

mod give;
mod receipt;
mod sale;
mod take;

use std::ops::Deref;

use paydesk_domain::Currency;
use paydesk_tax::{RateReturn, Returned, TaxClass};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::catalog::parse_class;
use super::sale::check_reason;
use super::{collect, Cached, Ledger, Returns};
use crate::error::{Error, Result};
use crate::types::{Refund, RefundId};

pub(in crate::ledger) use give::{credit_held_on_payment_tx, restored_credit_tx, GiveBack, RestoredCredit};
pub use receipt::RestoredReceipt;
pub use sale::{RestoredSale, RestoredSaleLine, RestoredTender};

/// A line of a restored sale's return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredReturnLine {
    /// Its place in the sale's fact (0-based).
    pub line: usize,
    pub sku: String,
    pub name: String,
    pub quantity: u32,
    pub class: TaxClass,
    pub net_minor: i64,
}

/// Where a restored return's money went: a card refund or this register's drawer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredReturnTender {
    /// The predecessor's tender of the sale (`tender_seq`).
    pub tender_seq: i64,
    pub amount_minor: i64,
    pub refund_id: Option<RefundId>,
    pub movement_id: Option<i64>,
}

/// A recorded return of a restored sale.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredReturnRecord {
    pub id: i64,
    /// The predecessor's register id and its sale.
    pub source: String,
    pub sale_id: i64,
    /// The sale's receipt number and time, as the predecessor printed them.
    pub receipt_no: String,
    pub sale_at_ms: i64,
    /// Its place among all the sale's returns, the predecessor's first.
    pub seq: i64,
    /// The receipt number, "-R" and the seq.
    pub number: String,
    pub created_at_ms: i64,
    pub staff_id: Option<i64>,
    pub reason: Option<String>,
    pub currency: Currency,
    pub total_minor: i64,
    pub tax_minor: i64,
    pub cash_out_minor: i64,
    pub lines: Vec<RestoredReturnLine>,
    pub rates: Vec<RateReturn>,
    pub tenders: Vec<RestoredReturnTender>,
}

/// What [`Returns::take_back_restored`] committed: the return and the card refunds to drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredReturnPlan {
    pub record: RestoredReturnRecord,
    pub card_refunds: Vec<Refund>,
    /// Paid out of this register's drawer (already recorded).
    pub cash_out_minor: i64,
}

pub(super) struct RestoredReturnInput<'a> {
    pub items: &'a [Returned],
    pub reason: Option<&'a str>,
    pub now_ms: i64,
}

impl<L: Deref<Target = Ledger>> Returns<L> {
    /// The restored sale `sale` of predecessor `source`, with what is left of it. Refused:
    /// a source never restored from ([`Error::UnknownRestoreSource`]) or not finished
    /// ([`Error::RestoreNotFinished`]), a sale it never completed
    /// ([`Error::UnknownRestoredSale`]), facts this build cannot read
    /// ([`Error::RestoredSaleNotValued`]).
    pub fn restored_sale(&self, source: &str, sale: i64) -> Result<RestoredSale> {
        sale::restored_sale_tx(&self.conn, source, sale)
    }

    /// The predecessor and sale id of the restored sale with this receipt number, from
    /// `source` when given, else from whichever predecessor has it (refused when none does,
    /// or more than one: [`Error::AmbiguousRestoredReceipt`]).
    pub fn restored_by_receipt(&self, receipt_no: &str, source: Option<&str>) -> Result<(String, i64)> {
        let mut found = sale::by_receipt(&self.conn, receipt_no)?;
        if let Some(s) = source {
            found.retain(|(f, _)| f == s);
        }
        match found.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(Error::UnknownRestoredSale {
                register: source.unwrap_or("any restored register").to_string(),
                sale: receipt_no.parse().unwrap_or(0),
            }),
            many => Err(Error::AmbiguousRestoredReceipt { receipt_no: receipt_no.to_string(), sources: many.iter().map(|(s, _)| s.clone()).collect() }),
        }
    }

    /// Every restored sale whose receipt number is `receipt_no` (as printed, `000001`), each
    /// with its predecessor's name, time and total, oldest restore first (record 0159).
    pub fn restored_receipts(&self, receipt_no: &str) -> Result<Vec<RestoredReceipt>> {
        receipt::restored_receipts(&self.conn, receipt_no)
    }

    /// The returns this register made of a restored sale, in order.
    pub fn restored_returns_of(&self, source: &str, sale: i64) -> Result<Vec<RestoredReturnRecord>> {
        let ids: Vec<i64> =
            collect(&self.conn, "SELECT id FROM restored_returns WHERE source = ?1 AND sale_id = ?2 ORDER BY seq", params![source, sale], |r| r.get(0).map(Ok))?;
        ids.into_iter().map(|id| record_tx(&self.conn, id)).collect()
    }

    /// The restored exchange a restored return made, if it was one: `(exchange id, new sale, credit)`.
    pub fn restored_exchange_of_return(&self, return_id: i64) -> Result<Option<(i64, crate::types::CartId, i64)>> {
        Ok(self
            .conn
            .row_cached("SELECT id, new_cart_id, credit_minor FROM restored_exchanges WHERE return_id = ?1", [return_id], |r| {
                Ok((r.get(0)?, crate::types::CartId(r.get(1)?), r.get(2)?))
            })
            .optional()?)
    }

    /// One return of a restored sale.
    pub fn restored_return(&self, id: i64) -> Result<RestoredReturnRecord> {
        record_tx(&self.conn, id)
    }
}

impl Returns<&mut Ledger> {
    /// Takes back `items` (lines as the sale's fact lists them) of the restored sale `sale`
    /// of predecessor `source` and gives their worth back: each card through its own new
    /// refund (at most what its payment has left after the predecessor's refunds and this
    /// register's), then cash out of this register's open shift. Refused, nothing written:
    /// everything [`Returns::restored_sale`] refuses; an empty or too long list, a line named
    /// twice or with quantity 0 (`InvalidInput`); a line the sale does not have
    /// ([`Error::ReturnUnknownLine`]) or more than is left of it counting the predecessor's
    /// returns ([`Error::ReturnExceedsSold`], `cart_id` being the predecessor's sale id); a
    /// canceled sale ([`Error::RestoredSaleCanceled`]); a card payment whose outcome is
    /// unknown ([`Error::RestoredPaymentUnsettled`]); money that would have to go back
    /// through a store tender ([`Error::RestoredStoreTender`]); a sale the predecessor
    /// exchanged from ([`Error::RestoredExchangedThere`]); more than the tenders have
    /// left ([`Error::RestoredRefundExceeds`]); an open refund of one of its cards here
    /// ([`Error::RefundInProgress`]); cash with no open shift or nobody signed in where
    /// shifts are required (`admit_money_tx`).
    pub fn take_back_restored(&mut self, source: &str, sale: i64, items: &[Returned], reason: Option<&str>, now_ms: i64) -> Result<RestoredReturnPlan> {
        if items.is_empty() || items.len() > super::returns::MAX_RETURN_LINES {
            return Err(Error::InvalidInput(format!("a return names 1 to {} lines", super::returns::MAX_RETURN_LINES)));
        }
        let reason = reason.map(check_reason).transpose()?;
        // One fresh key per card tender, drawn before the write transaction (the key source
        // is the ledger's, which the transaction borrows); the sale is read again inside it.
        let cards = sale::restored_sale_tx(&self.conn, source, sale)?.tenders.iter().filter(|t| t.kind == paydesk_domain::TenderKind::Card).count();
        let mut keys: Vec<String> = (0..cards).map(|_| self.new_key()).collect();
        let tx = self.write_tx()?;
        let restored = sale::restored_sale_tx(&tx, source, sale)?;
        let input = RestoredReturnInput { items, reason, now_ms };
        let (id, card_refunds, _) = take::take_back_tx(&tx, &restored, &input, &mut keys, None)?;
        let record = record_tx(&tx, id)?;
        tx.commit()?;
        let cash_out_minor = record.cash_out_minor;
        Ok(RestoredReturnPlan { record, card_refunds, cash_out_minor })
    }

    /// An exchange of a restored sale (record 0153): takes back `items` of the restored sale
    /// `sale` of predecessor `source` as [`Returns::take_back_restored`] does and puts their
    /// worth on this register's open sale `new_cart`, in ONE transaction. As much as the new
    /// sale has open becomes its credit, taken out of the restored sale's tenders (cards
    /// first, then cash), which keep it; only the rest is given back (cards first, each its
    /// own refund on the predecessor's payment, then cash out of this drawer). Refused,
    /// nothing written: everything `take_back_restored` refuses; everything an exchange
    /// refuses of its new sale ([`Error::ExchangeNewSaleRefused`],
    /// [`Error::ExchangeCurrencyMismatch`], [`Error::ExchangeNothingToCredit`], a sale paid,
    /// canceled or with a card of unknown outcome); a credit that would come out of a store
    /// tender ([`Error::RestoredStoreTender`]).
    pub fn exchange_restored(
        &mut self,
        source: &str,
        sale: i64,
        items: &[Returned],
        new_cart: crate::types::CartId,
        reason: Option<&str>,
        now_ms: i64,
    ) -> Result<RestoredExchangePlan> {
        if items.is_empty() || items.len() > super::returns::MAX_RETURN_LINES {
            return Err(Error::InvalidInput(format!("an exchange returns 1 to {} lines", super::returns::MAX_RETURN_LINES)));
        }
        let reason = reason.map(check_reason).transpose()?;
        let cards = sale::restored_sale_tx(&self.conn, source, sale)?.tenders.iter().filter(|t| t.kind == paydesk_domain::TenderKind::Card).count();
        let mut keys: Vec<String> = (0..cards).map(|_| self.new_key()).collect();
        let tx = self.write_tx()?;
        let restored = sale::restored_sale_tx(&tx, source, sale)?;
        let input = RestoredReturnInput { items, reason, now_ms };
        let (id, card_refunds, exchange_id) = take::take_back_tx(&tx, &restored, &input, &mut keys, Some(new_cart))?;
        let exchange_id = exchange_id.expect("an exchange's return answers its exchange");
        let record = record_tx(&tx, id)?;
        let new_sale = crate::ledger::sale::refresh_cart_tx(&tx, new_cart, now_ms)?;
        let credit_minor = new_sale.exchange_credit.as_ref().map(|c| c.amount_minor).expect("the new sale holds the credit");
        assert!(new_sale.totals.settled_minor <= new_sale.totals.total_minor, "restored exchange {exchange_id}: the new sale's settled exceeds its total");
        tx.commit()?;
        let cash_out_minor = record.cash_out_minor;
        Ok(RestoredExchangePlan { exchange_id, ret: RestoredReturnPlan { record, card_refunds, cash_out_minor }, credit_minor, new_sale })
    }

}

/// What [`Returns::exchange_restored`] committed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredExchangePlan {
    pub exchange_id: i64,
    /// The return of the restored sale; its card refunds (the difference, when the goods
    /// back are worth more than the new sale) are to be driven, each under its key.
    pub ret: RestoredReturnPlan,
    pub credit_minor: i64,
    /// The new sale with its credit: paid, or with what is left to pay.
    pub new_sale: crate::ledger::sale::Sale,
}

fn class_of(s: String) -> Result<TaxClass> {
    parse_class(&s).ok_or(Error::UnknownValue { what: "tax class", value: s })
}

fn record_tx(conn: &rusqlite::Connection, id: i64) -> Result<RestoredReturnRecord> {
    type Head = ((String, i64, String, i64, i64), (String, i64, Option<i64>, Option<String>, String), (i64, i64, i64));
    let head: Head = conn
        .row_cached(
            "SELECT source, sale_id, receipt_no, sale_at_ms, seq, number, created_at_ms, staff_id, reason, currency,
                    total_minor, tax_minor, cash_out_minor FROM restored_returns WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                    (r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?),
                    (r.get(10)?, r.get(11)?, r.get(12)?),
                ))
            },
        )
        .optional()?
        .ok_or(Error::UnknownReturn(id))?;
    let ((source, sale_id, receipt_no, sale_at_ms, seq), (number, created_at_ms, staff_id, reason, currency), (total_minor, tax_minor, cash_out_minor)) = head;
    let (lines, rates, tenders) = (lines_tx(conn, id)?, rates_tx(conn, id)?, tenders_tx(conn, id)?);
    Ok(RestoredReturnRecord {
        id,
        source,
        sale_id,
        receipt_no,
        sale_at_ms,
        seq,
        number,
        created_at_ms,
        staff_id,
        reason,
        currency: currency.parse::<Currency>()?,
        total_minor,
        tax_minor,
        cash_out_minor,
        lines,
        rates,
        tenders,
    })
}

fn lines_tx(conn: &rusqlite::Connection, id: i64) -> Result<Vec<RestoredReturnLine>> {
    collect(
        conn,
        "SELECT line, sku, name, quantity, class, net_minor FROM restored_return_lines WHERE return_id = ?1 ORDER BY line",
        [id],
        |r| {
            let line = usize::try_from(r.get::<_, i64>(0)?).map_err(|_| Error::Overflow);
            let class = class_of(r.get(4)?);
            let (sku, name, quantity, net_minor) = (r.get(1)?, r.get(2)?, r.get(3)?, r.get(5)?);
            Ok(line.and_then(|line| Ok(RestoredReturnLine { line, sku, name, quantity, class: class?, net_minor })))
        },
    )
}

fn rates_tx(conn: &rusqlite::Connection, id: i64) -> Result<Vec<RateReturn>> {
    collect(
        conn,
        "SELECT class, ppm, base_minor, tax_minor, gross_minor FROM restored_return_rates WHERE return_id = ?1
         ORDER BY CASE class WHEN 'standard' THEN 0 WHEN 'reduced' THEN 1 ELSE 2 END",
        [id],
        |r| {
            let class = class_of(r.get(0)?);
            let (ppm, base, tax, gross) = (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
            Ok(class.map(|class| RateReturn { class, ppm, base, tax, gross }))
        },
    )
}

fn tenders_tx(conn: &rusqlite::Connection, id: i64) -> Result<Vec<RestoredReturnTender>> {
    collect(
        conn,
        "SELECT tender_seq, amount_minor, refund_id, movement_id FROM restored_return_tenders WHERE return_id = ?1 ORDER BY tender_seq, rowid",
        [id],
        |r| {
            Ok(Ok(RestoredReturnTender {
                tender_seq: r.get(0)?,
                amount_minor: r.get(1)?,
                refund_id: r.get::<_, Option<i64>>(2)?.map(RefundId),
                movement_id: r.get(3)?,
            }))
        },
    )
}
