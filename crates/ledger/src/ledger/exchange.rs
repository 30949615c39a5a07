//! Exchanges (issue #29, record 0123): goods of a paid sale come back and their worth
//! pays for a new sale, so the customer makes one payment or gets one refund for the
//! difference. Tables `exchanges`, `exchange_credits`, `exchange_credit_returns` (schema
//! v25).
//!
//! The return is an ordinary return of the old sale (record 0114: the same checks, the
//! same valuation from the locked tax, the same return document and facts). Of its worth
//! `R`, as much as the new sale has open becomes the new sale's *credit* `c = min(R,
//! open)`, and only `R - c` is given back (cards first, as any return). The credit is
//! no new money: it is taken out of the old sale's own tenders (cards first), which
//! keep it. So:
//!
//! - the new sale counts the credit as settled (it is paid when tenders + credit cover
//!   its total; it cannot be canceled while it holds one: the goods of the old sale are
//!   back in the store);
//! - the old sale's tenders have the credit less to give back;
//! - a later return or refund of the new sale gives its credit part back through those
//!   old tenders: a card refund on the OLD payment (with its own key), cash out of the
//!   drawer against the old cash tender, a voucher as itself. Card money never turns
//!   into cash by way of an exchange.
//!
//! Takings need no new line: money in is the tenders, money out is the refunds; the
//! credit is in neither, and sales net of returns count both sales and the return.

use paydesk_tax::Returned;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::audit::{append_audit, AuditInput};
use super::returns::{take_back_tx, ReturnInput};
use super::sale::{admit_tender_tx, card_keys, check_reason, load_tenders, own_slots_tx, refresh_cart_tx, CreditLink, Sale};
use super::{collect, Cached, Ledger, Returns};
use crate::error::{Error, Result};
use crate::ledger::returns::{ReturnPlan, MAX_RETURN_LINES};
use crate::tender::{Tender, TenderId};
use crate::types::*;
use crate::write_tx::WriteTx;

/// The credit of an exchange on its new sale.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangeCredit {
    pub exchange_id: i64,
    /// The return of the old sale that made it, and its number (`000012-R1`).
    pub return_id: i64,
    pub return_number: String,
    /// The old sale: this register's cart, or, when `restored_from` is set, the
    /// predecessor's sale id (record 0153; `return_id` is then a `restored_returns` id).
    pub old_cart_id: CartId,
    pub amount_minor: i64,
    /// The predecessor register whose restored sale's goods came back (record 0153).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_from: Option<String>,
}

/// An exchange as its return knows it: which new sale its credit paid, and how much.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangeOfReturn {
    pub exchange_id: i64,
    pub new_cart_id: CartId,
    pub amount_minor: i64,
}

impl<L: std::ops::Deref<Target = Ledger>> Returns<L> {
    /// The exchange a return made, if it was one (for its document).
    pub fn exchange_of_return(&self, return_id: i64) -> Result<Option<ExchangeOfReturn>> {
        Ok(self
            .conn
            .row_cached("SELECT id, new_cart_id, credit_minor FROM exchanges WHERE return_id = ?1", [return_id], |r| {
                Ok(ExchangeOfReturn { exchange_id: r.get(0)?, new_cart_id: CartId(r.get(1)?), amount_minor: r.get(2)? })
            })
            .optional()?)
    }
}

/// What [`Returns::exchange`] committed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangePlan {
    pub exchange_id: i64,
    /// The return of the old sale; its card refunds (the difference, when the goods
    /// back are worth more than the new sale) are to be driven, each under its key.
    pub ret: ReturnPlan,
    pub credit_minor: i64,
    /// The new sale with its credit: paid, or with what is left to pay.
    pub new_sale: Sale,
}

