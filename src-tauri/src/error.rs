//! Typed errors of the app's commands, serialized to the UI as `{code, message}`.
//! `code` is stable and never translated (the UI and tests match on it); `message` is
//! what a cashier reads, in the screen's language (design §13.3).

use paydesk_register::{Attempted, EngineError};
use serde::ser::SerializeStruct;

use paydesk_ledger::access::{Action, Authorization, Role};

use crate::i18n::{active, id, t, tr};
use crate::money;

#[derive(Debug)]
pub enum AppError {
    /// A field the UI sent is malformed (a bug in the UI, or a tampered call).
    InvalidInput(String),
    UnknownItem(String),
    CartLocked,
    CartEmpty,
    NoCheckout,
    /// A tender press acted on a view of the sale that is out of date (a second press
    /// of the same button, or another window): nothing was taken (design §8.11).
    SaleChanged { seen: u32, now: u32 },
    /// Another tender (or Charge, or a cancel) of this register is still running.
    TenderInFlight,
    /// The sale's tax is fixed (its first tender was taken, or a payment is open):
    /// dining and discounts cannot change (design §11.12).
    TaxLocked,
    InvalidDiscount(String),
    PrinterNotSet,
    InvalidPrinter(String),
    /// A network printer on a port outside 9100-9109: saved only once the owner confirms.
    PrinterPortUnconfirmed { port: u16 },
    /// The printer did not take the job; the sale is not affected.
    PrinterUnreachable(String),
    ReceiptUnavailable(String),
    /// Input refused with every problem listed (a catalog item's fields, a CSV file's
    /// lines); nothing was written.
    Rejected { code: &'static str, message: String, problems: Vec<Problem> },
    /// An error from the register engine, already put in a cashier's words.
    Engine { code: &'static str, message: String },
    /// The back office did not answer (design §9.12).
    BackOfficeUnreachable(String),
    /// The back office answered no (a spent or unknown pairing code, a revoked register).
    BackOfficeRefused(String),
    /// This register is already paired; the text says with which store.
    AlreadyPaired(String),
    /// Restore needs a paired register (design §9.15).
    NotPaired,
    /// The back office refused a restore, by its refusal's code (design §9.15).
    Restore(RestoreRefusal),
    /// The store has staff and nobody is signed in (design §12.9).
    NotSignedIn,
    /// Nobody used the register for `seconds` (settings `idle_lock_s`): whoever was
    /// signed in has just been signed out (design §12.9).
    IdleLocked { seconds: u32 },
    /// The person signed in may not do this alone: ask someone holding `min_role`.
    ApprovalRequired { action: Action, min_role: Role },
    /// The approver cannot approve this (their role, or their own action).
    NotAllowed { action: Action, authorization: Authorization },
    /// A wrong PIN or an unknown name (the same answer); tries left before the lock.
    WrongPin { attempts_left: Option<u32> },
    /// Too many wrong PINs: locked until then (ms since the epoch).
    StaffLocked { until_ms: i64 },
    /// The first owner is created once: this store already has staff.
    OwnerExists,
    /// Something the back office publishes: it is changed there and reaches this
    /// register with the next sync (design §9.16, §9.17).
    ManagedByBackOffice(Managed),
    Internal(String),
    /// Money moves only inside an open shift on a register with staff (design §12.7).
    NoOpenShift,
    ShiftAlreadyOpen,
    /// A shift does not close while a customer is half-way through paying.
    ShiftHasOpenSale { cart: i64 },
    /// A drawer count refused: the detail, in the screen's words, says what is wrong
    /// with it (`shift::refusal` for the ledger's rules).
    InvalidCount(String),
    /// A paid in / paid out refused: its amount or reason, in the screen's words.
    InvalidPaidInOut(String),
    NoZReport(i64),
    /// A card-reader command refused before anything was sent (issue #27).
    Reader(crate::reader::ReaderRefusal),
}

/// An action's name in the active language ("a refund").
pub fn action_words(a: Action) -> String {
    t(match a {
        Action::Sell => id!("action-sell"),
        Action::OpenShift => id!("action-open-shift"),
        Action::XReport => id!("action-x-report"),
        Action::Refund => id!("action-refund"),
        Action::CancelSettledSale => id!("action-cancel-settled-sale"),
        Action::OverrideUnknownOutcome => id!("action-override-unknown-outcome"),
        Action::DiscountAboveLimit => id!("action-discount-above-limit"),
        Action::OpenDrawerNoSale => id!("action-open-drawer-no-sale"),
        Action::PaidInOut => id!("action-paid-in-out"),
        Action::CloseShift => id!("action-close-shift"),
        Action::Settings => id!("action-settings"),
        Action::CatalogEdit => id!("action-catalog-edit"),
        Action::StaffAdmin => id!("action-staff-admin"),
    })
}

/// A role's name with its article ("an owner", "a manager"; the bare name in Japanese),
/// for "needs an owner's approval": the article depends on the word, so the catalog
/// carries it.
pub fn role_with_article(r: Role) -> String {
    t(match r {
        Role::Cashier => id!("role-a-cashier"),
        Role::Manager => id!("role-a-manager"),
        Role::Owner => id!("role-a-owner"),
    })
}

/// A role's name in the active language.
pub fn role_words(r: Role) -> String {
    t(match r {
        Role::Cashier => id!("role-cashier"),
        Role::Manager => id!("role-manager"),
        Role::Owner => id!("role-owner"),
    })
}

/// Why a restore from a replaced register was refused (design §9.15), each from the
/// back office's own code (or the register's own check), never from its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreRefusal {
    /// No replaced register of this store by that name or id (404).
    Unknown { from: String },
    /// Two or more replaced registers share the name: the id is needed (409).
    Ambiguous { from: String },
    /// The register named is still in service: the owner marks it replaced first (409).
    InService { from: String },
    /// This register itself (422, or caught before asking).
    Itself,
}

/// What the back office publishes and the register only shows (design §9.16, §9.17).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Managed {
    /// A catalog item, by SKU.
    Item(String),
    /// The tax setup.
    Tax,
    /// A staff member's PIN, by name.
    Pin(String),
}

