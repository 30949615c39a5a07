//! The drawer's vocabulary (record 0066): a currency's notes and coins, a checked count,
//! the limits on cash moved by hand, and [`ShiftRefusal`], each rule a count or a paid in /
//! out breaks. Pure: no I/O, no clock, nothing of the ledger's own (its `Error` wraps a
//! refusal, so this module must not reach back into it).

pub mod count;
pub mod refusal;

pub use count::{checked_count, denominations, DenominationCount, MAX_DRAWER_MINOR, MAX_PIECES_PER_DENOMINATION};
pub use refusal::{checked_reason, ShiftRefusal, REASON_MAX_CHARS, REASON_MIN_CHARS};

/// The most cash one paid in / paid out may move (minor units): a typo of three extra
/// zeros on a yen amount is refused rather than booked.
pub const MAX_PAID_IN_OUT_MINOR: i64 = 10_000_000;

/// Paid in / paid out entries one shift may hold (a limit on every table).
pub const MAX_PAID_IN_OUT_PER_SHIFT: i64 = 1_000;
