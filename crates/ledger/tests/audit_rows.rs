//! The auditor's search, the register's side (issue #32, record 0146): every audit row goes
//! up with exactly what its hash covers, so the back office recomputes it; each receipt print
//! is recorded with the text printed and an audit row binding that text's SHA-256 into the
//! chain; and the upgrade from the version before adds the table and the two triggers,
//! without back-filling what it holds.
use crate::common;
use paydesk_access::audit::{record_hash, AuditRecord, Hash};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_receipt::{build_receipt, Paper, PrintJob};
use serde_json::Value;

const DAY_MS: i64 = 1_796_083_200_000;

fn paid_sale(l: &mut Ledger) -> CartId {
    let cart = l.carts_mut().create(Currency::Jpy, DAY_MS).unwrap();
    l.carts_mut().add(cart, "COF-001", 1, DAY_MS).unwrap();
    l.sales_mut().pay_cash(cart, 1000, None, DAY_MS + 60_000).unwrap();
    cart
}

fn facts(l: &Ledger, kind: &str) -> Vec<Value> {
    l.sync_log()
        .outbox_batch(0, MAX_OUTBOX_BATCH)
        .unwrap()
        .into_iter()
        .map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap())
        .filter(|f| f["kind"] == kind)
        .collect()
}

fn text_of(l: &Ledger, cart: CartId) -> String {
    let (data, tax) = l.receipts().data(cart).unwrap();
    let reprint = l.receipts().next_print_is_reprint(cart).unwrap();
    PrintJob::new("t", build_receipt(&data, &tax, reprint).unwrap(), Paper::Mm80).text()
}

fn hash_of(hex: &Value) -> Hash {
    let s = hex.as_str().unwrap();
    let mut h = [0u8; 32];
    for (i, b) in h.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    h
}

/// The record an `audit_row` fact says, as the chain hashes it.
fn record_of(f: &Value) -> AuditRecord {
    let s = |k: &str| f[k].as_str().map(String::from);
    AuditRecord {
        seq: f["seq"].as_u64().unwrap(),
        at_ms: f["at_ms"].as_i64().unwrap(),
        actor_id: f["actor_id"].as_i64(),
        approver_id: f["approver_id"].as_i64(),
        action: s("action").unwrap(),
        subject: s("subject").unwrap(),
        reason: s("reason"),
        before: s("before"),
        after: s("after"),
    }
}

#[test]
fn every_audit_row_goes_up_with_what_its_hash_covers_and_recomputes() {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    // a row with a reason (the cashier's words) and one without
    l.audit_mut().record_register_action("drawer_override", "the drawer jammed", Some("drawer"), DAY_MS).unwrap();
    let cart = paid_sale(&mut l);
    let text = text_of(&l, cart);
    l.receipts_mut().record_print_text(cart, &PrintRecord { format: "escpos", target: "127.0.0.1:9100", outcome: PrintOutcome::Printed, error: None, text: Some(&text) }, DAY_MS + 61_000).unwrap();

    let chain = l.audit().chain().unwrap();
    let sent = facts(&l, "audit_row");
    assert_eq!(sent.len(), chain.len(), "every row of the chain went up: {sent:?}");
    for (f, row) in sent.iter().zip(&chain) {
        let record = record_of(f);
        assert_eq!(record, row.record, "the fact is the row");
        assert_eq!(hash_of(&f["prev_hash"]), row.prev_hash);
        assert_eq!(hash_of(&f["hash"]), row.hash);
        assert_eq!(record_hash(&hash_of(&f["prev_hash"]), &record), hash_of(&f["hash"]), "recomputable from the fact alone");
    }
    assert_eq!(sent.iter().filter(|f| f["reason"] == "the drawer jammed").count(), 1);
    assert!(sent.iter().any(|f| f["reason"].is_null()), "no reason goes up as none, as the hash covers it");
}

