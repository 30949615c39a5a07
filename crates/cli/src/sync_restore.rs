//! `paydesk-cli sync restore --from <name or id>`: a newly paired register pulls the
//! history of the register it replaces (record 0048) into its ledger, read-only, page by
//! page; `sync restored` shows it. The token is read from `sync.token`, never argv.
use crate::outcome::{fail, open_ledger};
use paydesk_sync::store::{SyncState, TokenFile};
use serde_json::{json, Value};
use std::path::Path;

pub(crate) async fn restore(db: &str, dir: &Path, state_path: &Path, from: &str, page_rows: usize) -> i32 {
    let state = SyncState::load(state_path).unwrap_or_else(|e| fail(e.code(), &e.to_string()));
    let token = match TokenFile::in_dir(dir).load() {
        Ok(Some(t)) => t,
        Ok(None) => fail("not_paired", "this register is not paired: run `paydesk-cli sync pair URL` with the code on stdin"),
        Err(e) => fail(e.code(), &e.to_string()),
    };
    let mut ledger = open_ledger(db);
    let crash = std::env::var("PAYDESK_CRASH_AT").as_deref() == Ok("restore_after_page");
    let probe = move |point: &'static str| {
        if crash && point == "restore_after_page" {
            // SAFETY: kill(2) on our own pid; no memory is touched.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
    };
    match paydesk_sync::restore(&mut ledger, &state, token, from, page_rows, &probe).await {
        Ok(r) => {
            out!("{}", json!({"restored": r}));
            0
        }
        Err(e) => fail(e.code(), &e.to_string()),
    }
}

pub(crate) fn restored(db: &str, from: Option<&str>, after: u64, limit: usize) -> i32 {
    let ledger = open_ledger(db);
    let sources = ledger.sync_log().restore_sources().unwrap_or_else(|e| fail("ledger", &e.to_string()));
    let as_json = |s: &paydesk_ledger::RestoreSourceRow| {
        json!({
            "register_id": s.register_id, "register_name": s.register_name,
            "acked_through": s.acked_through, "restored_through": s.restored_through,
            "started_at_ms": s.started_at_ms, "finished_at_ms": s.finished_at_ms,
            "described": serde_json::from_str::<Value>(&s.described_json).unwrap_or(Value::Null),
        })
    };
    let Some(from) = from else {
        out!("{}", json!({"sources": sources.iter().map(as_json).collect::<Vec<_>>()}));
        return 0;
    };
    let Some(src) = sources.iter().find(|s| s.register_id == from) else {
        fail("not_found", &format!("nothing was restored from {from:?}; `paydesk-cli sync restored` lists the predecessors"));
    };
    let rows = ledger.sync_log().restored_rows(from, after, limit).unwrap_or_else(|e| fail("ledger", &e.to_string()));
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| json!({"seq": r.seq, "at_ms": r.at_ms, "kind": r.kind, "fact": serde_json::from_str::<Value>(&r.fact_json).unwrap_or(Value::Null)}))
        .collect();
    let next_after = rows.last().and_then(|r| r["seq"].as_u64()).filter(|s| *s < src.restored_through);
    out!("{}", json!({"source": as_json(src), "rows": rows, "next_after": next_after}));
    0
}
