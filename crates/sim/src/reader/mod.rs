//! Card-present sales on a simulated reader (issue #27, decisions 0101 and 0102) mixed
//! into the workload: a share of the single-tender sales (`SimConfig::reader_share`) is
//! charged on the one simulated reader the register registered before the first sale.
//! The simulated customer then does what the seed says (approves, declines, has
//! insufficient funds, cancels on the reader, never taps, taps while the cashier
//! cancels, taps another card after a decline), the cashier presses what a cashier would
//! (wait, check status, cancel on reader, present again, abandon), the profile's reader
//! faults act at the PSP, and the register may crash at each reader step. Every answer
//! the cashier saw is kept for the audit (`audit/reader.rs`).
//!
//! One file per stage: `setup.rs` (the location and the reader), `pay.rs` (one reader
//! sale: the charge and what the customer does), `customer.rs` (the customer's tap at the
//! PSP and the crashes armed at reader steps), `after.rs` (the cashier settles each sale
//! before the next customer, and the final pass).

mod after;
mod customer;
mod pay;
mod setup;

use paydesk_register::{NotChargedWhy, PendingWhy, ReaderOutcome, UnavailableWhy};
use rand::Rng;

/// What the simulated customer does at the reader, drawn once per reader sale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Customer {
    /// Taps a card that is approved.
    Approves,
    /// Taps a card that is declined (then the cashier gives up on the reader).
    Declines,
    /// Taps a card with insufficient funds.
    InsufficientFunds,
    /// Cancels on the reader instead of paying (the PSP's `customer_canceled`).
    CancelsOnReader,
    /// Never taps: the cashier presses "Cancel on reader", then presents again or gives up.
    NoTapCashierCancels,
    /// Taps while the cashier cancels (either may come first).
    TapRacesCancel,
    /// Declined, then "Present again" and a good card on the same intent.
    PresentAgainAfterDecline,
    /// The cashier abandons the reader payment before anyone taps.
    CashierAbandons,
}

impl Customer {
    pub(crate) const ALL: [Customer; 8] = [
        Customer::Approves,
        Customer::Declines,
        Customer::InsufficientFunds,
        Customer::CancelsOnReader,
        Customer::NoTapCashierCancels,
        Customer::TapRacesCancel,
        Customer::PresentAgainAfterDecline,
        Customer::CashierAbandons,
    ];
    pub(crate) fn name(self) -> &'static str {
        match self {
            Customer::Approves => "approves",
            Customer::Declines => "declines",
            Customer::InsufficientFunds => "insufficient_funds",
            Customer::CancelsOnReader => "cancels_on_reader",
            Customer::NoTapCashierCancels => "no_tap_cashier_cancels",
            Customer::TapRacesCancel => "tap_races_cancel",
            Customer::PresentAgainAfterDecline => "present_again_after_decline",
            Customer::CashierAbandons => "cashier_abandons",
        }
    }
    /// Weights per 100: most customers pay; every other path is common enough that a
    /// few hundred reader sales see each of them many times.
    fn draw(rng: &mut impl Rng) -> Customer {
        const W: [u32; 8] = [32, 10, 8, 8, 10, 12, 12, 8];
        let mut x = rng.random_range(0..W.iter().sum::<u32>());
        for (c, w) in Customer::ALL.into_iter().zip(W) {
            if x < w {
                return c;
            }
            x -= w;
        }
        Customer::Approves
    }
}

/// A stable name for what the cashier was told (the report's `told:*` counters).
pub(crate) fn told_name(o: ReaderOutcome) -> String {
    match o {
        ReaderOutcome::Paid => "paid".into(),
        ReaderOutcome::Authorized => "authorized".into(),
        ReaderOutcome::WaitingForCard => "waiting_for_card".into(),
        ReaderOutcome::ReaderBusy => "reader_busy".into(),
        ReaderOutcome::NotCharged { why } => format!(
            "not_charged:{}",
            match why {
                NotChargedWhy::Declined => "declined",
                NotChargedWhy::CustomerCanceled => "customer_canceled",
                NotChargedWhy::ActionCanceled => "action_canceled",
                NotChargedWhy::NotStarted => "not_started",
                NotChargedWhy::IntentCanceled => "intent_canceled",
            }
        ),
        ReaderOutcome::Pending { why } => format!(
            "pending:{}",
            match why {
                PendingWhy::ReaderTimeout => "reader_timeout",
                PendingWhy::LostAnswer => "lost_answer",
                PendingWhy::ConnectionError => "connection_error",
                PendingWhy::ActionStuck => "action_stuck",
                PendingWhy::CannotRead => "cannot_read",
                PendingWhy::Processing => "processing",
            }
        ),
        ReaderOutcome::ReaderUnavailable { why } => format!(
            "unavailable:{}",
            match why {
                UnavailableWhy::PspUnreachable => "psp_unreachable",
                UnavailableWhy::ReaderOffline => "reader_offline",
            }
        ),
    }
}
