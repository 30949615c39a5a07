//! The X / Z report of a shift (record 0066), built from the ledger's rows in one read:
//! the float, the drawer's movements tagged with the shift, paid in / out, and the
//! takings by End of day's definitions (`crate::takings`: tenders per kind, refunds, net,
//! canceled sales apart), so End of day and the X / Z reports agree. An X report is this while the shift is open; a Z report is
//! this frozen at the close with the blind count beside it.

use paydesk_access::audit::Anchor;
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::drawer::DenominationCount;
use super::{shift_by_id_tx, Shift};
use crate::error::{Error, Result};
use crate::ledger::collect;
use paydesk_domain::money::Currency;
use crate::ledger::takings::{takings_tx, Period};
pub use crate::takings::TenderTotal;
use crate::takings::Takings;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaidKind {
    PaidIn,
    PaidOut,
}

impl PaidKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            PaidKind::PaidIn => "paid_in",
            PaidKind::PaidOut => "paid_out",
        }
    }

    fn parse(s: &str) -> Result<PaidKind> {
        match s {
            "paid_in" => Ok(PaidKind::PaidIn),
            "paid_out" => Ok(PaidKind::PaidOut),
            other => Err(Error::UnknownValue { what: "paid in/out kind", value: other.into() }),
        }
    }
}

/// Cash put in or taken out outside a sale.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaidInOut {
    pub id: i64,
    pub kind: PaidKind,
    pub amount_minor: i64,
    pub reason: String,
    pub staff_id: i64,
    pub approver_id: Option<i64>,
    pub at_ms: i64,
}

/// A shift's figures. All amounts in the shift's currency, minor units; the cash ones
/// are positive and their signs are in the formula for `expected_drawer_minor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShiftReport {
    pub shift: Shift,
    /// Cash handed over by customers (before change).
    pub cash_received_minor: i64,
    pub change_given_minor: i64,
    /// Cash handed back when a part-paid sale was canceled.
    pub cash_cancel_returns_minor: i64,
    pub cash_refunds_minor: i64,
    pub paid_in_minor: i64,
    pub paid_out_minor: i64,
    pub paid_in_out: Vec<PaidInOut>,
    /// float + received - change - cancel returns - refunds + paid in - paid out.
    pub expected_drawer_minor: i64,
    /// The takings' tenders per kind (`takings.by_kind`).
    pub tenders: Vec<TenderTotal>,
    /// Sales with at least one tender in this shift that counts (`takings.sale_count`).
    pub sales: i64,
    /// Sales, refunds (card and cash), net and canceled sales by End of day's definitions
    /// (`crate::takings`). `None` in a Z report written before they were kept.
    #[serde(default)]
    pub takings: Option<Takings>,
    pub at_ms: i64,
}

/// What the close recorded. `report` is the shift as it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZReport {
    pub z_number: i64,
    pub closed_by: i64,
    pub approver_id: Option<i64>,
    pub counted_counts: Vec<DenominationCount>,
    pub counted_minor: i64,
    pub expected_minor: i64,
    /// counted - expected: positive over, negative short.
    pub over_short_minor: i64,
    pub report: ShiftReport,
    /// The audit chain's head right after the close's own row (`seq:hash` keeps it).
    pub audit_head: Anchor,
}

fn movement_sum(conn: &Connection, shift_id: i64, currency: Currency, kind: &str) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COALESCE(SUM(amount_minor), 0) FROM cash_movements WHERE shift_id = ?1 AND currency = ?2 AND kind = ?3",
        params![shift_id, currency.code(), kind],
        |r| r.get(0),
    )?)
}

pub(super) fn paid_in_out_of(conn: &Connection, shift_id: i64) -> Result<Vec<PaidInOut>> {
    collect(
        conn,
        "SELECT id, kind, amount_minor, reason, staff_id, approver_id, at_ms FROM paid_in_out WHERE shift_id = ?1 ORDER BY id",
        [shift_id],
        |r| {
            let kind: String = r.get(1)?;
            let (id, amount_minor, reason, staff_id, approver_id, at_ms) = (r.get(0)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?);
            Ok(PaidKind::parse(&kind).map(|kind| PaidInOut { id, kind, amount_minor, reason, staff_id, approver_id, at_ms }))
        },
    )
}

/// The report of shift `shift_id` as the ledger holds it now.
pub(super) fn shift_report_tx(conn: &Connection, shift_id: i64, now_ms: i64) -> Result<ShiftReport> {
    let shift = shift_by_id_tx(conn, shift_id)?.ok_or_else(|| Error::InvalidInput(format!("there is no shift {shift_id}")))?;
    let c = shift.currency;
    // Signed in the ledger (+ into the drawer); shown here as positive amounts.
    let cash_received_minor = movement_sum(conn, shift_id, c, "sale_in")?;
    let change_given_minor = -movement_sum(conn, shift_id, c, "change_out")?;
    let cash_cancel_returns_minor = -movement_sum(conn, shift_id, c, "cancel_return")?;
    let cash_refunds_minor = -movement_sum(conn, shift_id, c, "refund_out")?;
    let paid_in_out = paid_in_out_of(conn, shift_id)?;
    let sum_of = |k: PaidKind| paid_in_out.iter().filter(|p| p.kind == k).map(|p| p.amount_minor).sum::<i64>();
    let (paid_in_minor, paid_out_minor) = (sum_of(PaidKind::PaidIn), sum_of(PaidKind::PaidOut));
    let expected_drawer_minor = shift.float_minor + cash_received_minor - change_given_minor - cash_cancel_returns_minor
        - cash_refunds_minor
        + paid_in_minor
        - paid_out_minor;

    // The tenders, sales and refunds by the definitions End of day uses: a tender taken
    // in an earlier shift of the same sale stays with that shift (tenders are tagged).
    let takings = takings_tx(conn, c, Period::Shift(shift_id))?;
    Ok(ShiftReport {
        shift,
        cash_received_minor,
        change_given_minor,
        cash_cancel_returns_minor,
        cash_refunds_minor,
        paid_in_minor,
        paid_out_minor,
        paid_in_out,
        expected_drawer_minor,
        tenders: takings.by_kind.clone(),
        sales: takings.sale_count,
        takings: Some(takings),
        at_ms: now_ms,
    })
}
