//! Typed errors of the app's commands, serialized to the UI as `{code, message}`.
//! `code` is stable and never translated (the UI and tests match on it); `message` is
//! what a cashier reads, in the screen's language (record 0070).

use paydesk_register::{Attempted, EngineError};
use serde::ser::SerializeStruct;

use paydesk_access::{Action, Authorization, Role};

use crate::i18n::{active, id, t, tr};
use crate::money;

mod code;
mod exempt;
mod held;
mod reader;
mod restored;
pub mod shift;
pub use code::ErrorCode;
pub use held::HeldRefusal;
pub use reader::ReaderRefusal;
pub use restored::RestoredRefusal;

#[derive(Debug)]
pub enum AppError {
    /// A field the UI sent is malformed (a bug in the UI, or a tampered call).
    InvalidInput(String),
    UnknownItem(String),
    /// An in-store label that cannot be rung up as printed (record 0115).
    InStoreLabel(LabelRefusal),
    CartLocked,
    CartEmpty,
    NoCheckout,
    /// A tender press acted on a view of the sale that is out of date (a second press
    /// of the same button, or another window): nothing was taken (record 0035).
    SaleChanged { seen: u32, now: u32 },
    /// Another tender (or Charge, or a cancel) of this register is still running.
    TenderInFlight,
    /// The sale's tax is fixed (its first tender was taken, or a payment is open):
    /// dining and discounts cannot change (record 0060).
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
    Rejected { code: ErrorCode, message: String, problems: Vec<Problem> },
    /// An error from the register engine, already put in a cashier's words.
    Engine { code: ErrorCode, message: String },
    /// The back office did not answer (record 0045).
    BackOfficeUnreachable(String),
    /// The back office answered no (a spent or unknown pairing code, a revoked register).
    BackOfficeRefused(String),
    /// This register is already paired; the text says with which store.
    AlreadyPaired(String),
    /// Restore needs a paired register (record 0048).
    NotPaired,
    /// The back office refused a restore, by its refusal's code (record 0048).
    Restore(RestoreRefusal),
    /// The store has staff and nobody is signed in (record 0068).
    NotSignedIn,
    /// Nobody used the register for `seconds` (settings `idle_lock_s`): whoever was
    /// signed in has just been signed out (record 0068).
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
    /// register with the next sync (record 0049, 0050).
    ManagedByBackOffice(Managed),
    Internal(String),
    /// Money moves only inside an open shift on a register with staff (record 0066).
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
    Reader(ReaderRefusal),
    /// A store tender type refused (record 0122): unknown, switched off, name taken.
    TenderType(TenderTypeRefusal),
    /// A staff change refused (record 0127): the ledger's reason, typed.
    Staff(paydesk_ledger::StaffRefusal),
    /// A hold, recall or discard refused (record 0128).
    Held(HeldRefusal),
    /// A sale's tax exemption was refused (record 0135).
    Exempt(paydesk_ledger::ExemptRefusal),
    /// A return of a restored sale refused (record 0144).
    Restored(RestoredRefusal),
}

/// Why a store tender type was refused (record 0118, 0122), from the ledger's typed
/// error or the command's own check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TenderTypeRefusal {
    /// No tender type with that id.
    Unknown(i64),
    /// The type is not offered at the counter any more.
    Inactive { name: String },
    /// Another type has that name already.
    NameTaken { name: String },
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
        Action::OpenPriceAboveLimit => id!("action-open-price-above-limit"),
        Action::TaxExempt => id!("action-tax-exempt"),
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

/// Why a restore from a replaced register was refused (record 0048), each from the
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

/// Why an in-store label (GS1 prefix 02 / 20–29) was not rung up (record 0115). Amounts
/// are already in the store's money format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelRefusal {
    /// The label's price is not the catalog's, where a line is named by its item (a
    /// quantity typed for a code): a scan rings it up at its price (record 0126).
    PriceDiffers { sku: String, label: String, catalog: String },
    /// A weight label: weighed items are not built yet.
    Weight { sku: String, grams: i64 },
}

/// What the back office publishes and the register only shows (record 0049, 0050).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Managed {
    /// A catalog item, by SKU.
    Item(String),
    /// The tax setup.
    Tax,
    /// A staff member's PIN, by name.
    Pin(String),
    /// A staff member's role or retirement, by name (record 0127).
    Staff(String),
}

