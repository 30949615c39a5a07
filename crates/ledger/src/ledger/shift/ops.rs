//! The writes of a shift (record 0066), each one transaction with its audit row, so
//! "it happened" and "who did it" are committed together or not at all.

use std::ops::Deref;
use crate::ledger::Shifts;
use paydesk_access::audit::{Anchor, Hash};
use paydesk_access::Action;
use rusqlite::{params, OptionalExtension};

use crate::drawer::{checked_count, checked_reason, DenominationCount, ShiftRefusal, MAX_PAID_IN_OUT_MINOR};
use super::report::{shift_report_tx, PaidKind, ShiftReport, ZReport};
use super::{authorize_tx, open_shift_id, shift_by_id_tx, Actor, Shift, MAX_PAID_IN_OUT_PER_SHIFT};
use crate::error::{Error, Result};
use crate::ledger::audit::{append_audit, audit_head_tx, AuditInput};
use crate::ledger::{collect, Cached, Ledger};
use paydesk_domain::money::Currency;
use crate::types::CartId;

/// Whether a customer is half-way through paying (the shift must not close under them).
fn mid_payment(state: crate::tender::SaleState) -> bool {
    use crate::tender::SaleState as S;
    match state {
        S::PartiallyPaid => true,
        // Done, owed by a customer who left (End of day lists it), or being canceled
        // (its cash went back at the cancel; card refunds need no drawer).
        S::Open | S::Paid | S::UnpaidBalance | S::Canceling | S::Canceled => false,
    }
}

fn audit(actor: Actor, approver: Option<i64>, action: &str, subject: String, reason: Option<String>, after: serde_json::Value) -> AuditInput {
    AuditInput { actor_id: Some(actor.staff_id), approver_id: approver, reason, after: Some(after.to_string()), ..AuditInput::new(action, &subject) }
}

impl Shifts<&mut Ledger> {
    /// Opens a shift on a float counted by denomination, in the store's currency.
    pub fn open(&mut self, actor: Actor, float: &[DenominationCount], now_ms: i64) -> Result<Shift> {
        let tx = self.write_tx()?;
        let approver = authorize_tx(&tx, actor, Action::OpenShift)?;
        if let Some(shift_id) = open_shift_id(&tx)? {
            return Err(Error::ShiftAlreadyOpen { shift_id });
        }
        let currency: Currency = match tx.row_cached("SELECT currency FROM store_settings WHERE id = 1", [], |r| r.get::<_, String>(0)).optional()? {
            Some(c) => c.parse()?,
            None => return Err(Error::ShiftRefused(ShiftRefusal::NoStoreCurrency)),
        };
        let (counts, float_minor) = checked_count(currency, float)?;
        tx.exec_cached(
            "INSERT INTO shifts (currency, opened_at_ms, opened_by, float_counts, float_minor) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![currency.code(), now_ms, actor.staff_id, serde_json::to_string(&counts)?, float_minor],
        )?;
        let id = tx.last_insert_rowid();
        let after = serde_json::json!({ "float_minor": float_minor, "float_counts": counts, "currency": currency.code() });
        append_audit(&tx, &audit(actor, approver, "shift_open", format!("shift:{id}"), None, after), now_ms)?;
        let shift = shift_by_id_tx(&tx, id)?.expect("the shift just inserted");
        tx.commit()?;
        Ok(shift)
    }

