//! Stripe-compatible PSP client, one file per concern: the wire types of its answers
//! (`wire`), the classified result of one attempt (`outcome`), the table that classifies
//! an answer (record 0007, `classify`), and the requests with the client that sends one
//! attempt (`requests`). Everything is re-exported here: callers name `psp::X`.

mod classify;
mod outcome;
mod requests;
mod terminal;
mod wire;

pub use classify::{classify, parse_retry_after};
pub use outcome::{AttemptOutcome, Decline, Fatal, RetryReason};
pub use requests::{CreateIntent, CreateRefund, PspClient};
pub use terminal::{CardPresent, CardPresentReceipt, Charge, Location, PaymentMethodDetails, ProcessAction, Reader, ReaderAction, ReaderActionKind, ReaderActionStatus, ReaderStatus, ReaderCart, ReaderCartLine};
pub use wire::{parse_error, Event, EventData, EventRequest, List, PaymentIntent, PiStatus, Refund, StripeError};
