//! Refund of a paid sale from the Receipts list (record 0032): any sale, cash, card or
//! split. The ledger allocates the amount to the sale's tenders — card amounts back to
//! their own card (each refund with its own key, committed before the network), the rest
//! in cash out of the open shift's drawer — and the engine drives each card refund. The
//! per-payment refund (Payments) stays for a card payment on its own; a cash part had no
//! way back from the app before this.

use paydesk_access::Action;
use serde::Serialize;
use tauri::State;

use super::cancel::CancelLine;
use crate::input::{parse_amount, required_reason, Amount};
use crate::error::AppResult;
use crate::i18n::{active, id, t, tr};
use crate::money;
use crate::ops::{Locks, Operation};
use crate::staff::Approval;
use crate::state::AppState;
use crate::views::CancelLineKind;

#[derive(Debug, Serialize)]
pub struct SaleRefundResult {
    /// One line per card refund, with its state.
    pub lines: Vec<CancelLine>,
    /// What to hand back from the drawer (already recorded).
    pub cash_out: i64,
    pub cash_out_display: String,
    /// Card refunds whose drive ended in an error (each has its key; recovery goes on).
    pub errors: Vec<String>,
    pub message: String,
}

/// Refunds `amount` (typed in the store currency; everything still refundable when
/// empty) of paid sale `cart`, for `reason`; `ryoshusho_taken_back` when the customer handed
/// back the sale's 領収書. A manager's call, as any refund (record 0062).
#[tauri::command]
pub async fn refund_sale(
    state: State<'_, AppState>,
    cart: i64,
    amount: Option<String>,
    reason: String,
    approval: Option<Approval>,
    ryoshusho_taken_back: Option<bool>,
) -> AppResult<SaleRefundResult> {
    let cart = crate::input::validate_cart(cart)?;
    let reason = required_reason(&reason)?;
    let minor = match amount.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(parse_amount(text, state.currency, Amount::Refund)?),
    };
    let op = Operation::new(Action::Refund, approval.as_ref()).approval_audited(format!("cart:{cart}"));
    let _pass = op.run(&state, Locks::Engine).await?;
    // A sale with a 領収書 is refunded only once the customer handed it back (record 0114).
    let r = state.engine().refund_sale_with(cart, minor, Some(&reason), ryoshusho_taken_back.unwrap_or(false)).await?;
    let lines = refund_lines(&r.card_refunds);
    let cash = money::format(r.cash_out, r.sale.currency);
    let message = if r.cash_out > 0 {
        tr!(active(), "sale-refund-done-cash", cash = cash.clone())
    } else {
        t(id!("sale-refund-done-card"))
    };
    Ok(SaleRefundResult { lines, cash_out: r.cash_out, cash_out_display: cash, errors: r.errors, message })
}

/// One screen line per card refund, with its state's words (a refund by amount and a
/// return show them alike).
pub(crate) fn refund_lines(refunds: &[paydesk_register::RefundReport]) -> Vec<CancelLine> {
    refunds
        .iter()
        .map(|f| {
            let (label, tone) = super::cancel::refund_words(f.state);
            CancelLine {
                kind: CancelLineKind::Refund,
                checkout_key: f.checkout_key.clone(),
                amount_display: money::format(f.amount, f.currency),
                state_label: t(label),
                tone,
            }
        })
        .collect()
}
