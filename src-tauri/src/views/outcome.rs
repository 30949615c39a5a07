//! The checkout panel's result: what the engine concluded for a checkout, in the
//! cashier's words, with the receipt to print.

use paydesk_ledger::Payment;
use paydesk_register::{AttemptKind, CheckoutOutcome, CheckoutReport};
use serde::Serialize;

use super::{attempt_words, card_label};
use crate::i18n::{active, id, t, tr};
use super::{CartLine, CartView};
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

wire_enum! {
    /// How a charge ended, for the checkout panel (its look, its buttons, the receipt).
    pub enum OutcomeKind {
        Approved => "approved",
        Authorized => "authorized",
        AcceptedOffline => "accepted_offline",
        Declined => "declined",
        Failed => "failed",
        Unknown => "unknown",
    }
}

impl OutcomeKind {
    pub fn of(outcome: CheckoutOutcome) -> OutcomeKind {
        match outcome {
            CheckoutOutcome::Paid | CheckoutOutcome::Refunded => OutcomeKind::Approved,
            CheckoutOutcome::Authorized => OutcomeKind::Authorized,
            CheckoutOutcome::QueuedOffline => OutcomeKind::AcceptedOffline,
            CheckoutOutcome::Declined | CheckoutOutcome::Canceled => OutcomeKind::Declined,
            CheckoutOutcome::Failed => OutcomeKind::Failed,
            CheckoutOutcome::Pending => OutcomeKind::Unknown,
        }
    }

    /// Not paid: the panel says why, with the processor's own words as the detail.
    const fn says_why(self) -> bool {
        match self {
            OutcomeKind::Declined | OutcomeKind::Failed | OutcomeKind::Unknown => true,
            OutcomeKind::Approved | OutcomeKind::Authorized | OutcomeKind::AcceptedOffline => false,
        }
    }
}

/// The result of a charge-like command.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeView {
    pub kind: OutcomeKind,
    pub checkout_key: String,
    pub state: String,
    pub attempts: u32,
    pub replayed: bool,
    /// What happened, in the screen's language: chosen by the outcome and its error code.
    pub message: String,
    /// The processor's (or the engine's) own words, as they came: shown labelled as such.
    pub detail: Option<String>,
    pub note: Option<String>,
    pub receipt: Receipt,
    pub cart: CartView,
}

/// Why a checkout did not end paid, in the screen's language: by its outcome and the
/// typed error code (an attempt's kind, e.g. `psp_auth`), never by the engine's English
/// text, which stays the detail (record 0070).
pub fn reason_words(r: &CheckoutReport) -> String {
    let by_code = r.error_code.as_deref().and_then(|c| AttemptKind::parse(c).ok()).map(|k| capitalize(&attempt_words(k)));
    match r.outcome {
        CheckoutOutcome::Declined | CheckoutOutcome::Canceled => t(id!("outcome-declined-default")),
        CheckoutOutcome::Failed => by_code.unwrap_or_else(|| t(id!("outcome-failed-default"))),
        CheckoutOutcome::Pending => match by_code {
            Some(words) => tr!(active(), "outcome-unknown-because", why = words),
            None => t(id!("outcome-unknown-default")),
        },
        CheckoutOutcome::Paid | CheckoutOutcome::Authorized | CheckoutOutcome::QueuedOffline | CheckoutOutcome::Refunded => String::new(),
    }
}

/// A reason with the processor's own words after it, labelled: for one-line messages.
pub fn reason_with_detail(r: &CheckoutReport) -> String {
    let words = reason_words(r);
    match &r.message {
        Some(d) => tr!(active(), "outcome-reason-detail", reason = words, detail = d.clone()),
        None => words,
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

impl OutcomeView {
    pub fn build(r: &CheckoutReport, payment: &Payment, cart: CartView) -> OutcomeView {
        let kind = OutcomeKind::of(r.outcome);
        let (message, detail) = if kind.says_why() { (reason_words(r), r.message.clone()) } else { (String::new(), None) };
        let note = if r.replayed {
            Some(tr!(active(), "outcome-note-replayed", attempts = r.attempts))
        } else if r.attempts > 1 {
            Some(tr!(active(), "outcome-note-attempts", attempts = r.attempts))
        } else {
            None
        };
        let cur = r.currency;
        OutcomeView {
            kind,
            checkout_key: r.checkout_key.clone(),
            state: r.state.as_str().to_string(),
            attempts: r.attempts,
            replayed: r.replayed,
            message,
            detail,
            note,
            receipt: Receipt {
                at: payment.updated_at_ms,
                lines: cart.lines.clone(),
                total: r.amount,
                total_display: money::format(r.amount, cur),
                card_label: card_label(payment.request_params.get("payment_method")),
                status_label: t(match kind {
                    OutcomeKind::AcceptedOffline => id!("receipt-status-offline"),
                    OutcomeKind::Approved => id!("receipt-status-approved"),
                    OutcomeKind::Authorized => id!("receipt-status-authorized"),
                    OutcomeKind::Declined => id!("receipt-status-declined"),
                    OutcomeKind::Failed => id!("receipt-status-failed"),
                    OutcomeKind::Unknown => id!("receipt-status-pending"),
                }),
                checkout_key: r.checkout_key.clone(),
                psp_payment_id: r.psp_payment_id.clone(),
            },
            cart,
        }
    }
}
