//! A dead register's history restored on its replacement (record 0048), end to end with
//! the real `paydesk-cli` binary, real checkouts through the mock PSP, real ledger files
//! and the real back office on a private PostgreSQL: A sells and syncs, then sells once
//! more and its disk dies (the file is deleted); the owner replaces A; B pairs, sells,
//! restores A (killed after its first page, then resumed, then run again for nothing);
//! B holds exactly A's synced rows, row by row, outside its outbox; A's token is refused;
//! B's own sales sync; the back office's totals are A's synced sales plus B's, once each.
use crate::common;
use crate::support;

use common::*;
use paydesk_ledger::Ledger;
use serde_json::{json, Value};
use std::path::Path;

async fn pair(db: &Path, url: &str, code: &str) -> Value {
    let r = sync_pair(db, url, code).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    r.json()
}

/// Every outbox row of a ledger as (seq, at_ms, fact), read before a sync drops them.
fn outbox(db: &Path) -> Vec<(u64, i64, Value)> {
    let l = Ledger::open_reader(db).unwrap();
    let mut out = Vec::new();
    loop {
        let after = out.last().map_or(0, |r: &(u64, i64, Value)| r.0);
        let rows = l.sync_log().outbox_batch(after, 500).unwrap();
        if rows.is_empty() {
            return out;
        }
        out.extend(rows.into_iter().map(|r| (r.seq, r.at_ms, serde_json::from_str(&r.fact_json).unwrap())));
    }
}

/// What B holds of a predecessor, through the CLI's own reading.
async fn restored(db: &Path, from: &str) -> Vec<(u64, i64, Value)> {
    let mut out = Vec::new();
    let mut after = 0u64;
    loop {
        let r = sync_cmd(db, &["restored", "--from", from, "--after", &after.to_string(), "--limit", "3"], &[]).await;
        assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
        let v = r.json();
        out.extend(v["rows"].as_array().unwrap().iter().map(|r| (r["seq"].as_u64().unwrap(), r["at_ms"].as_i64().unwrap(), r["fact"].clone())));
        match v["next_after"].as_u64() {
            Some(n) => after = n,
            None => return out,
        }
    }
}

fn keys(rows: &[(u64, i64, Value)]) -> Vec<String> {
    rows.iter().filter_map(|r| r.2["checkout_key"].as_str().map(str::to_string)).collect()
}

