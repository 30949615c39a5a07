//! Plain data the ledger hands out and takes in.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use paydesk_domain::money::{Currency, Money};
use paydesk_domain::state::{CaptureMethod, PaymentState, RefundState};

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}
id_type!(/// Row id of a payment (a checkout).
    PaymentId);
id_type!(/// Row id of a refund.
    RefundId);
id_type!(/// Row id of a cart.
    CartId);
id_type!(/// Row id of a catalog product.
    ProductId);

/// The exact parameters of a PSP request: ordered `(name, value)` form pairs, Stripe
/// bracket notation (`metadata[checkout_key]`). Stored as JSON `[["amount","1200"],…]`
/// and sent as-is on every retry (record 0004).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(transparent)]
pub struct RequestParams(pub Vec<(String, String)>);

impl RequestParams {
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.push((name.into(), value.into()));
    }
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Supplies idempotency keys. Injected so a deterministic simulation can reproduce a run;
/// production uses [`RandomKeys`].
pub trait KeySource: Send {
    /// A fresh UUID v4 (random bits, version 4, RFC 4122 variant).
    fn next_key(&mut self) -> Uuid;
}

/// Operating-system randomness (`Uuid::new_v4`).
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomKeys;

impl KeySource for RandomKeys {
    fn next_key(&mut self) -> Uuid {
        Uuid::new_v4()
    }
}

/// Reproducible keys from a seed (splitmix64), still well-formed UUID v4 values.
#[derive(Debug, Clone)]
pub struct SeededKeys {
    state: u64,
}

impl SeededKeys {
    pub fn new(seed: u64) -> SeededKeys {
        SeededKeys { state: seed }
    }
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl KeySource for SeededKeys {
    fn next_key(&mut self) -> Uuid {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }
}

/// One payment row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    pub id: PaymentId,
    pub idempotency_key: String,
    pub psp_payment_id: Option<String>,
    pub amount: Money,
    pub state: PaymentState,
    pub capture_method: CaptureMethod,
    pub request_params: RequestParams,
    pub cart_id: Option<CartId>,
    pub offline: bool,
    pub created_at_ms: i64,
    pub first_attempt_at_ms: Option<i64>,
    pub updated_at_ms: i64,
    pub refunded_minor: i64,
    pub last_error: Option<String>,
}

/// What a checkout is opened with; the amount comes from the cart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutOptions {
    /// PSP payment method token, e.g. `pm_card_visa`.
    pub payment_method: String,
    pub capture_method: CaptureMethod,
    /// Extra parameters appended after the standard ones (e.g. `description`).
    pub extra_params: Vec<(String, String)>,
}

impl CheckoutOptions {
    pub fn card(payment_method: impl Into<String>) -> CheckoutOptions {
        CheckoutOptions {
            payment_method: payment_method.into(),
            capture_method: CaptureMethod::Automatic,
            extra_params: Vec::new(),
        }
    }
}

/// A payment without a cart (CLI `checkout --amount`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPayment {
    pub amount: Money,
    pub options: CheckoutOptions,
}

/// `open_checkout` returns the open checkout of the cart if there is one (double click,
/// Enter-mashing, restart) — `is_new` tells which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub payment: Payment,
    pub is_new: bool,
}

/// How [`crate::Payments::payment_after`] opens the new payment.
#[derive(Debug, Clone, Copy)]
pub enum After<'a> {
    /// Without a cart (as [`crate::Payments::create`]).
    Amount(&'a NewPayment),
    /// The cart's next checkout; with `override_reason`, one is opened even while another
    /// is open (as [`crate::Payments::open_checkout_override`]).
    Cart { cart_id: CartId, options: &'a CheckoutOptions, override_reason: Option<&'a str> },
}

/// What the PSP said about a key: recorded with [`crate::Payments::record_psp_result`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PspResult {
    pub idempotency_key: String,
    pub psp_payment_id: String,
    pub amount: Money,
    /// State for a row the ledger did not have yet (a payment found at the PSP, e.g. by
    /// reconciliation search). An existing row's state is NOT changed here: state moves
    /// only through `transition`, so the table is always enforced.
    pub state_if_new: PaymentState,
}

