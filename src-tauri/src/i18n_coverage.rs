//! Every error a cashier can be shown speaks the screen's language (record 0070): with
//! the screen in Japanese, each `AppError` variant — made the way the commands make it —
//! and each engine error put in words comes out with Japanese in it, never an English
//! sentence alone. The engine's or processor's own detail may follow, labelled.

use paydesk_domain::Locale;
use paydesk_ledger::ShiftRefusal;
use paydesk_domain::{Currency, PaymentState};
use paydesk_register::{Attempted, AttemptKind, CheckoutOutcome, CheckoutReport, EngineError};

use crate::error::AppError;
use crate::i18n::{active, set_active, tr};

fn japanese(s: &str) -> bool {
    s.chars().any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'))
}

/// One of each variant, made through the code paths the commands use where there is one.
fn every_variant() -> Vec<AppError> {
    let engine = [
        EngineError::InvalidInput("x".into()),
        EngineError::UnknownPayment("k".into()),
        EngineError::RefundExceedsCaptured { key: "k".into(), requested: 2, refundable: 1, currency: Currency::Jpy },
        EngineError::WrongState { key: "k".into(), state: PaymentState::Captured, attempted: Attempted::Cancel, what: "x".into() },
        EngineError::RefundInProgress { key: "k".into(), refund_key: "r".into() },
        EngineError::PreviousOutcomeUnknown { key: "k".into(), state: PaymentState::Authorizing },
        EngineError::AlreadyPaid { key: "k".into(), state: PaymentState::Captured },
        EngineError::LaterPaymentExists { key: "k".into(), later: "l".into(), state: PaymentState::Failed },
        EngineError::OfflineRefused { key: "k".into(), reason: "limit".into(), detail: "over".into() },
        EngineError::PspConfig("x".into()),
        EngineError::PspRejected("x".into()),
        EngineError::Alarm { code: paydesk_register::AlarmCode::AmountMismatch, detail: "x".into() },
        EngineError::from(paydesk_ledger::Error::InvalidInput("x".into())),
        EngineError::TenderExceedsDue { cart: 1, requested: 2, open: 1, currency: Currency::Jpy },
        EngineError::TenderUnknownOutstanding { cart: 1, key: "k".into() },
        EngineError::SaleComplete { cart: 1 },
        EngineError::SaleCanceled { cart: 1 },
        EngineError::SaleRefundExceeds { cart: 1, requested: 2, refundable: 1 },
        EngineError::Unresolved { key: "k".into(), source: Box::new(EngineError::Alarm { code: paydesk_register::AlarmCode::AmountMismatch, detail: "x".into() }) },
    ];
    let discount = |kind: &str, value: &str| {
        let form = crate::store::cart::DiscountForm { kind: kind.into(), value: value.into() };
        crate::store::parse_discount(&form, Currency::Jpy).expect_err("refused")
    };
    let mut out: Vec<AppError> = engine.into_iter().map(AppError::from).collect();
    out.extend([
        crate::input::parse_amount("abc", Currency::Jpy, crate::input::Amount::Cash).expect_err("refused"),
        crate::input::parse_amount("", Currency::Jpy, crate::input::Amount::Card).expect_err("refused"),
        crate::input::parse_amount("0", Currency::Jpy, crate::input::Amount::Card).expect_err("refused"),
        crate::input::required_reason("x").expect_err("refused"),
        crate::input::validate_code("").expect_err("refused"),
        crate::input::validate_code("a b").expect_err("refused"),
        crate::input::validate_payment_method("visa").expect_err("refused"),
        crate::input::validate_cart(0).expect_err("refused"),
        crate::store::receipt::receipt_error(paydesk_ledger::Error::UnknownCart(7)),
        crate::store::print::validate_printer("bad_host!:9100").expect_err("refused"),
        crate::store::print::validate_printer("a b").expect_err("refused"),
        discount("percent", "150"),
        discount("amount", "x"),
        discount("percent", &"9".repeat(40)),
        discount("other", "1"),
        crate::store::discount_error(paydesk_ledger::Error::InvalidInput("x".into())),
        crate::settings_file::validate_url("ftp://x").expect_err("refused"),
        AppError::from(paydesk_sync::SyncError::Unreachable("x".into())),
        AppError::from(paydesk_sync::SyncError::Input("x".into())),
        AppError::from(paydesk_sync::SyncError::BadAnswer("x".into())),
        AppError::from(std::io::Error::other("x")),
        AppError::UnknownItem("X".into()),
        AppError::InStoreLabel(crate::error::LabelRefusal::PriceDiffers { sku: "0212345".into(), label: "¥400".into(), catalog: "¥398".into() }),
        AppError::InStoreLabel(crate::error::LabelRefusal::Weight { sku: "2154321".into(), grams: 1250 }),
        AppError::CartLocked,
        AppError::CartEmpty,
        AppError::NoCheckout,
        AppError::SaleChanged { seen: 1, now: 2 },
        AppError::TenderInFlight,
        AppError::TaxLocked,
        AppError::PrinterNotSet,
        AppError::PrinterPortUnconfirmed { port: 8080 },
        AppError::PrinterUnreachable(tr!(active(), "print-unreachable", target = "127.0.0.1:9100", why = "refused")),
        AppError::Rejected { code: crate::error::ErrorCode::CsvRejected, message: tr!(active(), "catalog-import-rejected", count = 2), problems: vec![] },
        AppError::AlreadyPaired(tr!(active(), "error-already-paired", name = "R1", url = "https://bo")),
    ]);
    // Staff (record 0068): the ledger's refusals as they reach the commands, the gate's
    // own answers and the sign-in screen's input checks.
    use paydesk_access::{Action, Authorization, Role};
    use paydesk_ledger::Error as L;
    let needs = |min_role| L::NotAllowed { action: "refund", authorization: Authorization::NeedsApproval { min_role } };
    let refused = |authorization| L::NotAllowed { action: "paid_in_out", authorization };
    out.extend([
        AppError::from(L::NotSignedIn),
        AppError::from(EngineError::from(L::NotSignedIn)),
        AppError::from(needs(Role::Manager)),
        AppError::from(refused(Authorization::SelfApproval)),
        AppError::from(refused(Authorization::ApproverTooLow { min_role: Role::Manager })),
        AppError::NotAllowed { action: Action::Settings, authorization: Authorization::Allowed },
        AppError::from(L::WrongPin { attempts_left: Some(2) }),
        AppError::from(L::WrongPin { attempts_left: None }),
        AppError::from(L::StaffLocked { until_ms: crate::base::now_ms() + 300_000 }),
        AppError::OwnerExists,
        AppError::IdleLocked { seconds: 300 },
        AppError::from(L::PublishedItem { sku: "MUG-001".into() }),
        AppError::from(L::PublishedTax),
        AppError::from(L::PublishedStaff { name: "Casey".into() }),
        // The owner's staff changes refused (record 0127), each reason by its code.
        AppError::from(L::StaffRefused(paydesk_ledger::StaffRefusal::Published { name: "Casey".into() })),
        AppError::from(L::StaffRefused(paydesk_ledger::StaffRefusal::Unknown { name: "Casey".into() })),
        AppError::from(L::StaffRefused(paydesk_ledger::StaffRefusal::LastOwner { name: "Casey".into() })),
        AppError::from(L::StaffRefused(paydesk_ledger::StaffRefusal::Retired { name: "Casey".into() })),
        AppError::from(L::StaffRefused(paydesk_ledger::StaffRefusal::RetiredName { name: "Casey".into() })),
        AppError::from(L::StaffRefused(paydesk_ledger::StaffRefusal::SameRole { name: "Casey".into(), role: Role::Cashier })),
        crate::staff::check_name("").expect_err("refused"),
        crate::staff::parse_pin("12").expect_err("refused"),
        AppError::from(L::NotTheOperator { staff_id: 2 }),
        AppError::from(L::InactiveStaff { staff_id: 2, who: "approver" }),
        // Change my PIN: the new one typed differently twice, or the same as the current.
        crate::sign_in::pin_change_of("1234", "5678", "5679").expect_err("refused"),
        crate::sign_in::pin_change_of("1234", "1234", "1234").expect_err("refused"),
        AppError::from(L::NoOpenShift),
        AppError::from(L::ShiftAlreadyOpen { shift_id: 1 }),
        AppError::from(L::ShiftHasOpenSale { cart_id: 1 }),
        // Held sales (record 0128): each ledger refusal, and the screen's own.
        AppError::from(L::HoldRefused { cart_id: 1, why: paydesk_ledger::HoldRefusal::Empty }),
        AppError::from(L::HoldRefused { cart_id: 1, why: paydesk_ledger::HoldRefusal::Tendered }),
        AppError::from(L::HoldRefused { cart_id: 1, why: paydesk_ledger::HoldRefusal::AtLimit { max: 5 } }),
        AppError::from(L::HoldRefused { cart_id: 1, why: paydesk_ledger::HoldRefusal::NotHeld }),
        AppError::from(EngineError::from(L::CartHeld { cart_id: 1 })),
        AppError::Held(crate::error::HeldRefusal::ScreenBusy),
        // A tax-exempt sale (record 0135): each ledger refusal.
        AppError::from(L::TaxExemptRefused { cart_id: 1, why: paydesk_ledger::ExemptRefusal::NotAllowed }),
        AppError::from(L::TaxExemptRefused { cart_id: 1, why: paydesk_ledger::ExemptRefusal::Tendered }),
        AppError::from(L::TaxExemptRefused { cart_id: 1, why: paydesk_ledger::ExemptRefusal::Paid }),
        AppError::from(L::TaxExemptRefused { cart_id: 1, why: paydesk_ledger::ExemptRefusal::Reason }),
        crate::shift::count_of(&[crate::shift::CountInput { denomination_minor: 1, count: 1 }; crate::shift::MAX_COUNT_LINES + 1])
            .expect_err("refused"),
    ]);
    // Each rule of the ledger's shift refusals, as it reaches the commands.
    let c = Currency::Jpy;
    out.extend(
        [
            ShiftRefusal::UnknownDenomination { currency: c, denomination_minor: 300 },
            ShiftRefusal::CountedTwice { currency: c, denomination_minor: 100 },
            ShiftRefusal::PiecesOutOfRange { currency: c, denomination_minor: 100, count: -1 },
            ShiftRefusal::CountAboveLimit { currency: c, total_minor: 200_000_000_000 },
            ShiftRefusal::NoStoreCurrency,
            ShiftRefusal::PaidAmountOutOfRange { currency: c, amount_minor: 0 },
            ShiftRefusal::ReasonInvalid,
            ShiftRefusal::TooManyPaidInOut,
            ShiftRefusal::PaidOutAboveDrawer { currency: c, amount_minor: 5_000, drawer_minor: 1_000 },
        ]
        .into_iter()
        .map(|r| AppError::from(L::ShiftRefused(r))),
    );
    // Restore from a replaced register (record 0048): the back office's refusals by their
    // codes, the register's own checks.
    let bo = |status, code: &str| paydesk_sync::SyncError::Refused(paydesk_sync::Refused { status, code: code.into(), message: "x".into(), max_bytes: None });
    let restore = crate::backoffice::restore::restore_error;
    out.extend([
        restore(paydesk_sync::SyncError::NotPaired, "A"),
        restore(paydesk_sync::SyncError::RestoreFromItself, "A"),
        restore(bo(404, "not_found"), "A"),
        restore(bo(409, "ambiguous_name"), "A"),
        restore(bo(409, "register_in_service"), "A"),
        restore(bo(422, "restore_from_itself"), "A"),
        restore(bo(403, "register_replaced"), "A"),
        crate::backoffice::restore::check_from("").expect_err("refused"),
    ]);
    // Card readers (issue #27): the refusals and the input checks.
    out.extend([
        AppError::Reader(crate::error::ReaderRefusal::NotTestMode),
        AppError::Reader(crate::error::ReaderRefusal::NeedsEmbeddedPsp),
        AppError::Reader(crate::error::ReaderRefusal::UnknownReader("tmr_1".into())),
        crate::reader::validate_reader_id("x").expect_err("refused"),
    ]);
    // A restored sale's refusals (records 0144, 0153), made from the ledger's errors.
    out.extend([
        AppError::from(paydesk_ledger::Error::RestoredStoreTender { register: "A".into(), sale: 1 }),
        AppError::from(paydesk_ledger::Error::RestoredExchangedThere { register: "A".into(), sale: 1 }),
        AppError::from(paydesk_ledger::Error::RestoredCreditNotGivenBack { cart_id: 2, register: "A".into(), sale: 1 }),
    ]);
    for a in Action::ALL {
        out.push(AppError::ApprovalRequired { action: a, min_role: Role::Owner });
    }
    out
}

