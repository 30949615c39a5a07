//! The store's own tenders in the outbox (record 0121, schema v24): a store tender is one
//! `tender_added` row whose method names its type, slip, offered and forfeited (the form
//! `sync-proto` reads as `TenderMethod::Store`; `sync-client`'s `store_tenders_up` sends
//! it to a real back office); a voucher given back as a voucher is one
//! `store_refunded` row; a v23 file (whose trigger sent neither) is back-filled with
//! exactly the rows a v24 register writes, once.
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::Returned;
use serde_json::Value;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC

fn facts(l: &Ledger, kinds: &[&str]) -> Vec<Value> {
    let rows = l.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap();
    rows.iter()
        .map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap())
        .filter(|f| kinds.contains(&f["kind"].as_str().unwrap()) && (f["kind"] != "tender_added" || f["method"].is_object()))
        .collect()
}

/// Sale 1: one mug paid by a ¥200-too-large 商品券 (no change: ¥200 forfeited), then
/// taken back (the voucher's part given back as a voucher). Sale 2: one mug paid by
/// PayPay with its slip. Returns (voucher sale, QR sale).
fn voucher_and_qr(l: &mut Ledger) -> (CartId, CartId) {
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    let v = l.tender_types_mut().add("商品券", StoreTenderKind::Voucher, false, true, AT).unwrap();
    let qr = l.tender_types_mut().add("PayPay", StoreTenderKind::Qr, false, false, AT).unwrap();
    let mut sale = |at: i64| {
        let cart = l.carts_mut().create(Currency::Jpy, at).unwrap();
        l.carts_mut().add(cart, "MUG-001", 1, at).unwrap();
        (cart, l.sales().by_cart(cart).unwrap().totals.due_minor)
    };
    let (a, total_a) = sale(AT + 1);
    let (b, total_b) = sale(AT + 2);
    let paid = l.sales_mut().pay_store(a, v.id, total_a + 200, None, None, AT + 3).unwrap();
    assert_eq!((paid.split.forfeited_minor, paid.sale.state), (200, SaleState::Paid));
    l.sales_mut().pay_store(b, qr.id, total_b, Some("PP-20261201-7"), None, AT + 4).unwrap();
    l.returns_mut().take_back(a, &[Returned { line: 0, quantity: 1 }], None, false, AT + 5).unwrap();
    (a, b)
}

#[test]
fn a_store_tender_and_a_store_refund_are_one_outbox_row_each_with_the_ledgers_figures() {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(5))).unwrap();
    let (a, b) = voucher_and_qr(&mut l);
    let got = facts(&l, &["tender_added", "store_refunded"]);
    let kinds: Vec<&str> = got.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["tender_added", "tender_added", "store_refunded"]);
    for (f, cart) in got.iter().zip([a, b]) {
        let ledger = &l.sales().by_cart(cart).unwrap().tenders[0];
        let info = ledger.store.as_deref().unwrap();
        let st = &f["method"]["store"];
        assert_eq!((f["sale"].as_i64(), f["tender_seq"].as_i64(), f["amount"].as_i64(), f["change"].as_i64()),
                   (Some(cart.0), Some(ledger.seq), Some(ledger.amount.amount_minor), ledger.change_minor));
        assert_eq!((&f["checkout_key"], &f["cash_tendered"], &f["rounding"]), (&Value::Null, &Value::Null, &Value::Null));
        assert_eq!(
            (st["type_id"].as_i64(), st["type_name"].as_str(), st["type_kind"].as_str(), st["reference"].as_str(), st["offered"].as_i64(), st["forfeited"].as_i64()),
            (Some(info.tender_type_id.0), Some(info.type_name.as_str()), Some(info.type_kind.as_str()), info.reference.as_deref(), Some(info.offered_minor), Some(info.forfeited_minor))
        );
    }
    assert_eq!(got[0]["method"]["store"]["forfeited"], 200);
    assert_eq!(got[1]["method"]["store"]["reference"], "PP-20261201-7");
    let refunded: i64 = l.connection().query_row("SELECT sum(amount_minor) FROM store_refunds", [], |r| r.get(0)).unwrap();
    assert_eq!((got[2]["sale"].as_i64(), got[2]["tender_seq"].as_i64(), got[2]["amount"].as_i64()), (Some(a.0), Some(1), Some(refunded)));
    // a cash tender's method stays the plain name
    let cart = l.carts_mut().create(Currency::Jpy, AT + 6).unwrap();
    l.carts_mut().add(cart, "MUG-001", 1, AT + 6).unwrap();
    l.sales_mut().pay_cash(cart, 10_000, None, AT + 6).unwrap();
    let all = l.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap();
    let last: Value = all.iter().map(|r| serde_json::from_str::<Value>(&r.fact_json).unwrap()).rfind(|f| f["kind"] == "tender_added").unwrap();
    assert_eq!(last["method"], "cash");
}

