//! Reports and the daily journal on a large store: ratios from ONE run on this machine
//! (record 0043), not a timed test.
//!
//!     cargo run --release -p paydesk-backoffice --example report_bench [-- SALES [DAYS]]
//!
//! A private PostgreSQL cluster (fsync on), the real service on loopback, one store with
//! one register holding SALES completed sales (default 1,000,000) spread over DAYS days
//! (default 365): two lines each at two tax rates, one cash or card tender (card captured),
//! loaded by `COPY` straight into the tables the registers' journals fill. Then, each next
//! to a plain `SELECT` of the same rows streamed to this process and summed here:
//! - the item report over the whole range (`GET /admin/reports?by=item`), and by tender;
//! - one day's journal in the freee format (`GET /admin/stores/ID/journal`).
//!
//! Peak memory is this process's (the service and the client: PostgreSQL's own backends
//! are not counted), VmHWM reset before each step through /proc/self/clear_refs.
use futures_util::{SinkExt, TryStreamExt};
use paydesk_backoffice::client::OwnerClient;
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_backoffice::state::Limits;
use paydesk_backoffice::{build, serve, Config};
use std::time::{Duration, Instant};

#[path = "support/mem.rs"]
mod mem;
use mem::{peak_rss, reset_peak_rss};

const DAY_MS: i64 = 86_400_000;
/// 2026-01-01 00:00 UTC: the first day's midnight (the store keeps UTC days).
const START_MS: i64 = 1_767_225_600_000;

/// Streams `text` into `table (columns)` with one `COPY`.
async fn copy(db: &tokio_postgres::Client, table_columns: &str, text: String) {
    let sink = db.copy_in(&format!("COPY {table_columns} FROM STDIN")).await.unwrap();
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::from(text)).await.unwrap();
    sink.as_mut().finish().await.unwrap();
}

/// SALES sales of one register, in chunks of 100,000 so no string gets large.
async fn load(db: &tokio_postgres::Client, store: &str, register: &str, sales: i64, days: i64) {
    const CHUNK: i64 = 100_000;
    let step_ms = (days * DAY_MS) / sales.max(1);
    for first in (1..=sales).step_by(CHUNK as usize) {
        let last = (first + CHUNK - 1).min(sales);
        let (mut s, mut l, mut r, mut t, mut p) = (String::new(), String::new(), String::new(), String::new(), String::new());
        for id in first..=last {
            let at = START_MS + (id - 1) * step_ms;
            // a mug (10 %) and teas (8 %), tax included: 1,650 + 2 x 160
            let qty = 1 + id % 3;
            let (mug, tea) = (1_650, 160 * qty);
            let total = mug + tea;
            let (mug_tax, tea_tax) = (150, tea * 8 / 108);
            s.push_str(&format!("{store}\t{register}\t{id}\t{id:08}\tjpy\ttake_out\tinclusive\t{total}\t0\t{}\t{total}\t{}\n", mug_tax + tea_tax, at + 2));
            l.push_str(&format!("{store}\t{register}\t{id}\t1\tMUG-{:03}\tmug\t1\t{mug}\tstandard\t0\t{mug}\n", id % 200));
            l.push_str(&format!("{store}\t{register}\t{id}\t2\tTEA-{:03}\ttea\t{qty}\t160\treduced\t0\t{tea}\n", id % 50));
            r.push_str(&format!("{store}\t{register}\t{id}\tstandard\t{}\t{mug_tax}\t{mug}\t100000\n", mug - mug_tax));
            r.push_str(&format!("{store}\t{register}\t{id}\treduced\t{}\t{tea_tax}\t{tea}\t80000\n", tea - tea_tax));
            if id % 2 == 0 {
                let key = format!("bench-{id}");
                t.push_str(&format!("{store}\t{register}\t{id}\t1\tcard\t{total}\tjpy\t{key}\t\\N\t\\N\t\\N\t\\N\t{at}\t\\N\n"));
                p.push_str(&format!("{store}\t{key}\t{register}\t{total}\tjpy\tcaptured\t{at}\t{}\n", at + 1));
            } else {
                t.push_str(&format!("{store}\t{register}\t{id}\t1\tcash\t{total}\tjpy\t\\N\t{total}\t0\t0\t\\N\t{at}\t\\N\n"));
            }
        }
        copy(db, "sales (store_id, register_id, sale_id, receipt_no, currency, dining, price_mode, subtotal, sale_discount, tax_total, total, completed_at_ms)", s).await;
        copy(db, "sale_lines (store_id, register_id, sale_id, line_no, sku, name, quantity, unit_price, tax_class, discount, total)", l).await;
        copy(db, "sale_rates (store_id, register_id, sale_id, class, base, tax, gross, ppm)", r).await;
        copy(db, "payments (store_id, checkout_key, register_id, amount, currency, state, created_at_ms, updated_at_ms)", p).await;
        copy(db, "tenders (store_id, register_id, sale_id, tender_seq, method, amount, currency, checkout_key, cash_tendered, change_given, rounding, shift_id, created_at_ms, superseded_at_ms)", t).await;
    }
}

/// Times `f` and the peak memory it took.
async fn measured<T>(f: impl std::future::Future<Output = T>) -> (T, Duration, u64) {
    reset_peak_rss();
    let t = Instant::now();
    let out = f.await;
    (out, t.elapsed(), peak_rss())
}

/// The rows a query names, streamed here and summed: what any report must at least read.
async fn plain(db: &tokio_postgres::Client, sql: &str, params: &[&(dyn tokio_postgres::types::ToSql + Sync)]) -> (u64, i64) {
    let rows = db.query_raw(sql, params.iter().copied()).await.unwrap();
    let mut rows = Box::pin(rows);
    let (mut n, mut sum) = (0u64, 0i64);
    while let Some(r) = rows.try_next().await.unwrap() {
        n += 1;
        sum += r.get::<_, i64>(0);
    }
    (n, sum)
}

