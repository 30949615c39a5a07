//! Returns per item (issue #29, record 0114), the Returns store: tables `returns`,
//! `return_lines`, `return_rates`, `return_tenders` (schema v20).
//!
//! A return takes back some quantity of some lines of a paid sale. It is valued by
//! `paydesk_tax::return_tax` (record 0113) from the sale's cart and its LOCKED settings,
//! given what earlier returns took; the money goes back exactly as a refund by amount
//! does (`allocate_refund_tx`, record 0032: cards first, each up to what its payment has
//! left and each with its own refund row and key, then cash out of the open shift's
//! drawer); and the return, its lines, its rates, its link to each refund row and cash
//! movement, the ryōshūsho taken back and the audit row are ONE transaction. The card
//! refunds are driven afterwards by the engine, each under its key, like any refund.

use std::ops::Deref;

use paydesk_domain::Currency;
use paydesk_tax::{return_tax, RateReturn, Returned, TaxClass, TaxError, TaxSettings};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::audit::{append_audit, AuditInput};
use super::cart_tax::{tax_cart, tax_setup_on_tx, LockedTax};
use super::catalog::{class_str, parse_class};
use super::sale::{allocate_refund_tx, card_keys, check_reason, refundable_state, sale_tx, Sale};
use super::{collect, Cached, Ledger, Returns};
use crate::error::{Error, Result};
use crate::tender::TenderId;
use crate::types::*;
use crate::write_tx::WriteTx;

/// Most lines one return may name (a sale has at most as many).
pub const MAX_RETURN_LINES: usize = 200;

/// A line of a return: which line of the sale, how many, and what its net fell by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnLine {
    /// Index into the sale's cart lines (their order by number, record 0126; for sales
    /// made before v26 the SKU order, which their numbers follow).
    pub line: usize,
    pub sku: String,
    pub name: String,
    pub quantity: u32,
    /// The class the sale taxed it under (a reduced item eaten in is `Standard`).
    pub class: TaxClass,
    pub net_minor: i64,
}

/// What a return gave back through one tender: a card refund row or a drawer movement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnTender {
    pub tender_id: TenderId,
    pub amount_minor: i64,
    pub refund_id: Option<RefundId>,
    pub movement_id: Option<i64>,
    /// A store tender given back as itself (`store_refunds`, record 0118).
    #[serde(default)]
    pub store_refund_id: Option<i64>,
}

/// What a return of a sale paid in part by a restored exchange's credit gave back through
/// it (record 0156): the predecessor's tender the credit came out of, how much, and the card
/// refund on the predecessor's payment or this drawer's cash movement that carried it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnRestoredTender {
    /// The predecessor register and its sale whose tender it is.
    pub register: String,
    pub sale_id: i64,
    pub tender_seq: i64,
    pub amount_minor: i64,
    pub refund_id: Option<RefundId>,
    pub movement_id: Option<i64>,
}

/// A recorded return.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnRecord {
    pub id: i64,
    pub cart_id: CartId,
    /// 1, 2, … within the sale.
    pub seq: i64,
    /// The sale's receipt number, "-R" and the seq.
    pub number: String,
    pub created_at_ms: i64,
    pub staff_id: Option<i64>,
    pub reason: Option<String>,
    pub currency: Currency,
    /// What the customer got back (gross), tax included.
    pub total_minor: i64,
    pub tax_minor: i64,
    pub cash_out_minor: i64,
    /// The customer handed the sale's ryōshūsho back at this return.
    pub ryoshusho_taken_back: bool,
    pub lines: Vec<ReturnLine>,
    pub rates: Vec<RateReturn>,
    pub tenders: Vec<ReturnTender>,
    /// Given back through the sale's restored exchange credit, to the predecessor's tenders
    /// (record 0156); in `cash_out_minor` too when cash.
    #[serde(default)]
    pub restored_tenders: Vec<ReturnRestoredTender>,
}

