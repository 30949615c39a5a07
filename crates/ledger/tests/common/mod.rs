#![allow(dead_code)]
pub mod outbox;
use paydesk_domain::*;
use paydesk_ledger::*;

pub fn mem() -> Ledger {
    Ledger::open_in_memory(Box::new(SeededKeys::new(7))).unwrap()
}

pub fn usd(minor: i64) -> Money {
    Money::new(minor, Currency::Usd)
}

pub fn new_payment(l: &mut Ledger, minor: i64, now_ms: i64) -> Payment {
    l.payments_mut().create(&NewPayment { amount: usd(minor), options: CheckoutOptions::card("pm_card_visa") }, now_ms)
        .unwrap()
}

/// Forces a payment into any state by raw SQL (test set-up only; bypasses the table).
pub fn force_state(l: &Ledger, id: PaymentId, s: PaymentState) {
    l.connection()
        .execute("UPDATE payments SET state = ?2 WHERE id = ?1", rusqlite::params![id.0, s.as_str()])
        .unwrap();
}

pub fn count(l: &Ledger, sql: &str) -> i64 {
    l.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

pub fn seed(l: &mut Ledger) {
    l.carts_mut().seed_catalog(&[
        NewProduct { sku: "COF".into(), name: "Coffee".into(), price: usd(350) },
        NewProduct { sku: "BAG".into(), name: "Bagel".into(), price: usd(225) },
        NewProduct { sku: "YEN".into(), name: "Onigiri".into(), price: Money::new(180, Currency::Jpy) },
    ])
    .unwrap();
}

/// The schema version before named rates (v29, record 0131): ONE place, found by the
/// migration's text, so a renumbering at merge or a later migration moves every upgrade test
/// with it.
pub fn before_named_rates() -> usize {
    paydesk_ledger::schema::MIGRATIONS.iter().position(|m| m.contains("CREATE TEMP TABLE tax_rates_v28")).expect("the named rates migration")
}

/// The schema version before the tax-exempt sale (record 0135), by its migration's text.
pub fn before_tax_exempt() -> usize {
    paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("ALTER TABLE carts ADD COLUMN tax_exempt_reason"))
        .expect("the tax-exempt migration")
}

/// Puts back what the tax-exempt migration changed (record 0135): its trigger, the sale fact's
/// view as the migrations before it made it, and the two columns. Rows keep everything else.
pub fn undo_tax_exempt(c: &rusqlite::Connection) {
    // The later migration that rewrote a fact trigger first (it must not outlive a roll-back).
    undo_tender_staff(c);
    let old = rusqlite::Connection::open_in_memory().unwrap();
    for m in &paydesk_ledger::schema::MIGRATIONS[..before_tax_exempt()] {
        old.execute_batch(m).unwrap();
    }
    let view: String =
        old.query_row("SELECT sql FROM sqlite_schema WHERE name = 'sale_completed_facts'", [], |r| r.get(0)).unwrap();
    c.execute_batch(&format!(
        "DROP TRIGGER carts_tax_exempt_untendered;
         DROP VIEW sale_completed_facts;
         {view};
         ALTER TABLE carts DROP COLUMN tax_exempt_reason;
         ALTER TABLE store_settings DROP COLUMN tax_exemptions;"
    ))
    .unwrap();
}

