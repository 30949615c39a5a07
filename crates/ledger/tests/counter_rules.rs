//! The store's in-store label rules (issue #30, record 0136, schema v32): none stored reads
//! the defaults, a list replaces them whole (an empty one turns labels off), a bad list is
//! refused with the rule and the reason and writes nothing, each change is audited with its
//! actor and the rules before and after, and the upgrade from v31 starts on the defaults.

use paydesk_ledger::schema::MIGRATIONS;
use paydesk_access::{Pin, Role};
use paydesk_ledger::*;
use paydesk_tax::{default_in_store_rules, Embedded, InStoreRule};

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

fn rule(prefix: &str, item_digits: u8, value: Embedded) -> InStoreRule {
    InStoreRule { prefix: prefix.into(), item_digits, value }
}

/// The schema version before the counter rules' migration, found by its text.
fn before_counter_rules() -> i64 {
    MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS in_store_rules ")).expect("the counter rules migration")
        as i64
}

/// actor, action, before, after
type AuditRow = (Option<i64>, String, Option<String>, Option<String>);

fn audit_rows(l: &Ledger) -> Vec<AuditRow> {
    let mut st = l
        .connection()
        .prepare("SELECT actor_id, action, before_doc, after_doc FROM audit_log WHERE action = 'in_store_rules' ORDER BY id")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))).unwrap().map(Result::unwrap).collect()
}

#[test]
fn none_stored_is_the_defaults_a_list_replaces_them_and_an_empty_list_reads_no_labels() {
    let mut l = crate::common::mem();
    let owner = l.roster_mut().add("Olivia", Role::Owner, &Pin::parse("1111").unwrap(), None, AT).unwrap().id;
    let r = l.catalog().label_rules().unwrap();
    assert_eq!((r.rules, r.own), (default_in_store_rules(), false));
    let mine = vec![rule("22", 4, Embedded::Price), rule("21", 5, Embedded::WeightGrams)];
    let set = l.catalog_mut().set_label_rules(Some(&mine), Some(owner), AT).unwrap();
    assert_eq!((set.rules.clone(), set.own), (mine.clone(), true));
    assert_eq!(l.catalog().label_rules().unwrap(), set, "read back in their order");
    // The same list again writes nothing.
    l.catalog_mut().set_label_rules(Some(&mine), Some(owner), AT + 1).unwrap();
    // Off: an empty list is kept as the store's choice, not the defaults.
    let off = l.catalog_mut().set_label_rules(Some(&[]), None, AT + 2).unwrap();
    assert_eq!((off.rules.len(), off.own), (0, true));
    // Reset: the defaults again.
    let reset = l.catalog_mut().set_label_rules(None, None, AT + 3).unwrap();
    assert_eq!((reset.rules, reset.own), (default_in_store_rules(), false));

    let rows = audit_rows(&l);
    assert_eq!(rows.len(), 3, "set, off, reset; the repeat wrote nothing");
    assert_eq!(rows[0].0, Some(owner), "the actor is named");
    let before: serde_json::Value = serde_json::from_str(rows[0].2.as_deref().unwrap()).unwrap();
    let after: serde_json::Value = serde_json::from_str(rows[0].3.as_deref().unwrap()).unwrap();
    assert_eq!(before["own"], false);
    assert_eq!(after["rules"][0], serde_json::json!({"prefix": "22", "item_digits": 4, "value": {"kind": "price"}}));
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_bad_list_is_refused_with_the_rule_and_why_and_nothing_is_written() {
    let mut l = crate::common::mem();
    let mine = vec![rule("22", 4, Embedded::Price)];
    l.catalog_mut().set_label_rules(Some(&mine), None, AT).unwrap();
    let refusal = |l: &mut Ledger, rules: &[InStoreRule]| match l.catalog_mut().set_label_rules(Some(rules), None, AT + 1).unwrap_err() {
        Error::LabelRuleRefused { position, why } => (position, why),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        refusal(&mut l, &[rule("22", 4, Embedded::Price), rule("45", 5, Embedded::Price)]),
        (2, LabelRuleRefusal::Prefix { prefix: "45".into() }),
        "a retail prefix is never a label"
    );
    assert_eq!(refusal(&mut l, &[rule("2", 4, Embedded::Price)]).1, LabelRuleRefusal::Prefix { prefix: "2".into() });
    assert_eq!(refusal(&mut l, &[rule("2a", 4, Embedded::Price)]).1, LabelRuleRefusal::Prefix { prefix: "2a".into() });
    assert_eq!(refusal(&mut l, &[rule("20", 0, Embedded::Price)]), (1, LabelRuleRefusal::ItemDigits { digits: 0 }));
    assert_eq!(refusal(&mut l, &[rule("20", 10, Embedded::Price)]), (1, LabelRuleRefusal::ItemDigits { digits: 10 }));
    assert_eq!(
        refusal(&mut l, &[rule("23", 4, Embedded::Price), rule("23", 5, Embedded::WeightGrams)]),
        (2, LabelRuleRefusal::DuplicatePrefix { prefix: "23".into() })
    );
    let eleven: Vec<_> = ["02", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29"].iter().map(|p| rule(p, 5, Embedded::Price)).collect();
    assert_eq!(refusal(&mut l, &eleven), (0, LabelRuleRefusal::TooMany { max: MAX_LABEL_RULES }));
    l.catalog_mut().set_label_rules(Some(&eleven[..10]), None, AT + 2).unwrap();
    l.catalog_mut().set_label_rules(Some(&mine), None, AT + 3).unwrap();
    assert_eq!(l.catalog().label_rules().unwrap().rules, mine, "the refused lists left the stored rules as they were");
    // The table's CHECKs are the last word, whatever writes to it.
    let raw = l.connection().execute("INSERT INTO in_store_rules (position, prefix, item_digits, value) VALUES (5, '45', 5, 'price')", []);
    assert!(raw.is_err());
    let raw = l.connection().execute("INSERT INTO in_store_rules (position, prefix, item_digits, value) VALUES (11, '25', 5, 'price')", []);
    assert!(raw.is_err());
    assert_eq!(audit_rows(&l).len(), 3);
}

#[test]
fn the_upgrade_from_v31_reads_the_defaults_and_then_stores_the_stores_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.sqlite");
    {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, AT).unwrap();
    }
    {
        // The file as v31 left it: no rules tables.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "DROP TABLE in_store_rules; DROP TABLE in_store_rules_own; PRAGMA user_version = {};",
            before_counter_rules()
        ))
        .unwrap();
        assert_eq!(before_counter_rules(), 31, "the counter rules are v32");
    }
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), schema::SCHEMA_VERSION);
    assert_eq!(l.catalog().label_rules().unwrap().rules, default_in_store_rules());
    l.catalog_mut().set_label_rules(Some(&[rule("22", 4, Embedded::Price)]), None, AT + 1).unwrap();
    assert_eq!(l.catalog().label_rules().unwrap().rules.len(), 1);
}

