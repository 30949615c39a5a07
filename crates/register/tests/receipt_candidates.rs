//! A receipt number on more than one sale (issue #29, record 0159): register B replaced
//! register A and restored A's history; B's own sale ids start at 1 too, so A's receipt
//! 000001 and B's own 000001 both exist. `Engine::receipt_candidates` lists every sale the
//! number may be — B's own paid sale and each predecessor's — and never picks one.

use paydesk_domain::Currency;
use paydesk_ledger::{CartId, DemoLocale, Ledger, RestoreSourceRow, RestoredRow, SeededKeys};
use paydesk_register::transport::HttpTransport;
use paydesk_register::{Engine, EngineConfig, EngineError, OsRandom, ReceiptOpen, SystemClock, MAX_RECEIPT_CANDIDATES};
use std::sync::Arc;
use std::time::Duration;

const AT: i64 = 1_796_083_200_000; // 2026-12-01 00:00 UTC
const A: &str = "3f1c9a52-0000-4000-8000-00000000000a";

fn store(seed: u64) -> Ledger {
    let mut l = Ledger::open_in_memory(Box::new(SeededKeys::new(seed))).unwrap();
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, 1).unwrap();
    l
}

/// A cash sale of `skus` (one each), paid in full; its total.
fn cash_sale(l: &mut Ledger, skus: &[&str], at: i64) -> (CartId, i64) {
    let cart = l.carts_mut().create(Currency::Jpy, at).unwrap();
    for sku in skus {
        l.carts_mut().add(cart, sku, 1, at).unwrap();
    }
    let sale = l.sales().by_cart(cart).unwrap();
    l.sales_mut().pay_cash(cart, sale.totals.due_minor, None, at + 1).unwrap();
    (cart, sale.cart.total.amount_minor)
}

fn source(id: &str, name: &str, acked: u64, started: i64) -> RestoreSourceRow {
    RestoreSourceRow {
        register_id: id.into(),
        register_name: name.into(),
        acked_through: acked,
        described_json: "{}".into(),
        restored_through: 0,
        started_at_ms: started,
        finished_at_ms: None,
    }
}

fn restore(b: &mut Ledger, src: &RestoreSourceRow, rows: &[RestoredRow]) {
    b.sync_log_mut().begin_restore(src, AT + 100).unwrap();
    b.sync_log_mut().append_restored(&src.register_id, rows, AT + 100).unwrap();
}

fn engine(b: Ledger) -> Engine {
    // Nothing here reaches a PSP: a look-up reads the ledger only.
    let transport = Arc::new(HttpTransport::new("http://127.0.0.1:9", "sk_test_x", Duration::from_secs(1)).unwrap());
    Engine::new(b, transport, Arc::new(SystemClock::new()), Arc::new(OsRandom), EngineConfig::default())
}

/// A sells twice (sales 1 and 2), B once (its own sale 1) and restores A.
fn world() -> (Engine, Vec<RestoredRow>, (i64, i64), i64) {
    let mut a = store(7);
    let (a1, a1_total) = cash_sale(&mut a, &["COF-001", "MUG-001"], AT);
    let (a2, a2_total) = cash_sale(&mut a, &["CRO-001"], AT + 10);
    assert_eq!((a1, a2), (CartId(1), CartId(2)));
    let rows = a.sync_log().outbox_as_restored(0, 500).unwrap();
    let mut b = store(8);
    let (b1, b1_total) = cash_sale(&mut b, &["CRO-001", "CRO-001"], AT + 1000);
    assert_eq!(b1, CartId(1), "B's own sale 1: the same number as A's first");
    assert_ne!(b1_total, a1_total, "told apart by their totals too");
    restore(&mut b, &source(A, "Front till", rows.len() as u64, 0), &rows);
    (engine(b), rows, (a1_total, a2_total), b1_total)
}

