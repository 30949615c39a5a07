//! Up: a register's journal facts, in batches numbered by the register's own sequence.
//! Row `i` of a batch has seq `first_seq + i`; the back office applies each seq once
//! (record 0040).
use crate::audit::{AuditHead, AuditReport};
use crate::audit_rows::{AuditRow, ReceiptPrinted};
use crate::books::{amount_or_zero, id, signed_amount, DrawerMove, Tender};
use crate::catalog::{Item, StoreTax};
use crate::exchanges::ExchangeRecorded;
use crate::returns::ReturnRecorded;
use crate::sales::SaleCompleted;
use crate::staff::{check_staff_name, StaffRole};
use crate::limits::{MAX_ROWS_PER_BATCH, MAX_SEQ};
use crate::{check_version, text, ProtoError};
use serde::{Deserialize, Serialize};

/// A payment's state as the register's ledger names it (record 0014). The wire keeps its
/// own copy rather than the ledger's type, so the back office needs no SQLite and a
/// ledger change cannot silently change the wire; `tests/ledger_states.rs` checks the two
/// stay the same set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentState {
    Created,
    QueuedOffline,
    Authorizing,
    Authorized,
    Capturing,
    Captured,
    Failed,
    Canceled,
    Refunding,
    PartiallyRefunded,
    Refunded,
    /// A card-present payment on a reader, no result yet (ledger v18, decision 0102).
    OnReader,
}

impl PaymentState {
    pub const ALL: [PaymentState; 12] = [
        PaymentState::Created,
        PaymentState::QueuedOffline,
        PaymentState::Authorizing,
        PaymentState::Authorized,
        PaymentState::Capturing,
        PaymentState::Captured,
        PaymentState::Failed,
        PaymentState::Canceled,
        PaymentState::Refunding,
        PaymentState::PartiallyRefunded,
        PaymentState::Refunded,
        PaymentState::OnReader,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            PaymentState::Created => "created",
            PaymentState::QueuedOffline => "queued_offline",
            PaymentState::Authorizing => "authorizing",
            PaymentState::Authorized => "authorized",
            PaymentState::Capturing => "capturing",
            PaymentState::Captured => "captured",
            PaymentState::Failed => "failed",
            PaymentState::Canceled => "canceled",
            PaymentState::Refunding => "refunding",
            PaymentState::PartiallyRefunded => "partially_refunded",
            PaymentState::Refunded => "refunded",
            PaymentState::OnReader => "on_reader",
        }
    }

    pub fn parse(s: &str) -> Option<PaymentState> {
        PaymentState::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// The states directly reachable from `self`: the ledger's one transition table
    /// (`paydesk_domain::PaymentState::allowed_next`), copied so the back office needs no
    /// SQLite; `tests/ledger_states.rs` checks the two tables are the same.
    pub const fn allowed_next(self) -> &'static [PaymentState] {
        use PaymentState::*;
        match self {
            Created => &[Authorizing, QueuedOffline, Canceled, OnReader],
            QueuedOffline => &[Authorizing, Canceled],
            Authorizing => &[Authorized, Captured, Failed, Canceled, QueuedOffline],
            Authorized => &[Capturing, Canceled],
            Capturing => &[Captured, Failed, Canceled],
            Captured => &[Refunding],
            Refunding => &[Captured, PartiallyRefunded, Refunded],
            PartiallyRefunded => &[Refunding],
            Failed => &[],
            Canceled => &[],
            Refunded => &[],
            OnReader => &[Captured, Authorized, Canceled],
        }
    }

    /// Can a payment in `self` be in `to` later: the same state (a PSP id arriving), or one
    /// reachable through the table. A register's journal may skip steps it took inside one
    /// transaction, never go where the table cannot lead (a payment moving backwards).
    pub fn can_become(self, to: PaymentState) -> bool {
        reachable(self, to, PaymentState::allowed_next)
    }

    /// The customer's money moved to the store (held or captured): what the PSP must show
    /// as a charge.
    pub const fn money_taken(self) -> bool {
        match self {
            PaymentState::Authorized
            | PaymentState::Capturing
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded => true,
            PaymentState::Created
            | PaymentState::QueuedOffline
            | PaymentState::Authorizing
            | PaymentState::Failed
            | PaymentState::Canceled
            | PaymentState::OnReader => false,
        }
    }

    /// The register does not know the outcome yet; reconciliation waits for it.
    pub const fn unsettled(self) -> bool {
        match self {
            PaymentState::Created | PaymentState::QueuedOffline | PaymentState::Authorizing | PaymentState::OnReader => true,
            PaymentState::Authorized
            | PaymentState::Capturing
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded
            | PaymentState::Failed
            | PaymentState::Canceled => false,
        }
    }
}