#[test]
fn the_three_rules_are_saved_together_or_not_at_all() {
    let mut l = crate::common::mem();
    let mine = vec![rule("22", 4, Embedded::Price)];
    let limit_before = l.catalog().open_price_limit().unwrap();
    let exempt_before = l.catalog().tax_exemptions_setting().unwrap();
    let change = CounterRulesChange { label_rules: Some(Some(&mine)), open_price_limit_minor: Some(777), tax_exemptions: Some(Some(true)) };
    // The last of the three fails (as a full disk or a damaged page would): the first two
    // must not stay written while the screen says the save failed.
    l.connection()
        .execute_batch("CREATE TRIGGER no_exempt BEFORE UPDATE OF tax_exemptions ON store_settings BEGIN SELECT RAISE(ABORT, 'planted failure'); END;")
        .unwrap();
    assert!(l.catalog_mut().save_counter_rules(change, None, None, AT).is_err());
    assert_eq!(l.catalog().label_rules().unwrap().rules, default_in_store_rules(), "label rules untouched");
    assert_eq!(l.catalog().open_price_limit().unwrap(), limit_before, "limit untouched");
    assert_eq!(l.catalog().tax_exemptions_setting().unwrap(), exempt_before);
    assert!(audit_rows(&l).is_empty(), "nothing audited for a save that did not happen");
    // Without the failure, all three at once, each audited.
    l.connection().execute_batch("DROP TRIGGER no_exempt;").unwrap();
    let labels = l.catalog_mut().save_counter_rules(change, None, None, AT + 1).unwrap();
    assert_eq!((labels.rules, labels.own), (mine.clone(), true));
    assert_eq!(l.catalog().open_price_limit().unwrap(), 777);
    assert_eq!(l.catalog().tax_exemptions_setting().unwrap(), Some(true));
    let actions: Vec<String> = l
        .connection()
        .prepare("SELECT action FROM audit_log WHERE action IN ('in_store_rules', 'open_price_limit', 'store_tax_exemptions') ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(actions, ["in_store_rules", "open_price_limit", "store_tax_exemptions"]);
    // A change naming nothing writes nothing and answers the rules in force.
    let same = l.catalog_mut().save_counter_rules(CounterRulesChange::default(), None, None, AT + 2).unwrap();
    assert_eq!(same.rules, mine);
    assert!(l.audit().verify(None).unwrap().is_intact());
}