/// The message in the active language: by variant (the code), with its arguments.
impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = active();
        let text = match self {
            AppError::InvalidInput(m) | AppError::Internal(m) => m.clone(),
            AppError::Engine { message, .. } => message.clone(),
            AppError::UnknownItem(code) => tr!(l, "error-unknown-item", code = code.clone()),
            AppError::CartLocked => t(id!("error-cart-locked")),
            AppError::CartEmpty => t(id!("error-cart-empty")),
            AppError::NoCheckout => t(id!("error-no-checkout")),
            AppError::SaleChanged { seen, now } => tr!(l, "error-sale-changed", seen = *seen, now = *now),
            AppError::TenderInFlight => t(id!("error-tender-in-flight")),
            AppError::BackOfficeUnreachable(why) => tr!(l, "error-backoffice-unreachable", why = why.clone()),
            AppError::BackOfficeRefused(why) => tr!(l, "error-backoffice-refused", why = why.clone()),
            AppError::AlreadyPaired(m) => m.clone(),
            AppError::NotPaired => t(id!("error-not-paired")),
            AppError::Restore(RestoreRefusal::Unknown { from }) => tr!(l, "error-restore-unknown", from = from.clone()),
            AppError::Restore(RestoreRefusal::Ambiguous { from }) => tr!(l, "error-restore-ambiguous", from = from.clone()),
            AppError::Restore(RestoreRefusal::InService { from }) => tr!(l, "error-restore-in-service", from = from.clone()),
            AppError::Restore(RestoreRefusal::Itself) => t(id!("error-restore-itself")),
            AppError::TaxLocked => t(id!("error-tax-locked")),
            AppError::PrinterNotSet => t(id!("error-printer-not-set")),
            AppError::InvalidDiscount(m) | AppError::InvalidPrinter(m) | AppError::PrinterUnreachable(m) | AppError::ReceiptUnavailable(m) => {
                m.clone()
            }
            AppError::Rejected { message, .. } => message.clone(),
            AppError::NotSignedIn => t(id!("error-not-signed-in")),
            AppError::PrinterPortUnconfirmed { port } => tr!(l, "input-printer-port-unusual", port = *port),
            AppError::IdleLocked { seconds } => tr!(l, "signin-idle-locked", seconds = *seconds),
            AppError::ApprovalRequired { action, min_role } => {
                tr!(l, "error-approval-required", action = action_words(*action), role = role_with_article(*min_role))
            }
            AppError::NotAllowed { action, authorization } => match authorization {
                Authorization::SelfApproval => t(id!("error-self-approval")),
                Authorization::ApproverTooLow { min_role } | Authorization::NeedsApproval { min_role } => {
                    tr!(l, "error-approver-too-low", action = action_words(*action), role = role_with_article(*min_role))
                }
                Authorization::Allowed | Authorization::Approved { .. } => t(id!("error-approver-too-low-plain")),
            },
            AppError::WrongPin { attempts_left: Some(n) } => tr!(l, "error-wrong-pin-left", count = *n),
            AppError::WrongPin { attempts_left: None } => t(id!("error-wrong-pin")),
            AppError::StaffLocked { until_ms } => {
                let minutes = ((until_ms - crate::state::now_ms()).max(0) + 59_999) / 60_000;
                let minutes = minutes.max(1);
                tr!(l, "error-staff-locked", minutes = minutes)
            }
            AppError::OwnerExists => t(id!("error-owner-exists")),
            AppError::ManagedByBackOffice(Managed::Item(sku)) => tr!(l, "error-item-published", sku = sku.clone()),
            AppError::ManagedByBackOffice(Managed::Tax) => t(id!("error-tax-published")),
            AppError::ManagedByBackOffice(Managed::Pin(name)) => tr!(l, "error-pin-published", name = name.clone()),
            AppError::NoOpenShift => t(id!("shift-error-no-open-shift")),
            AppError::ShiftAlreadyOpen => t(id!("shift-error-already-open")),
            AppError::ShiftHasOpenSale { cart } => tr!(l, "shift-error-open-sale", cart = cart.to_string()),
            AppError::InvalidCount(m) => tr!(l, "shift-error-count", detail = m.clone()),
            AppError::InvalidPaidInOut(m) => tr!(l, "shift-error-paid", detail = m.clone()),
            AppError::NoZReport(n) => tr!(l, "shift-error-no-z", number = n.to_string()),
            AppError::Reader(r) => r.words(),
        };
        f.write_str(&text)
    }
}

