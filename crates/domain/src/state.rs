//! The payment state machine of record 0014 and the refund machine.
//!
//! There is exactly ONE transition table per machine: [`PaymentState::allowed_next`] and
//! [`RefundState::allowed_next`]. Both (and every helper below) `match` on every variant
//! with no `_ =>` arm, so adding a state is a compile error until each question
//! ("where can it go?", "is it terminal?", "may the outcome be unknown?") is answered for it.
//!
//! ```text
//! created ─▶ authorizing ─▶ authorized ─▶ capturing ─▶ captured ─▶ refunding ─▶ refunded
//!  │  │          │  │  │          │             │            ▲          │  ▲
//!  │  │          │  │  └─────────────────────────────────▶──┘          ▼  │
//!  │  ▼          ▼  ▼             ▼             ▼      (automatic)   partially_refunded
//!  │ queued_offline failed     canceled        failed
//!  ▼     (─▶ authorizing when forwarded, ─▶ canceled if voided)
//! canceled
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::money::ValueError;

/// Where a payment (one checkout key) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentState {
    /// Row, key and exact request parameters are committed (record 0003); nothing has
    /// been sent yet. The register moves to `authorizing` before the first byte goes out.
    Created,
    /// Accepted offline by the cashier while the PSP was unreachable (record 0009);
    /// waits in the store-and-forward queue and is forwarded with its own key.
    QueuedOffline,
    /// A create/confirm request with this key may be on the wire. **Outcome may be
    /// unknown**: after a timeout the charge may or may not exist, so only the same key
    /// may be resent (or the PSP searched), never a new one.
    Authorizing,
    /// Funds held (manual capture); not yet money in the till.
    Authorized,
    /// A capture request may be on the wire. Outcome may be unknown.
    Capturing,
    /// Money captured. Not terminal: it can still be refunded.
    Captured,
    /// Declined or otherwise failed at the PSP. Terminal for this key: a new attempt needs
    /// a new checkout (a new key) on the cashier's explicit intent (record 0005).
    Failed,
    /// Voided before capture (by the cashier, or canceled at the PSP). Terminal.
    Canceled,
    /// At least one refund of this payment may be on the wire. Outcome may be unknown.
    Refunding,
    /// Some, not all, of the captured amount has been refunded; more refunds allowed.
    PartiallyRefunded,
    /// Everything captured has been refunded. Terminal.
    Refunded,
    /// A card-present payment handed to a reader (decision 0102): its PaymentIntent exists and
    /// a process attempt (its own key, committed before it was sent) may be running on the
    /// reader. **Outcome may be unknown** until the intent and the reader are read: a
    /// timeout, a lost answer or a `connection_error` may hide a charge. The newest attempt
    /// may also be known declined (the intent back in `requires_payment_method`): still
    /// not charged, the SAME intent can be processed again ("Present again"), or the
    /// cashier abandons it and the intent is canceled (`canceled`).
    OnReader,
}

/// A transition the table does not allow. Carries both ends so the caller can show or
/// log exactly what was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal payment transition {from} -> {to}")]
pub struct IllegalTransition {
    pub from: PaymentState,
    pub to: PaymentState,
}

/// Result of asking the machine to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<S> {
    /// The transition is legal and moves to the new state.
    Moved(S),
    /// Already in the target state: the transition already happened (a replay, a
    /// duplicate event, a double click). Nothing to do; this is the current state.
    AlreadyThere(S),
}

impl<S: Copy> Step<S> {
    pub fn state(self) -> S {
        match self {
            Step::Moved(s) | Step::AlreadyThere(s) => s,
        }
    }
}

impl PaymentState {
    /// Every state, for enumeration in tests, CHECK constraints and the UI legend.
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