/// What [`Returns::take_back`] committed: the return, and the card refunds to drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnPlan {
    pub record: ReturnRecord,
    /// Card refunds to drive, each with its own key.
    pub card_refunds: Vec<(TenderId, Refund)>,
    /// Card refunds on a predecessor's payment giving back the part a restored exchange's
    /// credit paid (record 0156), each with its own key; to drive as the others.
    #[serde(default)]
    pub restored_card_refunds: Vec<Refund>,
    /// Paid out of the drawer (already recorded).
    pub cash_out_minor: i64,
}

/// The number of a sale's `seq`-th return.
pub fn return_number(cart_id: CartId, seq: i64) -> String {
    format!("{:06}-R{seq}", cart_id.0)
}

impl<L: Deref<Target = Ledger>> Returns<L> {
    /// The sale's returns, in order.
    pub fn by_sale(&self, cart_id: CartId) -> Result<Vec<ReturnRecord>> {
        let ids: Vec<i64> = collect(&self.conn, "SELECT id FROM returns WHERE cart_id = ?1 ORDER BY seq", [cart_id.0], |r| r.get(0).map(Ok))?;
        ids.into_iter().map(|id| record_tx(&self.conn, id)).collect()
    }

    /// One return.
    pub fn by_id(&self, id: i64) -> Result<ReturnRecord> {
        record_tx(&self.conn, id)
    }

    /// How many of each line of the sale came back so far (one entry per cart line).
    pub fn returned(&self, cart_id: CartId) -> Result<Vec<u32>> {
        returned_tx(&self.conn, &sale_tx(&self.conn, cart_id)?)
    }
}

impl Returns<&mut Ledger> {
    /// Takes back `items` of the paid sale `cart_id` and gives their worth back, cards
    /// first (see the module). Refused, nothing written: an empty or too long list, a
    /// line named twice or with quantity 0 (`InvalidInput`), a line the sale does not
    /// have ([`Error::ReturnUnknownLine`]), more than is left of a line
    /// ([`Error::ReturnExceedsSold`]), a sale not paid ([`Error::SaleNotPaid`],
    /// [`Error::SaleCanceled`]), an open refund of one of its cards
    /// ([`Error::RefundInProgress`]), an offline card tender not forwarded
    /// ([`Error::CardTenderNotForwarded`]), more than its tenders have left
    /// ([`Error::SaleRefundExceeds`], after refunds by amount), and a sale whose ryōshūsho
    /// is still with the customer unless `ryoshusho_taken_back`
    /// ([`Error::RyoshushoNotTakenBack`]); then it is marked taken back with the return.
    pub fn take_back(
        &mut self,
        cart_id: CartId,
        items: &[Returned],
        reason: Option<&str>,
        ryoshusho_taken_back: bool,
        now_ms: i64,
    ) -> Result<ReturnPlan> {
        if items.is_empty() || items.len() > MAX_RETURN_LINES {
            return Err(Error::InvalidInput(format!("a return names 1 to {MAX_RETURN_LINES} lines")));
        }
        let reason = reason.map(check_reason).transpose()?;
        let mut keys = card_keys(self, cart_id)?;
        let tx = self.write_tx()?;
        let input = ReturnInput { cart_id, items, reason, ryoshusho_taken_back, now_ms };
        let (plan, _) = take_back_tx(&tx, &mut keys, &input, None)?;
        tx.commit()?;
        Ok(plan)
    }
}

/// What a return is asked for (see [`Returns::take_back`]).
pub(super) struct ReturnInput<'a> {
    pub cart_id: CartId,
    pub items: &'a [Returned],
    pub reason: Option<&'a str>,
    pub ryoshusho_taken_back: bool,
    pub now_ms: i64,
}

