//! Exchanges (records 0123 and 0145) into the back office: an `exchange_recorded` fact is
//! stored once and the dashboard says "exchanged for sale N"; one that cannot be true is
//! refused whole with `exchange_contradicts_sale`, naming the seq, and nothing of the batch
//! is applied: an old sale this register never completed, a return it never recorded, a
//! credit above the return, another currency than the old or the new sale's. The same
//! exchange again under another seq is refused, not stored twice. The credit per tender
//! (`credit_parts`, record 0157) is taken when the old sale has those tenders and each paid
//! at least its part, and refused whole by the same rule otherwise.
use crate::support;
use paydesk_backoffice::client::{ClientError, RegisterClient};
use paydesk_sync_proto::Row;
use serde_json::{json, Value};
use crate::facts::*;
use support::*;

/// A cash sale of one untaxed line "A" at `total`.
fn sale(id: i64, total: i64, currency: &str) -> Vec<Row> {
    vec![
        row(json!({"kind": "tender_added", "sale": id, "tender_seq": 1, "method": "cash", "amount": total, "currency": currency,
                   "checkout_key": null, "cash_tendered": total, "change": 0, "rounding": 0, "shift": null})),
        row(json!({
            "kind": "sale_completed", "sale": id, "receipt_no": format!("{id:06}"), "currency": currency, "dining": "take_out",
            "price_mode": null, "subtotal": total, "sale_discount": 0, "tax_total": 0, "total": total, "rates": [],
            "lines": [{"sku": "A", "name": "A", "quantity": 2, "unit_price": total / 2, "tax_class": "exempt", "discount": 0, "total": total}]
        })),
    ]
}

/// Return `k` of `sale`: one "A" back, worth `net`.
fn ret(sale: i64, k: i64, net: i64) -> Row {
    row(json!({"kind": "return_recorded", "sale": sale, "return_no": format!("{sale:06}-R{k}"), "currency": "jpy",
               "total": net, "tax_total": 0, "cash_out": 0, "rates": [],
               "lines": [{"line": 0, "sku": "A", "quantity": 1, "tax_class": "exempt", "net": net}]}))
}

fn exchange(id: i64, old: i64, k: i64, new: i64, credit: i64, currency: &str) -> Row {
    row(json!({"kind": "exchange_recorded", "exchange": id, "old_sale": old, "return_no": format!("{old:06}-R{k}"),
               "new_sale": new, "credit": credit, "currency": currency}))
}

async fn snapshot(h: &Harness) -> Vec<i64> {
    let mut out = vec![];
    for t in ["journal", "sale_exchanges", "sale_returns", "sales", "sale_exchange_parts"] {
        out.push(h.count(&format!("SELECT count(*) FROM {t}")).await);
    }
    out
}

/// Each case sent as the batch from `first`: refused whole with `exchange_contradicts_sale`
/// at its last row's seq, its message saying what it must, and nothing of it applied.
async fn refused_whole(h: &Harness, reg: &RegisterClient, first: u64, cases: Vec<(&str, Vec<Row>, &str)>, before: &[i64], tag: &str) {
    for (i, (name, rows, want)) in cases.into_iter().enumerate() {
        let seq = first as i64 - 1 + rows.len() as i64;
        let e = reg.send(&batch(reg, first, rows), &format!("{tag}-{i}")).await.unwrap_err();
        let ClientError::Refused(r) = e else { panic!("{name}: {e:?}") };
        let (code, got_seq, message) = (r.code().to_string(), r.body["error"]["seq"].as_i64(), r.body["error"]["message"].as_str().unwrap_or("").to_string());
        assert_eq!((r.status, code.as_str(), got_seq), (422, "exchange_contradicts_sale", Some(seq)), "{name}: {message}");
        assert!(message.contains(want), "{name}: {message} (wanted {want})");
        assert_eq!(snapshot(h).await, before, "{name}: nothing applied");
    }
}

