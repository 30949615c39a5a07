//! What a refund by hand of a payment may give back now (record 0160): the one figure the
//! Payments screen's "up to", "Refund all" and the ledger's own check share.

/// What a refund by hand of a payment may give back now ([`crate::Refunds::room`],
/// record 0160).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct RefundRoom {
    /// The most a refund by hand may be: the payment's amount less its refunds (the
    /// predecessor's too) and less what exchange credits hold; zero while a refund is open
    /// or nothing is captured.
    pub refundable_minor: i64,
    /// What exchange credits hold on the payment's tender: money that pays another sale
    /// now and goes back only through it (record 0158).
    pub held_minor: i64,
}
