//! Each register's audit chain as it reports it with its batches (record 0053), checked by
//! the back office without taking the register's word alone: the first head is kept as
//! first received; the confirmed head moves only when a report proves the hash at exactly
//! the confirmed seq; a head gone backwards, another hash at a confirmed seq, or a Z head
//! that changed is a break, kept, with the confirmed head frozen. Resends and stale reports
//! change nothing; a register that sends no report (older than this) confirms nothing.
use crate::support;
use paydesk_backoffice::client::RegisterClient;
use paydesk_sync_proto::{Ack, AtConfirmed, AuditHead, AuditReport, Batch, Fact, RegisterHealth, Row, ZHead, PROTOCOL_VERSION};
use serde_json::Value;
use support::*;

fn h(byte: u8) -> String {
    format!("{byte:02x}").repeat(32)
}

fn head(seq: u64, byte: u8) -> AuditHead {
    AuditHead { seq, hash: h(byte) }
}

fn report(head_seq: u64, head_byte: u8, at: Option<(u64, Option<u8>)>, z: &[(i64, u64, u8)]) -> AuditReport {
    AuditReport {
        head: head(head_seq, head_byte),
        at_confirmed: at.map(|(seq, b)| AtConfirmed { seq, hash: b.map(h) }),
        z_heads: z.iter().map(|&(z_number, seq, b)| ZHead { z_number, seq, hash: h(b) }).collect(),
    }
}

struct Till {
    reg: RegisterClient,
    store: String,
    next_seq: u64,
}

impl Till {
    async fn new(hs: &Harness) -> Till {
        let (store, reg) = hs.store_with_register("Main St").await;
        Till { reg, store, next_seq: 1 }
    }
    fn batch(&self, first: u64, audit: Option<AuditReport>) -> Batch {
        let row = Row { at_ms: 1_700_000_000_000, fact: Fact::PaymentCreated { checkout_key: format!("k{first}"), amount: 100, currency: "usd".into() } };
        Batch {
            v: PROTOCOL_VERSION,
            register_id: self.reg.paired.register_id.clone(),
            first_seq: first,
            rows: vec![row],
            health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit },
        }
    }
    /// The next outbox row with `audit` in its health.
    async fn send(&mut self, audit: Option<AuditReport>) -> Ack {
        let first = self.next_seq;
        self.next_seq += 1;
        self.reg.send(&self.batch(first, audit), &format!("b-{first}")).await.expect("accepted")
    }
    async fn state(&self, hs: &Harness) -> Value {
        hs.owner.get(&format!("/admin/stores/{}/registers/{}/audit", self.store, self.reg.paired.register_id)).await.unwrap()
    }
}

fn confirmed(ack: &Ack) -> Option<(u64, String)> {
    ack.audit.as_ref().map(|a| (a.seq, a.hash.clone()))
}

#[tokio::test]
async fn the_confirmed_head_moves_only_with_proof_at_the_confirmed_seq() {
    let hs = Harness::start().await;
    let mut t = Till::new(&hs).await;
    // An older register sends no report: nothing to confirm, nothing reported.
    assert_eq!(t.send(None).await.audit, None);
    assert_eq!(t.state(&hs).await["status"], "not_reported");

    // The first report is kept as received.
    let ack = t.send(Some(report(10, 0xa1, None, &[(1, 8, 0xa8)]))).await;
    assert_eq!(confirmed(&ack), Some((10, h(0xa1))));
    // With proof at 10 (the hash the back office holds there), the head moves to 20.
    let ack = t.send(Some(report(20, 0xb2, Some((10, Some(0xa1))), &[]))).await;
    assert_eq!(confirmed(&ack), Some((20, h(0xb2))));
    // Stale knowledge (proof at 10, the back office is at 20): checked, but nothing moves.
    let ack = t.send(Some(report(25, 0xc3, Some((10, Some(0xa1))), &[]))).await;
    assert_eq!(confirmed(&ack), Some((20, h(0xb2))));
    // No proof at all (the register lost its copy): nothing moves, no break.
    let ack = t.send(Some(report(30, 0xd4, None, &[]))).await;
    assert_eq!(confirmed(&ack), Some((20, h(0xb2))));
    // A seq this back office never confirmed (a forged local copy): unproven, nothing moves.
    let ack = t.send(Some(report(30, 0xd4, Some((17, Some(0x17))), &[]))).await;
    assert_eq!(confirmed(&ack), Some((20, h(0xb2))));
    // The same batch again (a lost answer): the same answer, nothing changes.
    let again = t.reg.send(&t.batch(t.next_seq - 1, Some(report(30, 0xd4, Some((17, Some(0x17))), &[]))), &format!("b-{}", t.next_seq - 1)).await.unwrap();
    assert_eq!(confirmed(&again), Some((20, h(0xb2))));
    // Proof at 20: on to 30.
    let ack = t.send(Some(report(30, 0xd4, Some((20, Some(0xb2))), &[(2, 28, 0x28)]))).await;
    assert_eq!(confirmed(&ack), Some((30, h(0xd4))));

    let s = t.state(&hs).await;
    assert_eq!((s["status"].as_str(), s["confirmed_seq"].as_i64(), s["reported_seq"].as_i64()), (Some("intact"), Some(30), Some(30)), "{s}");
    assert_eq!((s["last_z_number"].as_i64(), s["last_z_seq"].as_i64()), (Some(2), Some(28)), "{s}");
}