/// The return inside the caller's transaction. With `exchange` (the new sale), as much of
/// its worth as the new sale has open becomes that sale's credit (record 0123) and only
/// the rest is given back; answers the exchange's id then.
pub(super) fn take_back_tx(
    tx: &WriteTx<'_>,
    keys: &mut Vec<String>,
    input: &ReturnInput<'_>,
    exchange: Option<CartId>,
) -> Result<(ReturnPlan, Option<i64>)> {
    let ReturnInput { cart_id, items, reason, ryoshusho_taken_back, now_ms } = *input;
    {
        let sale = sale_tx(tx, cart_id)?;
        refundable_state(&sale)?;
        let ryoshusho = super::ryoshusho::outstanding_tx(tx, cart_id, ryoshusho_taken_back)?;
        let before = returned_tx(tx, &sale)?;
        check_items(&sale, &before, items)?;
        let (cart, settings) = tax_input_tx(tx, &sale)?;
        let valued = return_tax(&cart, &settings, &before, items).map_err(|e| tax_refusal(cart_id, e))?;
        let seq: i64 = tx.row_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM returns WHERE cart_id = ?1", [cart_id.0], |r| r.get(0))?;
        let staff = super::session::operator(tx)?;
        let credit = match exchange {
            Some(new) => Some(super::exchange::plan_credit_tx(tx, &sale, new, valued.total, now_ms)?),
            None => None,
        };
        let held = credit.as_ref().map_or(&[][..], |c| &c.from[..]);
        let back = valued.total - credit.as_ref().map_or(0, |c| c.credit_minor);
        let (card_refunds, tenders, restored) = allocate_return_tx(tx, &sale, back, held, keys, reason, now_ms)?;
        let cash_out: i64 = tenders.iter().filter(|t| t.movement_id.is_some()).map(|t| t.amount_minor).sum::<i64>()
            + restored.iter().filter(|g| g.movement.is_some()).map(|g| g.amount_minor).sum::<i64>();
        tx.exec_cached(
            "INSERT INTO returns (cart_id, seq, number, created_at_ms, staff_id, reason, currency, total_minor, tax_minor,
                                  cash_out_minor, ryoshusho_taken_back)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                cart_id.0,
                seq,
                return_number(cart_id, seq),
                now_ms,
                staff,
                reason,
                sale.cart.currency.code(),
                valued.total,
                valued.tax_total,
                cash_out,
                ryoshusho.is_some()
            ],
        )?;
        let id = tx.last_insert_rowid();
        insert_children_tx(tx, id, &sale, &valued, &tenders)?;
        for g in &restored {
            tx.exec_cached("UPDATE restored_exchange_credit_returns SET return_id = ?2 WHERE id = ?1", params![g.link, id])?;
        }
        let exchange_id = match &credit {
            Some(c) => Some(super::exchange::write_credit_tx(tx, id, &sale, c, staff, now_ms)?),
            None => None,
        };
        // Last, with every child row written: its trigger sends the whole return up (v21).
        tx.exec_cached("INSERT INTO returns_sent (return_id) VALUES (?1)", [id])?;
        // Then the exchange's link, after the return's fact it names (v37, record 0145).
        if let Some(x) = exchange_id {
            tx.exec_cached("INSERT INTO exchanges_sent (exchange_id) VALUES (?1)", [x])?;
        }
        if ryoshusho.is_some() {
            super::ryoshusho::mark_taken_back_tx(tx, cart_id, Some(id), now_ms)?;
        }
        let record = record_tx(tx, id)?;
        audit_tx(tx, &record, staff, now_ms)?;
        let restored_card_refunds = restored.into_iter().filter_map(|g| g.refund).collect();
        Ok((ReturnPlan { record, card_refunds, restored_card_refunds, cash_out_minor: cash_out }, exchange_id))
    }
}

/// The card refunds to drive, the return's links to every refund and movement, and what
/// went back through a restored exchange's credit (record 0156).
type Allocation = (Vec<(TenderId, Refund)>, Vec<ReturnTender>, Vec<super::restored_returns::GiveBack>);