#[test]
fn every_error_a_cashier_sees_is_in_japanese_when_the_screen_is() {
    set_active(Locale::Ja);
    let shown: Vec<(String, String)> = every_variant().iter().map(|e| (e.code().to_string(), e.to_string())).collect();
    set_active(Locale::En);
    let english: Vec<_> = shown.iter().filter(|(_, m)| !japanese(m)).collect();
    assert!(english.is_empty(), "English only with the screen in Japanese:\n{english:#?}");
    // The same errors in English are English (the check above is not vacuous).
    assert!(every_variant().iter().all(|e| !japanese(&e.to_string())));
}

/// Settings' own refusals, field by field.
#[test]
fn settings_refusals_are_in_japanese() {
    let mut form = crate::settings_file::SettingsForm {
        psp_url: String::new(),
        psp_key: String::new(),
        fault_profile: "none".into(),
        retention_hours: "24".into(),
        safety_margin_minutes: "60".into(),
        offline_max_amount: "100".into(),
        offline_max_total: "500".into(),
        offline_max_count: "20".into(),
        offline_max_age_hours: "23".into(),
    };
    let current = crate::settings_file::Settings::default();
    assert!(crate::settings_file::Settings::validate(&form, &current, Currency::Jpy).is_ok());
    let broken: [&dyn Fn(&mut crate::settings_file::SettingsForm); 7] = [
        &|f| f.retention_hours = "x".into(),
        &|f| f.offline_max_total = "99".into(),
        &|f| f.safety_margin_minutes = "99999".into(),
        &|f| f.offline_max_amount = "x".into(),
        &|f| f.offline_max_age_hours = "100".into(),
        &|f| f.fault_profile = "nope".into(),
        &|f| f.psp_key = "a b".into(),
    ];
    for (i, b) in broken.iter().enumerate() {
        let mut f = form.clone();
        b(&mut f);
        set_active(Locale::Ja);
        let e = crate::settings_file::Settings::validate(&f, &current, Currency::Jpy).expect_err("refused").to_string();
        set_active(Locale::En);
        assert!(japanese(&e), "case {i}: {e}");
    }
    form.psp_url = "https://psp.example".into();
    set_active(Locale::Ja);
    let e = crate::settings_file::Settings::validate(&form, &current, Currency::Jpy).expect_err("a URL needs a key").to_string();
    set_active(Locale::En);
    assert!(japanese(&e), "{e}");
}