    /// THE transition table: the states directly reachable from `self`.
    pub const fn allowed_next(self) -> &'static [PaymentState] {
        use PaymentState::*;
        match self {
            // Send (authorizing), park offline when the PSP is unreachable before the
            // first send, or abandon before anything was sent. A card-present payment goes
            // on the reader instead (never offline: a reader cannot take cards offline).
            Created => &[Authorizing, QueuedOffline, Canceled, OnReader],
            // Forwarded when the PSP is back; voided by the cashier before forwarding.
            QueuedOffline => &[Authorizing, Canceled],
            // automatic capture succeeds straight to captured; manual capture stops at
            // authorized. Retries exhausted while offline: the same key is parked in the
            // store-and-forward queue (safe, the PSP deduplicates by key).
            Authorizing => &[Authorized, Captured, Failed, Canceled, QueuedOffline],
            Authorized => &[Capturing, Canceled],
            // Canceled: the authorization was canceled or expired at the PSP before the
            // capture reached it (the capture's GET-first finds it canceled).
            Capturing => &[Captured, Failed, Canceled],
            Captured => &[Refunding],
            // A failed refund returns to where the payment was (captured, or
            // partially_refunded when earlier refunds succeeded).
            Refunding => &[Captured, PartiallyRefunded, Refunded],
            PartiallyRefunded => &[Refunding],
            Failed => &[],
            Canceled => &[],
            Refunded => &[],
            // The intent succeeded (automatic capture) or holds the funds (manual), or it
            // was canceled at the PSP (abandoned: "not charged" then stays true forever).
            // Never `failed`: a decline on a reader leaves the intent processable again.
            OnReader => &[Captured, Authorized, Canceled],
        }
    }

    /// Is `self -> to` in the table? (A self-loop is not a transition; see [`Self::step`].)
    pub fn can_transition_to(self, to: PaymentState) -> bool {
        self.allowed_next().contains(&to)
    }

    /// The steps that take a payment from `self` to `target`, each one an edge of the
    /// table: `Some([])` when it is already there, `Some([target])` for a direct edge,
    /// `Some([Authorizing, target])` when the only way is through the send (a `created` /
    /// `queued_offline` payment whose answer came back captured, authorized or failed).
    /// `None` when the table has no such path: the payment is already past `target`
    /// (e.g. an event captured it first) and must be left as it is. Pure; the register's
    /// moves and the ledger's `settle_checkout` walk it step by step.
    pub fn path_to(self, target: PaymentState) -> Option<Vec<PaymentState>> {
        if self == target {
            Some(Vec::new())
        } else if self.can_transition_to(target) {
            Some(vec![target])
        } else if self.can_transition_to(PaymentState::Authorizing)
            && PaymentState::Authorizing.can_transition_to(target)
        {
            Some(vec![PaymentState::Authorizing, target])
        } else {
            None
        }
    }

    /// Checks a move: `Moved(to)` if legal, `AlreadyThere(self)` if `self == to` (a
    /// repeated transition is a no-op returning the current state), otherwise a typed
    /// [`IllegalTransition`].
    pub fn step(self, to: PaymentState) -> Result<Step<PaymentState>, IllegalTransition> {
        if self == to {
            Ok(Step::AlreadyThere(self))
        } else if self.can_transition_to(to) {
            Ok(Step::Moved(to))
        } else {
            Err(IllegalTransition { from: self, to })
        }
    }

    /// No transition leaves this state.
    pub const fn is_terminal(self) -> bool {
        use PaymentState::*;
        match self {
            Failed | Canceled | Refunded => true,
            Created | QueuedOffline | Authorizing | Authorized | Capturing | Captured | Refunding
            | PartiallyRefunded | OnReader => false,
        }
    }

    /// A request may be on the wire: after a crash or timeout the outcome is unknown and
    /// must be resolved with the same key or by search (record 0005, 0008, 0010).
    pub const fn is_in_flight(self) -> bool {
        use PaymentState::*;
        match self {
            Authorizing | Capturing | Refunding | OnReader => true,
            Created | QueuedOffline | Authorized | Captured | Failed | Canceled | PartiallyRefunded
            | Refunded => false,
        }
    }

    /// Crash recovery (record 0010) must look at it on start: in flight, or `created`
    /// (committed on Charge, so it is meant to be sent). The offline queue is separate.
    pub const fn needs_recovery(self) -> bool {
        use PaymentState::*;
        match self {
            Created | Authorizing | Capturing | Refunding | OnReader => true,
            QueuedOffline | Authorized | Captured | Failed | Canceled | PartiallyRefunded | Refunded => {
                false
            }
        }
    }

    /// The checkout is still open: its cart stays locked and pressing Charge again must
    /// reuse it rather than make a new key (record 0004–0005).
    pub const fn is_checkout_open(self) -> bool {
        use PaymentState::*;
        match self {
            Created | Authorizing | Authorized | Capturing | OnReader => true,
            QueuedOffline | Captured | Failed | Canceled | Refunding | PartiallyRefunded | Refunded => false,
        }
    }

    /// A reader payment in this state is still the reader's business: the cashier's reader
    /// actions (process again, cancel on the reader, abandon) and recovery's reads apply to
    /// it (decision 0102). Any other state is settled for the reader: its stored report
    /// is the answer.
    pub const fn is_open_on_reader(self) -> bool {
        use PaymentState::*;
        match self {
            Created | OnReader => true,
            QueuedOffline | Authorizing | Authorized | Capturing | Captured | Failed | Canceled | Refunding
            | PartiallyRefunded | Refunded => false,
        }
    }

    /// Money was captured, so a refund may be created.
    pub const fn is_refundable(self) -> bool {
        use PaymentState::*;
        match self {
            Captured | Refunding | PartiallyRefunded => true,
            Created | QueuedOffline | Authorizing | Authorized | Capturing | Failed | Canceled | Refunded
            | OnReader => {
                false
            }
        }
    }

    /// Storage / wire form (snake_case, as in the `payments.state` CHECK constraint).
    pub const fn as_str(self) -> &'static str {
        use PaymentState::*;
        match self {
            Created => "created",
            QueuedOffline => "queued_offline",
            Authorizing => "authorizing",
            Authorized => "authorized",
            Capturing => "capturing",
            Captured => "captured",
            Failed => "failed",
            Canceled => "canceled",
            Refunding => "refunding",
            PartiallyRefunded => "partially_refunded",
            Refunded => "refunded",
            OnReader => "on_reader",
        }
    }
}

