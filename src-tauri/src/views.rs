//! What the screen shows, built from the engine's reports and the ledger's rows.
//! Amounts stay integer minor units; `*_display` strings are formatted here.

use paydesk_ledger::{Payment, PaymentState, Refund, TimelineEntry};
use paydesk_register::{CheckoutOutcome, CheckoutReport, Notification, PaymentView, Subject};
use serde::Serialize;

use crate::catalog::{CartLine, CartView};
use crate::money;

pub fn state_label(state: &str) -> &'static str {
    match state {
        "created" => "Starting",
        "queued_offline" => "Offline, waiting to forward",
        "authorizing" => "Outcome unknown, checking",
        "authorized" => "Authorized",
        "capturing" => "Capturing",
        "captured" => "Paid",
        "failed" => "Declined",
        "canceled" => "Canceled",
        "refunding" => "Refund in progress",
        "partially_refunded" => "Partly refunded",
        "refunded" => "Refunded",
        _ => "Unknown",
    }
}

fn card_label(pm: Option<&str>) -> String {
    match pm {
        Some("pm_card_visa") => "Visa ending 4242".into(),
        Some("pm_card_mastercard") => "Mastercard ending 4444".into(),
        Some(p) if p.contains("Declined") || p.contains("declined") => "Test card (declines)".into(),
        Some(p) => p.trim_start_matches("pm_card_").replace('_', " "),
        None => "Card".into(),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    pub at: i64,
    pub lines: Vec<CartLine>,
    pub total: i64,
    pub total_display: String,
    pub card_label: String,
    pub status_label: String,
    pub checkout_key: String,
    pub psp_payment_id: Option<String>,
}

/// The result of a charge-like command.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeView {
    /// approved | accepted_offline | declined | failed | unknown | authorized
    pub kind: &'static str,
    pub checkout_key: String,
    pub state: String,
    pub attempts: u32,
    pub replayed: bool,
    pub message: String,
    pub note: Option<String>,
    pub receipt: Receipt,
    pub cart: CartView,
}

impl OutcomeView {
    pub fn build(r: &CheckoutReport, payment: &Payment, cart: CartView) -> OutcomeView {
        let kind = match r.outcome {
            CheckoutOutcome::Paid | CheckoutOutcome::Refunded => "approved",
            CheckoutOutcome::Authorized => "authorized",
            CheckoutOutcome::QueuedOffline => "accepted_offline",
            CheckoutOutcome::Declined | CheckoutOutcome::Canceled => "declined",
            CheckoutOutcome::Failed => "failed",
            CheckoutOutcome::Pending => "unknown",
        };
        let decline_msg = r
            .message
            .as_deref()
            .map(|m| m.trim_start_matches("declined: ").to_string())
            .unwrap_or_else(|| "the card was declined".into());
        let message = match kind {
            "declined" => decline_msg,
            "failed" => r.message.clone().unwrap_or_else(|| "The processor refused the request.".into()),
            "unknown" => r
                .message
                .clone()
                .unwrap_or_else(|| "The processor has not answered definitively yet.".into()),
            _ => String::new(),
        };
        let note = if r.replayed {
            Some(format!(
                "The card was charged once. After {} attempts with the same key the processor replayed its first answer, so there is no second charge.",
                r.attempts
            ))
        } else if r.attempts > 1 {
            Some(format!("Charged once, after {} attempts with the same key.", r.attempts))
        } else {
            None
        };
        let cur = &r.currency;
        OutcomeView {
            kind,
            checkout_key: r.checkout_key.clone(),
            state: r.state.as_str().to_string(),
            attempts: r.attempts,
            replayed: r.replayed,
            message,
            note,
            receipt: Receipt {
                at: payment.updated_at_ms,
                lines: cart.lines.clone(),
                total: r.amount,
                total_display: money::format(r.amount, cur),
                card_label: card_label(payment.request_params.get("payment_method")),
                status_label: match kind {
                    "accepted_offline" => "APPROVED OFFLINE".into(),
                    "approved" => "APPROVED".into(),
                    "authorized" => "AUTHORIZED".into(),
                    "declined" => "DECLINED".into(),
                    "failed" => "NOT CHARGED".into(),
                    _ => "PENDING".into(),
                },
                checkout_key: r.checkout_key.clone(),
                psp_payment_id: r.psp_payment_id.clone(),
            },
            cart,
        }
    }
}

