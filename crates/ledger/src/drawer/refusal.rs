//! Why the ledger refuses a drawer count, a paid in / out or a shift's first open
//! (record 0066), one variant per rule. Typed so the app puts each refusal in the
//! screen's language from the variant and its figures (never from this English, which
//! is for the CLI and logs); the figures are minor units of `currency`.

use super::count::{denominations, MAX_DRAWER_MINOR, MAX_PIECES_PER_DENOMINATION};
use super::{MAX_PAID_IN_OUT_MINOR, MAX_PAID_IN_OUT_PER_SHIFT};
use paydesk_domain::money::Currency;

/// The shortest and longest reason a paid in / out keeps, in characters.
pub const REASON_MIN_CHARS: usize = 3;
pub const REASON_MAX_CHARS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ShiftRefusal {
    /// A count names a value that is not one of the currency's notes or coins.
    #[error("{denomination_minor} is not a {} note or coin (in minor units: {})", currency.code().to_uppercase(), known(*currency))]
    UnknownDenomination { currency: Currency, denomination_minor: i64 },

    /// A count names one denomination on two lines.
    #[error("{denomination_minor} is counted twice: give each denomination once")]
    CountedTwice { currency: Currency, denomination_minor: i64 },

    /// Pieces of one denomination below 0 or above [`MAX_PIECES_PER_DENOMINATION`].
    #[error("{count} pieces of {denomination_minor}: a count is 0 to {MAX_PIECES_PER_DENOMINATION}")]
    PiecesOutOfRange { currency: Currency, denomination_minor: i64, count: i64 },

    /// A count whose total is above [`MAX_DRAWER_MINOR`].
    #[error("a count of {total_minor} is above the limit of {MAX_DRAWER_MINOR} minor units")]
    CountAboveLimit { currency: Currency, total_minor: i64 },

    /// The first shift of a store whose settings (its currency) were never saved.
    #[error("the store has no settings yet: set its currency before the first shift")]
    NoStoreCurrency,

    /// A paid in / out of 0, below 0 or above [`MAX_PAID_IN_OUT_MINOR`].
    #[error("a paid in or out is 1 to {MAX_PAID_IN_OUT_MINOR} minor units, not {amount_minor}")]
    PaidAmountOutOfRange { currency: Currency, amount_minor: i64 },

    /// A paid in / out's reason: too short, too long, or with control characters.
    #[error("a reason needs {REASON_MIN_CHARS} to {REASON_MAX_CHARS} printable characters")]
    ReasonInvalid,

    /// The shift already holds [`MAX_PAID_IN_OUT_PER_SHIFT`] paid in / out entries.
    #[error("a shift holds at most {MAX_PAID_IN_OUT_PER_SHIFT} paid in / out entries")]
    TooManyPaidInOut,

    /// A paid out above what the drawer should hold (it cannot hand out cash it has not).
    #[error("paid out {amount_minor} is more than the drawer should hold ({drawer_minor})")]
    PaidOutAboveDrawer { currency: Currency, amount_minor: i64, drawer_minor: i64 },
}

fn known(currency: Currency) -> String {
    denominations(currency).iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// The reason trimmed, when it has [`REASON_MIN_CHARS`]-[`REASON_MAX_CHARS`] characters
/// and none of them is a control character (a reason is one printed line).
pub fn checked_reason(reason: &str) -> Option<&str> {
    let r = reason.trim();
    let n = r.chars().count();
    ((REASON_MIN_CHARS..=REASON_MAX_CHARS).contains(&n) && !r.chars().any(char::is_control)).then_some(r)
}
