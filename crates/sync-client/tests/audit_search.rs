//! The auditor's search (issue #32, record 0146) on the REAL back office (private PostgreSQL)
//! fed by a REAL register ledger whose receipts went to the ESC/POS-parsing test printer over
//! TCP: sales of two days in Tokyo, one reprinted. The search finds exactly the sales each
//! criterion names (date, amount, receipt number); a sale's receipt as issued and its reprint
//! are the text the printer printed; the proof recomputes from the sale's audit row to the head
//! the back office confirmed; a row, a link or a receipt text changed in PostgreSQL makes the
//! proof fail naming the row or the print.
use crate::register;
use crate::support;

use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_receipt::test_printer::TestPrinter;
use paydesk_receipt::{build_receipt, Paper, PrintJob, Printer, PrinterTarget};
use register::Register;
use serde_json::{json, Value};
use std::time::Duration;
use support::Harness;

/// 2026-12-01 00:00 in Tokyo (15:00 UTC the day before).
const DEC_1: i64 = 1_796_083_200_000 - 9 * HOUR;
const DEC_2: i64 = DEC_1 + 24 * HOUR;
const HOUR: i64 = 3_600_000;

fn sale(l: &mut Ledger, items: &[(&str, i64)], at: i64) -> CartId {
    let c = l.carts_mut().create(Currency::Jpy, at).unwrap();
    for (sku, q) in items {
        l.carts_mut().add(c, sku, *q, at).unwrap();
    }
    l.sales_mut().pay_cash(c, 20_000, None, at + 60_000).unwrap();
    c
}

/// Prints the sale's receipt on `printer` as the app does (the original until a copy may
/// have come out, then a reprint) and records it with its text; the lines the printer
/// decoded, each trimmed.
fn print(l: &mut Ledger, printer: &TestPrinter, cart: CartId, at: i64) -> Vec<String> {
    let (data, tax) = l.receipts().data(cart).unwrap();
    let reprint = l.receipts().next_print_is_reprint(cart).unwrap();
    let job = PrintJob::new(format!("sale-{}", cart.0), build_receipt(&data, &tax, reprint).unwrap(), Paper::Mm80);
    let target: PrinterTarget = printer.addr().to_string().parse().unwrap();
    Printer::new(target.clone()).print(&job).unwrap();
    l.receipts_mut()
        .record_print_text(cart, &PrintRecord { format: "escpos", target: &target.to_string(), outcome: PrintOutcome::Printed, error: None, text: Some(&job.text()) }, at)
        .unwrap();
    let out = printer.next_job(Duration::from_secs(10)).expect("the printer got the job").unwrap();
    out.texts().iter().map(|t| t.trim().to_string()).collect()
}

fn lines(text: &Value) -> Vec<String> {
    text.as_str().expect("a text").lines().map(|l| l.trim().to_string()).collect()
}

async fn found(h: &Harness, q: &str) -> Vec<String> {
    let r = h.owner.get(&format!("/admin/audit/search?{q}")).await.unwrap();
    r["sales"].as_array().unwrap().iter().map(|s| s["receipt_no"].as_str().unwrap().to_string()).collect()
}

async fn refused(h: &Harness, q: &str) -> (u16, String) {
    match h.owner.get(&format!("/admin/audit/search?{q}")).await {
        Err(paydesk_backoffice::client::ClientError::Refused(r)) => (r.status, r.body["error"]["param"].as_str().unwrap_or("").to_string()),
        other => panic!("{q}: {other:?}"),
    }
}

