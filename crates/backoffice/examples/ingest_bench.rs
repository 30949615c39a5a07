//! Ingest benchmark: ratios from ONE run on this machine (record 0043), not a timed test.
//!
//!     cargo run --release -p paydesk-backoffice --example ingest_bench [-- ROWS]
//!
//! A private PostgreSQL cluster with its default durability (fsync on), the real service
//! on loopback, and one register's journal of ROWS rows (three per sale) sent three ways:
//! - `batches`: 500-row batches through `POST /v1/sync/batches` (idempotent apply: lock,
//!   key, compare, journal insert and projection per row, one transaction per batch);
//! - `batches + 10% redelivered`: the same with every tenth batch sent twice (the second
//!   time it must change nothing); rows/s counts distinct rows;
//! - `COPY`: the same rows straight into `journal` with `COPY … FROM STDIN`, one
//!   transaction per 500 rows, no checks and no projections: the floor of the cost.
//!
//! `INGEST_BENCH_LOG=FILE` logs every statement's duration after the warm-up and copies
//! PostgreSQL's log to FILE; with `INGEST_BENCH_EXPLAIN=1` beside it the log also holds each
//! statement's plan with its actual rows (auto_explain). Profiles: their rates are not
//! comparable with a plain run's.
//!
//! The three take turns chunk by chunk (each on its own register), so load from elsewhere
//! on a shared machine falls on all three alike.
use futures_util::SinkExt;
use paydesk_backoffice::client::OwnerClient;
use paydesk_backoffice::demo::journal;
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_backoffice::state::Limits;
use paydesk_backoffice::{build, serve, Config};
use paydesk_sync_proto::{Batch, RegisterHealth, Row, PROTOCOL_VERSION};
use std::time::{Duration, Instant};

const PER_BATCH: usize = 500;

/// One chunk through `POST /v1/sync/batches` (twice when `redeliver`), timed.
async fn send(reg: &paydesk_backoffice::client::RegisterClient, i: usize, chunk: &[Row], redeliver: bool) -> (Duration, u64) {
    let t = Instant::now();
    let b = Batch { v: PROTOCOL_VERSION, register_id: reg.paired.register_id.clone(), first_seq: 1 + (i * PER_BATCH) as u64, rows: chunk.to_vec(), health: RegisterHealth::default() };
    let key = format!("b-{i}");
    let times = if redeliver { 2 } else { 1 };
    for _ in 0..times {
        let ack = reg.send(&b, &key).await.expect("batch");
        assert_eq!(ack.acked_through, b.last_seq());
    }
    (t.elapsed(), times)
}

/// One chunk straight into `journal` with `COPY`, in its own transaction, timed.
async fn copy(client: &tokio_postgres::Client, store: uuid::Uuid, register: uuid::Uuid, i: usize, chunk: &[Row]) -> Duration {
    let t = Instant::now();
    let mut text = String::new();
    for (j, r) in chunk.iter().enumerate() {
        let fact = serde_json::to_string(&r.fact).unwrap().replace('\\', "\\\\");
        let seq = 1 + i * PER_BATCH + j;
        text.push_str(&format!("{store}\t{register}\t{seq}\t{}\t{}\t{fact}\t{}\n", r.at_ms, r.fact.kind(), r.at_ms));
    }
    let sink = client.copy_in("COPY journal (store_id, register_id, seq, at_ms, kind, fact, received_ms) FROM STDIN").await.unwrap();
    let mut sink = Box::pin(sink);
    sink.send(bytes::Bytes::from(text)).await.unwrap();
    sink.as_mut().finish().await.unwrap();
    t.elapsed()
}