#[test]
fn a_v23_file_is_back_filled_with_the_rows_a_v24_register_writes_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let live = {
        let mut l = Ledger::open(&path).unwrap();
        voucher_and_qr(&mut l);
        facts(&l, &["tender_added", "store_refunded"])
    };
    assert_eq!(live.len(), 3);
    // The v23 file: v23's tender trigger (which skips store tenders), no store refund
    // trigger, and none of their rows (the rest renumbered from 1, as a v23 register
    // would have them).
    let others = {
        let c = rusqlite::Connection::open(&path).unwrap();
        crate::common::undo_named_rates(&c);
        c.execute_batch(V23_TRIGGERS).unwrap();
        c.query_row("SELECT count(*) FROM outbox", [], |r| r.get::<_, i64>(0)).unwrap()
    };
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.schema_version().unwrap(), SCHEMA_VERSION);
    let rows = l.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap();
    assert_eq!(rows.len() as i64, others + 3);
    assert!(rows.windows(2).all(|w| w[1].seq == w[0].seq + 1), "seqs follow on");
    let back: Vec<Value> = rows[others as usize..].iter().map(|r| serde_json::from_str(&r.fact_json).unwrap()).collect();
    assert_eq!(back, live, "tenders then refunds, each by id: the same facts, after everything before");
    drop(l);
    // Opened again: nothing is back-filled twice.
    let l = Ledger::open(&path).unwrap();
    assert_eq!(l.sync_log().outbox_batch(0, MAX_OUTBOX_BATCH).unwrap().len() as i64, others + 3);
    assert!(l.audit().verify(None).unwrap().is_intact());
}

const V23_TRIGGERS: &str = r#"
DROP TRIGGER outbox_store_refunded;
DROP TRIGGER outbox_tender_added;
CREATE TRIGGER outbox_tender_added AFTER INSERT ON tenders
WHEN NEW.kind <> 'store'
BEGIN
    INSERT INTO outbox (seq, at_ms, fact)
    SELECT high_water + 1, NEW.created_at_ms,
           json_object('kind', 'tender_added', 'sale', NEW.cart_id, 'tender_seq', NEW.seq, 'method', NEW.kind,
                       'amount', NEW.amount_minor, 'currency', NEW.currency,
                       'checkout_key', (SELECT idempotency_key FROM payments p WHERE p.id = NEW.payment_id),
                       'cash_tendered', NEW.cash_tendered_minor, 'change', NEW.change_minor,
                       'rounding', NEW.rounding_minor, 'shift', NEW.shift_id)
    FROM outbox_seq WHERE id = 1;
END;
CREATE TEMP TABLE kept AS SELECT row_number() OVER (ORDER BY seq) AS n, at_ms, fact FROM outbox
    WHERE json_extract(fact, '$.kind') <> 'store_refunded'
      AND NOT (json_extract(fact, '$.kind') = 'tender_added' AND json_type(fact, '$.method') = 'object');
DELETE FROM outbox;
UPDATE outbox_seq SET high_water = 0, acked_through = 0;
INSERT INTO outbox (seq, at_ms, fact) SELECT n, at_ms, fact FROM temp.kept ORDER BY n;
PRAGMA user_version = 23;
"#;
