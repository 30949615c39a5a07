//! The register's sync against the REAL back office on a private PostgreSQL, with real
//! ledger files (record 0045): the back office ends holding exactly the register's
//! rows, a lost answer is resent as the same request and changes nothing, 20,000 queued
//! rows catch up, the owner's settings arrive, and the register keeps selling while the
//! back office is down.
use crate::support;
use crate::proxy;

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_sync::store::{SyncState, TokenFile};
use paydesk_sync::{Backoff, SyncError, SyncLoop};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::Harness;

/// 2026-01-01T00:00:00Z: the registers' clock in these tests (the back office refuses a
/// time before 2020 or more than a day ahead of its own).
const T0: i64 = 1_767_225_600_000;

struct Register {
    dir: tempfile::TempDir,
    ledger: Ledger,
}

impl Register {
    fn new() -> Register {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(dir.path().join("ledger.db")).unwrap();
        Register { dir, ledger }
    }
    fn db(&self) -> PathBuf {
        self.dir.path().join("ledger.db")
    }
    fn state(&self) -> PathBuf {
        SyncState::path_in(self.dir.path())
    }
    /// A sale through the ledger's own write path: created, sent, captured by the PSP.
    /// `now` is an offset from 2026-01-01: the back office refuses times before 2020.
    fn sell(&mut self, minor: i64, now: i64) -> Payment {
        let now = T0 + now;
        let p = self.ledger.payments_mut().create(&NewPayment { amount: Money::new(minor, Currency::Usd), options: CheckoutOptions::card("pm_card_visa") }, now).unwrap();
        self.ledger.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", now + 1).unwrap();
        let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}", p.id), amount: p.amount, state_if_new: PaymentState::Captured };
        self.ledger.payments_mut().record_psp_result(&rec, now + 2).unwrap();
        self.ledger.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", now + 3).unwrap();
        p
    }
    fn sync_loop(&self) -> SyncLoop {
        let token = TokenFile::in_dir(self.dir.path()).load().unwrap().expect("paired");
        SyncLoop::new(Ledger::open(self.db()).unwrap(), &self.state(), token, "0.1.0-test").unwrap()
    }
    /// Every outbox row still queued, as the back office stores them (seq, at_ms, fact).
    fn queued(&self) -> Vec<(i64, i64, Value)> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let rows = self.ledger.sync_log().outbox_batch(after, MAX_OUTBOX_BATCH).unwrap();
            let Some(last) = rows.last() else { return out };
            after = last.seq;
            out.extend(rows.into_iter().map(|r| (r.seq as i64, r.at_ms, serde_json::from_str(&r.fact_json).unwrap())));
        }
    }
}

/// Pairs `reg` with a new register of `store` the way the CLI does (state file + 0600 token).
async fn pair(h: &Harness, store: &str, reg: &Register, url: &str) {
    let code = h.owner.pairing_code(store, "Till 1").await.unwrap();
    let (pairing, token) = paydesk_sync::run::pair(url, &code, "0.1.0-test").await.unwrap();
    TokenFile::in_dir(reg.dir.path()).save(&token).unwrap();
    SyncState { pairing: Some(pairing), ..Default::default() }.save(&reg.state()).unwrap();
}

async fn journal(h: &Harness) -> Vec<(i64, i64, Value)> {
    h.db().await.query("SELECT seq, at_ms, fact FROM journal ORDER BY seq", &[]).await.unwrap().iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect()
}

/// The back office's projection of payments against the register's own table.
async fn assert_same_payments(h: &Harness, l: &Ledger) {
    let mut mine: Vec<(String, i64, String, Option<String>)> =
        l.payments().list(1_000_000, 0).unwrap().into_iter().map(|p| (p.idempotency_key, p.amount.amount_minor, p.state.as_str().to_string(), p.psp_payment_id)).collect();
    mine.sort();
    assert_eq!(h.payment_rows().await, mine);
}