/// Gives `total` back through the sale's tenders (`allocate_refund_tx`: cards first, then
/// cash) and answers the card refunds to drive and the links to write.
fn allocate_return_tx(
    tx: &WriteTx<'_>,
    sale: &Sale,
    total: i64,
    held: &[super::exchange::CreditPart],
    keys: &mut Vec<String>,
    reason: Option<&str>,
    now_ms: i64,
) -> Result<Allocation> {
    if total == 0 {
        // Lines given away (100 % off), or all of it an exchange's credit: nothing to give back.
        return Ok((Vec::new(), Vec::new(), Vec::new()));
    }
    let a = allocate_refund_tx(tx, sale, Some(total), held, keys, reason, now_ms)?;
    let mut tenders: Vec<ReturnTender> = a
        .plan
        .card_refunds
        .iter()
        .map(|(t, r)| ReturnTender {
            tender_id: *t,
            amount_minor: r.amount.amount_minor,
            refund_id: Some(r.id),
            movement_id: None,
            store_refund_id: None,
        })
        .collect();
    for ((t, amount), m) in a.plan.cash_refunds.iter().zip(&a.cash_movements) {
        tenders.push(ReturnTender { tender_id: *t, amount_minor: *amount, refund_id: None, movement_id: Some(*m), store_refund_id: None });
    }
    for ((t, amount), s) in a.plan.store_refunds.iter().zip(&a.store_refunds) {
        tenders.push(ReturnTender { tender_id: *t, amount_minor: *amount, refund_id: None, movement_id: None, store_refund_id: Some(*s) });
    }
    Ok((a.plan.card_refunds, tenders, a.restored))
}

/// The return's lines, rates and links to the money it gave back.
fn insert_children_tx(tx: &WriteTx<'_>, id: i64, sale: &Sale, valued: &paydesk_tax::ReturnTax, tenders: &[ReturnTender]) -> Result<()> {
    for l in &valued.lines {
        tx.exec_cached(
            "INSERT INTO return_lines (return_id, line, line_no, product_id, quantity, class, net_minor) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![id, l.line as i64, sale.cart.lines[l.line].line_no, sale.cart.lines[l.line].product_id.0, l.quantity, class_str(l.class), l.net],
        )?;
    }
    for r in &valued.rates {
        tx.exec_cached(
            "INSERT INTO return_rates (return_id, class, ppm, base_minor, tax_minor, gross_minor) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, class_str(r.class), r.ppm, r.base, r.tax, r.gross],
        )?;
    }
    for t in tenders {
        tx.exec_cached(
            "INSERT INTO return_tenders (return_id, tender_id, amount_minor, refund_id, movement_id, store_refund_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, t.tender_id.0, t.amount_minor, t.refund_id.map(|r| r.0), t.movement_id, t.store_refund_id],
        )?;
    }
    Ok(())
}

/// The typed refusals, in the sale's terms, before anything is valued.
fn check_items(sale: &Sale, before: &[u32], items: &[Returned]) -> Result<()> {
    let cart_id = sale.cart.id.0;
    let lines = &sale.cart.lines;
    let mut seen = vec![false; lines.len()];
    for r in items {
        let Some(line) = lines.get(r.line) else {
            return Err(Error::ReturnUnknownLine { cart_id, line: r.line, lines: lines.len() });
        };
        if r.quantity == 0 || std::mem::replace(&mut seen[r.line], true) {
            return Err(Error::InvalidInput(format!("line {}: each line once, with a quantity of 1 or more", r.line)));
        }
        // A weighed line (record 0134) is its weight: it comes back whole or not at all;
        // there is no part of it to name.
        if line.weight.is_some() && r.quantity != 1 {
            return Err(Error::WeighedLineWhole { line_no: line.line_no });
        }
        let sold = u32::try_from(line.quantity).map_err(|_| Error::Overflow)?;
        if r.quantity > sold.saturating_sub(before[r.line]) {
            return Err(Error::ReturnExceedsSold { cart_id, line: r.line, sold, returned_before: before[r.line], requested: r.quantity });
        }
    }
    Ok(())
}

/// What `return_tax` refused after [`check_items`] passed (only a sale the tax cannot
/// value): refused input, in its words.
fn tax_refusal(cart_id: CartId, e: TaxError) -> Error {
    Error::InvalidInput(format!("sale {cart_id}: {e}"))
}