#[tokio::test]
async fn an_exchange_is_stored_once_and_one_that_cannot_be_is_refused_by_rule_and_seq() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    // Sale 1 (¥1,000, two "A"), sale 2 (the new one, ¥600), sale 3 in dollars; one "A" of
    // sale 1 back (¥500) as return R1 and exchanged for sale 2.
    let mut rows = sale(1, 1000, "jpy");
    rows.extend(sale(2, 600, "jpy"));
    rows.extend(sale(3, 600, "usd"));
    rows.push(ret(1, 1, 500));
    rows.push(exchange(1, 1, 1, 2, 500, "jpy"));
    assert_eq!(reg.send(&batch(&reg, 1, rows), "good").await.unwrap().acked_through, 8);
    let before = snapshot(&h).await;
    assert_eq!(before, vec![8, 1, 1, 3, 0], "a part-less exchange keeps no parts");

    let cases: Vec<(&str, Vec<Row>, &str)> = vec![
        ("unknown old sale", vec![exchange(2, 9, 1, 2, 100, "jpy")], "sale 9 was never completed"),
        ("unknown return", vec![exchange(2, 1, 5, 7, 100, "jpy")], "return 000001-R5 was never recorded"),
        ("credit above the return", vec![ret(1, 2, 500), exchange(2, 1, 2, 7, 501, "jpy")], "credits 501 out of return 000001-R2, which came to 500"),
        ("another currency", vec![exchange(2, 1, 1, 7, 100, "usd")], "is in usd, its sale 1 in jpy"),
        ("a new sale in another currency", vec![ret(1, 2, 500), exchange(2, 1, 2, 3, 500, "jpy")], "its new sale 3 in usd"),
    ];
    refused_whole(&h, &reg, 9, cases, &before, "bad").await;
    // The same exchange under another seq: refused, still one row.
    let e = reg.send(&batch(&reg, 9, vec![exchange(1, 1, 1, 2, 500, "jpy")]), "twice").await.unwrap_err();
    let ClientError::Refused(r) = e else { panic!("{e:?}") };
    assert_eq!(r.status, 422, "{}", r.body);
    assert_eq!(snapshot(&h).await, before);
    // The same batch again (a redelivery) is acknowledged and changes nothing.
    let mut rows = sale(1, 1000, "jpy");
    rows.extend(sale(2, 600, "jpy"));
    rows.extend(sale(3, 600, "usd"));
    rows.push(ret(1, 1, 500));
    rows.push(exchange(1, 1, 1, 2, 500, "jpy"));
    assert_eq!(reg.send(&batch(&reg, 1, rows), "good").await.unwrap().acked_through, 8);
    assert_eq!(snapshot(&h).await, before);

    // An exchange whose new sale is not paid yet is taken (the sale comes when it is).
    assert_eq!(reg.send(&batch(&reg, 9, vec![ret(1, 2, 500), exchange(2, 1, 2, 7, 300, "jpy")]), "later").await.unwrap().acked_through, 10);
    let d = h.owner.get("/admin/dashboard").await.unwrap();
    let x: Vec<(i64, String, i64, i64, bool)> = d["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["old_sale_id"].as_i64().unwrap(), x["return_no"].as_str().unwrap().to_string(), x["new_sale_id"].as_i64().unwrap(), x["credit"].as_i64().unwrap(), x["new_sale_completed"].as_bool().unwrap()))
        .collect();
    let mut x = x;
    x.sort();
    assert_eq!(x, vec![(1, "000001-R1".to_string(), 2, 500, true), (1, "000001-R2".to_string(), 7, 300, false)], "{d}");
}

/// Sale `id` paid by two cash tenders, 200 and 800: one untaxed line "A" ×2 at 500.
fn split_sale(id: i64) -> Vec<Row> {
    let mut rows = sale(id, 1000, "jpy");
    let completed = rows.pop().unwrap();
    rows[0] = row(json!({"kind": "tender_added", "sale": id, "tender_seq": 1, "method": "cash", "amount": 200, "currency": "jpy",
                         "checkout_key": null, "cash_tendered": 200, "change": 0, "rounding": 0, "shift": null}));
    rows.push(row(json!({"kind": "tender_added", "sale": id, "tender_seq": 2, "method": "cash", "amount": 800, "currency": "jpy",
                         "checkout_key": null, "cash_tendered": 800, "change": 0, "rounding": 0, "shift": null})));
    rows.push(completed);
    rows
}

/// An exchange with its credit per tender and what was carried on (record 0157).
fn exchange_parts(id: i64, (old, k): (i64, i64), new: i64, credit: i64, parts: Value, carried: Option<i64>) -> Row {
    let mut f = json!({"kind": "exchange_recorded", "exchange": id, "old_sale": old, "return_no": format!("{old:06}-R{k}"),
                       "new_sale": new, "credit": credit, "currency": "jpy", "credit_parts": parts});
    if let Some(c) = carried {
        f["credit_carried"] = json!(c);
    }
    row(f)
}

