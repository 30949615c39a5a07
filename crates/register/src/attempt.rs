//! [`AttemptKind`]: how one HTTP attempt ended, as one enum. It owns the two questions
//! the register asks of a past attempt — did it certainly never leave ("never sent"),
//! and did no server answer ("unreachable") — so the engine, its void guard and the app
//! answer them from one definition. Stored in the ledger timeline as its label (the
//! `outcome` column, unchanged) and read back with the fallible [`AttemptKind::parse`].

use paydesk_ledger::{TimelineEntry, TimelineKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptKind {
    /// 2xx.
    Ok,
    /// 2xx replayed by the PSP for the key (the first execution's answer).
    Replayed,
    /// 402 card decline.
    Declined,
    /// The connection was refused: nothing left the register.
    ConnectionRefused,
    /// No connection within the connect deadline: nothing left the register.
    ConnectTimeout,
    /// Sent, no answer in time: the PSP may be executing it.
    Timeout,
    /// The connection dropped before an answer.
    ConnectionLost,
    /// The PSP answered, but the body was larger than the register reads: the status
    /// decides (a 2xx may have executed).
    AnswerTooLarge,
    /// Another transport failure.
    TransportError,
    /// 409: the first request with this key is still executing.
    InProgress,
    /// 429.
    RateLimited,
    /// 502 / 503 / 504.
    Unavailable,
    /// 500, stored by the PSP for the key.
    ServerError,
    /// 500 replayed for the key.
    ReplayedServerError,
    /// 400.
    BadRequest,
    /// 401 / 403.
    Auth,
    /// 400 idempotency_error: same key, different parameters.
    IdempotencyError,
    /// 404.
    NotFound,
    /// The transport is misconfigured (bad URL).
    Config,
    /// Another unexpected status.
    Unexpected,
    /// A 2xx that is not JSON: not a PSP.
    NotAPsp,
}

/// How far one attempt's request got ([`AttemptKind::reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// It never left the register: refused, or no connection in time.
    NeverSent,
    /// The connection dropped before any answer: it may have arrived.
    DroppedBeforeAnswer,
    /// Sent, and no answer came in time: the PSP may be executing it.
    NoAnswerInTime,
    /// Another transport failure, or a transport that could not be used (bad URL): the
    /// register does not count it as proof of anything.
    Unclear,
    /// The PSP answered (a status, even if the body was not read).
    Answered,
}

/// A label in the ledger that names no [`AttemptKind`] (written by another version).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown attempt outcome {0:?}")]
pub struct UnknownAttemptKind(pub String);

impl AttemptKind {
    pub const ALL: [AttemptKind; 21] = [
        AttemptKind::Ok,
        AttemptKind::Replayed,
        AttemptKind::Declined,
        AttemptKind::ConnectionRefused,
        AttemptKind::ConnectTimeout,
        AttemptKind::Timeout,
        AttemptKind::ConnectionLost,
        AttemptKind::AnswerTooLarge,
        AttemptKind::TransportError,
        AttemptKind::InProgress,
        AttemptKind::RateLimited,
        AttemptKind::Unavailable,
        AttemptKind::ServerError,
        AttemptKind::ReplayedServerError,
        AttemptKind::BadRequest,
        AttemptKind::Auth,
        AttemptKind::IdempotencyError,
        AttemptKind::NotFound,
        AttemptKind::Config,
        AttemptKind::Unexpected,
        AttemptKind::NotAPsp,
    ];

