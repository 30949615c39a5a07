//! The Staff screen's commands (record 0127): the owner's list of every member, adding
//! one, a new role, a PIN reset, retirement. Each command checks the role itself
//! (`Action::StaffAdmin`, the gate in `ops.rs`) before anything else: the screen only
//! hides the tab. The ledger checks again, inside its write, that the person signed in
//! may do it, so a session changed between the two is refused there too.

use paydesk_access::{Action, Role};
use paydesk_ledger::Staff;
use paydesk_register::usecases::StaffActor;
use serde::Serialize;
use tauri::State;

use crate::staff::{check_name, parse_pin};
use crate::base::now_ms;
use crate::error::{AppError, AppResult};
use crate::i18n::{id, t};
use crate::ops::Operation;
use crate::state::AppState;

/// A member as the Staff screen lists them: never a PIN or its hash.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StaffRow {
    pub name: String,
    pub role: Role,
    pub active: bool,
    /// The back office's member (record 0050): read-only here.
    pub published: bool,
    /// Locked after wrong PINs until then (ms since the epoch), if still locked.
    pub locked_until_ms: Option<i64>,
}

impl StaffRow {
    fn of(s: &Staff, now_ms: i64) -> StaffRow {
        StaffRow {
            name: s.name.clone(),
            role: s.role,
            active: s.active,
            published: s.published,
            locked_until_ms: s.locked_until_ms.filter(|t| *t > now_ms),
        }
    }
}

/// Only the person signed in, if their role allows staff admin (an owner): no approval
/// stands in for one.
fn owner_only(state: &AppState) -> AppResult<()> {
    Operation::new(Action::StaffAdmin, None).permit(state)?;
    Ok(())
}

fn role_of(role: &str) -> AppResult<Role> {
    Role::parse(role).map_err(|_| AppError::InvalidInput(t(id!("staff-admin-role-invalid"))))
}

/// A new PIN typed twice, the same both times.
fn new_pin(pin: &str, pin_again: &str) -> AppResult<paydesk_access::pin::Pin> {
    let parsed = parse_pin(pin)?;
    if pin != pin_again {
        return Err(AppError::InvalidInput(t(id!("staff-admin-pins-differ"))));
    }
    Ok(parsed)
}

/// Every member, retired ones too (in the order they were added).
#[tauri::command]
pub fn staff_admin_list(state: State<'_, AppState>) -> AppResult<Vec<StaffRow>> {
    owner_only(&state)?;
    let now = now_ms();
    Ok(state.engine().staff().list()?.iter().map(|s| StaffRow::of(s, now)).collect())
}

#[tauri::command]
pub fn staff_add(state: State<'_, AppState>, name: String, role: String, pin: String, pin_again: String) -> AppResult<StaffRow> {
    owner_only(&state)?;
    let name = check_name(&name)?.to_string();
    let (role, pin) = (role_of(&role)?, new_pin(&pin, &pin_again)?);
    let added = state.engine().staff().add_as(&name, role, &pin, StaffActor::SignedIn)?;
    Ok(StaffRow::of(&added, now_ms()))
}

#[tauri::command]
pub fn staff_set_role(state: State<'_, AppState>, name: String, role: String) -> AppResult<StaffRow> {
    owner_only(&state)?;
    let name = check_name(&name)?.to_string();
    let changed = state.engine().staff().set_role(&name, role_of(&role)?, StaffActor::SignedIn)?;
    Ok(StaffRow::of(&changed, now_ms()))
}

#[tauri::command]
pub fn staff_reset_pin(state: State<'_, AppState>, name: String, pin: String, pin_again: String) -> AppResult<StaffRow> {
    owner_only(&state)?;
    let name = check_name(&name)?.to_string();
    let pin = new_pin(&pin, &pin_again)?;
    let changed = state.engine().staff().reset_pin(&name, &pin, StaffActor::SignedIn)?;
    // The app's own wrong-PIN counter (pin_locks.rs) starts again with the new PIN too.
    state.pin_locks.forget(&name);
    Ok(StaffRow::of(&changed, now_ms()))
}

#[tauri::command]
pub fn staff_retire(state: State<'_, AppState>, name: String) -> AppResult<StaffRow> {
    owner_only(&state)?;
    let name = check_name(&name)?.to_string();
    let retired = state.engine().staff().retire(&name, StaffActor::SignedIn)?;
    Ok(StaffRow::of(&retired, now_ms()))
}
