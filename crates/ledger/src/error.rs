//! One error type for the whole crate.
//!
//! Variants are specific on purpose: the register engine decides what to do from the
//! variant (refuse to start, show the cashier, alarm), never from a message string.

use std::path::Path;

use rusqlite::ErrorCode;

use paydesk_domain::money::{Currency, ValueError};
use paydesk_domain::state::{IllegalRefundTransition, IllegalTransition, PaymentState, RefundState};

/// Result alias used by every fallible function in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the domain or the ledger.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The database was written by a newer PayDesk: its `user_version` is above what this
    /// build knows. The file is refused *untouched* (no pragma that writes, no migration),
    /// so the newer build can still use it.
    #[error("ledger schema version {found} is newer than this build supports ({supported}); refusing to open it (file left untouched)")]
    NewerSchema { found: i64, supported: i64 },

    /// The file exists but is not an SQLite database (or its header is destroyed).
    #[error("{path} is not a PayDesk ledger (not an SQLite database)")]
    NotADatabase { path: String },

    /// The path cannot hold a register's ledger (empty, `:memory:`, a directory or a
    /// device, a missing directory) or SQLite cannot open it (permissions, locked, disk
    /// full). Nothing was created or changed.
    #[error("{reason}")]
    CannotOpen { path: String, reason: String },

    /// The file is an SQLite database of another program: neither empty nor a PayDesk
    /// ledger. Refused untouched (migrating it would mix our tables into its data).
    #[error("an SQLite database of another program, not a PayDesk ledger: {detail}; refusing to use it (file left untouched)")]
    ForeignDatabase { path: String, detail: String },

    /// The file is an SQLite database but its content is damaged.
    #[error("ledger {path} is corrupt: {detail}")]
    Corrupt { path: String, detail: String },

    /// A copy of the ledger could not be written (record 0116): the ledger is untouched
    /// and the copies made before stay as they were.
    #[error("a copy of the ledger could not be written to {path}: {reason}")]
    CopyNotWritten { path: String, reason: String },
    /// A copy that does not open, fails SQLite's check, or whose audit chain is broken
    /// (record 0116): it must not be trusted to restore from.
    #[error("the copy {path} is not a good copy: {reason}")]
    CopyNotGood { path: String, reason: String },
    /// A running copy that did not finish (written and checked) within its pace's limit
    /// (record 0154): abandoned, nothing kept of it; the ledger and the copies made before
    /// are as they were.
    #[error("the copy {path} was abandoned: not written and checked within {limit_secs} s ({done_bytes} of {total_bytes} bytes done)")]
    CopyTooSlow { path: String, limit_secs: u64, done_bytes: u64, total_bytes: u64 },
    /// A restore into a place that already holds a ledger (record 0116): a restore never
    /// overwrites one. Nothing written.
    #[error("{path} already exists: a copy is restored only into a fresh data folder")]
    RestoreTargetExists { path: String },

    /// A payment transition that the table in [`crate::state`] does not allow.
    #[error(transparent)]
    IllegalTransition(#[from] IllegalTransition),

    /// A refund transition that the refund table does not allow.
    #[error(transparent)]
    IllegalRefundTransition(#[from] IllegalRefundTransition),

    /// `transition(id, from, to)` found the payment in a third state: somebody else moved
    /// it since the caller read it. Nothing was changed.
    #[error("payment {payment_id} is {found}, not {expected}: it changed since it was read")]
    StaleState { payment_id: i64, expected: PaymentState, found: PaymentState },

    /// Same as [`Error::StaleState`] for refunds.
    #[error("refund {refund_id} is {found}, not {expected}: it changed since it was read")]
    StaleRefundState { refund_id: i64, expected: RefundState, found: RefundState },

    /// The refund states of a payment are bookkeeping of its refunds: `refunding` needs
    /// an open refund, leaving it needs none, `partially_refunded` / `refunded` /
    /// back to `captured` must match `refunded_minor`. Refused, nothing written.
    #[error("payment {payment_id} cannot become {to}: {refunded_minor} of {amount_minor} refunded, {open_refunds} refund(s) open")]
    RefundBookkeeping { payment_id: i64, to: PaymentState, refunded_minor: i64, amount_minor: i64, open_refunds: i64 },

    #[error("unknown payment {0}")]
    UnknownPayment(String),
    #[error("unknown refund {0}")]
    UnknownRefund(String),
    #[error("unknown cart {0}")]
    UnknownCart(i64),
    #[error("unknown product {0}")]
    UnknownProduct(String),

    /// A refund larger than what is left to refund (captured minus every refund that
    /// is not failed, pending ones included so two refunds cannot race past the total).
    #[error("refund of {requested_minor} exceeds the refundable {refundable_minor} on payment {payment_id}")]
    RefundExceedsCaptured { payment_id: i64, requested_minor: i64, refundable_minor: i64 },

    /// The payment already has a refund that is not settled (`pending` / `in_flight`):
    /// a second refund now could be the same request pressed twice under a new key, so
    /// it is refused until the open one is confirmed or failed. Nothing written.
    #[error("a refund of payment {payment_id} ({refund_key}) is still being confirmed; wait for it before refunding again")]
    RefundInProgress { payment_id: i64, refund_key: String },

    /// Refunds need money that was captured.
    #[error("payment {payment_id} is {state}: nothing captured to refund")]
    NotRefundable { payment_id: i64, state: PaymentState },

    #[error("invalid amount: {0}")]
    InvalidAmount(String),
    #[error("invalid currency: {0:?}")]
    InvalidCurrency(String),
    #[error("currency mismatch: expected {expected}, got {found}")]
    CurrencyMismatch { expected: Currency, found: Currency },
    #[error("amount overflow")]
    Overflow,

    /// The cart is locked by an open checkout (record 0004) or already paid.
    #[error("cart {cart_id} is {state}, not open")]
    CartNotOpen { cart_id: i64, state: String },
    #[error("cart {0} is empty")]
    EmptyCart(i64),

    /// A tender larger than what the sale still needs (record 0028): due minus what
    /// held or pending card tenders reserve. Cash may exceed it (change); a card may not.
    #[error("a tender of {requested_minor} exceeds the {open_minor} still open on sale {cart_id}")]
    TenderExceedsDue { cart_id: i64, requested_minor: i64, open_minor: i64 },

    /// A card tender of the sale has an unknown outcome: another tender now could
    /// overpay the sale when it succeeds. Refused unless overridden with a reason.
    #[error("sale {cart_id}: the card tender {checkout_key} has an unknown outcome; a new tender could charge the customer twice. Wait, or override with a reason")]
    TenderUnknownOutstanding { cart_id: i64, checkout_key: String },

    /// The sale is paid in full: no tender, no cancel (refund it instead).
    #[error("sale {cart_id} is already paid in full")]
    SaleComplete { cart_id: i64 },

    /// The sale was canceled (or its cancel is being completed).
    #[error("sale {cart_id} was canceled")]
    SaleCanceled { cart_id: i64 },

    /// A refund of a sale larger than what its tenders can still give back.
    #[error("refund of {requested_minor} exceeds the refundable {refundable_minor} of sale {cart_id}")]
    SaleRefundExceeds { cart_id: i64, requested_minor: i64, refundable_minor: i64 },

    /// A string read back from the database is not a known value (only possible if the
    /// file was edited outside PayDesk: the CHECK constraints forbid it otherwise).
    #[error("unknown {what} {value:?} in the ledger")]
    UnknownValue { what: &'static str, value: String },

    /// A wrong PIN, or a name that is not a staff member (the same answer, on purpose).
    /// `attempts_left` before the lock, when the name was known.
    #[error("wrong name or PIN{}", attempts_left.map(|n| format!(" ({n} tries left before the lock)")).unwrap_or_default())]
    WrongPin { attempts_left: Option<u32> },

    /// Too many wrong PINs: no PIN is checked until `until_ms` (record 0063).
    #[error("locked after too many wrong PINs until {until_ms} (epoch ms)")]
    StaffLocked { until_ms: i64 },

    /// The store signs staff in: money moves only with someone signed in (record 0067).
    #[error("nobody is signed in at this register: sign in first")]
    NotSignedIn,

    /// The store signs staff in, so money moves only inside an open shift (record 0066).
    #[error("no shift is open: open one with the counted float first")]
    NoOpenShift,

    /// A second shift while one is open (one drawer, one count).
    #[error("shift {shift_id} is still open: close it before opening another")]
    ShiftAlreadyOpen { shift_id: i64 },

    /// A shift cannot close while a customer is half-way through paying.
    #[error("sale {cart_id} is part-paid: finish or cancel it before closing the shift")]
    ShiftHasOpenSale { cart_id: i64 },

    /// A drawer count, a paid in / out or a shift's open broke one of the shift's rules
    /// (record 0066); the variant says which, for the app to put in the screen's words.
    #[error(transparent)]
    ShiftRefused(#[from] crate::drawer::ShiftRefusal),

    /// An action named someone other than the person signed in at this register as its
    /// actor (the session changed between the screen's check and the write). Nothing
    /// written.
    #[error("staff {staff_id} is not the person signed in at this register")]
    NotTheOperator { staff_id: i64 },

    /// An action's actor or approver (`who`) is not an active staff member. Nothing written.
    #[error("the {who} (staff {staff_id}) is not an active staff member")]
    InactiveStaff { staff_id: i64, who: &'static str },

    /// The role table (record 0062) says no: the actor's role is too low and no one
    /// holding the role approved, or the approver cannot approve this.
    #[error("{action} is not allowed: {}", describe_refusal(*.authorization))]
    NotAllowed { action: &'static str, authorization: paydesk_access::Authorization },

    /// A local edit of an item the back office publishes (record 0049): it is changed
    /// at the back office, and reaches this register with the next sync.
    #[error("item {sku} is managed by the back office; change it there")]
    PublishedItem { sku: String },

    /// A change of role, a PIN reset or a retirement the register refuses (record 0127):
    /// the variant says why. Nothing written.
    #[error(transparent)]
    StaffRefused(#[from] crate::staff_refusal::StaffRefusal),

    /// A local PIN change of a staff member the back office publishes (record 0050).
    #[error("{name}'s PIN is managed by the back office; change it there")]
    PublishedStaff { name: String },

    /// A local edit of the tax setup the back office publishes (record 0049).
    #[error("the tax setup is managed by the back office; change it there")]
    PublishedTax,

    /// A new line past a sale's limit: the tax crate's and the wire's (record 0051).
    #[error("a sale holds at most {max} lines")]
    TooManyLines { max: usize },

    /// A line's quantity past the limit a completed sale must fit (record 0051).
    #[error("a quantity of {quantity}: at most {max} per line")]
    QuantityTooLarge { quantity: i64, max: u32 },

    /// An open-price item or department key (record 0126) rung without a price: the
    /// cashier types it.
    #[error("{sku} has no fixed price: type its price")]
    PriceRequired { sku: String },
    /// A weighed item rung by the piece: it is rung with its grams, typed or from a weight
    /// label (record 0134).
    #[error("{sku} is sold by weight: give its grams")]
    WeightRequired { sku: String },
    /// Grams for an item sold by the piece (record 0134).
    #[error("{sku} is sold by the piece, not by weight")]
    NotWeighed { sku: String },
    /// A weight outside 1 g .. 100 kg, or one whose amount passes the line limit (record
    /// 0134). Nothing written.
    #[error("{sku}: {why}")]
    WeightRefused { sku: String, why: paydesk_tax::WeightError },
    /// A weighed line is its weight: it is not counted up, and a return takes it back
    /// whole (record 0134).
    #[error("line {line_no} is weighed: it is removed or returned whole, never by part")]
    WeighedLineWhole { line_no: i64 },
    /// A typed price for an item with a fixed catalog price (record 0126).
    #[error("{sku} has a fixed price and takes no typed price")]
    FixedPriceItem { sku: String },
    /// A typed or printed price of zero, below zero or past the tax crate's limit per
    /// unit (record 0126). Nothing written.
    #[error("a price of {price}: a typed or printed price is 1 to {max}")]
    LinePriceOutOfRange { price: i64, max: i64 },
    /// An open price above the store's limit without a member who may allow it
    /// (`open_price_above_limit`, record 0126). Nothing written.
    #[error("an open price of {price} is above the store's limit of {limit}: it needs an approval")]
    OpenPriceAboveLimit { price: i64, limit: i64 },
    /// A line number the sale does not have (record 0126).
    #[error("sale {cart_id} has no line {line_no}")]
    UnknownLine { cart_id: i64, line_no: i64 },

    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A catalog item refused by one of its fields (`sku`, `barcode`, ...): the field is
    /// carried so a screen can point at it without reading the words.
    #[error("invalid input: {message}")]
    InvalidItem { field: &'static str, message: String },
    /// A reader operation on a payment that was not made for a reader (decision 0102).
    #[error("payment {checkout_key} is not a card-present payment on a reader")]
    NotAReaderPayment { checkout_key: String },
    /// The PSP answered the intent create of `checkout_key` with another PaymentIntent
    /// than the one recorded (or one that belongs to another payment): nothing written.
    #[error("payment {checkout_key}: the PSP's PaymentIntent {found} is not the recorded {stored}")]
    ReaderIntentMismatch { checkout_key: String, stored: String, found: String },
    /// A reader payment may be processed at most `max` times (each needs a person).
    #[error("payment {checkout_key} was presented on the reader {max} times; start a new payment")]
    ReaderAttemptLimit { checkout_key: String, max: i64 },

    /// A ryōshūsho for a sale that is not paid in full (record 0112): nothing written.
    /// `state` is the sale's (`SaleState::as_str`; named, not typed, because the sale's
    /// vocabulary sits above the errors).
    #[error("sale {cart_id} is {state}: only a paid sale gets a ryōshūsho")]
    RyoshushoUnpaid { cart_id: i64, state: &'static str },
    /// The sale has its ryōshūsho already, to another addressee or for another
    /// description: one sale, one formal receipt (record 0112). It can only be reprinted
    /// as issued. Nothing written.
    #[error("sale {cart_id} already has ryōshūsho {number} with another addressee or description; it can only be reprinted as issued")]
    RyoshushoDiffers { cart_id: i64, number: String },

    /// The sale's ryōshūsho is still with the customer (record 0114): a refund or return
    /// gives money back only when the customer hands it back (`ryoshusho_taken_back`), or
    /// they would keep a formal receipt for money they no longer paid. Nothing written.
    #[error("sale {cart_id} has ryōshūsho {number}: take it back from the customer before giving money back")]
    RyoshushoNotTakenBack { cart_id: i64, number: String },
    /// The sale's ryōshūsho was handed back at a refund or return: it is no longer valid
    /// and is not reprinted (record 0114). Nothing written.
    #[error("ryōshūsho {number} of sale {cart_id} was taken back at a refund or return; it is no longer valid")]
    RyoshushoTakenBack { cart_id: i64, number: String },
    /// No new ryōshūsho for what the customer kept after a return (record 0145), and why.
    /// Nothing written.
    #[error("sale {cart_id}: no new ryōshūsho for what was kept: {why}")]
    RyoshushoReissueRefused { cart_id: i64, why: ReissueRefusal },
    /// A refund or return of a sale not paid in full (`state` is `SaleState::as_str`):
    /// an open sale is canceled instead. Nothing written.
    #[error("sale {cart_id} is not paid in full ({state}): cancel it instead of refunding")]
    SaleNotPaid { cart_id: i64, state: &'static str },
    /// A card tender of the sale was accepted offline and is not forwarded yet: it has no
    /// captured payment to refund. Nothing written.
    #[error("card tender {tender_seq} of sale {cart_id} was accepted offline and is not forwarded yet; refund it after it is")]
    CardTenderNotForwarded { cart_id: i64, tender_seq: i64 },
    /// A return asks for more of a line than was sold and not yet returned (record 0114).
    #[error("sale {cart_id}, line {line}: {requested} asked back, but {sold} sold and {returned_before} returned already")]
    ReturnExceedsSold { cart_id: i64, line: usize, sold: u32, returned_before: u32, requested: u32 },
    /// A return names a line the sale does not have.
    #[error("sale {cart_id} has {lines} line(s); there is no line {line}")]
    ReturnUnknownLine { cart_id: i64, line: usize, lines: usize },
    /// No return with that id (or none of that sale).
    #[error("unknown return {0}")]
    UnknownReturn(i64),
    /// No predecessor restored from with that id (record 0144).
    #[error("no register {register} was restored from at this register")]
    UnknownRestoreSource { register: String },
    /// The predecessor's history is not all here yet: its returns and refunds may be in the
    /// part not pulled, so nothing of its sales is given back until the restore finished
    /// (record 0144). Nothing written.
    #[error("the restore from {register} has not finished; finish it before taking back its sales")]
    RestoreNotFinished { register: String },
    /// The restored history holds no completed sale with that id (record 0144).
    #[error("register {register} completed no sale {sale} in its restored history")]
    UnknownRestoredSale { register: String, sale: i64 },
    /// A receipt number found in more than one predecessor's history: name the register.
    #[error("receipt {receipt_no} is in the history of {} restored registers; name one", sources.len())]
    AmbiguousRestoredReceipt { receipt_no: String, sources: Vec<String> },
    /// The restored sale was canceled by its register: nothing of it can come back.
    #[error("sale {sale} of register {register} was canceled; nothing of it can come back")]
    RestoredSaleCanceled { register: String, sale: i64 },
    /// The restored sale's figures are not what this register's tax settings for its day give
    /// (another rounding, another rate): its return cannot be valued from its locked tax
    /// here. Nothing written.
    #[error("sale {sale} of register {register} cannot be valued here: {why}")]
    RestoredSaleNotValued { register: String, sale: i64, why: String },
    /// A card payment of the restored sale has no settled outcome in the predecessor's
    /// history (or no PSP id): nothing is given back on a payment nobody knows was taken.
    #[error("payment {checkout_key} of sale {sale} of register {register} is {state} in its history; its money cannot be given back here")]
    RestoredPaymentUnsettled { register: String, sale: i64, checkout_key: String, state: String },
    /// The money would have to go back through one of the sale's store tenders (a voucher):
    /// not built for a restored sale; a voucher is never turned into cash (record 0144).
    #[error("sale {sale} of register {register} was paid in part by a store tender, which cannot be given back for a replaced register's sale")]
    RestoredStoreTender { register: String, sale: i64 },
    /// The predecessor exchanged goods of this sale: the exchange's credit came out of the
    /// sale's tenders, and its fact names no tender (record 0153: a register before record
    /// 0157, whose facts carry no `credit_parts`), so what each tender has left cannot be
    /// known here. Nothing is given back here rather than anything twice.
    #[error("sale {sale} of register {register} was exchanged at that register; what its payments have left is not known here, so nothing more can be given back")]
    RestoredExchangedThere { register: String, sale: i64 },
    /// More than the restored sale's tenders have left after every refund, the
    /// predecessor's included. Nothing written.
    #[error("sale {sale} of register {register}: {requested_minor} to give back, but its tenders have {refundable_minor} left")]
    RestoredRefundExceeds { register: String, sale: i64, requested_minor: i64, refundable_minor: i64 },
    /// A sale paid in part by the credit of an exchange of a restored sale (record 0153)
    /// would give back more than its own tenders and the predecessor's tenders the credit
    /// came out of can take back now. That part goes back through those tenders (record
    /// 0156); this answers only when they have less room than the credit holds (a card whose
    /// outcome the predecessor never settled, facts that disagree), so the money is never
    /// made up from elsewhere. Nothing written.
    #[error("sale {cart_id} was paid in part by exchanging goods of sale {sale} of register {register}: that sale's payments cannot take that part back now")]
    RestoredCreditNotGivenBack { cart_id: i64, register: String, sale: i64 },
    /// No tender type with that id (record 0118).
    #[error("unknown tender type {0}")]
    UnknownTenderType(i64),
    /// The tender type is not offered any more (record 0118).
    #[error("tender type {id} ({name}) is not active")]
    TenderTypeInactive { id: i64, name: String },
    /// Another tender type already has that name.
    #[error("a tender type named {name} exists already")]
    TenderTypeNameTaken { name: String },
    /// An exchange's new sale is in another currency than the sale whose goods come back
    /// (record 0123). Nothing written.
    #[error("sale {new_cart_id} is in {new_currency}, but sale {old_cart_id} was paid in {old_currency}: an exchange nets one currency")]
    ExchangeCurrencyMismatch { old_cart_id: i64, old_currency: String, new_cart_id: i64, new_currency: String },
    /// The new sale of an exchange already holds the credit of another exchange, or has
    /// nothing open to pay (record 0123). Nothing written.
    #[error("sale {new_cart_id} cannot take an exchange credit: {why}")]
    ExchangeNewSaleRefused { new_cart_id: i64, why: &'static str },
    /// The returned goods are worth nothing (given away): there is nothing to net, so
    /// return them and sell the new goods (record 0123). Nothing written.
    #[error("the goods taken back from sale {old_cart_id} are worth nothing: return them, then sell")]
    ExchangeNothingToCredit { old_cart_id: i64 },
    /// The old sale was itself paid in part by an exchange credit that cannot be carried
    /// on, and its own tenders have too little left to hold the new one: since record
    /// 0155 a credit of this register's own exchange is carried on (any depth), so this is
    /// a restored sale's credit (record 0153), whose tenders are the predecessor's. Nothing
    /// written.
    #[error("sale {old_cart_id} was paid in part by an exchange: return its goods, then sell")]
    ExchangeOfCreditedSale { old_cart_id: i64 },
    /// A sale paid in part by an exchange credit cannot be canceled: the goods of the
    /// other sale are back in the store, so its worth must be given back by a return
    /// (record 0123). Nothing written.
    #[error("sale {cart_id} holds the credit of exchange {exchange_id}: complete it, then return what the customer does not keep")]
    ExchangeCreditHeld { cart_id: i64, exchange_id: i64 },

    /// A cart could not be parked, recalled or discarded (record 0128): the refusal says
    /// why. Nothing written.
    #[error("cart {cart_id} cannot be held or taken back: {}", .why.as_str())]
    HoldRefused { cart_id: i64, why: HoldRefusal },
    /// The cart is parked (recall it first) or was discarded: its lines, dining, discounts
    /// and tenders do not change (record 0128). Nothing written.
    #[error("cart {cart_id} is held or discarded: recall it before changing or paying it")]
    CartHeld { cart_id: i64 },

    /// A sale's tax exemption could not be set or cleared (record 0135): the refusal says
    /// why. Nothing written.
    #[error("sale {cart_id}'s tax exemption cannot change: {}", .why.as_str())]
    TaxExemptRefused { cart_id: i64, why: ExemptRefusal },

    /// The store's in-store label rules were not stored (record 0136): rule `position`
    /// (1-based; 0 for the list as a whole) and why. Nothing written.
    #[error("label rule {position}: {why}")]
    LabelRuleRefused { position: usize, why: LabelRuleRefusal },

    #[error("json: {0}")]
    Json(#[from] serde_json::Error),

    #[error("database error: {}", sqlite_words(.0))]
    Sqlite(#[from] rusqlite::Error),

    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}

/// An SQLite error in words for a person: SQLite's own message, never the SQL
/// statement (rusqlite puts the statement text into syntax errors).
pub fn sqlite_words(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    }
}

fn describe_refusal(a: paydesk_access::Authorization) -> String {
    use paydesk_access::Authorization as A;
    match a {
        A::NeedsApproval { min_role } => format!("it needs a {min_role}'s approval"),
        A::ApproverTooLow { min_role } => format!("the approver is not a {min_role} or above"),
        A::SelfApproval => "nobody approves their own action".into(),
        // Granted answers never become an error; say so rather than panic.
        A::Allowed | A::Approved { .. } => "it was allowed (this is a bug)".into(),
    }
}

/// An open refused for a reason about the file, in words.
pub(crate) fn cannot(path: &Path, reason: impl Into<String>) -> Error {
    Error::CannotOpen { path: path.display().to_string(), reason: reason.into() }
}

/// Turns an SQLite error met while opening `path` into what went wrong, in words.
pub(crate) fn open_error(path: &Path, e: rusqlite::Error) -> Error {
    let p = path.display().to_string();
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => Error::NotADatabase { path: p },
        Some(ErrorCode::DatabaseCorrupt) => Error::Corrupt { path: p, detail: sqlite_words(&e) },
        Some(ErrorCode::CannotOpen) => {
            cannot(path, "SQLite cannot open or create it (check that its directory exists and is writable)")
        }
        Some(ErrorCode::PermissionDenied) => cannot(path, "permission denied"),
        Some(ErrorCode::ReadOnly) => cannot(path, "it is read-only (the register must write to its ledger)"),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            cannot(path, "another program holds it locked; try again when it is done")
        }
        Some(ErrorCode::DiskFull) => cannot(path, "the disk is full"),
        Some(ErrorCode::SystemIoFailure) => cannot(path, "the disk reported an I/O error"),
        _ => Error::Sqlite(e),
    }
}

/// The vocabulary's refusals become the same-named variants, with the same words: callers
/// match on `Error` as before.
impl From<ValueError> for Error {
    fn from(e: ValueError) -> Error {
        match e {
            ValueError::InvalidAmount(s) => Error::InvalidAmount(s),
            ValueError::InvalidCurrency(s) => Error::InvalidCurrency(s),
            ValueError::CurrencyMismatch { expected, found } => Error::CurrencyMismatch { expected, found },
            ValueError::Overflow => Error::Overflow,
            ValueError::UnknownValue { what, value } => Error::UnknownValue { what, value },
        }
    }
}

/// Why a hold, recall or discard was refused. Nothing was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldRefusal {
    /// The cart has no lines: there is nothing to keep.
    Empty,
    /// Something was tendered on the cart, or a checkout locked it, or it is paid: it
    /// belongs to the customer paying now.
    Tendered,
    /// As many carts as the setting allows are parked already.
    AtLimit { max: u32 },
    /// The cart is not parked (never was, recalled already, or discarded).
    NotHeld,
}

impl HoldRefusal {
    /// A stable word for the refusal (the CLI's `--json`, the app's codes).
    pub fn as_str(self) -> &'static str {
        match self {
            HoldRefusal::Empty => "empty",
            HoldRefusal::Tendered => "tendered",
            HoldRefusal::AtLimit { .. } => "at_limit",
            HoldRefusal::NotHeld => "not_held",
        }
    }
}

/// Why a sale's tax exemption was not set or cleared (record 0135). Nothing was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExemptRefusal {
    /// The store does not take tax exemptions (its setting, off by default in Japan).
    NotAllowed,
    /// Something was tendered on the sale, or its tax is locked: the customer is paying
    /// the figures they were shown.
    Tendered,
    /// The sale is paid.
    Paid,
    /// The reason is not 3 to 200 characters once trimmed, or has a control character.
    Reason,
}

impl ExemptRefusal {
    /// A stable word for the refusal (the CLI's `--json`, the app's codes).
    pub fn as_str(self) -> &'static str {
        match self {
            ExemptRefusal::NotAllowed => "not_allowed",
            ExemptRefusal::Tendered => "tendered",
            ExemptRefusal::Paid => "paid",
            ExemptRefusal::Reason => "reason",
        }
    }
}

/// Why a list of in-store label rules was refused (record 0136). Nothing was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelRuleRefusal {
    /// Not a GS1 restricted-circulation prefix (02 or 20 to 29).
    Prefix { prefix: String },
    /// Item digits outside 1 to 9 (at least one digit must be left for the value).
    ItemDigits { digits: u8 },
    /// A second rule with the same prefix (only the first could ever read a label).
    DuplicatePrefix { prefix: String },
    /// More rules than a store keeps.
    TooMany { max: usize },
}

impl LabelRuleRefusal {
    /// A stable word for the refusal (the CLI's `--json`, the app's codes).
    pub fn as_str(&self) -> &'static str {
        match self {
            LabelRuleRefusal::Prefix { .. } => "prefix",
            LabelRuleRefusal::ItemDigits { .. } => "item_digits",
            LabelRuleRefusal::DuplicatePrefix { .. } => "duplicate_prefix",
            LabelRuleRefusal::TooMany { .. } => "too_many",
        }
    }
}

impl std::fmt::Display for LabelRuleRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabelRuleRefusal::Prefix { prefix } => write!(f, "prefix {prefix:?}: in-store labels use 02 or 20 to 29"),
            LabelRuleRefusal::ItemDigits { digits } => write!(f, "{digits} item digits: 1 to 9 leave room for the value"),
            LabelRuleRefusal::DuplicatePrefix { prefix } => write!(f, "prefix {prefix} has a rule already"),
            LabelRuleRefusal::TooMany { max } => write!(f, "a store keeps at most {max} label rules"),
        }
    }
}

/// Why a new ryōshūsho for what the customer kept was refused (record 0145).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReissueRefusal {
    /// The sale never had one: the first is issued as usual.
    #[error("it has no ryōshūsho; issue one")]
    NoneIssued,
    /// The sale's ryōshūsho is still with the customer and valid: it is reprinted.
    #[error("ryōshūsho {number} is still valid; reprint it")]
    StillValid { number: String },
    /// Nothing of the sale came back by a return.
    #[error("nothing of it was returned")]
    NoReturn,
    /// Everything came back: there is nothing to state.
    #[error("everything came back")]
    NothingKept,
    /// The returns and the money disagree (money went back by amount, or a return's card
    /// refund failed and is still owed): the amount kept is not stated per rate.
    #[error("its returns leave {by_returns} kept but its tenders hold {by_tenders}: settle the refunds first")]
    KeptNotStated { by_returns: i64, by_tenders: i64 },
}
