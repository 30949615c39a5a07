//! # paydesk-domain
//!
//! PayDesk's shared vocabulary (issue #31, decision 0107): the words every other crate
//! speaks, each defined once here. No I/O, no clock, no database: plain values, their
//! text forms and the rules that need nothing but the values.
//!
//! * [`money`] — [`Money`] as integer minor units, [`Currency`] with its ISO exponent,
//!   [`ValueError`] for text that names no value (record 0012).
//! * [`state`] — the one transition table per machine: payments and refunds (record 0014).
//! * [`tender`] — [`TenderKind`]: how a tender pays (record 0028).
//! * [`tender_type`] — [`TenderType`]: a tender the store defines itself (record 0118).
//! * [`locale`] — [`Locale`]: the language of the screen, the receipts and the store.

pub mod locale;
pub mod money;
pub mod state;
pub mod tender;
pub mod tender_type;

pub use locale::Locale;
pub use money::{Currency, Money, ValueError};
pub use state::{CaptureMethod, IllegalRefundTransition, IllegalTransition, PaymentState, RefundState, Step};
pub use tender::TenderKind;
pub use tender_type::{StoreTenderKind, TenderType, TenderTypeId};