impl std::error::Error for AppError {}

impl AppError {
    pub fn code(&self) -> &'static str {
        match self {
            AppError::InvalidInput(_) => "invalid_input",
            AppError::UnknownItem(_) => "unknown_item",
            AppError::CartLocked => "cart_locked",
            AppError::CartEmpty => "cart_empty",
            AppError::NoCheckout => "no_checkout",
            AppError::SaleChanged { .. } => "sale_changed",
            AppError::TenderInFlight => "tender_in_flight",
            AppError::TaxLocked => "tax_locked",
            AppError::InvalidDiscount(_) => "invalid_discount",
            AppError::PrinterNotSet => "printer_not_set",
            AppError::InvalidPrinter(_) => "invalid_printer",
            AppError::PrinterPortUnconfirmed { .. } => "printer_port_unconfirmed",
            AppError::PrinterUnreachable(_) => "printer_unreachable",
            AppError::ReceiptUnavailable(_) => "receipt_unavailable",
            AppError::Rejected { code, .. } => code,
            AppError::Engine { code, .. } => code,
            AppError::BackOfficeUnreachable(_) => "backoffice_unreachable",
            AppError::BackOfficeRefused(_) => "backoffice_refused",
            AppError::AlreadyPaired(_) => "already_paired",
            AppError::NotPaired => "not_paired",
            AppError::Restore(RestoreRefusal::Unknown { .. }) => "restore_unknown_register",
            AppError::Restore(RestoreRefusal::Ambiguous { .. }) => "restore_ambiguous_name",
            AppError::Restore(RestoreRefusal::InService { .. }) => "restore_in_service",
            AppError::Restore(RestoreRefusal::Itself) => "restore_from_itself",
            AppError::NotSignedIn => "not_signed_in",
            AppError::IdleLocked { .. } => "locked",
            AppError::ApprovalRequired { .. } => "approval_required",
            AppError::NotAllowed { .. } => "not_allowed",
            AppError::WrongPin { .. } => "wrong_pin",
            AppError::StaffLocked { .. } => "staff_locked",
            AppError::OwnerExists => "owner_exists",
            AppError::ManagedByBackOffice(_) => "managed_by_back_office",
            AppError::Internal(_) => "internal",
            AppError::NoOpenShift => "no_open_shift",
            AppError::ShiftAlreadyOpen => "shift_already_open",
            AppError::ShiftHasOpenSale { .. } => "shift_has_open_sale",
            AppError::InvalidCount(_) => "invalid_count",
            AppError::InvalidPaidInOut(_) => "invalid_paid_in_out",
            AppError::NoZReport(_) => "no_z_report",
            AppError::Reader(r) => r.code(),
        }
    }
}