    /// The label stored in the timeline and sent in notifications.
    pub const fn label(self) -> &'static str {
        match self {
            AttemptKind::Ok => "ok",
            AttemptKind::Replayed => "replayed",
            AttemptKind::Declined => "declined",
            AttemptKind::ConnectionRefused => "connection_refused",
            AttemptKind::ConnectTimeout => "connect_timeout",
            AttemptKind::Timeout => "timeout",
            AttemptKind::ConnectionLost => "connection_lost",
            AttemptKind::AnswerTooLarge => "answer_too_large",
            AttemptKind::TransportError => "transport_error",
            AttemptKind::InProgress => "in_progress_409",
            AttemptKind::RateLimited => "rate_limited_429",
            AttemptKind::Unavailable => "unavailable_5xx",
            AttemptKind::ServerError => "server_error_500",
            AttemptKind::ReplayedServerError => "replayed_500",
            AttemptKind::BadRequest => "psp_bad_request",
            AttemptKind::Auth => "psp_auth",
            AttemptKind::IdempotencyError => "idempotency_error",
            AttemptKind::NotFound => "psp_not_found",
            AttemptKind::Config => "psp_config",
            AttemptKind::Unexpected => "psp_unexpected",
            AttemptKind::NotAPsp => "not_a_psp",
        }
    }

    /// The kind a stored label names.
    pub fn parse(label: &str) -> Result<AttemptKind, UnknownAttemptKind> {
        AttemptKind::ALL.into_iter().find(|k| k.label() == label).ok_or_else(|| UnknownAttemptKind(label.to_string()))
    }

    /// How far this attempt's request got, as far as the register can know: one table
    /// for [`never_sent`](Self::never_sent), [`unreachable`](Self::unreachable) and
    /// [`shows_offline`](Self::shows_offline).
    pub const fn reach(self) -> Reach {
        match self {
            AttemptKind::ConnectionRefused | AttemptKind::ConnectTimeout => Reach::NeverSent,
            AttemptKind::ConnectionLost => Reach::DroppedBeforeAnswer,
            AttemptKind::Timeout => Reach::NoAnswerInTime,
            AttemptKind::TransportError | AttemptKind::Config => Reach::Unclear,
            AttemptKind::Ok
            | AttemptKind::Replayed
            | AttemptKind::Declined
            | AttemptKind::AnswerTooLarge
            | AttemptKind::InProgress
            | AttemptKind::RateLimited
            | AttemptKind::Unavailable
            | AttemptKind::ServerError
            | AttemptKind::ReplayedServerError
            | AttemptKind::BadRequest
            | AttemptKind::Auth
            | AttemptKind::IdempotencyError
            | AttemptKind::NotFound
            | AttemptKind::Unexpected
            | AttemptKind::NotAPsp => Reach::Answered,
        }
    }

    /// The request certainly never left the register (refused, or no connection in
    /// time): it cannot have reached the PSP.
    pub const fn never_sent(self) -> bool {
        matches!(self.reach(), Reach::NeverSent)
    }

    /// No server answered at all (refused, no connection, dropped before any answer):
    /// the PSP is offline as far as the register can tell, so a phase may end early.
    pub const fn unreachable(self) -> bool {
        matches!(self.reach(), Reach::NeverSent | Reach::DroppedBeforeAnswer)
    }

    /// The status bar shows the PSP offline after such an attempt: unreachable, or sent
    /// and not answered in time.
    pub const fn shows_offline(self) -> bool {
        matches!(self.reach(), Reach::NeverSent | Reach::DroppedBeforeAnswer | Reach::NoAnswerInTime)
    }
}

/// Serialized as its label, as stored.
impl serde::Serialize for AttemptKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

impl std::fmt::Display for AttemptKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A timeline row that is an attempt which may have reached the PSP: every attempt but
/// one proven never sent. An outcome this version cannot read counts as maybe sent.
pub fn may_have_reached_psp(t: &TimelineEntry) -> bool {
    t.kind == TimelineKind::Attempt
        && !t.outcome.as_deref().and_then(|o| AttemptKind::parse(o).ok()).is_some_and(AttemptKind::never_sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip_and_unknown_labels_are_errors() {
        for k in AttemptKind::ALL {
            assert_eq!(AttemptKind::parse(k.label()), Ok(k));
        }
        let mut labels: Vec<_> = AttemptKind::ALL.iter().map(|k| k.label()).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels.len(), AttemptKind::ALL.len(), "labels are distinct");
        assert_eq!(AttemptKind::parse("search"), Err(UnknownAttemptKind("search".into())));
    }

    #[test]
    fn never_sent_and_unreachable() {
        let never: Vec<_> = AttemptKind::ALL.into_iter().filter(|k| k.never_sent()).map(AttemptKind::label).collect();
        assert_eq!(never, ["connection_refused", "connect_timeout"]);
        let unreachable: Vec<_> = AttemptKind::ALL.into_iter().filter(|k| k.unreachable()).map(AttemptKind::label).collect();
        assert_eq!(unreachable, ["connection_refused", "connect_timeout", "connection_lost"]);
        for k in AttemptKind::ALL {
            assert!(!k.never_sent() || k.unreachable(), "{k}: never sent implies no answer");
        }
        assert!(AttemptKind::Timeout.shows_offline() && !AttemptKind::Timeout.unreachable());
    }

    #[test]
    fn timeline_rows() {
        let row = |kind: &str, outcome: Option<&str>| TimelineEntry {
            id: 1,
            payment_id: paydesk_ledger::PaymentId(1),
            refund_id: None,
            at_ms: 0,
            kind: kind.parse().expect("a timeline kind"),
            detail: String::new(),
            outcome: outcome.map(str::to_string),
            latency_ms: None,
            replayed: false,
            attempt_no: Some(1),
        };
        assert!(!may_have_reached_psp(&row("attempt", Some("connection_refused"))));
        assert!(may_have_reached_psp(&row("attempt", Some("timeout"))));
        assert!(may_have_reached_psp(&row("attempt", Some("from_a_newer_version"))));
        assert!(may_have_reached_psp(&row("attempt", None)));
        assert!(!may_have_reached_psp(&row("note", Some("timeout"))));
    }
}
