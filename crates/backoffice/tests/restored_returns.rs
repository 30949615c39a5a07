//! A replacement's return of its predecessor's sale (record 0144): the back office takes the
//! refund of the predecessor's payment, the cash and the return from the register that
//! restored the predecessor, keeps them under the predecessor's sale and checks them against
//! it over the returns of both; the same facts from a register of the store that never
//! restored it are refused with their rule codes, and so is anything past what was sold or paid.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::Row;
use serde_json::{json, Value};
use crate::facts::*;
use support::*;

/// Sale 1: "A" ×2 at 300 and "B" ×1 at 400, untaxed; 600 by card (key `k-a`), 400 in cash.
fn sale() -> Vec<Row> {
    vec![
        row(json!({"kind": "payment_created", "checkout_key": "k-a", "amount": 600, "currency": "jpy"})),
        row(json!({"kind": "payment_state", "checkout_key": "k-a", "state": "captured", "psp_id": "pi_a"})),
        row(json!({"kind": "tender_added", "sale": 1, "tender_seq": 1, "method": "card", "amount": 600, "currency": "jpy",
                   "checkout_key": "k-a", "cash_tendered": null, "change": null, "rounding": null, "shift": null})),
        row(json!({"kind": "tender_added", "sale": 1, "tender_seq": 2, "method": "cash", "amount": 400, "currency": "jpy",
                   "checkout_key": null, "cash_tendered": 400, "change": 0, "rounding": 0, "shift": null})),
        row(json!({
            "kind": "sale_completed", "sale": 1, "receipt_no": "000001", "currency": "jpy", "dining": "take_out",
            "price_mode": null, "subtotal": 1000, "sale_discount": 0, "tax_total": 0, "total": 1000, "rates": [],
            "lines": [
                {"sku": "A", "name": "A", "quantity": 2, "unit_price": 300, "tax_class": "exempt", "discount": 0, "total": 600},
                {"sku": "B", "name": "B", "quantity": 1, "unit_price": 400, "tax_class": "exempt", "discount": 0, "total": 400}
            ]
        })),
    ]
}

fn ret(k: i64, lines: &[(i64, &str, i64, i64)], cash_out: i64, of: &str) -> Row {
    let total: i64 = lines.iter().map(|l| l.3).sum();
    let lines: Vec<Value> = lines.iter().map(|(line, sku, q, net)| json!({"line": line, "sku": sku, "quantity": q, "tax_class": "exempt", "net": net})).collect();
    row(json!({"kind": "return_recorded", "sale": 1, "return_no": format!("000001-R{k}"), "currency": "jpy",
               "total": total, "tax_total": 0, "cash_out": cash_out, "rates": [], "lines": lines, "sale_register": of}))
}

fn cash_back(movement: i64, amount: i64, of: &str) -> Row {
    row(json!({"kind": "cash_refunded", "movement": movement, "sale": 1, "amount": amount, "currency": "jpy", "shift": null, "sale_register": of}))
}

fn refund(key: &str, amount: i64) -> Vec<Row> {
    vec![
        row(json!({"kind": "refund_created", "refund_key": key, "checkout_key": "k-a", "amount": amount})),
        row(json!({"kind": "refund_state", "refund_key": key, "state": "succeeded", "psp_refund_id": format!("re_{key}")})),
    ]
}

async fn refused(reg: &RegisterClient, first: u64, rows: Vec<Row>, name: &str) -> (String, String) {
    let e = reg.send(&batch(reg, first, rows), &name.replace(' ', "-")).await.unwrap_err();
    let ClientError::Refused(r) = e else { panic!("{name}: {e:?}") };
    assert_eq!(r.status, 422, "{name}: {:?}", r.body);
    (r.code().to_string(), r.body["error"]["message"].as_str().unwrap_or("").to_string())
}