    /// Puts cash into (paid in) or takes it out of (paid out) the drawer of the open
    /// shift outside a sale, with the person's reason (3-200 characters). The amount is
    /// checked against the shift's currency, so its refusal can name it.
    pub fn paid_in_out(&mut self, actor: Actor, kind: PaidKind, amount_minor: i64, reason: &str, now_ms: i64) -> Result<super::PaidInOut> {
        let reason = checked_reason(reason).ok_or(Error::ShiftRefused(ShiftRefusal::ReasonInvalid))?.to_string();
        let tx = self.write_tx()?;
        let approver = authorize_tx(&tx, actor, Action::PaidInOut)?;
        let shift_id = open_shift_id(&tx)?.ok_or(Error::NoOpenShift)?;
        let shift = shift_by_id_tx(&tx, shift_id)?.expect("the open shift");
        let currency = shift.currency;
        if !(1..=MAX_PAID_IN_OUT_MINOR).contains(&amount_minor) {
            return Err(Error::ShiftRefused(ShiftRefusal::PaidAmountOutOfRange { currency, amount_minor }));
        }
        let n: i64 = tx.row_cached("SELECT count(*) FROM paid_in_out WHERE shift_id = ?1", [shift_id], |r| r.get(0))?;
        if n >= MAX_PAID_IN_OUT_PER_SHIFT {
            return Err(Error::ShiftRefused(ShiftRefusal::TooManyPaidInOut));
        }
        if kind == PaidKind::PaidOut {
            // The drawer cannot hand out cash it does not hold.
            let drawer_minor = shift_report_tx(&tx, shift_id, now_ms)?.expected_drawer_minor;
            if amount_minor > drawer_minor {
                return Err(Error::ShiftRefused(ShiftRefusal::PaidOutAboveDrawer { currency, amount_minor, drawer_minor }));
            }
        }
        tx.exec_cached(
            "INSERT INTO paid_in_out (shift_id, kind, amount_minor, currency, reason, staff_id, approver_id, at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![shift_id, kind.as_str(), amount_minor, shift.currency.code(), reason, actor.staff_id, approver, now_ms],
        )?;
        let id = tx.last_insert_rowid();
        let after = serde_json::json!({ "shift": shift_id, "amount_minor": amount_minor, "currency": shift.currency.code() });
        append_audit(&tx, &audit(actor, approver, kind.as_str(), format!("paid_in_out:{id}"), Some(reason.clone()), after), now_ms)?;
        let row = super::report::paid_in_out_of(&tx, shift_id)?.into_iter().find(|p| p.id == id).expect("the row just inserted");
        tx.commit()?;
        Ok(row)
    }

    /// The open shift's X report: its figures so far, nothing closed. Recorded in the
    /// audit log (who looked at the expected drawer, and when).
    pub fn x_report(&mut self, actor: Actor, now_ms: i64) -> Result<ShiftReport> {
        let tx = self.write_tx()?;
        let approver = authorize_tx(&tx, actor, Action::XReport)?;
        let shift_id = open_shift_id(&tx)?.ok_or(Error::NoOpenShift)?;
        let report = shift_report_tx(&tx, shift_id, now_ms)?;
        let after = serde_json::json!({ "expected_drawer_minor": report.expected_drawer_minor });
        append_audit(&tx, &audit(actor, approver, "x_report", format!("shift:{shift_id}"), None, after), now_ms)?;
        tx.commit()?;
        Ok(report)
    }

