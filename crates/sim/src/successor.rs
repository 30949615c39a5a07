//! The replacement register of a run with restored sales (`restored.rs`): its engine and
//! what its cashier was told. Its own module so the driver can hold it without naming the
//! restored phase (which drives the simulation and so names the driver).

use paydesk_domain::Currency;
use paydesk_register::Engine;
use paydesk_tax::Returned;
use std::collections::BTreeMap;

/// What the successor's cashier was told.
#[derive(Debug, Clone)]
pub(crate) struct RestoredTold {
    /// The predecessor's sale (its cart id there).
    pub sale: i64,
    /// The restored return the answer named, with the lines and cash it told.
    pub return_id: i64,
    pub lines: Vec<Returned>,
    pub cash_out: i64,
    pub currency: Currency,
}

/// The replacement register.
pub(crate) struct Successor {
    pub(crate) engine: Option<Engine>,
    pub(crate) generation: u64,
    /// Answered restored returns and exchanges.
    pub(crate) told: Vec<RestoredTold>,
    /// Cash the successor's drawer took in (tendered less change) for exchanges' new sales.
    pub(crate) cash_in: BTreeMap<Currency, i64>,
    /// Restored returns or exchanges whose call crashed before answering.
    pub(crate) unanswered: u64,
}

impl Successor {
    pub(crate) fn engine(&self) -> Engine {
        self.engine.clone().expect("successor engine")
    }
}
