//! The store's in-store label rules (issue #30, record 0136, schema v32): which GS1
//! restricted-circulation prefixes (02, 20–29) the store's scale or label printer uses, how
//! many digits after the prefix name the item, and whether the rest is a price or a weight.
//! Until a store sets its own, the built-in defaults apply (`paydesk_tax::default_in_store_rules`).
//! An empty list set on purpose means no label reading at all: every code is looked up as a
//! plain barcode. Replaced whole, in one transaction with its audit row (before and after).

use std::ops::Deref;

use paydesk_tax::{Embedded, InStoreRule};
use rusqlite::{params, Connection};
use serde::Serialize;

use crate::error::{Error, LabelRuleRefusal, Result};
use crate::ledger::audit::{append_audit, AuditInput};
use crate::ledger::{collect, Cached, Catalog, Ledger};
use crate::write_tx::WriteTx;

/// The most label rules a store keeps (the table's CHECK on `position`).
pub const MAX_LABEL_RULES: usize = 10;

/// The rules the scan path reads labels by, and whether they are the store's own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabelRules {
    pub rules: Vec<InStoreRule>,
    /// False: none set, the built-in defaults.
    pub own: bool,
}

fn refused(position: usize, why: LabelRuleRefusal) -> Error {
    Error::LabelRuleRefused { position, why }
}

/// Every rule valid (the same rule as `InStoreRule::validate`), no prefix twice, at most
/// [`MAX_LABEL_RULES`]. Positions in refusals are 1-based.
pub fn check_label_rules(rules: &[InStoreRule]) -> Result<()> {
    if rules.len() > MAX_LABEL_RULES {
        return Err(refused(0, LabelRuleRefusal::TooMany { max: MAX_LABEL_RULES }));
    }
    for (i, r) in rules.iter().enumerate() {
        let p = r.prefix.as_str();
        let restricted = p == "02" || (p.len() == 2 && p.starts_with('2') && p.bytes().all(|b| b.is_ascii_digit()));
        if !restricted {
            // At most a few characters of a bad prefix are repeated back.
            return Err(refused(i + 1, LabelRuleRefusal::Prefix { prefix: p.chars().take(8).collect() }));
        }
        if !(1..=9).contains(&r.item_digits) {
            return Err(refused(i + 1, LabelRuleRefusal::ItemDigits { digits: r.item_digits }));
        }
        if rules[..i].iter().any(|o| o.prefix == r.prefix) {
            return Err(refused(i + 1, LabelRuleRefusal::DuplicatePrefix { prefix: r.prefix.clone() }));
        }
        // The tax crate's own rule is the one the scan path applies: it must agree.
        debug_assert!(r.validate().is_ok());
    }
    Ok(())
}

fn value_str(v: Embedded) -> &'static str {
    match v {
        Embedded::Price => "price",
        Embedded::WeightGrams => "weight_grams",
    }
}

pub(super) fn label_rules_tx(conn: &Connection) -> Result<LabelRules> {
    let own: bool = conn.row_cached("SELECT EXISTS (SELECT 1 FROM in_store_rules_own WHERE id = 1)", [], |r| r.get(0))?;
    if !own {
        return Ok(LabelRules { rules: paydesk_tax::default_in_store_rules(), own: false });
    }
    let rules = collect(
        conn,
        "SELECT prefix, item_digits, value FROM in_store_rules ORDER BY position LIMIT 10",
        [],
        |r| {
            let (prefix, digits, value): (String, u8, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
            Ok(match value.as_str() {
                "price" => Ok(InStoreRule { prefix, item_digits: digits, value: Embedded::Price }),
                "weight_grams" => Ok(InStoreRule { prefix, item_digits: digits, value: Embedded::WeightGrams }),
                _ => Err(Error::UnknownValue { what: "label rule value", value }),
            })
        },
    )?;
    Ok(LabelRules { rules, own: true })
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The store's label rules (its own, or the defaults when it set none).
    pub fn label_rules(&self) -> Result<LabelRules> {
        label_rules_tx(&self.conn)
    }
}

impl Catalog<&mut Ledger> {
    /// Replaces the store's label rules: `Some(rules)` (checked by [`check_label_rules`];
    /// an empty list turns label reading off) or `None` (back to the defaults). Audited with
    /// `actor_id` and the rules before and after; the same rules again write nothing.
    pub fn set_label_rules(&mut self, rules: Option<&[InStoreRule]>, actor_id: Option<i64>, now_ms: i64) -> Result<LabelRules> {
        let tx = self.write_tx()?;
        let after = set_label_rules_tx(&tx, rules, actor_id, now_ms)?;
        tx.commit()?;
        Ok(after)
    }
}

/// Replaces the label rules inside `tx` (see [`Catalog::set_label_rules`]); audited when
/// they changed. Also part of the counter rules' one save (`counter_rules.rs`).
pub(crate) fn set_label_rules_tx(tx: &WriteTx<'_>, rules: Option<&[InStoreRule]>, actor_id: Option<i64>, now_ms: i64) -> Result<LabelRules> {
    if let Some(rules) = rules {
        check_label_rules(rules)?;
    }
    let before = label_rules_tx(tx)?;
    tx.exec_cached("DELETE FROM in_store_rules", [])?;
    match rules {
        None => {
            tx.exec_cached("DELETE FROM in_store_rules_own", [])?;
        }
        Some(rules) => {
            tx.exec_cached("INSERT OR IGNORE INTO in_store_rules_own (id) VALUES (1)", [])?;
            for (i, r) in rules.iter().enumerate() {
                tx.exec_cached(
                    "INSERT INTO in_store_rules (position, prefix, item_digits, value) VALUES (?1, ?2, ?3, ?4)",
                    params![i as i64 + 1, r.prefix, r.item_digits, value_str(r.value)],
                )?;
            }
        }
    }
    let after = label_rules_tx(tx)?;
    if after != before {
        let input = AuditInput {
            actor_id,
            before: Some(serde_json::to_string(&before)?),
            after: Some(serde_json::to_string(&after)?),
            ..AuditInput::new("in_store_rules", "store")
        };
        append_audit(tx, &input, now_ms)?;
    }
    Ok(after)
}