/// A refund's state as the register's ledger names it (record 0015).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefundState {
    Pending,
    InFlight,
    Succeeded,
    Failed,
}

impl RefundState {
    pub const fn as_str(self) -> &'static str {
        match self {
            RefundState::Pending => "pending",
            RefundState::InFlight => "in_flight",
            RefundState::Succeeded => "succeeded",
            RefundState::Failed => "failed",
        }
    }

    pub const ALL: [RefundState; 4] = [RefundState::Pending, RefundState::InFlight, RefundState::Succeeded, RefundState::Failed];

    /// The ledger's refund transition table (`tests/ledger_states.rs` checks it).
    pub const fn allowed_next(self) -> &'static [RefundState] {
        match self {
            RefundState::Pending => &[RefundState::InFlight, RefundState::Failed],
            RefundState::InFlight => &[RefundState::Succeeded, RefundState::Failed],
            RefundState::Succeeded => &[],
            RefundState::Failed => &[],
        }
    }

    /// As [`PaymentState::can_become`].
    pub fn can_become(self, to: RefundState) -> bool {
        reachable(self, to, RefundState::allowed_next)
    }

    pub fn parse(s: &str) -> Option<RefundState> {
        RefundState::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

/// Is `to` the same state as `from` or reachable from it through `next` (a graph of a
/// dozen nodes: a walk, no cache).
fn reachable<S: Copy + PartialEq>(from: S, to: S, next: fn(S) -> &'static [S]) -> bool {
    let mut seen: Vec<S> = vec![from];
    let mut i = 0;
    while i < seen.len() {
        if seen[i] == to {
            return true;
        }
        for &n in next(seen[i]) {
            if !seen.contains(&n) {
                seen.push(n);
            }
        }
        i += 1;
    }
    false
}

/// One fact of the register's journal. Tagged by `kind`; an unknown kind is refused
/// whole (serde's error names it), never skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fact {
    /// A checkout committed its key and amount (record 0003).
    PaymentCreated { checkout_key: String, amount: i64, currency: String },
    /// The payment moved to `state`; `psp_id` once the PSP has named it.
    PaymentState { checkout_key: String, state: PaymentState, psp_id: Option<String> },
    /// A refund committed its key and amount.
    RefundCreated { refund_key: String, checkout_key: String, amount: i64 },
    /// The refund moved to `state`; `psp_refund_id` once the PSP has named it.
    RefundState { refund_key: String, state: RefundState, psp_refund_id: Option<String> },
    /// A sale took a tender (record 0028).
    TenderAdded(Tender),
    /// A pending tender was overridden and stopped counting (record 0028).
    TenderSuperseded { sale: i64, tender_seq: i64 },
    /// A drawer session opened on a counted float (record 0066).
    ShiftOpened { shift: i64, currency: String, float: i64 },
    /// Cash paid into or out of the drawer of `shift`, with why.
    PaidInOut { entry: i64, shift: i64, direction: DrawerMove, amount: i64, currency: String, reason: String },
    /// A shift closed on a blind count: its Z report's number and figures.
    ShiftClosed { shift: i64, z_number: i64, counted: i64, expected: i64, over_short: i64 },
    /// A sale became paid, with its lines and tax per rate (record 0051). Written once per
    /// sale, after the tender or payment move that completed it.
    SaleCompleted(SaleCompleted),
    /// A completed sale was canceled afterwards (its offline card was declined when
    /// forwarded, then the cashier canceled it): it no longer counts as sold.
    SaleCanceled { sale: i64 },
    /// One of the register's own catalog items was added or changed (retired: `active`
    /// false), as a whole item (record 0052). Never an item the back office published.
    ItemSaved(Item),
    /// A staff member of the register's own was added or their name, role or active flag
    /// changed. `staff` is the register's id. Never the PIN or its hash.
    StaffSaved { staff: i64, name: String, role: StaffRole, active: bool },
    /// The register's own tax setup changed (never a published one), as a whole document.
    TaxSetupChanged(StoreTax),
    /// Items of a paid sale came back, with what they gave back per tax rate (record 0119).
    ReturnRecorded(ReturnRecorded),
    /// Cash out of the drawer for a refund or a return of paid sale `sale` (record 0119):
    /// `movement` is the register's drawer movement, `shift` its drawer session.
    CashRefunded {
        movement: i64,
        sale: i64,
        amount: i64,
        currency: String,
        shift: Option<i64>,
        /// The register whose sale it is, when not the sending one (record 0144: a
        /// replacement's return of its predecessor's sale). Absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sale_register: Option<String>,
    },
    /// Money given back through store tender `tender_seq` of paid sale `sale` (a voucher
    /// refunded as a voucher, record 0121): `refund` is the register's store refund, `shift`
    /// the drawer session it was recorded in. Never a drawer movement.
    StoreRefunded { refund: i64, sale: i64, tender_seq: i64, amount: i64, currency: String, shift: Option<i64> },
    /// A return's worth paid another sale (an exchange, records 0123 and 0145): links the
    /// two sales; the money travels in the return's and the new sale's own facts.
    ExchangeRecorded(ExchangeRecorded),
    /// One row of the register's audit chain, with what its hash covers (record 0146).
    AuditRow(AuditRow),
    /// One print of a sale's receipt: its text, when, by whom, and its audit row (record 0146).
    ReceiptPrinted(ReceiptPrinted),
}

