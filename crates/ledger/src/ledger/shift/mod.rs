//! Shifts (record 0066): a till session opened on a counted float, cash paid in and out
//! with a reason, X reports at any time, and a close on a blind count that writes a Z
//! report numbered 1, 2, 3 … which nothing changes afterwards.
//!
//! | file        | what it holds                                                  |
//! |-------------|----------------------------------------------------------------|
//! | `ops.rs`    | open, paid in / paid out, close (each one write transaction)   |
//! | `report.rs` | the X / Z report of a shift, built from the ledger's rows      |
//!
//! The drawer's vocabulary (denominations, a checked count, [`ShiftRefusal`]) is
//! `crate::drawer`.
//!
//! Who may do what is `paydesk_access`'s table, checked here as well as by the screen
//! ([`authorize_tx`]); an approver's PIN is checked by the caller before it names them.

use std::ops::Deref;
use crate::ledger::Shifts;
use paydesk_access::{authorize, Action, Authorization};
use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};

use super::{Cached, Ledger};
use crate::error::{Error, Result};
use paydesk_domain::money::Currency;
use crate::write_tx::WriteTx;

mod ops;
mod report;

// The drawer's vocabulary lives in `crate::drawer` (the ledger's `Error` wraps a refusal).
pub use crate::drawer::{checked_count, count, denominations, refusal, DenominationCount, MAX_DRAWER_MINOR, MAX_PIECES_PER_DENOMINATION};
pub use crate::drawer::{checked_reason, ShiftRefusal, MAX_PAID_IN_OUT_MINOR, MAX_PAID_IN_OUT_PER_SHIFT, REASON_MAX_CHARS, REASON_MIN_CHARS};
pub use report::{PaidInOut, PaidKind, ShiftReport, TenderTotal, ZReport};


/// Who is acting, and who approved when their role alone is not enough. Both are staff
/// ids whose PINs the caller checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub staff_id: i64,
    pub approver_id: Option<i64>,
}

impl Actor {
    pub fn alone(staff_id: i64) -> Actor {
        Actor { staff_id, approver_id: None }
    }
}

/// A shift as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shift {
    pub id: i64,
    pub currency: Currency,
    pub opened_at_ms: i64,
    pub opened_by: i64,
    pub float_counts: Vec<DenominationCount>,
    pub float_minor: i64,
    pub closed_at_ms: Option<i64>,
    pub closed_by: Option<i64>,
}

const SHIFT_COLS: &str = "id, currency, opened_at_ms, opened_by, float_counts, float_minor, closed_at_ms, closed_by";

fn shift_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Shift>> {
    let currency: String = r.get(1)?;
    let counts: String = r.get(4)?;
    let (id, opened_at_ms, opened_by, float_minor, closed_at_ms, closed_by) =
        (r.get(0)?, r.get(2)?, r.get(3)?, r.get(5)?, r.get(6)?, r.get(7)?);
    Ok((|| {
        Ok(Shift {
            id,
            currency: currency.parse()?,
            opened_at_ms,
            opened_by,
            float_counts: serde_json::from_str(&counts)?,
            float_minor,
            closed_at_ms,
            closed_by,
        })
    })())
}

pub(super) fn shift_by_id_tx(conn: &rusqlite::Connection, id: i64) -> Result<Option<Shift>> {
    conn.row_cached(&format!("SELECT {SHIFT_COLS} FROM shifts WHERE id = ?1"), [id], shift_of).optional()?.transpose()
}

/// The open shift's id, if any.
pub(crate) fn open_shift_id(conn: &rusqlite::Connection) -> Result<Option<i64>> {
    Ok(conn.row_cached("SELECT id FROM shifts WHERE closed_at_ms IS NULL", [], |r| r.get(0)).optional()?)
}

/// Whether money may only move inside an open shift: a store whose staff sign in (any
/// active staff member) counts its drawer per shift; a register without staff (the demo
/// before its owner exists, the simulator) sells without.
pub(crate) fn shifts_required(conn: &rusqlite::Connection) -> Result<bool> {
    Ok(conn.row_cached("SELECT EXISTS (SELECT 1 FROM staff WHERE active = 1)", [], |r| r.get(0))?)
}