impl fmt::Display for PaymentState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PaymentState {
    type Err = ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        PaymentState::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| ValueError::UnknownValue { what: "payment state", value: s.to_string() })
    }
}

/// Where one refund (its own key) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefundState {
    /// Committed with its key and parameters, not sent yet.
    Pending,
    /// The refund request may be on the wire; outcome may be unknown.
    InFlight,
    /// The PSP refunded it. Terminal.
    Succeeded,
    /// The PSP refused it (or it was abandoned before sending). Terminal; the amount is
    /// refundable again.
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal refund transition {from} -> {to}")]
pub struct IllegalRefundTransition {
    pub from: RefundState,
    pub to: RefundState,
}

impl RefundState {
    pub const ALL: [RefundState; 4] =
        [RefundState::Pending, RefundState::InFlight, RefundState::Succeeded, RefundState::Failed];

    /// THE refund transition table.
    pub const fn allowed_next(self) -> &'static [RefundState] {
        use RefundState::*;
        match self {
            Pending => &[InFlight, Failed],
            InFlight => &[Succeeded, Failed],
            Succeeded => &[],
            Failed => &[],
        }
    }

    pub fn can_transition_to(self, to: RefundState) -> bool {
        self.allowed_next().contains(&to)
    }

    /// Same contract as [`PaymentState::step`].
    pub fn step(self, to: RefundState) -> Result<Step<RefundState>, IllegalRefundTransition> {
        if self == to {
            Ok(Step::AlreadyThere(self))
        } else if self.can_transition_to(to) {
            Ok(Step::Moved(to))
        } else {
            Err(IllegalRefundTransition { from: self, to })
        }
    }

    pub const fn is_terminal(self) -> bool {
        match self {
            RefundState::Succeeded | RefundState::Failed => true,
            RefundState::Pending | RefundState::InFlight => false,
        }
    }

    /// Reserves part of the payment's refundable amount (pending and in flight count so
    /// two concurrent refunds cannot together exceed the capture).
    pub const fn reserves_amount(self) -> bool {
        match self {
            RefundState::Pending | RefundState::InFlight | RefundState::Succeeded => true,
            RefundState::Failed => false,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            RefundState::Pending => "pending",
            RefundState::InFlight => "in_flight",
            RefundState::Succeeded => "succeeded",
            RefundState::Failed => "failed",
        }
    }
}

impl fmt::Display for RefundState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RefundState {
    type Err = ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        RefundState::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| ValueError::UnknownValue { what: "refund state", value: s.to_string() })
    }
}

/// How the PSP captures: at once, or later with an explicit capture request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureMethod {
    Automatic,
    Manual,
}

impl CaptureMethod {
    pub const fn as_str(self) -> &'static str {
        match self {
            CaptureMethod::Automatic => "automatic",
            CaptureMethod::Manual => "manual",
        }
    }
}