/// Puts back what the named-rates migration changed, as the build before it left the file:
/// `tax_rates` and `return_rates` in basis points (rows converted back, ÷ 100), the three views
/// that read them as they were, and the taxes locked on carts in basis points. An upgrade test that rolls
/// a current file back to an older version calls this first; the later migrations, this one
/// included, then run again on the old shape. The old objects' SQL is read from a file built by
/// the migrations before it, so it is exactly what shipped.
pub fn undo_named_rates(c: &rusqlite::Connection) {
    // The later migrations first, newest first: they changed what this one made.
    undo_tender_staff(c);
    undo_item_fact_shape(c);
    undo_tax_exempt(c);
    let old = rusqlite::Connection::open_in_memory().unwrap();
    for m in &paydesk_ledger::schema::MIGRATIONS[..before_named_rates()] {
        old.execute_batch(m).unwrap();
    }
    let sql_of = |name: &str| -> String {
        old.query_row("SELECT sql FROM sqlite_schema WHERE name = ?1", [name], |r| r.get(0)).unwrap()
    };
    let views = ["sale_completed_facts", "return_recorded_facts", "local_tax_facts"];
    let mut s: String = views.iter().map(|v| format!("DROP VIEW {v};\n")).collect();
    s += "CREATE TEMP TABLE tr AS SELECT * FROM tax_rates; DROP TABLE tax_rates;\n";
    s += "CREATE TEMP TABLE rr AS SELECT * FROM return_rates; DROP TABLE return_rates;\n";
    s += &format!("{};\n", sql_of("tax_rates"));
    s += "INSERT INTO tax_rates (id, class, basis_points, effective_from) SELECT id, class, ppm / 100, effective_from FROM temp.tr; DROP TABLE temp.tr;\n";
    s += &format!("{};\n", sql_of("return_rates"));
    s += "INSERT INTO return_rates (return_id, class, basis_points, base_minor, tax_minor, gross_minor)
          SELECT return_id, class, ppm / 100, base_minor, tax_minor, gross_minor FROM temp.rr; DROP TABLE temp.rr;\n";
    for v in views {
        s += &format!("{};\n", sql_of(v));
    }
    c.execute_batch(&s).unwrap();
    // The taxes locked on carts, as the build before wrote them: basis points, no names or parts.
    let locked: Vec<(i64, String)> = {
        let mut st = c.prepare("SELECT id, tax_locked FROM carts WHERE tax_locked IS NOT NULL").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    };
    for (id, doc) in locked {
        let mut v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        let rows = [("/tax/rates", true), ("/tax/lines", false), ("/settings/rates/entries", false)];
        for (at, parts) in rows {
            for row in v.pointer_mut(at).and_then(|x| x.as_array_mut()).into_iter().flatten() {
                let o = row.as_object_mut().unwrap();
                let ppm = o.remove("ppm").unwrap().as_u64().unwrap();
                assert_eq!(ppm % 100, 0, "an older build cannot hold {ppm} ppm");
                o.insert("basis_points".into(), (ppm / 100).into());
                o.remove("name");
                if parts {
                    o.remove("parts");
                }
            }
        }
        c.execute("UPDATE carts SET tax_locked = ?2 WHERE id = ?1", rusqlite::params![id, v.to_string()]).unwrap();
    }
}

/// A fact as an older register queued it says `basis_points` (1000 = 10 %) where this one
/// says `ppm`; the back office reads both (record 0131). For comparing the two.
pub fn rates_in_ppm(mut fact: serde_json::Value) -> serde_json::Value {
    for r in fact.get_mut("rates").and_then(|x| x.as_array_mut()).into_iter().flatten() {
        let o = r.as_object_mut().unwrap();
        if let Some(bp) = o.remove("basis_points") {
            o.insert("ppm".into(), (bp.as_u64().unwrap() * 100).into());
        }
    }
    fact
}

/// Drops the triggers the item-fact-shape migration (record 0137, the register's side) put on
/// the three shape tables: a test that rolls a file back past it drops `local_item_facts`,
/// which they read.
pub fn undo_item_fact_shape(c: &rusqlite::Connection) {
    undo_tender_staff(c);
    for table in ["product_price_kinds", "product_units", "product_categories"] {
        for event in ["insert", "update", "delete"] {
            c.execute_batch(&format!("DROP TRIGGER IF EXISTS outbox_item_{table}_{event};")).unwrap();
        }
    }
}

/// The schema version before a tender's fact named its staff (record 0143), by its migration's text.
pub fn before_tender_staff() -> usize {
    paydesk_ledger::schema::MIGRATIONS.iter().position(|m| m.contains("'staff', NEW.staff_id")).expect("the tender staff migration")
}

