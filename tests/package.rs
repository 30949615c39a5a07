//! The package a store installs (record 0054), run as it ships: `make package` builds
//! the `.deb`; this test unpacks it (`dpkg-deb -x`, no root) and checks what a package
//! manager and a desktop need (version, dependencies, desktop entry, icons), then
//! starts the binary it carries under Xvfb through WebDriver, rings up and charges a
//! sale against the embedded PSP and checks that PSP through its own API; and it opens
//! the data a released version left (tests/fixtures/upgrade-*) with that binary.
//! Run last by `make test`, once `make package` (built beside the other tests) is done;
//! `make test-package` builds the package and runs only this.

use std::path::Path;
use std::process::Command;

use paydesk_e2e::package::{control_field, deb_path, unpack};
use paydesk_e2e::{App, Launch, LONG};

/// The package's files, unpacked once per test into its own temp dir.
fn unpacked() -> (tempfile::TempDir, std::path::PathBuf) {
    let deb = deb_path();
    let tmp = tempfile::Builder::new().prefix("paydesk-deb-").tempdir().unwrap();
    let root = unpack(&deb, &tmp.path().join("root"));
    (tmp, root)
}

#[test]
fn the_package_carries_the_version_dependencies_desktop_entry_and_icons() {
    let deb = deb_path();
    assert_eq!(control_field(&deb, "Package"), "pay-desk");
    assert_eq!(control_field(&deb, "Version"), env!("CARGO_PKG_VERSION"), "the workspace's version");
    assert_eq!(control_field(&deb, "Architecture"), "amd64");
    let depends = control_field(&deb, "Depends");
    assert!(depends.contains("libwebkit2gtk-4.1-0") && depends.contains("libgtk-3-0"), "{depends}");
    // TLS to a real PSP and the back office is Debian's OpenSSL (docs/decisions/0109-tls-openssl.md).
    assert!(depends.contains("libssl3"), "{depends}");
    // Debian policy §5.6.2: a name and an e-mail address.
    let maintainer = control_field(&deb, "Maintainer");
    let address = maintainer.split_once(" <").and_then(|(name, rest)| rest.strip_suffix('>').map(|a| (name, a)));
    assert!(
        address.is_some_and(|(name, a)| !name.trim().is_empty() && a.split_once('@').is_some_and(|(u, d)| !u.is_empty() && d.contains('.'))),
        "Maintainer {maintainer:?} is not \"Name <user@domain>\""
    );

    let (_tmp, root) = unpacked();
    let bin = root.join("usr/bin/paydesk");
    assert!(bin.is_file(), "{} missing", bin.display());
    // The release profile strips symbols: no .symtab section.
    let sections = Command::new("readelf").arg("-S").arg(&bin).output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    if let Ok(s) = sections {
        assert!(!s.contains(".symtab"), "the packaged binary is not stripped");
    }
    let desktop = std::fs::read_to_string(root.join("usr/share/applications/PayDesk.desktop")).expect("the desktop entry");
    for line in ["Exec=paydesk", "Icon=paydesk", "Name=PayDesk", "Type=Application"] {
        assert!(desktop.lines().any(|l| l == line), "{line:?} not in:\n{desktop}");
    }
    assert!(desktop.lines().any(|l| l.starts_with("Categories=") && l.contains("Finance;")), "{desktop}");
    for size in ["32x32", "128x128", "256x256"] {
        let icon = root.join(format!("usr/share/icons/hicolor/{size}/apps/paydesk.png"));
        assert!(icon.is_file(), "{} missing", icon.display());
    }

    let out = Command::new(&bin).arg("--version").env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with(&format!("paydesk {} (ledger schema ", env!("CARGO_PKG_VERSION"))), "{line}");
}

