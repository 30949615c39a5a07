//! The ryōshūsho (領収書) issued at the counter (issue #29, record 0112), in the Receipts
//! store: table `ryoshusho` (schema v19), one row per sale.
//!
//! The rule: ONE ryōshūsho per sale, because two formal receipts for the same money
//! must never exist (the customer could claim the expense twice). The first issue
//! records the addressee, the description and the amounts the document stated; every
//! later issue returns that record, marked as a reprint, and counts it. A later request
//! that names another addressee or description is refused ([`Error::RyoshushoDiffers`]),
//! never quietly printed with the first words. Only a paid sale gets one
//! ([`Error::RyoshushoUnpaid`]). Each issue, the first and every reprint, is a row of the
//! audit chain, written in the same transaction.
//!
//! After a return of part of the sale, with the ryōshūsho handed back (record 0114), the
//! customer may be given a NEW one for what they kept (record 0145, `kept.rs`, table
//! `ryoshusho_reissues`, schema v37): generation 2, 3, … of the sale's ryōshūsho, each
//! numbered `<receipt number>-<generation>`. Only the newest generation is ever valid:
//! the ones before were handed back and are replaced. Every rule above (reprint, the same
//! words, taken back before money goes back) applies to the newest generation.

use std::ops::Deref;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

mod kept;

pub use kept::{KeptPart, RyoshushoKept};

use super::audit::{append_audit, AuditInput};
use super::sale::sale_tx;
use super::{Cached, Ledger};
use crate::error::{Error, Result};
use crate::ledger::Receipts;
use crate::tender::SaleState;
use crate::types::CartId;
use crate::write_tx::WriteTx;

/// What the cashier asked for and what the document states, for the first issue.
/// `addressee` and `description` are compared trimmed; the amounts are the document's
/// (the engine builds it from the sale's receipt before it records it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RyoshushoIssue<'a> {
    pub addressee: &'a str,
    pub description: &'a str,
    pub total_minor: i64,
    /// The cash part (tendered minus change): what the stamp is judged on.
    pub cash_minor: i64,
    /// The revenue stamp's duty, when the document has a stamp box.
    pub stamp_duty_minor: Option<i64>,
    /// Who issues it; `None`: whoever is signed in (record 0067).
    pub issued_by: Option<i64>,
}

/// A sale's recorded ryōshūsho.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RyoshushoRecord {
    pub cart_id: CartId,
    /// The sale's receipt number and "-1"; "-2", "-3", … for the ones issued after a
    /// return for what the customer kept (record 0145).
    pub number: String,
    pub addressee: String,
    pub description: String,
    pub total_minor: i64,
    pub cash_minor: i64,
    pub stamp_duty_minor: Option<i64>,
    pub issued_by: Option<i64>,
    /// When it was first issued: a reprint states this date, not the reprint's.
    pub issued_at_ms: i64,
    /// Issues so far, the first included.
    pub print_count: i64,
    /// 1: the sale's first ryōshūsho; 2, 3, …: one issued for what was kept after a return.
    #[serde(default = "first_generation")]
    pub generation: i64,
    /// The number of the (handed back) ryōshūsho this one replaces.
    #[serde(default)]
    pub replaces: Option<String>,
}

fn first_generation() -> i64 {
    1
}

/// One generation of a sale's ryōshūsho with its standing (record 0145).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RyoshushoGeneration {
    pub record: RyoshushoRecord,
    /// When it was handed back at a refund or return, if it was.
    pub taken_back_at_ms: Option<i64>,
    /// The number of the ryōshūsho issued in its place, if one was.
    pub replaced_by: Option<String>,
}

/// The answer of an issue: the record, and whether this issue is a reprint of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedRyoshusho {
    pub record: RyoshushoRecord,
    pub reprint: bool,
}

/// The number of a sale's ryōshūsho: its receipt number (`receipt_sale_data`'s) and "-1".
pub fn ryoshusho_number(cart_id: CartId) -> String {
    ryoshusho_generation_number(cart_id, 1)
}

/// The number of a sale's `generation`-th ryōshūsho (record 0145): "-1" is the first.
pub fn ryoshusho_generation_number(cart_id: CartId, generation: i64) -> String {
    format!("{:06}-{generation}", cart_id.0)
}

const COLS: &str = "number, addressee, description, total_minor, cash_minor, stamp_duty_minor, issued_by, issued_at_ms, print_count";

fn record_tx(conn: &rusqlite::Connection, cart_id: CartId) -> Result<Option<RyoshushoRecord>> {
    let sql = format!("SELECT {COLS} FROM ryoshusho WHERE cart_id = ?1");
    Ok(conn
        .row_cached(&sql, [cart_id.0], |r| {
            Ok(RyoshushoRecord {
                cart_id,
                number: r.get(0)?,
                addressee: r.get(1)?,
                description: r.get(2)?,
                total_minor: r.get(3)?,
                cash_minor: r.get(4)?,
                stamp_duty_minor: r.get(5)?,
                issued_by: r.get(6)?,
                issued_at_ms: r.get(7)?,
                print_count: r.get(8)?,
                generation: 1,
                replaces: None,
            })
        })
        .optional()?)
}

