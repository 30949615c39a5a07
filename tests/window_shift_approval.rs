//! Shift steps a cashier needs a manager for (record 0069, issue #28): a paid out and the
//! close open the same inline approval dialog as a refund, the manager's PIN sends them
//! again, and the audit log names both people.

use paydesk_e2e::{App, Launch, LONG};
use paydesk_ledger::Ledger;

/// The approval dialog is open over the Shift tab: Marcus (manager) approves.
async fn approve_as_marcus(app: &App) {
    app.wait_js("return !document.getElementById('approval').hidden", "the approval dialog", LONG).await;
    assert_eq!(app.js("return document.getElementById('view-shift').hidden").await, false, "over the Shift tab");
    app.js("document.getElementById('approval-name').value = 'Marcus'; return true").await;
    app.el("#approval-pin").await.send_keys("2222").await.unwrap();
    app.click("#approval-ok").await;
    app.wait_js("return document.getElementById('approval').hidden", "the dialog closed", LONG).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cashiers_paid_out_and_close_ask_a_manager_inline() {
    // The owner opened the shift (Launch::default); Casey, a cashier, takes the register.
    let app = App::start("shift-approval", Launch::default()).await;
    app.click("#lock").await;
    app.wait_js("return document.body.dataset.screen === 'signin'", "the sign-in screen", LONG).await;
    app.sign_in_as("Casey", "3333").await;
    app.wait_js("return document.getElementById('whoami').dataset.role === 'cashier'", "Casey in the status bar", LONG).await;

    app.click("#tab-shift").await;
    app.wait_js("return document.getElementById('view-shift').dataset.open === 'true'", "the open shift", LONG).await;
    app.el("#paid-amount").await.send_keys("1.00").await.unwrap();
    app.el("#paid-reason").await.send_keys("window cleaner").await.unwrap();
    app.click("#paid-in").await;
    approve_as_marcus(&app).await;
    app.wait_js("return document.getElementById('shift-msg').dataset.code === 'paid_in'", "paid in", LONG).await;
    app.el("#paid-amount").await.send_keys("0.50").await.unwrap();
    app.el("#paid-reason").await.send_keys("stamps").await.unwrap();
    app.click("#paid-out").await;
    approve_as_marcus(&app).await;
    app.wait_js("return document.getElementById('shift-msg').dataset.code === 'paid_out'", "paid out", LONG).await;

    // The blind close: the count, then the manager, then the Z report.
    app.click("#shift-close").await;
    app.wait_js("return !!document.getElementById('close-count')", "the count form", LONG).await;
    app.click("#shift-close-confirm").await;
    approve_as_marcus(&app).await;
    app.wait_js("const r = document.getElementById('report-shown'); return r && r.dataset.kind === 'z'", "the Z report", LONG).await;

    let l = Ledger::open_reader(app.data_dir.join("ledger.db")).unwrap();
    let (casey, marcus) = (l.roster().by_name("Casey").unwrap().unwrap().id, l.roster().by_name("Marcus").unwrap().unwrap().id);
    let log = l.audit().log().unwrap();
    for action in ["paid_in", "paid_out", "shift_close"] {
        let row = log.iter().rev().find(|e| e.action == action).unwrap_or_else(|| panic!("no {action} row"));
        assert_eq!((row.actor_id, row.approver_id), (Some(casey), Some(marcus)), "{action}: {row:?}");
    }
    app.close().await;
}