/// Outcome of recording a PSP result (record 0006, TigerBeetle style). Only
/// `Recorded` changed the ledger; every other variant left it exactly as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordOutcome {
    /// New row inserted, or the PSP id attached to the row opened for this key.
    Recorded(PaymentId),
    /// Same key, same fields: already recorded. Nothing changed.
    Exists(PaymentId),
    ExistsWithDifferentAmount { id: PaymentId, stored_minor: i64, requested_minor: i64 },
    ExistsWithDifferentCurrency { id: PaymentId, stored: Currency, requested: Currency },
    ExistsWithDifferentPspPaymentId { id: PaymentId, stored: String, requested: String },
    /// The PSP payment id is already recorded under another key.
    PspPaymentIdBelongsToAnotherKey { id: PaymentId, other_key: String },
}

impl RecordOutcome {
    /// `Recorded` or `Exists`: the ledger agrees with the PSP.
    pub fn is_ok(&self) -> bool {
        matches!(self, RecordOutcome::Recorded(_) | RecordOutcome::Exists(_))
    }
    /// Name of the differing field for the `ExistsWithDifferent…` variants.
    pub fn differing_field(&self) -> Option<&'static str> {
        match self {
            RecordOutcome::Recorded(_) | RecordOutcome::Exists(_) => None,
            RecordOutcome::ExistsWithDifferentAmount { .. } => Some("amount"),
            RecordOutcome::ExistsWithDifferentCurrency { .. } => Some("currency"),
            RecordOutcome::ExistsWithDifferentPspPaymentId { .. } => Some("psp_payment_id"),
            RecordOutcome::PspPaymentIdBelongsToAnotherKey { .. } => Some("idempotency_key"),
        }
    }
}

/// What one attempt phase of a checkout ended with, applied in one transaction by
/// [`crate::Payments::settle_checkout`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckoutSettlement {
    /// Timeline rows of the attempts, each with its time (`first_attempt_at_ms` is
    /// stamped from the first).
    pub attempts: Vec<(TimelineInput, i64)>,
    /// The PSP's answer for the key, recorded idempotently.
    pub psp: Option<PspResult>,
    pub last_error: Option<String>,
    /// Final state to reach along the table (through `authorizing` when needed).
    pub target: Option<PaymentState>,
    /// A request may have reached the PSP: without a target, a `created` /
    /// `queued_offline` row moves to `authorizing`.
    pub sent: bool,
    /// Timeline detail of the final transition ("reply", "replay", "declined", …).
    pub via: String,
}

/// Result of [`crate::Payments::settle_checkout`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// Committed; the payment as it is now.
    Settled(Payment),
    /// The PSP result disagrees with the ledger: nothing was written.
    PspConflict(RecordOutcome),
}

/// Result of a state change in the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransitionOutcome<S> {
    /// The row moved `from -> to` (one timeline row appended).
    Applied { from: S, to: S },
    /// It was already in the target state: no-op, nothing written.
    AlreadyDone(S),
}

impl<S: Copy> TransitionOutcome<S> {
    pub fn state(self) -> S {
        match self {
            TransitionOutcome::Applied { to, .. } => to,
            TransitionOutcome::AlreadyDone(s) => s,
        }
    }
}

/// What a timeline row describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    Created,
    Attempt,
    Transition,
    PspResult,
    Event,
    Refund,
    Note,
}

impl TimelineKind {
    /// Every kind, for the screen's contract (ui/contract.js) and parsing.
    pub const ALL: [TimelineKind; 7] = [
        TimelineKind::Created,
        TimelineKind::Attempt,
        TimelineKind::Transition,
        TimelineKind::PspResult,
        TimelineKind::Event,
        TimelineKind::Refund,
        TimelineKind::Note,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            TimelineKind::Created => "created",
            TimelineKind::Attempt => "attempt",
            TimelineKind::Transition => "transition",
            TimelineKind::PspResult => "psp_result",
            TimelineKind::Event => "event",
            TimelineKind::Refund => "refund",
            TimelineKind::Note => "note",
        }
    }
}

impl std::str::FromStr for TimelineKind {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TimelineKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| crate::error::Error::UnknownValue { what: "timeline kind", value: s.to_string() })
    }
}

/// A timeline row to append (attempts: outcome, latency, replay flag, attempt number).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TimelineInput {
    pub kind: Option<TimelineKind>,
    pub detail: String,
    pub outcome: Option<String>,
    pub latency_ms: Option<i64>,
    pub replayed: bool,
    pub attempt_no: Option<i64>,
    pub refund_id: Option<RefundId>,
}