/// The engine's errors in words a cashier understands (the code stays the engine's).
/// Decided from the error's variant, never from its message text.
impl From<EngineError> for AppError {
    fn from(e: EngineError) -> Self {
        if let EngineError::Ledger(inner) = &e {
            if let Some(refusal) = ledger_refusal(inner) {
                return refusal;
            }
        }
        let code = e.code();
        let l = active();
        // The engine's own detail (`m`, `reason`, `source`) is passed through as it is.
        let message = match &e {
            EngineError::CartLocked(_) => return AppError::CartLocked,
            EngineError::CartEmpty(_) => return AppError::CartEmpty,
            EngineError::InvalidInput(m) => tr!(l, "error-engine-invalid-input", detail = m.clone()),
            EngineError::UnknownPayment(_) => t(id!("error-unknown-payment")),
            EngineError::RefundExceedsCaptured { refundable, currency, .. } => {
                tr!(l, "error-refund-exceeds", amount = money::format(*refundable, currency.code()))
            }
            EngineError::RefundInProgress { .. } => t(id!("error-refund-in-progress")),
            EngineError::WrongState { state, attempted, .. } => {
                let done = match attempted {
                    Attempted::Capture => "capture",
                    Attempted::Cancel => "cancel",
                    Attempted::Refund => "refund",
                };
                tr!(l, "error-wrong-state", attempted = done, state = crate::views::state_label(*state))
            }
            EngineError::PreviousOutcomeUnknown { .. } => t(id!("error-previous-outcome-unknown")),
            EngineError::AlreadyPaid { .. } => t(id!("error-already-paid")),
            EngineError::LaterPaymentExists { state, .. } => {
                tr!(l, "error-later-payment", state = crate::views::state_label(*state))
            }
            EngineError::OfflineRefused { reason, detail, .. } => {
                tr!(l, "error-offline-refused", reason = reason.to_string(), detail = detail.clone())
            }
            EngineError::PspConfig(m) => tr!(l, "error-psp-config", detail = m.clone()),
            EngineError::PspRejected(m) => tr!(l, "error-psp-rejected", detail = m.clone()),
            EngineError::Alarm(m) => tr!(l, "error-alarm", detail = m.clone()),
            EngineError::Ledger(m) => tr!(l, "error-ledger", detail = m.to_string()),
            EngineError::TenderExceedsDue { open, currency, .. } => {
                tr!(l, "error-tender-exceeds-due", amount = money::format(*open, currency.code()))
            }
            EngineError::TenderUnknownOutstanding { .. } => t(id!("error-tender-unknown-outstanding")),
            EngineError::SaleComplete { .. } => t(id!("error-sale-complete")),
            EngineError::SaleCanceled { .. } => t(id!("error-sale-canceled")),
            EngineError::SaleRefundExceeds { .. } => t(id!("error-sale-refund-exceeds")),
            EngineError::Unresolved { key, source } => {
                tr!(l, "error-unresolved", key = key.clone(), detail = source.to_string())
            }
        };
        AppError::Engine { code, message }
    }
}