/// The message in the active language: by variant (the code), with its arguments.
impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = active();
        let text = match self {
            AppError::InvalidInput(m) | AppError::Internal(m) => m.clone(),
            AppError::Engine { message, .. } => message.clone(),
            AppError::UnknownItem(code) => tr!(l, "error-unknown-item", code = code.clone()),
            AppError::InStoreLabel(LabelRefusal::PriceDiffers { sku, label, catalog }) => {
                tr!(l, "error-label-price-differs", sku = sku.clone(), label = label.clone(), catalog = catalog.clone())
            }
            AppError::InStoreLabel(LabelRefusal::Weight { sku, grams }) => tr!(l, "error-label-weight", sku = sku.clone(), grams = *grams),
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
                let minutes = ((until_ms - crate::base::now_ms()).max(0) + 59_999) / 60_000;
                let minutes = minutes.max(1);
                tr!(l, "error-staff-locked", minutes = minutes)
            }
            AppError::OwnerExists => t(id!("error-owner-exists")),
            AppError::ManagedByBackOffice(Managed::Item(sku)) => tr!(l, "error-item-published", sku = sku.clone()),
            AppError::ManagedByBackOffice(Managed::Tax) => t(id!("error-tax-published")),
            AppError::ManagedByBackOffice(Managed::Pin(name)) => tr!(l, "error-pin-published", name = name.clone()),
            AppError::ManagedByBackOffice(Managed::Staff(name)) => tr!(l, "error-staff-published", name = name.clone()),
            AppError::NoOpenShift => t(id!("shift-error-no-open-shift")),
            AppError::ShiftAlreadyOpen => t(id!("shift-error-already-open")),
            AppError::ShiftHasOpenSale { cart } => tr!(l, "shift-error-open-sale", cart = cart.to_string()),
            AppError::InvalidCount(m) => tr!(l, "shift-error-count", detail = m.clone()),
            AppError::InvalidPaidInOut(m) => tr!(l, "shift-error-paid", detail = m.clone()),
            AppError::NoZReport(n) => tr!(l, "shift-error-no-z", number = n.to_string()),
            AppError::Reader(r) => r.words(),
            AppError::TenderType(TenderTypeRefusal::Unknown(id)) => tr!(l, "error-tender-type-unknown", id = id.to_string()),
            AppError::TenderType(TenderTypeRefusal::Inactive { name }) => tr!(l, "error-tender-type-inactive", name = name.clone()),
            AppError::TenderType(TenderTypeRefusal::NameTaken { name }) => tr!(l, "error-tender-type-name-taken", name = name.clone()),
            AppError::Staff(r) => staff_refusal_words(r),
            AppError::Held(r) => r.words(),
            AppError::Exempt(r) => exempt::words(*r),
            AppError::Restored(r) => r.words(),
        };
        f.write_str(&text)
    }
}

impl std::error::Error for AppError {}