impl TimelineInput {
    /// A row that only says what happened: its kind and words.
    pub fn said(kind: TimelineKind, detail: String) -> TimelineInput {
        TimelineInput { kind: Some(kind), detail, ..Default::default() }
    }
}

/// One stored timeline row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineEntry {
    pub id: i64,
    pub payment_id: PaymentId,
    pub refund_id: Option<RefundId>,
    pub at_ms: i64,
    pub kind: TimelineKind,
    pub detail: String,
    pub outcome: Option<String>,
    pub latency_ms: Option<i64>,
    pub replayed: bool,
    pub attempt_no: Option<i64>,
}

/// One refund row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refund {
    pub id: RefundId,
    pub idempotency_key: String,
    pub payment_id: PaymentId,
    pub amount: Money,
    pub state: RefundState,
    pub psp_refund_id: Option<String>,
    pub reason: Option<String>,
    pub request_params: RequestParams,
    pub created_at_ms: i64,
    pub first_attempt_at_ms: Option<i64>,
    pub updated_at_ms: i64,
}

/// Outcome of recording a PSP refund result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefundRecordOutcome {
    /// PSP id attached and/or state moved.
    Recorded(RefundId),
    /// Already recorded with the same id and state.
    Exists(RefundId),
    ExistsWithDifferentPspRefundId { id: RefundId, stored: String, requested: String },
}

/// Kind of PSP event, mapped from Stripe's `type` (see [`EventKind::from_stripe`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// `payment_intent.succeeded`: captured; +amount in the journal.
    PaymentSucceeded,
    /// `payment_intent.amount_capturable_updated`: authorized (manual capture).
    PaymentAuthorized,
    /// `payment_intent.payment_failed`.
    PaymentFailed,
    /// `payment_intent.canceled`.
    PaymentCanceled,
    /// `refund.succeeded`, `charge.refunded`, or `refund.created`/`refund.updated` with
    /// status `succeeded`: -amount in the journal.
    RefundSucceeded,
    /// `refund.failed`, or `refund.updated` with status `failed`.
    RefundFailed,
    /// Anything else: recorded as processed, one zero journal row, no state change.
    Other(String),
}

impl EventKind {
    /// Maps a Stripe event type (and the object's `status`, for refund.* events).
    pub fn from_stripe(event_type: &str, object_status: Option<&str>) -> EventKind {
        match (event_type, object_status) {
            ("payment_intent.succeeded", _) => EventKind::PaymentSucceeded,
            ("payment_intent.amount_capturable_updated", _) => EventKind::PaymentAuthorized,
            ("payment_intent.payment_failed", _) => EventKind::PaymentFailed,
            ("payment_intent.canceled", _) => EventKind::PaymentCanceled,
            ("refund.succeeded" | "charge.refunded", _) => EventKind::RefundSucceeded,
            ("refund.created" | "refund.updated", Some("succeeded")) => EventKind::RefundSucceeded,
            ("refund.failed", _) | ("refund.updated", Some("failed")) => EventKind::RefundFailed,
            (other, _) => EventKind::Other(other.to_string()),
        }
    }
}

/// A PSP event as the consumer hands it to [`crate::SyncLog::apply_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PspEvent {
    /// The PSP's event id (`evt_…`): the idempotent consumer's key.
    pub event_id: String,
    /// The raw type string, stored for the record.
    pub event_type: String,
    pub kind: EventKind,
    pub psp_payment_id: Option<String>,
    /// `metadata[checkout_key]` of the payment, used when the PSP id is not known yet.
    pub checkout_key: Option<String>,
    pub psp_refund_id: Option<String>,
    /// `metadata[refund_key]` of a refund.
    pub refund_key: Option<String>,
    /// Amount of the payment or refund the event is about.
    pub amount: Option<Money>,
}

/// What applying an event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyOutcome {
    /// First delivery: processed_events row, its effects and one journal row committed.
    Applied {
        payment_id: Option<PaymentId>,
        state_change: Option<(PaymentState, PaymentState)>,
        journal_amount_minor: i64,
        effect: String,
    },
    /// The event id was already in processed_events: nothing at all changed.
    AlreadyApplied,
}

/// One accounting journal row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    pub id: i64,
    pub event_id: String,
    pub payment_id: Option<PaymentId>,
    pub at_ms: i64,
    pub account: String,
    pub amount_minor: i64,
    pub currency: Option<Currency>,
    pub memo: String,
}