impl From<paydesk_ledger::Error> for AppError {
    fn from(e: paydesk_ledger::Error) -> Self {
        use paydesk_ledger::Error as L;
        if let Some(refusal) = ledger_refusal(&e) {
            return refusal;
        }
        match e {
            L::CartNotOpen { .. } => AppError::CartLocked,
            L::EmptyCart(_) => AppError::CartEmpty,
            L::UnknownProduct(sku) => AppError::UnknownItem(sku),
            other => AppError::from(EngineError::from(other)),
        }
    }
}

/// The ledger's staff and shift refusals (design §12.7, §12.9) as the app's own codes,
/// whichever command ran into them: they may also arrive wrapped in an engine error,
/// when a tender or refund was refused by the ledger. One mapping per ledger error.
fn ledger_refusal(e: &paydesk_ledger::Error) -> Option<AppError> {
    use paydesk_ledger::Error as L;
    Some(match e {
        L::NotSignedIn => AppError::NotSignedIn,
        L::PublishedItem { sku } => AppError::ManagedByBackOffice(Managed::Item(sku.clone())),
        L::PublishedTax => AppError::ManagedByBackOffice(Managed::Tax),
        L::PublishedStaff { name } => AppError::ManagedByBackOffice(Managed::Pin(name.clone())),
        L::NoOpenShift => AppError::NoOpenShift,
        L::ShiftAlreadyOpen { .. } => AppError::ShiftAlreadyOpen,
        L::ShiftHasOpenSale { cart_id } => AppError::ShiftHasOpenSale { cart: *cart_id },
        L::ShiftRefused(r) => crate::shift::refusal(r),
        // Only a session changed under a command (another sign-in between the gate and the
        // write) or a tampered call: refused input, said in the screen's words.
        L::NotTheOperator { .. } => AppError::InvalidInput(t(id!("error-not-the-operator"))),
        L::InactiveStaff { .. } => AppError::InvalidInput(t(id!("error-inactive-staff"))),
        // A sale at its size limit: said in the screen's words.
        L::QuantityTooLarge { max, .. } => AppError::InvalidInput(tr!(active(), "input-quantity", max = *max)),
        L::TooManyLines { max } => AppError::InvalidInput(tr!(active(), "input-sale-lines", max = *max)),
        L::WrongPin { attempts_left } => AppError::WrongPin { attempts_left: *attempts_left },
        L::StaffLocked { until_ms } => AppError::StaffLocked { until_ms: *until_ms },
        L::NotAllowed { action, authorization } => {
            let action = Action::ALL.into_iter().find(|a| a.as_str() == *action)?;
            match authorization {
                Authorization::NeedsApproval { min_role } => AppError::ApprovalRequired { action, min_role: *min_role },
                other => AppError::NotAllowed { action, authorization: *other },
            }
        }
        _ => return None,
    })
}

impl serde::Serialize for AppError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let problems = match self {
            AppError::Rejected { problems, .. } => Some(problems),
            _ => None,
        };
        let mut st = s.serialize_struct("AppError", 4)?;
        st.serialize_field("code", self.code())?;
        st.serialize_field("message", &self.to_string())?;
        if let Some(p) = problems {
            st.serialize_field("problems", p)?;
        }
        // What the sign-in screen and the approval dialog need besides the words.
        match self {
            AppError::ApprovalRequired { action, min_role } => {
                st.serialize_field("action", action)?;
                st.serialize_field("min_role", min_role)?;
            }
            AppError::NotAllowed { action, .. } => st.serialize_field("action", action)?,
            AppError::WrongPin { attempts_left } => st.serialize_field("attempts_left", attempts_left)?,
            AppError::StaffLocked { until_ms } => st.serialize_field("until_ms", until_ms)?,
            AppError::PrinterPortUnconfirmed { port } => st.serialize_field("port", port)?,
            _ => {}
        }
        st.end()
    }
}

pub type AppResult<T> = Result<T, AppError>;