#[tokio::test]
async fn the_back_office_ends_holding_exactly_the_registers_rows() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    for i in 0..7 {
        reg.sell(1000 + i, 100 * i);
    }
    let p = reg.sell(5000, 900);
    let r = reg.ledger.refunds_mut().create(p.id, 1200, Some("returned"), T0 + 950).unwrap();
    reg.ledger.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, T0 + 960).unwrap();
    let want = reg.queued();
    pair(&h, &store, &reg, &h.url).await;

    // batches of 3 rows: many round trips, each acknowledged before its rows are dropped
    let mut sync = reg.sync_loop().with_batch_rows(3);
    let round = sync.round().await.unwrap();
    assert_eq!(round.rows_sent, want.len() as u64);
    assert_eq!(round.batches, want.len().div_ceil(3) as u64);
    assert_eq!(journal(&h).await, want, "row by row");
    assert_same_payments(&h, &reg.ledger).await;
    let s = reg.ledger.sync_log().outbox_stats().unwrap();
    assert_eq!((s.queued, s.acked_through, s.high_water), (0, want.len() as u64, want.len() as u64));
    let refund: (String, i64) = {
        let row = h.db().await.query_one("SELECT state, amount FROM refunds", &[]).await.unwrap();
        (row.get(0), row.get(1))
    };
    assert_eq!(refund, ("succeeded".to_string(), 1200));
    let health = h.db().await.query_one("SELECT app_version, queued, acked_through FROM registers", &[]).await.unwrap();
    assert_eq!((health.get::<_, String>(0), health.get::<_, i64>(1), health.get::<_, i64>(2)), ("0.1.0-test".into(), 0, want.len() as i64));

    // Nothing new: a round sends nothing and changes nothing.
    assert_eq!(sync.round().await.unwrap().rows_sent, 0);
    assert_eq!(journal(&h).await, want);
    let st = sync.status().lock().clone();
    assert!(st.paired && st.last_error.is_none() && st.last_sync_ms.is_some(), "{st:?}");
}

#[tokio::test]
async fn a_batch_whose_answer_was_lost_is_resent_as_the_same_request_and_changes_nothing() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let proxy = proxy::Proxy::start(h.running.addr).await;
    let mut reg = Register::new();
    for i in 0..4 {
        reg.sell(700 + i, 10 * i);
    }
    pair(&h, &store, &reg, &proxy.url()).await;
    let first = reg.queued();

    // The back office applies the batch; its answer never comes back (connection cut).
    proxy.drop_answers(true);
    let mut sync = reg.sync_loop();
    let e = sync.round().await.unwrap_err();
    assert!(matches!(e, SyncError::Unreachable(_)), "{e}");
    assert_eq!(journal(&h).await, first, "applied at the back office");
    assert_eq!(reg.ledger.sync_log().outbox_stats().unwrap().queued, first.len() as u64, "nothing dropped without an ack");
    assert_eq!(sync.status().lock().last_error.as_ref().unwrap().code, paydesk_sync::SyncErrorCode::Unreachable);

    // More sales meanwhile (the health would differ), and a restart of the sync: the
    // resend is byte for byte the first request, so the back office recognises its key.
    reg.sell(999, 500);
    let all = reg.queued();
    assert_eq!(all[..first.len()], first[..]);
    drop(sync);
    proxy.drop_answers(false);
    let mut sync = reg.sync_loop();
    let round = sync.round().await.unwrap();
    assert_eq!(round.batches, 2, "the resent batch, then the new rows");
    assert_eq!(journal(&h).await, all, "each row once");
    assert_same_payments(&h, &reg.ledger).await;
    assert_eq!(h.count("SELECT count(*) FROM batch_keys").await, 2);
    assert_eq!(reg.ledger.sync_log().outbox_stats().unwrap().queued, 0);
}

