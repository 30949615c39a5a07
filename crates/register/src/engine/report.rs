//! What the engine reports back: the checkout and refund reports, recovery and event
//! poll summaries, the status bar and a payment's detail view, and the reads that build
//! them (lists and views use a reader connection, never the writer).

use super::{Engine, EngineError, Result};
use crate::attempt::AttemptKind;
use paydesk_ledger::{Payment, Refund, TimelineEntry, TimelineKind};
use paydesk_domain::{PaymentState, RefundState};
use paydesk_domain::Currency;
use serde::Serialize;

/// How a checkout stands, in one word for the cashier's screen and the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckoutOutcome {
    /// Money captured.
    Paid,
    /// Authorized (manual capture).
    Authorized,
    /// Declined: "Try another card" (new key). Never charged, and never will be.
    Declined,
    /// Not a decline, and never charged: the PSP refused the request before executing
    /// it (wrong secret key, wrong URL, a rejected parameter). The payment is `failed`;
    /// after fixing the cause the cashier starts a new payment (new key).
    Failed,
    /// Outcome not known yet: the background queue continues with the same key.
    Pending,
    /// Accepted offline, waiting to be forwarded.
    QueuedOffline,
    /// Voided, or abandoned before anything was sent.
    Canceled,
    /// Refunded (fully or partly) after being paid.
    Refunded,
}

impl CheckoutOutcome {
    /// Every outcome (ui/contract.js lists them; `as_str` is exhaustive).
    pub const ALL: [CheckoutOutcome; 8] = [
        CheckoutOutcome::Paid,
        CheckoutOutcome::Authorized,
        CheckoutOutcome::Declined,
        CheckoutOutcome::Failed,
        CheckoutOutcome::Pending,
        CheckoutOutcome::QueuedOffline,
        CheckoutOutcome::Canceled,
        CheckoutOutcome::Refunded,
    ];