/// One problem of refused input: the CSV line (1 = the header) if any, the field, why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Problem {
    pub line: Option<u64>,
    pub field: String,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_ledger::{Currency, PaymentState};

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
        let until = crate::state::now_ms() + 5 * 60_000;
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
        crate::i18n::set_active(paydesk_i18n::Locale::Ja);
        assert_eq!(of(Attempted::Refund), "この決済は今は返金できません: 状態は「オフライン・送信待ち」です。");
        crate::i18n::set_active(paydesk_i18n::Locale::En);
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
        crate::i18n::set_active(paydesk_i18n::Locale::Ja);
        let ja = serde_json::to_value(AppError::from(EngineError::RefundExceedsCaptured {
            key: "k".into(),
            requested: 2000,
            refundable: 1200,
            currency: Currency::Jpy,
        }))
        .expect("serializes");
        crate::i18n::set_active(paydesk_i18n::Locale::En);
        assert_eq!(ja["code"], "refund_exceeds_captured");
        assert_eq!(ja["message"], "返金できる額を超えています。この決済の残りは最大 ¥1,200 です。");
    }

    /// ui/bridge.js mirrors the codes the screens match on.
    #[test]
    fn the_ui_knows_every_tender_code() {
        let bridge = include_str!("../../ui/bridge.js");
        let tender = [
            AppError::SaleChanged { seen: 1, now: 2 },
            AppError::TenderInFlight,
            AppError::from(EngineError::SaleComplete { cart: 1 }),
            AppError::from(EngineError::SaleCanceled { cart: 1 }),
            AppError::from(EngineError::TenderExceedsDue { cart: 1, requested: 2, open: 1, currency: Currency::Usd }),
            AppError::from(EngineError::SaleRefundExceeds { cart: 1, requested: 2, refundable: 1 }),
            AppError::from(EngineError::TenderUnknownOutstanding { cart: 1, key: "k".into() }),
        ];
        let store = [
            AppError::TaxLocked,
            AppError::InvalidDiscount(String::new()),
            AppError::PrinterNotSet,
            AppError::InvalidPrinter(String::new()),
            AppError::PrinterPortUnconfirmed { port: 8080 },
            AppError::PrinterUnreachable(String::new()),
            AppError::ReceiptUnavailable(String::new()),
            AppError::Rejected { code: "invalid_item", message: String::new(), problems: vec![] },
            AppError::Rejected { code: "csv_rejected", message: String::new(), problems: vec![] },
        ];
        let staff = [
            AppError::NotSignedIn,
            AppError::ApprovalRequired { action: Action::Refund, min_role: Role::Manager },
            AppError::NotAllowed { action: Action::Refund, authorization: Authorization::SelfApproval },
            AppError::WrongPin { attempts_left: Some(2) },
            AppError::StaffLocked { until_ms: 0 },
            AppError::OwnerExists,
            AppError::IdleLocked { seconds: 300 },
        ];
        let shift = [
            AppError::from(paydesk_ledger::Error::NoOpenShift),
            AppError::from(paydesk_ledger::Error::ShiftAlreadyOpen { shift_id: 1 }),
            AppError::from(paydesk_ledger::Error::ShiftHasOpenSale { cart_id: 1 }),
            AppError::InvalidCount(String::new()),
            AppError::InvalidPaidInOut(String::new()),
            AppError::NoZReport(1),
        ];
        let restore = [
            AppError::NotPaired,
            AppError::Restore(RestoreRefusal::Unknown { from: "A".into() }),
            AppError::Restore(RestoreRefusal::Ambiguous { from: "A".into() }),
            AppError::Restore(RestoreRefusal::InService { from: "A".into() }),
            AppError::Restore(RestoreRefusal::Itself),
        ];
        let reader = [
            AppError::Reader(crate::reader::ReaderRefusal::NotTestMode),
            AppError::Reader(crate::reader::ReaderRefusal::NeedsEmbeddedPsp),
            AppError::Reader(crate::reader::ReaderRefusal::UnknownReader("tmr_1".into())),
            AppError::Reader(crate::reader::ReaderRefusal::KeyedCardNotTestMode),
        ];
        for e in tender.into_iter().chain(store).chain(staff).chain(shift).chain(restore).chain(reader) {
            assert!(bridge.contains(&format!("'{}'", e.code())), "ui/bridge.js lacks {}", e.code());
        }
        assert_eq!(
            AppError::SaleChanged { seen: 1, now: 2 }.to_string(),
            "The sale changed since this screen was drawn (1 payment shown, 2 now). Nothing was taken: check the amount due and try again."
        );
    }
}