/// The sale as `return_tax` takes it: its cart, and the settings locked at its first
/// tender (a sale of exempt lines without a discount has none: any settings value it the
/// same, with no tax).
fn tax_input_tx(tx: &WriteTx<'_>, sale: &Sale) -> Result<(paydesk_tax::Cart, TaxSettings)> {
    let doc: Option<String> = tx.row_cached("SELECT tax_locked FROM carts WHERE id = ?1", [sale.cart.id.0], |r| r.get(0))?;
    // Exempt as the locked document says (record 0135): a paid sale's tax is that document's.
    let (settings, date, exempt) = match doc {
        Some(doc) => {
            let locked: LockedTax = serde_json::from_str(&doc)?;
            (locked.settings, locked.date, locked.tax.exempt)
        }
        None => {
            let (settings, date) = tax_setup_on_tx(tx, sale.cart.created_at_ms)?;
            (settings, date, false)
        }
    };
    let c = &sale.cart;
    Ok((paydesk_tax::Cart { exempt, ..tax_cart(&c.lines, c.dining, c.sale_discount, date)? }, settings))
}

/// How many of each cart line earlier returns took (lines matched by their number,
/// record 0126: a product can be on two lines at two prices).
fn returned_tx(conn: &rusqlite::Connection, sale: &Sale) -> Result<Vec<u32>> {
    let taken: Vec<(i64, i64)> = collect(
        conn,
        "SELECT rl.line_no, SUM(rl.quantity) FROM return_lines rl JOIN returns r ON r.id = rl.return_id
         WHERE r.cart_id = ?1 GROUP BY rl.line_no",
        [sale.cart.id.0],
        |r| Ok(Ok((r.get(0)?, r.get(1)?))),
    )?;
    sale.cart
        .lines
        .iter()
        .map(|l| {
            let n = taken.iter().find(|(no, _)| *no == l.line_no).map_or(0, |(_, n)| *n);
            u32::try_from(n).map_err(|_| Error::Overflow)
        })
        .collect()
}

pub(super) fn record_tx(conn: &rusqlite::Connection, id: i64) -> Result<ReturnRecord> {
    let head = conn
        .row_cached(
            "SELECT cart_id, seq, number, created_at_ms, staff_id, reason, currency, total_minor, tax_minor, cash_out_minor,
                    ryoshusho_taken_back FROM returns WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    (CartId(r.get(0)?), r.get::<_, i64>(1)?, r.get::<_, String>(2)?, r.get::<_, i64>(3)?, r.get::<_, Option<i64>>(4)?),
                    (r.get::<_, Option<String>>(5)?, r.get::<_, String>(6)?, r.get::<_, i64>(7)?, r.get::<_, i64>(8)?, r.get::<_, i64>(9)?),
                    r.get::<_, bool>(10)?,
                ))
            },
        )
        .optional()?
        .ok_or(Error::UnknownReturn(id))?;
    let ((cart_id, seq, number, created_at_ms, staff_id), (reason, currency, total_minor, tax_minor, cash_out_minor), taken_back) = head;
    let (lines, rates, tenders) = (lines_tx(conn, id)?, rates_tx(conn, id)?, tenders_tx(conn, id)?);
    let restored_tenders = restored_tenders_tx(conn, id)?;
    Ok(ReturnRecord {
        id,
        cart_id,
        seq,
        number,
        created_at_ms,
        staff_id,
        reason,
        currency: currency.parse::<Currency>()?,
        total_minor,
        tax_minor,
        cash_out_minor,
        ryoshusho_taken_back: taken_back,
        lines,
        rates,
        tenders,
        restored_tenders,
    })
}