impl AppError {
    /// The stable code the UI matches on (`ErrorCode::as_str`).
    pub fn code(&self) -> &'static str {
        self.error_code().as_str()
    }

    /// The code, typed: one arm per variant (a new variant is given its code here).
    pub fn error_code(&self) -> ErrorCode {
        use ErrorCode as C;
        match self {
            AppError::InvalidInput(_) => C::InvalidInput,
            AppError::UnknownItem(_) => C::UnknownItem,
            AppError::InStoreLabel(_) => C::InStoreLabel,
            AppError::CartLocked => C::CartLocked,
            AppError::CartEmpty => C::CartEmpty,
            AppError::NoCheckout => C::NoCheckout,
            AppError::SaleChanged { .. } => C::SaleChanged,
            AppError::TenderInFlight => C::TenderInFlight,
            AppError::TaxLocked => C::TaxLocked,
            AppError::InvalidDiscount(_) => C::InvalidDiscount,
            AppError::PrinterNotSet => C::PrinterNotSet,
            AppError::InvalidPrinter(_) => C::InvalidPrinter,
            AppError::PrinterPortUnconfirmed { .. } => C::PrinterPortUnconfirmed,
            AppError::PrinterUnreachable(_) => C::PrinterUnreachable,
            AppError::ReceiptUnavailable(_) => C::ReceiptUnavailable,
            AppError::Rejected { code, .. } => *code,
            AppError::Engine { code, .. } => *code,
            AppError::BackOfficeUnreachable(_) => C::BackofficeUnreachable,
            AppError::BackOfficeRefused(_) => C::BackofficeRefused,
            AppError::AlreadyPaired(_) => C::AlreadyPaired,
            AppError::NotPaired => C::NotPaired,
            AppError::Restore(RestoreRefusal::Unknown { .. }) => C::RestoreUnknownRegister,
            AppError::Restore(RestoreRefusal::Ambiguous { .. }) => C::RestoreAmbiguousName,
            AppError::Restore(RestoreRefusal::InService { .. }) => C::RestoreInService,
            AppError::Restore(RestoreRefusal::Itself) => C::RestoreFromItself,
            AppError::NotSignedIn => C::NotSignedIn,
            AppError::IdleLocked { .. } => C::Locked,
            AppError::ApprovalRequired { .. } => C::ApprovalRequired,
            AppError::NotAllowed { .. } => C::NotAllowed,
            AppError::WrongPin { .. } => C::WrongPin,
            AppError::StaffLocked { .. } => C::StaffLocked,
            AppError::OwnerExists => C::OwnerExists,
            AppError::ManagedByBackOffice(_) => C::ManagedByBackOffice,
            AppError::Internal(_) => C::Internal,
            AppError::NoOpenShift => C::NoOpenShift,
            AppError::ShiftAlreadyOpen => C::ShiftAlreadyOpen,
            AppError::ShiftHasOpenSale { .. } => C::ShiftHasOpenSale,
            AppError::InvalidCount(_) => C::InvalidCount,
            AppError::InvalidPaidInOut(_) => C::InvalidPaidInOut,
            AppError::NoZReport(_) => C::NoZReport,
            AppError::Reader(r) => C::of_reader(r),
            AppError::TenderType(TenderTypeRefusal::Unknown(_)) => C::UnknownTenderType,
            AppError::TenderType(TenderTypeRefusal::Inactive { .. }) => C::TenderTypeInactive,
            AppError::TenderType(TenderTypeRefusal::NameTaken { .. }) => C::TenderTypeNameTaken,
            AppError::Staff(r) => staff_refusal_code(r),
            AppError::Held(r) => r.code(),
            AppError::Exempt(r) => exempt::code(*r),
            AppError::Restored(r) => r.code(),
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
        let code = ErrorCode::of_engine(&e);
        let l = active();
        // The engine's own detail (`m`, `reason`, `source`) is passed through as it is.
        let message = match &e {
            EngineError::CartLocked(_) => return AppError::CartLocked,
            EngineError::CartEmpty(_) => return AppError::CartEmpty,
            EngineError::InvalidInput(m) => tr!(l, "error-engine-invalid-input", detail = m.clone()),
            EngineError::UnknownPayment(_) => t(id!("error-unknown-payment")),
            EngineError::RefundExceedsCaptured { refundable, currency, .. } => {
                tr!(l, "error-refund-exceeds", amount = money::format(*refundable, *currency))
            }
            EngineError::RefundInProgress { .. } => t(id!("error-refund-in-progress")),
            EngineError::WrongState { state, attempted, .. } => {
                let done = match attempted {
                    Attempted::Capture => "capture",
                    Attempted::Cancel => "cancel",
                    Attempted::Refund => "refund",
                };
                tr!(l, "error-wrong-state", attempted = done, state = crate::wording::state_label(*state))
            }
            EngineError::PreviousOutcomeUnknown { .. } => t(id!("error-previous-outcome-unknown")),
            EngineError::AlreadyPaid { .. } => t(id!("error-already-paid")),
            EngineError::LaterPaymentExists { state, .. } => {
                tr!(l, "error-later-payment", state = crate::wording::state_label(*state))
            }
            EngineError::OfflineRefused { reason, detail, .. } => {
                tr!(l, "error-offline-refused", reason = reason.to_string(), detail = detail.clone())
            }
            EngineError::PspConfig(m) => tr!(l, "error-psp-config", detail = m.clone()),
            EngineError::PspRejected(m) => tr!(l, "error-psp-rejected", detail = m.clone()),
            // The alarm's words by its code, in the screen's language; the engine's own
            // English detail stays in the log and the payment's timeline.
            EngineError::Alarm { code, .. } => tr!(l, "error-alarm", detail = crate::wording::alarm_words(*code)),
            EngineError::Ledger(m) => tr!(l, "error-ledger", detail = m.to_string()),
            EngineError::TenderExceedsDue { open, currency, .. } => {
                tr!(l, "error-tender-exceeds-due", amount = money::format(*open, *currency))
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

/// The ledger's staff and shift refusals (record 0066, 0068) as the app's own codes,
/// whichever command ran into them: they may also arrive wrapped in an engine error,
/// when a tender or refund was refused by the ledger. One mapping per ledger error.
fn ledger_refusal(e: &paydesk_ledger::Error) -> Option<AppError> {
    use paydesk_ledger::Error as L;
    Some(match e {
        L::NotSignedIn => AppError::NotSignedIn,
        L::PublishedItem { sku } => AppError::ManagedByBackOffice(Managed::Item(sku.clone())),
        L::PublishedTax => AppError::ManagedByBackOffice(Managed::Tax),
        L::PublishedStaff { name } => AppError::ManagedByBackOffice(Managed::Pin(name.clone())),
        L::StaffRefused(paydesk_ledger::StaffRefusal::Published { name }) => AppError::ManagedByBackOffice(Managed::Staff(name.clone())),
        L::StaffRefused(r) => AppError::Staff(r.clone()),
        L::NoOpenShift => AppError::NoOpenShift,
        L::ShiftAlreadyOpen { .. } => AppError::ShiftAlreadyOpen,
        L::ShiftHasOpenSale { cart_id } => AppError::ShiftHasOpenSale { cart: *cart_id },
        L::ShiftRefused(r) => shift::refusal(r),
        // Only a session changed under a command (another sign-in between the gate and the
        // write) or a tampered call: refused input, said in the screen's words.
        L::NotTheOperator { .. } => AppError::InvalidInput(t(id!("error-not-the-operator"))),
        L::InactiveStaff { .. } => AppError::InvalidInput(t(id!("error-inactive-staff"))),
        // A sale at its size limit: said in the screen's words.
        L::QuantityTooLarge { max, .. } => AppError::InvalidInput(tr!(active(), "input-quantity", max = *max)),
        L::TooManyLines { max } => AppError::InvalidInput(tr!(active(), "input-sale-lines", max = *max)),
        // Typed prices (record 0126): said in the cashier's words; above the limit the
        // screen asks for a manager, as for a discount.
        L::PriceRequired { sku } => AppError::InvalidInput(tr!(active(), "input-price-required", item = sku.clone())),
        // Weighed goods (record 0134), in the cashier's words.
        L::WeightRequired { sku } => AppError::InvalidInput(tr!(active(), "input-weight-required", item = sku.clone())),
        L::NotWeighed { sku } => AppError::InvalidInput(tr!(active(), "input-not-weighed", item = sku.clone())),
        L::WeightRefused { .. } => {
            AppError::InvalidInput(tr!(active(), "input-grams", min = paydesk_tax::MIN_GRAMS, max = paydesk_tax::MAX_GRAMS))
        }
        L::WeighedLineWhole { .. } => AppError::InvalidInput(t(id!("input-weighed-line-whole"))),
        L::FixedPriceItem { sku } => AppError::InvalidInput(tr!(active(), "input-fixed-price-item", item = sku.clone())),
        L::LinePriceOutOfRange { max, .. } => AppError::InvalidInput(tr!(active(), "input-open-price-range", min = 1, max = *max)),
        L::OpenPriceAboveLimit { .. } => {
            AppError::ApprovalRequired { action: Action::OpenPriceAboveLimit, min_role: Action::OpenPriceAboveLimit.min_role() }
        }
        L::UnknownLine { .. } => AppError::InvalidInput(t(id!("input-unknown-line"))),
        // A sale's 領収書 must come back before its money does (record 0114).
        L::RyoshushoNotTakenBack { number, .. } => AppError::InvalidInput(tr!(active(), "sale-refund-ryoshusho-needed", number = number.clone())),
        // A return beyond what is left of a line (record 0117): named with its figures.
        L::ReturnExceedsSold { line, sold, returned_before, requested, .. } => AppError::InvalidInput(tr!(
            active(),
            "return-exceeds-sold",
            line = line + 1,
            sold = *sold,
            returned = *returned_before,
            requested = *requested
        )),
        L::ReturnUnknownLine { line, lines, .. } => AppError::InvalidInput(tr!(active(), "return-unknown-line", line = line + 1, lines = *lines)),
        L::RyoshushoTakenBack { number, .. } => AppError::InvalidInput(tr!(active(), "ryoshusho-taken-back", number = number.clone())),
        // The store's own tender types (record 0118), named by the ledger's typed errors.
        L::UnknownTenderType(id) => AppError::TenderType(TenderTypeRefusal::Unknown(*id)),
        L::TenderTypeInactive { name, .. } => AppError::TenderType(TenderTypeRefusal::Inactive { name: name.clone() }),
        L::TenderTypeNameTaken { name } => AppError::TenderType(TenderTypeRefusal::NameTaken { name: name.clone() }),
        // An exchange the ledger refused (record 0123), in the cashier's words.
        L::ExchangeNewSaleRefused { .. } | L::ExchangeCurrencyMismatch { .. } => AppError::InvalidInput(t(id!("exchange-new-sale-refused"))),
        L::ExchangeNothingToCredit { .. } => AppError::InvalidInput(t(id!("exchange-nothing-to-credit"))),
        L::ExchangeOfCreditedSale { .. } => AppError::InvalidInput(t(id!("exchange-of-credited-sale"))),
        L::ExchangeCreditHeld { .. } => AppError::InvalidInput(t(id!("exchange-credit-held"))),
        // Held sales (record 0128).
        L::HoldRefused { why, .. } => AppError::Held(HeldRefusal::of(*why)),
        L::CartHeld { .. } => AppError::Held(HeldRefusal::CartHeld),
        // The store's label rules (record 0136): which rule, and why, in the owner's words.
        L::LabelRuleRefused { position, why } => AppError::InvalidInput(label_rule_words(*position, why)),
        // A tax-exempt sale (record 0135).
        L::TaxExemptRefused { why, .. } => AppError::Exempt(*why),
        // A return of a restored sale (record 0144).
        L::UnknownRestoreSource { .. }
        | L::RestoreNotFinished { .. }
        | L::UnknownRestoredSale { .. }
        | L::AmbiguousRestoredReceipt { .. }
        | L::RestoredSaleCanceled { .. }
        | L::RestoredSaleNotValued { .. }
        | L::RestoredPaymentUnsettled { .. }
        | L::RestoredStoreTender { .. }
        | L::RestoredExchangedThere { .. }
        | L::RestoredRefundExceeds { .. }
        // and the new sale of a restored exchange (record 0153)
        | L::RestoredCreditNotGivenBack { .. } => AppError::Restored(RestoredRefusal::of_ledger(e)?),
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

/// A staff refusal's words (record 0127).
fn staff_refusal_words(r: &paydesk_ledger::StaffRefusal) -> String {
    use paydesk_ledger::StaffRefusal as R;
    let l = active();
    match r {
        R::Unknown { name } => tr!(l, "error-staff-unknown", name = name.clone()),
        R::Published { name } => tr!(l, "error-staff-published", name = name.clone()),
        R::LastOwner { name } => tr!(l, "error-staff-last-owner", name = name.clone()),
        R::Retired { name } => tr!(l, "error-staff-retired", name = name.clone()),
        R::RetiredName { name } => tr!(l, "error-staff-name-retired", name = name.clone()),
        R::SameRole { name, role } => tr!(l, "error-staff-same-role", name = name.clone(), role = role_words(*role)),
    }
}

/// A staff refusal's code (record 0127).
fn staff_refusal_code(r: &paydesk_ledger::StaffRefusal) -> ErrorCode {
    use paydesk_ledger::StaffRefusal as R;
    match r {
        R::Unknown { .. } => ErrorCode::UnknownStaff,
        R::Published { .. } => ErrorCode::ManagedByBackOffice,
        R::LastOwner { .. } => ErrorCode::LastOwner,
        R::Retired { .. } => ErrorCode::StaffRetired,
        R::RetiredName { .. } => ErrorCode::StaffNameRetired,
        R::SameRole { .. } => ErrorCode::SameRole,
    }
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
mod tests;

/// A refused label rule (record 0136) in the screen's words: the row and the reason.
fn label_rule_words(position: usize, why: &paydesk_ledger::LabelRuleRefusal) -> String {
    use paydesk_ledger::LabelRuleRefusal as R;
    let l = active();
    match why {
        R::Prefix { prefix } => tr!(l, "input-label-rule-prefix", row = position, prefix = prefix.clone()),
        R::ItemDigits { digits } => tr!(l, "input-label-rule-digits", row = position, digits = *digits),
        R::DuplicatePrefix { prefix } => tr!(l, "input-label-rule-duplicate", row = position, prefix = prefix.clone()),
        R::TooMany { max } => tr!(l, "input-label-rule-many", max = *max),
    }
}
