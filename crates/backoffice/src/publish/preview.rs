//! What a publish would change (record 0147), from the plan the publish itself computes:
//! per item, member or part of the tax setup, the fields old → new. Pure: the reads are
//! the plan's and the route's.
use super::{Entry, FieldChange};
use crate::admin::staff::{MemberForm, StaffPlan};
use paydesk_sync_proto::catalog::class_name;
use paydesk_sync_proto::{Item, StoreTax, TaxRate};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Added, changed and removed entries, and how many were sent unchanged.
#[derive(Debug, Default, PartialEq)]
pub struct Diff {
    pub added: Vec<Entry>,
    pub changed: Vec<Entry>,
    pub removed: Vec<Entry>,
    pub unchanged: usize,
}

/// The fields as the owner reads them, every one named (a default shape too).
fn item_fields(i: &Item) -> Vec<(&'static str, Value)> {
    vec![
        ("name_en", json!(i.name_en)),
        ("name_ja", json!(i.name_ja)),
        ("barcode", json!(i.barcode)),
        ("price", json!(i.price)),
        ("currency", json!(i.currency)),
        ("tax_class", json!(class_name(i.tax_class))),
        ("active", json!(i.active)),
        ("price_kind", json!(i.price_kind.as_str())),
        ("unit", json!(i.unit.as_str())),
        ("category", json!(i.category)),
    ]
}

/// The fields that differ between `old` (None: nothing yet) and `new`.
fn fields(old: Option<Vec<(&'static str, Value)>>, new: Vec<(&'static str, Value)>) -> Vec<FieldChange> {
    let old: HashMap<&str, Value> = old.unwrap_or_default().into_iter().collect();
    new.into_iter()
        .filter_map(|(field, new)| {
            let was = old.get(field).cloned().unwrap_or(Value::Null);
            (was != new).then_some(FieldChange { field, old: was, new })
        })
        .collect()
}

/// An entry goes to `removed` when the publish retires it (active → not active).
fn place(diff: &mut Diff, existed: bool, retires: bool, entry: Entry) {
    if entry.fields.is_empty() {
        diff.unchanged += 1;
    } else if !existed {
        diff.added.push(entry);
    } else if retires {
        diff.removed.push(entry);
    } else {
        diff.changed.push(entry);
    }
}

/// The catalog: `items` as they will be stored against `stored`.
pub fn items(stored: &HashMap<String, Item>, items: &[Item]) -> Diff {
    let mut d = Diff::default();
    for i in items {
        let old = stored.get(&i.sku);
        let entry = Entry { key: i.sku.clone(), fields: fields(old.map(item_fields), item_fields(i)) };
        place(&mut d, old.is_some(), old.is_some_and(|o| o.active && !i.active), entry);
    }
    d
}

/// The staff: the request's members against the plan's stored ones. A PIN is "set",
/// never shown; a member sent with a PIN changes even when all else is the same (the
/// publish writes its new hash).
pub(crate) fn staff(plan: &StaffPlan, staff: &[MemberForm]) -> Diff {
    let mut d = Diff::default();
    for m in staff {
        let old = plan.stored.get(&m.name);
        let before = old.map(|o| vec![("role", json!(o.role.as_str())), ("active", json!(o.active)), ("pin", Value::Null)]);
        let pin = if m.pin.is_some() { json!("set") } else { Value::Null };
        let after = vec![("role", json!(m.role.as_str())), ("active", json!(m.active)), ("pin", pin)];
        let entry = Entry { key: m.name.clone(), fields: fields(before, after) };
        place(&mut d, old.is_some(), old.is_some_and(|o| o.active && !m.active), entry);
    }
    d
}

/// A rate row's key: rows of one class and day stack by name (record 0131).
fn rate_key(r: &TaxRate) -> String {
    let from = r.effective_from.as_deref().unwrap_or("always");
    let name = if r.name.is_empty() { String::new() } else { format!(" {}", r.name) };
    format!("rate {}{name} from {from}", class_name(r.class))
}

/// The tax setup: the document's settings as one entry (`setup`), each rate row as one.
pub fn tax(old: Option<&StoreTax>, new: &StoreTax) -> Diff {
    let mut d = Diff::default();
    let setup = |t: &StoreTax| {
        vec![
            ("price_mode", serde_json::to_value(t.price_mode).unwrap_or(Value::Null)),
            ("rounding", serde_json::to_value(t.rounding).unwrap_or(Value::Null)),
            ("registration_number", json!(t.registration_number)),
        ]
    };
    place(&mut d, old.is_some(), false, Entry { key: "setup".into(), fields: fields(old.map(setup), setup(new)) });
    let old_rates: HashMap<String, &TaxRate> = old.map(|t| t.rates.iter().map(|r| (rate_key(r), r)).collect()).unwrap_or_default();
    let new_keys: Vec<String> = new.rates.iter().map(rate_key).collect();
    for (r, key) in new.rates.iter().zip(&new_keys) {
        let before = old_rates.get(key).map(|o| vec![("ppm", json!(o.ppm))]);
        place(&mut d, before.is_some(), false, Entry { key: key.clone(), fields: fields(before, vec![("ppm", json!(r.ppm))]) });
    }
    if let Some(o) = old {
        for r in &o.rates {
            let key = rate_key(r);
            if !new_keys.contains(&key) {
                d.removed.push(Entry { key, fields: vec![FieldChange { field: "ppm", old: json!(r.ppm), new: Value::Null }] });
            }
        }
    }
    d
}