/// The package is re-packed reproducibly (src-tauri/packaging/repack-deb.sh): packing
/// what it holds again, with the commit's time, gives the same bytes, whatever the times
/// and the order of the files on this disk. (Two whole builds of one commit giving one
/// package is what docs/packaging.md records; this test is the part that needs no build.)
#[test]
fn the_package_is_byte_for_byte_what_its_content_and_commit_give() {
    let deb = deb_path();
    let epoch = Command::new("git").args(["log", "-1", "--format=%ct"]).output().unwrap();
    let epoch = String::from_utf8(epoch.stdout).unwrap().trim().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("copy.deb");
    std::fs::copy(&deb, &copy).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/packaging/repack-deb.sh");
    let st = Command::new(&script).arg(&copy).env("SOURCE_DATE_EPOCH", &epoch).status().unwrap();
    assert!(st.success());
    assert!(std::fs::read(&copy).unwrap() == std::fs::read(&deb).unwrap(), "re-packing {} changed its bytes", deb.display());
    // every file owned by root, not by whoever built it
    let listing = Command::new("dpkg-deb").arg("--verbose").arg("-c").arg(&deb).output().unwrap();
    let listing = String::from_utf8(listing.stdout).unwrap();
    assert!(listing.lines().all(|l| l.contains("root/root")), "{listing}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_packaged_app_charges_a_sale_once_at_the_embedded_psp() {
    let (_tmp, root) = unpacked();
    let bin = root.join("usr/bin/paydesk");
    let app = App::start("package-charge", Launch { binary: Some(bin.clone()), ..Launch::default() }).await;
    assert_eq!(app.binary, bin, "the session runs the unpacked binary");
    let psp = app.psp().await;
    app.scan("COF-001").await;
    app.scan("CRO-001").await;
    app.wait_js("return document.getElementById('cart-total').textContent === '$5.97'", "total $5.97", LONG).await;
    app.click("#charge").await;
    let key = app.wait_result("approved").await;
    let receipt = app.text("#receipt").await;
    assert!(receipt.contains("$5.97") && receipt.contains("APPROVED"), "{receipt}");

    // PSP side: one charge, for this key and amount.
    let intents = psp.intents_for(&key).await;
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!((intents[0]["amount"].as_i64(), intents[0]["status"].as_str()), (Some(597), Some("succeeded")));
    assert_eq!(psp.stats().await["charges"], 1);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_packaged_app_opens_a_released_versions_data_with_every_payment() {
    let (_tmp, root) = unpacked();
    let bin = root.join("usr/bin/paydesk");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<_> = std::fs::read_dir(&fixtures).unwrap().flatten().map(|e| e.path()).collect();
    dirs.retain(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("upgrade-")));
    dirs.sort();
    assert!(!dirs.is_empty());
    for fixture in dirs {
        let expected: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture.join("expected.json")).unwrap()).unwrap();
        let app = App::start(
            "package-upgrade",
            Launch { binary: Some(bin.clone()), data_from: Some(fixture.clone()), env: vec![], ..Launch::default() },
        )
        .await;
        // The ledger as the About panel reports it: this build's schema.
        app.click("button.tab[data-view='settings']").await;
        let schema = app.wait_js("const d = document.getElementById('about-ledger'); return d && d.textContent", "the About panel", LONG).await;
        assert!(schema.as_str().unwrap().contains(&format!("(schema {})", expected_schema())), "{schema}");
        let version = app.text("#about-version").await;
        assert_eq!(version, format!("PayDesk {}", env!("CARGO_PKG_VERSION")));
        app.js("document.getElementById('about').scrollIntoView(); return true").await;
        app.screenshot("about").await;
        // Every payment of the old version is listed on the Payments screen.
        app.click("button.tab[data-view='payments']").await;
        for p in expected["payments"].as_array().unwrap() {
            let key = serde_json::to_string(p["key"].as_str().unwrap()).unwrap();
            app.wait_js(&format!("return !!document.querySelector(`#payments-rows tr[data-id=${{CSS.escape({key})}}]`)"), &format!("payment {p}"), LONG).await;
        }
        // The payment the old version took offline is never charged twice, however old
        // (src-tauri/tests/upgrade.rs checks which way it goes by its age).
        let psp = app.psp().await;
        let offline = expected["payments"].as_array().unwrap().iter().find(|p| p["state"] == "queued_offline").unwrap();
        assert!(psp.intents_for(offline["key"].as_str().unwrap()).await.len() <= 1);
        app.close().await;
    }
}

/// The ledger schema the packaged build writes (its `--version` says it too).
fn expected_schema() -> i64 {
    paydesk_ledger::SCHEMA_VERSION
}
