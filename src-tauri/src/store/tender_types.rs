//! Settings → Tender types (record 0122): every tender type the store defined, one added,
//! one switched off or on again. A catalog edit: a manager or the owner, checked HERE
//! (the screen hiding the section is a courtesy, a cashier calling the command directly
//! is refused) and again by the ledger on the person signed in.
//!
//! No approval is taken: the ledger checks the person signed in alone (record 0118), so a
//! cashier's edit with a manager's PIN would be refused there after being approved here.
//! A manager signs in to do it.

use paydesk_access::Action;
use paydesk_domain::tender_type::{checked_name, MAX_TENDER_TYPE_NAME};
use paydesk_domain::{StoreTenderKind, TenderTypeId};
use serde::Deserialize;
use tauri::State;

use crate::error::AppResult;
use crate::error::{AppError, TenderTypeRefusal};
use crate::i18n::{active, tr};
use crate::ops::Operation;
use crate::sale::store_tender::TenderTypeRow;
use crate::state::AppState;

/// A new tender type as typed in the form.
#[derive(Debug, Clone, Deserialize)]
pub struct TenderTypeForm {
    pub name: String,
    /// voucher | external_terminal | e_money | qr | store_account
    pub kind: String,
    pub gives_change: bool,
    pub counts_for_stamp: bool,
}

/// Every tender type, active or not, for the settings section.
#[tauri::command]
pub fn list_all_tender_types(state: State<'_, AppState>) -> AppResult<Vec<TenderTypeRow>> {
    Ok(state.engine().tender_types().list()?.iter().map(TenderTypeRow::of).collect())
}

fn checked_form(f: &TenderTypeForm) -> AppResult<(String, StoreTenderKind)> {
    let name = checked_name(&f.name)
        .ok_or_else(|| AppError::InvalidInput(tr!(active(), "input-tender-type-name", max = MAX_TENDER_TYPE_NAME)))?;
    // The kind is picked from a list: anything else is a tampered call.
    let kind = StoreTenderKind::ALL
        .into_iter()
        .find(|k| k.as_str() == f.kind)
        .ok_or_else(|| AppError::InvalidInput(tr!(active(), "input-tender-type-kind", kind = f.kind.chars().take(32).collect::<String>())))?;
    Ok((name.to_string(), kind))
}

/// Adds a tender type (offered at once). Manager or owner.
#[tauri::command]
pub fn add_tender_type(state: State<'_, AppState>, form: TenderTypeForm) -> AppResult<TenderTypeRow> {
    Operation::new(Action::CatalogEdit, None).permit(&state)?;
    let (name, kind) = checked_form(&form)?;
    let t = state.engine().tender_types().add(&name, kind, form.gives_change, form.counts_for_stamp)?;
    Ok(TenderTypeRow::of(&t))
}

/// Stops offering a tender type at the counter, or offers it again. Sales that used it
/// keep it. Manager or owner.
#[tauri::command]
pub fn set_tender_type_active(state: State<'_, AppState>, id: i64, active: bool) -> AppResult<TenderTypeRow> {
    Operation::new(Action::CatalogEdit, None).permit(&state)?;
    // Unknown ids are refused by the ledger with its typed error; this saves the write.
    if !state.engine().tender_types().list()?.iter().any(|t| t.id == TenderTypeId(id)) {
        return Err(AppError::TenderType(TenderTypeRefusal::Unknown(id)));
    }
    let t = state.engine().tender_types().set_active(TenderTypeId(id), active)?;
    Ok(TenderTypeRow::of(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(name: &str, kind: &str) -> TenderTypeForm {
        TenderTypeForm { name: name.into(), kind: kind.into(), gives_change: false, counts_for_stamp: false }
    }

    #[test]
    fn a_form_needs_a_name_and_a_known_kind() {
        assert_eq!(checked_form(&form(" 商品券 ", "voucher")).unwrap(), ("商品券".to_string(), StoreTenderKind::Voucher));
        assert_eq!(checked_form(&form("", "voucher")).unwrap_err().code(), "invalid_input");
        assert_eq!(checked_form(&form(&"x".repeat(41), "voucher")).unwrap_err().code(), "invalid_input");
        assert_eq!(checked_form(&form("PayPay", "cash")).unwrap_err().code(), "invalid_input");
    }
}
