//! The classified result of one attempt (record 0007): done, declined, retry with the
//! same key (and why), unknown (resolve by search), or fatal; with the label and words
//! each shows, and whether it proves that nothing executed at the PSP.

use super::wire::{PaymentIntent, StripeError};
use crate::attempt::AttemptKind;
use crate::transport::TransportError;
use std::time::Duration;

/// Why an attempt may be retried with the same key (record 0007).
#[derive(Debug, Clone, PartialEq)]
pub enum RetryReason {
    Transport(TransportError),
    /// 409 `idempotency_key_in_use`: the first request is still executing.
    InProgress,
    /// 429
    RateLimited,
    /// 502 / 503 / 504
    Unavailable(u16),
}

impl RetryReason {
    pub fn kind(&self) -> AttemptKind {
        match self {
            RetryReason::Transport(TransportError::ConnectRefused(_)) => AttemptKind::ConnectionRefused,
            RetryReason::Transport(TransportError::ConnectTimeout) => AttemptKind::ConnectTimeout,
            RetryReason::Transport(TransportError::Timeout) => AttemptKind::Timeout,
            RetryReason::Transport(TransportError::Reset(_)) => AttemptKind::ConnectionLost,
            RetryReason::Transport(TransportError::TooLarge(_)) => AttemptKind::AnswerTooLarge,
            RetryReason::Transport(TransportError::Other(_)) => AttemptKind::TransportError,
            RetryReason::InProgress => AttemptKind::InProgress,
            RetryReason::RateLimited => AttemptKind::RateLimited,
            RetryReason::Unavailable(_) => AttemptKind::Unavailable,
        }
    }
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
    /// What the cashier reads.
    pub fn words(&self) -> String {
        match self {
            RetryReason::Transport(e) if e.never_sent() => {
                "cannot reach the payment processor — nothing was sent; retrying with the same key".into()
            }
            RetryReason::Transport(_) => {
                "no answer — the payment may have gone through; retrying with the same key".into()
            }
            RetryReason::InProgress => "processor still working on this payment".into(),
            RetryReason::RateLimited => "processor busy (rate limited); waiting".into(),
            RetryReason::Unavailable(s) => format!("processor temporarily unavailable ({s}); retrying"),
        }
    }
    /// No server answered at all (refused, connect timeout, reset before any
    /// answer): the PSP looks offline.
    pub fn unreachable(&self) -> bool {
        self.kind().unreachable()
    }
    /// True when this attempt certainly did not reach the PSP.
    pub fn never_sent(&self) -> bool {
        match self {
            RetryReason::Transport(e) => e.never_sent(),
            // 429/503 are answered before execution; the PSP received but did not run it.
            RetryReason::RateLimited => true,
            RetryReason::Unavailable(status) => *status == 503,
            // 409: the first request with this key is executing.
            RetryReason::InProgress => false,
        }
    }
}

/// Errors that must not be retried.
#[derive(Debug, Clone, PartialEq)]
pub enum Fatal {
    /// 400: our bug; show it.
    BadRequest(StripeError),
    /// 401 / 403: configuration (wrong key).
    Auth(StripeError),
    /// 400 idempotency_error: same key with different parameters. A bug: alarm.
    IdempotencyMismatch(StripeError),
    /// 404
    NotFound(StripeError),
    /// Transport misconfiguration (bad URL…).
    Config(String),
    /// Other unexpected status.
    Unexpected(u16, StripeError),
    /// A 2xx answer that is not JSON at all (an HTML page, plain text): the URL
    /// points at something that is not a PSP.
    NotAPsp(u16, String),
}

