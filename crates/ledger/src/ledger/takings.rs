//! The facts a period's takings are built from (record 0033, 0066), read in one pass:
//! the tenders taken in it with their state as the sale sees it, and the refunds given
//! back in it. Read-only; the arithmetic is `crate::takings`, shared by End of day and the
//! X / Z reports so the three cannot disagree.

use std::ops::Deref;
use crate::ledger::Sales;
use rusqlite::{params, Connection};

use super::collect;
use super::shift::shift_by_id_tx;
use crate::error::{Error, Result};
use paydesk_domain::money::Currency;
use crate::takings::{first_counted, sold_carts, taken, RefundFact, SoldTax, Taken, Takings, TenderFact};
use crate::tender::{TenderStanding, TenderState};
use paydesk_domain::TenderKind;
use crate::types::CartId;
use crate::Ledger;

/// Which tenders and refunds a report covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// Everything taken or given back at or after this time (ms): End of day.
    Since(i64),
    /// One shift: its tenders and drawer movements (tagged with the shift when they were
    /// written), and the card refunds made while it was open (at most one shift is open,
    /// so the times say whose they are).
    Shift(i64),
}

/// The rows a period selects: tenders and cash movements by shift (or any) and time.
struct Window {
    /// One sale's tenders only (when a sale was first counted), or every sale's.
    cart_id: Option<CartId>,
    shift_id: Option<i64>,
    from_ms: i64,
    to_ms: i64,
    /// Card refunds carry no shift: by their time.
    refunds_from_ms: i64,
    refunds_to_ms: i64,
}

fn window(conn: &Connection, p: Period) -> Result<Window> {
    Ok(match p {
        Period::Since(since) => {
            Window { cart_id: None, shift_id: None, from_ms: since, to_ms: i64::MAX, refunds_from_ms: since, refunds_to_ms: i64::MAX }
        }
        Period::Shift(id) => {
            let s = shift_by_id_tx(conn, id)?.ok_or_else(|| Error::InvalidInput(format!("there is no shift {id}")))?;
            Window {
                cart_id: None,
                shift_id: Some(id),
                from_ms: i64::MIN,
                to_ms: i64::MAX,
                refunds_from_ms: s.opened_at_ms,
                refunds_to_ms: s.closed_at_ms.unwrap_or(i64::MAX),
            }
        }
    })
}

fn tender_facts(conn: &Connection, currency: Currency, w: &Window) -> Result<Vec<TenderFact>> {
    collect(
        conn,
        "SELECT t.cart_id, t.kind, t.standing, t.amount_minor, t.created_at_ms, p.state, p.offline,
                EXISTS (SELECT 1 FROM sale_cancels c WHERE c.cart_id = t.cart_id), t.tender_type_id
         FROM tenders t LEFT JOIN payments p ON p.id = t.payment_id
         WHERE t.currency = ?1 AND (?2 IS NULL OR t.shift_id = ?2) AND t.created_at_ms BETWEEN ?3 AND ?4
           AND (?5 IS NULL OR t.cart_id = ?5)
         ORDER BY t.created_at_ms, t.id",
        params![currency.code(), w.shift_id, w.from_ms, w.to_ms, w.cart_id.map(|c| c.0)],
        |r| {
            let (cart, kind, standing, amount_minor, at_ms): (i64, String, String, i64, i64) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
            let (payment_state, offline, sale_canceled): (Option<String>, Option<i64>, bool) = (r.get(5)?, r.get(6)?, r.get(7)?);
            let store_type = r.get::<_, Option<i64>>(8)?.map(paydesk_domain::TenderTypeId);
            Ok((|| {
                let kind: TenderKind = kind.parse()?;
                let standing: TenderStanding = standing.parse()?;
                // The same derivation as the sale's (record 0029), never a stored state.
                let state = match (kind, payment_state) {
                    (TenderKind::Cash | TenderKind::Store, _) => TenderState::of_cash(standing),
                    (TenderKind::Card, Some(ps)) => TenderState::of_card(standing, ps.parse()?, offline == Some(1)),
                    (TenderKind::Card, None) => {
                        return Err(Error::UnknownValue { what: "card tender without payment", value: format!("sale {cart}") })
                    }
                };
                Ok(TenderFact { cart_id: CartId(cart), kind, state, amount_minor, at_ms, sale_canceled, store_type })
            })())
        },
    )
}