/// What the return gave back through a restored exchange's credit (v43, record 0156).
fn restored_tenders_tx(conn: &rusqlite::Connection, id: i64) -> Result<Vec<ReturnRestoredTender>> {
    collect(
        conn,
        "SELECT r.source, r.sale_id, c.tender_seq, g.amount_minor, g.refund_id, g.movement_id
         FROM restored_exchange_credit_returns g JOIN restored_exchange_credits c ON c.id = g.credit_id
           JOIN restored_exchanges x ON x.id = c.exchange_id JOIN restored_returns r ON r.id = x.return_id
         WHERE g.return_id = ?1 ORDER BY g.id",
        [id],
        |r| {
            Ok(Ok(ReturnRestoredTender {
                register: r.get(0)?,
                sale_id: r.get(1)?,
                tender_seq: r.get(2)?,
                amount_minor: r.get(3)?,
                refund_id: r.get::<_, Option<i64>>(4)?.map(RefundId),
                movement_id: r.get(5)?,
            }))
        },
    )
}

/// The audit row of a return: which sale, which lines, how much back and how.
fn audit_tx(tx: &WriteTx<'_>, r: &ReturnRecord, staff: Option<i64>, now_ms: i64) -> Result<()> {
    let lines: Vec<_> = r.lines.iter().map(|l| serde_json::json!({ "line": l.line, "sku": l.sku, "quantity": l.quantity })).collect();
    let after = serde_json::json!({
        "cart_id": r.cart_id.0, "number": r.number, "lines": lines, "total": r.total_minor, "tax": r.tax_minor,
        "cash_out": r.cash_out_minor, "card_refunds": r.tenders.iter().filter(|t| t.refund_id.is_some()).count()
            + r.restored_tenders.iter().filter(|t| t.refund_id.is_some()).count(),
        "ryoshusho_taken_back": r.ryoshusho_taken_back,
    });
    let input = AuditInput {
        actor_id: staff,
        reason: r.reason.clone(),
        after: Some(after.to_string()),
        ..AuditInput::new("sale_return", &format!("return {} (sale {})", r.number, r.cart_id.0))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(())
}

fn class_of(s: String) -> Result<TaxClass> {
    parse_class(&s).ok_or(Error::UnknownValue { what: "tax class", value: s })
}

fn lines_tx(conn: &rusqlite::Connection, id: i64) -> Result<Vec<ReturnLine>> {
    collect(
        conn,
        "SELECT rl.line, p.sku, p.name, rl.quantity, rl.class, rl.net_minor FROM return_lines rl JOIN products p ON p.id = rl.product_id
         WHERE rl.return_id = ?1 ORDER BY rl.line",
        [id],
        |r| {
            let line = usize::try_from(r.get::<_, i64>(0)?).map_err(|_| Error::Overflow);
            let class = class_of(r.get(4)?);
            let (sku, name, quantity, net_minor) = (r.get(1)?, r.get(2)?, r.get(3)?, r.get(5)?);
            Ok(line.and_then(|line| Ok(ReturnLine { line, sku, name, quantity, class: class?, net_minor })))
        },
    )
}

fn rates_tx(conn: &rusqlite::Connection, id: i64) -> Result<Vec<RateReturn>> {
    collect(
        conn,
        "SELECT class, ppm, base_minor, tax_minor, gross_minor FROM return_rates WHERE return_id = ?1
         ORDER BY CASE class WHEN 'standard' THEN 0 WHEN 'reduced' THEN 1 ELSE 2 END",
        [id],
        |r| {
            let class = class_of(r.get(0)?);
            let (ppm, base, tax, gross) = (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
            Ok(class.map(|class| RateReturn { class, ppm, base, tax, gross }))
        },
    )
}

fn tenders_tx(conn: &rusqlite::Connection, id: i64) -> Result<Vec<ReturnTender>> {
    collect(
        conn,
        "SELECT rt.tender_id, rt.amount_minor, rt.refund_id, rt.movement_id, rt.store_refund_id FROM return_tenders rt JOIN tenders t ON t.id = rt.tender_id
         WHERE rt.return_id = ?1 ORDER BY t.seq",
        [id],
        |r| {
            Ok(Ok(ReturnTender {
                tender_id: TenderId(r.get(0)?),
                amount_minor: r.get(1)?,
                refund_id: r.get::<_, Option<i64>>(2)?.map(RefundId),
                movement_id: r.get(3)?,
                store_refund_id: r.get(4)?,
            }))
        },
    )
}
