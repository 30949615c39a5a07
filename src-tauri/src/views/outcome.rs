//! The checkout panel's result: what the engine concluded for a checkout, in the
//! cashier's words, with the receipt to print.

use paydesk_ledger::Payment;
use paydesk_register::{CheckoutOutcome, CheckoutReport};
use serde::Serialize;

use super::card_label;
use crate::i18n::{active, id, t, tr};
use crate::store::cart::{CartLine, CartView};
use crate::money;

#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    pub at: i64,
    pub lines: Vec<CartLine>,
    pub total: i64,
    pub total_display: String,
    pub card_label: String,
    pub status_label: String,
    pub checkout_key: String,
    pub psp_payment_id: Option<String>,
}

/// The result of a charge-like command.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeView {
    /// approved | accepted_offline | declined | failed | unknown | authorized
    pub kind: &'static str,
    pub checkout_key: String,
    pub state: String,
    pub attempts: u32,
    pub replayed: bool,
    pub message: String,
    pub note: Option<String>,
    pub receipt: Receipt,
    pub cart: CartView,
}

impl OutcomeView {
    pub fn build(r: &CheckoutReport, payment: &Payment, cart: CartView) -> OutcomeView {
        let kind = match r.outcome {
            CheckoutOutcome::Paid | CheckoutOutcome::Refunded => "approved",
            CheckoutOutcome::Authorized => "authorized",
            CheckoutOutcome::QueuedOffline => "accepted_offline",
            CheckoutOutcome::Declined | CheckoutOutcome::Canceled => "declined",
            CheckoutOutcome::Failed => "failed",
            CheckoutOutcome::Pending => "unknown",
        };
        let decline_msg = r
            .message
            .as_deref()
            .map(|m| m.trim_start_matches("declined: ").to_string())
            .unwrap_or_else(|| t(id!("outcome-declined-default")));
        let message = match kind {
            "declined" => decline_msg,
            "failed" => r.message.clone().unwrap_or_else(|| t(id!("outcome-failed-default"))),
            "unknown" => r
                .message
                .clone()
                .unwrap_or_else(|| t(id!("outcome-unknown-default"))),
            _ => String::new(),
        };
        let note = if r.replayed {
            Some(tr!(active(), "outcome-note-replayed", attempts = r.attempts))
        } else if r.attempts > 1 {
            Some(tr!(active(), "outcome-note-attempts", attempts = r.attempts))
        } else {
            None
        };
        let cur = &r.currency;
        OutcomeView {
            kind,
            checkout_key: r.checkout_key.clone(),
            state: r.state.as_str().to_string(),
            attempts: r.attempts,
            replayed: r.replayed,
            message,
            note,
            receipt: Receipt {
                at: payment.updated_at_ms,
                lines: cart.lines.clone(),
                total: r.amount,
                total_display: money::format(r.amount, cur),
                card_label: card_label(payment.request_params.get("payment_method")),
                status_label: t(match kind {
                    "accepted_offline" => id!("receipt-status-offline"),
                    "approved" => id!("receipt-status-approved"),
                    "authorized" => id!("receipt-status-authorized"),
                    "declined" => id!("receipt-status-declined"),
                    "failed" => id!("receipt-status-failed"),
                    _ => id!("receipt-status-pending"),
                }),
                checkout_key: r.checkout_key.clone(),
                psp_payment_id: r.psp_payment_id.clone(),
            },
            cart,
        }
    }
}
