//! The tender panel's commands (record 0035): a sale paid by cash and card tenders,
//! canceled with its refunds, and End of day's tender figures. One file per operation;
//! this file holds what they share: input limits, and the guard every tender passes.
//!
//! The guard is enforced here, not in the UI: a tender press carries `seen_tenders`,
//! the number of tenders on the screen the cashier acted on. If the sale has another
//! number now, an earlier press (a double press, a second window, a call replayed by
//! the webview) already went through, and this one is refused with `sale_changed`
//! before anything is taken. And one tender runs at a time per register: a call while
//! another tender, a Charge or a cancel runs is refused with `tender_in_flight`.

pub mod cancel;
pub mod card;
pub mod cash;
pub mod day;
pub mod discount;
pub mod held;
pub mod refund;
pub mod exchange;
pub mod restored_exchange;
pub mod restored_returns;
pub mod returns;
pub mod store_tender;

pub use cancel::CancelResult;
pub use card::CardResult;
pub use cash::CashResult;

use paydesk_ledger::CartId;
use paydesk_register::SaleView;

use crate::error::AppResult;
use crate::state::AppState;
use crate::views::SaleScreen;

/// The sale as the writer connection sees it now (after this register's own writes).
pub(crate) fn sale_now(state: &AppState, cart: CartId) -> AppResult<SaleView> {
    let s = state.engine().carts().sale_now(cart)?;
    Ok(SaleView::of(&s))
}

/// The panel's view of a sale (card labels and decline messages from the ledger).
/// Every tender, cancel and reader step answers with it: the customer display's cue
/// (record 0132), as `store::cart::view_of` is for the cart.
pub(crate) fn screen(state: &AppState, v: &SaleView) -> SaleScreen {
    state.screen.changed();
    let engine = state.engine();
    SaleScreen::build(v, |key| engine.payments().by_key(key).ok().flatten())
}
