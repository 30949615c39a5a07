//! The official Stripe Python SDK against the real library server.
use crate::common;
use common::*;
use std::path::PathBuf;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_stripe_python_sdk_create_retrieve_capture_refund_search_409_retry_and_card_readers() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = repo.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `make deps-py` (it creates .venv with the official `stripe` package)",
        python.display()
    );
    let p = start_default().await;
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sdk_stripe.py");
    let out = tokio::process::Command::new(&python).arg(&script).arg(&p.url).output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "SDK script failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("sdk ok"), "{stdout}");
    let s = p.stats().await;
    assert!(s["conflicts"].as_u64().unwrap() >= 1);
}
