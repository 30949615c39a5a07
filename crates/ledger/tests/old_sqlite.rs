//! Schema v14 (issue 28): a ledger made by this code opens in an older SQLite, the
//! system's own `sqlite3` (Debian 12: 3.40), so a support person can read it; and the facts
//! the recreated views build are byte for byte the ones v12/v13's views built.
//!
//! The `sqlite3` command line tool is installed by `make deps` (Makefile `APT_PKGS`).

use crate::common;
use common::*;
use paydesk_ledger::schema::MIGRATIONS;
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax as tax;
use std::path::Path;
use std::process::Command;

const T: i64 = 1_790_000_000_000;

/// The statement of `sql` from `start` through the first `end` after it.
fn statement<'a>(sql: &'a str, start: &str, end: &str) -> &'a str {
    let from = sql.find(start).unwrap_or_else(|| panic!("{start} not found"));
    let len = sql[from..].find(end).unwrap_or_else(|| panic!("{end} not found after {start}")) + end.len();
    &sql[from..from + len]
}

/// v12's sale view and v13's tax view, exactly as those migrations shipped them.
fn old_sale_view() -> &'static str {
    statement(MIGRATIONS[11], "CREATE VIEW sale_completed_facts AS", "FROM carts c;")
}
/// v14's sale view as it shipped (v26 lists lines by number since, record 0126).
fn v14_sale_view() -> &'static str {
    statement(MIGRATIONS[13], "CREATE VIEW sale_completed_facts AS", "FROM carts c;")
}
fn old_tax_view() -> &'static str {
    statement(MIGRATIONS[12], "CREATE VIEW local_tax_facts AS", "tax_published_version IS NULL;")
}

/// Two teas, then a mug: added against SKU order (MUG-001 < TEA-001), one line discounted.
fn tea_and_mug(l: &mut Ledger, at: i64) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, at).unwrap();
    l.carts_mut().add(cart, "TEA-001", 2, at).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, at).unwrap();
    l.carts_mut().set_line_discount(cart, "TEA-001", Some(tax::Discount::Percent { basis_points: 1000 }), at).unwrap();
    cart
}