#[tokio::main]
async fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(30_000);
    let cluster = tokio::task::spawn_blocking(|| Cluster::start(ClusterOptions::default())).await.unwrap().expect("private PostgreSQL");
    cluster.create_db("paydesk").await.unwrap();
    // INGEST_BENCH_EXPLAIN=1 (with INGEST_BENCH_LOG): every session loads auto_explain, so
    // the profile also logs each statement's plan with its actual rows (EXPLAIN ANALYZE).
    let explain = std::env::var_os("INGEST_BENCH_EXPLAIN").is_some();
    if explain {
        let (c, conn) = tokio_postgres::connect(&cluster.conn_string("paydesk"), tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        // one statement per message: ALTER SYSTEM refuses an implicit transaction block
        for sql in ["ALTER SYSTEM SET session_preload_libraries = 'auto_explain'", "SELECT pg_reload_conf()"] {
            c.batch_execute(sql).await.unwrap();
        }
    }
    let token = "bench-owner-token-0123456789";
    let st = build(&Config { database: cluster.conn_string("paydesk"), admin_token: token.into(), limits: Limits::default(), behind_tls: false }).await.unwrap();
    let running = serve(st, "127.0.0.1:0".parse().unwrap()).await.unwrap();
    let owner = OwnerClient::new(&running.url(), token);
    let store = owner.create_store("bench").await.unwrap();
    let rows: Vec<Row> = journal("bench", n / 3, 1_764_600_000_000, 7).into_iter().take(n).collect();
    let reg_for = |name: &'static str| {
        let (owner, store) = (owner.clone(), store.clone());
        async move {
            let code = owner.pairing_code(&store, name).await.unwrap();
            paydesk_backoffice::client::RegisterClient::pair(&owner.base, &code, "bench").await.unwrap()
        }
    };
    let (db, conn) = tokio_postgres::connect(&cluster.conn_string("paydesk"), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);

    // one warm-up register, then each variant on a fresh register (same store, same tables)
    let warm = reg_for("warm-up").await;
    for (i, chunk) in rows[..rows.len().min(5_000)].chunks(PER_BATCH).enumerate() {
        send(&warm, i, chunk, false).await;
    }
    // INGEST_BENCH_LOG=FILE: every statement's duration in PostgreSQL's log from here on,
    // copied to FILE at the end (a profile: the times printed are then not comparable).
    let profile = std::env::var("INGEST_BENCH_LOG").ok();
    if profile.is_some() {
        // one statement per message: ALTER SYSTEM refuses the implicit transaction block of
        // a multi-statement query (as one string this switch failed with 25001)
        for sql in ["ALTER SYSTEM SET log_min_duration_statement = 0", "ALTER SYSTEM SET log_line_prefix = '%m [%p] '", "SELECT pg_reload_conf()"] {
            db.batch_execute(sql).await.unwrap();
        }
        if explain {
            for sql in [
                "LOAD 'auto_explain'",
                "ALTER SYSTEM SET auto_explain.log_min_duration = 0",
                "ALTER SYSTEM SET auto_explain.log_analyze = on",
                "ALTER SYSTEM SET auto_explain.log_buffers = on",
                "SELECT pg_reload_conf()",
            ] {
                db.batch_execute(sql).await.unwrap();
            }
        }
    }
    // the rows' checkout keys must be new for each variant's projections: tag them per run
    let tagged = |tag: &str| -> Vec<Row> {
        rows.iter()
            .map(|r| {
                let s = serde_json::to_string(r).unwrap().replace("bench-", &format!("{tag}-"));
                serde_json::from_str(&s).unwrap()
            })
            .collect()
    };
    // The three ways take turns chunk by chunk, so a build or a checkpoint elsewhere on
    // the machine slows each of them alike and the ratios stay those of one moment.
    let (a, b, c) = (tagged("a"), tagged("b"), tagged("c"));
    let (reg_a, reg_b, reg_c) = (reg_for("batches").await, reg_for("redelivered").await, reg_for("copy").await);
    let (store_id, copy_id) = (store.parse().unwrap(), reg_c.paired.register_id.parse().unwrap());
    let (mut t_batches, mut t_redeliver, mut t_copy, mut reqs) = (Duration::ZERO, Duration::ZERO, Duration::ZERO, 0u64);
    for i in 0..a.len().div_ceil(PER_BATCH) {
        let span = i * PER_BATCH..((i + 1) * PER_BATCH).min(a.len());
        t_batches += send(&reg_a, i, &a[span.clone()], false).await.0;
        let (t, n) = send(&reg_b, i, &b[span.clone()], i % 10 == 0).await;
        (t_redeliver, reqs) = (t_redeliver + t, reqs + n);
        t_copy += copy(&db, store_id, copy_id, i, &c[span]).await;
    }
    let journal_rows: i64 = db.query_one("SELECT count(*) FROM journal", &[]).await.unwrap().get(0);

    let rate = |d: Duration| rows.len() as f64 / d.as_secs_f64();
    println!("ingest of {} journal rows, {PER_BATCH} per batch, PostgreSQL with fsync on (one run)", rows.len());
    println!("  batches (idempotent apply + projections)  {:>9.0} rows/s", rate(t_batches));
    println!("  batches + 10% redelivered ({reqs} requests)  {:>9.0} rows/s", rate(t_redeliver));
    println!("  COPY into journal (no checks)             {:>9.0} rows/s", rate(t_copy));
    println!("  ratio batches / COPY (rows/s; aim >= 0.5x) {:>9.2}x", t_copy.as_secs_f64() / t_batches.as_secs_f64());
    println!("  ratio redelivered / batches (time)        {:>9.2}x", t_redeliver.as_secs_f64() / t_batches.as_secs_f64());
    println!("  journal rows stored: {journal_rows}");
    if let Some(to) = profile {
        std::fs::copy(cluster.log_path(), &to).expect("copy PostgreSQL's log");
        println!("  PostgreSQL's statement log: {to}");
    }
    running.shutdown().await;
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}
