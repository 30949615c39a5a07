//! The Payments screen: every card payment with its attempts, one payment's detail, and
//! refunding one (`refund.rs`).

pub mod refund;

use tauri::State;

use crate::error::AppResult;
use crate::input::validate_key;
use crate::state::AppState;
use crate::views::{PaymentDetail, PaymentRow};

#[tauri::command]
pub fn list_payments(state: State<'_, AppState>) -> AppResult<Vec<PaymentRow>> {
    let payments = state.engine().list_payments(500, 0)?;
    let attempts = state.engine().payments().attempt_counts(&payments)?;
    Ok(payments.iter().zip(attempts).map(|(p, n)| PaymentRow::of(p, n)).collect())
}

#[tauri::command]
pub fn get_payment(state: State<'_, AppState>, id: String) -> AppResult<PaymentDetail> {
    let key = validate_key(&id)?;
    Ok(PaymentDetail::of(&state.engine().payment_view(&key)?))
}