    /// The wire form (serialized the same).
    pub const fn as_str(self) -> &'static str {
        match self {
            CheckoutOutcome::Paid => "paid",
            CheckoutOutcome::Authorized => "authorized",
            CheckoutOutcome::Declined => "declined",
            CheckoutOutcome::Failed => "failed",
            CheckoutOutcome::Pending => "pending",
            CheckoutOutcome::QueuedOffline => "queued_offline",
            CheckoutOutcome::Canceled => "canceled",
            CheckoutOutcome::Refunded => "refunded",
        }
    }

    pub fn of(state: PaymentState) -> Self {
        match state {
            PaymentState::Captured => CheckoutOutcome::Paid,
            PaymentState::Authorized | PaymentState::Capturing => CheckoutOutcome::Authorized,
            PaymentState::Failed => CheckoutOutcome::Declined,
            PaymentState::Created | PaymentState::Authorizing | PaymentState::OnReader => CheckoutOutcome::Pending,
            PaymentState::QueuedOffline => CheckoutOutcome::QueuedOffline,
            PaymentState::Canceled => CheckoutOutcome::Canceled,
            PaymentState::Refunding | PaymentState::PartiallyRefunded | PaymentState::Refunded => {
                CheckoutOutcome::Refunded
            }
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CheckoutReport {
    pub checkout_key: String,
    pub state: PaymentState,
    pub outcome: CheckoutOutcome,
    pub psp_payment_id: Option<String>,
    /// HTTP attempts recorded for this key so far.
    pub attempts: u32,
    pub amount: i64,
    pub currency: Currency,
    /// Some attempt was answered with the PSP's stored first response.
    pub replayed: bool,
    /// Decline message or last error, for the screen.
    pub message: Option<String>,
    /// Why the interactive phase ended with a problem (an engine or PSP error code),
    /// when it did; the outcome says what that means for the money.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RefundReport {
    pub refund_key: String,
    pub checkout_key: String,
    pub state: RefundState,
    pub amount: i64,
    pub currency: Currency,
    pub psp_refund_id: Option<String>,
    pub attempts: u32,
    pub message: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RecoverReport {
    /// In-flight checkouts examined.
    pub examined: u32,
    pub resolved: u32,
    pub resolved_by_search: u32,
    pub still_pending: u32,
    pub forwarded: u32,
    pub declined_after_forward: u32,
    pub still_queued: u32,
    pub refunds_resolved: u32,
    pub refunds_pending: u32,
    pub captures_resolved: u32,
    /// Sale cancels found unconfirmed and driven again (record 0031).
    pub sale_cancels_resumed: u32,
    /// Of those, now `canceled`.
    pub sale_cancels_completed: u32,
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct EventsReport {
    pub fetched: u32,
    pub applied: u32,
    pub duplicates: u32,
    pub pages: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EngineStatus {
    pub psp_online: Option<bool>,
    pub queued_offline: u32,
    pub in_flight: u32,
    pub last_sync_ms: Option<i64>,
}

/// A payment with its timeline and refunds (the payments list's detail view).
#[derive(Debug, Clone, Serialize)]
pub struct PaymentView {
    pub payment: Payment,
    pub timeline: Vec<TimelineEntry>,
    pub refunds: Vec<Refund>,
    /// What a refund by hand may give back now, and what exchange credits hold (record
    /// 0160): the figure "Refund all" sends.
    pub room: paydesk_ledger::RefundRoom,
}

impl Engine {
    pub(super) fn report(&self, p: &Payment) -> Result<CheckoutReport> {
        let tl = self.with_ledger(|l| l.payments().timeline(p.id))?;
        let attempts = tl.iter().filter(|t| t.kind == TimelineKind::Attempt && t.refund_id.is_none()).count();
        let replayed = tl.iter().any(|t| t.replayed && t.refund_id.is_none());
        let (outcome, error_code) = failed_or_declined(p.state, &tl);
        Ok(CheckoutReport {
            checkout_key: p.idempotency_key.clone(),
            state: p.state,
            outcome,
            psp_payment_id: p.psp_payment_id.clone(),
            attempts: attempts as u32,
            amount: p.amount.amount_minor,
            currency: p.amount.currency,
            replayed,
            message: p.last_error.clone(),
            error_code,
        })
    }

    pub(super) fn report_key(&self, key: &str) -> Result<CheckoutReport> {
        let p = self.payment(key)?;
        self.report(&p)
    }

    /// A payment's current report.
    pub fn status_of(&self, key: &str) -> Result<CheckoutReport> {
        self.report_key(key)
    }

    /// Newest first (a reader connection: never waits behind a checkout's commit).
    pub fn list_payments(&self, limit: i64, offset: i64) -> Result<Vec<Payment>> {
        Ok(self.with_reader(|l| l.payments().list(limit, offset))?)
    }

    /// One payment with its timeline and refunds, read together on one reader (one
    /// consistent snapshot per statement; never behind a checkout's commit).
    pub fn payment_view(&self, key: &str) -> Result<PaymentView> {
        self.with_reader(|l| {
            let payment = l.payments().by_key(key)?.ok_or_else(|| EngineError::UnknownPayment(key.to_string()))?;
            let timeline = l.payments().timeline(payment.id)?;
            let refunds = l.refunds().for_payment(payment.id)?;
            let room = l.refunds().room(payment.id)?;
            Ok(PaymentView { payment, timeline, refunds, room })
        })
    }

    pub fn status(&self) -> Result<EngineStatus> {
        let q = self.with_ledger(|l| l.payments().offline_queue())?.len() as u32;
        let f = self.with_ledger(|l| l.payments().needing_recovery())?.len() as u32;
        Ok(EngineStatus {
            psp_online: *self.inner.online.lock(),
            queued_offline: q,
            in_flight: f,
            last_sync_ms: *self.inner.last_sync_ms.lock(),
        })
    }
}

/// A `failed` payment read back (`current_checkout` after a late "resolved" event, a
/// second "charge" on the same sale, the payments list):
/// its state alone cannot say whether a card was declined or the PSP refused the request
/// before running it (wrong key or URL, a rejected parameter). The last attempt's label
/// in the timeline can, so the cashier is told the same as when it happened — "Not
/// charged: check the settings", never "Declined" for a card nobody looked at. CI saw
/// it under load: the "resolved" event came after the charge's answer, the screen read
/// the sale again and turned "Not charged" into "Declined".
fn failed_or_declined(state: PaymentState, tl: &[paydesk_ledger::TimelineEntry]) -> (CheckoutOutcome, Option<String>) {
    if state != PaymentState::Failed {
        return (CheckoutOutcome::of(state), None);
    }
    let last = tl
        .iter()
        .rev()
        .filter(|t| t.kind == TimelineKind::Attempt && t.refund_id.is_none())
        .find_map(|t| t.outcome.as_deref().and_then(|o| AttemptKind::parse(o).ok()));
    match last {
        Some(k @ (AttemptKind::BadRequest | AttemptKind::Auth | AttemptKind::NotFound | AttemptKind::Config | AttemptKind::Unexpected | AttemptKind::NotAPsp)) => {
            (CheckoutOutcome::Failed, Some(k.label().to_string()))
        }
        Some(
            AttemptKind::Ok
            | AttemptKind::Replayed
            | AttemptKind::Declined
            | AttemptKind::ConnectionRefused
            | AttemptKind::ConnectTimeout
            | AttemptKind::Timeout
            | AttemptKind::ConnectionLost
            | AttemptKind::AnswerTooLarge
            | AttemptKind::TransportError
            | AttemptKind::InProgress
            | AttemptKind::RateLimited
            | AttemptKind::Unavailable
            | AttemptKind::ServerError
            | AttemptKind::ReplayedServerError
            | AttemptKind::IdempotencyError,
        )
        | None => (CheckoutOutcome::Declined, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::{Notification, SettledState, Subject};

    /// Typed states serialize to the same snake_case words as before (the CLI's JSON).
    #[test]
    fn states_serialize_as_their_names() {
        let r = CheckoutReport {
            checkout_key: "k".into(),
            state: PaymentState::QueuedOffline,
            outcome: CheckoutOutcome::QueuedOffline,
            psp_payment_id: None,
            attempts: 0,
            amount: 100,
            currency: Currency::Jpy,
            replayed: false,
            message: None,
            error_code: None,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!((v["state"].as_str(), v["outcome"].as_str()), (Some("queued_offline"), Some("queued_offline")));
        let rr = RefundReport {
            refund_key: "k-r".into(),
            checkout_key: "k".into(),
            state: RefundState::InFlight,
            amount: 1,
            currency: Currency::Jpy,
            psp_refund_id: None,
            attempts: 1,
            message: None,
        };
        assert_eq!(serde_json::to_value(&rr).unwrap()["state"], "in_flight");
        // The currency is the domain type, still "jpy" on the wire (the CLI prints these).
        assert_eq!((v["currency"].as_str(), serde_json::to_value(&rr).unwrap()["currency"].as_str()), (Some("jpy"), Some("jpy")));
        let n = Notification::Resolved {
            subject: Subject::Refund("k-r".into()),
            state: SettledState::Refund(RefundState::Succeeded),
            via: crate::notify::ResolvedVia::Reply,
        };
        assert_eq!(serde_json::to_value(&n).unwrap()["state"], "succeeded");
        let n = Notification::Resolved {
            subject: Subject::Checkout("k".into()),
            state: SettledState::Payment(PaymentState::PartiallyRefunded),
            via: crate::notify::ResolvedVia::Event,
        };
        assert_eq!(serde_json::to_value(&n).unwrap()["state"], "partially_refunded");
    }
}
