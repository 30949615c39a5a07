//! The simulated world: one virtual clock shared by the register and the mock PSP,
//! an in-process transport that calls [`MockPsp::handle`] directly, and the
//! bookkeeping of slow PSP executions that are still "running" in virtual time.
//!
//! Determinism: nothing here waits on the wall clock, and there is no other thread:
//! the PSP runs its writes inline on this thread
//! (`inline_writes_for_single_threaded_simulation`), and every PSP request is driven
//! to completion (or to its virtual sleep) before the simulation makes its next
//! decision, so the order of PSP writes — and with it every id, every fault draw and
//! every answer — is a pure function of the seed.

mod convert;
mod exchange;
mod exec;
mod time;
mod wire;

pub use convert::{http_response, psp_request};
pub use exec::{block_on, drive_psp, install_quiet_crash_hook, join2, CatchCrash, SimCrash};
pub use time::{PspClock, RegisterClock, TimeCore, YieldOnce};
pub use wire::{PlantedBug, SimTransport, Stored500, Wire, WireStats};

use mock_psp::Outcome;
use std::future::Future;
use std::pin::Pin;

pub type PspFuture = Pin<Box<dyn Future<Output = Outcome> + Send>>;

