//! Shifts (record 0066): whether one is open and who opened it, opening on a counted
//! float, paid in / out, the X report, the close on a blind count (its Z report) and any
//! earlier Z. A report comes with what printing it needs (the store, the staff's names),
//! read in the same transaction as its figures.

use paydesk_ledger::{Actor, DenominationCount, PaidInOut, PaidKind, Result, Shift, ShiftReport, Staff, StoreSettings, ZReport};

use super::StaffNames;
use crate::Engine;

/// Shift use cases; see [`Engine::shifts`].
pub struct ShiftCases<'e> {
    pub(super) engine: &'e Engine,
}

/// The shift screen's facts, read together.
#[derive(Debug, Clone)]
pub struct ShiftState {
    /// The open shift, if one is.
    pub shift: Option<Shift>,
    /// Who opened it (by name; "#id" for a name the ledger no longer knows).
    pub opened_by: Option<String>,
    pub signed_in: Option<Staff>,
    /// This register sells only inside an open shift (it has staff).
    pub required: bool,
    /// The newest Z report's number (0: none yet).
    pub last_z: i64,
}

/// A report (an X's [`ShiftReport`] or a [`ZReport`]) with the store and the staff's
/// names as they were when it was read, and that moment (the engine's clock).
#[derive(Debug, Clone)]
pub struct ShiftSnapshot<R> {
    pub report: R,
    pub store: StoreSettings,
    pub names: StaffNames,
    pub at_ms: i64,
}

fn state_of(l: &paydesk_ledger::Ledger, shift: Option<Shift>) -> Result<ShiftState> {
    let opened_by = match &shift {
        Some(s) => Some(StaffNames::load(l)?.name(s.opened_by)),
        None => None,
    };
    Ok(ShiftState { shift, opened_by, signed_in: l.roster().signed_in()?, required: l.shifts().required()?, last_z: l.shifts().last_z_number()? })
}

fn snapshot<R>(l: &paydesk_ledger::Ledger, report: R, at_ms: i64) -> Result<ShiftSnapshot<R>> {
    Ok(ShiftSnapshot { report, store: l.catalog().store_settings()?, names: StaffNames::load(l)?, at_ms })
}

impl ShiftCases<'_> {
    /// The open shift, if any.
    pub fn current(&self) -> Result<Option<Shift>> {
        self.engine.with_reader(|l| l.shifts().current())
    }

    /// The shift screen's facts.
    pub fn status(&self) -> Result<ShiftState> {
        self.engine.with_reader(|l| {
            let shift = l.shifts().current()?;
            state_of(l, shift)
        })
    }

    /// A sale may not begin: this register sells only inside a shift and none is open.
    pub fn needs_opening(&self) -> Result<bool> {
        self.engine.with_reader(|l| Ok(l.shifts().required()? && l.shifts().current()?.is_none()))
    }

    /// Opens a shift on `float`, counted by denomination, and answers the screen's facts.
    pub fn open(&self, who: Actor, float: &[DenominationCount]) -> Result<ShiftState> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let shift = l.shifts_mut().open(who, float, now)?;
            state_of(l, Some(shift))
        })
    }

    /// Cash put into or taken out of the drawer outside a sale, with the reason.
    pub fn paid_in_out(&self, who: Actor, kind: PaidKind, amount_minor: i64, reason: &str) -> Result<PaidInOut> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.shifts_mut().paid_in_out(who, kind, amount_minor, reason, now))
    }

    /// The open shift's X report (audited: who looked at the expected amount, and when).
    pub fn x_report(&self, who: Actor) -> Result<ShiftSnapshot<ShiftReport>> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let r = l.shifts_mut().x_report(who, now)?;
            snapshot(l, r, now)
        })
    }

    /// Closes the open shift on a blind count: its Z report.
    pub fn close(&self, who: Actor, counted: &[DenominationCount]) -> Result<ShiftSnapshot<ZReport>> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let z = l.shifts_mut().close(who, counted, now)?;
            snapshot(l, z, now)
        })
    }

    /// The newest Z report's number (0: none yet).
    pub fn last_z_number(&self) -> Result<i64> {
        self.engine.with_reader(|l| l.shifts().last_z_number())
    }

    /// Z report `number` as written at its close, if there is one.
    pub fn z_report(&self, number: i64) -> Result<Option<ShiftSnapshot<ZReport>>> {
        let now = self.engine.now();
        self.engine.with_reader(|l| match l.shifts().z_report(number)? {
            Some(z) => Ok(Some(snapshot(l, z, now)?)),
            None => Ok(None),
        })
    }
}
