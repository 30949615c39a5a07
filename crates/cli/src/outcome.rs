//! How a command ends: `checkout`'s exit code per outcome and its error object, which
//! names the checkout key and state whenever a payment exists (record 0013), and the
//! error object of every other command.

use paydesk_ledger::Ledger;
use paydesk_register::{CheckoutOutcome, EngineError};
use serde_json::json;

pub(crate) fn exit_code(o: CheckoutOutcome) -> i32 {
    match o {
        CheckoutOutcome::Paid | CheckoutOutcome::Authorized | CheckoutOutcome::Refunded => 0,
        CheckoutOutcome::Failed => 1,
        CheckoutOutcome::Declined | CheckoutOutcome::Canceled => 2,
        CheckoutOutcome::Pending | CheckoutOutcome::QueuedOffline => 3,
    }
}

/// A checkout's error object: with its key and state whenever a payment row exists, so
/// the payment can be looked up, resolved or followed by a new one. Exit 1.
pub(crate) fn checkout_error(code: &str, message: &str, key: Option<&str>, state: Option<&str>) -> i32 {
    let mut err = json!({"code": code, "message": message});
    if let Some(k) = key {
        err["checkout_key"] = json!(k);
    }
    if let Some(s) = state {
        err["state"] = json!(s);
    }
    out!("{}", json!({ "error": err }));
    eprintln!("paydesk-cli: {message}");
    1
}

/// Any other command's error: `{"error":{"code","message"}}` on stdout, the message on
/// stderr, exit 1.
pub(crate) fn fail(code: &str, message: &str) -> ! {
    out!("{}", json!({"error": {"code": code, "message": message}}));
    eprintln!("paydesk-cli: {message}");
    std::process::exit(1)
}

/// [`fail`] with more fields in the error object (e.g. a refusal's `why`).
pub(crate) fn fail_with(code: &str, message: &str, extra: serde_json::Value) -> ! {
    let mut err = json!({"code": code, "message": message});
    if let (Some(e), Some(x)) = (err.as_object_mut(), extra.as_object()) {
        e.extend(x.clone());
    }
    out!("{}", json!({ "error": err }));
    eprintln!("paydesk-cli: {message}");
    std::process::exit(1)
}

pub(crate) fn fail_engine(e: &EngineError) -> ! {
    fail(e.code(), &e.to_string())
}

/// The ledger at `db`, or the command ends with a `ledger` error. For the commands that
/// need no engine (`sync` and its `restore`); here, with `fail`, so both can use it
/// without `sync_restore` importing `sync`, which dispatches to it.
pub(crate) fn open_ledger(db: &str) -> Ledger {
    Ledger::open(db).unwrap_or_else(|e| fail("ledger", &e.to_string()))
}
