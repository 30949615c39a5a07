//! The `exchange_recorded` fact (record 0145, schema v37): an exchange's link between the old
//! sale, its return and the new sale is queued right after the return's own fact, once; and
//! the upgrade from the file before v37 queues the exchanges it holds, after everything
//! already queued.

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;
use serde_json::{json, Value};

const AT: i64 = 1_796_083_200_000;

/// A ja-JP store with a paid cash sale (0 COF-001 ×2, 1 MUG-001) exchanged: the mug for two
/// mugs, paid in cash. Answers (old, new, the return's number).
fn exchanged(l: &mut Ledger) -> (CartId, CartId, String) {
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let old = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    l.carts_mut().add(old, "COF-001", 2, AT).unwrap();
    l.carts_mut().add(old, "MUG-001", 1, AT).unwrap();
    let due = l.sales().by_cart(old).unwrap().totals.due_minor;
    l.sales_mut().pay_cash(old, due, None, AT + 1).unwrap();
    let new = l.carts_mut().create(Currency::Jpy, AT + 2).unwrap();
    l.carts_mut().add(new, "MUG-001", 2, AT + 2).unwrap();
    let x = l.returns_mut().exchange(old, &[Returned { line: 1, quantity: 1 }], new, None, false, AT + 3).unwrap();
    assert_eq!(x.credit_minor, 1650);
    (old, new, x.ret.record.number)
}

fn facts(l: &Ledger) -> Vec<Value> {
    l.sync_log().outbox_batch(0, 10_000).unwrap().iter().map(|r| serde_json::from_str(&r.fact_json).unwrap()).collect()
}

#[test]
fn an_exchange_is_queued_once_right_after_its_return() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap();
    let (old, new, number) = exchanged(&mut l);
    let all = facts(&l);
    let at = all.iter().position(|f| f["kind"] == "exchange_recorded").expect("the exchange's fact");
    assert_eq!(all[at - 1]["kind"], "return_recorded", "{all:?}");
    let exchange_id = l.returns().exchange_of_return(l.returns().by_sale(old).unwrap()[0].id).unwrap().unwrap().exchange_id;
    assert_eq!(
        all[at],
        json!({"kind": "exchange_recorded", "exchange": exchange_id, "old_sale": old.0, "return_no": number, "new_sale": new.0, "credit": 1650, "currency": "jpy",
               "credit_parts": [{"tender_seq": 1, "amount": 1650}]}),
        "since v44 the credit per tender of the old sale (record 0157): all of it out of its cash"
    );
    // Paying the rest sends the new sale, and no second link.
    l.sales_mut().pay_cash(new, 1650, None, AT + 4).unwrap();
    let all = facts(&l);
    assert_eq!(all.iter().filter(|f| f["kind"] == "exchange_recorded").count(), 1);
    assert!(all.iter().any(|f| f["kind"] == "sale_completed" && f["sale"] == new.0));
}

#[test]
fn the_upgrade_from_the_file_before_v37_queues_the_exchanges_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let queued = {
        let mut l = Ledger::open(&path).unwrap();
        // A file before v37 was before v38 too: its audit rows were not queued (record 0146).
        crate::common::undo_audit_rows(l.connection());
        exchanged(&mut l);
        facts(&l)
    };
    assert_eq!(queued.last().unwrap()["kind"], "exchange_recorded", "the exchange is the last fact");
    // The file before v37: no link table, no trigger, and so no link queued.
    let before = paydesk_ledger::schema::MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS ryoshusho_reissues")).unwrap();
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_ryoshusho_reissues(&c);
        c.execute_batch(&format!(
            "DROP TABLE exchanges_sent; DROP TABLE ryoshusho_reissues;
             DELETE FROM outbox WHERE seq = (SELECT high_water FROM outbox_seq WHERE id = 1);
             UPDATE outbox_seq SET high_water = high_water - 1 WHERE id = 1;
             PRAGMA user_version = {before};"
        ))
        .unwrap();
    }
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    // Queued by v37's trigger, as that version wrote it: without the credit per tender (v44,
    // record 0157), which a successor then refuses to guess.
    let mut queued = queued;
    assert!(queued.last_mut().unwrap().as_object_mut().unwrap().remove("credit_parts").is_some());
    assert_eq!(facts(&l), queued, "the same link, under the same seq");
    assert!(l.audit().verify(None).unwrap().is_intact());
}