#[tokio::test]
async fn a_head_gone_backwards_is_a_break_and_the_confirmed_head_stays() {
    let hs = Harness::start().await;
    let mut t = Till::new(&hs).await;
    t.send(Some(report(10, 0xa1, None, &[]))).await;
    // The register's chain has no row 10 any more: it ends at 6.
    let ack = t.send(Some(report(6, 0x66, Some((10, None)), &[]))).await;
    assert_eq!(confirmed(&ack), Some((10, h(0xa1))), "frozen: the register keeps checking against it");
    let s = t.state(&hs).await;
    assert_eq!((s["status"].as_str(), s["broken_kind"].as_str(), s["broken_seq"].as_i64()), (Some("broken"), Some("went_backwards"), Some(10)), "{s}");
    // Later reports, even good-looking ones, neither clear the break nor move the head.
    let ack = t.send(Some(report(12, 0x12, Some((10, Some(0xa1))), &[]))).await;
    assert_eq!(confirmed(&ack), Some((10, h(0xa1))));
    let s = t.state(&hs).await;
    assert_eq!((s["broken_kind"].as_str(), s["reported_seq"].as_i64()), (Some("went_backwards"), Some(12)), "{s}");
    let d = hs.owner.get("/admin/dashboard").await.unwrap();
    let row = &d["audit"].as_array().unwrap()[0];
    assert_eq!((row["status"].as_str(), row["broken_kind"].as_str()), (Some("broken"), Some("went_backwards")), "{row}");
}

#[tokio::test]
async fn another_hash_at_a_confirmed_seq_is_a_rewritten_chain() {
    let hs = Harness::start().await;
    let mut t = Till::new(&hs).await;
    t.send(Some(report(10, 0xa1, None, &[]))).await;
    t.send(Some(report(20, 0xb2, Some((10, Some(0xa1))), &[]))).await;
    // Re-sealed: row 20 exists with another hash; so does the (older) row 10.
    let ack = t.send(Some(report(24, 0x24, Some((20, Some(0xee))), &[]))).await;
    assert_eq!(confirmed(&ack), Some((20, h(0xb2))));
    let s = t.state(&hs).await;
    assert_eq!((s["status"].as_str(), s["broken_kind"].as_str(), s["broken_seq"].as_i64()), (Some("broken"), Some("rewritten"), Some(20)), "{s}");
    assert!(s["broken_detail"].as_str().unwrap().contains(&h(0xee)), "{s}");

    // An older confirmed seq with another hash is caught too (a register behind on acks).
    let mut u = Till::new(&hs).await;
    u.send(Some(report(10, 0xa1, None, &[]))).await;
    u.send(Some(report(20, 0xb2, Some((10, Some(0xa1))), &[]))).await;
    u.send(Some(report(24, 0x24, Some((10, Some(0xee))), &[]))).await;
    assert_eq!(u.state(&hs).await["broken_kind"], "rewritten");
}

#[tokio::test]
async fn a_z_report_head_that_changes_is_a_break() {
    let hs = Harness::start().await;
    let mut t = Till::new(&hs).await;
    t.send(Some(report(10, 0xa1, None, &[(1, 8, 0xa8)]))).await;
    // The same Z head again (sent until confirmed past it): fine.
    t.send(Some(report(12, 0x12, Some((10, Some(0xa1))), &[(1, 8, 0xa8)]))).await;
    assert_eq!(t.state(&hs).await["status"], "intact");
    t.send(Some(report(14, 0x14, Some((12, Some(0x12))), &[(1, 8, 0x99)]))).await;
    let s = t.state(&hs).await;
    assert_eq!((s["status"].as_str(), s["broken_kind"].as_str(), s["broken_seq"].as_i64()), (Some("broken"), Some("z_head_changed"), Some(8)), "{s}");
    assert_eq!(hs.count("SELECT count(*) FROM audit_z_heads").await, 1, "the first Z head stands");
    // Unknown register: 404.
    let e = hs.owner.get(&format!("/admin/stores/{}/registers/{}/audit", t.store, uuid_like())).await;
    assert!(e.is_err());
}

fn uuid_like() -> &'static str {
    "00000000-0000-4000-8000-000000000000"
}
