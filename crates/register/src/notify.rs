//! Typed progress notifications. The desktop app subscribes and forwards each
//! one as a Tauri event; the CLI may print them to stderr.

use crate::attempt::AttemptKind;
use crate::psp::RetryReason;
use paydesk_domain::{Currency, PaymentState, RefundState};
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
    MovedToBackground { subject: Subject, reason: BackgroundReason },
    /// Accepted offline (store-and-forward).
    QueuedOffline { subject: Subject, amount: i64, currency: Currency },
    /// A stored offline payment was forwarded to the PSP.
    Forwarded { subject: Subject, state: PaymentState, declined: bool },
    /// A payment/refund reached a final answer (by reply, replay, search or event).
    Resolved { subject: Subject, state: SettledState, via: ResolvedVia },
    /// PSP reachability changed.
    Connectivity { online: bool },
    /// Something needs a human: idempotency mismatch (a bug), auth/config error,
    /// a decline after forwarding an offline payment.
    /// `code` says which (the screen words it in its own language); `message` is the
    /// engine's English detail, for the log.
    Alarm { subject: Option<Subject>, code: AlarmCode, message: String },
}

/// Why a checkout moved to the background queue. Closed (issue #31): the screen and the
/// CLI read it as the engine's English words ([`BackgroundReason::words`], serialized the
/// same, as before), and code that must tell the cases apart matches the variant.
#[derive(Debug, Clone, PartialEq)]
pub enum BackgroundReason {
    /// The interactive attempts ended on a failure retried later with the same key.
    Retry(RetryReason),
    /// The PSP's search does not show the payment yet (search results lag): it is
    /// searched again after `wait_s` seconds.
    SearchNotConclusive { wait_s: i64 },
}

impl BackgroundReason {
    /// The case, as a stable word (for logs and matching, not shown).
    pub const fn as_str(&self) -> &'static str {
        match self {
            BackgroundReason::Retry(_) => "retry",
            BackgroundReason::SearchNotConclusive { .. } => "search_not_conclusive",
        }
    }

    /// What the cashier reads (English; the app puts it inside its own sentence).
    pub fn words(&self) -> String {
        match self {
            BackgroundReason::Retry(r) => r.words(),
            BackgroundReason::SearchNotConclusive { wait_s } => {
                format!("the processor's search does not show it yet; checking again in {wait_s} s")
            }
        }
    }
}

impl std::fmt::Display for BackgroundReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words())
    }
}

impl Serialize for BackgroundReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.words())
    }
}

/// Declares [`ResolvedVia`], its `ALL` and its words from one list (`ALL` cannot leave
/// one out).
macro_rules! resolved_via {
    ($($(#[$doc:meta])* $v:ident => $s:literal,)*) => {
        /// How a payment or refund reached its final answer. Closed (issue #31): the app
        /// words each case by an exhaustive match; serialized (and stored as a
        /// settlement's `via`) as the words the engine used when it was a string.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ResolvedVia {
            $($(#[$doc])* $v,)*
        }

        impl ResolvedVia {
            pub const ALL: &'static [ResolvedVia] = &[$(ResolvedVia::$v,)*];

            /// The words stored and sent.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ResolvedVia::$v => $s,)*
                }
            }
        }
    };
}

resolved_via! {
    /// The PSP's answer to the request.
    Reply => "reply",
    /// The PSP replayed its first answer (same key).
    Replay => "replay",
    /// The PSP declined the card.
    Declined => "declined",
    /// The PSP refused the request before executing it.
    Rejected => "rejected",
    /// Found (or proven absent) by searching the PSP.
    Search => "search",
    /// A PSP event.
    Event => "event",
    /// The PSP's answer to a capture.
    Capture => "capture",
    /// The PSP's answer to a cancel.
    Cancel => "cancel",
    /// A capture answered with the stored first response.
    CaptureReplay => "capture replay",
    /// A cancel answered with the stored first response.
    CancelReplay => "cancel replay",
    /// The intent read after a capture that got no clear answer.
    CaptureCheck => "capture check",
    /// The intent read after a cancel that got no clear answer.
    CancelCheck => "cancel check",
    /// A reader payment read by the background poll.
    ReaderPoll => "poll",
    /// A reader payment read on the cashier's "Check status".
    ReaderCheckStatus => "check status",
    /// A reader payment read by recovery at start.
    ReaderRecovery => "recovery",
    /// A reader payment read before presenting the card again.
    ReaderBeforePresentingAgain => "before presenting again",
    /// A reader payment read after a cancel on the reader.
    ReaderAfterCancel => "after cancel",
    /// A reader payment read after its intent was canceled.
    ReaderAfterIntentCancel => "after cancel of the intent",
}

impl std::fmt::Display for ResolvedVia {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResolvedVia {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
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

    /// The closed reasons and ways travel as the same words the strings had (issue #31).
    #[test]
    fn background_reason_and_via_serialize_as_before() {
        let n = Notification::MovedToBackground {
            subject: Subject::Checkout("k".into()),
            reason: BackgroundReason::SearchNotConclusive { wait_s: 12 },
        };
        let v = serde_json::to_value(&n).unwrap();
        assert_eq!(v["reason"], "the processor's search does not show it yet; checking again in 12 s");
        let r = BackgroundReason::Retry(RetryReason::RateLimited);
        assert_eq!((serde_json::to_value(&r).unwrap(), r.as_str()), (serde_json::json!("processor busy (rate limited); waiting"), "retry"));
        let words: std::collections::HashSet<&str> = ResolvedVia::ALL.iter().map(|v| v.as_str()).collect();
        assert_eq!(words.len(), ResolvedVia::ALL.len(), "a via's words are its own");
        for via in ResolvedVia::ALL {
            let n = Notification::Resolved { subject: Subject::Checkout("k".into()), state: SettledState::Payment(PaymentState::Captured), via: *via };
            assert_eq!(serde_json::to_value(&n).unwrap()["via"], via.as_str());
        }
        assert_eq!(ResolvedVia::CaptureCheck.as_str(), "capture check");
    }
}
