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

use std::ops::Deref;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

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
    /// The sale's receipt number and "-1" (one per sale).
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
}

/// The answer of an issue: the record, and whether this issue is a reprint of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedRyoshusho {
    pub record: RyoshushoRecord,
    pub reprint: bool,
}

/// The number of a sale's ryōshūsho: its receipt number (`receipt_sale_data`'s) and "-1".
pub fn ryoshusho_number(cart_id: CartId) -> String {
    format!("{:06}-1", cart_id.0)
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
            })
        })
        .optional()?)
}

impl<L: Deref<Target = Ledger>> Receipts<L> {
    /// The sale's ryōshūsho, if one was issued.
    pub fn ryoshusho(&self, cart_id: CartId) -> Result<Option<RyoshushoRecord>> {
        record_tx(&self.conn, cart_id)
    }

    /// When the sale's ryōshūsho was handed back at a refund or return (record 0114), if
    /// it was: from then on it is not valid and is not reprinted.
    pub fn ryoshusho_taken_back(&self, cart_id: CartId) -> Result<Option<i64>> {
        taken_back_tx(&self.conn, cart_id)
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
        let issued = match record_tx(&tx, cart_id)? {
            Some(first) if first.addressee != addressee || first.description != description => {
                return Err(Error::RyoshushoDiffers { cart_id: cart_id.0, number: first.number });
            }
            Some(first) if taken_back_tx(&tx, cart_id)?.is_some() => {
                return Err(Error::RyoshushoTakenBack { cart_id: cart_id.0, number: first.number });
            }
            Some(first) => {
                tx.exec_cached("UPDATE ryoshusho SET print_count = print_count + 1, last_issued_at_ms = ?2 WHERE cart_id = ?1", params![cart_id.0, now_ms])?;
                IssuedRyoshusho { record: RyoshushoRecord { print_count: first.print_count + 1, ..first }, reprint: true }
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
    });
    let action = if issued.reprint { "ryoshusho_reprint" } else { "ryoshusho_issue" };
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
pub(in crate::ledger) fn outstanding_tx(tx: &WriteTx<'_>, cart_id: CartId, taken_back: bool) -> Result<Option<String>> {
    let Some(record) = record_tx(tx, cart_id)? else { return Ok(None) };
    if taken_back_tx(tx, cart_id)?.is_some() {
        return Ok(None);
    }
    if !taken_back {
        return Err(Error::RyoshushoNotTakenBack { cart_id: cart_id.0, number: record.number });
    }
    Ok(Some(record.number))
}

/// Marks the sale's ryōshūsho handed back (by the refund or the return `return_id`), and
/// says so in the audit chain, inside the caller's transaction.
pub(in crate::ledger) fn mark_taken_back_tx(tx: &WriteTx<'_>, cart_id: CartId, return_id: Option<i64>, now_ms: i64) -> Result<()> {
    let staff = super::session::operator(tx)?;
    tx.exec_cached(
        "INSERT INTO ryoshusho_taken_back (cart_id, return_id, staff_id, taken_back_at_ms) VALUES (?1, ?2, ?3, ?4)",
        params![cart_id.0, return_id, staff, now_ms],
    )?;
    let number = ryoshusho_number(cart_id);
    let after = serde_json::json!({ "cart_id": cart_id.0, "number": number, "return_id": return_id });
    let input = AuditInput {
        actor_id: staff,
        after: Some(after.to_string()),
        ..AuditInput::new("ryoshusho_taken_back", &format!("ryoshusho {number} (sale {}) taken back", cart_id.0))
    };
    append_audit(tx, &input, now_ms)?;
    Ok(())
}
