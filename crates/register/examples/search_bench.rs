//! Finding items with 50,000 in the catalog (issue #30, record 0133): ratios from ONE run
//! on this machine (record 0023), never asserted.
//!
//!     cargo run --release -p paydesk-register --example search_bench [-- N]
//!
//! Per query, through the engine as the app's `search_items` calls it (a ledger reader
//! connection): an exact SKU, a SKU prefix, an English name prefix, a katakana query for
//! hiragana names, a word inside names, a query nothing matches (the worst case: the
//! "contains" step reads the whole key table) and a one-letter query (thousands of
//! prefix matches sorted). Beside a raw `SELECT … WHERE name LIKE '%q%' LIMIT 50` over the
//! 50,000 products on its own SQLite connection (what a plain search column costs) and
//! the whole catalog listed (what a screen filtering it in the UI would read).

use std::sync::Arc;
use std::time::{Duration, Instant};

use paydesk_domain::money::Currency;
use paydesk_ledger::{CatalogItem, Ledger, SearchQuery, SeededKeys};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{Engine, EngineConfig, OsRandom, SystemClock};
use paydesk_tax::TaxClass;

const ITEMS: usize = 50_000;
const EN: [&str; 8] = ["Coffee", "Tea", "Bagel", "Muffin", "Salad", "Soup", "Chocolate", "Mug"];
const JA: [&str; 8] = ["こーひー", "おちゃ", "べーぐる", "まふぃん", "さらだ", "すーぷ", "ちょこれーと", "まぐかっぷ"];

fn us(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(500);
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("ledger.db");
    let mut ledger = Ledger::open_with_keys(&path, Box::new(SeededKeys::new(1)))?;
    let items: Vec<CatalogItem> = (0..ITEMS)
        .map(|i| CatalogItem {
            sku: format!("SKU-{i:05}"),
            barcode: None,
            name_en: format!("{} no. {i}", EN[i % 8]),
            name_ja: Some(format!("{} {i}", JA[(i / 8) % 8])),
            price_minor: 100 + i as i64,
            currency: Currency::Jpy,
            tax_class: TaxClass::Reduced,
            active: true,
            price_kind: paydesk_ledger::PriceKind::Fixed,
            unit: paydesk_tax::SaleUnit::Piece,
        })
        .collect();
    let t = Instant::now();
    ledger.catalog_mut().upsert(&items, None, 1)?;
    let load = t.elapsed();

    let raw = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let transport = Arc::new(HttpTransport::new("http://127.0.0.1:9", "sk_test_bench", Duration::from_secs(1)).expect("a transport to nowhere"));
    let engine = Engine::new(ledger, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default());

    // (label, query, results expected at least)
    let cases: [(&str, &str, usize); 7] = [
        ("exact SKU", "SKU-31415", 1),
        ("SKU prefix (10 items)", "sku-1234", 10),
        ("English name prefix", "Muffin", 50),
        ("katakana for hiragana names", "チョコレート", 50),
        ("contains, a word inside names", "no.4999", 11),
        ("no match (whole key table read)", "ぞうきん", 0),
        ("one letter (prefix of thousands)", "s", 50),
    ];
    let queries: Vec<SearchQuery> = cases.iter().map(|c| SearchQuery::parse(c.1).expect("a valid query")).collect();
    for (q, c) in queries.iter().zip(&cases) {
        let got = engine.catalog().search(q, None, 50)?.len();
        assert!(got >= c.2 && got <= 50, "{}: {got}", c.0);
    }

    // Interleaved blocks, so background load hits every variant alike.
    const BLOCKS: usize = 10;
    let mut d = vec![Duration::ZERO; cases.len() + 2];
    let mut like = raw.prepare_cached("SELECT sku FROM products WHERE name LIKE ?1 LIMIT 50")?;
    let listed = (n / 50).max(3);
    for b in 0..BLOCKS {
        let range = b * n / BLOCKS..(b + 1) * n / BLOCKS;
        let t = Instant::now();
        for _ in range.clone() {
            let k = like.query_map(["%zzz%"], |r| r.get::<_, String>(0))?.count();
            assert_eq!(k, 0);
        }
        d[0] += t.elapsed();
        for (i, q) in queries.iter().enumerate() {
            let t = Instant::now();
            for _ in range.clone() {
                std::hint::black_box(engine.catalog().search(q, None, 50)?);
            }
            d[i + 1] += t.elapsed();
        }
        let t = Instant::now();
        for _ in 0..listed.div_ceil(BLOCKS) {
            assert_eq!(engine.catalog().list()?.len(), ITEMS);
        }
        d[cases.len() + 1] += t.elapsed();
    }
    let raw_us = us(d[0], n);
    println!("paydesk-register search bench, {ITEMS} items (loaded in one transaction in {:.1} s), n = {n} queries each", load.as_secs_f64());
    println!("  {:<48} {raw_us:>9.1} µs/query", "raw SELECT … name LIKE '%q%' (no match, baseline)");
    for (i, c) in cases.iter().enumerate() {
        let v = us(d[i + 1], n);
        println!("  {:<48} {v:>9.1} µs/query  {:>6.2}× raw", format!("{} {:?}", c.0, c.1), v / raw_us);
    }
    let v = us(d[cases.len() + 1], listed.div_ceil(BLOCKS) * BLOCKS);
    println!("  {:<48} {v:>9.1} µs/query  {:>6.2}× raw", "the whole catalog listed (filtering in the UI)", v / raw_us);
    Ok(())
}