#[tokio::test]
async fn a_replacement_register_restores_its_predecessors_synced_history_and_nothing_twice() {
    let (dir_a, dir_b, dir_c) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (db_a, db_b, db_c) = (dir_a.path().join("ledger.db"), dir_b.path().join("ledger.db"), dir_c.path().join("ledger.db"));
    let psp_dir = tempfile::tempdir().unwrap();
    let psp = Psp::start(psp_dir.path()).await;
    let h = support::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();

    // A sells and syncs everything.
    let a = pair(&db_a, &h.url, &h.owner.pairing_code(&store, "Front till").await.unwrap()).await;
    let a_id = a["register_id"].as_str().unwrap().to_string();
    let mut a_sales = 0i64;
    for minor in ["1200", "450", "3000"] {
        assert_eq!(checkout_usd(&db_a, &psp, minor).await["state"], "captured");
        a_sales += minor.parse::<i64>().unwrap();
    }
    let a_rows = outbox(&db_a);
    assert!(a_rows.len() >= 9, "{a_rows:?}");
    let r = sync_cmd(&db_a, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    // One more sale that never leaves A: its disk dies before the next sync.
    let lost = checkout_usd(&db_a, &psp, "777").await;
    let lost_key = lost["checkout_key"].as_str().unwrap().to_string();
    assert_eq!(sync_cmd(&db_a, &["status"], &[]).await.json()["queued"].as_u64().map(|q| q > 0), Some(true));
    let a_token = std::fs::read_to_string(dir_a.path().join("sync.token")).unwrap();
    drop(dir_a);
    assert!(!db_a.exists());

    // The owner replaces A; its token is refused from then on.
    let rep = h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.unwrap();
    assert_eq!(rep["acked_through"].as_u64(), Some(a_rows.len() as u64), "{rep}");
    let refused = reqwest::Client::new().get(format!("{}/v1/sync/changes", h.url)).bearer_auth(a_token.trim()).send().await.unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    assert_eq!(refused.json::<Value>().await.unwrap()["error"]["code"], "register_replaced");

    // B pairs (under the same name) and sells before it restores: its own seq from 1.
    let b = pair(&db_b, &h.url, &h.owner.pairing_code(&store, "Front till").await.unwrap()).await;
    assert_eq!(checkout_usd(&db_b, &psp, "900").await["state"], "captured");
    let b_rows = outbox(&db_b);
    assert_eq!(b_rows.first().map(|r| r.0), Some(1));

    // Killed after its first page is committed: the page stays, the rest is not there.
    let killed = sync_cmd(&db_b, &["restore", "--from", "Front till", "--page-rows", "4"], &[("PAYDESK_CRASH_AT", "restore_after_page")]).await;
    assert!(killed.killed(), "{}", killed.stderr);
    assert_eq!(restored(&db_b, &a_id).await, a_rows[..4].to_vec());
    // Resumed: the rest, from seq 5.
    let r = sync_cmd(&db_b, &["restore", "--from", &a_id, "--page-rows", "4"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let rep = &r.json()["restored"];
    assert_eq!((rep["rows_restored"].as_u64(), rep["complete"].as_bool()), (Some(a_rows.len() as u64 - 4), Some(true)), "{rep}");
    assert_eq!(rep["source"]["acked_through"].as_u64(), Some(a_rows.len() as u64));
    // Again: nothing added.
    let r = sync_cmd(&db_b, &["restore", "--from", "Front till"], &[]).await;
    assert_eq!((r.json()["restored"]["rows_restored"].as_u64(), r.json()["restored"]["pages"].as_u64()), (Some(0), Some(0)), "{}", r.stdout);

    // B holds exactly A's synced rows, row by row; the sale A never sent is gone.
    let held = restored(&db_b, &a_id).await;
    assert_eq!(held, a_rows);
    assert!(!keys(&held).contains(&lost_key));
    let listed = sync_cmd(&db_b, &["restored"], &[]).await.json();
    assert_eq!(listed["sources"][0]["restored_through"].as_u64(), Some(a_rows.len() as u64), "{listed}");
    assert!(listed["sources"][0]["finished_at_ms"].is_i64(), "{listed}");

    // None of it is in B's outbox: B sends only its own rows.
    assert_eq!(outbox(&db_b), b_rows);
    let r = sync_cmd(&db_b, &["run", "--once"], &[]).await;
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let b_id = b["register_id"].as_str().unwrap();
    let db = h.db().await;
    let per_register = |id: &str| {
        let (db, id) = (&db, id.to_string());
        async move { db.query_one("SELECT count(*) FROM journal WHERE register_id::text = $1", &[&id]).await.unwrap().get::<_, i64>(0) }
    };
    assert_eq!(per_register(b_id).await, b_rows.len() as i64);
    assert_eq!(per_register(&a_id).await, a_rows.len() as i64);

    // The back office's totals: A's synced sales plus B's, each once.
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let sales = d["sales_by_store"].as_array().unwrap().iter().find(|s| s["store_id"] == store.as_str()).unwrap().clone();
    assert_eq!((sales["sales"].as_i64(), sales["amount"].as_i64()), (Some(4), Some(a_sales + 900)), "{sales}");
    assert_eq!(h.count("SELECT count(*) FROM payments").await, 4);
    assert_eq!(h.count(&format!("SELECT count(*) FROM payments WHERE checkout_key = '{lost_key}'")).await, 0, "A's unsent sale is lost");

    // A register of another store cannot read A.
    let other = h.owner.create_store("Elm St").await.unwrap();
    pair(&db_c, &h.url, &h.owner.pairing_code(&other, "Till").await.unwrap()).await;
    let r = sync_cmd(&db_c, &["restore", "--from", &a_id], &[]).await;
    assert_eq!(r.code, Some(1));
    assert_eq!(r.json()["error"]["code"], "refused", "{}", r.stdout);
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("404 not_found"), "{}", r.stdout);
    assert_eq!(sync_cmd(&db_c, &["restored"], &[]).await.json()["sources"], json!([]));
}
