//! Whether a shift is open, and opening one on a float counted by denomination.
//! Nothing here shows what the drawer should hold: the close is a blind count.

use paydesk_ledger::ledger::shift::count::denominations;
use paydesk_access::Action;
use paydesk_register::usecases::ShiftState;
use serde::Serialize;
use tauri::State;

use super::{actor, count_of, CountInput};
use crate::staff::Approval;
use crate::error::AppResult;
use crate::state::AppState;

#[derive(Debug, Clone, Serialize)]
pub struct ShiftStatus {
    pub open: bool,
    pub shift_id: Option<i64>,
    pub opened_at_ms: Option<i64>,
    pub opened_by: Option<String>,
    pub float_minor: Option<i64>,
    pub float_counts: Vec<CountInput>,
    /// The store's currency and its notes and coins, largest first (the count forms).
    pub currency: String,
    pub denominations: Vec<i64>,
    /// Who is signed in (they act), if anyone.
    pub signed_in: Option<String>,
    /// Whether this register sells only inside an open shift (it has staff).
    pub required: bool,
    /// The newest Z report's number (0: none yet).
    pub last_z: i64,
}

fn status_of(s: ShiftState, currency: paydesk_domain::Currency) -> ShiftStatus {
    let ShiftState { shift, opened_by, signed_in, required, last_z } = s;
    ShiftStatus {
        open: shift.is_some(),
        shift_id: shift.as_ref().map(|s| s.id),
        opened_at_ms: shift.as_ref().map(|s| s.opened_at_ms),
        opened_by,
        float_minor: shift.as_ref().map(|s| s.float_minor),
        float_counts: shift
            .as_ref()
            .map(|s| s.float_counts.iter().map(|c| CountInput { denomination_minor: c.denomination_minor, count: c.count }).collect())
            .unwrap_or_default(),
        currency: currency.code().to_uppercase(),
        denominations: denominations(currency).to_vec(),
        signed_in: signed_in.map(|s| s.name),
        required,
        last_z,
    }
}

#[tauri::command]
pub fn shift_status(state: State<'_, AppState>) -> AppResult<ShiftStatus> {
    let currency = state.currency;
    Ok(status_of(state.engine().shifts().status()?, currency))
}

/// Opens a shift on `float`, counted by denomination in the store's currency, by the
/// person signed in (a cashier may: record 0062).
#[tauri::command]
pub fn shift_open(state: State<'_, AppState>, float: Vec<CountInput>, approval: Option<Approval>) -> AppResult<ShiftStatus> {
    let float = count_of(&float)?;
    let currency = state.currency;
    let who = actor(&state, Action::OpenShift, approval.as_ref())?;
    Ok(status_of(state.engine().shifts().open(who, &float)?, currency))
}