/// Every generation of the sale's ryōshūsho, oldest first (empty: none was issued).
fn generations_tx(conn: &rusqlite::Connection, cart_id: CartId) -> Result<Vec<RyoshushoGeneration>> {
    let Some(first) = record_tx(conn, cart_id)? else { return Ok(Vec::new()) };
    let mut out = vec![RyoshushoGeneration { record: first, taken_back_at_ms: taken_back_tx(conn, cart_id)?, replaced_by: None }];
    out.extend(kept::reissues_tx(conn, cart_id)?);
    let numbers: Vec<String> = out.iter().map(|g| g.record.number.clone()).collect();
    for (g, next) in out.iter_mut().zip(numbers.into_iter().skip(1)) {
        g.replaced_by = Some(next);
    }
    Ok(out)
}

/// The sale's valid-or-last ryōshūsho: the newest generation, with when it came back.
fn current_tx(conn: &rusqlite::Connection, cart_id: CartId) -> Result<Option<RyoshushoGeneration>> {
    Ok(generations_tx(conn, cart_id)?.pop())
}

impl<L: Deref<Target = Ledger>> Receipts<L> {
    /// The sale's ryōshūsho, if one was issued: the newest generation (record 0145).
    pub fn ryoshusho(&self, cart_id: CartId) -> Result<Option<RyoshushoRecord>> {
        Ok(current_tx(&self.conn, cart_id)?.map(|g| g.record))
    }

    /// When the sale's (newest) ryōshūsho was handed back at a refund or return (record
    /// 0114), if it was: from then on it is not valid and is not reprinted.
    pub fn ryoshusho_taken_back(&self, cart_id: CartId) -> Result<Option<i64>> {
        Ok(current_tx(&self.conn, cart_id)?.and_then(|g| g.taken_back_at_ms))
    }

    /// Every ryōshūsho the sale had, oldest first, each with whether it came back and
    /// which one replaced it (record 0145).
    pub fn ryoshusho_history(&self, cart_id: CartId) -> Result<Vec<RyoshushoGeneration>> {
        generations_tx(&self.conn, cart_id)
    }
}

impl Receipts<&mut Ledger> {
    /// Issues the sale's ryōshūsho, or reprints the one it has (see the module's rule):
    /// the state check, the record and its audit row in one transaction, so two presses
    /// at once give one original and one reprint.
    pub fn issue_ryoshusho(&mut self, cart_id: CartId, issue: &RyoshushoIssue<'_>, now_ms: i64) -> Result<IssuedRyoshusho> {
        let (addressee, description) = (issue.addressee.trim(), issue.description.trim());
        let tx = self.write_tx()?;
        let sale = sale_tx(&tx, cart_id)?;
        if sale.state != SaleState::Paid {
            return Err(Error::RyoshushoUnpaid { cart_id: cart_id.0, state: sale.state.as_str() });
        }
        // Only the newest generation can be reprinted (record 0145): the ones before it were
        // handed back, so an old number is never printed again.
        let issued = match current_tx(&tx, cart_id)? {
            Some(g) if g.record.addressee != addressee || g.record.description != description => {
                return Err(Error::RyoshushoDiffers { cart_id: cart_id.0, number: g.record.number });
            }
            Some(g) if g.taken_back_at_ms.is_some() => {
                return Err(Error::RyoshushoTakenBack { cart_id: cart_id.0, number: g.record.number });
            }
            Some(RyoshushoGeneration { record, .. }) => {
                if record.generation == 1 {
                    tx.exec_cached("UPDATE ryoshusho SET print_count = print_count + 1, last_issued_at_ms = ?2 WHERE cart_id = ?1", params![cart_id.0, now_ms])?;
                } else {
                    tx.exec_cached(
                        "UPDATE ryoshusho_reissues SET print_count = print_count + 1, last_issued_at_ms = ?3 WHERE cart_id = ?1 AND generation = ?2",
                        params![cart_id.0, record.generation, now_ms],
                    )?;
                }
                IssuedRyoshusho { record: RyoshushoRecord { print_count: record.print_count + 1, ..record }, reprint: true }
            }
            None => IssuedRyoshusho { record: insert_tx(&tx, cart_id, issue, now_ms)?, reprint: false },
        };
        audit_tx(&tx, &issued, issue.issued_by, now_ms)?;
        tx.commit()?;
        Ok(issued)
    }
}

