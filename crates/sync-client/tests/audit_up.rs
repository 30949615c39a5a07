//! The audit chain's head travels up and comes back confirmed (record 0053), against the
//! REAL back office on a private PostgreSQL with a real ledger file: an untampered register
//! is reported intact; deleting the rows after the last Z report, or rewriting a row and
//! re-sealing the whole chain with the real hashing code, is caught by the register's own
//! verification (against the head the back office confirmed) and by the back office.
use crate::support;
use crate::register;

use paydesk_access::audit::{check_checkpoints, record_hash, verify, Anchor, Break};
use paydesk_access::pin::Pin;
use paydesk_access::{LockoutPolicy, Role};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_sync::store::SyncState;
use register::Register;
use serde_json::Value;
use support::Harness;

const T: i64 = 1_790_000_000_000;

struct Till {
    reg: Register,
    manager: i64,
    at: i64,
}

fn dc(d: i64, n: i64) -> DenominationCount {
    DenominationCount { denomination_minor: d, count: n }
}

impl Till {
    /// The Japanese demo store with a manager signed in and a shift open.
    fn new() -> Till {
        let mut reg = Register::new();
        let l = &mut reg.ledger;
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
        let pin = Pin::parse("2468").unwrap();
        let manager = l.roster_mut().add("Mika", Role::Manager, &pin, None, T + 1).unwrap().id;
        l.roster_mut().sign_in("Mika", &pin, LockoutPolicy::default(), T + 2).unwrap();
        l.shifts_mut().open(Actor::alone(manager), &[dc(1_000, 5)], T + 3).unwrap();
        Till { reg, manager, at: T + 10 }
    }
    fn tick(&mut self) -> i64 {
        self.at += 10;
        self.at
    }
    fn cash_sale(&mut self) {
        let at = self.tick();
        let l = &mut self.reg.ledger;
        let cart = l.carts_mut().create(Currency::Jpy, at).unwrap();
        l.carts_mut().add(cart, "MUG-001", 1, at).unwrap();
        l.sales_mut().pay_cash(cart, 2_000, None, at + 1).unwrap();
    }
    /// Closes the shift (its Z report records the head) and opens the next one.
    fn z_and_reopen(&mut self) -> ZReport {
        let at = self.tick();
        let z = self.reg.ledger.shifts_mut().close(Actor::alone(self.manager), &[dc(1_000, 5)], at).unwrap();
        self.reg.ledger.shifts_mut().open(Actor::alone(self.manager), &[dc(1_000, 5)], at + 1).unwrap();
        z
    }
    fn head(&self) -> Anchor {
        self.reg.ledger.audit().head().unwrap()
    }
    fn sql(&self, f: impl FnOnce(&rusqlite::Connection)) {
        let c = rusqlite::Connection::open(self.reg.dir.path().join("ledger.db")).unwrap();
        f(&c);
    }
    fn register_id(&self) -> String {
        SyncState::load(&SyncState::path_in(self.reg.dir.path())).unwrap().pairing.unwrap().register_id
    }
    async fn sync(&self) {
        self.reg.sync_loop().round().await.expect("a sync round");
    }
    /// What the owner reads: the back office's audit state of this register.
    async fn back_office(&self, h: &Harness, store: &str) -> Value {
        h.owner.get(&format!("/admin/stores/{store}/registers/{}/audit", self.register_id())).await.unwrap()
    }
}

/// A ready till paired with a new store, a sale, a Z report and more rows after it, synced:
/// the back office confirmed the head past the Z report's.
async fn synced_till(h: &Harness) -> (Till, String, ZReport, Anchor) {
    let store = h.owner.create_store("Main St").await.unwrap();
    let mut till = Till::new();
    till.reg.pair(h, &store).await;
    till.cash_sale();
    let z = till.z_and_reopen();
    till.cash_sale();
    till.cash_sale();
    let at = till.tick();
    till.reg.ledger.roster_mut().sign_out(at).unwrap();
    till.reg.ledger.roster_mut().sign_in("Mika", &Pin::parse("2468").unwrap(), LockoutPolicy::default(), at + 1).unwrap();
    till.sync().await;
    let head = till.head();
    assert!(head.seq >= z.audit_head.seq + 5, "rows after the Z report: {head:?} vs {:?}", z.audit_head);
    let confirmed = till.reg.ledger.audit().confirmed().unwrap().expect("confirmed by the ack");
    assert_eq!(confirmed.anchor, head, "the register keeps the head the back office confirmed");
    (till, store, z, head)
}

