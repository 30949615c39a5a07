//! The counter rules saved as one (record 0136): the label rules, the open-price limit and
//! whether the store takes tax-exempt sales are one form in Settings, so they are one
//! write. Three transactions let a failure after the first leave the store half on the
//! new rules while the screen said the save failed.

use paydesk_tax::InStoreRule;

use super::label_rules::{set_label_rules_tx, LabelRules};
use crate::error::Result;
use crate::ledger::cart_lines::set_open_price_limit_tx;
use crate::ledger::tax_exempt::set_tax_exemptions_tx;
use crate::ledger::{Catalog, Ledger};

/// What a save changes; `None` leaves that rule as it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CounterRulesChange<'a> {
    /// `Some(None)`: back to the built-in rules; `Some(Some(list))`: the store's own.
    pub label_rules: Option<Option<&'a [InStoreRule]>>,
    pub open_price_limit_minor: Option<i64>,
    /// `Some(None)`: the locale's default.
    pub tax_exemptions: Option<Option<bool>>,
}

impl Catalog<&mut Ledger> {
    /// Writes every rule `change` names in one transaction, each audited as when set
    /// alone (`actor_id` for the rules and the limit; the tax-exemption switch checks the
    /// person signed in and `approver_id`). All or none: any refusal or failure writes
    /// nothing. Answers the label rules in force after.
    pub fn save_counter_rules(&mut self, change: CounterRulesChange<'_>, actor_id: Option<i64>, approver_id: Option<i64>, now_ms: i64) -> Result<LabelRules> {
        let tx = self.write_tx()?;
        let labels = match change.label_rules {
            Some(rules) => set_label_rules_tx(&tx, rules, actor_id, now_ms)?,
            None => super::label_rules::label_rules_tx(&tx)?,
        };
        if let Some(limit) = change.open_price_limit_minor {
            set_open_price_limit_tx(&tx, limit, actor_id, now_ms)?;
        }
        if let Some(allowed) = change.tax_exemptions {
            set_tax_exemptions_tx(&tx, allowed, approver_id, now_ms)?;
        }
        tx.commit()?;
        Ok(labels)
    }
}