fn insert_tx(tx: &WriteTx<'_>, cart_id: CartId, issue: &RyoshushoIssue<'_>, now_ms: i64) -> Result<RyoshushoRecord> {
    if issue.total_minor <= 0 || !(0..=issue.total_minor).contains(&issue.cash_minor) || issue.stamp_duty_minor.is_some_and(|d| d <= 0) {
        return Err(Error::InvalidAmount(format!(
            "a ryōshūsho of {} with {} in cash and a duty of {:?}",
            issue.total_minor, issue.cash_minor, issue.stamp_duty_minor
        )));
    }
    let issued_by = match issue.issued_by {
        Some(id) => Some(id),
        None => super::session::operator(tx)?,
    };
    let record = RyoshushoRecord {
        cart_id,
        number: ryoshusho_number(cart_id),
        addressee: issue.addressee.trim().to_string(),
        description: issue.description.trim().to_string(),
        total_minor: issue.total_minor,
        cash_minor: issue.cash_minor,
        stamp_duty_minor: issue.stamp_duty_minor,
        issued_by,
        issued_at_ms: now_ms,
        print_count: 1,
        generation: 1,
        replaces: None,
    };
    let r = &record;
    tx.exec_cached(
        "INSERT INTO ryoshusho (cart_id, number, addressee, description, total_minor, cash_minor, stamp_duty_minor, issued_by,
                                issued_at_ms, print_count, last_issued_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?9)",
        params![cart_id.0, r.number, r.addressee, r.description, r.total_minor, r.cash_minor, r.stamp_duty_minor, r.issued_by, now_ms],
    )?;
    Ok(record)
}

/// The audit row of one issue: which document, to whom, for how much, and the how-many-th
/// print it is. The addressee is in the row, so a reprint to someone else is findable.
fn audit_tx(tx: &WriteTx<'_>, issued: &IssuedRyoshusho, by: Option<i64>, now_ms: i64) -> Result<()> {
    let r = &issued.record;
    let after = serde_json::json!({
        "cart_id": r.cart_id.0, "number": r.number, "addressee": r.addressee, "description": r.description,
        "total": r.total_minor, "cash": r.cash_minor, "stamp_duty": r.stamp_duty_minor, "print_count": r.print_count,
        "replaces": r.replaces,
    });
    let action = match (issued.reprint, r.generation) {
        (true, _) => "ryoshusho_reprint",
        (false, 1) => "ryoshusho_issue",
        (false, _) => "ryoshusho_reissue",
    };
    let input = AuditInput {
        actor_id: by,
        after: Some(after.to_string()),
        ..AuditInput::new(action, &format!("ryoshusho {} (sale {})", r.number, r.cart_id.0))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(())
}

fn taken_back_tx(conn: &rusqlite::Connection, cart_id: CartId) -> Result<Option<i64>> {
    Ok(conn
        .row_cached("SELECT taken_back_at_ms FROM ryoshusho_taken_back WHERE cart_id = ?1", [cart_id.0], |r| r.get(0))
        .optional()?)
}

/// The insider route of record 0112, closed (record 0114): money goes back on a sale with
/// a ryōshūsho still valid only when the customer hands it back. Answers the number of the
/// ryōshūsho to mark taken back (`taken_back` said so), `None` when the sale has none or it
/// came back already, and refuses ([`Error::RyoshushoNotTakenBack`]) otherwise.
///
/// The newest generation is the one that must come back (record 0145): after a new
/// ryōshūsho was issued for what was kept, a second return needs that one.
pub(in crate::ledger) fn outstanding_tx(tx: &WriteTx<'_>, cart_id: CartId, taken_back: bool) -> Result<Option<String>> {
    let Some(current) = current_tx(tx, cart_id)? else { return Ok(None) };
    if current.taken_back_at_ms.is_some() {
        return Ok(None);
    }
    if !taken_back {
        return Err(Error::RyoshushoNotTakenBack { cart_id: cart_id.0, number: current.record.number });
    }
    Ok(Some(current.record.number))
}

/// Marks the sale's ryōshūsho handed back (by the refund or the return `return_id`), and
/// says so in the audit chain, inside the caller's transaction.
/// The newest generation is the one marked (record 0145).
pub(in crate::ledger) fn mark_taken_back_tx(tx: &WriteTx<'_>, cart_id: CartId, return_id: Option<i64>, now_ms: i64) -> Result<()> {
    let staff = super::session::operator(tx)?;
    let Some(current) = current_tx(tx, cart_id)? else {
        return Err(Error::UnknownValue { what: "ryoshusho of sale", value: cart_id.0.to_string() });
    };
    if current.record.generation == 1 {
        tx.exec_cached(
            "INSERT INTO ryoshusho_taken_back (cart_id, return_id, staff_id, taken_back_at_ms) VALUES (?1, ?2, ?3, ?4)",
            params![cart_id.0, return_id, staff, now_ms],
        )?;
    } else {
        tx.exec_cached(
            "UPDATE ryoshusho_reissues SET taken_back_at_ms = ?3, taken_back_return_id = ?4, taken_back_staff_id = ?5
             WHERE cart_id = ?1 AND generation = ?2 AND taken_back_at_ms IS NULL",
            params![cart_id.0, current.record.generation, now_ms, return_id, staff],
        )?;
    }
    let number = current.record.number;
    let after = serde_json::json!({ "cart_id": cart_id.0, "number": number, "return_id": return_id });
    let input = AuditInput {
        actor_id: staff,
        after: Some(after.to_string()),
        ..AuditInput::new("ryoshusho_taken_back", &format!("ryoshusho {number} (sale {}) taken back", cart_id.0))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(())
}