    /// Closes the open shift on a blind count (the counter never sees the expected
    /// amount first) and writes the next Z report. Refused while a sale of the shift is
    /// part-paid. The Z report keeps the audit head right after its own audit row.
    pub fn close(&mut self, actor: Actor, counted: &[DenominationCount], now_ms: i64) -> Result<ZReport> {
        let tx = self.write_tx()?;
        let approver = authorize_tx(&tx, actor, Action::CloseShift)?;
        let shift_id = open_shift_id(&tx)?.ok_or(Error::NoOpenShift)?;
        let shift = shift_by_id_tx(&tx, shift_id)?.expect("the open shift");
        let (counted_counts, counted_minor) = checked_count(shift.currency, counted)?;
        let unpaid = collect(
            &tx,
            "SELECT DISTINCT t.cart_id FROM tenders t JOIN carts c ON c.id = t.cart_id
             WHERE t.shift_id = ?1 AND c.state <> 'paid' ORDER BY t.cart_id LIMIT 1000",
            [shift_id],
            |r| Ok(Ok(CartId(r.get(0)?))),
        )?;
        for cart in unpaid {
            let sale = crate::ledger::sale::sale_tx(&tx, cart)?;
            if mid_payment(sale.state) {
                return Err(Error::ShiftHasOpenSale { cart_id: cart.0 });
            }
        }
        tx.exec_cached("UPDATE shifts SET closed_at_ms = ?2, closed_by = ?3 WHERE id = ?1", params![shift_id, now_ms, actor.staff_id])?;
        let report = shift_report_tx(&tx, shift_id, now_ms)?;
        let expected_minor = report.expected_drawer_minor;
        let over_short_minor = counted_minor - expected_minor;
        let z_number: i64 = tx.row_cached("SELECT COALESCE(MAX(z_number), 0) + 1 FROM z_reports", [], |r| r.get(0))?;
        let after = serde_json::json!({
            "z_number": z_number, "counted_minor": counted_minor, "expected_minor": expected_minor,
            "over_short_minor": over_short_minor, "currency": shift.currency.code(),
        });
        append_audit(&tx, &audit(actor, approver, "shift_close", format!("shift:{shift_id}"), None, after), now_ms)?;
        let audit_head = audit_head_tx(&tx)?;
        tx.exec_cached(
            "INSERT INTO z_reports (z_number, shift_id, closed_at_ms, closed_by, approver_id, counted_counts, counted_minor,
                 expected_minor, over_short_minor, report, audit_seq, audit_hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                z_number,
                shift_id,
                now_ms,
                actor.staff_id,
                approver,
                serde_json::to_string(&counted_counts)?,
                counted_minor,
                expected_minor,
                over_short_minor,
                serde_json::to_string(&report)?,
                audit_head.seq as i64,
                audit_head.hash.as_slice(),
            ],
        )?;
        tx.commit()?;
        Ok(ZReport { z_number, closed_by: actor.staff_id, approver_id: approver, counted_counts, counted_minor, expected_minor, over_short_minor, report, audit_head })
    }
}

impl<L: Deref<Target = Ledger>> Shifts<L> {
    /// Z report number `z_number`, as written at its close.
    pub fn z_report(&self, z_number: i64) -> Result<Option<ZReport>> {
        let row = self
            .conn
            .row_cached(
                "SELECT z_number, closed_by, approver_id, counted_counts, counted_minor, expected_minor, over_short_minor,
                        report, audit_seq, audit_hash FROM z_reports WHERE z_number = ?1",
                [z_number],
                |r| {
                    Ok((
                        (r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, Option<i64>>(2)?, r.get::<_, String>(3)?),
                        (r.get::<_, i64>(4)?, r.get::<_, i64>(5)?, r.get::<_, i64>(6)?, r.get::<_, String>(7)?),
                        (r.get::<_, i64>(8)?, r.get::<_, Vec<u8>>(9)?),
                    ))
                },
            )
            .optional()?;
        let Some(((z_number, closed_by, approver_id, counts), (counted_minor, expected_minor, over_short_minor, report), (seq, hash))) = row else {
            return Ok(None);
        };
        let hash = Hash::try_from(hash.as_slice())
            .map_err(|_| Error::UnknownValue { what: "Z report audit hash length", value: format!("Z {z_number}") })?;
        Ok(Some(ZReport {
            z_number,
            closed_by,
            approver_id,
            counted_counts: serde_json::from_str(&counts)?,
            counted_minor,
            expected_minor,
            over_short_minor,
            report: serde_json::from_str(&report)?,
            audit_head: Anchor { seq: seq as u64, hash },
        }))
    }

    /// The newest Z report's number (0: none yet).
    pub fn last_z_number(&self) -> Result<i64> {
        Ok(self.conn.row_cached("SELECT COALESCE(MAX(z_number), 0) FROM z_reports", [], |r| r.get(0))?)
    }
}
