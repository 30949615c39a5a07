//! Returns and the drawer's cash refunds in the outbox (record 0119, schema v21): a return
//! is one `return_recorded` row, written with the return, and each cash hand-back (by a
//! return or a refund by amount) one `cash_refunded` row, written with its drawer movement;
//! a v20 file is back-filled with exactly the rows a v21 register would have written.
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;
use serde_json::Value;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

fn facts(l: &Ledger, kinds: &[&str]) -> Vec<Value> {
    let rows = l.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap();
    rows.iter()
        .map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap())
        .filter(|f| kinds.contains(&f["kind"].as_str().unwrap()))
        .collect()
}

/// A cash sale of CRO-001, MUG-001 and TEA-001 ×2 (lines in that order); the mug comes
/// back, 100 is refunded by amount, then a tea comes back.
fn sale_with_returns(l: &mut Ledger) -> CartId {
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let cart = l.carts_mut().create(Currency::Jpy, AT).unwrap();
    for (sku, q) in [("TEA-001", 2), ("MUG-001", 1), ("CRO-001", 1)] {
        l.carts_mut().add(cart, sku, q, AT).unwrap();
    }
    l.sales_mut().pay_cash(cart, 10_000, None, AT + 1).unwrap();
    l.returns_mut().take_back(cart, &[Returned { line: 1, quantity: 1 }], Some("chipped"), false, AT + 2).unwrap();
    l.sales_mut().plan_refund(cart, Some(100), Some("goodwill"), AT + 3).unwrap();
    l.returns_mut().take_back(cart, &[Returned { line: 2, quantity: 1 }], None, false, AT + 4).unwrap();
    cart
}

#[test]
fn each_return_and_each_cash_hand_back_is_one_outbox_row_with_the_ledgers_figures() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(3))).unwrap();
    let cart = sale_with_returns(&mut l);
    let returns = l.returns().by_sale(cart).unwrap();
    let got = facts(&l, &["return_recorded", "cash_refunded"]);
    let kinds: Vec<&str> = got.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    // the movement is written inside the return, before the return's own row
    assert_eq!(kinds, ["cash_refunded", "return_recorded", "cash_refunded", "cash_refunded", "return_recorded"]);
    let recorded: Vec<&Value> = got.iter().filter(|f| f["kind"] == "return_recorded").collect();
    for (f, r) in recorded.iter().zip(&returns) {
        assert_eq!((f["sale"].as_i64(), f["return_no"].as_str(), f["total"].as_i64(), f["tax_total"].as_i64(), f["cash_out"].as_i64()),
                   (Some(cart.0), Some(r.number.as_str()), Some(r.total_minor), Some(r.tax_minor), Some(r.cash_out_minor)));
        let lines: Vec<(i64, &str, i64, i64)> = f["lines"].as_array().unwrap().iter()
            .map(|x| (x["line"].as_i64().unwrap(), x["sku"].as_str().unwrap(), x["quantity"].as_i64().unwrap(), x["net"].as_i64().unwrap()))
            .collect();
        let want: Vec<(i64, &str, i64, i64)> = r.lines.iter().map(|x| (x.line as i64, x.sku.as_str(), i64::from(x.quantity), x.net_minor)).collect();
        assert_eq!(lines, want);
        let gross: i64 = f["rates"].as_array().unwrap().iter().map(|x| x["gross"].as_i64().unwrap()).sum();
        assert_eq!(gross, r.total_minor);
    }
    let cash: Vec<i64> = got.iter().filter(|f| f["kind"] == "cash_refunded").map(|f| f["amount"].as_i64().unwrap()).collect();
    assert_eq!(cash, [returns[0].cash_out_minor, 100, returns[1].cash_out_minor]);
    // and the drawer agrees: every cash hand-back is in the outbox, no more
    let out: i64 = l.connection().query_row("SELECT -sum(amount_minor) FROM cash_movements WHERE kind = 'refund_out'", [], |r| r.get(0)).unwrap();
    assert_eq!(cash.iter().sum::<i64>(), out);
}

#[test]
fn a_v20_file_is_back_filled_with_the_rows_a_v21_register_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let live = {
        let mut l = Ledger::open(&path).unwrap();
        sale_with_returns(&mut l);
        facts(&l, &["return_recorded", "cash_refunded"])
    };
    assert_eq!(live.len(), 5);
    // The v20 file: without v21's table, view and triggers, and without their rows (the
    // rest renumbered from 1, as a v20 register would have them).
    let others = {
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_named_rates(&c);
        c.execute_batch(
            "DROP TRIGGER outbox_return_recorded; DROP TRIGGER outbox_cash_refunded; DROP VIEW return_recorded_facts;
             DROP TABLE returns_sent;
             CREATE TEMP TABLE kept AS SELECT row_number() OVER (ORDER BY seq) AS n, at_ms, fact FROM outbox
                 WHERE json_extract(fact, '$.kind') NOT IN ('return_recorded', 'cash_refunded');
             DELETE FROM outbox;
             UPDATE outbox_seq SET high_water = 0, acked_through = 0;
             INSERT INTO outbox (seq, at_ms, fact) SELECT n, at_ms, fact FROM temp.kept ORDER BY n;
             PRAGMA user_version = 20;",
        )
        .unwrap();
        c.query_row("SELECT count(*) FROM outbox", [], |r| r.get::<_, i64>(0)).unwrap()
    };
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let rows = l.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap();
    let kinds: Vec<String> = rows.iter().map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap()["kind"].as_str().unwrap().to_string()).collect();
    assert_eq!(rows.len() as i64, others + 5, "{kinds:?}");
    assert!(rows.windows(2).all(|w| w[1].seq == w[0].seq + 1), "seqs follow on");
    // returns first, then the cash, each by id: the same facts, after everything before
    let back: Vec<Value> = rows[others as usize..].iter().map(|r| serde_json::from_str(&r.fact_json).unwrap()).collect();
    let mut want: Vec<Value> = live.iter().filter(|f| f["kind"] == "return_recorded").cloned().collect();
    want.extend(live.iter().filter(|f| f["kind"] == "cash_refunded").cloned());
    // Back-filled by v21 from the rates as the older build stored them (basis points).
    assert_eq!(back.into_iter().map(crate::common::rates_in_ppm).collect::<Vec<_>>(), want);
    assert!(l.audit().verify(None).unwrap().is_intact());
}
