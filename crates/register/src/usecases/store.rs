//! The store's settings (name, address, locale, currency, tax setup, receipt texts) and
//! whether the back office publishes its tax setup.

use paydesk_ledger::{DemoLocale, Result, StoreSettings};

use crate::Engine;

/// Store use cases; see [`Engine::store`].
pub struct StoreCases<'e> {
    pub(super) engine: &'e Engine,
}

/// The settings and whether the back office publishes the tax setup, read together.
#[derive(Debug, Clone)]
pub struct StoreView {
    pub settings: StoreSettings,
    /// The version of the tax setup the back office published, if it manages it.
    pub tax_published: Option<i64>,
}

impl StoreCases<'_> {
    /// The stored settings.
    pub fn settings(&self) -> Result<StoreSettings> {
        self.engine.with_reader(|l| l.catalog().store_settings())
    }

    /// The settings with whether the tax setup is the back office's (one snapshot).
    pub fn view(&self) -> Result<StoreView> {
        self.engine.with_reader(|l| Ok(StoreView { settings: l.catalog().store_settings()?, tax_published: l.catalog().tax_published_version()? }))
    }

    /// Whether this store takes tax-exempt sales (record 0135).
    pub fn tax_exemptions_allowed(&self) -> Result<bool> {
        self.engine.with_reader(|l| l.catalog().tax_exemptions_allowed())
    }

    /// Turns tax-exempt sales on or off (`None`: the locale's default); the owner's, or
    /// with an owner's approval (`approver_id`, PIN checked by the caller).
    pub fn set_tax_exemptions(&self, allowed: Option<bool>, approver_id: Option<i64>) -> Result<()> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().set_tax_exemptions(allowed, approver_id, now))
    }

    /// The version of the tax setup the back office published, if any.
    pub fn tax_published_version(&self) -> Result<Option<i64>> {
        self.engine.with_reader(|l| l.catalog().tax_published_version())
    }

    /// Stores `new` in `actor_id`'s name (the ledger checks it and refuses a tax change
    /// the back office manages).
    pub fn set(&self, new: StoreSettings, actor_id: Option<i64>) -> Result<StoreSettings> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().set_store_settings(new, actor_id, now))
    }

    /// Changes the stored settings with `edit`, read and written in one write (nothing
    /// else changes them in between).
    pub fn update(&self, actor_id: Option<i64>, edit: impl FnOnce(&mut StoreSettings)) -> Result<StoreSettings> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| {
            let mut s = l.catalog().store_settings()?;
            edit(&mut s);
            l.catalog_mut().set_store_settings(s, actor_id, now)
        })
    }

    /// The demo store of `locale`: its settings and catalog.
    pub fn seed_demo(&self, locale: DemoLocale, actor_id: Option<i64>) -> Result<StoreSettings> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().seed_demo_store(locale, actor_id, now))
    }
}