#[tokio::test]
async fn an_exchanges_credit_per_tender_is_taken_when_the_sale_has_it_and_refused_when_it_cannot_be() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    // Sale 1 split 200 + 800; one "A" (500) back into sale 2: 200 out of tender 1, 300 out of
    // tender 2. Then one "A" of sale 2 (300) back into sale 3, all of it carried on from the
    // credit that paid sale 2 (record 0155).
    let mut rows = split_sale(1);
    rows.extend(sale(2, 600, "jpy"));
    rows.extend(sale(3, 600, "jpy"));
    rows.extend(sale(4, 600, "jpy"));
    rows.push(ret(1, 1, 500));
    rows.push(exchange_parts(1, (1, 1), 2, 500, json!([{"tender_seq": 1, "amount": 200}, {"tender_seq": 2, "amount": 300}]), None));
    rows.push(ret(2, 1, 300));
    rows.push(exchange_parts(2, (2, 1), 3, 300, json!([]), Some(300)));
    let n = rows.len() as u64;
    assert_eq!(reg.send(&batch(&reg, 1, rows), "good").await.unwrap().acked_through, n);
    let before = snapshot(&h).await;
    assert_eq!(before[1], 2, "both links stored");

    let cases: Vec<(&str, Vec<Row>, &str)> = vec![
        (
            "a tender the sale does not have",
            vec![ret(1, 2, 500), exchange_parts(3, (1, 2), 7, 500, json!([{"tender_seq": 2, "amount": 400}, {"tender_seq": 3, "amount": 100}]), None)],
            "credits tender 3 of sale 1, which it does not have",
        ),
        (
            "more than a tender paid",
            vec![ret(1, 2, 500), exchange_parts(3, (1, 2), 7, 500, json!([{"tender_seq": 1, "amount": 201}, {"tender_seq": 2, "amount": 299}]), None)],
            "credits 201 out of tender 1 of sale 1, which paid 200",
        ),
        (
            // each part alone is within its tender; tender 1's 200 was already credited by exchange 1
            "a tender credited by two exchanges beyond what it paid",
            vec![ret(1, 2, 500), exchange_parts(3, (1, 2), 7, 500, json!([{"tender_seq": 1, "amount": 100}, {"tender_seq": 2, "amount": 400}]), None)],
            "credits 100 out of tender 1 of sale 1, which paid 200 and has 200 credited by earlier exchanges",
        ),
        (
            // sale 2's credit of 500 already carried 300 into sale 3; 300 more is each alone within it
            "a credit carried on twice beyond what it held",
            vec![ret(2, 2, 300), exchange_parts(3, (2, 2), 7, 300, json!([]), Some(300))],
            "carries 300 on from the credit of sale 2, which holds 500 and has carried 300 on already",
        ),
        (
            "carried on from a credit the sale never had",
            vec![ret(4, 1, 300), exchange_parts(3, (4, 1), 7, 300, json!([]), Some(300))],
            "carries 300 on from the credit of sale 4, which holds 0",
        ),
    ];
    refused_whole(&h, &reg, n + 1, cases, &before, "bad-parts").await;
    // Parts that do not add up to the credit never reach the rules: the wire refuses them.
    let bad = json!({"kind": "exchange_recorded", "exchange": 3, "old_sale": 1, "return_no": "000001-R2", "new_sale": 7, "credit": 500,
                     "currency": "jpy", "credit_parts": [{"tender_seq": 1, "amount": 200}]});
    let fact: paydesk_sync_proto::Fact = serde_json::from_value(bad).unwrap();
    let e = reg.send(&batch(&reg, n + 1, vec![ret(1, 2, 500), Row { at_ms: T, fact }]), "bad-sum").await.unwrap_err();
    let ClientError::Refused(r) = e else { panic!("{e:?}") };
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.to_string().contains("credit_parts"), "{}", r.body);
    assert_eq!(snapshot(&h).await, before);

    // The rest of sale 1 out of what tender 2 has left (800 - 300): taken, and kept per tender.
    let rows = vec![ret(1, 2, 500), exchange_parts(3, (1, 2), 7, 500, json!([{"tender_seq": 2, "amount": 500}]), None)];
    assert_eq!(reg.send(&batch(&reg, n + 1, rows), "rest").await.unwrap().acked_through, n + 2);
    let parts = |seq: i64| format!("SELECT COALESCE(SUM(amount), 0)::int8 FROM sale_exchange_parts WHERE old_sale_id = 1 AND tender_seq = {seq}");
    assert_eq!((h.count(&parts(1)).await, h.count(&parts(2)).await), (200, 800), "each tender credited at most what it paid");
}