#[tokio::test]
async fn a_replacement_gives_back_its_predecessors_sale_and_no_other_register_may() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let a = h.register_in(&store, "Front till").await;
    let a_id = a.paired.register_id.clone();
    assert_eq!(a.send(&batch(&a, 1, sale()), "sale").await.unwrap().acked_through, 5);
    h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.unwrap();
    let b = h.register_in(&store, "Front till").await;
    let c = h.register_in(&store, "Back till").await;
    // B restores A (reads its history); C never does.
    let page = b.get("/v1/restore/rows", &[("from", a_id.as_str())]).await.unwrap();
    assert_eq!(page["rows"].as_array().map(Vec::len), Some(5));

    // C: every fact about A's sale is refused by its rule.
    let (code, msg) = refused(&c, 1, refund("r-c", 100), "c refund").await;
    assert_eq!(code, "refund_of_other_register", "{msg}");
    let (code, msg) = refused(&c, 1, vec![ret(1, &[(0, "A", 1, 300)], 300, &a_id)], "c return").await;
    assert_eq!(code, "return_contradicts_sale", "{msg}");
    assert!(msg.contains("never restored"), "{msg}");
    let (code, _) = refused(&c, 1, vec![cash_back(1, 100, &a_id)], "c cash").await;
    assert_eq!(code, "cash_refund_contradicts_sale");
    assert_eq!(h.count("SELECT count(*) FROM sale_returns").await, 0);

    // B: the card's 600, 100 in cash, and the return of one A and the B (700).
    let mut rows = refund("r-b1", 600);
    rows.push(cash_back(1, 100, &a_id));
    rows.push(ret(1, &[(0, "A", 1, 300), (1, "B", 1, 400)], 100, &a_id));
    assert_eq!(b.send(&batch(&b, 1, rows), "b-return").await.unwrap().acked_through, 4);
    let b_id = b.paired.register_id.clone();
    assert_eq!(h.count(&format!("SELECT count(*) FROM sale_returns WHERE register_id::text = '{a_id}' AND taken_by::text = '{b_id}'")).await, 1);
    assert_eq!(h.count(&format!("SELECT count(*) FROM cash_refunds WHERE register_id::text = '{a_id}' AND drawer_register_id::text = '{b_id}'")).await, 1);

    // Past what was sold (A ×2 sold, 1 back, 2 more) or paid (the card has nothing left; the
    // cash tender 400, 100 back, 301 more): refused, over the returns of both registers.
    let (code, msg) = refused(&b, 5, vec![ret(2, &[(0, "A", 2, 600)], 0, &a_id)], "b over").await;
    assert_eq!(code, "return_contradicts_sale", "{msg}");
    let (code, msg) = refused(&b, 5, refund("r-b2", 1), "b refund over").await;
    assert_eq!(code, "refund_exceeds_payment", "{msg}");
    let (code, msg) = refused(&b, 5, vec![cash_back(2, 301, &a_id)], "b cash over").await;
    assert_eq!(code, "cash_refund_contradicts_sale", "{msg}");
    // A sale_register that is no register: refused by the same rule.
    let (code, _) = refused(&b, 5, vec![ret(2, &[(0, "A", 1, 300)], 0, "00000000-0000-0000-0000-000000000000")], "b nobody").await;
    assert_eq!(code, "return_contradicts_sale");

    // The dashboard nets the return once.
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let n = d["sales_net"].as_array().unwrap().iter().find(|s| s["store_id"] == store.as_str()).unwrap().clone();
    assert_eq!((n["sold"].as_i64(), n["returns"].as_i64(), n["returned"].as_i64(), n["net"].as_i64(), n["cash_refunded"].as_i64()), (Some(1000), Some(1), Some(700), Some(300), Some(100)), "{n}");
}

/// A replacement's refund of its predecessor's payment counts the refunds the predecessor
/// made itself (the refund check's second probe, record 0149's second addendum).
#[tokio::test]
async fn a_replacements_refund_counts_the_refunds_its_predecessor_made() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    let a = h.register_in(&store, "Front till").await;
    let a_id = a.paired.register_id.clone();
    // A: the sale (card 600 on k-a) and 100 of the card refunded by A itself (seqs 6-7)
    let mut rows = sale();
    rows.extend(refund("r-a", 100));
    assert_eq!(a.send(&batch(&a, 1, rows), "sale").await.unwrap().acked_through, 7);
    h.owner.post(&format!("/admin/stores/{store}/registers/{a_id}/replace"), &json!({})).await.unwrap();
    let b = h.register_in(&store, "Front till").await;
    b.get("/v1/restore/rows", &[("from", a_id.as_str())]).await.unwrap();
    // B: 501 more is above the 500 left; 500 is exactly it
    let (code, msg) = refused(&b, 1, refund("r-b", 501), "b over").await;
    assert_eq!(code, "refund_exceeds_payment", "{msg}");
    assert!(msg.contains("come to 601"), "{msg}");
    assert_eq!(b.send(&batch(&b, 1, refund("r-b", 500)), "b-exact").await.unwrap().acked_through, 2);
}