impl Returns<&mut Ledger> {
    /// Takes back `items` of the paid sale `old_cart` and puts their worth on the open
    /// sale `new_cart` (see the module), in ONE transaction: the return, what it gives
    /// back, the credit and where it came from, the audit rows. Refused, nothing
    /// written: everything [`Returns::take_back`] refuses; a new sale in another
    /// currency ([`Error::ExchangeCurrencyMismatch`]), one already holding a credit or
    /// with nothing open ([`Error::ExchangeNewSaleRefused`]), one paid, canceled,
    /// empty, or with a card tender of unknown outcome (as a tender would be); goods
    /// worth nothing ([`Error::ExchangeNothingToCredit`]); an old sale whose own tenders
    /// cannot hold the credit and whose own credit cannot carry the rest on (a restored
    /// sale's credit, record 0153: [`Error::ExchangeOfCreditedSale`]). An old sale paid by
    /// this register's exchange credit carries the rest on from it (record 0155).
    pub fn exchange(
        &mut self,
        old_cart: CartId,
        items: &[Returned],
        new_cart: CartId,
        reason: Option<&str>,
        ryoshusho_taken_back: bool,
        now_ms: i64,
    ) -> Result<ExchangePlan> {
        if items.is_empty() || items.len() > MAX_RETURN_LINES {
            return Err(Error::InvalidInput(format!("an exchange returns 1 to {MAX_RETURN_LINES} lines")));
        }
        let reason = reason.map(check_reason).transpose()?;
        let mut keys = card_keys(self, old_cart)?;
        let tx = self.write_tx()?;
        let input = ReturnInput { cart_id: old_cart, items, reason, ryoshusho_taken_back, now_ms };
        let (ret, exchange_id) = take_back_tx(&tx, &mut keys, &input, Some(new_cart))?;
        let exchange_id = exchange_id.expect("an exchange's return answers its exchange");
        let new_sale = refresh_cart_tx(&tx, new_cart, now_ms)?;
        let credit = new_sale.exchange_credit.as_ref().map(|c| c.amount_minor).expect("the new sale holds the credit");
        assert!(
            new_sale.totals.settled_minor <= new_sale.totals.total_minor,
            "exchange {exchange_id}: the new sale's settled exceeds its total"
        );
        tx.commit()?;
        Ok(ExchangePlan { exchange_id, ret, credit_minor: credit, new_sale })
    }
}

/// One part of a credit: how much of which tender, and, when the old sale's own tender
/// could not hold it, the credit of the old sale it is carried on from (`exchange_credits`
/// id, schema v41, record 0155): then the tender is an earlier sale's.
pub(in crate::ledger) type CreditPart = (TenderId, i64, Option<i64>);

/// The credit an exchange will write: on which new sale, how much, out of which of the
/// old sale's tenders, or carried on from the old sale's own credit.
pub(super) struct CreditPlan {
    pub new_cart: CartId,
    pub credit_minor: i64,
    pub from: Vec<CreditPart>,
}

/// Checks the new sale and sizes the credit for goods worth `worth_minor` (inside the
/// exchange's transaction, before anything of the return is written). Locks the new
/// sale's tax, as its first tender would: its total may not change under a credit. The
/// credit comes out of the old sale's own tenders first; the rest is carried on from the
/// credit that paid the old sale (record 0155), its parts in the same order. A restored
/// sale's credit (record 0153) has no parts here: what it would have to hold is refused.
pub(super) fn plan_credit_tx(tx: &WriteTx<'_>, old: &Sale, new_cart: CartId, worth_minor: i64, now_ms: i64) -> Result<CreditPlan> {
    let old_cart_id = old.cart.id.0;
    if new_cart == old.cart.id {
        return Err(Error::ExchangeNewSaleRefused { new_cart_id: new_cart.0, why: "it is the sale whose goods come back" });
    }
    let open = new_sale_open_tx(tx, old_cart_id, old.cart.currency, new_cart, worth_minor, now_ms)?;
    let credit_minor = worth_minor.min(open);
    let mut rest = credit_minor;
    let mut from = Vec::new();
    let own = own_slots_tx(tx, old)?.into_iter().map(|s| (s.tender.id, s.left, None));
    let carried = credit_slots_tx(tx, old)?.into_iter().map(|(credit, t, left)| (t.id, left, Some(credit)));
    for (tender, left, carried_from) in own.chain(carried) {
        let take = rest.min(left);
        if take > 0 {
            from.push((tender, take, carried_from));
            rest -= take;
        }
    }
    if rest > 0 {
        if old.exchange_credit.as_ref().is_some_and(|c| c.restored_from.is_some()) {
            return Err(Error::ExchangeOfCreditedSale { old_cart_id });
        }
        // Its tenders (and its own credit) gave part of it back already, by amount.
        return Err(Error::SaleRefundExceeds { cart_id: old_cart_id, requested_minor: credit_minor, refundable_minor: credit_minor - rest });
    }
    Ok(CreditPlan { new_cart, credit_minor, from })
}

