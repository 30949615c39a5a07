//! Typed progress notifications. The desktop app subscribes and forwards each
//! one as a Tauri event; the CLI may print them to stderr.

use crate::attempt::AttemptKind;
use paydesk_domain::{PaymentState, RefundState};
use serde::Serialize;
use tokio::sync::broadcast;

/// What a notification is about: a checkout, a refund, a capture/cancel, or the
/// event consumer.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", tag = "kind", content = "key")]
pub enum Subject {
    Checkout(String),
    Refund(String),
    Capture(String),
    Cancel(String),
}

impl Subject {
    pub fn key(&self) -> &str {
        match self {
            Subject::Checkout(k) | Subject::Refund(k) | Subject::Capture(k) | Subject::Cancel(k) => k,
        }
    }
}

/// Where a resolved payment or refund now stands. Serialized as the bare state name
/// (`"captured"`, `"succeeded"`), as the subject says which machine it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum SettledState {
    Payment(PaymentState),
    Refund(RefundState),
}

impl SettledState {
    pub fn as_str(self) -> &'static str {
        match self {
            SettledState::Payment(s) => s.as_str(),
            SettledState::Refund(s) => s.as_str(),
        }
    }
}

impl std::fmt::Display for SettledState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Notification {
    /// Attempt `attempt` (1-based) is about to be sent with the subject's key.
    AttemptStarted { subject: Subject, attempt: u32 },
    /// How the attempt ended, in words a cashier can read, and its kind (serialized as
    /// the kind's label, as stored in the timeline).
    AttemptOutcome { subject: Subject, attempt: u32, outcome: AttemptKind, message: String, latency_ms: u64 },
    /// Waiting before the next attempt (same key, same parameters).
    BackingOff { subject: Subject, attempt: u32, delay_ms: u64, reason: String },
    /// The PSP answered with its stored first response: already done, not charged twice.
    Replayed { subject: Subject, attempt: u32 },
    /// The interactive phase ended without a definitive answer; the background
    /// reconciler continues with the same key. The screen is free again.
    MovedToBackground { subject: Subject, reason: String },
    /// Accepted offline (store-and-forward).
    QueuedOffline { subject: Subject, amount: i64, currency: String },
    /// A stored offline payment was forwarded to the PSP.
    Forwarded { subject: Subject, state: PaymentState, declined: bool },
    /// A payment/refund reached a final answer (by reply, replay, search or event).
    Resolved { subject: Subject, state: SettledState, via: String },
    /// PSP reachability changed.
    Connectivity { online: bool },
    /// Something needs a human: idempotency mismatch (a bug), auth/config error,
    /// a decline after forwarding an offline payment.
    /// `code` says which (the screen words it in its own language); `message` is the
    /// engine's English detail, for the log.
    Alarm { subject: Option<Subject>, code: AlarmCode, message: String },
}

/// Declares [`AlarmCode`], its `ALL` and its wire form from one list (`ALL` cannot
/// leave one out; ui/contract.js is written from it).
macro_rules! alarm_codes {
    ($($(#[$doc:meta])* $v:ident => $s:literal,)*) => {
        /// Why a person is needed: what an alarm is about, as a code (issue #31).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum AlarmCode {
            $($(#[$doc])* $v,)*
        }

        impl AlarmCode {
            pub const ALL: &'static [AlarmCode] = &[$(AlarmCode::$v,)*];

            /// The stable form (serialized the same).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(AlarmCode::$v => $s,)*
                }
            }
        }
    };
}

alarm_codes! {
    /// An offline payment was declined when forwarded: collect another way.
    DeclinedAfterForwarding => "declined_after_forwarding",
    /// A sale's card tender accepted offline was declined: its balance is unpaid again.
    SaleBalanceReopened => "sale_balance_reopened",
    /// The ledger and the PSP hold different records for one key.
    ExistsWithDifferent => "exists_with_different",
    /// The PSP's payment is for another amount or currency than the checkout.
    AmountMismatch => "amount_mismatch",
    /// A capture or cancel failed under every key the register may use.
    NeedsAttention => "needs_attention",
    /// A refund was refused by the PSP: nothing was handed back.
    RefundNotMade => "refund_not_made",
    /// An offline payment was never collected at the PSP.
    OfflinePaymentNotCollected => "offline_payment_not_collected",
    /// The PSP refused the secret key.
    PspAuth => "psp_auth",
    /// The PSP connection is misconfigured (the URL).
    PspConfig => "psp_config",
    /// One key was sent with different parameters (a bug).
    IdempotencyError => "idempotency_error",
    /// The PSP URL answers with something that is not a PSP.
    NotAPsp => "not_a_psp",
}

/// Fan-out of notifications. Cheap to clone; sending with no subscriber is fine.
#[derive(Debug, Clone)]
pub struct Notifier {
    tx: broadcast::Sender<Notification>,
}

impl Default for Notifier {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl Notifier {
    pub fn new(capacity: usize) -> Self {
        let (tx, _) = broadcast::channel(capacity.max(1));
        Self { tx }
    }
    pub fn subscribe(&self) -> broadcast::Receiver<Notification> {
        self.tx.subscribe()
    }
    pub fn send(&self, n: Notification) {
        tracing::debug!(?n, "notification");
        let _ = self.tx.send(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An attempt's outcome travels typed and is serialized as its kind's label, the
    /// form the timeline stores.
    #[test]
    fn attempt_outcome_serializes_its_kind_label() {
        let n = Notification::AttemptOutcome {
            subject: Subject::Checkout("k".into()),
            attempt: 2,
            outcome: AttemptKind::InProgress,
            message: "processor still working on this payment".into(),
            latency_ms: 7,
        };
        let v = serde_json::to_value(&n).unwrap();
        assert_eq!(v["type"], "attempt_outcome");
        assert_eq!(v["outcome"], "in_progress_409");
        assert_eq!(v["subject"], serde_json::json!({"kind": "checkout", "key": "k"}));
    }
}
