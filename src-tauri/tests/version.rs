//! `paydesk --version`: answers without a display (before any window), from the
//! workspace's version, with the ledger schema this build writes.

use std::process::Command;

#[test]
fn version_is_printed_without_a_display() {
    for flag in ["--version", "-V"] {
        let out = Command::new(env!("CARGO_BIN_EXE_paydesk"))
            .arg(flag)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        assert!(out.status.success(), "{flag}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text, format!("paydesk {} (ledger schema {})\n", env!("CARGO_PKG_VERSION"), paydesk_ledger::SCHEMA_VERSION));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_paydesk")).arg("--help").env_remove("DISPLAY").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("--version"));
}