// ---------------------------------------------------------------- progress events

/// One line of live progress for the checkout panel (event `checkout-progress`).
#[derive(Debug, Clone, Serialize)]
pub struct ProgressView {
    pub key: String,
    pub attempt: Option<u32>,
    pub kind: &'static str,
    pub tone: &'static str,
    pub message: String,
    pub at: i64,
}

/// A payment changed in the background (event `payment-updated`).
#[derive(Debug, Clone, Serialize)]
pub struct PaymentUpdate {
    pub key: Option<String>,
    pub message: String,
    pub loud: bool,
}

pub enum Forward {
    Progress(ProgressView),
    Update(PaymentUpdate),
    Connectivity(bool),
    Nothing,
}

fn short(key: &str) -> &str {
    &key[..key.len().min(8)]
}

/// Engine notification → what the screen shows.
pub fn forward(n: &Notification, now: i64) -> Forward {
    let checkout_key = |s: &Subject| match s {
        Subject::Checkout(k) => Some(k.clone()),
        _ => None,
    };
    let p = |s: &Subject, attempt: Option<u32>, kind, tone, message: String| match checkout_key(s) {
        Some(key) => Forward::Progress(ProgressView { key, attempt, kind, tone, message, at: now }),
        None => Forward::Nothing,
    };
    match n {
        Notification::AttemptStarted { subject, attempt } => p(
            subject,
            Some(*attempt),
            "attempt",
            "info",
            format!("Attempt {attempt}: sending to the processor with key {}…", short(subject.key())),
        ),
        Notification::AttemptOutcome { subject, attempt, outcome, message, latency_ms } => {
            let tone = match outcome.as_str() {
                "ok" | "replayed" => "ok",
                "declined" => "bad",
                o if o.starts_with("psp_") || o == "idempotency_error" => "bad",
                _ => "warn",
            };
            if outcome == "replayed" {
                // the Replayed notification that follows says it in full
                return Forward::Nothing;
            }
            p(subject, Some(*attempt), "outcome", tone, format!("{} ({latency_ms} ms)", capitalize(message)))
        }
        Notification::BackingOff { subject, attempt, delay_ms, .. } => p(
            subject,
            Some(*attempt),
            "backoff",
            "info",
            format!("Waiting {:.1} s, then retrying with the same key.", *delay_ms as f64 / 1000.0),
        ),
        Notification::Replayed { subject, attempt } => p(
            subject,
            Some(*attempt),
            "replayed",
            "ok",
            "Already charged — replayed: the processor returned its first answer, so there is no second charge.".into(),
        ),
        Notification::MovedToBackground { subject, reason } => p(
            subject,
            None,
            "background",
            "warn",
            format!("Still no definitive answer ({reason}). The register keeps checking in the background with the same key."),
        ),
        Notification::QueuedOffline { subject, amount, currency } => p(
            subject,
            None,
            "offline",
            "warn",
            format!(
                "Processor unreachable: {} accepted offline. It will be forwarded with the same key when the processor is back.",
                money::format(*amount, currency)
            ),
        ),
        Notification::Forwarded { subject, state, declined } => Forward::Update(PaymentUpdate {
            key: Some(subject.key().to_string()),
            loud: *declined,
            message: if *declined {
                format!("An offline payment ({}…) was DECLINED when forwarded. Collect payment another way.", short(subject.key()))
            } else {
                format!("Offline payment {}… forwarded: {}.", short(subject.key()), state_label(state.as_str()).to_lowercase())
            },
        }),
        Notification::Resolved { subject, state, via } => match checkout_key(subject) {
            Some(key) => Forward::Progress(ProgressView {
                key,
                attempt: None,
                kind: "resolved",
                tone: if matches!(state.as_str(), "captured" | "authorized") { "ok" } else { "bad" },
                message: format!(
                    "{} ({}).",
                    state_label(state.as_str()),
                    match via.as_str() {
                        "replay" => "confirmed by the processor's replay",
                        "search" => "confirmed by searching the processor's records",
                        "event" => "confirmed by a processor event",
                        _ => "the processor answered",
                    }
                ),
                at: now,
            }),
            None => Forward::Update(PaymentUpdate { key: None, message: format!("Refund {}.", state), loud: false }),
        },
        Notification::Connectivity { online } => Forward::Connectivity(*online),
        Notification::Alarm { subject, message, .. } => Forward::Update(PaymentUpdate {
            key: subject.as_ref().map(|s| s.key().to_string()),
            message: message.clone(),
            loud: true,
        }),
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------- payments list

#[derive(Debug, Clone, Serialize)]
pub struct PaymentRow {
    pub id: String,
    pub created_at: i64,
    pub amount: i64,
    pub amount_display: String,
    pub state: String,
    pub state_label: &'static str,
    pub attempts: u32,
    pub offline: bool,
}

impl PaymentRow {
    pub fn of(p: &Payment, attempts: u32) -> PaymentRow {
        PaymentRow {
            id: p.idempotency_key.clone(),
            created_at: p.created_at_ms,
            amount: p.amount.amount_minor,
            amount_display: money::format(p.amount.amount_minor, p.amount.currency.code()),
            state: p.state.as_str().into(),
            state_label: state_label(p.state.as_str()),
            attempts,
            offline: p.offline,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TimelineView {
    pub at: i64,
    pub kind: String,
    pub label: String,
    pub tone: &'static str,
    pub latency_ms: Option<i64>,
    pub attempt: Option<i64>,
    pub replayed: bool,
}

fn timeline_view(t: &TimelineEntry, refunds: &[Refund]) -> TimelineView {
    let outcome = t.outcome.as_deref().unwrap_or("");
    let tone = if t.replayed {
        "info"
    } else {
        match (t.kind.as_str(), outcome) {
            (_, "ok" | "captured" | "authorized" | "succeeded" | "refunded" | "partially_refunded") => "ok",
            (_, "declined" | "failed" | "canceled") => "bad",
            ("attempt", _) => "warn",
            ("transition", "queued_offline" | "authorizing") => "warn",
            _ => "info",
        }
    };
    let refund_tag = t
        .refund_id
        .and_then(|id| refunds.iter().find(|r| r.id == id))
        .map(|r| format!("Refund {}: ", money::format(r.amount.amount_minor, r.amount.currency.code())))
        .unwrap_or_default();
    let label = match t.kind.as_str() {
        "attempt" => format!(
            "{refund_tag}Attempt {}: {}",
            t.attempt_no.unwrap_or(0),
            if t.replayed { "replayed — already done, not charged again".into() } else { t.detail.clone() }
        ),
        "transition" => format!(
            "{refund_tag}{}",
            match outcome {
                "authorizing" => "Sent to the processor",
                "queued_offline" => "Accepted offline (processor unreachable)",
                o => state_label(o),
            }
        ),
        "event" => format!("Processor event: {}", t.detail),
        // refund rows in a cashier's words (the ledger's detail reads "pending -> in_flight")
        "refund" => format!(
            "{refund_tag}{}",
            match outcome {
                "" | "pending" => "key committed before sending".to_string(),
                "in_flight" => "sent to the processor".to_string(),
                "succeeded" => "refunded".to_string(),
                "failed" => "failed, nothing refunded".to_string(),
                "canceled" => "canceled".to_string(),
                _ => t.detail.clone(),
            }
        ),
        "created" => "Key committed before sending".into(),
        _ => format!("{refund_tag}{}", t.detail),
    };
    TimelineView {
        at: t.at_ms,
        kind: t.kind.clone(),
        label,
        tone,
        latency_ms: t.latency_ms,
        attempt: t.attempt_no,
        replayed: t.replayed,
    }
}

/// A row that says a request left for the processor: the payment's move to
/// `authorizing`, or a refund's move to `in_flight`.
fn is_send(t: &TimelineEntry) -> bool {
    matches!((t.kind.as_str(), t.outcome.as_deref()), ("transition", Some("authorizing")) | ("refund", Some("in_flight")))
}

/// The payment's timeline in the order things happened: by time, then by sequence
/// (row id), `created` first and a send before the attempts it started on a tie.
///
/// The ledger stamps an attempt with the moment it started but commits the "sent to
/// the processor" row together with the answer (one commit per checkout phase), so
/// by its own stamp that row would come after the attempts it describes. It is shown
/// at the start of the first attempt it covers — when the request actually left.
pub fn timeline(entries: &[TimelineEntry], refunds: &[Refund]) -> Vec<TimelineView> {
    let boundary = |t: &TimelineEntry| matches!(t.kind.as_str(), "transition" | "refund" | "created");
    let mut rows: Vec<(i64, u8, i64, TimelineView)> = entries
        .iter()
        .map(|t| {
            let mut at = t.at_ms;
            if is_send(t) {
                // the previous state change of the same subject bounds the attempts this send covers
                let since = entries
                    .iter()
                    .filter(|o| o.id != t.id && o.refund_id == t.refund_id && boundary(o) && o.at_ms < t.at_ms)
                    .map(|o| o.at_ms)
                    .max()
                    .unwrap_or(i64::MIN);
                if let Some(first) = entries
                    .iter()
                    .filter(|o| o.kind == "attempt" && o.refund_id == t.refund_id && o.at_ms >= since && o.at_ms <= t.at_ms)
                    .map(|o| o.at_ms)
                    .min()
                {
                    at = first;
                }
            }
            let rank = match t.kind.as_str() {
                "created" => 0,
                _ if is_send(t) => 1,
                _ => 2,
            };
            let mut view = timeline_view(t, refunds);
            view.at = at;
            (at, rank, t.id, view)
        })
        .collect();
    rows.sort_by_key(|(at, rank, id, _)| (*at, *rank, *id));
    rows.into_iter().map(|(.., v)| v).collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct RefundRow {
    pub key: String,
    pub amount_display: String,
    pub state: String,
    pub psp_refund_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PaymentDetail {
    pub id: String,
    pub created_at: i64,
    pub amount: i64,
    pub amount_display: String,
    pub state: String,
    pub state_label: &'static str,
    pub checkout_key: String,
    pub psp_payment_id: Option<String>,
    pub card_label: String,
    pub offline: bool,
    pub refunded: i64,
    pub refunded_display: String,
    pub refundable: i64,
    pub refundable_display: String,
    /// The refundable amount as it would be typed ("12.50").
    pub refundable_display_plain: String,
    pub refund_note: Option<String>,
    pub refunds: Vec<RefundRow>,
    pub timeline: Vec<TimelineView>,
}

impl PaymentDetail {
    pub fn of(v: &PaymentView) -> PaymentDetail {
        let p = &v.payment;
        let cur = p.amount.currency.code();
        let reserved: i64 = v.refunds.iter().filter(|r| r.state.reserves_amount()).map(|r| r.amount.amount_minor).sum();
        let refundable = if p.state.is_refundable() { (p.amount.amount_minor - reserved).max(0) } else { 0 };
        let refund_note = match p.state {
            PaymentState::QueuedOffline => Some("Accepted offline: it can be refunded once it is forwarded.".into()),
            PaymentState::Failed | PaymentState::Canceled => Some("Nothing was charged, so nothing to refund.".into()),
            PaymentState::Refunded => Some("Fully refunded.".into()),
            PaymentState::Created | PaymentState::Authorizing => {
                Some("The outcome is not known yet; refunds are possible once it is.".into())
            }
            _ => None,
        };
        PaymentDetail {
            id: p.idempotency_key.clone(),
            created_at: p.created_at_ms,
            amount: p.amount.amount_minor,
            amount_display: money::format(p.amount.amount_minor, cur),
            state: p.state.as_str().into(),
            state_label: state_label(p.state.as_str()),
            checkout_key: p.idempotency_key.clone(),
            psp_payment_id: p.psp_payment_id.clone(),
            card_label: card_label(p.request_params.get("payment_method")),
            offline: p.offline,
            refunded: p.refunded_minor,
            refunded_display: money::format(p.refunded_minor, cur),
            refundable,
            refundable_display: money::format(refundable, cur),
            refundable_display_plain: money::plain(refundable, cur),
            refund_note,
            refunds: v
                .refunds
                .iter()
                .map(|r| RefundRow {
                    key: r.idempotency_key.clone(),
                    amount_display: money::format(r.amount.amount_minor, cur),
                    state: r.state.as_str().into(),
                    psp_refund_id: r.psp_refund_id.clone(),
                })
                .collect(),
            timeline: timeline(&v.timeline, &v.refunds),
        }
    }
}

// ---------------------------------------------------------------- end of day

#[derive(Debug, Clone, Serialize)]
pub struct Sale {
    pub at: i64,
    pub amount: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub currency: String,
    /// For amounts the UI sums itself (sales per hour, chart axes).
    pub money: money::MoneyFormat,
    pub since: i64,
    pub gross: i64,
    pub gross_display: String,
    pub refunds: i64,
    pub refunds_display: String,
    pub net: i64,
    pub net_display: String,
    pub payment_count: u32,
    pub pending_count: u32,
    pub pending: i64,
    pub pending_display: String,
    pub declined_count: u32,
    /// Attempts the PSP answered with its stored first response (replays) or
    /// turned away because the first was still running (409): each would have been
    /// a second charge without the idempotency key.
    pub duplicates_prevented: u32,
    /// Captured sales, for the per-hour chart (binned by the UI in local time).
    pub sales: Vec<Sale>,
}

pub struct ReportInput<'a> {
    pub payments: &'a [Payment],
    /// (payment index, timeline) for each payment
    pub timelines: &'a [Vec<TimelineEntry>],
    pub since: i64,
    pub currency: &'a str,
}

pub fn report(inp: ReportInput<'_>) -> ReportView {
    let cur = inp.currency;
    let (mut gross, mut refunds, mut pending, mut count, mut pending_count, mut declined, mut dupes) =
        (0i64, 0i64, 0i64, 0u32, 0u32, 0u32, 0u32);
    let mut sales = Vec::new();
    for (p, tl) in inp.payments.iter().zip(inp.timelines) {
        if p.created_at_ms < inp.since || !p.amount.currency.code().eq_ignore_ascii_case(cur) {
            continue;
        }
        dupes += tl
            .iter()
            .filter(|t| t.kind == "attempt" && (t.replayed || t.outcome.as_deref() == Some("in_progress_409")))
            .count() as u32;
        match p.state {
            PaymentState::Captured | PaymentState::Refunding | PaymentState::PartiallyRefunded | PaymentState::Refunded => {
                gross += p.amount.amount_minor;
                refunds += p.refunded_minor;
                count += 1;
                sales.push(Sale { at: p.created_at_ms, amount: p.amount.amount_minor });
            }
            PaymentState::QueuedOffline | PaymentState::Created | PaymentState::Authorizing | PaymentState::Authorized | PaymentState::Capturing => {
                pending += p.amount.amount_minor;
                pending_count += 1;
            }
            PaymentState::Failed => declined += 1,
            PaymentState::Canceled => {}
        }
    }
    ReportView {
        currency: cur.to_string(),
        money: money::MoneyFormat::of(cur),
        since: inp.since,
        gross,
        gross_display: money::format(gross, cur),
        refunds,
        refunds_display: money::format(refunds, cur),
        net: gross - refunds,
        net_display: money::format(gross - refunds, cur),
        payment_count: count,
        pending_count,
        pending,
        pending_display: money::format(pending, cur),
        declined_count: declined,
        duplicates_prevented: dupes,
        sales,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_ledger::PaymentId;

    fn row(id: i64, at: i64, kind: &str, outcome: Option<&str>, attempt: Option<i64>, refund: Option<i64>) -> TimelineEntry {
        TimelineEntry {
            id,
            payment_id: PaymentId(1),
            refund_id: refund.map(paydesk_ledger::RefundId),
            at_ms: at,
            kind: kind.into(),
            detail: format!("{kind} {id}"),
            outcome: outcome.map(String::from),
            latency_ms: attempt.map(|_| 30),
            replayed: false,
            attempt_no: attempt,
        }
    }

    /// As the ledger stores a checkout with a lost answer, a retry, then a refund:
    /// rows in commit order (id), attempts stamped with their start.
    #[test]
    fn timeline_is_in_time_order_then_sequence() {
        let entries = vec![
            row(1, 1_000, "created", None, None, None),
            // one commit after two attempts: attempts first, then the send, the result
            row(2, 1_020, "attempt", Some("connection_lost"), Some(1), None),
            row(3, 1_900, "attempt", Some("replayed"), Some(2), None),
            row(4, 2_000, "transition", Some("authorizing"), None, None),
            row(5, 2_000, "psp_result", None, None, None),
            row(6, 2_000, "transition", Some("captured"), None, None),
            // an event consumed later, but committed before the refund rows
            row(7, 5_000, "event", None, None, None),
            row(8, 3_000, "refund", Some("pending"), None, Some(1)),
            row(9, 3_010, "attempt", Some("ok"), Some(1), Some(1)),
            row(10, 3_050, "refund", Some("in_flight"), None, Some(1)),
            row(11, 3_050, "refund", Some("succeeded"), None, Some(1)),
        ];
        let tl = timeline(&entries, &[]);
        let order: Vec<String> = tl.iter().map(|t| format!("{}@{}", t.kind, t.at)).collect();
        assert_eq!(
            order,
            [
                "created@1000",
                "transition@1020", // sent: when attempt 1 left, before it
                "attempt@1020",
                "attempt@1900",
                "psp_result@2000",
                "transition@2000",
                "refund@3000",
                "refund@3010", // refund in flight: when its attempt left
                "attempt@3010",
                "refund@3050",
                "event@5000",
            ]
        );
        assert!(tl.windows(2).all(|w| w[0].at <= w[1].at), "non-decreasing times");
        assert_eq!(tl[1].label, "Sent to the processor");
    }

    /// An offline payment forwarded later: the forward's send is bounded by the
    /// move to queued_offline, so it is placed at the forward's first attempt.
    #[test]
    fn forwarded_offline_payment_sends_at_its_forward_attempt() {
        let entries = vec![
            row(1, 1_000, "created", None, None, None),
            row(2, 1_010, "attempt", Some("connection_refused"), Some(1), None),
            row(3, 1_100, "transition", Some("queued_offline"), None, None),
            row(4, 9_000, "attempt", Some("ok"), Some(2), None),
            row(5, 9_040, "transition", Some("authorizing"), None, None),
            row(6, 9_040, "transition", Some("captured"), None, None),
        ];
        let ids: Vec<i64> = timeline(&entries, &[]).iter().map(|t| t.at).collect();
        assert_eq!(ids, [1_000, 1_010, 1_100, 9_000, 9_000, 9_040]);
        let tl = timeline(&entries, &[]);
        assert_eq!(tl[3].label, "Sent to the processor");
        assert!(tl[4].label.starts_with("Attempt 2"));
    }
}