#[tokio::test]
async fn twenty_thousand_queued_rows_catch_up() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let reg = Register::new();
    // Ten thousand captured sales from a long offline period, written in one transaction
    // straight into the tables (the triggers write the outbox as for any write): 20,000 rows.
    {
        let mut c = rusqlite::Connection::open(reg.db()).unwrap();
        let tx = c.transaction().unwrap();
        for i in 0..10_000i64 {
            tx.execute(
                "INSERT INTO payments (idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method, request_params, created_at_ms, updated_at_ms)
                 VALUES (?1, ?2, ?3, 'usd', 'captured', 'automatic', '[]', ?4, ?4)",
                rusqlite::params![format!("ck-{i:05}"), format!("pi_{i}"), 100 + i, T0 + i],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    assert_eq!(reg.ledger.sync_log().outbox_stats().unwrap().queued, 20_000);
    pair(&h, &store, &reg, &h.url).await;
    let mut sync = reg.sync_loop();
    let t = Instant::now();
    let round = sync.round().await.unwrap();
    eprintln!("20,000 rows in {} batches: {:?}", round.batches, t.elapsed());
    assert_eq!((round.rows_sent, round.batches), (20_000, 40));
    assert_eq!(h.count("SELECT count(*) FROM journal").await, 20_000);
    assert_eq!(h.count("SELECT max(seq) FROM journal").await, 20_000);
    assert_same_payments(&h, &reg.ledger).await;
    assert_eq!(reg.ledger.sync_log().outbox_stats().unwrap().queued, 0);
}

#[tokio::test]
async fn settings_arrive_and_the_register_keeps_selling_while_the_back_office_is_down() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    pair(&h, &store, &reg, &h.url).await;
    let settings = json!({"store_name": "Main Street Coffee", "currency": "usd", "receipt_footer": "See you soon", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();

    let mut sync = reg.sync_loop();
    let round = sync.round().await.unwrap();
    assert!(round.settings_changed && round.settings_not_applied.is_none(), "{round:?}");
    assert_eq!(round.settings_version, 1);
    let mine = reg.ledger.catalog().store_settings().unwrap();
    assert_eq!((mine.name.as_str(), mine.receipt_footer.as_str()), ("Main Street Coffee", "See you soon"));
    // The store's offline caps bound the register's own from now on (record 0139).
    let caps = reg.ledger.catalog().published_offline_caps().unwrap().expect("the caps kept");
    assert_eq!((caps.currency, caps.per_payment_minor, caps.total_minor), (paydesk_domain::Currency::Usd, 5_000, 20_000));
    // The same version again applies nothing (no audit row per round).
    let audits = count_audit(&reg.ledger);
    assert!(!sync.round().await.unwrap().settings_changed);
    assert_eq!(count_audit(&reg.ledger), audits);
    drop(sync);

    // The back office goes away: sales go on, the outbox queues, the copy stays.
    let Harness { running, owner, url, cluster } = h;
    let (addr, state) = (running.addr, running.state.clone());
    running.shutdown().await;
    // Kept ours while it is down (refused, as a pulled cable), so no other test's
    // server is given the port.
    let hold = paydesk_test_kit::PortHold::take(addr).await;
    let mut sync = reg.sync_loop();
    assert_eq!(sync.settings().unwrap().store_name, "Main Street Coffee", "the last copy, read back from the data folder");
    for i in 0..3 {
        reg.sell(450, 1000 + i * 10);
    }
    let e = sync.round().await.unwrap_err();
    assert!(matches!(e, SyncError::Unreachable(_)), "{e}");
    let st = sync.status().lock().clone();
    assert_eq!((st.queued, st.last_error.as_ref().map(|e| e.code)), (12, Some(paydesk_sync::SyncErrorCode::Unreachable)));
    assert_eq!(reg.ledger.catalog().store_settings().unwrap().name, "Main Street Coffee");

    // It comes back at the same address: the queue goes up.
    drop(hold);
    let running = paydesk_backoffice::serve(state, addr).await.expect("the same port again");
    let h = Harness { running, owner, url, cluster };
    assert_eq!(sync.round().await.unwrap().rows_sent, 12);
    assert_same_payments(&h, &reg.ledger).await;
    assert_eq!(sync.status().lock().last_error, None);
}

fn count_audit(l: &Ledger) -> i64 {
    l.connection().query_row("SELECT count(*) FROM audit_log", [], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn the_loop_runs_beside_the_register_and_a_poke_starts_a_round() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    pair(&h, &store, &reg, &h.url).await;
    let sync = reg.sync_loop();
    let status = sync.status();
    let mut rounds = sync.subscribe_rounds();
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let poke = Arc::new(tokio::sync::Notify::new());
    // an hour between rounds: only the poke can start the second one
    let task = tokio::spawn(sync.run(Duration::from_secs(3600), Backoff::default(), stop, poke.clone()));
    rounds.wait_for(|n| *n >= 1).await.unwrap();
    let p = reg.sell(1234, 10);
    poke.notify_one();
    rounds.wait_for(|n| *n >= 2).await.unwrap();
    let st = status.lock().clone();
    assert_eq!((st.queued, st.acked_through, st.last_error.clone()), (0, 4, None), "{st:?}");
    let stored: String = h.db().await.query_one("SELECT state FROM payments WHERE checkout_key = $1", &[&p.idempotency_key]).await.unwrap().get(0);
    assert_eq!(stored, "captured");
    stop_tx.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), task).await.expect("stops when told").unwrap();
}

/// The ledger's tenders, shifts and paid in/out rows as the back office's tables hold them.
type TenderRow = (i64, i32, String, i64, String, Option<String>, Option<i64>, Option<i64>, Option<i64>, Option<i64>, bool);

#[tokio::test]
async fn tenders_and_a_closed_shift_arrive_row_for_row() {
    use paydesk_access::pin::Pin;
    use paydesk_access::Role;
    const T: i64 = 1_790_000_000_000;
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let mika = l.roster_mut().add("Mika", Role::Manager, &Pin::parse("2468").unwrap(), None, T + 1).unwrap().id;
    l.roster_mut().sign_in("Mika", &Pin::parse("2468").unwrap(), paydesk_access::lockout::LockoutPolicy::default(), T + 2).unwrap();
    let dc = |d, n| DenominationCount { denomination_minor: d, count: n };
    l.shifts_mut().open(Actor::alone(mika), &[dc(1_000, 5), dc(100, 10)], T + 10).unwrap();
    // a cash sale with change
    let cart = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, T + 20).unwrap();
    assert!(l.sales_mut().pay_cash(cart, 2_000, None, T + 21).unwrap().split.change_minor > 0);
    // a split sale: a card tender left pending is overridden, a second card pays part, cash the rest
    let cart = l.carts_mut().create(Currency::Jpy, T + 30).unwrap();
    l.carts_mut().add(cart, "MUG-001", 2, T + 30).unwrap();
    l.sales_mut().open_card_tender(cart, Some(1_000), &CheckoutOptions::card("pm_card_visa"), None, T + 31).unwrap();
    let card = l.sales_mut().open_card_tender(cart, Some(1_000), &CheckoutOptions::card("pm_card_visa"), Some("terminal froze"), T + 32).unwrap();
    let p = card.payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", T + 33).unwrap();
    let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: "pi_split".into(), amount: p.amount, state_if_new: PaymentState::Captured };
    l.payments_mut().record_psp_result(&rec, T + 34).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", T + 35).unwrap();
    assert_eq!(l.sales_mut().pay_cash(cart, 5_000, None, T + 36).unwrap().sale.state, SaleState::Paid);
    l.shifts_mut().paid_in_out(Actor::alone(mika), PaidKind::PaidOut, 800, "milk for the coffee", T + 40).unwrap();
    l.shifts_mut().paid_in_out(Actor::alone(mika), PaidKind::PaidIn, 1_000, "change top-up", T + 41).unwrap();
    let z = l.shifts_mut().close(Actor::alone(mika), &[dc(1_000, 9), dc(100, 12)], T + 50).unwrap();
    assert_ne!(z.over_short_minor, 0, "a count that is off, so over/short is carried");
    l.shifts_mut().open(Actor::alone(mika), &[dc(1_000, 5)], T + 60).unwrap();

    let want = reg.queued();
    pair(&h, &store, &reg, &h.url).await;
    let round = reg.sync_loop().round().await.unwrap();
    assert_eq!(round.rows_sent, want.len() as u64);
    assert_eq!(journal(&h).await, want, "row by row");
    assert_same_payments(&h, &reg.ledger).await;
    let kinds: Vec<&str> = want.iter().map(|(_, _, f)| f["kind"].as_str().unwrap()).collect();
    for k in ["tender_added", "tender_superseded", "shift_opened", "paid_in_out", "shift_closed"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }

    let c = reg.ledger.connection();
    let mut st = c
        .prepare(
            "SELECT t.cart_id, t.seq, t.kind, t.amount_minor, t.currency, p.idempotency_key, t.cash_tendered_minor, t.change_minor,
                    t.rounding_minor, t.shift_id, t.standing = 'superseded'
             FROM tenders t LEFT JOIN payments p ON p.id = t.payment_id ORDER BY t.cart_id, t.seq",
        )
        .unwrap();
    let mine: Vec<TenderRow> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?, r.get(10)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let theirs: Vec<TenderRow> = h
        .db()
        .await
        .query(
            "SELECT sale_id, tender_seq, method, amount, currency, checkout_key, cash_tendered, change_given, rounding, shift_id,
                    superseded_at_ms IS NOT NULL FROM tenders ORDER BY sale_id, tender_seq",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6), r.get(7), r.get(8), r.get(9), r.get(10)))
        .collect();
    assert_eq!(mine.len(), 4);
    assert_eq!(theirs, mine, "tenders row for row");

    type ShiftRow = (i64, String, i64, Option<i64>, Option<i64>, Option<i64>, Option<i64>);
    let mut st = c
        .prepare(
            "SELECT s.id, s.currency, s.float_minor, z.z_number, z.counted_minor, z.expected_minor, z.over_short_minor
             FROM shifts s LEFT JOIN z_reports z ON z.shift_id = s.id ORDER BY s.id",
        )
        .unwrap();
    let mine: Vec<ShiftRow> = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?))).unwrap().map(Result::unwrap).collect();
    let theirs: Vec<ShiftRow> = h
        .db()
        .await
        .query("SELECT shift_id, currency, float_amount, z_number, counted, expected, over_short FROM shifts ORDER BY shift_id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6)))
        .collect();
    assert_eq!(mine.len(), 2);
    assert_eq!(mine[0].6, Some(z.over_short_minor));
    assert_eq!(theirs, mine, "shifts row for row, the closed one with its Z report");

    type MoveRow = (i64, i64, String, i64, String);
    let mut st = c.prepare("SELECT id, shift_id, kind, amount_minor, reason FROM paid_in_out ORDER BY id").unwrap();
    let mine: Vec<MoveRow> = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))).unwrap().map(Result::unwrap).collect();
    let theirs: Vec<MoveRow> = h
        .db()
        .await
        .query("SELECT entry_id, shift_id, direction, amount, reason FROM drawer_moves ORDER BY entry_id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
        .collect();
    assert_eq!(mine.len(), 2);
    assert_eq!(theirs, mine, "paid in and out row for row");

    // the owner's dashboard: cash against card, the superseded tender not counted
    let dash = h.owner.get("/admin/dashboard").await.unwrap();
    let by_method: Vec<(String, i64, i64, i64)> = dash["tenders_by_store"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["method"].as_str().unwrap().to_string(), r["tenders"].as_i64().unwrap(), r["amount"].as_i64().unwrap(), r["change_given"].as_i64().unwrap()))
        .collect();
    let cash_change: i64 = c.query_row("SELECT sum(change_minor) FROM tenders WHERE kind = 'cash'", [], |r| r.get(0)).unwrap();
    assert_eq!(by_method, vec![("card".to_string(), 1, 1_000, 0), ("cash".to_string(), 2, 1_650 + 2_300, cash_change)], "{dash}");
}