/// Sale `id` of one untaxed line "A" ×2, paid `total` by one card (payment `key`, captured).
fn card_sale(id: i64, total: i64, key: &str) -> Vec<Row> {
    let mut rows = vec![
        row(json!({"kind": "payment_created", "checkout_key": key, "amount": total, "currency": "jpy"})),
        row(json!({"kind": "payment_state", "checkout_key": key, "state": "authorizing", "psp_id": null})),
        row(json!({"kind": "payment_state", "checkout_key": key, "state": "captured", "psp_id": format!("pi_{key}")})),
    ];
    let mut cash = sale(id, total, "jpy");
    cash[0] = row(json!({"kind": "tender_added", "sale": id, "tender_seq": 1, "method": "card", "amount": total, "currency": "jpy",
                         "checkout_key": key, "cash_tendered": null, "change": null, "rounding": null, "shift": null}));
    rows.extend(cash);
    rows
}

/// A refund of `amount` on payment `key`, succeeded.
fn refund(refund_key: &str, key: &str, amount: i64) -> Vec<Row> {
    vec![
        row(json!({"kind": "refund_created", "refund_key": refund_key, "checkout_key": key, "amount": amount})),
        row(json!({"kind": "refund_state", "refund_key": refund_key, "state": "succeeded", "psp_refund_id": format!("re_{refund_key}")})),
    ]
}

/// Record 0161: a card part of an exchange is checked against what the card had left when
/// the register made it: its refunds sent before the exchange, and what earlier exchanges
/// credited out of it. A card refunded and then credited past what it kept is refused; a
/// refund the same batch sends after the exchange (its credit given back later) is not
/// counted against it.
#[tokio::test]
async fn a_card_part_is_within_what_the_card_kept_after_its_refunds() {
    let h = Harness::start().await;
    let (_store, reg) = h.store_with_register("Main St").await;
    // Sale 1: ¥1,000 by card k1, 300 refunded. One "A" (500) back into sale 2, all 500 out of
    // the card (500 + 300 <= 1000). Then 400 of that credit goes back to k1 (sale 2 returned):
    // a refund after the exchange in the same batch, which must not count against it.
    let mut rows = card_sale(1, 1000, "k1");
    rows.push(row(json!({"kind": "payment_state", "checkout_key": "k1", "state": "partially_refunded", "psp_id": null})));
    rows.splice(3..3, refund("r1", "k1", 300));
    rows.extend(sale(2, 600, "jpy"));
    rows.extend(sale(7, 600, "jpy"));
    rows.push(ret(1, 1, 500));
    rows.push(exchange_parts(1, (1, 1), 2, 500, json!([{"tender_seq": 1, "amount": 500}]), None));
    rows.extend(refund("r2", "k1", 400));
    // Sale 5: ¥1,000 by card k5, refunded in full.
    rows.extend(card_sale(5, 1000, "k5"));
    rows.extend(refund("r5", "k5", 1000));
    let n = rows.len() as u64;
    assert_eq!(reg.send(&batch(&reg, 1, rows), "good").await.unwrap().acked_through, n);
    let before = snapshot(&h).await;

    let cases: Vec<(&str, Vec<Row>, &str)> = vec![
        (
            "a card refunded in full, then credited",
            vec![ret(5, 1, 500), exchange_parts(2, (5, 1), 7, 1, json!([{"tender_seq": 1, "amount": 1}]), None)],
            "credits 1 out of card tender 1 of sale 5, which paid 1000, has 1000 refunded",
        ),
        (
            // k1 has 700 refunded (300 by hand, 400 of exchange 1's credit given back) and 500
            // credited: at most 300 more, and in truth 200 (100 of the credit is still held)
            "a card credited past its refunds",
            vec![ret(1, 2, 500), exchange_parts(2, (1, 2), 7, 301, json!([{"tender_seq": 1, "amount": 301}]), None)],
            "credits 301 out of card tender 1 of sale 1, which paid 1000, has 700 refunded and 500 credited",
        ),
    ];
    refused_whole(&h, &reg, n + 1, cases, &before, "bad-card").await;
    // What the card really has left (200) is taken.
    let rows = vec![ret(1, 2, 500), exchange_parts(2, (1, 2), 7, 200, json!([{"tender_seq": 1, "amount": 200}]), None)];
    assert_eq!(reg.send(&batch(&reg, n + 1, rows), "rest").await.unwrap().acked_through, n + 2);
}
