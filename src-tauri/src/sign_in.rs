//! The sign-in screen's commands (record 0068): the staff tiles, sign in with a PIN,
//! lock (sign out), who is signed in, a PIN change, and the store's first owner.

use paydesk_access::pin::Pin;
use serde::Serialize;
use tauri::State;

use crate::pin_locks::Counter;
use crate::staff::guard::Idle;
use crate::staff::{check_name, parse_pin, StaffView};
use crate::error::{AppError, AppResult};
use crate::i18n::{id, t};
use crate::base::now_ms;
use crate::state::AppState;

/// What the screen needs to decide between the register, the sign-in screen and the
/// first-start screen.
#[derive(Debug, Clone, Serialize)]
pub struct WhoAmI {
    /// The store has staff: the register is used signed in.
    pub has_staff: bool,
    pub signed_in: Option<StaffView>,
    /// Seconds without input before the register locks itself.
    pub idle_lock_s: u32,
}

/// Who is signed in at this register (the ledger's session, not the screen's memory).
pub fn whoami_of(state: &AppState) -> AppResult<WhoAmI> {
    let now = now_ms();
    let paydesk_register::usecases::Session { has_staff, signed_in: me } = state.engine().staff().session()?;
    Ok(WhoAmI {
        has_staff,
        signed_in: me.as_ref().map(|s| StaffView::of(s, now)),
        idle_lock_s: state.stored.settings().idle_lock_s,
    })
}

#[tauri::command]
pub fn whoami(state: State<'_, AppState>) -> AppResult<WhoAmI> {
    whoami_of(&state)
}

/// The active staff, for the sign-in tiles and the approval dialog.
#[tauri::command]
pub fn staff_list(state: State<'_, AppState>) -> AppResult<Vec<StaffView>> {
    let now = now_ms();
    let all = state.engine().staff().list()?;
    Ok(all.iter().filter(|s| s.active).map(|s| StaffView::of(s, now)).collect())
}

/// An unknown name and a wrong PIN get the same answer (the ledger's, record 0063).
#[tauri::command]
pub fn sign_in(state: State<'_, AppState>, idle: State<'_, Idle>, name: String, pin: String) -> AppResult<StaffView> {
    let name = check_name(&name)?.to_string();
    let pin = parse_pin(&pin)?;
    let now = now_ms();
    let who = state.pin_locks.guard(Counter::Own, &name, || Ok(state.engine().staff().sign_in(&name, &pin)?))?;
    idle.touch();
    Ok(StaffView::of(&who, now))
}

/// Lock: whoever is signed in is signed out; the sale on screen stays where it is.
#[tauri::command]
pub fn sign_out(state: State<'_, AppState>) -> AppResult<()> {
    state.engine().staff().sign_out()?;
    Ok(())
}

/// The signed-in person's own PIN (record 0068, "Change my PIN"): the current one
/// checked under the lockout (a wrong one costs a try, as at sign-in), the new one typed
/// twice. They stay signed in; the new PIN is the one for the next sign-in and approvals.
#[tauri::command]
pub fn change_pin(state: State<'_, AppState>, old_pin: String, new_pin: String, new_pin_again: String) -> AppResult<()> {
    let (old, new) = pin_change_of(&old_pin, &new_pin, &new_pin_again)?;
    let me = whoami_of(&state)?.signed_in.ok_or(AppError::NotSignedIn)?;
    state.pin_locks.guard(Counter::Own, &me.name, || Ok(state.engine().staff().change_pin(&me.name, &old, &new)?))?;
    Ok(())
}

/// The three fields of "Change my PIN" checked before the ledger is asked: each PIN's
/// shape, the new one typed the same twice (here, not only on the screen: a call from
/// elsewhere gets the same answer), and a new PIN that differs from the current one.
pub(crate) fn pin_change_of(old_pin: &str, new_pin: &str, new_pin_again: &str) -> AppResult<(Pin, Pin)> {
    let (old, new) = (parse_pin(old_pin)?, parse_pin(new_pin)?);
    if new_pin != new_pin_again {
        return Err(AppError::InvalidInput(t(id!("pin-change-pins-differ"))));
    }
    // Decided here rather than in the ledger, and before the current PIN is checked: it
    // compares two things the person typed, so it says nothing about the stored PIN and
    // costs no try toward the lock (nor an Argon2 check). The ledger only stores a PIN
    // whose owner proved the old one; which new PIN is worth having is this screen's rule.
    if old == new {
        return Err(AppError::InvalidInput(t(id!("pin-change-same"))));
    }
    Ok((old, new))
}

/// First start of a store without staff: its owner, who is then signed in.
#[tauri::command]
pub fn create_owner(state: State<'_, AppState>, idle: State<'_, Idle>, name: String, pin: String, pin_again: String) -> AppResult<StaffView> {
    let name = check_name(&name)?.to_string();
    let pin_parsed = parse_pin(&pin)?;
    if pin != pin_again {
        return Err(AppError::InvalidInput(t(id!("owner-pins-differ"))));
    }
    let now = now_ms();
    // Checked again inside the ledger's write, so two screens cannot both create one.
    let who = state.engine().staff().create_first_owner(&name, &pin_parsed)?;
    let who = who.ok_or(AppError::OwnerExists)?;
    idle.touch();
    Ok(StaffView::of(&who, now))
}