impl Fact {
    pub const fn kind(&self) -> &'static str {
        match self {
            Fact::PaymentCreated { .. } => "payment_created",
            Fact::PaymentState { .. } => "payment_state",
            Fact::RefundCreated { .. } => "refund_created",
            Fact::RefundState { .. } => "refund_state",
            Fact::TenderAdded(_) => "tender_added",
            Fact::TenderSuperseded { .. } => "tender_superseded",
            Fact::ShiftOpened { .. } => "shift_opened",
            Fact::PaidInOut { .. } => "paid_in_out",
            Fact::ShiftClosed { .. } => "shift_closed",
            Fact::SaleCompleted(_) => "sale_completed",
            Fact::SaleCanceled { .. } => "sale_canceled",
            Fact::ItemSaved(_) => "item_saved",
            Fact::StaffSaved { .. } => "staff_saved",
            Fact::TaxSetupChanged(_) => "tax_setup_changed",
            Fact::ReturnRecorded(_) => "return_recorded",
            Fact::CashRefunded { .. } => "cash_refunded",
            Fact::StoreRefunded { .. } => "store_refunded",
            Fact::ExchangeRecorded(_) => "exchange_recorded",
            Fact::AuditRow(_) => "audit_row",
            Fact::ReceiptPrinted(_) => "receipt_printed",
        }
    }

    pub(crate) fn validate(&self, at: &str) -> Result<(), ProtoError> {
        let f = |name: &str| format!("{at}.{name}");
        match self {
            Fact::PaymentCreated { checkout_key, amount, currency } => {
                text::key(&f("checkout_key"), checkout_key)?;
                text::amount(&f("amount"), *amount)?;
                text::currency(&f("currency"), currency)
            }
            Fact::PaymentState { checkout_key, state: _, psp_id } => {
                text::key(&f("checkout_key"), checkout_key)?;
                psp_id.as_deref().map_or(Ok(()), |p| text::key(&f("psp_id"), p))
            }
            Fact::RefundCreated { refund_key, checkout_key, amount } => {
                text::key(&f("refund_key"), refund_key)?;
                text::key(&f("checkout_key"), checkout_key)?;
                text::amount(&f("amount"), *amount)
            }
            Fact::RefundState { refund_key, state: _, psp_refund_id } => {
                text::key(&f("refund_key"), refund_key)?;
                psp_refund_id.as_deref().map_or(Ok(()), |p| text::key(&f("psp_refund_id"), p))
            }
            Fact::TenderAdded(t) => t.validate(&f),
            Fact::TenderSuperseded { sale, tender_seq } => {
                id(&f("sale"), *sale)?;
                id(&f("tender_seq"), *tender_seq)
            }
            Fact::ShiftOpened { shift, currency, float } => {
                id(&f("shift"), *shift)?;
                text::currency(&f("currency"), currency)?;
                amount_or_zero(&f("float"), *float)
            }
            Fact::PaidInOut { entry, shift, direction: _, amount, currency, reason } => {
                id(&f("entry"), *entry)?;
                id(&f("shift"), *shift)?;
                text::amount(&f("amount"), *amount)?;
                text::currency(&f("currency"), currency)?;
                text::text(&f("reason"), reason)?;
                if reason.trim().is_empty() {
                    return Err(ProtoError::field(f("reason"), "is empty"));
                }
                Ok(())
            }
            Fact::ShiftClosed { shift, z_number, counted, expected, over_short } => {
                id(&f("shift"), *shift)?;
                id(&f("z_number"), *z_number)?;
                amount_or_zero(&f("counted"), *counted)?;
                signed_amount(&f("expected"), *expected)?;
                signed_amount(&f("over_short"), *over_short)?;
                if *over_short != counted - expected {
                    return Err(ProtoError::field(f("over_short"), format!("must be counted {counted} less expected {expected}, got {over_short}")));
                }
                Ok(())
            }
            Fact::SaleCompleted(sale) => sale.validate(&f),
            Fact::SaleCanceled { sale } => id(&f("sale"), *sale),
            Fact::ItemSaved(item) => item.validate().map_err(|e| e.under(at)),
            Fact::StaffSaved { staff, name, role: _, active: _ } => {
                id(&f("staff"), *staff)?;
                check_staff_name(&f("name"), name)
            }
            Fact::TaxSetupChanged(tax) => tax.validate().map_err(|e| e.under(at)),
            Fact::ReturnRecorded(r) => r.validate(&f),
            Fact::CashRefunded { movement, sale, amount, currency, shift, sale_register } => {
                crate::returns::validate_cash_refunded(&f, (*movement, *sale, *amount), currency, *shift, sale_register.as_deref())
            }
            Fact::StoreRefunded { refund, sale, tender_seq, amount, currency, shift } => {
                crate::store_tenders::validate_store_refunded(&f, (*refund, *sale, *tender_seq), *amount, currency, *shift)
            }
            Fact::ExchangeRecorded(x) => x.validate(&f),
            Fact::AuditRow(r) => r.validate(&f),
            Fact::ReceiptPrinted(p) => p.validate(&f),
        }
    }
}

