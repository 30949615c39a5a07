//! A restored exchange's credit given back (record 0156, schema v43). A sale of this register
//! paid in part by the credit of an exchange of a restored sale (record 0153) gives that part
//! back where the credit came from, the predecessor's tenders, exactly as a restored return
//! gives money back (record 0144): a card refund on the predecessor's payment with its own
//! key (at most what the payment has left after the predecessor's refunds and every refund
//! made here), cash out of this register's open shift with a `cash_refunded` fact naming the
//! predecessor. Each give-back is linked to the credit part it came out of
//! (`restored_exchange_credit_returns`), so the credit holds less and the restored sale's
//! rebuild counts it as given back through the tender, once.

use paydesk_domain::TenderKind;
use rusqlite::{params, Connection};

use super::sale::{restored_sale_tx, RestoredSale};
use super::take::{restored_payment_tx, unsettled};
use crate::error::{Error, Result};
use crate::ledger::exchange::ExchangeCredit;
use crate::ledger::refunds::create_refund_tx;
use crate::ledger::{collect, Cached};
use crate::types::Refund;
use crate::write_tx::WriteTx;

/// One part of a restored credit: its `restored_exchange_credits` row, the predecessor's
/// tender (by `tender_seq`), what the part still holds, and what can go back through the
/// tender for it now.
struct Part {
    credit: i64,
    seq: i64,
    kind: TenderKind,
    held: i64,
    left: i64,
}

/// The predecessor's tenders a sale's restored credit came out of, rebuilt with everything
/// given back so far (the predecessor's refunds, this register's returns and every earlier
/// give-back), in the order money goes back: cards first, then cash.
pub(in crate::ledger) struct RestoredCredit {
    sale: RestoredSale,
    parts: Vec<Part>,
}

/// One give-back through a restored credit, written.
pub(in crate::ledger) struct GiveBack {
    /// Its `restored_exchange_credit_returns` row.
    pub link: i64,
    pub amount_minor: i64,
    /// The card refund to drive (on the predecessor's payment), or none for cash.
    pub refund: Option<Refund>,
    /// The drawer movement of cash paid out, or none for a card.
    pub movement: Option<i64>,
}

impl RestoredCredit {
    /// What can go back through the credit now.
    pub fn left(&self) -> i64 {
        self.parts.iter().map(|p| p.left).sum()
    }

    /// What the credit still holds (at least [`RestoredCredit::left`]).
    pub fn held(&self) -> i64 {
        self.parts.iter().map(|p| p.held).sum()
    }

    /// The predecessor and its sale.
    pub fn register(&self) -> (&str, i64) {
        (&self.sale.source, self.sale.sale_id)
    }

    /// Gives `amount_minor` back through the credit's parts in order (inside the caller's
    /// transaction; `amount_minor` at most [`RestoredCredit::left`]): a card part by a refund
    /// on the predecessor's payment under a key from `keys` (refused while a refund of that
    /// payment is open here, or when its outcome is unknown), a cash part out of this
    /// register's open shift with its `cash_refunded` fact naming the predecessor; each
    /// linked to its part.
    pub fn give_back_tx(&self, tx: &WriteTx<'_>, amount_minor: i64, keys: &mut Vec<String>, reason: Option<&str>, now_ms: i64) -> Result<Vec<GiveBack>> {
        let sale = &self.sale;
        let mut rest = amount_minor;
        let mut given = Vec::new();
        for p in &self.parts {
            let take = rest.min(p.left);
            if take <= 0 {
                continue;
            }
            let t = sale.tenders.iter().find(|t| t.seq == p.seq).expect("a part's tender is the sale's");
            let (refund, movement) = match p.kind {
                TenderKind::Card => {
                    unsettled(sale, t)?;
                    let pid = restored_payment_tx(tx, sale, t, now_ms)?;
                    let open: i64 = tx.row_cached(
                        "SELECT count(*) FROM refunds WHERE payment_id = ?1 AND state IN ('pending','in_flight')",
                        [pid.0],
                        |r| r.get(0),
                    )?;
                    if open > 0 {
                        return Err(Error::RefundInProgress { payment_id: pid.0, refund_key: t.checkout_key.clone().unwrap_or_default() });
                    }
                    let key = keys.pop().ok_or_else(|| Error::InvalidInput("the sale changed; refund again".into()))?;
                    (Some(create_refund_tx(tx, &key, pid, take, reason, None, now_ms)?), None)
                }
                TenderKind::Cash => {
                    // Cash leaves THIS register's drawer: an open shift's, counted at its close.
                    crate::ledger::shift::admit_money_tx(tx)?;
                    tx.exec_cached(
                        "INSERT INTO cash_movements (at_ms, kind, amount_minor, currency, cart_id, tender_id, shift_id, staff_id)
                         VALUES (?1, 'refund_out', ?2, ?3, NULL, NULL, (SELECT id FROM shifts WHERE closed_at_ms IS NULL),
                                 (SELECT staff_id FROM register_session WHERE id = 1))",
                        params![now_ms, -take, sale.currency.code()],
                    )?;
                    let m = tx.last_insert_rowid();
                    super::take::cash_refunded_fact_tx(tx, m, sale)?;
                    (None, Some(m))
                }
                TenderKind::Store => unreachable!("a restored credit never comes out of a store tender (record 0153)"),
            };
            tx.exec_cached(
                "INSERT INTO restored_exchange_credit_returns (credit_id, amount_minor, refund_id, movement_id) VALUES (?1, ?2, ?3, ?4)",
                params![p.credit, take, refund.as_ref().map(|r| r.id.0), movement],
            )?;
            given.push(GiveBack { link: tx.last_insert_rowid(), amount_minor: take, refund, movement });
            rest -= take;
        }
        assert_eq!(rest, 0, "restored credit of sale {} of {}: give-back left {rest}", sale.sale_id, sale.source);
        Ok(given)
    }
}