#[test]
fn a_number_on_this_registers_sale_and_a_restored_one_gives_both() {
    let (e, _, (a1_total, _), b1_total) = world();
    let found = e.receipt_candidates("000001").unwrap();
    assert_eq!(found.found, 2, "{found:?}");
    let opens: Vec<_> = found.candidates.iter().map(|c| c.open.clone()).collect();
    assert_eq!(opens, vec![ReceiptOpen::Own { cart: 1 }, ReceiptOpen::Restored { source: A.into(), sale: 1 }]);
    let own = &found.candidates[0];
    assert_eq!((own.register_name.as_deref(), own.receipt_no.as_str(), own.total_minor, own.currency), (None, "000001", b1_total, Currency::Jpy));
    let theirs = &found.candidates[1];
    assert_eq!((theirs.register_name.as_deref(), theirs.receipt_no.as_str(), theirs.total_minor), (Some("Front till"), "000001", a1_total));
    // The predecessor's time in the store's zone (Tokyo, +9): 2026-12-01 09:00.
    assert_eq!((theirs.at.year, theirs.at.month, theirs.at.day, theirs.at.hour, theirs.at.minute), (2026, 12, 1, 9, 0));
    // "1" is the same number as "000001".
    assert_eq!(e.receipt_candidates(" 1 ").unwrap(), found);
}

#[test]
fn a_number_on_one_sale_only_gives_that_one_and_on_none_gives_none() {
    let (e, _, (_, a2_total), _) = world();
    let found = e.receipt_candidates("000002").unwrap();
    assert_eq!(found.found, 1);
    assert_eq!(found.candidates[0].open, ReceiptOpen::Restored { source: A.into(), sale: 2 });
    assert_eq!(found.candidates[0].total_minor, a2_total);
    let none = e.receipt_candidates("000003").unwrap();
    assert_eq!((none.found, none.candidates.len()), (0, 0));
    assert_eq!(e.receipt_candidates("0").unwrap().found, 0, "no sale is number 0");
}

#[test]
fn a_number_only_this_register_has_gives_its_own_sale() {
    let mut b = store(8);
    let (cart, total) = cash_sale(&mut b, &["COF-001"], AT);
    let e = engine(b);
    let found = e.receipt_candidates(&format!("{:06}", cart.0)).unwrap();
    assert_eq!(found.found, 1);
    assert_eq!((found.candidates[0].open.clone(), found.candidates[0].total_minor), (ReceiptOpen::Own { cart: cart.0 }, total));
}

#[test]
fn a_malformed_number_is_refused_as_invalid_input() {
    let (e, _, _, _) = world();
    for bad in ["", "   ", "12a", "-1", "1.0", "000001\n2", "123456789012345678901"] {
        match e.receipt_candidates(bad) {
            Err(EngineError::InvalidInput(m)) => assert!(m.contains("receipt number"), "{bad:?}: {m}"),
            other => panic!("{bad:?} not refused as invalid input: {other:?}"),
        }
    }
    // Twenty digits is still a number (no sale has it).
    assert_eq!(e.receipt_candidates("99999999999999999999").unwrap().found, 0);
}

/// Two predecessors with the same number and no name: each named by its id; past the limit
/// the list stops and `found` says how many there were.
#[test]
fn many_predecessors_with_the_number_are_listed_up_to_the_limit() {
    let (e, rows, _, _) = world();
    drop(e);
    let mut b = store(8);
    cash_sale(&mut b, &["CRO-001"], AT + 1000);
    let extra = MAX_RECEIPT_CANDIDATES + 1;
    for i in 0..extra {
        let id = format!("reg-{i:02}");
        restore(&mut b, &source(&id, if i == 0 { "" } else { "Till" }, rows.len() as u64, i as i64), &rows);
    }
    let e = engine(b);
    let found = e.receipt_candidates("000001").unwrap();
    assert_eq!((found.found, found.candidates.len()), (extra + 1, MAX_RECEIPT_CANDIDATES));
    assert_eq!(found.candidates[0].open, ReceiptOpen::Own { cart: 1 });
    assert_eq!(found.candidates[1].register_name.as_deref(), Some("reg-00"), "no name: its id");
    assert_eq!(found.candidates[1].open, ReceiptOpen::Restored { source: "reg-00".into(), sale: 1 });
}
