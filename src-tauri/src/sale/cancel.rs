//! Cancel a sale that is not paid in full (record 0031): every settled card refunded
//! once with its own key (an authorization voided), the cash to hand back recorded.

use paydesk_domain::RefundState;
use paydesk_ledger::SaleState;
use serde::Serialize;
use tauri::State;

use super::screen;
use crate::input::required_reason;
use crate::ops::{Locks, Operation};
use crate::error::AppResult;
use crate::staff::Approval;
use paydesk_access::Action;
use crate::i18n::{active, id, t, tr};
use crate::money;
use crate::state::AppState;
use crate::views::{CancelLineKind, SaleScreen};
use crate::wording::state_label;

#[derive(Debug, Serialize)]
pub struct CancelLine {
    pub kind: CancelLineKind,
    pub checkout_key: String,
    pub amount_display: String,
    pub state_label: String,
    /// `ok` | `warn` | `bad`
    pub tone: &'static str,
}

/// A store tender the cancel gives back (record 0148): the voucher or the gift card's
/// value, and the change the customer hands back for it.
#[derive(Debug, Serialize)]
pub struct CancelStoreLine {
    pub type_name: String,
    pub reference: Option<String>,
    pub give_back: i64,
    pub give_back_display: String,
    pub change_collected: i64,
    pub change_collected_display: String,
}

#[derive(Debug, Serialize)]
pub struct CancelResult {
    pub lines: Vec<CancelLine>,
    pub cash_returned: i64,
    pub cash_returned_display: String,
    /// Cash to take back from the customer: the change store tenders gave (record 0148).
    pub change_collected: i64,
    pub change_collected_display: String,
    pub store_lines: Vec<CancelStoreLine>,
    pub errors: Vec<String>,
    pub message: String,
    pub sale: SaleScreen,
}

/// A refund's state in words (a message id) and its tone.
pub(crate) fn refund_words(s: RefundState) -> (&'static str, &'static str) {
    match s {
        RefundState::Succeeded => (id!("cancel-refund-succeeded"), "ok"),
        RefundState::Pending | RefundState::InFlight => (id!("cancel-refund-sent"), "warn"),
        RefundState::Failed => (id!("cancel-refund-failed"), "bad"),
    }
}

/// Cancels the sale on screen. Pressed again it finds the same refunds (never a second
/// one); while a card's outcome is unknown it is refused.
#[tauri::command]
pub async fn cancel_sale(state: State<'_, AppState>, reason: String, approval: Option<Approval>) -> AppResult<CancelResult> {
    let reason = required_reason(&reason)?;
    // Money already taken goes back: a manager's call (record 0062). Nothing taken yet:
    // anyone who sells may cancel.
    let cart = state.cart_id();
    let settled = state.engine().carts().sale(cart)?.totals.settled_minor > 0;
    let action = if settled { Action::CancelSettledSale } else { Action::Sell };
    let op = Operation::new(action, approval.as_ref()).approval_audited(format!("cart:{cart}"));
    let pass = op.run(&state, Locks::Turn { seen: None }).await?;
    let cart = pass.cart().expect("a tender turn names its sale");
    let r = state.engine().cancel_sale(cart, &reason).await?;
    let cur = r.sale.currency;
    let mut lines: Vec<CancelLine> = r
        .refunds
        .iter()
        .map(|f| {
            let (label, tone) = refund_words(f.state);
            CancelLine {
                kind: CancelLineKind::Refund,
                checkout_key: f.checkout_key.clone(),
                amount_display: money::format(f.amount, f.currency),
                state_label: t(label),
                tone,
            }
        })
        .collect();
    lines.extend(r.voids.iter().map(|v| CancelLine {
        kind: CancelLineKind::Void,
        checkout_key: v.checkout_key.clone(),
        amount_display: money::format(v.amount, v.currency),
        state_label: tr!(active(), "cancel-void-released", state = state_label(v.state)),
        tone: "ok",
    }));
    let sale = screen(&state, &r.sale);
    let cash = money::format(r.cash_returned, cur);
    // Done, or still confirming card refunds: every other state cannot follow a cancel,
    // and is worded as still running rather than as done.
    let done = match r.sale.state {
        SaleState::Canceled => true,
        SaleState::Canceling | SaleState::Open | SaleState::PartiallyPaid | SaleState::Paid | SaleState::UnpaidBalance => false,
    };
    let mut message = match (done, r.cash_returned > 0) {
        (true, true) => tr!(active(), "cancel-done-cash", cash = cash.clone()),
        (true, false) => tr!(active(), "cancel-done"),
        (false, true) => tr!(active(), "cancel-running-cash", cash = cash.clone()),
        (false, false) => tr!(active(), "cancel-running-card"),
    };
    let store_lines: Vec<CancelStoreLine> = r
        .store_given_back
        .iter()
        .map(|g| CancelStoreLine {
            type_name: g.type_name.clone(),
            reference: g.reference.clone(),
            give_back: g.give_back_minor,
            give_back_display: money::format(g.give_back_minor, cur),
            change_collected: g.change_collected_minor,
            change_collected_display: money::format(g.change_collected_minor, cur),
        })
        .collect();
    let change = money::format(r.change_collected, cur);
    // What the customer hands back is said in the message too, so no one misses it.
    if r.change_collected > 0 {
        message.push(' ');
        message.push_str(&tr!(active(), "cancel-collect-change", change = change.clone()));
    }
    Ok(CancelResult {
        lines,
        cash_returned: r.cash_returned,
        cash_returned_display: cash,
        change_collected: r.change_collected,
        change_collected_display: change,
        store_lines,
        errors: r.errors,
        message,
        sale,
    })
}