impl Fatal {
    pub fn kind(&self) -> AttemptKind {
        match self {
            Fatal::BadRequest(_) => AttemptKind::BadRequest,
            Fatal::Auth(_) => AttemptKind::Auth,
            Fatal::IdempotencyMismatch(_) => AttemptKind::IdempotencyError,
            Fatal::NotFound(_) => AttemptKind::NotFound,
            Fatal::Config(_) => AttemptKind::Config,
            Fatal::Unexpected(..) => AttemptKind::Unexpected,
            Fatal::NotAPsp(..) => AttemptKind::NotAPsp,
        }
    }
    /// The stable code of the error: its attempt label.
    pub fn code(&self) -> &'static str {
        self.kind().label()
    }

    /// True when this answer proves that this attempt executed nothing at any PSP
    /// (record 0016: Stripe stores a result only once execution began; validation 400s,
    /// 401/403 and unknown paths are answered before). Only then may a checkout whose
    /// every attempt proves the same end `failed` ("never charged"). An idempotency
    /// error proves the opposite: the key was used before, and that use may have run.
    pub fn proves_not_executed(&self) -> bool {
        match self {
            Fatal::BadRequest(_) | Fatal::Auth(_) | Fatal::NotFound(_) | Fatal::Config(_) | Fatal::NotAPsp(..) => true,
            Fatal::IdempotencyMismatch(_) => false,
            // 1xx, 3xx (redirects are not followed) and 4xx: refused before execution.
            // Anything else (a status past 599) says nothing.
            Fatal::Unexpected(s, _) => *s < 500,
        }
    }
    pub fn message(&self) -> String {
        let m = |e: &StripeError| e.message.clone().unwrap_or_default();
        match self {
            Fatal::BadRequest(e) => format!("the PSP rejected the request: {}", m(e)),
            Fatal::Auth(e) => format!("the PSP refused the secret key (check settings): {}", m(e)),
            Fatal::IdempotencyMismatch(e) => {
                format!("idempotency mismatch — same key sent with different parameters (bug): {}", m(e))
            }
            Fatal::NotFound(e) => format!("not found at the PSP: {}", m(e)),
            Fatal::Config(s) => format!("PSP connection misconfigured: {s}"),
            Fatal::Unexpected(s, e) => format!("unexpected PSP answer {s}: {}", m(e)),
            Fatal::NotAPsp(s, start) => {
                format!("the PSP URL answered {s} with something that is not the PSP's API (it begins {start:?}); check the URL")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decline {
    pub code: String,
    pub message: String,
    pub payment_intent: Option<PaymentIntent>,
}

/// The classified result of one attempt.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum AttemptOutcome<T> {
    /// 2xx.
    Ok { value: T, replayed: bool },
    /// 402 card decline: terminal for this key.
    Declined { decline: Decline, replayed: bool },
    /// Retry with the same key.
    Retry { reason: RetryReason, retry_after: Option<Duration> },
    /// 500 (stored and replayed by the PSP): the charge may or may not exist;
    /// resolve by search, never by resending.
    Unknown { status: u16, replayed: bool, message: String },
    /// Do not retry.
    Fatal(Fatal),
}

impl<T> AttemptOutcome<T> {
    pub fn kind(&self) -> AttemptKind {
        match self {
            AttemptOutcome::Ok { replayed: true, .. } => AttemptKind::Replayed,
            AttemptOutcome::Ok { .. } => AttemptKind::Ok,
            AttemptOutcome::Declined { .. } => AttemptKind::Declined,
            AttemptOutcome::Retry { reason, .. } => reason.kind(),
            AttemptOutcome::Unknown { replayed: true, .. } => AttemptKind::ReplayedServerError,
            AttemptOutcome::Unknown { .. } => AttemptKind::ServerError,
            AttemptOutcome::Fatal(f) => f.kind(),
        }
    }
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }
    pub fn words(&self) -> String {
        match self {
            AttemptOutcome::Ok { replayed: true, .. } => "already done — the processor replayed its first answer".into(),
            AttemptOutcome::Ok { .. } => "done".into(),
            AttemptOutcome::Declined { decline, .. } => format!("declined: {}", decline.message),
            AttemptOutcome::Retry { reason, .. } => reason.words(),
            AttemptOutcome::Unknown { .. } => "processor error — outcome unknown; checking by search".into(),
            AttemptOutcome::Fatal(f) => f.message(),
        }
    }
    /// This attempt certainly executed nothing at the PSP: it never reached one, or
    /// was refused before execution.
    pub fn executed_nothing(&self) -> bool {
        match self {
            AttemptOutcome::Retry { reason, .. } => reason.never_sent(),
            AttemptOutcome::Fatal(f) => f.proves_not_executed(),
            AttemptOutcome::Ok { .. } | AttemptOutcome::Declined { .. } | AttemptOutcome::Unknown { .. } => false,
        }
    }
    pub fn replayed(&self) -> bool {
        matches!(
            self,
            AttemptOutcome::Ok { replayed: true, .. }
                | AttemptOutcome::Declined { replayed: true, .. }
                | AttemptOutcome::Unknown { replayed: true, .. }
        )
    }
}