#[tokio::main]
async fn main() {
    let sales: i64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let days: i64 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(365).clamp(1, 900);
    let cluster = tokio::task::spawn_blocking(|| Cluster::start(ClusterOptions::default())).await.unwrap().expect("private PostgreSQL");
    cluster.create_db("paydesk").await.unwrap();
    let token = "bench-owner-token-0123456789";
    let st = build(&Config { database: cluster.conn_string("paydesk"), admin_token: token.into(), limits: Limits::default(), behind_tls: false }).await.unwrap();
    let running = serve(st, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let owner = OwnerClient::new(&running.url(), token);
    let store = owner.create_store("bench").await.unwrap();
    let code = owner.pairing_code(&store, "till").await.unwrap();
    let register = paydesk_backoffice::client::RegisterClient::pair(&owner.base, &code, "bench").await.unwrap().paired.register_id;
    let (db, conn) = tokio_postgres::connect(&cluster.conn_string("paydesk"), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);

    let t = Instant::now();
    load(&db, &store, &register, sales, days).await;
    db.batch_execute("ANALYZE").await.unwrap();
    let loaded = t.elapsed();

    let last_day = jiff::civil::date(2026, 1, 1).checked_add(jiff::Span::new().days(days - 1)).unwrap().to_string();
    let (from, to) = ("2026-01-01".to_string(), last_day);
    let report = |by: &'static str| {
        let (owner, store, from, to) = (owner.clone(), store.clone(), from.clone(), to.clone());
        async move { owner.get(&format!("/admin/reports?by={by}&from={from}&to={to}&store={store}")).await.unwrap() }
    };
    let (items, t_items, m_items) = measured(report("item")).await;
    let (tenders, t_tenders, m_tenders) = measured(report("tender")).await;
    let store_id: uuid::Uuid = store.parse().unwrap();
    let (plain_lines, t_plain_lines, m_plain_lines) = measured(plain(
        &db,
        "SELECT l.total FROM sale_lines l JOIN sales s USING (store_id, register_id, sale_id) WHERE s.store_id = $1",
        &[&store_id],
    ))
    .await;
    let (plain_tenders, t_plain_tenders, m_plain_tenders) =
        measured(plain(&db, "SELECT t.amount FROM tenders t WHERE t.store_id = $1", &[&store_id])).await;

    // one day in the middle of the range
    let day = jiff::civil::date(2026, 1, 1).checked_add(jiff::Span::new().days(days / 2)).unwrap().to_string();
    let http = reqwest::Client::new();
    let journal_url = format!("{}/admin/stores/{store}/journal?date={day}&format=freee", owner.base);
    let (csv, t_journal, m_journal) = measured(async { http.get(&journal_url).bearer_auth(token).send().await.unwrap().error_for_status().unwrap().bytes().await.unwrap() }).await;
    let day_from = START_MS + (days / 2) * DAY_MS;
    let (plain_day, t_plain_day, m_plain_day) = measured(plain(
        &db,
        "SELECT t.amount FROM tenders t WHERE t.store_id = $1 AND t.created_at_ms >= $2 AND t.created_at_ms < $3",
        &[&store_id, &day_from, &(day_from + DAY_MS)],
    ))
    .await;

    let item_rows = items["rows"].as_array().map_or(0, Vec::len);
    let net: i64 = items["rows"].as_array().unwrap().iter().map(|r| r["net"].as_i64().unwrap()).sum();
    let tender_net: i64 = tenders["rows"].as_array().unwrap().iter().map(|r| r["net"].as_i64().unwrap()).sum();
    assert_eq!(net, plain_lines.1, "the item report nets the lines' total");
    assert_eq!(tender_net, plain_tenders.1, "the tender report nets the tenders' total");
    let mib = |b: u64| b as f64 / 1_048_576.0;
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
    println!("reports on {sales} sales over {days} days, one register, PostgreSQL with fsync on (one run)");
    println!("  loaded by COPY (+ ANALYZE)                          {:>8.1} s", loaded.as_secs_f64());
    println!("  item report, whole range ({item_rows} rows)              {:>8.2} s  peak {:>6.1} MiB", t_items.as_secs_f64(), mib(m_items));
    println!("  plain SELECT of the same lines ({} rows)      {:>8.2} s  peak {:>6.1} MiB", plain_lines.0, t_plain_lines.as_secs_f64(), mib(m_plain_lines));
    println!("  ratio item report / plain SELECT                    {:>8.2}x", ratio(t_items, t_plain_lines));
    println!("  tender report, whole range                          {:>8.2} s  peak {:>6.1} MiB", t_tenders.as_secs_f64(), mib(m_tenders));
    println!("  plain SELECT of the same tenders ({} rows)    {:>8.2} s  peak {:>6.1} MiB", plain_tenders.0, t_plain_tenders.as_secs_f64(), mib(m_plain_tenders));
    println!("  ratio tender report / plain SELECT                  {:>8.2}x", ratio(t_tenders, t_plain_tenders));
    println!("  journal of {day}, freee CSV ({} bytes)          {:>8.3} s  peak {:>6.1} MiB", csv.len(), t_journal.as_secs_f64(), mib(m_journal));
    println!("  plain SELECT of that day's tenders ({} rows)     {:>8.3} s  peak {:>6.1} MiB", plain_day.0, t_plain_day.as_secs_f64(), mib(m_plain_day));
    println!("  ratio journal / plain SELECT                        {:>8.2}x", ratio(t_journal, t_plain_day));
    running.shutdown().await;
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}