fn refund_facts(conn: &Connection, currency: Currency, w: &Window) -> Result<Vec<RefundFact>> {
    // A refund counts when it gave back money of a sale that counts: its tender active
    // (not a superseded charge) and its sale not canceled (a cancel's refunds undo a sale
    // that is not in the takings).
    let mut out = collect(
        conn,
        "SELECT r.amount_minor FROM refunds r JOIN tenders t ON t.payment_id = r.payment_id
         WHERE r.state = 'succeeded' AND r.currency = ?1 AND t.standing = 'active'
           AND NOT EXISTS (SELECT 1 FROM sale_cancels c WHERE c.cart_id = t.cart_id)
           AND r.created_at_ms BETWEEN ?2 AND ?3
         ORDER BY r.id",
        params![currency.code(), w.refunds_from_ms, w.refunds_to_ms],
        |r| Ok(Ok(RefundFact { kind: TenderKind::Card, amount_minor: r.get(0)? })),
    )?;
    // A card refund of a predecessor's sale (record 0144) is money this register gave
    // back, though the sale and its tender are the predecessor's.
    out.extend(collect(
        conn,
        "SELECT r.amount_minor FROM refunds r JOIN restored_payments rp ON rp.payment_id = r.payment_id
         WHERE r.state = 'succeeded' AND r.currency = ?1 AND r.created_at_ms BETWEEN ?2 AND ?3
         ORDER BY r.id",
        params![currency.code(), w.refunds_from_ms, w.refunds_to_ms],
        |r| Ok(Ok(RefundFact { kind: TenderKind::Card, amount_minor: r.get(0)? })),
    )?);
    out.extend(collect(
        conn,
        "SELECT -amount_minor FROM cash_movements
         WHERE kind = 'refund_out' AND currency = ?1 AND (?2 IS NULL OR shift_id = ?2) AND at_ms BETWEEN ?3 AND ?4
         ORDER BY id",
        params![currency.code(), w.shift_id, w.from_ms, w.to_ms],
        |r| Ok(Ok(RefundFact { kind: TenderKind::Cash, amount_minor: r.get(0)? })),
    )?);
    // A store tender given back as itself (record 0118): no drawer money, in the shift
    // open when it was given back, like cash.
    out.extend(collect(
        conn,
        "SELECT s.amount_minor FROM store_refunds s JOIN tenders t ON t.id = s.tender_id
         WHERE t.currency = ?1 AND (?2 IS NULL OR s.shift_id = ?2) AND s.at_ms BETWEEN ?3 AND ?4
         ORDER BY s.id",
        params![currency.code(), w.shift_id, w.from_ms, w.to_ms],
        |r| Ok(Ok(RefundFact { kind: TenderKind::Store, amount_minor: r.get(0)? })),
    )?);
    Ok(out)
}

/// A period's facts as read.
struct Facts {
    tenders: Vec<TenderFact>,
    refunds: Vec<RefundFact>,
}

/// The facts of `period` in `currency`.
fn facts_tx(conn: &Connection, currency: Currency, period: Period) -> Result<Facts> {
    let w = window(conn, period)?;
    Ok(Facts { tenders: tender_facts(conn, currency, &w)?, refunds: refund_facts(conn, currency, &w)? })
}

/// The takings of `period` in `currency`.
pub(crate) fn takings_tx(conn: &Connection, currency: Currency, period: Period) -> Result<Takings> {
    let f = facts_tx(conn, currency, period)?;
    figures(conn, currency, &f)
}

/// Of the sales counted in `f`, those first counted before this period (`first_counted`
/// over all the sale's tenders earlier than over the period's): one read per sale, and
/// only for the sales of the period.
fn earlier_sales(conn: &Connection, currency: Currency, f: &Facts, sold: &[CartId]) -> Result<Vec<CartId>> {
    let mut out = Vec::new();
    for &cart in sold {
        let all = Window { cart_id: Some(cart), shift_id: None, from_ms: i64::MIN, to_ms: i64::MAX, refunds_from_ms: 0, refunds_to_ms: 0 };
        let first_ever = first_counted(&tender_facts(conn, currency, &all)?, cart);
        if first_ever < first_counted(&f.tenders, cart) {
            out.push(cart);
        }
    }
    Ok(out)
}

/// The figures of the facts: takings, tender types' names, and the counted sales' tax.
fn figures(conn: &Connection, currency: Currency, f: &Facts) -> Result<Takings> {
    let here = sold_carts(&f.tenders);
    let earlier = earlier_sales(conn, currency, f, &here)?;
    let sold = here
        .into_iter()
        .filter(|c| !earlier.contains(c))
        .map(|id| {
            let c = super::carts::load_cart(conn, id)?;
            let exempt = c.tax.as_ref().is_some_and(|t| t.exempt);
            Ok(SoldTax { tax: c.tax, total_minor: c.total.amount_minor, exempt })
        })
        .collect::<Result<Vec<_>>>()?;
    named(conn, Takings::of(&f.tenders, &f.refunds)?.without_earlier_sales(&earlier).with_tax(&sold)?)
}

/// The store tender types' names on their lines (the figures know only their ids).
fn named(conn: &Connection, mut t: Takings) -> Result<Takings> {
    for s in &mut t.by_store_type {
        s.name = crate::ledger::tender_types::tender_type_tx(conn, s.tender_type_id)?.name;
    }
    Ok(t)
}

impl<L: Deref<Target = Ledger>> Sales<L> {
    /// The takings of `period` in `currency`, and each tender counted as a sale with its
    /// time (End of day's per-hour chart).
    pub fn takings(&self, currency: Currency, period: Period) -> Result<(Takings, Vec<Taken>)> {
        let f = facts_tx(&self.conn, currency, period)?;
        Ok((figures(&self.conn, currency, &f)?, taken(&f.tenders)))
    }
}