/// Checks the new sale of an exchange whose goods, worth `worth_minor`, came from sale
/// `old_sale` (this register's or a predecessor's, record 0153) paid in `currency`, and
/// answers what it has open. Locks the new sale's tax, as its first tender would: its total
/// may not change under a credit.
pub(super) fn new_sale_open_tx(
    tx: &WriteTx<'_>,
    old_sale: i64,
    currency: paydesk_domain::Currency,
    new_cart: CartId,
    worth_minor: i64,
    now_ms: i64,
) -> Result<i64> {
    if worth_minor == 0 {
        return Err(Error::ExchangeNothingToCredit { old_cart_id: old_sale });
    }
    let new = admit_tender_tx(tx, new_cart, None, now_ms)?;
    if new.cart.currency != currency {
        return Err(Error::ExchangeCurrencyMismatch {
            old_cart_id: old_sale,
            old_currency: currency.code().to_string(),
            new_cart_id: new_cart.0,
            new_currency: new.cart.currency.code().to_string(),
        });
    }
    if new.exchange_credit.is_some() {
        return Err(Error::ExchangeNewSaleRefused { new_cart_id: new_cart.0, why: "it holds another exchange's credit" });
    }
    super::cart_tax::lock_tax_tx(tx, new_cart)?;
    let open = super::sale::sale_tx(tx, new_cart)?.totals.open_minor();
    if open <= 0 {
        return Err(Error::ExchangeNewSaleRefused { new_cart_id: new_cart.0, why: "nothing is open to pay" });
    }
    Ok(open)
}

/// Writes the exchange, its credits and its audit row; answers its id.
pub(super) fn write_credit_tx(
    tx: &WriteTx<'_>,
    return_id: i64,
    old: &Sale,
    plan: &CreditPlan,
    staff: Option<i64>,
    now_ms: i64,
) -> Result<i64> {
    tx.exec_cached(
        "INSERT INTO exchanges (return_id, old_cart_id, new_cart_id, credit_minor, created_at_ms, staff_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![return_id, old.cart.id.0, plan.new_cart.0, plan.credit_minor, now_ms, staff],
    )?;
    let id = tx.last_insert_rowid();
    for (tender, amount, carried_from) in &plan.from {
        if let Some(from_credit) = carried_from {
            // The hand-over first: the trigger on the credit row checks it was carried.
            tx.exec_cached(
                "INSERT INTO exchange_credit_carries (from_credit, to_exchange_id, amount_minor) VALUES (?1, ?2, ?3)",
                params![from_credit, id, amount],
            )?;
        }
        tx.exec_cached(
            "INSERT INTO exchange_credits (exchange_id, tender_id, amount_minor) VALUES (?1, ?2, ?3)",
            params![id, tender.0, amount],
        )?;
    }
    let after = serde_json::json!({
        "old_sale": old.cart.id.0, "new_sale": plan.new_cart.0, "return_id": return_id, "credit": plan.credit_minor,
        "from_tenders": plan.from.iter().map(|(t, a, c)| serde_json::json!({ "tender": t.0, "amount": a, "carried_from_credit": c })).collect::<Vec<_>>(),
    });
    let input = AuditInput {
        actor_id: staff,
        after: Some(after.to_string()),
        ..AuditInput::new("sale_exchange", &format!("exchange {id}: sale {} to sale {}", old.cart.id.0, plan.new_cart.0))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(id)
}

/// The exchange credit on a sale, if any: of this register's exchanges, or of an exchange
/// of a restored sale (record 0153; at most one of either, held by v40's triggers). One
/// statement for both: it is on every checkout's path (record 0108 pins their number).
pub(super) fn credit_of_tx(conn: &Connection, cart_id: CartId) -> Result<Option<ExchangeCredit>> {
    Ok(conn
        .row_cached(
            "SELECT x.id, x.return_id, r.number, r.sale_id, x.credit_minor, r.source FROM restored_exchanges x
               JOIN restored_returns r ON r.id = x.return_id WHERE x.new_cart_id = ?1
             UNION ALL
             SELECT e.id, e.return_id, r.number, e.old_cart_id, e.credit_minor, NULL FROM exchanges e
               JOIN returns r ON r.id = e.return_id WHERE e.new_cart_id = ?1
             LIMIT 1",
            [cart_id.0],
            |r| {
                Ok(ExchangeCredit {
                    exchange_id: r.get(0)?,
                    return_id: r.get(1)?,
                    return_number: r.get(2)?,
                    old_cart_id: CartId(r.get(3)?),
                    amount_minor: r.get(4)?,
                    restored_from: r.get(5)?,
                })
            },
        )
        .optional()?)
}

/// What exchanges credited out of a tender and still hold: no longer its own sale's to
/// give back. (What a credit gave back through the tender is already among the tender's
/// refunds, drawer movements or store refunds; counting it here too would count it twice.
/// What a credit carried on to a later credit, record 0155, is that credit's row on the
/// same tender: counted there, once.)
pub(super) fn credited_out_tx(conn: &Connection, tender: TenderId) -> Result<i64> {
    Ok(conn.row_cached(
        "SELECT COALESCE(SUM(ec.amount_minor), 0) - COALESCE((
                SELECT SUM(x.amount_minor) FROM exchange_credit_returns x JOIN exchange_credits c ON c.id = x.credit_id
                LEFT JOIN refunds rf ON rf.id = x.refund_id
                WHERE c.tender_id = ?1 AND (x.refund_id IS NULL OR rf.state != 'failed')), 0) - COALESCE((
                SELECT SUM(k.amount_minor) FROM exchange_credit_carries k JOIN exchange_credits c ON c.id = k.from_credit
                WHERE c.tender_id = ?1), 0)
         FROM exchange_credits ec WHERE ec.tender_id = ?1",
        [tender.0],
        |r| r.get(0),
    )?)
}