/// The loop stays light (record 0045): a round with nothing to send and nothing new to
/// pull does not rewrite `sync.json` (an fsync every 5 s on an idle register, and one on
/// the register's disk beside every sale); a batch marked in flight and then acknowledged
/// is dead on disk: a loop started from the file sends what follows.
#[tokio::test(flavor = "multi_thread")]
async fn an_idle_round_writes_nothing_and_an_acknowledged_batch_is_never_sent_again() {
    use std::os::unix::fs::MetadataExt;
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut reg = Register::new();
    pair(&h, &store, &reg, &h.url).await;
    let ino = |reg: &Register| std::fs::metadata(reg.state()).unwrap().ino();
    reg.sell(450, 1000);
    let mut sync = reg.sync_loop();
    assert_eq!(sync.round().await.unwrap().rows_sent, 4);
    let written = ino(&reg);
    let on_disk = SyncState::load(&reg.state()).unwrap();
    assert!(on_disk.last_sync_ms.is_some() && on_disk.in_flight.is_none(), "{on_disk:?}");

    for _ in 0..3 {
        let r = sync.round().await.unwrap();
        assert_eq!((r.batches, r.settings_changed), (0, false), "{r:?}");
    }
    assert_eq!(ino(&reg), written, "idle rounds replaced sync.json");
    assert!(sync.status().lock().last_sync_ms >= on_disk.last_sync_ms, "the status still tells the last round");

    reg.sell(450, 2000);
    assert_eq!(sync.round().await.unwrap().rows_sent, 4);
    assert_ne!(ino(&reg), written, "a batch is marked in flight on disk before it is sent");
    // That mark may outlive its ack on disk; it is dead: a loop started from the file
    // sends what comes next, not the old range again.
    let on_disk = SyncState::load(&reg.state()).unwrap();
    let acked = reg.ledger.sync_log().outbox_stats().unwrap().acked_through;
    assert!(on_disk.in_flight.as_ref().is_none_or(|f| f.last_seq <= acked), "{on_disk:?}");
    drop(sync);
    reg.sell(450, 3000);
    let mut again = reg.sync_loop();
    let r = again.round().await.unwrap();
    assert_eq!((r.rows_sent, r.acked_through), (4, acked + 4), "{r:?}");
    assert_same_payments(&h, &reg.ledger).await;
}
