//! End of day and the X and Z reports of the same period agree (record 0033, 0066): on a
//! day with a cash sale, a card sale, a split sale (cash + card), a card refund and a
//! canceled sale, every tender counts once in the sales, the refund once in the refunds,
//! the canceled sale apart — in `get_report`, `get_tender_day`, `x_report` and the Z
//! report `shift_close` answers with (its screen figures and its printed text).

use crate::support;

use serde_json::{json, Value};
use support::{app, call};

fn ok(w: &support::Window, cmd: &str, args: Value) -> Value {
    call(w, cmd, args).unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

/// The tender lines of an X or Z report as (kind, count, amount), and their sum.
fn tenders(r: &Value) -> (Vec<(String, i64, i64)>, i64) {
    let lines: Vec<(String, i64, i64)> = r["report"]["data"]["tenders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["kind"].as_str().unwrap().to_string(), t["count"].as_i64().unwrap(), t["amount"].as_i64().unwrap()))
        .collect();
    let sum = lines.iter().map(|l| l.2).sum();
    (lines, sum)
}

#[test]
fn end_of_day_and_the_x_and_z_reports_count_every_tender_once() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(dir.path());

    // Prices are New York City's, with 8.875 % tax added (record 0131).
    // 1. Cash: a $2.50 coffee ($2.72), $5 handed over.
    ok(&w, "scan", json!({ "code": "COF-001" }));
    assert_eq!(ok(&w, "pay_cash", json!({ "tendered": "5", "seenTenders": 0 }))["change"], 228);
    ok(&w, "new_sale", json!({}));
    // 2. Card: a $14.95 mug ($16.28).
    ok(&w, "scan", json!({ "code": "MUG-001" }));
    let card = ok(&w, "charge", json!({ "paymentMethod": "pm_card_visa" }));
    assert_eq!(card["kind"], "approved", "{card}");
    let card_key = card["checkout_key"].as_str().unwrap().to_string();
    ok(&w, "new_sale", json!({}));
    // 3. Split: mug + coffee $17.45 ($19.00), $10.00 cash then $9.00 by card.
    ok(&w, "scan", json!({ "code": "MUG-001" }));
    ok(&w, "scan", json!({ "code": "COF-001" }));
    ok(&w, "pay_cash", json!({ "tendered": "10.00", "seenTenders": 0 }));
    let r = ok(&w, "pay_card", json!({ "paymentMethod": "pm_card_visa", "seenTenders": 1 }));
    assert_eq!((r["outcome"].as_str(), r["sale"]["complete"].as_bool()), (Some("paid"), Some(true)), "{r}");
    ok(&w, "new_sale", json!({}));
    // 4. A $4.95 refund of the card sale.
    assert_eq!(ok(&w, "refund", json!({ "paymentId": card_key, "amount": "4.95" }))["state"], "succeeded");
    // 5. Canceled: a $3.00 tea, $1.00 cash and $1.00 card taken, then canceled.
    ok(&w, "scan", json!({ "code": "TEA-001" }));
    ok(&w, "pay_cash", json!({ "tendered": "1", "seenTenders": 0 }));
    assert_eq!(ok(&w, "pay_card", json!({ "amount": "1.00", "paymentMethod": "pm_card_visa", "seenTenders": 1 }))["outcome"], "paid");
    assert_eq!(ok(&w, "cancel_sale", json!({ "reason": "customer left" }))["sale"]["state"], "canceled");
    ok(&w, "new_sale", json!({}));

    let sales = 272 + 1628 + 1900;
    // End of day.
    let day = ok(&w, "get_report", json!({ "since": 0 }));
    assert_eq!((day["gross"].as_i64(), day["gross_display"].as_str()), (Some(sales), Some("$38.00")), "{day}");
    assert_eq!((day["card_refunds"].as_i64(), day["cash_refunds"].as_i64(), day["refunds"].as_i64()), (Some(495), Some(0), Some(495)));
    assert_eq!(day["net"], sales - 495);
    assert_eq!((day["payment_count"].as_i64(), day["sale_count"].as_i64()), (Some(4), Some(3)), "a split sale is two tenders");
    assert_eq!((day["canceled_count"].as_i64(), day["canceled"].as_i64()), (Some(1), Some(200)), "{day}");
    assert_eq!((day["pending_count"].as_i64(), day["offline_count"].as_i64()), (Some(0), Some(0)));
    let chart: i64 = day["sales"].as_array().unwrap().iter().map(|s| s["amount"].as_i64().unwrap()).sum();
    assert_eq!((chart, day["sales"].as_array().unwrap().len()), (sales, 4), "the hourly chart adds up to the sales");
    let tday = ok(&w, "get_tender_day", json!({ "since": 0 }));
    let by_kind: Vec<(String, i64, i64)> = tday["by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["kind"].as_str().unwrap().to_string(), k["count"].as_i64().unwrap(), k["settled"]["minor"].as_i64().unwrap()))
        .collect();

    // The X report of the same shift (the only one): the same figures.
    let x = ok(&w, "x_report", json!({}));
    let (x_tenders, x_sum) = tenders(&x);
    assert_eq!(x_tenders, vec![("card".to_string(), 2, 1628 + 900), ("cash".to_string(), 2, 272 + 1000)]);
    let mut sorted = by_kind.clone();
    sorted.sort();
    assert_eq!(sorted, x_tenders, "End of day's tiles per kind are the X report's lines");
    assert_eq!(x_sum, day["gross"].as_i64().unwrap());
    assert_eq!(x["report"]["data"]["sales"], day["sale_count"]);
    assert_eq!(x["report"]["data"]["takings"]["card_refunds"], day["card_refunds"]);
    assert_eq!(x["report"]["data"]["takings"]["cash_refunds"], day["cash_refunds"]);
    assert_eq!(x["report"]["data"]["takings"]["canceled_sales"], day["canceled_count"]);
    assert_eq!(x["report"]["data"]["takings"]["canceled_amount"], day["canceled"]);
    assert_eq!(x["report"]["net"], day["net"]);

    // The Z report at the close: the same again, on screen and in its printed text.
    let z = ok(&w, "shift_close", json!({ "counted": [] }));
    assert_eq!(z["kind"], "z");
    assert_eq!(tenders(&z), (x_tenders, x_sum));
    assert_eq!(z["report"]["data"]["sales"], day["sale_count"]);
    assert_eq!(z["report"]["data"]["takings"], x["report"]["data"]["takings"]);
    assert_eq!(z["report"]["net"], day["net"]);
    let text: Vec<String> = z["text"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().trim().to_string()).collect();
    let row = |label: &str| text.iter().find(|l| l.starts_with(label)).cloned().unwrap_or_else(|| panic!("no {label:?} in {text:#?}"));
    assert!(row("Card refunds").ends_with("-$4.95"), "{text:#?}");
    assert!(row("Net sales").ends_with("$33.05"), "{text:#?}");
    assert!(row("Canceled sales x 1").ends_with("$2.00"), "{text:#?}");
    // Read back later, the Z keeps them.
    let again = ok(&w, "z_report", json!({ "number": z["z_number"] }));
    assert_eq!((again["report"]["data"]["takings"].clone(), again["report"]["net"].clone()), (z["report"]["data"]["takings"].clone(), z["report"]["net"].clone()));
    // And End of day after the close is unchanged.
    let after = ok(&w, "get_report", json!({ "since": 0 }));
    assert_eq!((after["gross"].clone(), after["net"].clone()), (day["gross"].clone(), day["net"].clone()));
}

/// End of day's "today" and its hours are the store's, not the computer's: the Japanese
/// demo store is in Tokyo (UTC+9 all year), whatever zone this process runs in. Before,
/// the screen passed the computer's midnight and binned hours by the computer's clock.
#[test]
fn end_of_day_counts_the_stores_day_in_its_own_time_zone() {
    const HOUR_MS: i64 = 3_600_000;
    const DAY_MS: i64 = 24 * HOUR_MS;
    let tokyo_hour = |ms: i64| ((ms + 9 * HOUR_MS).rem_euclid(DAY_MS) / HOUR_MS) as u64;
    let dir = tempfile::tempdir().unwrap();
    let options = paydesk_app::Options { demo_store: Some("ja-JP".into()), ..Default::default() };
    let (_app, w) = support::app_with(dir.path(), options);
    ok(&w, "scan", json!({ "code": "COF-001" }));
    ok(&w, "pay_cash", json!({ "tendered": "1000", "seenTenders": 0 }));

    let before = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let r = ok(&w, "get_report", json!({}));
    let after = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let tokyo_midnight = |ms: i64| (ms + 9 * HOUR_MS).div_euclid(DAY_MS) * DAY_MS - 9 * HOUR_MS;
    let since = r["since"].as_i64().unwrap();
    assert!([tokyo_midnight(before), tokyo_midnight(after)].contains(&since), "since {since}, now {before}");
    assert!([tokyo_hour(before), tokyo_hour(after)].contains(&r["now_hour"].as_u64().unwrap()), "{r}");
    let sales = r["sales"].as_array().unwrap();
    assert_eq!(sales.len(), 1, "{r}");
    assert_eq!(sales[0]["hour"].as_u64().unwrap(), tokyo_hour(sales[0]["at"].as_i64().unwrap()), "{r}");
    // The tender figures use the same day.
    let day = ok(&w, "get_tender_day", json!({}));
    assert_eq!(day["by_kind"].as_array().unwrap().len(), 1, "{day}");
    // An explicit start is still checked.
    assert_eq!(call(&w, "get_report", json!({ "since": -1 })).unwrap_err()["code"], "invalid_input");
    assert_eq!(call(&w, "get_tender_day", json!({ "since": after + 2 * DAY_MS })).unwrap_err()["code"], "invalid_input");
}
