//! A restart between "new PSP saved" and "new PSP in use": the register must go on
//! with the PSP that holds its unsettled payments, as a running register does, or the
//! restart would send their keys to a PSP that never saw them (a second charge).
//! Real parts: the app's state with its ledger file and the embedded mock PSP (whose
//! database survives the restart), no window.

use paydesk_app::settings_file::{PspInUse, Settings};
use paydesk_app::state::Applied;
use paydesk_app::{AppState, Options};
use paydesk_ledger::CheckoutOptions;

const NEW_PSP: &str = "http://127.0.0.1:9";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_goes_on_with_the_psp_that_holds_unsettled_payments() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options { data_dir: Some(dir.path().to_path_buf()), fault_profile: paydesk_app::FaultProfile::NoFaults, ..Default::default() };

    // First run: the embedded PSP charges, but its answers are lost: the outcome is open.
    let first = signed_in(AppState::start(dir.path().to_path_buf(), &opts).await.unwrap());
    assert_eq!(PspInUse::load(dir.path(), &first.stored.secrets).unwrap(), Some(PspInUse::of(&Settings::default())), "the PSP in use is recorded");
    let embedded = first.embedded().unwrap();
    embedded.server.psp().script_fault("/v1/payment_intents", mock_psp::Fault::DropResponse, 1_000, None);
    let cart = first.cart_id();
    first.engine().carts().add(cart, "MUG-001", 1).unwrap();
    let r = first.engine().charge_cart(cart, CheckoutOptions::card("pm_card_visa")).await.unwrap();
    let key = r.checkout_key.clone();
    assert!(matches!(r.outcome, paydesk_register::CheckoutOutcome::Pending | paydesk_register::CheckoutOutcome::QueuedOffline), "{r:?}");
    assert_eq!(embedded.server.psp().stats()["charges"], 1, "charged once, answer lost");
    // The cashier saves another PSP; it waits (as a_new_psp_waits_… in commands.rs checks).
    let wanted = Settings { psp_url: NEW_PSP.into(), psp_key: "sk_test_other".into(), fault_profile: paydesk_app::FaultProfile::NoFaults, ..Settings::default() };
    wanted.save(dir.path(), &first.stored.secrets).unwrap();
    drop(embedded);
    drop(first);

    // The restart keeps the PSP that holds the open payment, and says why it waits.
    let second = signed_in(AppState::start(dir.path().to_path_buf(), &opts).await.unwrap());
    let live = second.live();
    assert!(live.embedded && live.psp_url != NEW_PSP, "restarted on {} with a payment open at the embedded PSP", live.psp_url);
    match second.apply_settings(std::time::Duration::ZERO).await {
        Applied::Waiting(why) => assert!(why.contains("1 payment"), "{why}"),
        other => panic!("the new PSP must wait: {other:?}"),
    }
    // Settled where it was sent (the embedded PSP's database kept the key): one charge.
    let rec = second.engine().recover().await.unwrap();
    let p = second.engine().payments().by_key(&key).unwrap().unwrap();
    assert_eq!(p.state.as_str(), "captured", "{rec:?}");
    // And still one charge at the PSP after recovery: one paid sale, one charge (a key
    // resent as a new payment would show a second). Counted in the PSP's database: its
    // `stats` counters start again at 0 with the restarted process.
    let embedded = second.embedded().expect("the embedded PSP after the restart");
    let charges: i64 = embedded
        .server
        .psp()
        .store()
        .read(|c| Ok(c.query_row("SELECT count(*) FROM charges WHERE json_extract(obj, '$.status') = 'succeeded'", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(charges, 1, "one charge per paid sale after recovery");
    drop(embedded);
    // Only now the new PSP goes in use, and the record says so.
    assert_eq!(second.apply_settings(std::time::Duration::ZERO).await, Applied::Now);
    assert_eq!(second.live().psp_url, NEW_PSP);
    assert_eq!(PspInUse::load(dir.path(), &second.stored.secrets).unwrap(), Some(PspInUse::of(&wanted)));
    // The record is private: it holds the secret key.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(PspInUse::path(dir.path())).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// A restart in the middle of a split sale: the part-paid sale is on screen again (its
/// cash is in the drawer, its customer at the counter); once paid, the next start has a
/// fresh cart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_part_paid_sale_is_on_screen_again_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options { data_dir: Some(dir.path().to_path_buf()), fault_profile: paydesk_app::FaultProfile::NoFaults, ..Default::default() };
    let first = signed_in(AppState::start(dir.path().to_path_buf(), &opts).await.unwrap());
    let cart = first.cart_id();
    first.engine().carts().add(cart, "MUG-001", 1).unwrap();
    first.engine().pay_cash(cart, 500, None).unwrap();
    drop(first);

    let second = signed_in(AppState::start(dir.path().to_path_buf(), &opts).await.unwrap());
    assert_eq!(second.cart_id(), cart, "the part-paid sale is back on screen");
    // The mug with New York City's 8.875 % (record 0131): 1495 + 133 = 1628, 500 paid.
    let r = second.engine().pay_cash(cart, 1128, None).unwrap();
    assert_eq!(r.sale.due, 0);
    drop(second);

    let third = signed_in(AppState::start(dir.path().to_path_buf(), &opts).await.unwrap());
    assert_ne!(third.cart_id(), cart, "a paid sale is done: a fresh cart");
    assert!(third.engine().carts().cart(third.cart_id()).unwrap().lines.is_empty());
}

/// A start signs everyone out (record 0068): the demo owner signs in again, and a shift
/// is open (the first start opens it; it stays open across restarts).
fn signed_in(state: AppState) -> AppState {
    let engine = state.engine();
    let pin = paydesk_access::pin::Pin::parse("1111").unwrap();
    let owner = engine.staff().list().unwrap().into_iter().find(|s| s.role == paydesk_access::Role::Owner).expect("the demo owner");
    engine.staff().sign_in(&owner.name, &pin).unwrap();
    if engine.shifts().current().unwrap().is_none() {
        engine.shifts().open(paydesk_ledger::Actor::alone(owner.id), &[]).unwrap();
    }
    state
}