/// One audit log row (record 0005: overrides with their reason).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub id: i64,
    pub at_ms: i64,
    pub action: String,
    pub reason: String,
    /// What it concerned (`subject` in the chain).
    pub detail: Option<String>,
    /// Who did it; `None` for the register itself.
    pub actor_id: Option<i64>,
    pub approver_id: Option<i64>,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// A catalog product.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Product {
    pub id: ProductId,
    pub sku: String,
    pub name: String,
    pub price: Money,
}

/// A product to seed into the catalog (upserted by SKU).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProduct {
    pub sku: String,
    pub name: String,
    pub price: Money,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CartState {
    Open,
    Locked,
    Paid,
}

impl CartState {
    pub const fn as_str(self) -> &'static str {
        match self {
            CartState::Open => "open",
            CartState::Locked => "locked",
            CartState::Paid => "paid",
        }
    }
}

impl std::str::FromStr for CartState {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "open" => Ok(CartState::Open),
            "locked" => Ok(CartState::Locked),
            "paid" => Ok(CartState::Paid),
            other => Err(crate::Error::UnknownValue { what: "cart state", value: other.to_string() }),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CartLine {
    /// The line's number in its cart, in scan order from 1 (record 0126): its identity.
    pub line_no: i64,
    pub product_id: ProductId,
    pub sku: String,
    pub name: String,
    pub quantity: i64,
    pub unit_price: Money,
    /// `unit_price × quantity`, before the line's discount.
    pub line_total: Money,
    /// The class captured when the line was added (record 0060).
    pub tax_class: paydesk_tax::TaxClass,
    pub discount: Option<paydesk_tax::Discount>,
    /// Where the unit price came from (record 0126).
    pub price_source: PriceSource,
    /// A weighed line's weight and price per unit (record 0134); its `unit_price` is then
    /// its amount for that weight and its `quantity` 1. `None`: a line of pieces.
    pub weight: Option<LineWeight>,
}

/// What a weighed line was rung at (record 0134): `grams` of an item priced `rate` per
/// `unit` (kilogram or 100 g). The line's amount is `paydesk_tax::weighed_amount` of these,
/// stored with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LineWeight {
    pub grams: i64,
    pub unit: paydesk_tax::SaleUnit,
    pub rate: Money,
}

/// Where a cart line's unit price came from (record 0126). A catalog line is the one
/// line of its product that scanning again adds to; a typed (open) or printed (label)
/// price is always its own line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceSource {
    Catalog,
    Open,
    Label,
}

impl PriceSource {
    pub const ALL: [PriceSource; 3] = [PriceSource::Catalog, PriceSource::Open, PriceSource::Label];

    pub fn as_str(self) -> &'static str {
        match self {
            PriceSource::Catalog => "catalog",
            PriceSource::Open => "open",
            PriceSource::Label => "label",
        }
    }

    pub fn parse(s: &str) -> Option<PriceSource> {
        match s {
            "catalog" => Some(PriceSource::Catalog),
            "open" => Some(PriceSource::Open),
            "label" => Some(PriceSource::Label),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cart {
    pub id: CartId,
    pub currency: Currency,
    pub state: CartState,
    pub lines: Vec<CartLine>,
    /// What the customer pays and the tenders must cover (record 0060): the tax's
    /// total when the sale is taxed, else the sum of the lines.
    pub total: Money,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub dining: paydesk_tax::Dining,
    pub sale_discount: Option<paydesk_tax::Discount>,
    /// The sale's tax per rate; `None` for a sale of exempt lines without a discount
    /// (every sale from before tax existed), whose total is the sum of its lines.
    pub tax: Option<paydesk_tax::SaleTax>,
    /// Whether `tax` and `total` are the figures locked at the first tender.
    pub tax_locked: bool,
    /// Parked, or discarded (record 0128): no line, tender or change until recalled
    /// (discarded: never). Read with the cart's head, so checking it costs no statement.
    #[serde(default)]
    pub held: bool,
    /// Why the whole sale is tax exempt (record 0135), trimmed; `None` for a taxed sale.
    #[serde(default)]
    pub tax_exempt_reason: Option<String>,
}

/// Totals of the store-and-forward queue, for the offline limits (record 0009).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OfflineQueueStats {
    pub count: i64,
    pub total_minor_by_currency: Vec<(Currency, i64)>,
    pub oldest_created_at_ms: Option<i64>,
}
