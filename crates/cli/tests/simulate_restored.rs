//! `paydesk-cli simulate --restored-ops N` (record 0153): after the chaos run the register is
//! replaced and customers bring goods of its paid sales back at the successor (restored
//! returns and exchanges, crashes inside), judged by the restored audit. Sales the
//! predecessor exchanged from are tried too: their exchange facts name the credit per tender
//! (record 0157), so they come back through what each tender has left, none refused, no
//! money given back twice.

use crate::common::*;
use std::process::Command;

fn simulate(args: &[&str]) -> Run {
    let mut c = Command::new(bin());
    for v in ["PAYDESK_PSP_KEY", "PAYDESK_PSP_URL", "PAYDESK_DB", "PAYDESK_CRASH_AT"] {
        c.env_remove(v);
    }
    c.arg("simulate").args(args).output().expect("spawn paydesk-cli").into()
}

#[test]
fn a_run_with_restored_operations_is_clean_and_says_what_it_did() {
    let r = simulate(&["--seed", "3", "--checkouts", "250", "--split-share", "0.6", "--restored-ops", "60"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
    assert_eq!(v["violations_total"], 0, "{v}");
    let n = |k: &str| v["tenders"][k].as_u64().unwrap_or(0);
    assert!(n("restored_returns") > 0 && n("restored_exchanges") > 0, "{}", v["tenders"]);
    let checked = v["invariants_checked"].as_object().unwrap();
    assert!(checked.keys().filter(|k| k.starts_with("restored_")).count() >= 7, "every restored check judged: {checked:?}");
    let refused: u64 = v["engine_errors"].as_object().unwrap().iter().filter(|(k, _)| k.ends_with(":RestoredExchangedThere")).map(|(_, n)| n.as_u64().unwrap()).sum();
    assert_eq!(refused, 0, "sales the predecessor exchanged from are no longer refused: {}", v["engine_errors"]);
    assert!(n("restored_of_sales_exchanged_at_the_predecessor") > 0, "and they came back: {}", v["tenders"]);

    // The summary line names the restored operations too; without the flag there are none.
    let r = simulate(&["--seed", "3", "--checkouts", "250", "--split-share", "0.6", "--restored-ops", "60", "--summary"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.json()["restored_returns"], n("restored_returns"));
    let r = simulate(&["--seed", "3", "--checkouts", "250", "--split-share", "0.6", "--summary"]);
    assert_eq!((r.json()["restored_returns"].as_u64(), r.json()["restored_exchanges"].as_u64()), (Some(0), Some(0)));
}

#[test]
fn more_restored_operations_than_the_limit_are_refused_before_anything_runs() {
    let r = simulate(&["--checkouts", "10", "--restored-ops", "10001"]);
    assert_eq!(r.code, Some(64), "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("--restored-ops must be at most 10000") && r.stdout.is_empty(), "{}", r.stderr);
}