impl FromStr for CaptureMethod {
    type Err = ValueError;
    fn from_str(s: &str) -> Result<Self, ValueError> {
        match s {
            "automatic" => Ok(CaptureMethod::Automatic),
            "manual" => Ok(CaptureMethod::Manual),
            other => Err(ValueError::UnknownValue { what: "capture method", value: other.to_string() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PaymentState::*;

    /// The table written out independently, pair by pair, so a slip in `allowed_next`
    /// is caught by a second, differently shaped statement of the same rules.
    const LEGAL: &[(PaymentState, PaymentState)] = &[
        (Created, Authorizing),
        (Created, QueuedOffline),
        (Created, Canceled),
        (QueuedOffline, Authorizing),
        (QueuedOffline, Canceled),
        (Authorizing, Authorized),
        (Authorizing, Captured),
        (Authorizing, Failed),
        (Authorizing, Canceled),
        (Authorizing, QueuedOffline),
        (Authorized, Capturing),
        (Authorized, Canceled),
        (Capturing, Captured),
        (Capturing, Failed),
        (Capturing, Canceled),
        (Captured, Refunding),
        (Refunding, Captured),
        (Refunding, PartiallyRefunded),
        (Refunding, Refunded),
        (PartiallyRefunded, Refunding),
        (Created, OnReader),
        (OnReader, Captured),
        (OnReader, Authorized),
        (OnReader, Canceled),
    ];

    #[test]
    fn only_created_and_on_reader_are_open_on_the_reader_and_both_keep_the_checkout_open() {
        let open: Vec<PaymentState> = PaymentState::ALL.into_iter().filter(|s| s.is_open_on_reader()).collect();
        assert_eq!(open, [PaymentState::Created, PaymentState::OnReader]);
        assert!(open.iter().all(|s| s.is_checkout_open() && !s.is_terminal()));
        // every state a reader payment reaches from on_reader is settled for the reader
        assert!(PaymentState::OnReader.allowed_next().iter().all(|s| !s.is_open_on_reader()));
    }

    #[test]
    fn every_pair_of_payment_states() {
        let mut legal = 0;
        let mut illegal = 0;
        for from in PaymentState::ALL {
            for to in PaymentState::ALL {
                let r = from.step(to);
                if from == to {
                    assert_eq!(r, Ok(Step::AlreadyThere(from)), "{from} -> {to} must be a no-op");
                } else if LEGAL.contains(&(from, to)) {
                    assert_eq!(r, Ok(Step::Moved(to)), "{from} -> {to} must be legal");
                    legal += 1;
                } else {
                    assert_eq!(r, Err(IllegalTransition { from, to }), "{from} -> {to} must be illegal");
                    illegal += 1;
                }
            }
        }
        assert_eq!(legal, LEGAL.len());
        assert_eq!(legal + illegal, 12 * 11);
    }

    #[test]
    fn spec_diagram_edges_are_legal() {
        for (a, b) in [
            (Created, Authorizing),
            (Authorizing, Authorized),
            (Authorized, Capturing),
            (Capturing, Captured),
            (Captured, Refunding),
            (Refunding, Refunded),
            (Created, Canceled),
            (Authorizing, Failed),
            (Capturing, Failed),
        ] {
            assert!(a.can_transition_to(b), "{a} -> {b}");
        }
    }

    #[test]
    fn helpers_agree_with_the_table() {
        for s in PaymentState::ALL {
            assert_eq!(s.is_terminal(), s.allowed_next().is_empty(), "{s}");
            assert!(!(s.is_terminal() && s.is_in_flight()), "{s}");
            assert!(!(s.is_terminal() && s.is_checkout_open()), "{s}");
            if s.is_in_flight() {
                assert!(s.needs_recovery(), "{s}");
            }
            assert_eq!(s.as_str().parse::<PaymentState>().unwrap(), s);
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{}\"", s.as_str()));
        }
        assert!("settled".parse::<PaymentState>().is_err());
        // Every state is reachable from created.
        let mut seen = vec![Created];
        let mut i = 0;
        while i < seen.len() {
            for &n in seen[i].allowed_next() {
                if !seen.contains(&n) {
                    seen.push(n);
                }
            }
            i += 1;
        }
        assert_eq!(seen.len(), PaymentState::ALL.len());
    }

    /// The moves the register and `settle_checkout` made before `path_to` existed,
    /// written out as they were, so the function is checked against every pair.
    fn path_as_written(cur: PaymentState, to: PaymentState) -> Option<Vec<PaymentState>> {
        match (cur, to) {
            (c, t) if c == t => Some(vec![]),
            (Created | QueuedOffline, Authorizing) => Some(vec![Authorizing]),
            (Created | QueuedOffline, t) if matches!(t, Captured | Authorized | Failed) => Some(vec![Authorizing, t]),
            (c, t) if c.can_transition_to(t) => Some(vec![t]),
            _ => None,
        }
    }

    #[test]
    fn path_to_every_pair() {
        let mut reachable = 0;
        for from in PaymentState::ALL {
            for to in PaymentState::ALL {
                let path = from.path_to(to);
                assert_eq!(path, path_as_written(from, to), "{from} -> {to}");
                let Some(path) = path else { continue };
                reachable += 1;
                assert!(path.len() <= 2, "{from} -> {to}: {path:?}");
                let mut at = from;
                for step in &path {
                    assert!(at.can_transition_to(*step), "{from} -> {to}: {at} -> {step} is not in the table");
                    at = *step;
                }
                assert_eq!(at, to, "{from} -> {to} ends where asked");
            }
        }
        // 12 self paths, 24 edges, and created/queued_offline through authorizing to
        // authorized, captured and failed (6).
        assert_eq!(reachable, 12 + LEGAL.len() + 6);
    }

    #[test]
    fn path_to_examples() {
        assert_eq!(Created.path_to(Captured), Some(vec![Authorizing, Captured]));
        assert_eq!(QueuedOffline.path_to(Failed), Some(vec![Authorizing, Failed]));
        assert_eq!(Created.path_to(QueuedOffline), Some(vec![QueuedOffline]));
        assert_eq!(Created.path_to(Canceled), Some(vec![Canceled]));
        assert_eq!(Authorizing.path_to(Authorizing), Some(vec![]));
        // Already past it: leave it.
        assert_eq!(Captured.path_to(Authorizing), None);
        assert_eq!(Refunded.path_to(Captured), None);
        // Two steps that are not the send are not taken on a caller's behalf.
        assert_eq!(Authorized.path_to(Captured), None);
        assert_eq!(Created.path_to(Capturing), None);
    }

    #[test]
    fn settle_paths_follow_the_table_and_only_imply_the_send() {
        // Written out independently: the two-step paths are exactly a create's outcomes
        // reached from before the send.
        let two_step = [
            (Created, Authorized),
            (Created, Captured),
            (Created, Failed),
            (QueuedOffline, Authorized),
            (QueuedOffline, Captured),
            (QueuedOffline, Failed),
        ];
        for from in PaymentState::ALL {
            for to in PaymentState::ALL {
                let path = from.path_to(to);
                if from == to {
                    assert_eq!(path, Some(vec![]), "{from} -> {to}");
                } else if LEGAL.contains(&(from, to)) {
                    assert_eq!(path, Some(vec![to]), "{from} -> {to}");
                } else if two_step.contains(&(from, to)) {
                    assert_eq!(path, Some(vec![Authorizing, to]), "{from} -> {to}");
                } else {
                    assert_eq!(path, None, "{from} -> {to}");
                }
                // Every step of a path is a legal move.
                let mut at = from;
                for s in path.unwrap_or_default() {
                    assert!(at.can_transition_to(s), "{at} -> {s} on the way {from} -> {to}");
                    at = s;
                }
            }
        }
        // Never implied: a capture or a refund needs its own request.
        assert_eq!(Authorized.path_to(Captured), None);
        assert_eq!(PartiallyRefunded.path_to(Captured), None);
    }

    #[test]
    fn every_pair_of_refund_states() {
        use RefundState::*;
        let legal = [(Pending, InFlight), (Pending, Failed), (InFlight, Succeeded), (InFlight, Failed)];
        for from in RefundState::ALL {
            for to in RefundState::ALL {
                let r = from.step(to);
                if from == to {
                    assert_eq!(r, Ok(Step::AlreadyThere(from)));
                } else if legal.contains(&(from, to)) {
                    assert_eq!(r, Ok(Step::Moved(to)), "{from} -> {to}");
                } else {
                    assert_eq!(r, Err(IllegalRefundTransition { from, to }), "{from} -> {to}");
                }
            }
            assert_eq!(from.is_terminal(), from.allowed_next().is_empty());
            assert_eq!(from.as_str().parse::<RefundState>().unwrap(), from);
        }
    }
}