/// The tenders the sale's credit came out of, with what each credit still holds (a card
/// refund that failed gave nothing back; what was carried on to a later credit, record
/// 0155, is that credit's): `(credit id, tender, left)`, cards first, then store tenders,
/// then cash, as any give-back. A credit carried on holds tenders of an earlier sale than
/// its old sale: tenders are loaded by their own sale.
pub(super) fn credit_slots_tx(conn: &Connection, sale: &Sale) -> Result<Vec<(i64, Tender, i64)>> {
    let Some(credit) = &sale.exchange_credit else { return Ok(Vec::new()) };
    // A restored exchange's credit lies in the predecessor's tenders, which are not rows
    // here: nothing goes back through it (the allocation refuses that part, record 0153).
    if credit.restored_from.is_some() {
        return Ok(Vec::new());
    }
    let rows: Vec<(i64, i64, i64, i64)> = collect(
        conn,
        "SELECT ec.id, ec.tender_id, t.cart_id, ec.amount_minor - COALESCE((
                    SELECT SUM(x.amount_minor) FROM exchange_credit_returns x LEFT JOIN refunds rf ON rf.id = x.refund_id
                    WHERE x.credit_id = ec.id AND (x.refund_id IS NULL OR rf.state != 'failed')), 0)
                - COALESCE((SELECT SUM(k.amount_minor) FROM exchange_credit_carries k WHERE k.from_credit = ec.id), 0)
         FROM exchange_credits ec JOIN tenders t ON t.id = ec.tender_id
         WHERE ec.exchange_id = ?1
         ORDER BY CASE t.kind WHEN 'card' THEN 0 WHEN 'store' THEN 1 ELSE 2 END, t.id",
        [credit.exchange_id],
        |r| Ok(Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))),
    )?;
    let mut loaded: Vec<(i64, Vec<Tender>)> = Vec::new();
    rows.into_iter()
        .map(|(id, tender, cart, left)| {
            assert!(left >= 0, "exchange credit {id}: gave back or carried on more than it held ({left} left)");
            if !loaded.iter().any(|(c, _)| *c == cart) {
                loaded.push((cart, load_tenders(conn, CartId(cart))?));
            }
            let tenders = loaded.iter().find(|(c, _)| *c == cart).map(|(_, t)| t).expect("loaded just above");
            let t = tenders.iter().find(|t| t.id.0 == tender).cloned().ok_or(Error::UnknownValue {
                what: "exchange credit tender",
                value: tender.to_string(),
            })?;
            Ok((id, t, left))
        })
        .collect()
}

/// Links a give-back through an exchange credit to what carried it.
pub(in crate::ledger) fn credit_returned_tx(tx: &WriteTx<'_>, credit: i64, amount_minor: i64, link: CreditLink) -> Result<()> {
    let (refund, movement, store) = match link {
        CreditLink::Refund(id) => (Some(id), None, None),
        CreditLink::Movement(id) => (None, Some(id), None),
        CreditLink::StoreRefund(id) => (None, None, Some(id)),
    };
    tx.exec_cached(
        "INSERT INTO exchange_credit_returns (credit_id, amount_minor, refund_id, movement_id, store_refund_id)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![credit, amount_minor, refund, movement, store],
    )?;
    Ok(())
}
