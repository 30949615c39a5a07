//! Reading, no guard: the sale on screen, and End of day's tender figures (design §8.7).

use tauri::State;

use super::{sale_now, screen};
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::state::{now_ms, AppState};
use crate::views::{SaleScreen, TenderDayView};

/// The sale of the cart on screen: total, paid so far, due, each tender.
#[tauri::command]
pub fn get_sale(state: State<'_, AppState>) -> AppResult<SaleScreen> {
    let v = sale_now(&state, state.cart_id())?;
    Ok(screen(&state, &v))
}

/// Totals per tender kind, the cash the drawer should hold, sales still owing, for
/// tenders since `since` (ms since the epoch; the UI passes local midnight). While a
/// shift is open the ledger leaves the drawer out: the close is blind (design §12.10), and only
/// the X report, which is audited, shows what the drawer should hold.
#[tauri::command]
pub fn get_tender_day(state: State<'_, AppState>, since: i64) -> AppResult<TenderDayView> {
    if !(0..=now_ms() + 86_400_000).contains(&since) {
        return Err(AppError::InvalidInput(tr!(active(), "input-report-start")));
    }
    Ok(TenderDayView::of(&state.engine().tender_day(since)?))
}
