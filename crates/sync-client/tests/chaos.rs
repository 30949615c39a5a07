//! The chaos test (record 0046): five registers with real ledger files in two stores,
//! each with its own sync loop in its own task, talk through proxies to the REAL back
//! office binary on a private PostgreSQL. Rounds of sales (clocks skewed by an hour on
//! two registers) alternate with rounds of sync during which registers go offline at
//! random, the back office process or PostgreSQL's postmaster is SIGKILLed while batches
//! are at the back office (then started again on the same data), and batches are sent
//! again by hand, duplicated and out of order. The audit at the end: the back office
//! holds exactly the union of the registers' rows, row by row (payments, refunds, and
//! completed sales with the quantities sold); each store's totals are the sum of its
//! registers' ledgers; nothing is there twice; every outbox is drained.
//!
//! Fixed seed (printed; `PAYDESK_CHAOS_SEED` runs another), bounded rounds. The seed fixes
//! every decision (sales, who is offline, which strike, how far into the round it lands);
//! which request a strike meets depends on timing, as it would in a store.
use crate::support;
use crate::proxy;

use paydesk_backoffice::client::OwnerClient;
use paydesk_backoffice::pgcluster::{Cluster, ClusterOptions};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_sync::store::{SyncState, TokenFile};
use paydesk_sync::{BackOffice, SyncError, SyncLoop};
use paydesk_sync_proto::{Batch, Fact, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

const SEED: u64 = 0x5eed_0018;
const REGISTERS: usize = 5;
const ROUNDS: usize = 12;
const HOUR_MS: i64 = 3_600_000;
/// The registers' shared notion of "now" at the start (2026-01-01); each adds its skew.
const T0: i64 = 1_767_225_600_000;
/// Small batches: many requests per round, so a strike lands between and inside batches.
const BATCH_ROWS: usize = 4;
const ADMIN_TOKEN: &str = "owner-token-for-the-chaos-test-0123";

/// SplitMix64: a tiny generator whose sequence for a seed never changes with a crate
/// version, so a printed seed replays the same run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn percent(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
}

/// The real `paydesk-backoffice serve` process; SIGKILLed by the test, never asked.
struct BackOfficeProcess {
    child: Child,
    addr: SocketAddr,
}

