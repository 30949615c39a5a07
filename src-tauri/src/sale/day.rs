//! Reading, no guard: the sale on screen, and End of day's tender figures (record 0033).

use tauri::State;

use super::{sale_now, screen};
use crate::error::AppResult;
use crate::base::now_ms;
use crate::state::AppState;
use crate::views::{SaleScreen, TenderDayView};

/// The sale of the cart on screen: total, paid so far, due, each tender.
#[tauri::command]
pub fn get_sale(state: State<'_, AppState>) -> AppResult<SaleScreen> {
    let v = sale_now(&state, state.cart_id())?;
    Ok(screen(&state, &v))
}

/// Totals per tender kind, the cash the drawer should hold, sales still owing, for
/// tenders since `since` (ms since the epoch) or, without it, since the start of the store's
/// day in its own time zone. While a shift is open the ledger leaves the drawer out: the
/// close is blind (record 0069), and only the X report, which is audited, shows what the
/// drawer should hold.
#[tauri::command]
pub fn get_tender_day(state: State<'_, AppState>, since: Option<i64>) -> AppResult<TenderDayView> {
    let store = state.engine().store().settings()?;
    let since = crate::input::report_start(since, now_ms(), &store)?;
    Ok(TenderDayView::of(&state.engine().tender_day(since)?))
}
