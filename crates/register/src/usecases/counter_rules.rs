//! The store's counter rules (issue #30, record 0136), read and set together: the in-store
//! label rules the scan path reads labels by, the open-price limit above which a typed
//! price needs a manager, and whether the store takes tax-exempt sales. Who may set them is
//! the front end's gate (the app's `Operation` for `Action::Settings`); the ledger checks
//! the values and audits each change.

use paydesk_domain::Currency;
use paydesk_ledger::{CounterRulesChange, LabelRules, Result};
use paydesk_tax::InStoreRule;

use crate::Engine;

/// Counter rules use cases; see [`Engine::counter_rules`].
pub struct CounterRuleCases<'e> {
    pub(super) engine: &'e Engine,
}

/// The three rules as the store has them now (one snapshot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterRules {
    pub labels: LabelRules,
    /// Minor units of `currency`.
    pub open_price_limit: i64,
    pub currency: Currency,
    /// Whether tax-exempt sales are taken now.
    pub tax_exemptions: bool,
    /// The store's own setting; `None`: its locale's default.
    pub tax_exemptions_setting: Option<bool>,
}

impl CounterRuleCases<'_> {
    /// All three, read together.
    pub fn get(&self) -> Result<CounterRules> {
        self.engine.with_reader(|l| {
            let c = l.catalog();
            Ok(CounterRules {
                labels: c.label_rules()?,
                open_price_limit: c.open_price_limit()?,
                currency: c.store_settings()?.currency,
                tax_exemptions: c.tax_exemptions_allowed()?,
                tax_exemptions_setting: c.tax_exemptions_setting()?,
            })
        })
    }

    /// The label rules the scan path reads labels by (the defaults when the store set none).
    pub fn label_rules(&self) -> Result<Vec<InStoreRule>> {
        self.engine.with_reader(|l| Ok(l.catalog().label_rules()?.rules))
    }

    /// Saves what `change` names, all in one transaction or nothing (record 0136): the
    /// rules and the limit in `actor_id`'s name, the tax-exemption switch with
    /// `approver_id`'s approval where the person signed in may not set it.
    pub fn save(&self, change: CounterRulesChange<'_>, actor_id: Option<i64>, approver_id: Option<i64>) -> Result<LabelRules> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().save_counter_rules(change, actor_id, approver_id, now))
    }

    /// Replaces the label rules (`None`: back to the defaults; an empty list: no labels read).
    pub fn set_label_rules(&self, rules: Option<&[InStoreRule]>, actor_id: Option<i64>) -> Result<LabelRules> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().set_label_rules(rules, actor_id, now))
    }

    /// Sets the open-price limit in minor units of the store's currency.
    pub fn set_open_price_limit(&self, limit_minor: i64, actor_id: Option<i64>) -> Result<()> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().set_open_price_limit(limit_minor, actor_id, now))
    }

    /// Turns tax-exempt sales on or off (`None`: the locale's default), with the owner's
    /// approval where the person signed in is not the owner.
    pub fn set_tax_exemptions(&self, allowed: Option<bool>, approver_id: Option<i64>) -> Result<()> {
        self.engine.store().set_tax_exemptions(allowed, approver_id)
    }
}