/// Puts back `outbox_tender_added` as the migrations before the tender-staff one made it (its
/// SQL read from a file they built, so exactly what shipped). Safe to call twice: the chain of
/// undo helpers calls it from each of them.
pub fn undo_tender_staff(c: &rusqlite::Connection) {
    // The newer migrations first (records 0145, 0146): their triggers must not outlive a
    // roll-back past the tables they read.
    undo_ryoshusho_reissues(c);
    undo_audit_rows(c);
    let old = rusqlite::Connection::open_in_memory().unwrap();
    for m in &paydesk_ledger::schema::MIGRATIONS[..before_tender_staff()] {
        old.execute_batch(m).unwrap();
    }
    let trigger: String =
        old.query_row("SELECT sql FROM sqlite_schema WHERE name = 'outbox_tender_added'", [], |r| r.get(0)).unwrap();
    c.execute_batch(&format!("DROP TRIGGER IF EXISTS outbox_tender_added; {trigger};")).unwrap();
}

/// The schema version before returns of restored sales (record 0144), by its migration's text.
pub fn before_restored_returns() -> usize {
    paydesk_ledger::schema::MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS restored_returns")).expect("the restored returns migration")
}

/// Puts back what the restored-returns migration changed (record 0144): drops its tables,
/// view and indexes and makes the two payment triggers again as the migrations before it
/// left them (their SQL read from a file they built). Safe to call twice. Not part of the
/// older helpers' chain: the migration is written to run again over its own objects
/// (`IF NOT EXISTS`, `DROP … IF EXISTS`), so a file rolled back further keeps them, as it
/// keeps every other later table, and the upgrade tests' row counts stay comparable.
pub fn undo_restored_returns(c: &rusqlite::Connection) {
    let old = rusqlite::Connection::open_in_memory().unwrap();
    for m in &paydesk_ledger::schema::MIGRATIONS[..before_restored_returns()] {
        old.execute_batch(m).unwrap();
    }
    let sql_of = |name: &str| -> String { old.query_row("SELECT sql FROM sqlite_schema WHERE name = ?1", [name], |r| r.get(0)).unwrap() };
    let mut s = String::from(
        "DROP TRIGGER IF EXISTS restored_return_prints_one_original; DROP TABLE IF EXISTS restored_return_prints;
         DROP VIEW IF EXISTS restored_return_facts;
         DROP TABLE IF EXISTS restored_return_tenders; DROP TABLE IF EXISTS restored_return_rates;
         DROP TABLE IF EXISTS restored_return_lines; DROP TABLE IF EXISTS restored_returns;
         DROP INDEX IF EXISTS restored_history_by_sale; DROP INDEX IF EXISTS restored_history_by_key;
         DROP INDEX IF EXISTS restored_history_by_refund;
         DROP TRIGGER IF EXISTS outbox_payment_created; DROP TRIGGER IF EXISTS outbox_payment_state;
         DROP TABLE IF EXISTS restored_payments;\n",
    );
    for t in ["outbox_payment_created", "outbox_payment_state"] {
        s += &format!("{};\n", sql_of(t));
    }
    c.execute_batch(&s).unwrap();
}

/// Drops the triggers of the v37 migration (record 0145): the new ryōshūsho's checks and the
/// `exchange_recorded` fact read `sales_sent`, `returns` and the ryōshūsho tables, which a
/// test rolling a file back past them drops (and SQLite checks every trigger on ALTER TABLE).
/// The tables stay, empty in older files: made again by the migrations `IF NOT EXISTS`, as
/// are the triggers. Safe to call twice.
pub fn undo_ryoshusho_reissues(c: &rusqlite::Connection) {
    c.execute_batch(
        "DROP TRIGGER IF EXISTS ryoshusho_reissue_replaces_one_taken_back; DROP TRIGGER IF EXISTS ryoshusho_reissue_within_kept;
         DROP TRIGGER IF EXISTS ryoshusho_reissue_taken_back_stays; DROP TRIGGER IF EXISTS outbox_exchange_recorded;",
    )
    .unwrap();
}

