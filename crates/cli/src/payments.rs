//! The commands on one existing payment: `refund`, `capture`, `cancel` (void) and
//! `show`. Each prints the engine's report as one JSON object.

use crate::parse::parse_amount;
use crate::outcome::{exit_code, fail, fail_engine};
use paydesk_domain::RefundState;
use paydesk_register::Engine;

/// `refund`: exit 0 refunded, 2 refused by the PSP, 3 not resolved yet.
pub(crate) async fn refund(engine: &Engine, payment: &str, amount: Option<&str>, reason: Option<&str>) -> i32 {
    let amount = amount.map(|a| parse_amount(a).unwrap_or_else(|e| fail("invalid_input", &e)));
    match engine.refund(payment, amount, reason).await {
        Ok(r) => {
            out!("{}", serde_json::to_string(&r).unwrap());
            match r.state {
                RefundState::Succeeded => 0,
                RefundState::Failed => 2,
                RefundState::Pending | RefundState::InFlight => 3,
            }
        }
        Err(e) => fail_engine(&e),
    }
}

/// `capture`: exits as a checkout with the same outcome would.
pub(crate) async fn capture(engine: &Engine, payment: &str) -> i32 {
    match engine.capture(payment).await {
        Ok(r) => {
            out!("{}", serde_json::to_string(&r).unwrap());
            exit_code(r.outcome)
        }
        Err(e) => fail_engine(&e),
    }
}

pub(crate) async fn cancel(engine: &Engine, payment: &str) -> i32 {
    match engine.cancel(payment).await {
        Ok(r) => {
            out!("{}", serde_json::to_string(&r).unwrap());
            0
        }
        Err(e) => fail_engine(&e),
    }
}

/// `show`: the payment with its timeline and refunds.
pub(crate) fn show(engine: &Engine, payment: &str) -> i32 {
    match engine.payment_view(payment) {
        Ok(v) => {
            out!("{}", serde_json::to_string(&v).unwrap());
            0
        }
        Err(e) => fail_engine(&e),
    }
}
