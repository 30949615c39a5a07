//! The scan path with 50,000 items (issue #30, record 0115): ratios from ONE run on this
//! machine (record 0023), never asserted.
//!
//!     cargo run --release -p paydesk-register --example scan_bench [-- N]
//!
//! Per scan, through the engine as the app calls it (`engine.catalog().scan`, a ledger
//! reader connection): a known barcode, an unknown barcode, an in-store price label;
//! beside a raw indexed `SELECT sku FROM products WHERE barcode = ?` on its own SQLite
//! connection to the same file, and beside what an unknown scan cost before (the app
//! listed the whole catalog into a table on every miss).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use paydesk_domain::money::Currency;
use paydesk_ledger::{CatalogItem, Ledger, SeededKeys};
use paydesk_register::transport::HttpTransport;
use paydesk_register::usecases::Scanned;
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use paydesk_tax::{default_in_store_rules, ean_check_digit, Gtin13, TaxClass};

const ITEMS: usize = 50_000;

fn with_check(data: &str) -> String {
    let d: Vec<u8> = data.bytes().map(|b| b - b'0').collect();
    format!("{data}{}", ean_check_digit(&d))
}

fn us(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("ledger.db");
    let mut ledger = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(1)))?;
    let item = |sku: String, barcode: Option<String>, price: i64| CatalogItem {
        sku,
        barcode: barcode.map(|b| Gtin13::parse(&b).expect("a valid code")),
        name_en: "Item".into(),
        name_ja: None,
        price_minor: price,
        currency: Currency::Jpy,
        tax_class: TaxClass::Reduced,
        active: true,
        price_kind: paydesk_ledger::PriceKind::Fixed,
        unit: paydesk_tax::SaleUnit::Piece,
    };
    let mut items: Vec<CatalogItem> =
        (0..ITEMS - 1).map(|i| item(format!("SKU-{i:05}"), Some(with_check(&format!("4900{i:08}"))), 100 + i as i64)).collect();
    items.push(item("0212345".into(), None, 398));
    let t = Instant::now();
    ledger.catalog_mut().upsert(&items, None, 1)?;
    let load = t.elapsed();

    let known: Vec<String> = (0..n).map(|i| with_check(&format!("4900{:08}", (i * 7919) % (ITEMS - 1)))).collect();
    let unknown: Vec<String> = (0..n).map(|i| with_check(&format!("4901{i:08}"))).collect();
    let label = with_check("021234500398");

    let raw = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let transport = Arc::new(HttpTransport::new("http://127.0.0.1:9", "sk_test_bench", Duration::from_secs(1)).expect("a transport to nowhere"));
    let engine = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default());
    let rules = default_in_store_rules();

    // Warm: each statement prepared once, the pages in the cache.
    assert_eq!(engine.catalog().scan(&known[0], &rules)?.sku().map(str::len), Some(9));
    assert_eq!(engine.catalog().scan(&label, &rules)?, Scanned::Item { sku: "0212345".into() });

    // Interleaved blocks, so background load hits every variant alike.
    const BLOCKS: usize = 10;
    let mut d = [Duration::ZERO; 5];
    let mut sql = raw.prepare_cached("SELECT sku FROM products WHERE barcode = ?1")?;
    for b in 0..BLOCKS {
        let range = b * n / BLOCKS..(b + 1) * n / BLOCKS;
        let t = Instant::now();
        for c in &known[range.clone()] {
            let sku: String = sql.query_row([c], |r| r.get(0))?;
            assert!(sku.starts_with("SKU-"));
        }
        d[0] += t.elapsed();
        let t = Instant::now();
        for c in &known[range.clone()] {
            assert!(matches!(engine.catalog().scan(c, &rules)?, Scanned::Item { .. }));
        }
        d[1] += t.elapsed();
        let t = Instant::now();
        for c in &unknown[range.clone()] {
            assert_eq!(engine.catalog().scan(c, &rules)?, Scanned::Unknown);
        }
        d[2] += t.elapsed();
        let t = Instant::now();
        for _ in range.clone() {
            assert!(matches!(engine.catalog().scan(&label, &rules)?, Scanned::Item { .. }));
        }
        d[3] += t.elapsed();
    }
    // Before: every unknown scan listed the catalog into a barcode → SKU table. Fewer
    // rounds: each one reads all 50,000 items.
    let before_n = (n / 100).max(5);
    let t = Instant::now();
    for c in &unknown[..before_n] {
        let table: HashMap<String, String> = engine
            .catalog()
            .list()?
            .into_iter()
            .filter(|i| i.active)
            .filter_map(|i| i.barcode.map(|b| (b.to_string(), i.sku)))
            .collect();
        assert!(!table.contains_key(c.as_str()));
    }
    d[4] = t.elapsed();

    let raw_us = us(d[0], n);
    println!("paydesk-register scan bench, {ITEMS} items (loaded in one transaction in {:.1} s), n = {n} scans each", load.as_secs_f64());
    println!("  raw indexed SELECT sku WHERE barcode = ? (baseline)  {raw_us:>9.1} µs/scan");
    for (name, t) in [("scan, known barcode (1 row read)", d[1]), ("scan, unknown barcode (2 rows read)", d[2]), ("scan, in-store price label (2 rows)", d[3])] {
        let v = us(t, n);
        println!("  {name:<48} {v:>9.1} µs/scan  {:>6.2}× raw", v / raw_us);
    }
    let v = us(d[4], before_n);
    println!("  {:<48} {v:>9.1} µs/scan  {:>6.0}× raw  (n = {before_n})", "before: unknown scan rebuilt the table", v / raw_us);
    Ok(())
}