/// The schema version before audit rows and receipt texts went up (record 0146), by its
/// migration's text.
pub fn before_audit_rows() -> usize {
    paydesk_ledger::schema::MIGRATIONS.iter().position(|m| m.contains("CREATE TABLE IF NOT EXISTS receipt_texts")).expect("the audit rows migration")
}

/// Drops the two triggers the audit-rows migration made (record 0146), so a file rolled back
/// past it sends no audit rows until it is upgraded again. Its table stays (the migration makes
/// it `IF NOT EXISTS`; a file whose version is not rolled back must keep it). Safe to call twice:
/// every undo helper of the chain calls it through `undo_tender_staff`.
pub fn undo_audit_rows(c: &rusqlite::Connection) {
    c.execute_batch("DROP TRIGGER IF EXISTS outbox_audit_row; DROP TRIGGER IF EXISTS outbox_receipt_printed;").unwrap();
}

/// The schema version before prints of restored returns' documents (schema v39), by its
/// migration's text.
pub fn before_restored_return_prints() -> usize {
    paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("CREATE TABLE IF NOT EXISTS restored_return_prints"))
        .expect("the restored return prints migration")
}

/// Drops what schema v39 made (its table and trigger), for a file rolled back before it.
/// Safe to call twice; `undo_restored_returns` calls it too (the table references theirs).
pub fn undo_restored_return_prints(c: &rusqlite::Connection) {
    undo_restored_exchanges(c);
    c.execute_batch("DROP TRIGGER IF EXISTS restored_return_prints_one_original; DROP TABLE IF EXISTS restored_return_prints;").unwrap();
}

/// The schema version before exchanges of restored sales (schema v40), by its migration's text.
pub fn before_restored_exchanges() -> usize {
    paydesk_ledger::schema::MIGRATIONS
        .iter()
        .position(|m| m.contains("CREATE TABLE IF NOT EXISTS restored_exchanges"))
        .expect("the restored exchanges migration")
}

/// Drops what schema v43 made (one table, three triggers), for a file rolled back before it.
/// Safe to call twice; `undo_restored_exchanges` calls it too (its table references theirs).
pub fn undo_restored_credit_returns(c: &rusqlite::Connection) {
    c.execute_batch(
        "DROP TRIGGER IF EXISTS restored_credit_returns_within_credit; DROP TRIGGER IF EXISTS restored_credit_returns_on_restored_payment;
         DROP TRIGGER IF EXISTS restored_credit_returns_return_once; DROP TABLE IF EXISTS restored_exchange_credit_returns;",
    )
    .unwrap();
}

/// Drops what schema v40 made (two tables, four triggers), for a file rolled back before it,
/// and v42's link table and trigger and v43's give-backs, which reference them.
/// Safe to call twice; `undo_restored_return_prints` (and so `undo_restored_returns`) calls
/// it too (its tables reference `restored_returns`).
pub fn undo_restored_exchanges(c: &rusqlite::Connection) {
    undo_restored_credit_returns(c);
    c.execute_batch(
        "DROP TRIGGER IF EXISTS outbox_restored_exchange_recorded; DROP TABLE IF EXISTS restored_exchanges_sent;
         DROP TRIGGER IF EXISTS exchanges_one_credit_restored; DROP TRIGGER IF EXISTS restored_exchanges_one_credit;
         DROP TRIGGER IF EXISTS restored_exchanges_within_return; DROP TRIGGER IF EXISTS restored_exchange_credits_within_credit;
         DROP TABLE IF EXISTS restored_exchange_credits; DROP TABLE IF EXISTS restored_exchanges;",
    )
    .unwrap();
}

pub fn count_in(c: &rusqlite::Connection, sql: &str) -> i64 {
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}
