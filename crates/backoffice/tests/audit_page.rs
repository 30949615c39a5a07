//! The audit search page (record 0146) in a real headless Chromium over WebDriver, under the
//! dashboard's strict CSP, over a register's chain sent through the real ingest: signed in, it
//! finds a sale by date and receipt number, shows the receipt as issued (as text, never HTML),
//! its print, and the proof VERIFIED step by step; after a row is changed in PostgreSQL the
//! proof says BROKEN naming the row; a bad amount shows the back office's own refusal.
use crate::dashboard::{chromium, sign_in, texts, wait_for, Driver};
use crate::support;
use paydesk_access::audit::{append, Anchor, AuditRecord, ChainedRecord};
use paydesk_sync_proto::audit::hash_hex;
use paydesk_sync_proto::{AuditHead, AuditReport, AuditRow, Batch, Fact, PrintOutcome, ReceiptPrinted, RegisterHealth, Row, PROTOCOL_VERSION};
use serde_json::json;
use sha2::Digest;
use support::*;
use thirtyfour::prelude::*;

/// 2026-12-01 09:30 in Tokyo.
const TOKYO_0930: i64 = 1_796_083_200_000 + 30 * 60_000;
const RECEIPT: &str = "      Shibuya <b>shop</b>\nReceipt 000001\nMug          ¥1,650\nTotal        ¥1,650";

fn chain() -> Vec<ChainedRecord> {
    let sha: String = hex::encode(sha2::Sha256::digest(RECEIPT.as_bytes()));
    let rec = |seq: u64, action: &str, subject: &str, after: Option<String>| AuditRecord {
        seq,
        at_ms: TOKYO_0930 + seq as i64,
        actor_id: Some(1),
        approver_id: None,
        action: action.into(),
        subject: subject.into(),
        reason: None,
        before: None,
        after,
    };
    let mut last = Anchor::GENESIS;
    let mut out = Vec::new();
    for r in [
        rec(1, "sign_in", "staff:1", None),
        rec(2, "receipt_print", "receipt 000001 (sale 1) print 1", Some(json!({"sale": 1, "receipt_no": "000001", "print_no": 1, "reprint": false, "outcome": "printed", "text_sha256": sha}).to_string())),
        rec(3, "drawer_open", "drawer", None),
    ] {
        let c = append(last, r).unwrap();
        last = c.anchor();
        out.push(c);
    }
    out
}

