//! The store's own tender types (record 0118): listed for the counter, added and switched
//! off by a manager or the owner (the ledger checks who is signed in).

use paydesk_domain::{StoreTenderKind, TenderType, TenderTypeId};
use paydesk_ledger::Result;

use crate::Engine;

/// Tender type use cases; see [`Engine::tender_types`].
pub struct TenderTypeCases<'e> {
    pub(super) engine: &'e Engine,
}

impl TenderTypeCases<'_> {
    /// Every tender type, in the order added (inactive ones too).
    pub fn list(&self) -> Result<Vec<TenderType>> {
        self.engine.with_reader(|l| l.tender_types().list())
    }

    /// The active ones: what the counter offers.
    pub fn offered(&self) -> Result<Vec<TenderType>> {
        Ok(self.list()?.into_iter().filter(|t| t.active).collect())
    }

    /// Adds a tender type.
    pub fn add(&self, name: &str, kind: StoreTenderKind, gives_change: bool, counts_for_stamp: bool) -> Result<TenderType> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.tender_types_mut().add(name, kind, gives_change, counts_for_stamp, now))
    }

    /// Offers a tender type again, or stops offering it.
    pub fn set_active(&self, id: TenderTypeId, active: bool) -> Result<TenderType> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.tender_types_mut().set_active(id, active, now))
    }
}
