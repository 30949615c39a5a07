//! The payments screen: one row per payment, one payment's detail (refundable
//! amount, refunds) and its timeline in the order things happened.

use paydesk_ledger::{Payment, Refund, TimelineEntry, TimelineKind};
use paydesk_domain::{PaymentState, RefundState};
use paydesk_register::PaymentView;
use serde::Serialize;

use super::{attempt_words, card_label, parse_state, state_tone, Tone};
use crate::wording::state_label;
use crate::i18n::{active, tr};
use crate::money;

/// What every view of one payment starts with: its key, when, how much, and its state
/// in the cashier's words.
#[derive(Debug, Clone, Serialize)]
pub struct PaymentHead {
    pub id: String,
    pub created_at: i64,
    pub amount: i64,
    pub amount_display: String,
    pub state: String,
    pub state_label: String,
}

impl PaymentHead {
    fn of(p: &Payment) -> PaymentHead {
        PaymentHead {
            id: p.idempotency_key.clone(),
            created_at: p.created_at_ms,
            amount: p.amount.amount_minor,
            amount_display: money::format(p.amount.amount_minor, p.amount.currency),
            state: p.state.as_str().into(),
            state_label: state_label(p.state),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PaymentRow {
    #[serde(flatten)]
    pub head: PaymentHead,
    /// How the state is shown (see [`state_tone`]).
    pub tone: Tone,
    pub attempts: u32,
    pub offline: bool,
}

impl PaymentRow {
    pub fn of(p: &Payment, attempts: u32) -> PaymentRow {
        PaymentRow { head: PaymentHead::of(p), tone: state_tone(p.state), attempts, offline: p.offline }
    }
}


#[derive(Debug, Clone, Serialize)]
pub struct TimelineView {
    pub at: i64,
    pub kind: TimelineKind,
    pub label: String,
    pub tone: Tone,
    pub latency_ms: Option<i64>,
    pub attempt: Option<i64>,
    pub replayed: bool,
}

/// A row's tone, by its kind: a transition takes its state's tone; other rows the tone
/// of their stored outcome word.
fn row_tone(t: &TimelineEntry, outcome: &str) -> Tone {
    if t.replayed {
        return Tone::Info;
    }
    match t.kind {
        // a transition's outcome is the payment state it moved to
        TimelineKind::Transition => parse_state(outcome).map_or_else(|| word_tone(outcome, Tone::Info), state_tone),
        TimelineKind::Attempt => word_tone(outcome, Tone::Warn),
        TimelineKind::Created | TimelineKind::PspResult | TimelineKind::Event | TimelineKind::Refund | TimelineKind::Note => {
            word_tone(outcome, Tone::Info)
        }
    }
}

/// The tone of a stored outcome word (an attempt's label, a refund's state, an event's
/// effect): only the colour it is drawn in.
fn word_tone(outcome: &str, otherwise: Tone) -> Tone {
    match outcome {
        "ok" | "captured" | "authorized" | "succeeded" | "refunded" | "partially_refunded" => Tone::Ok,
        "declined" | "failed" | "canceled" => Tone::Bad,
        _ => otherwise,
    }
}

fn timeline_view(t: &TimelineEntry, refunds: &[Refund]) -> TimelineView {
    let outcome = t.outcome.as_deref().unwrap_or("");
    let tone = row_tone(t, outcome);
    let refund_tag = t
        .refund_id
        .and_then(|id| refunds.iter().find(|r| r.id == id))
        .map(|r| tr!(active(), "timeline-refund-tag", amount = money::format(r.amount.amount_minor, r.amount.currency)))
        .unwrap_or_default();
    let label = match t.kind {
        TimelineKind::Attempt => {
            // The attempt's kind (its stored label) decides the words; a label this
            // version does not know is shown as the ledger holds it.
            let what = if t.replayed {
                tr!(active(), "timeline-replayed")
            } else {
                paydesk_register::AttemptKind::parse(outcome).map(attempt_words).unwrap_or_else(|_| t.detail.clone())
            };
            let attempt = tr!(active(), "timeline-attempt", n = t.attempt_no.unwrap_or(0), what = what);
            format!("{refund_tag}{attempt}")
        }
        TimelineKind::Transition => format!(
            "{refund_tag}{}",
            match parse_state(outcome) {
                Some(PaymentState::Authorizing) => tr!(active(), "timeline-sent"),
                Some(PaymentState::QueuedOffline) => tr!(active(), "timeline-offline"),
                Some(state) => state_label(state),
                None => outcome.to_string(),
            }
        ),
        TimelineKind::Event => tr!(active(), "timeline-event", detail = t.detail.clone()),
        // refund rows in a cashier's words (the ledger's detail reads "pending -> in_flight")
        TimelineKind::Refund => format!("{refund_tag}{}", refund_words(t, outcome)),
        TimelineKind::Created => tr!(active(), "timeline-created"),
        TimelineKind::PspResult | TimelineKind::Note => format!("{refund_tag}{}", t.detail),
    };
    TimelineView {
        at: t.at_ms,
        kind: t.kind,
        label,
        tone,
        latency_ms: t.latency_ms,
        attempt: t.attempt_no,
        replayed: t.replayed,
    }
}

/// A refund row in a cashier's words, by the refund state it records (the ledger's
/// detail reads "pending -> in_flight"); a state this version does not know, as stored.
fn refund_words(t: &TimelineEntry, outcome: &str) -> String {
    if outcome.is_empty() {
        return tr!(active(), "timeline-refund-committed");
    }
    match outcome.parse::<RefundState>() {
        Ok(RefundState::Pending) => tr!(active(), "timeline-refund-committed"),
        Ok(RefundState::InFlight) => tr!(active(), "timeline-refund-sent"),
        Ok(RefundState::Succeeded) => tr!(active(), "timeline-refund-succeeded"),
        Ok(RefundState::Failed) => tr!(active(), "timeline-refund-failed"),
        Err(_) => t.detail.clone(),
    }
}

/// A row that says a request left for the processor: the payment's move to
/// `authorizing`, or a refund's move to `in_flight`.
fn is_send(t: &TimelineEntry) -> bool {
    let outcome = t.outcome.as_deref().unwrap_or("");
    match t.kind {
        TimelineKind::Transition => parse_state(outcome) == Some(PaymentState::Authorizing),
        TimelineKind::Refund => outcome.parse::<RefundState>().ok() == Some(RefundState::InFlight),
        TimelineKind::Created | TimelineKind::Attempt | TimelineKind::PspResult | TimelineKind::Event | TimelineKind::Note => false,
    }
}

/// The payment's timeline in the order things happened: by time, then by sequence
/// (row id), `created` first and a send before the attempts it started on a tie.
///
/// The ledger stamps an attempt with the moment it started but commits the "sent to
/// the processor" row together with the answer (one commit per checkout phase), so
/// by its own stamp that row would come after the attempts it describes. It is shown
/// at the start of the first attempt it covers — when the request actually left.
pub fn timeline(entries: &[TimelineEntry], refunds: &[Refund]) -> Vec<TimelineView> {
    let boundary = |t: &TimelineEntry| matches!(t.kind, TimelineKind::Transition | TimelineKind::Refund | TimelineKind::Created);
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
                    .filter(|o| o.kind == TimelineKind::Attempt && o.refund_id == t.refund_id && o.at_ms >= since && o.at_ms <= t.at_ms)
                    .map(|o| o.at_ms)
                    .min()
                {
                    at = first;
                }
            }
            // `created` first, then a send before the attempts it started on a tie
            let rank = if t.kind == TimelineKind::Created {
                0
            } else if is_send(t) {
                1
            } else {
                2
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
    #[serde(flatten)]
    pub head: PaymentHead,
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
    /// Part of the payment pays another sale through an exchange credit (record 0158): why
    /// "up to" is less than what is left, and how that part can still go back.
    pub held_note: Option<String>,
    /// The sale this payment paid for (its receipt can be printed again).
    pub cart_id: Option<i64>,
    pub refunds: Vec<RefundRow>,
    pub timeline: Vec<TimelineView>,
}

impl PaymentDetail {
    pub fn of(v: &PaymentView) -> PaymentDetail {
        let p = &v.payment;
        let cur = p.amount.currency;
        // The ledger's own bound for a refund by hand (record 0160): what "Refund all" sends
        // (zero when nothing is captured).
        let refundable = v.room.refundable_minor;
        let held_note = (v.room.held_minor > 0).then(|| tr!(active(), "refund-held-by-exchange", amount = money::format(v.room.held_minor, cur)));
        let refund_note = match p.state {
            PaymentState::QueuedOffline => Some(tr!(active(), "refund-note-offline")),
            PaymentState::Failed | PaymentState::Canceled => Some(tr!(active(), "refund-note-not-charged")),
            PaymentState::Refunded => Some(tr!(active(), "refund-note-refunded")),
            PaymentState::Created | PaymentState::Authorizing | PaymentState::OnReader => {
                Some(tr!(active(), "refund-note-unknown"))
            }
            PaymentState::Authorized
            | PaymentState::Capturing
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded => None,
        };
        PaymentDetail {
            head: PaymentHead::of(p),
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
            held_note,
            cart_id: p.cart_id.map(|c| c.0),
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
            kind: kind.parse().expect("a timeline kind"),
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
        let order: Vec<String> = tl.iter().map(|t| format!("{}@{}", t.kind.as_str(), t.at)).collect();
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

    /// A transition is shown in its state's tone and words (the same as the
    /// payments list); text the ledger does not know is shown as it is.
    #[test]
    fn transitions_take_the_tone_and_words_of_their_state() {
        for s in PaymentState::ALL {
            let tl = timeline(&[row(1, 1_000, "transition", Some(s.as_str()), None, None)], &[]);
            assert_eq!(tl[0].tone, state_tone(s), "{s}");
        }
        let tl = timeline(&[row(1, 1_000, "transition", Some("refunded"), None, None)], &[]);
        assert_eq!((tl[0].label.as_str(), tl[0].tone), ("Refunded", Tone::Info));
        let tl = timeline(&[row(1, 1_000, "transition", Some("mystery"), None, None)], &[]);
        assert_eq!((tl[0].label.as_str(), tl[0].tone), ("mystery", Tone::Info));
    }
}