fn sale_fact_in_outbox(l: &Ledger) -> String {
    l.connection()
        .query_row("SELECT fact FROM outbox WHERE json_extract(fact, '$.kind') = 'sale_completed' ORDER BY seq DESC LIMIT 1", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn the_recreated_views_build_byte_identical_facts_with_lines_in_sku_order() {
    let mut l = mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let cart = tea_and_mug(&mut l, T + 1);
    l.sales_mut().pay_cash(cart, 2000, None, T + 2).unwrap();
    // Since v29 (record 0131) the fact says ppm; the comparison below is of the views v14
    // recreated, on the file as the build before v29 left it.
    assert!(sale_fact_in_outbox(&l).contains(r#""rates":[{"class":"standard","ppm":100000,"#));
    common::undo_named_rates(l.connection());
    let written: String =
        l.connection().query_row("SELECT fact FROM sale_completed_facts WHERE cart_id = ?1", [cart.0], |r| r.get(0)).unwrap();
    let c = l.connection();
    c.execute_batch(&old_sale_view().replace("CREATE VIEW sale_completed_facts", "CREATE TEMP VIEW old_sale_facts")).unwrap();
    c.execute_batch(&v14_sale_view().replace("CREATE VIEW sale_completed_facts", "CREATE TEMP VIEW v14_sale_facts")).unwrap();
    c.execute_batch(&old_tax_view().replace("CREATE VIEW local_tax_facts", "CREATE TEMP VIEW old_tax_facts")).unwrap();
    let old: String = c.query_row("SELECT fact FROM temp.old_sale_facts WHERE cart_id = ?1", [cart.0], |r| r.get(0)).unwrap();
    let v14: String = c.query_row("SELECT fact FROM temp.v14_sale_facts WHERE cart_id = ?1", [cart.0], |r| r.get(0)).unwrap();
    assert_eq!(v14, old, "the v14 view's fact, byte for byte");
    let sku_order: serde_json::Value = serde_json::from_str(&v14).unwrap();
    let skus: Vec<&str> = sku_order["lines"].as_array().unwrap().iter().map(|x| x["sku"].as_str().unwrap()).collect();
    assert_eq!(skus, ["MUG-001", "TEA-001"]);
    // Since v26 (record 0126) the fact lists lines in the order they were rung, as the
    // cart and its locked tax do: the discount is still the locked tax's line at the same place.
    let v: serde_json::Value = serde_json::from_str(&written).unwrap();
    let skus: Vec<&str> = v["lines"].as_array().unwrap().iter().map(|x| x["sku"].as_str().unwrap()).collect();
    assert_eq!(skus, ["TEA-001", "MUG-001"]);
    assert_eq!(v["lines"][0]["discount"], 32, "the locked tax's line at the same place");
    // an empty sale: no lines is '[]', as the aggregate gave
    let empty = l.carts_mut().create(Currency::Jpy, T + 3).unwrap();
    let c = l.connection();
    let both = |id: i64| -> (String, String) {
        c.query_row(
            "SELECT (SELECT fact FROM sale_completed_facts WHERE cart_id = ?1), (SELECT fact FROM temp.old_sale_facts WHERE cart_id = ?1)",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    let (new, old) = both(empty.0);
    assert_eq!(new, old);
    assert!(new.contains(r#""lines":[]"#), "{new}");
    // the tax setup's rates, in id order
    let tax: (String, String) = c
        .query_row("SELECT (SELECT fact FROM local_tax_facts), (SELECT fact FROM temp.old_tax_facts)", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(tax.0, tax.1);
    assert!(tax.0.contains(r#""rates":[{"class":"#), "{}", tax.0);
}

#[test]
fn a_local_items_fact_is_stamped_with_the_clock_to_the_millisecond() {
    let mut l = mem();
    let before = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    l.catalog_mut().seed_demo_store(DemoLocale::EnUs, None, T).unwrap();
    let after = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let stamps: Vec<i64> = {
        let mut st = l.connection().prepare("SELECT at_ms FROM outbox WHERE json_extract(fact, '$.kind') = 'item_saved'").unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    assert!(!stamps.is_empty());
    assert!(stamps.iter().all(|&t| (before..=after).contains(&t)), "{stamps:?} not in {before}..={after}");
}

/// Runs the system's `sqlite3` on `path`; its stdout, or a panic with its stderr.
fn sqlite3(path: &Path, sql: &str) -> Result<String, String> {
    let out = Command::new("sqlite3")
        .arg("-batch")
        .arg(path)
        .arg(sql)
        .output()
        .expect("the sqlite3 command line tool (apt-get install sqlite3; `make deps` installs it)");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() && err.is_empty() {
        Ok(String::from_utf8(out.stdout).unwrap())
    } else {
        Err(err)
    }
}

/// Every view in the file, each read through once.
fn read_every_view(path: &Path) -> Result<String, String> {
    let views = sqlite3(path, "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name")?;
    let sql: String = views.lines().map(|v| format!("SELECT count(*) FROM \"{v}\";")).collect();
    assert!(views.lines().count() >= 4, "{views}");
    sqlite3(path, &sql)
}

/// A store with a paid sale, made by this code in a file.
/// Rung in SKU order (mug, then two teas with the discount): a file taken back to v13
/// is upgraded again through v26, which numbers its lines by SKU as a real v13 file's
/// were listed and locked (record 0126).
fn ledger_with_a_sale(path: &Path) -> (CartId, String) {
    let mut l = Ledger::open(path).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let cart = l.carts_mut().create(Currency::Jpy, T + 1).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, T + 1).unwrap();
    l.carts_mut().add(cart, "TEA-001", 2, T + 1).unwrap();
    l.carts_mut().set_line_discount(cart, "TEA-001", Some(tax::Discount::Percent { basis_points: 1000 }), T + 1).unwrap();
    l.sales_mut().pay_cash(cart, 2000, None, T + 2).unwrap();
    (cart, sale_fact_in_outbox(&l))
}

#[test]
fn a_ledger_made_by_this_code_reads_in_the_systems_sqlite3() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.db");
    let (cart, fact) = ledger_with_a_sale(&path);
    let version = sqlite3(&path, "SELECT sqlite_version()").unwrap();
    let n: i64 = sqlite3(&path, "SELECT count(*) FROM sqlite_schema").unwrap_or_else(|e| panic!("sqlite3 {version}: {e}")).trim().parse().unwrap();
    assert!(n > 40, "{n} schema objects");
    read_every_view(&path).unwrap_or_else(|e| panic!("sqlite3 {version}: {e}"));
    // the old SQLite builds the same fact from the view as the register wrote
    let again = sqlite3(&path, &format!("SELECT fact FROM sale_completed_facts WHERE cart_id = {}", cart.0)).unwrap();
    assert_eq!(again.trim_end(), fact, "sqlite3 {version}");
    // and its triggers run there: a price change there is stamped, not refused for a NULL time
    sqlite3(&path, "UPDATE products SET price_minor = price_minor + 1 WHERE sku = 'MUG-001'")
        .unwrap_or_else(|e| panic!("sqlite3 {version}: {e}"));
}

#[test]
fn a_v13_ledger_an_old_sqlite_cannot_read_is_upgraded_to_one_it_can() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v13.db");
    let (cart, fact) = ledger_with_a_sale(&path);
    // back to v13: its views and 'subsec' triggers as they shipped
    let c = rusqlite::Connection::open(&path).unwrap();
    crate::common::undo_named_rates(&c);
    let mut back = String::from("DROP VIEW sale_completed_facts; DROP VIEW local_tax_facts;\n");
    back += old_sale_view();
    back += old_tax_view();
    for t in ["outbox_item_added", "outbox_item_changed", "outbox_item_name_ja_added", "outbox_item_name_ja_changed", "outbox_item_name_ja_removed", "outbox_staff_changed"] {
        back += &format!("DROP TRIGGER {t};\n{}\n", statement(MIGRATIONS[12], &format!("CREATE TRIGGER {t} "), "END;"));
    }
    // and v14's lockout columns
    back += "DROP TABLE approval_pin_attempts; ALTER TABLE staff DROP COLUMN pin_locks; ALTER TABLE store_settings DROP COLUMN time_zone; PRAGMA user_version = 13;";
    c.execute_batch(&back).unwrap();
    drop(c);
    let e = sqlite3(&path, "SELECT count(*) FROM sqlite_schema").expect_err("v13 is unreadable for an old SQLite");
    assert!(e.contains("malformed database schema"), "{e}");

    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(count(&l, "SELECT count(*) FROM sqlite_schema WHERE sql LIKE '%subsec%'"), 0);
    drop(l);
    read_every_view(&path).unwrap();
    let again = sqlite3(&path, &format!("SELECT fact FROM sale_completed_facts WHERE cart_id = {}", cart.0)).unwrap();
    assert_eq!(again.trim_end(), fact);
}