/// Admits new money (a tender, a payment, a refund, cash paid out for one) and says who
/// is moving it. Where shifts are required, someone must be signed in
/// ([`Error::NotSignedIn`]) and a shift open ([`Error::NoOpenShift`]); a register
/// without staff moves money with nobody named. The check sits where money is admitted,
/// never where recovery finishes what was admitted before.
pub(crate) fn admit_money_tx(tx: &WriteTx<'_>) -> Result<Option<i64>> {
    let operator = super::session::operator(tx)?;
    if shifts_required(tx)? {
        if operator.is_none() {
            return Err(Error::NotSignedIn);
        }
        if open_shift_id(tx)?.is_none() {
            return Err(Error::NoOpenShift);
        }
    }
    Ok(operator)
}

/// Checks `actor` (and their approver) against the role table for `action`, as the
/// ledger holds their roles now. The actor must be the person signed in at the register
/// (their PIN was checked by [`Roster::sign_in`]); the approver's PIN is the caller's to
/// check. Returns the approver to record, if one was needed.
pub(crate) fn authorize_tx(conn: &rusqlite::Connection, actor: Actor, action: Action) -> Result<Option<i64>> {
    match super::session::operator(conn)? {
        None => return Err(Error::NotSignedIn),
        Some(id) if id != actor.staff_id => return Err(Error::NotTheOperator { staff_id: actor.staff_id }),
        Some(_) => {}
    }
    let person = |id: i64, who: &'static str| -> Result<paydesk_access::Person> {
        let s = super::staff::active_staff_tx(conn, id)?.ok_or(Error::InactiveStaff { staff_id: id, who })?;
        Ok(s.person())
    };
    let who = person(actor.staff_id, "actor")?;
    let approver = actor.approver_id.map(|a| person(a, "approver")).transpose()?;
    match authorize(who, action, approver) {
        Authorization::Allowed => Ok(None),
        Authorization::Approved { approver_id } => Ok(Some(approver_id)),
        refused @ (Authorization::NeedsApproval { .. } | Authorization::ApproverTooLow { .. } | Authorization::SelfApproval) => {
            Err(Error::NotAllowed { action: action.as_str(), authorization: refused })
        }
    }
}

/// The audit head each Z report recorded, oldest first (at most the newest 10,000:
/// older ones have long been checked by the verifications since).
pub(crate) fn z_report_heads(conn: &rusqlite::Connection) -> Result<Vec<paydesk_access::audit::Anchor>> {
    let mut heads = super::collect(
        conn,
        "SELECT z_number, audit_seq, audit_hash FROM z_reports ORDER BY z_number DESC LIMIT 10000",
        [],
        |r| {
            let (z, seq, hash): (i64, i64, Vec<u8>) = (r.get(0)?, r.get(1)?, r.get(2)?);
            Ok(paydesk_access::audit::Hash::try_from(hash.as_slice())
                .map(|hash| paydesk_access::audit::Anchor { seq: seq as u64, hash })
                .map_err(|_| Error::UnknownValue { what: "Z report audit hash length", value: format!("Z {z}") }))
        },
    )?;
    heads.reverse();
    Ok(heads)
}

impl<L: Deref<Target = Ledger>> Shifts<L> {
    /// The open shift, if any.
    pub fn current(&self) -> Result<Option<Shift>> {
        match open_shift_id(&self.conn)? {
            Some(id) => shift_by_id_tx(&self.conn, id),
            None => Ok(None),
        }
    }

    pub fn by_id(&self, id: i64) -> Result<Option<Shift>> {
        shift_by_id_tx(&self.conn, id)
    }

    /// Whether this register sells only inside an open shift (see [`shifts_required`]).
    pub fn required(&self) -> Result<bool> {
        shifts_required(&self.conn)
    }
}