/// A checkout's outcome is put in words by its outcome and typed error code: the engine's
/// English text is only the detail.
#[test]
fn checkout_outcomes_are_worded_by_code() {
    let report = |outcome, error_code: Option<&str>, message: &str| CheckoutReport {
        checkout_key: "k".into(),
        state: PaymentState::Failed,
        outcome,
        psp_payment_id: None,
        attempts: 1,
        amount: 100,
        currency: paydesk_domain::Currency::Jpy,
        replayed: false,
        message: Some(message.into()),
        error_code: error_code.map(str::to_string),
    };
    set_active(Locale::Ja);
    let declined = crate::views::reason_words(&report(CheckoutOutcome::Declined, None, "declined: Your card was declined. (card_declined)"));
    let auth = crate::views::reason_words(&report(CheckoutOutcome::Failed, Some(AttemptKind::Auth.label()), "the PSP refused the secret key"));
    let pending = crate::views::reason_with_detail(&report(CheckoutOutcome::Pending, Some(AttemptKind::Timeout.label()), "no answer"));
    set_active(Locale::En);
    assert_eq!(declined, "カードが承認されませんでした");
    assert!(auth.contains("シークレットキー"), "{auth}");
    assert!(pending.starts_with("結果はまだ分かりません") && pending.ends_with("(決済代行会社: no answer)"), "{pending}");
    let auth = crate::views::reason_words(&report(CheckoutOutcome::Failed, Some(AttemptKind::Auth.label()), "whatever"));
    assert_eq!(auth, "The processor refused the secret key (check Settings)");
}