impl BackOfficeProcess {
    fn start(bin: &Path, database: &str, token_file: &Path, log: &Path) -> BackOfficeProcess {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
        let mut child = Command::new(bin)
            .args(["serve", "--addr", "127.0.0.1:0", "--pool-size", "4", "--database", database, "--admin-token-file"])
            .arg(token_file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .expect("start paydesk-backoffice");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).expect("the back office's first line");
        let url = line.trim().strip_prefix("listening on http://").unwrap_or_else(|| panic!("paydesk-backoffice said {line:?}"));
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        BackOfficeProcess { addr: url.parse().unwrap(), child }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn sigkill(&mut self) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

impl Drop for BackOfficeProcess {
    fn drop(&mut self) {
        self.sigkill();
    }
}

/// One register: its data folder and ledger file, its clock skew, its proxy, its loop,
/// and every outbox row it ever wrote (read before each sync, since acknowledged rows
/// are dropped): what the back office must end up holding.
struct Till {
    dir: tempfile::TempDir,
    ledger: Ledger,
    skew_ms: i64,
    currency: Currency,
    store: usize,
    register_id: String,
    token: String,
    proxy: proxy::Proxy,
    sync: Option<SyncLoop>,
    written: BTreeMap<u64, (i64, Value)>,
    captured: Vec<(PaymentId, i64)>,
    refunded: BTreeSet<PaymentId>,
    clock: i64,
}

impl Till {
    fn db(&self) -> PathBuf {
        self.dir.path().join("ledger.db")
    }

    fn now(&mut self) -> i64 {
        self.clock += 7;
        T0 + self.skew_ms + self.clock
    }

    fn new_loop(&self) -> SyncLoop {
        SyncLoop::new(Ledger::open(self.db()).unwrap(), &SyncState::path_in(self.dir.path()), self.token.clone(), "0.1.0-chaos").unwrap().with_batch_rows(BATCH_ROWS)
    }

    /// A card sale through the ledger's own write path, captured or declined. A captured
    /// one is a sale of items (a cart of `minor` in hundreds and units, paid by one card
    /// tender), so its `sale_completed` travels too (record 0051).
    fn sell(&mut self, minor: i64, declined: bool) {
        let t = self.now();
        let p = if declined {
            self.ledger.payments_mut().create(&NewPayment { amount: Money::new(minor, self.currency), options: CheckoutOptions::card("pm_card_visa") }, t).unwrap()
        } else {
            let cart = self.ledger.carts_mut().create(self.currency, t).unwrap();
            self.ledger.carts_mut().add(cart, "HUNDRED", minor / 100, t).unwrap();
            if minor % 100 > 0 {
                self.ledger.carts_mut().add(cart, "UNIT", minor % 100, t).unwrap();
            }
            self.ledger.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, t).unwrap().payment
        };
        assert_eq!(p.amount.amount_minor, minor);
        let t = self.now();
        self.ledger.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", t).unwrap();
        let t = self.now();
        if declined {
            self.ledger.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Failed, "card_declined", t).unwrap();
            return;
        }
        let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}_{}", self.register_id, p.id.0), amount: p.amount, state_if_new: PaymentState::Captured };
        self.ledger.payments_mut().record_psp_result(&rec, t).unwrap();
        let t = self.now();
        self.ledger.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", t).unwrap();
        self.captured.push((p.id, minor));
    }

    /// A partial refund of an earlier sale, confirmed by the PSP.
    fn refund(&mut self, pick: u64) {
        let open: Vec<(PaymentId, i64)> = self.captured.iter().copied().filter(|(id, _)| !self.refunded.contains(id)).collect();
        let Some(&(id, amount)) = open.get(pick as usize % open.len().max(1)) else { return };
        let t = self.now();
        let r = self.ledger.refunds_mut().create(id, (amount / 2).max(1), Some("returned"), t).unwrap();
        let t = self.now();
        self.ledger.refunds_mut().record_result(r.id, &format!("re_{}_{}", self.register_id, r.id.0), RefundState::Succeeded, t).unwrap();
        self.refunded.insert(id);
    }

    /// Adds every queued outbox row to what was written; a seq read twice must read the same.
    fn note_outbox(&mut self) {
        let mut after = 0;
        loop {
            let rows = self.ledger.sync_log().outbox_batch(after, MAX_OUTBOX_BATCH).unwrap();
            let Some(last) = rows.last() else { return };
            after = last.seq;
            for r in rows {
                let row = (r.at_ms, serde_json::from_str::<Value>(&r.fact_json).unwrap());
                let prev = self.written.insert(r.seq, row.clone());
                assert!(prev.is_none_or(|p| p == row), "outbox seq {} changed", r.seq);
            }
        }
    }

    /// The queued rows as the test's own batches (not the loop's), for duplicates and reordering.
    fn hand_batches(&self, rng: &mut Rng) -> Vec<(String, Batch)> {
        let rows = self.ledger.sync_log().outbox_batch(self.ledger.sync_log().outbox_stats().unwrap().acked_through, MAX_OUTBOX_BATCH).unwrap();
        let mut out = Vec::new();
        let mut i = 0;
        while i < rows.len() {
            let n = 1 + rng.below(6) as usize;
            let part = &rows[i..(i + n).min(rows.len())];
            let (first, last) = (part[0].seq, part[part.len() - 1].seq);
            let wire = part.iter().map(|r| Row { at_ms: r.at_ms, fact: serde_json::from_str::<Fact>(&r.fact_json).unwrap() }).collect();
            let health = RegisterHealth { app_version: "0.1.0-chaos-replay".into(), queued: 0, offline_waiting: 0, audit: None };
            let batch = Batch { v: PROTOCOL_VERSION, register_id: self.register_id.clone(), first_seq: first, rows: wire, health };
            out.push((format!("chaos-{}-{first}-{last}", self.register_id), batch));
            i += part.len();
        }
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strike {
    None,
    BackOffice,
    Postgres,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_registers_survive_kills_outages_duplicates_and_skewed_clocks() {
    let seed = std::env::var("PAYDESK_CHAOS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(SEED);
    eprintln!("chaos seed {seed} (PAYDESK_CHAOS_SEED={seed} replays it)");
    let mut rng = Rng(seed);
    let started = Instant::now();
    let bin = tokio::task::spawn_blocking(|| support::build_binary("paydesk-backoffice")).await.unwrap();

    // The cluster runs with the tests' fast settings, synchronous_commit=off among them;
    // the back office sets it back on for its own sessions, so an acknowledged batch
    // survives the SIGKILL (without that, a register's next round stops with
    // back_office_behind: the back office lost rows the register had already dropped).
    let mut cluster = tokio::task::spawn_blocking(|| Cluster::start(ClusterOptions { fast_unsafe: true })).await.unwrap().expect("private PostgreSQL");
    cluster.create_db("paydesk").await.unwrap();
    let database = cluster.conn_string("paydesk");
    let work = tempfile::tempdir().unwrap();
    let token_file = work.path().join("owner-token");
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&token_file).unwrap();
        writeln!(f, "{ADMIN_TOKEN}").unwrap();
    }
    let bo_log = work.path().join("backoffice.log");
    let mut bo = BackOfficeProcess::start(&bin, &database, &token_file, &bo_log);
    let owner = || OwnerClient::new(&bo.url(), ADMIN_TOKEN);
    let stores = [owner().create_store("North").await.unwrap(), owner().create_store("South").await.unwrap()];

    let carried = Arc::new(tokio::sync::watch::Sender::new(0u64));
    let mut tills = Vec::new();
    for i in 0..REGISTERS {
        let store = if i < 3 { 0 } else { 1 };
        let dir = tempfile::tempdir().unwrap();
        let mut ledger = Ledger::open(dir.path().join("ledger.db")).unwrap();
        let currency = if store == 0 { Currency::Usd } else { Currency::Eur };
        ledger
            .carts_mut().seed_catalog(&[
                NewProduct { sku: "HUNDRED".into(), name: "Hundred".into(), price: Money::new(100, currency) },
                NewProduct { sku: "UNIT".into(), name: "Unit".into(), price: Money::new(1, currency) },
            ])
            .unwrap();
        let proxy = proxy::Proxy::counted(bo.addr, carried.clone()).await;
        let code = owner().pairing_code(&stores[store], &format!("Till {i}")).await.unwrap();
        let (pairing, token) = paydesk_sync::run::pair(&proxy.url(), &code, "0.1.0-chaos").await.unwrap();
        TokenFile::in_dir(dir.path()).save(&token).unwrap();
        let register_id = pairing.register_id.clone();
        SyncState { pairing: Some(pairing), ..Default::default() }.save(&SyncState::path_in(dir.path())).unwrap();
        // two clocks an hour off, one each way
        let skew_ms = match i {
            1 => HOUR_MS,
            3 => -HOUR_MS,
            _ => 0,
        };
        let mut t = Till { dir, ledger, skew_ms, currency, store, register_id, token, proxy, sync: None, written: BTreeMap::new(), captured: vec![], refunded: BTreeSet::new(), clock: 0 };
        t.sync = Some(t.new_loop());
        tills.push(t);
    }

    let (mut mid_batch, mut struck, mut hand_sent) = ([0u32; 3], [0u32; 3], 0u32);
    for round in 0..ROUNDS {
        for t in tills.iter_mut() {
            t.clock += 60_000;
            for _ in 0..rng.below(5) {
                match rng.below(10) {
                    0 => t.refund(rng.next()),
                    1 => t.sell(100 + rng.below(10_000) as i64, true),
                    _ => t.sell(100 + rng.below(10_000) as i64, false),
                }
            }
            t.note_outbox();
        }
        // offline periods: each register flips now and then; at least two stay online
        for t in tills.iter_mut() {
            if rng.percent(30) {
                t.proxy.set_offline(!t.proxy.is_offline());
            }
        }
        for t in tills.iter_mut().filter(|t| t.proxy.is_offline()).skip(REGISTERS - 2) {
            t.proxy.set_offline(false);
        }
        // a register's app restarts: its loop reads its state back from the data folder
        for t in tills.iter_mut() {
            if rng.percent(15) {
                t.sync = Some(t.new_loop());
            }
        }
        // duplicated and reordered batches, sent by hand straight to the back office
        if rng.percent(50) {
            let t = &tills[rng.below(REGISTERS as u64) as usize];
            // its own generator: how many rows are queued depends on timing, and the main
            // sequence of decisions must not
            let mut sub = Rng(rng.next());
            let mut batches = t.hand_batches(&mut sub);
            let mut twice: Vec<_> = batches.iter().filter(|_| sub.percent(50)).cloned().collect();
            batches.append(&mut twice);
            sub.shuffle(&mut batches);
            let client = BackOffice::new(&bo.url(), Some(t.token.clone())).unwrap();
            let sends = batches.iter().map(|(key, b)| {
                let c = client.clone();
                let (key, b) = (key.clone(), b.clone());
                tokio::spawn(async move { c.send(&b, &key).await })
            });
            for s in sends.collect::<Vec<_>>() {
                s.await.unwrap().unwrap_or_else(|e| panic!("round {round}: a hand-sent batch was refused: {e}"));
                hand_sent += 1;
            }
        }

        let strike = match round % 4 {
            1 => Strike::BackOffice,
            3 => Strike::Postgres,
            _ if rng.percent(20) => Strike::BackOffice,
            _ => Strike::None,
        };
        // The strike waits for a given number of request chunks to pass the proxies: it
        // lands while batches are at the back office.
        let target = *carried.borrow() + 1 + rng.below(8);
        let mut seen = carried.subscribe();
        let (done_tx, mut done) = tokio::sync::watch::channel(false);
        let handles: Vec<_> = tills
            .iter_mut()
            .map(|t| {
                let mut l = t.sync.take().unwrap();
                tokio::spawn(async move {
                    let r = l.round().await;
                    (l, r)
                })
            })
            .collect();
        let rounds = async {
            let mut out = Vec::new();
            for h in handles {
                out.push(h.await.unwrap());
            }
            let _ = done_tx.send(true);
            out
        };
        let striker = async {
            if strike == Strike::None {
                return false;
            }
            let during = tokio::select! {
                _ = seen.wait_for(|c| *c >= target) => true,
                _ = done.wait_for(|d| *d) => false,
            };
            match strike {
                Strike::BackOffice => bo.sigkill(),
                Strike::Postgres => cluster.kill(),
                Strike::None => unreachable!(),
            }
            during
        };
        let (results, during) = tokio::join!(rounds, striker);
        struck[strike as usize] += 1;
        mid_batch[strike as usize] += during as u32;
        for (t, (l, r)) in tills.iter_mut().zip(results) {
            t.sync = Some(l);
            match r {
                Ok(_) => {}
                // expected while offline or during a strike; nothing was dropped unacknowledged
                Err(SyncError::Unreachable(_) | SyncError::Refused(_)) => {}
                Err(e) => panic!("round {round}: register {} failed with {e} ({})", t.register_id, e.code()),
            }
        }
        match strike {
            Strike::None => {}
            Strike::Postgres => cluster.restart().expect("PostgreSQL starts again on its data"),
            Strike::BackOffice => {
                bo = BackOfficeProcess::start(&bin, &database, &token_file, &bo_log);
                for t in &tills {
                    t.proxy.set_upstream(bo.addr);
                }
            }
        }
        eprintln!("round {round}: {strike:?}{}", if during { " (mid-batch)" } else { "" });
    }
    eprintln!("strikes (none, back office, postgres): {struck:?}, of which mid-batch {mid_batch:?}; {hand_sent} batches sent by hand");
    assert!(mid_batch[Strike::BackOffice as usize] >= 1 && mid_batch[Strike::Postgres as usize] >= 1, "no strike landed mid-batch: {mid_batch:?}");

    // Everyone back online; rounds until every outbox is empty (bounded).
    for t in &tills {
        t.proxy.set_offline(false);
    }
    for attempt in 0.. {
        assert!(attempt < 5, "the outboxes did not drain");
        let mut clean = true;
        for t in tills.iter_mut() {
            t.note_outbox();
            let r = t.sync.as_mut().unwrap().round().await;
            clean &= r.is_ok() && t.ledger.sync_log().outbox_stats().unwrap().queued == 0;
        }
        if clean {
            break;
        }
    }

    audit(&cluster, &bo, &stores, &tills).await;
    eprintln!("chaos test took {:?}", started.elapsed());
    drop(bo);
    drop(cluster);
}

/// What the back office must hold, checked against the registers' own files.
async fn audit(cluster: &Cluster, bo: &BackOfficeProcess, stores: &[String; 2], tills: &[Till]) {
    let (db, conn) = tokio_postgres::connect(&cluster.conn_string("paydesk"), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let mut total_rows = 0;
    for t in tills {
        let stats = t.ledger.sync_log().outbox_stats().unwrap();
        assert_eq!((stats.queued, stats.acked_through), (0, stats.high_water), "register {}: outbox not drained", t.register_id);
        assert_eq!(t.written.keys().copied().collect::<Vec<_>>(), (1..=stats.high_water).collect::<Vec<_>>(), "every seq the register wrote was seen");
        let rid = t.register_id.as_str();

        // row by row: exactly this register's journal, nothing missing, nothing extra
        let stored: Vec<(u64, (i64, Value))> = db
            .query("SELECT seq, at_ms, fact FROM journal WHERE register_id::text = $1 ORDER BY seq", &[&rid])
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get::<_, i64>(0) as u64, (r.get(1), r.get(2))))
            .collect();
        let want: Vec<(u64, (i64, Value))> = t.written.clone().into_iter().collect();
        assert_eq!(stored.len(), want.len(), "register {}: row count", t.register_id);
        assert_eq!(stored, want, "register {}: the journal row by row", t.register_id);
        total_rows += want.len() as i64;
        let acked: i64 = db.query_one("SELECT acked_through FROM registers WHERE register_id::text = $1", &[&rid]).await.unwrap().get(0);
        assert_eq!(acked as u64, stats.high_water);

        let mut mine: Vec<(String, i64, String, String, Option<String>)> = t
            .ledger
            .payments().list(1_000_000, 0)
            .unwrap()
            .into_iter()
            .map(|p| (p.idempotency_key, p.amount.amount_minor, p.amount.currency.code().to_string(), p.state.as_str().to_string(), p.psp_payment_id))
            .collect();
        mine.sort();
        let theirs: Vec<(String, i64, String, String, Option<String>)> = db
            .query("SELECT checkout_key, amount, currency, state, psp_id FROM payments WHERE register_id::text = $1 ORDER BY checkout_key", &[&rid])
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
            .collect();
        assert_eq!(theirs, mine, "register {}: payments", t.register_id);

        let mut mine: Vec<(String, String, i64, String, Option<String>)> = t
            .ledger
            .connection()
            .prepare("SELECT r.idempotency_key, p.idempotency_key, r.amount_minor, r.state, r.psp_refund_id FROM refunds r JOIN payments p ON p.id = r.payment_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        mine.sort();
        let theirs: Vec<(String, String, i64, String, Option<String>)> = db
            .query("SELECT refund_key, checkout_key, amount, state, psp_refund_id FROM refunds WHERE register_id::text = $1 ORDER BY refund_key", &[&rid])
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
            .collect();
        assert_eq!(theirs, mine, "register {}: refunds", t.register_id);

        // every completed sale once, with its total and the quantities sold (record 0051)
        let mine: Vec<(i64, i64, i64)> = t
            .ledger
            .connection()
            .prepare(
                "SELECT c.id, (SELECT sum(quantity * unit_price_minor) FROM cart_lines WHERE cart_id = c.id),
                        (SELECT sum(quantity) FROM cart_lines WHERE cart_id = c.id)
                 FROM carts c WHERE c.state = 'paid' ORDER BY c.id",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let theirs: Vec<(i64, i64, i64)> = db
            .query(
                "SELECT s.sale_id, s.total, (SELECT sum(quantity)::int8 FROM sale_lines l
                                             WHERE l.store_id = s.store_id AND l.register_id = s.register_id AND l.sale_id = s.sale_id)
                 FROM sales s WHERE s.register_id::text = $1 ORDER BY s.sale_id",
                &[&rid],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
        assert_eq!(mine.len(), t.captured.len(), "register {}: a sale per captured card", t.register_id);
        assert_eq!(theirs, mine, "register {}: sales and the quantities sold", t.register_id);
    }
    let journal_rows: i64 = db.query_one("SELECT count(*) FROM journal", &[]).await.unwrap().get(0);
    assert_eq!(journal_rows, total_rows, "nothing twice, nothing from nowhere");
    let held: i64 = db.query_one("SELECT count(*) FROM held_batches", &[]).await.unwrap().get(0);
    assert_eq!(held, 0, "nothing held");

    // Each store's totals on the owner's dashboard are its registers' ledgers added up.
    let dash = OwnerClient::new(&bo.url(), ADMIN_TOKEN).get("/admin/dashboard").await.unwrap();
    for (s, store) in stores.iter().enumerate() {
        let (mut sales, mut amount, mut refunded) = (0i64, 0i64, 0i64);
        for t in tills.iter().filter(|t| t.store == s) {
            for p in t.ledger.payments().list(1_000_000, 0).unwrap() {
                if matches!(p.state, PaymentState::Captured | PaymentState::Refunding | PaymentState::PartiallyRefunded | PaymentState::Refunded) {
                    sales += 1;
                    amount += p.amount.amount_minor;
                }
            }
            refunded += t.ledger.connection().query_row("SELECT coalesce(sum(amount_minor), 0) FROM refunds WHERE state = 'succeeded'", [], |r| r.get::<_, i64>(0)).unwrap();
        }
        let row = dash["sales_by_store"].as_array().unwrap().iter().find(|r| r["store_id"] == store.as_str()).unwrap_or_else(|| panic!("store {s} on the dashboard: {dash}"));
        assert_eq!((row["sales"].as_i64(), row["amount"].as_i64(), row["refunded"].as_i64()), (Some(sales), Some(amount), Some(refunded)), "store {s}'s totals");
        eprintln!("store {s}: {sales} sales, {amount} minor units, {refunded} refunded");
    }
}