#[tokio::test]
async fn the_audit_page_finds_a_sale_and_shows_its_receipt_and_the_proof_then_the_break_in_chromium() {
    let h = Harness::start().await;
    let (store, reg) = h.store_with_register("Shibuya").await;
    let settings = json!({"store_name": "Shibuya", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 5000, "offline_max_total": 20000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": "Asia/Tokyo"})).await.unwrap();
    let db = h.db().await;
    let (s, r): (uuid::Uuid, uuid::Uuid) = (store.parse().unwrap(), reg.paired.register_id.parse().unwrap());
    for (sale, total) in [(1_i64, 1650_i64), (2, 500)] {
        db.execute(
            "INSERT INTO sales (store_id, register_id, sale_id, receipt_no, currency, dining, price_mode, subtotal, sale_discount, tax_total, total, completed_at_ms)
             VALUES ($1, $2, $3, $4, 'jpy', 'take_out', 'inclusive', $5, 0, 0, $5, $6)",
            &[&s, &r, &sale, &format!("{sale:06}"), &total, &(TOKYO_0930 + sale)],
        )
        .await
        .unwrap();
    }
    // A second store selling in dollars, its sale of $16.50 the next day: the same digits as
    // Shibuya's ¥1,650, found only when the search is in its currency.
    let (store2, reg2) = h.store_with_register("Honolulu").await;
    let (s2, r2): (uuid::Uuid, uuid::Uuid) = (store2.parse().unwrap(), reg2.paired.register_id.parse().unwrap());
    db.execute(
        "INSERT INTO sales (store_id, register_id, sale_id, receipt_no, currency, dining, price_mode, subtotal, sale_discount, tax_total, total, completed_at_ms)
         VALUES ($1, $2, 1, '000001', 'usd', 'take_out', 'inclusive', 1650, 0, 0, 1650, $3)",
        &[&s2, &r2, &(TOKYO_0930 + 86_400_000)],
    )
    .await
    .unwrap();
    // the register's chain and its print, through the real ingest; its head confirmed
    let rows = chain();
    let mut facts: Vec<Row> = rows
        .iter()
        .map(|c| Row {
            at_ms: c.record.at_ms,
            fact: Fact::AuditRow(AuditRow {
                seq: c.record.seq,
                at_ms: c.record.at_ms,
                actor_id: c.record.actor_id,
                approver_id: c.record.approver_id,
                action: c.record.action.clone(),
                subject: c.record.subject.clone(),
                reason: c.record.reason.clone(),
                before: c.record.before.clone(),
                after: c.record.after.clone(),
                prev_hash: hash_hex(&c.prev_hash),
                hash: hash_hex(&c.hash),
            }),
        })
        .collect();
    facts.insert(
        2,
        Row {
            at_ms: TOKYO_0930 + 2,
            fact: Fact::ReceiptPrinted(ReceiptPrinted {
                sale: 1,
                receipt_no: "000001".into(),
                print_no: 1,
                reprint: false,
                outcome: PrintOutcome::Printed,
                paper: true,
                staff: Some(1),
                staff_name: Some("Aiko".into()),
                text: Some(RECEIPT.into()),
                text_sha256: hex::encode(sha2::Sha256::digest(RECEIPT.as_bytes())),
                audit_seq: 2,
            }),
        },
    );
    let head = rows.last().unwrap().anchor();
    let audit = AuditReport { head: AuditHead { seq: head.seq, hash: hash_hex(&head.hash) }, at_confirmed: None, z_heads: vec![] };
    let batch = Batch {
        v: PROTOCOL_VERSION,
        register_id: reg.paired.register_id.clone(),
        first_seq: 1,
        rows: facts,
        health: RegisterHealth { app_version: "0.1.0".into(), queued: 0, offline_waiting: 0, audit: Some(audit) },
    };
    let ack = reg.send(&batch, "audit-page-1").await.unwrap();
    assert_eq!(ack.audit.map(|a| a.seq), Some(3));
    let page = include_str!("../static/audit.html");
    assert!(!page.contains("<style") && !page.contains(" style=") && page.matches("<script").count() == page.matches("<script src=").count());
    let resp = reqwest::get(format!("{}/audit", h.url)).await.unwrap();
    assert!(resp.url().path().ends_with("/login"), "signed out, the page sends to sign-in");

    let driver = tokio::task::spawn_blocking(Driver::start).await.unwrap();
    let (d, _profile) = chromium(&driver, "1300,900").await;
    let result = async {
        sign_in(&d, &h.url).await?;
        d.find(By::Id("to-audit")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.ready === 'true'", "the audit page").await;
        let set = |id: &'static str, v: String| {
            let d = &d;
            async move { d.execute(&format!("document.getElementById('{id}').value = arguments[0]"), vec![json!(v)]).await }
        };
        let words = |v: Vec<String>| v.iter().map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>();
        set("from", "2026-12-01".into()).await?;
        set("to", "2026-12-01".into()).await?;
        d.find(By::Id("search")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.loaded === 'true'", "the sales").await;
        assert_eq!(words(texts(&d, "#sales tbody tr").await), [
            "2026-12-01 09:30:00 Shibuya Shibuya register 000001 1,650 JPY 1 Show",
            "2026-12-01 09:30:00 Shibuya Shibuya register 000002 500 JPY 0 Show",
        ]);
        // Amounts as the owner reads them, in the store's currency (yen: no decimals).
        let chosen: String = d.execute("return document.getElementById('currency').value", vec![]).await?.json().as_str().unwrap_or("").to_string();
        assert_eq!(chosen, "jpy", "the store's currency is chosen");
        set("to", "2026-12-02".into()).await?;
        set("min", "1000".into()).await?;
        d.find(By::Id("search")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.loaded === 'true' && document.querySelectorAll('#sales tbody tr').length === 1", "from ¥1,000").await;
        assert!(texts(&d, "#sales tbody tr").await[0].contains("Shibuya") && texts(&d, "#sales tbody tr").await[0].contains("1,650 JPY"));
        set("currency", "usd".into()).await?;
        set("min", "16.50".into()).await?;
        d.find(By::Id("search")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.loaded === 'true' && document.querySelectorAll('#sales tbody tr').length === 1 && document.querySelector('#sales tbody tr').textContent.includes('USD')", "from $16.50").await;
        assert!(texts(&d, "#sales tbody tr").await[0].contains("Honolulu") && texts(&d, "#sales tbody tr").await[0].contains("16.50 USD"));
        set("currency", "jpy".into()).await?;
        set("to", "2026-12-01".into()).await?;
        set("min", "16.5".into()).await?;
        d.find(By::Id("search")).await?.click().await?;
        wait_for(&d, "return document.getElementById('message').textContent.length > 0", "the refusal").await;
        assert_eq!(d.find(By::Id("message")).await?.text().await?, "min: \"16.5\" is not an amount in JPY (digits, at most 0 decimals, no separators)");
        set("min", "".into()).await?;
        set("receipt", "1".into()).await?;
        d.find(By::Id("search")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.loaded === 'true' && document.querySelectorAll('#sales tbody tr').length === 1", "by receipt").await;
        d.find(By::Css("#sales .show-sale")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.shown === 'true'", "the sale").await;
        // the text as issued, never HTML
        let shown: String = d.execute("return document.getElementById('receipt-text').textContent", vec![]).await?.json().as_str().unwrap_or("").to_string();
        assert_eq!(shown, RECEIPT);
        assert_eq!(words(texts(&d, "#prints tbody tr").await), ["1 original printed 2026-12-01 09:30:00 Aiko 2 matches the chain"]);
        let verdict = d.find(By::Id("verdict")).await?.text().await?;
        assert!(verdict.starts_with("VERIFIED: rows 2 to 3"), "{verdict}");
        let steps = texts(&d, "#steps tbody tr").await;
        assert_eq!(steps.len(), 3, "rows 2 and 3, and the head: {steps:?}");
        assert!(steps[0].starts_with("2 receipt_print") && steps[0].ends_with("ok"), "{}", steps[0]);
        for p in crate::dashboard::screenshot_path("backoffice-audit") {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            d.screenshot(&p).await?;
        }

        // a row changed at the back office: the proof names it
        db.execute("UPDATE audit_rows SET subject = 'staff:2' WHERE seq = 3", &[]).await.unwrap();
        d.find(By::Css("#sales .show-sale")).await?.click().await?;
        wait_for(&d, "return document.body.dataset.shown === 'true' && document.getElementById('verdict').dataset.verdict === 'broken'", "the break").await;
        let verdict = d.find(By::Id("verdict")).await?.text().await?;
        assert_eq!(verdict, "BROKEN: row 3 was changed: its content does not give its hash");
        assert!(texts(&d, "#steps tbody tr").await[1].ends_with("FAILS"));

        set("min", "12a".into()).await?;
        d.find(By::Id("search")).await?.click().await?;
        wait_for(&d, "return document.getElementById('message').textContent.length > 0", "the refusal").await;
        assert_eq!(d.find(By::Id("message")).await?.text().await?, "min: \"12a\" is not an amount in JPY (digits, at most 0 decimals, no separators)");
        Ok::<(), WebDriverError>(())
    }
    .await;
    d.quit().await.unwrap();
    result.unwrap();
}