#[test]
fn a_print_is_recorded_with_its_text_and_an_audit_row_that_binds_the_text() {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let cart = paid_sale(&mut l);
    let original = text_of(&l, cart);
    l.receipts_mut().record_print_text(cart, &PrintRecord { format: "escpos", target: "127.0.0.1:9100", outcome: PrintOutcome::Printed, error: None, text: Some(&original) }, DAY_MS + 61_000).unwrap();
    let copy = text_of(&l, cart);
    assert_ne!(copy, original, "the copy is marked a reprint");
    let again = l.receipts_mut().record_print_text(cart, &PrintRecord { format: "escpos", target: "127.0.0.1:9100", outcome: PrintOutcome::Printed, error: None, text: Some(&copy) }, DAY_MS + 120_000).unwrap();
    assert!(again.reprint);

    let prints = facts(&l, "receipt_printed");
    assert_eq!(prints.len(), 2);
    let rows: Vec<_> = l.audit().chain().unwrap().into_iter().filter(|r| r.record.action == "receipt_print").collect();
    assert_eq!(rows.len(), 2, "one audit row per print");
    for ((p, row), text) in prints.iter().zip(&rows).zip([&original, &copy]) {
        assert_eq!(p["text"].as_str(), Some(text.as_str()), "the text printed goes up");
        assert_eq!(p["receipt_no"], format!("{:06}", cart.0));
        assert_eq!(p["audit_seq"].as_u64(), Some(row.record.seq), "names its audit row");
        let after: Value = serde_json::from_str(row.record.after.as_deref().unwrap()).unwrap();
        assert_eq!(after["text_sha256"].as_str(), Some(receipt_text_sha256(text).as_str()), "the row binds the text");
        assert_eq!((after["sale"].as_i64(), &after["print_no"]), (Some(cart.0), &p["print_no"]));
        assert_eq!(p["text_sha256"], after["text_sha256"]);
    }
    assert_eq!((prints[0]["reprint"].as_bool(), prints[1]["reprint"].as_bool()), (Some(false), Some(true)));
    assert!(l.audit().verify(None).unwrap().is_intact());
}

#[test]
fn a_text_longer_than_the_wire_takes_is_kept_as_its_hash_only() {
    let mut l = common::mem();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let cart = paid_sale(&mut l);
    let long = "x".repeat(MAX_RECEIPT_TEXT_BYTES + 1);
    l.receipts_mut().record_print_text(cart, &PrintRecord { format: "escpos", target: "127.0.0.1:9100", outcome: PrintOutcome::Printed, error: None, text: Some(&long) }, DAY_MS + 61_000).unwrap();
    let p = &facts(&l, "receipt_printed")[0];
    assert!(p["text"].is_null(), "{p}");
    assert_eq!(p["text_sha256"].as_str(), Some(receipt_text_sha256(&long).as_str()));
}

#[test]
fn the_upgrade_adds_the_triggers_and_sends_nothing_it_held_before() {
    let before = common::before_audit_rows();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.db");
    // The file as the version before left it: made by this build, its triggers dropped before
    // anything is written (so nothing of it went up), then its table and its version.
    drop(Ledger::open(&path).unwrap());
    common::undo_audit_rows(&rusqlite::Connection::open(&path).unwrap());
    let cart = {
        let mut l = Ledger::open(&path).unwrap();
        l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
        paid_sale(&mut l)
    };
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!("DROP TABLE receipt_texts; PRAGMA user_version = {before};")).unwrap();
    }
    let old_rows = {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "INSERT INTO receipt_prints (cart_id, print_no, reprint, format, target, outcome, error, at_ms, paper) VALUES (?1, 1, 0, 'escpos', 'x', 'printed', NULL, 5, 1)",
            [cart.0],
        )
        .unwrap();
        common::count_in(&c, "SELECT count(*) FROM audit_log")
    };
    assert!(old_rows > 0, "the demo store wrote audit rows");
    let mut l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), paydesk_ledger::schema::SCHEMA_VERSION);
    let sent = |l: &Ledger| facts(l, "audit_row").iter().map(|f| f["seq"].as_i64().unwrap()).collect::<Vec<_>>();
    assert!(sent(&l).iter().all(|seq| *seq > old_rows), "no back-fill: {:?}", sent(&l));
    assert!(facts(&l, "receipt_printed").is_empty(), "no back-fill");
    // the reprint after the upgrade goes up with its row
    let text = text_of(&l, cart);
    let p = l.receipts_mut().record_print_text(cart, &PrintRecord { format: "escpos", target: "x", outcome: PrintOutcome::Printed, error: None, text: Some(&text) }, DAY_MS + 5).unwrap();
    assert_eq!((p.print_no, p.reprint), (2, true));
    let head = l.audit().head().unwrap().seq as i64;
    assert_eq!(sent(&l).last(), Some(&head), "the print's row went up");
    assert_eq!(facts(&l, "receipt_printed")[0]["print_no"], 2);
    assert!(l.audit().verify(None).unwrap().is_intact());
}
