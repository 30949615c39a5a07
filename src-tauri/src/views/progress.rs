//! Engine notifications → what the screen shows while it happens: lines of live
//! progress in the checkout panel, and background changes to a payment (offline
//! payments forwarded, refunds resolved, alarms).

use paydesk_register::{AttemptKind, Notification, ResolvedVia, SettledState, Subject};
use serde::Serialize;

use super::{attempt_tone, attempt_words, state_tone, Tone};
use crate::wording::{alarm_words, state_label};
use crate::i18n::{active, id, t, tr};
use crate::money;

wire_enum! {
    /// What one line of live progress says happened (the UI styles by it, and refreshes
    /// the sale on `resolved`).
    pub enum ProgressKind {
        Attempt => "attempt",
        Outcome => "outcome",
        Backoff => "backoff",
        Replayed => "replayed",
        Background => "background",
        Offline => "offline",
        Resolved => "resolved",
    }
}

/// One line of live progress for the checkout panel (event `checkout-progress`).
#[derive(Debug, Clone, Serialize)]
pub struct ProgressView {
    pub key: String,
    pub attempt: Option<u32>,
    pub kind: ProgressKind,
    pub tone: Tone,
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
            ProgressKind::Attempt,
            Tone::Info,
            tr!(active(), "progress-attempt", n = *attempt, key = short(subject.key())),
        ),
        Notification::AttemptOutcome { subject, attempt, outcome, latency_ms, .. } => {
            if *outcome == AttemptKind::Replayed {
                // the Replayed notification that follows says it in full
                return Forward::Nothing;
            }
            p(subject, Some(*attempt), ProgressKind::Outcome, attempt_tone(*outcome), format!("{} ({latency_ms} ms)", capitalize(&attempt_words(*outcome))))
        }
        Notification::BackingOff { subject, attempt, delay_ms, .. } => p(
            subject,
            Some(*attempt),
            ProgressKind::Backoff,
            Tone::Info,
            tr!(active(), "progress-backoff", seconds = seconds_tenths(*delay_ms)),
        ),
        Notification::Replayed { subject, attempt } => p(
            subject,
            Some(*attempt),
            ProgressKind::Replayed,
            Tone::Ok,
            tr!(active(), "progress-replayed"),
        ),
        Notification::MovedToBackground { subject, reason } => p(
            subject,
            None,
            ProgressKind::Background,
            Tone::Warn,
            tr!(active(), "progress-background", reason = reason.to_string()),
        ),
        Notification::QueuedOffline { subject, amount, currency } => p(
            subject,
            None,
            ProgressKind::Offline,
            Tone::Warn,
            tr!(active(), "progress-offline", amount = money::format(*amount, *currency)),
        ),
        Notification::Forwarded { subject, state, declined } => Forward::Update(PaymentUpdate {
            key: Some(subject.key().to_string()),
            loud: *declined,
            message: if *declined {
                tr!(active(), "progress-forward-declined", key = short(subject.key()))
            } else {
                tr!(active(), "progress-forwarded", key = short(subject.key()), state = state_label(*state))
            },
        }),
        Notification::Resolved { subject, state, via } => match checkout_key(subject) {
            Some(key) => Forward::Progress(ProgressView {
                key,
                attempt: None,
                kind: ProgressKind::Resolved,
                tone: match state {
                    SettledState::Payment(s) => state_tone(*s),
                    SettledState::Refund(_) => Tone::Bad,
                },
                message: tr!(
                    active(),
                    "progress-resolved",
                    state = match state {
                        SettledState::Payment(s) => state_label(*s),
                        SettledState::Refund(r) => r.as_str().to_string(),
                    },
                    via = t(via_words(*via))
                ),
                at: now,
            }),
            None => Forward::Update(PaymentUpdate { key: None, message: tr!(active(), "progress-refund", state = state.to_string()), loud: false }),
        },
        Notification::Connectivity { online } => Forward::Connectivity(*online),
        // Worded by its code in the screen's language; the engine's English `message`
        // is for the log.
        Notification::Alarm { subject, code, .. } => Forward::Update(PaymentUpdate {
            key: subject.as_ref().map(|s| s.key().to_string()),
            message: match subject {
                Some(s) => tr!(active(), "progress-alarm", what = alarm_words(*code), key = short(s.key())),
                None => alarm_words(*code),
            },
            loud: true,
        }),
    }
}

/// 1500 ms → "1.5": tenths of a second by integer arithmetic.
/// The message id saying how a payment was resolved: a replay, a search and an event are
/// named; every other way is the processor's answer (a new way must be placed here).
fn via_words(via: ResolvedVia) -> &'static str {
    match via {
        ResolvedVia::Replay => id!("progress-via-replay"),
        ResolvedVia::Search => id!("progress-via-search"),
        ResolvedVia::Event => id!("progress-via-event"),
        ResolvedVia::Reply
        | ResolvedVia::Declined
        | ResolvedVia::Rejected
        | ResolvedVia::Capture
        | ResolvedVia::Cancel
        | ResolvedVia::CaptureReplay
        | ResolvedVia::CancelReplay
        | ResolvedVia::CaptureCheck
        | ResolvedVia::CancelCheck
        | ResolvedVia::ReaderPoll
        | ResolvedVia::ReaderCheckStatus
        | ResolvedVia::ReaderRecovery
        | ResolvedVia::ReaderBeforePresentingAgain
        | ResolvedVia::ReaderAfterCancel
        | ResolvedVia::ReaderAfterIntentCancel => id!("progress-via-answer"),
    }
}

fn seconds_tenths(ms: u64) -> String {
    let tenths = (ms + 50) / 100;
    format!("{}.{}", tenths / 10, tenths % 10)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
