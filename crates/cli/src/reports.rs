//! The commands over the whole register: `recover` (resolve what is in flight, forward
//! the offline queue), `events` (one poll of the PSP's events), and the listings
//! `ledger` and `audit`, one JSON object per line.

use crate::outcome::{fail, fail_engine};
use paydesk_register::Engine;
use serde_json::json;

/// `recover`: the summary on stdout; an offline payment declined when forwarded is said
/// loudly on stderr, since the customer has left with goods not paid for.
pub(crate) async fn recover(engine: &Engine) -> i32 {
    match engine.recover().await {
        Ok(r) => {
            if r.declined_after_forward > 0 {
                eprintln!(
                    "paydesk-cli: ATTENTION: {} offline payment(s) were DECLINED when forwarded — collect payment another way (see `ledger`)",
                    r.declined_after_forward
                );
            }
            for e in &r.errors {
                eprintln!("paydesk-cli: recover: {e}");
            }
            out!("{}", serde_json::to_string(&r).unwrap());
            0
        }
        Err(e) => fail_engine(&e),
    }
}

pub(crate) async fn events(engine: &Engine) -> i32 {
    match engine.consume_events().await {
        Ok(r) => {
            out!("{}", serde_json::to_string(&r).unwrap());
            0
        }
        Err(e) => fail_engine(&e),
    }
}

/// `ledger`: every payment, oldest first.
pub(crate) fn ledger(engine: &Engine) -> i32 {
    let mut all = engine.list_payments(i64::MAX, 0).unwrap_or_else(|e| fail_engine(&e));
    all.reverse();
    for p in all {
        out!(
            "{}",
            json!({
                "checkout_key": p.idempotency_key,
                "state": p.state.as_str(),
                "amount": p.amount.amount_minor,
                "currency": p.amount.currency.code(),
                "psp_payment_id": p.psp_payment_id,
                "refunded": p.refunded_minor,
                "offline": p.offline,
                "created_at_ms": p.created_at_ms,
                "last_error": p.last_error,
            })
        );
    }
    0
}

pub(crate) fn audit(engine: &Engine) -> i32 {
    let log = engine.audit().log().unwrap_or_else(|e| fail("ledger", &e.to_string()));
    for a in log {
        out!("{}", serde_json::to_string(&a).unwrap());
    }
    0
}