fn hex(a: &Anchor) -> String {
    a.hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// The chain with only what the register had before this issue: its rows and its Z heads.
fn verdict_without_the_back_office(l: &Ledger) -> Vec<Break> {
    let rows = l.audit().chain().unwrap();
    let mut v = verify(&rows, Anchor::GENESIS, None);
    let zs: Vec<Anchor> = (1..=10).filter_map(|n| l.shifts().z_report(n).unwrap()).map(|z| z.audit_head).collect();
    check_checkpoints(&mut v, &rows, &zs);
    v.breaks
}

#[tokio::test]
async fn an_untampered_register_syncing_normally_is_reported_intact() {
    let h = Harness::start().await;
    let (mut till, store, z, head) = synced_till(&h).await;
    let bo = till.back_office(&h, &store).await;
    assert_eq!(bo["status"], "intact", "{bo}");
    assert_eq!((bo["confirmed_seq"].as_u64(), bo["confirmed_hash"].as_str()), (Some(head.seq), Some(hex(&head).as_str())), "{bo}");
    assert_eq!((bo["last_z_number"].as_i64(), bo["last_z_seq"].as_u64()), (Some(1), Some(z.audit_head.seq)), "{bo}");
    assert!(till.reg.ledger.audit().verify(None).unwrap().is_intact());

    // More work, a second Z report, two more rounds (one with nothing new to confirm).
    till.cash_sale();
    let z2 = till.z_and_reopen();
    till.cash_sale();
    till.sync().await;
    till.sync().await;
    let head2 = till.head();
    assert!(head2.seq > head.seq);
    let bo = till.back_office(&h, &store).await;
    assert_eq!(bo["status"], "intact", "{bo}");
    assert_eq!(bo["confirmed_seq"].as_u64(), Some(head2.seq), "{bo}");
    assert_eq!((bo["last_z_number"].as_i64(), bo["last_z_seq"].as_u64()), (Some(2), Some(z2.audit_head.seq)), "{bo}");
    assert_eq!(till.reg.ledger.audit().confirmed().unwrap().unwrap().anchor, head2);
    assert!(till.reg.ledger.audit().verify(None).unwrap().is_intact());
    // The dashboard's register health says the same.
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let row = d["audit"].as_array().unwrap().iter().find(|a| a["register_id"] == till.register_id().as_str()).cloned().unwrap();
    assert_eq!((row["status"].as_str(), row["confirmed_seq"].as_u64()), (Some("intact"), Some(head2.seq)), "{row}");
    assert_eq!(h.count("SELECT count(*) FROM audit_z_heads").await, 2);
}

#[tokio::test]
async fn deleting_the_rows_after_the_last_z_report_is_caught_locally_and_by_the_back_office() {
    let h = Harness::start().await;
    let (mut till, store, z, head) = synced_till(&h).await;

    // An insider deletes every audit row after the Z report, by plain SQL on the file.
    till.sql(|c| {
        let n = c.execute("DELETE FROM audit_log WHERE id > ?1", [z.audit_head.seq as i64]).unwrap();
        assert_eq!(n as u64, head.seq - z.audit_head.seq);
    });
    // What the chain and the Z reports alone say: nothing is wrong.
    assert_eq!(verdict_without_the_back_office(&till.reg.ledger), vec![]);
    // The register's own verification, against the head the back office confirmed.
    let v = till.reg.ledger.audit().verify(None).unwrap();
    assert_eq!(v.breaks, vec![Break::BehindConfirmed { last_seq: z.audit_head.seq, confirmed_seq: head.seq }]);

    // The register works on (a sale: rows to send, and new audit rows after the cut) and syncs.
    till.cash_sale();
    assert!(till.head().seq < head.seq, "still short of the confirmed head: {:?}", till.head());
    till.sync().await;
    let bo = till.back_office(&h, &store).await;
    assert_eq!((bo["status"].as_str(), bo["broken_kind"].as_str(), bo["broken_seq"].as_u64()), (Some("broken"), Some("went_backwards"), Some(head.seq)), "{bo}");
    // The confirmed head stays where it was, here and at the register: still caught locally.
    assert_eq!(bo["confirmed_seq"].as_u64(), Some(head.seq), "{bo}");
    assert_eq!(till.reg.ledger.audit().confirmed().unwrap().unwrap().anchor, head);
    assert!(!till.reg.ledger.audit().verify(None).unwrap().is_intact());
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    assert!(d["audit"].as_array().unwrap().iter().any(|a| a["status"] == "broken"), "{}", d["audit"]);
}

#[tokio::test]
async fn a_row_rewritten_and_the_chain_re_sealed_is_caught_locally_and_by_the_back_office() {
    let h = Harness::start().await;
    let (mut till, store, z, head) = synced_till(&h).await;

    // An insider rewrites a row after the Z report (a cash sale's tender) and recomputes
    // every later hash with the chain's own formula: the chain verifies on its own.
    let rows = till.reg.ledger.audit().chain().unwrap();
    let at = rows.iter().position(|r| r.record.seq > z.audit_head.seq && r.record.after.is_some()).expect("a row with a document after the Z");
    let mut forged = rows.clone();
    forged[at].record.after = Some(r#"{"rewritten":true}"#.into());
    for i in at..forged.len() {
        let prev = if i == 0 { [0; 32] } else { forged[i - 1].hash };
        forged[i].prev_hash = prev;
        forged[i].hash = record_hash(&prev, &forged[i].record);
    }
    till.sql(|c| {
        for r in &forged[at..] {
            c.execute(
                "UPDATE audit_log SET after_doc = ?2, prev_hash = ?3, hash = ?4 WHERE id = ?1",
                rusqlite::params![r.record.seq as i64, r.record.after, r.prev_hash.as_slice(), r.hash.as_slice()],
            )
            .unwrap();
        }
    });
    assert_eq!(verdict_without_the_back_office(&till.reg.ledger), vec![], "re-sealed: the chain and the Z reports alone see nothing");
    let v = till.reg.ledger.audit().verify(None).unwrap();
    assert_eq!(v.breaks, vec![Break::ConfirmedMismatch { seq: head.seq }]);

    till.cash_sale();
    till.sync().await;
    let bo = till.back_office(&h, &store).await;
    assert_eq!((bo["status"].as_str(), bo["broken_kind"].as_str(), bo["broken_seq"].as_u64()), (Some("broken"), Some("rewritten"), Some(head.seq)), "{bo}");
    assert_eq!(bo["confirmed_seq"].as_u64(), Some(head.seq), "{bo}");
    assert!(!till.reg.ledger.audit().verify(None).unwrap().is_intact());
}
