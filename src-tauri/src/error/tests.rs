//! AppError's words and codes: decided by type, never by message text.

use super::*;
use paydesk_domain::{Currency, PaymentState};

#[test]
fn cart_errors_are_recognised_by_type_not_words() {
    let locked = EngineError::from(paydesk_ledger::Error::CartNotOpen { cart_id: 1, state: "paid".into() });
    assert!(matches!(AppError::from(locked), AppError::CartLocked));
    assert!(matches!(AppError::from(EngineError::from(paydesk_ledger::Error::EmptyCart(1))), AppError::CartEmpty));
    // Words alone decide nothing: an input error that happens to say "not open".
    let e = AppError::from(EngineError::InvalidInput("the drawer is not open".into()));
    assert_eq!(e.code(), "invalid_input");
    assert!(!matches!(e, AppError::CartLocked));
}

/// The ledger's staff refusals keep their meaning whether they come straight from
/// the ledger or wrapped by the engine; the screen gets what it needs besides words.
#[test]
fn staff_refusals_become_their_own_codes() {
    let wrapped = |e: paydesk_ledger::Error| AppError::from(EngineError::from(e));
    assert_eq!(wrapped(paydesk_ledger::Error::NotSignedIn).code(), "not_signed_in");
    let needs = paydesk_ledger::Error::NotAllowed {
        action: "refund",
        authorization: Authorization::NeedsApproval { min_role: Role::Manager },
    };
    let v = serde_json::to_value(AppError::from(needs)).unwrap();
    assert_eq!(v["code"], "approval_required");
    assert_eq!(v["action"], "refund");
    assert_eq!(v["min_role"], "manager");
    assert_eq!(v["message"], "A refund needs a manager's approval.");
    let v = serde_json::to_value(AppError::from(paydesk_ledger::Error::WrongPin { attempts_left: Some(3) })).unwrap();
    assert_eq!((v["code"].as_str(), v["attempts_left"].as_u64()), (Some("wrong_pin"), Some(3)));
    assert_eq!(v["message"], "Wrong PIN. 3 tries left before the lock.");
    let until = crate::base::now_ms() + 5 * 60_000;
    let v = serde_json::to_value(AppError::from(paydesk_ledger::Error::StaffLocked { until_ms: until })).unwrap();
    assert_eq!(v["until_ms"], until);
    assert!(v["message"].as_str().unwrap().contains("5 min"), "{v}");
}

/// A sale refused for want of a shift says so whichever way it arrives (the ledger's
/// error directly, or wrapped by the engine), so the register can offer to open one.
#[test]
fn no_open_shift_is_its_own_code() {
    let direct = AppError::from(paydesk_ledger::Error::NoOpenShift);
    let wrapped = AppError::from(EngineError::from(paydesk_ledger::Error::NoOpenShift));
    assert_eq!((direct.code(), wrapped.code()), ("no_open_shift", "no_open_shift"));
    assert_eq!(direct.to_string(), "No shift is open. Open a shift with the counted float first.");
}

#[test]
fn wrong_state_says_what_was_attempted() {
    let of = |attempted| {
        AppError::from(EngineError::WrongState {
            key: "k".into(),
            state: PaymentState::QueuedOffline,
            attempted,
            what: "x".into(),
        })
        .to_string()
    };
    assert_eq!(of(Attempted::Capture), "This payment cannot be captured now: it is Offline, waiting to forward.");
    assert_eq!(of(Attempted::Cancel), "This payment cannot be canceled now: it is Offline, waiting to forward.");
    assert_eq!(of(Attempted::Refund), "This payment cannot be refunded now: it is Offline, waiting to forward.");
    crate::i18n::set_active(paydesk_domain::Locale::Ja);
    assert_eq!(of(Attempted::Refund), "この決済は今は返金できません: 状態は「オフライン・送信待ち」です。");
    crate::i18n::set_active(paydesk_domain::Locale::En);
    let busy = AppError::from(EngineError::RefundInProgress { key: "k".into(), refund_key: "k-r".into() });
    assert_eq!(busy.code(), "wrong_state");
    assert!(busy.to_string().contains("still being confirmed"), "{busy}");
}

#[test]
fn refund_limits_are_shown_in_the_payments_currency() {
    let e = AppError::from(EngineError::RefundExceedsCaptured {
        key: "k".into(),
        requested: 2000,
        refundable: 1200,
        currency: Currency::Jpy,
    });
    assert_eq!(e.to_string(), "That is more than can be refunded. At most ¥1,200 is left on this payment.");
    // In Japanese the message is Japanese; the code stays the same.
    crate::i18n::set_active(paydesk_domain::Locale::Ja);
    let ja = serde_json::to_value(AppError::from(EngineError::RefundExceedsCaptured {
        key: "k".into(),
        requested: 2000,
        refundable: 1200,
        currency: Currency::Jpy,
    }))
    .expect("serializes");
    crate::i18n::set_active(paydesk_domain::Locale::En);
    assert_eq!(ja["code"], "refund_exceeds_captured");
    assert_eq!(ja["message"], "返金できる額を超えています。この決済の残りは最大 ¥1,200 です。");
}

/// A stale tender press says what changed, in the cashier's words.
#[test]
fn sale_changed_says_what_changed() {
    assert_eq!(
        AppError::SaleChanged { seen: 1, now: 2 }.to_string(),
        "The sale changed since this screen was drawn (1 payment shown, 2 now). Nothing was taken: check the amount due and try again."
    );
}