/// The restored credit of a sale's `credit`, if it is one (record 0153), with what each part
/// holds and what can go back through its tender now: never more than the tender has left
/// after the predecessor's refunds and returns, this register's returns and refunds of it
/// and what the sale's other credits still hold.
pub(in crate::ledger) fn restored_credit_tx(conn: &Connection, credit: &ExchangeCredit) -> Result<Option<RestoredCredit>> {
    let Some(source) = credit.restored_from.as_deref() else { return Ok(None) };
    let sale = restored_sale_tx(conn, source, credit.old_cart_id.0)?;
    let rows: Vec<(i64, i64, i64)> = collect(
        conn,
        "SELECT c.id, c.tender_seq, c.amount_minor - COALESCE((
                    SELECT SUM(g.amount_minor) FROM restored_exchange_credit_returns g LEFT JOIN refunds rf ON rf.id = g.refund_id
                    WHERE g.credit_id = c.id AND (g.refund_id IS NULL OR rf.state != 'failed')), 0)
         FROM restored_exchange_credits c WHERE c.exchange_id = ?1 ORDER BY c.tender_seq",
        [credit.exchange_id],
        |r| Ok(Ok((r.get(0)?, r.get(1)?, r.get(2)?))),
    )?;
    let mut parts = Vec::new();
    for (id, seq, held) in rows {
        assert!(held >= 0, "restored exchange credit {id}: gave back more than it held ({held} left)");
        let t = sale.tenders.iter().find(|t| t.seq == seq).ok_or(Error::UnknownValue { what: "restored exchange credit tender", value: seq.to_string() })?;
        // The tender's room for this part: what it paid less what went back through it and
        // what the other credits out of it still hold, the predecessor's own included (record
        // 0157). A card whose money was not taken has none.
        let paid = t.kind != TenderKind::Card || t.payment_state.is_some_and(super::sale::money_taken);
        let room = if paid { t.amount_minor - t.given_back_minor - (t.credited_minor - held) - t.credited_there_minor } else { 0 };
        parts.push(Part { credit: id, seq, kind: t.kind, held, left: held.min(room).max(0) });
    }
    parts.sort_by_key(|p| (p.kind != TenderKind::Card, p.seq));
    Ok(Some(RestoredCredit { sale, parts }))
}

/// What exchange credits hold on the tender that payment `payment` is (record 0158): this
/// register's own credits out of its sale's card tender (record 0123, after their
/// give-backs and carries), and for a predecessor's payment given back on here (record
/// 0144) what this register's restored exchanges (record 0153) and the predecessor's own
/// exchanges (record 0157) credited out of its tender and still hold. That money pays
/// another sale; a refund by hand of the payment must leave it there.
pub(in crate::ledger) fn credit_held_on_payment_tx(conn: &Connection, payment: crate::types::PaymentId) -> Result<i64> {
    use rusqlite::OptionalExtension;
    let tenders: Vec<i64> = collect(conn, "SELECT id FROM tenders WHERE payment_id = ?1 AND standing = 'active'", [payment.0], |r| Ok(Ok(r.get(0)?)))?;
    let mut held = 0i64;
    for t in tenders {
        held += crate::ledger::exchange::credited_out_tx(conn, crate::tender::TenderId(t))?;
    }
    let restored: Option<(String, String)> = conn
        .row_cached(
            "SELECT r.source, r.checkout_key FROM restored_payments r WHERE r.payment_id = ?1",
            [payment.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    if let Some((source, key)) = restored {
        // The predecessor's sale the payment was a tender of (v36's index by checkout key).
        let sale: Option<i64> = conn
            .row_cached(
                "SELECT json_extract(fact, '$.sale') FROM restored_history
                 WHERE source = ?1 AND json_extract(fact, '$.checkout_key') = ?2 AND kind = 'tender_added' ORDER BY seq LIMIT 1",
                params![source, key],
                |r| r.get(0),
            )
            .optional()?
            .flatten();
        if let Some(sale) = sale {
            let s = restored_sale_tx(conn, &source, sale)?;
            held += s.tenders.iter().filter(|t| t.checkout_key.as_deref() == Some(key.as_str())).map(|t| t.credited_minor + t.credited_there_minor).sum::<i64>();
        }
    }
    Ok(held)
}
