//! Held sales' refusals (issue #30, record 0128): the ledger's typed hold refusals and the
//! screen's own (a recall over a sale with lines), each with its code and words.

use paydesk_ledger::HoldRefusal;

use super::ErrorCode;
use crate::i18n::{active, id, t, tr};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldRefusal {
    /// An empty cart is not parked.
    Empty,
    /// Something was tendered on the sale (or a checkout is open): it is paid, not parked.
    Tendered,
    /// As many carts as settings.json `max_held_carts` allows are parked.
    AtLimit { max: u32 },
    /// The cart is not parked (recalled or discarded already, or never held).
    NotHeld,
    /// The cart is parked or was discarded: it is recalled before it is changed or paid.
    CartHeld,
    /// The screen's sale has lines: Hold it (or finish it) before recalling another.
    ScreenBusy,
}

impl HeldRefusal {
    /// The ledger's refusal, one arm each.
    pub fn of(r: HoldRefusal) -> HeldRefusal {
        match r {
            HoldRefusal::Empty => HeldRefusal::Empty,
            HoldRefusal::Tendered => HeldRefusal::Tendered,
            HoldRefusal::AtLimit { max } => HeldRefusal::AtLimit { max },
            HoldRefusal::NotHeld => HeldRefusal::NotHeld,
        }
    }

    pub fn code(self) -> ErrorCode {
        match self {
            HeldRefusal::Empty => ErrorCode::HoldEmpty,
            HeldRefusal::Tendered => ErrorCode::HoldTendered,
            HeldRefusal::AtLimit { .. } => ErrorCode::HoldLimit,
            HeldRefusal::NotHeld => ErrorCode::NotHeld,
            HeldRefusal::CartHeld => ErrorCode::CartHeld,
            HeldRefusal::ScreenBusy => ErrorCode::RecallScreenBusy,
        }
    }

    pub fn words(self) -> String {
        match self {
            HeldRefusal::Empty => t(id!("held-error-empty")),
            HeldRefusal::Tendered => t(id!("held-error-tendered")),
            HeldRefusal::AtLimit { max } => tr!(active(), "held-error-limit", max = max),
            HeldRefusal::NotHeld => t(id!("held-error-not-held")),
            HeldRefusal::CartHeld => t(id!("held-error-cart-held")),
            HeldRefusal::ScreenBusy => t(id!("held-error-screen-busy")),
        }
    }
}