#[tokio::test]
async fn the_auditor_finds_sales_by_each_criterion_sees_the_receipt_as_printed_and_a_proof_that_fails_where_a_row_was_changed() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Shibuya").await.unwrap();
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": "Asia/Tokyo"})).await.unwrap();

    let printer = TestPrinter::start().unwrap();
    let mut reg = Register::new();
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, DEC_1).unwrap();
    let a = sale(l, &[("COF-001", 1)], DEC_1 + 9 * HOUR);
    let b = sale(l, &[("MUG-001", 1)], DEC_1 + 10 * HOUR);
    let c = sale(l, &[("TEA-001", 2), ("MUG-001", 1)], DEC_2 + 9 * HOUR);
    let printed_a = print(l, &printer, a, DEC_1 + 9 * HOUR + 2 * 60_000);
    let printed_b = print(l, &printer, b, DEC_1 + 10 * HOUR + 2 * 60_000);
    let reprinted_b = print(l, &printer, b, DEC_1 + 11 * HOUR);
    let _ = print(l, &printer, c, DEC_2 + 9 * HOUR + 2 * 60_000);
    // rows after b's: the proof walks them to the head
    l.audit_mut().record_register_action("drawer_open", "change for the float", None, DEC_2 + 10 * HOUR).unwrap();
    let total = |l: &Ledger, cart: CartId| l.sales().by_cart(cart).unwrap().totals.total_minor;
    let (ta, tb, tc) = (total(l, a), total(l, b), total(l, c));
    assert!(ta < tb && tb < tc, "{ta} {tb} {tc}");
    let no = |cart: CartId| format!("{:06}", cart.0);

    reg.pair(&h, &store).await;
    // The first round confirms the head it reports; the settings it brings down are audited
    // after that report, so a second round confirms them too.
    reg.sync_loop().round().await.unwrap();
    // the nearest head confirmed past the sales' rows: the one the first round reported
    let first = reg.ledger.audit().confirmed().unwrap().unwrap().anchor;
    reg.sync_loop().round().await.unwrap();
    let head = reg.ledger.audit().head().unwrap();
    assert_eq!(reg.ledger.audit().confirmed().unwrap().map(|c| c.anchor), Some(head), "the back office confirmed the head");
    assert!(first.seq < head.seq, "the settings brought down were audited after the first report");

    // by date: each store's own days
    let day1 = format!("from=2026-12-01&to=2026-12-01&store={store}");
    assert_eq!(found(&h, &day1).await, [no(a), no(b)]);
    assert_eq!(found(&h, "from=2026-12-02&to=2026-12-02").await, [no(c)]);
    assert_eq!(found(&h, "from=2026-12-01&to=2026-12-02").await, [no(a), no(b), no(c)]);
    assert!(found(&h, "from=2026-12-03&to=2026-12-31").await.is_empty());
    // by amount
    assert_eq!(found(&h, &format!("from=2026-12-01&to=2026-12-02&min={tb}&max={tb}")).await, [no(b)]);
    assert_eq!(found(&h, &format!("from=2026-12-01&to=2026-12-02&min={}", ta + 1)).await, [no(b), no(c)]);
    assert_eq!(found(&h, &format!("from=2026-12-01&to=2026-12-02&max={}", tc - 1)).await, [no(a), no(b)]);
    // by receipt number, as printed or without its zeros
    assert_eq!(found(&h, &format!("from=2026-12-01&to=2026-12-02&receipt={}", no(c))).await, [no(c)]);
    assert_eq!(found(&h, &format!("from=2026-12-01&to=2026-12-02&receipt={}", c.0)).await, [no(c)]);
    assert!(found(&h, &format!("from=2026-12-02&to=2026-12-02&receipt={}", b.0)).await.is_empty(), "b is Dec 1's");
    // every bad parameter is a 400 naming it
    for (q, param) in [
        ("to=2026-12-01", "from"),
        ("from=2026-12-01&to=2026-11-30", "to"),
        ("from=2026-12-01&to=2026-12-01&min=abc", "min"),
        ("from=2026-12-01&to=2026-12-01&min=5&max=4", "max"),
        ("from=2026-12-01&to=2026-12-01&receipt=1-2", "receipt"),
        ("from=2026-12-01&to=2026-12-01&store=nope", "store"),
        ("from=2026-12-01&to=2026-12-01&store=00000000-0000-0000-0000-000000000000", "store"),
        ("from=2026-12-01&to=2026-12-01&amount=5", "query"),
    ] {
        assert_eq!(refused(&h, q).await, (400, param.to_string()), "{q}");
    }

    // b's receipt as issued, its reprint, the proof
    let rows = h.owner.get(&format!("/admin/audit/search?{day1}&receipt={}", b.0)).await.unwrap();
    let id = rows["sales"][0]["id"].as_str().unwrap().to_string();
    let d = h.owner.get(&format!("/admin/audit/sales/{id}")).await.unwrap();
    assert_eq!(d["sale"]["total"].as_i64(), Some(tb));
    assert_eq!(lines(&d["issued"]["text"]), printed_b, "the receipt as issued is what the printer printed");
    let prints = d["prints"].as_array().unwrap();
    assert_eq!(prints.len(), 2, "{d}");
    assert_eq!((prints[0]["reprint"].as_bool(), prints[1]["reprint"].as_bool()), (Some(false), Some(true)));
    assert_eq!(lines(&prints[1]["text"]), reprinted_b, "the reprint as printed");
    assert_ne!(printed_b, reprinted_b, "the reprint is marked");
    assert_eq!(prints[1]["printed_local"], "2026-12-01 11:00:00", "in Tokyo");
    let proof = &d["proof"];
    assert_eq!(proof["verdict"], "verified", "{proof}");
    assert_eq!(proof["head"]["seq"].as_u64(), Some(first.seq), "the nearest confirmed head");
    assert_eq!(proof["head"]["hash"].as_str(), Some(paydesk_sync_proto::audit::hash_hex(&first.hash).as_str()));
    let from = prints[0]["audit_seq"].as_u64().unwrap();
    let steps = proof["steps"].as_array().unwrap();
    assert_eq!(steps.first().unwrap()["seq"].as_u64(), Some(from));
    assert_eq!(steps.last().unwrap()["seq"].as_u64(), Some(first.seq), "to the confirmed head");
    assert_eq!(steps.len() as u64, first.seq - from + 1, "every row on the way");
    assert!(steps.iter().all(|s| s["ok"] == true && s["hash"] == s["computed"]));
    assert!(prints.iter().all(|p| p["text_matches_chain"] == true));
    let a_detail = h.owner.get(&format!("/admin/audit/search?{day1}&receipt={}", a.0)).await.unwrap();
    let a_id = a_detail["sales"][0]["id"].as_str().unwrap();
    let da = h.owner.get(&format!("/admin/audit/sales/{a_id}")).await.unwrap();
    assert_eq!(lines(&da["issued"]["text"]), printed_a);
    assert_eq!(da["proof"]["verdict"], "verified");

    // a row changed in PostgreSQL: the proof names it
    let db = h.db().await;
    let reprint_row = prints[1]["audit_seq"].as_i64().unwrap();
    let verdict = |d: &Value| (d["proof"]["verdict"].as_str().unwrap().to_string(), d["proof"]["breaks"][0].clone());
    db.execute("UPDATE audit_rows SET subject = subject || ' (edited)' WHERE seq = $1", &[&reprint_row]).await.unwrap();
    let d = h.owner.get(&format!("/admin/audit/sales/{id}")).await.unwrap();
    let (v, b0) = verdict(&d);
    assert_eq!((v.as_str(), b0["kind"].as_str(), b0["seq"].as_i64()), ("broken", Some("changed"), Some(reprint_row)), "{d}");
    assert!(d["proof"]["message"].as_str().unwrap().contains(&format!("row {reprint_row}")));
    // ... and its hash recomputed to match: the next row's link names it
    let prev: Vec<u8> = db.query_one("SELECT prev_hash FROM audit_rows WHERE seq = $1", &[&reprint_row]).await.unwrap().get(0);
    let row = reg.ledger.audit().chain().unwrap().into_iter().find(|r| r.record.seq == reprint_row as u64).unwrap();
    let mut edited = row.record.clone();
    edited.subject += " (edited)";
    let resealed = paydesk_access::audit::record_hash(&prev.try_into().unwrap(), &edited);
    db.execute("UPDATE audit_rows SET hash = $2 WHERE seq = $1", &[&reprint_row, &resealed.as_slice()]).await.unwrap();
    let (v, b0) = verdict(&h.owner.get(&format!("/admin/audit/sales/{id}")).await.unwrap());
    assert_eq!((v.as_str(), b0["kind"].as_str(), b0["seq"].as_i64()), ("broken", Some("unlinked"), Some(reprint_row + 1)));
    db.execute("UPDATE audit_rows SET subject = $2, hash = $3 WHERE seq = $1", &[&reprint_row, &row.record.subject, &row.hash.as_slice()]).await.unwrap();
    assert_eq!(verdict(&h.owner.get(&format!("/admin/audit/sales/{id}")).await.unwrap()).0, "verified", "put back");

    // the receipt's text changed in PostgreSQL: the proof names the print
    let n = db.execute("UPDATE receipt_prints SET text = text || E'\\n(a line added)' WHERE sale_id = $1 AND print_no = 1", &[&b.0]).await.unwrap();
    assert_eq!(n, 1);
    let d = h.owner.get(&format!("/admin/audit/sales/{id}")).await.unwrap();
    let (v, b0) = verdict(&d);
    assert_eq!((v.as_str(), b0["kind"].as_str(), b0["print_no"].as_i64()), ("broken", Some("text_changed"), Some(1)), "{d}");
    assert_eq!(d["prints"][0]["text_matches_chain"], false);

    // a row deleted at the back office
    db.execute("DELETE FROM audit_rows WHERE seq = $1", &[&(reprint_row + 1)]).await.unwrap();
    let (_, b0) = verdict(&h.owner.get(&format!("/admin/audit/sales/{a_id}")).await.unwrap());
    assert_eq!((b0["kind"].as_str(), b0["from"].as_i64()), (Some("missing"), Some(reprint_row + 1)));
}