/// One journal row: when the register wrote it (its own clock, milliseconds since the
/// epoch) and what happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub at_ms: i64,
    pub fact: Fact,
}

/// What the register says about itself with every batch (the dashboard's health view).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterHealth {
    pub app_version: String,
    /// Outbox rows still waiting at the register behind this batch.
    pub queued: u64,
    /// Payments accepted offline and not yet forwarded to the PSP.
    pub offline_waiting: u64,
    /// Where its audit chain stands (record 0053); absent from registers older than it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<AuditReport>,
}

/// A batch of consecutive journal rows: row `i` has seq `first_seq + i`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    pub v: u32,
    pub register_id: String,
    pub first_seq: u64,
    pub rows: Vec<Row>,
    pub health: RegisterHealth,
}

impl Batch {
    /// The last seq of the batch (`first_seq` for one row).
    pub fn last_seq(&self) -> u64 {
        self.first_seq + self.rows.len().max(1) as u64 - 1
    }

    /// Every rule a batch must keep before anything is stored.
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_version(self.v)?;
        text::key("register_id", &self.register_id)?;
        if self.rows.is_empty() {
            return Err(ProtoError::EmptyBatch);
        }
        if self.rows.len() > MAX_ROWS_PER_BATCH {
            return Err(ProtoError::TooManyRows { rows: self.rows.len(), max: MAX_ROWS_PER_BATCH });
        }
        if self.first_seq == 0 {
            return Err(ProtoError::SeqZero);
        }
        if self.first_seq > MAX_SEQ - MAX_ROWS_PER_BATCH as u64 {
            return Err(ProtoError::SeqTooLarge { max: MAX_SEQ });
        }
        text::text("health.app_version", &self.health.app_version)?;
        if let Some(a) = &self.health.audit {
            a.validate("health.audit")?;
        }
        for (i, row) in self.rows.iter().enumerate() {
            let at = format!("rows[{i}] (seq {})", self.first_seq + i as u64);
            if row.at_ms < 0 {
                return Err(ProtoError::field(format!("{at}.at_ms"), "is negative"));
            }
            row.fact.validate(&at)?;
        }
        Ok(())
    }
}

/// The back office's answer to a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ack {
    pub v: u32,
    /// Every seq up to this one is stored; the register may drop its outbox rows up to
    /// here and no further.
    pub acked_through: u64,
    /// True when this batch was held: it starts past a gap and waits for the missing rows.
    pub held: bool,
    /// Rows this request newly applied (0 for a redelivery), held batches it released
    /// included.
    pub applied: u64,
    /// The register's audit head the back office has confirmed (record 0053), kept by
    /// the register so its own verification checks the chain still holds it. Absent until
    /// the register reported one, and from back offices older than it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<AuditHead>,
}