/// The ledger's shift refusals are worded by rule (record 0069): each its own message,
/// its detail in the screen's language (not only the translated "not valid:" before it),
/// under the code the Shift tab knows for what was refused.
#[test]
fn shift_refusals_are_worded_by_rule_under_their_codes() {
    use paydesk_ledger::Error as L;
    let c = Currency::Usd;
    let cases = [
        (ShiftRefusal::UnknownDenomination { currency: c, denomination_minor: 300 }, "invalid_count"),
        (ShiftRefusal::CountedTwice { currency: c, denomination_minor: 100 }, "invalid_count"),
        (ShiftRefusal::PiecesOutOfRange { currency: c, denomination_minor: 100, count: -1 }, "invalid_count"),
        (ShiftRefusal::CountAboveLimit { currency: c, total_minor: 200_000_000_000 }, "invalid_count"),
        (ShiftRefusal::NoStoreCurrency, "invalid_input"),
        (ShiftRefusal::PaidAmountOutOfRange { currency: c, amount_minor: 0 }, "invalid_paid_in_out"),
        (ShiftRefusal::ReasonInvalid, "invalid_paid_in_out"),
        (ShiftRefusal::TooManyPaidInOut, "invalid_paid_in_out"),
        (ShiftRefusal::PaidOutAboveDrawer { currency: c, amount_minor: 5_000, drawer_minor: 1_234 }, "invalid_paid_in_out"),
    ];
    let detail = |e: &AppError| match e {
        AppError::InvalidCount(d) | AppError::InvalidPaidInOut(d) | AppError::InvalidInput(d) => d.clone(),
        other => panic!("not a shift refusal's error: {other:?}"),
    };
    let mut seen = std::collections::BTreeSet::new();
    for (r, code) in cases {
        let e = AppError::from(L::ShiftRefused(r));
        assert_eq!(e.code(), code, "{r:?}");
        // The same whether the ledger's error comes alone or the refusal is worded directly.
        assert_eq!(e.to_string(), crate::error::shift::refusal(&r).to_string());
        let en = detail(&e);
        assert_ne!(en, r.to_string(), "not the ledger's English: {r:?}");
        assert!(seen.insert(en.clone()), "one message per rule: {en}");
        set_active(Locale::Ja);
        let ja = detail(&AppError::from(L::ShiftRefused(r)));
        set_active(Locale::En);
        assert!(japanese(&ja), "{r:?}: {ja}");
    }
    // The drawer's expected amount is the blind close's: a refused paid out never says it.
    let over = AppError::from(L::ShiftRefused(ShiftRefusal::PaidOutAboveDrawer { currency: c, amount_minor: 5_000, drawer_minor: 1_234 }));
    assert_eq!(over.to_string(), "That paid in / paid out is not valid: Paying out $50.00 is more than the drawer should hold.");
}
