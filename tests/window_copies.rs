//! The copies at the back office in the real window (record 0150): a paired register's data
//! folder with a copy taken before the last quit and not sent yet; the app starts, sends it
//! at once (sealed, from its start-up turn, not an interval later) to the REAL back office on
//! a private PostgreSQL, and Settings → About lists the copy sent beside the local copies;
//! Settings → Copies of the ledger shows sending on and where the key is. Screenshot at
//! 1280×800.
use crate::window_backoffice::bo;

use paydesk_e2e::thirtyfour::prelude::*;
use paydesk_e2e::{App, Launch, StaffStart, LONG};
use paydesk_sync::store::{SyncState, TokenFile};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn about_lists_the_copy_sent_to_the_back_office() {
    let h = bo::Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let code = h.owner.pairing_code(&store, "Front till").await.unwrap();
    // The data folder as a paired register leaves it: its pairing, its token (no keychain in
    // window tests: the 0600 file), its ledger and one good copy in backups/.
    let seed = tempfile::tempdir().unwrap();
    let (pairing, token) = paydesk_sync::run::pair(&h.url, &code, "0.1.0-test").await.unwrap();
    TokenFile::in_dir(seed.path()).save(&token).unwrap();
    SyncState { pairing: Some(pairing), ..Default::default() }.save(&SyncState::path_in(seed.path())).unwrap();
    let ledger = seed.path().join("ledger.db");
    drop(paydesk_ledger::Ledger::open(&ledger).unwrap());
    let copy = paydesk_ledger::copies::take_now(&ledger, 7).unwrap();
    let copy_name = copy.path.file_name().unwrap().to_string_lossy().to_string();

    let launch = Launch { staff: StaffStart::OwnerNoShift, data_from: Some(seed.path().to_path_buf()), ..Launch::default() };
    let app = App::start("copies-sent", launch).await;
    app.el("body").await.send_keys(Key::F4).await.unwrap();
    app.wait_js("return !document.getElementById('view-settings').hidden", "the Settings screen", LONG).await;
    let sent = app
        .wait_js(
            "const d = document.getElementById('about-copies-sent'); \
             return d && d.textContent.startsWith('Last sent') ? d.textContent : (loadAgain(), false); \
             function loadAgain() { document.querySelector('[data-view=settings]').click(); }",
            "the About panel to list the copy sent",
            LONG,
        )
        .await;
    let sent = sent.as_str().unwrap().to_string();
    assert!(sent.contains("sealed"), "{sent}");
    assert!(app.text("#about-copies").await.contains(&copy_name), "the local copy beside it");
    // The back office holds that copy whole.
    let listed = h.owner.get(&format!("/admin/stores/{store}/backups")).await.unwrap();
    assert_eq!(listed["backups"].as_array().map(Vec::len), Some(1), "{listed}");
    let held = std::fs::read_to_string(app.data_dir.join("backup-sent.json")).unwrap();
    assert!(held.contains(&copy_name) && held.contains(listed["backups"][0]["sha256"].as_str().unwrap()), "{held}");

    // Settings → Copies of the ledger: sending on, the key in a file (no keychain here).
    let send_on = app.js("return document.getElementById('copies-send').checked").await;
    assert_eq!(send_on, true);
    assert!(app.text("#copies-key-storage").await.contains("backup.key"));
    assert!(!app.text("#copies-settings").await.contains("null"), "no stray word in the section");
    app.js("document.getElementById('copies-settings').scrollIntoView()").await;
    app.screenshot("copies-sent-1280x800").await;
    app.close().await;
}
