//! The accountant's daily journal (record 0141) against the REAL back office on a private
//! PostgreSQL, fed by a REAL register ledger through the sync loop: a yen register in Tokyo
//! sells in cash, by card and by PayPay at 10 % and 8 %, takes items back (cash out and a card
//! refund), and closes its drawer ¥20 short. Each of the four CSV files of that day, parsed
//! back, sums to the register's own Z report to the yen, and its debits equal its credits.
use crate::register;
use crate::support;

use paydesk_access::pin::Pin;
use paydesk_access::{LockoutPolicy, Role};
use paydesk_backoffice::books_export::{freee, moneyforward, yayoi, Tax, TaxClass as BoClass};
use paydesk_domain::*;
use paydesk_ledger::*;
use paydesk_tax::{Returned, TaxClass};
use register::Register;
use serde_json::json;
use std::collections::BTreeMap;
use support::{Harness, ADMIN_TOKEN};

/// 2026-09-21 17:13:20 UTC = 2026-09-22 02:13:20 in Tokyo: the store's day is not UTC's.
const T: i64 = 1_790_010_800_000;
const DAY: &str = "2026-09-22";

fn dc(d: i64, n: i64) -> DenominationCount {
    DenominationCount { denomination_minor: d, count: n }
}

fn captured_card(l: &mut Ledger, cart: CartId, at: i64) {
    let p = l.sales_mut().open_card_tender(cart, None, &CheckoutOptions::card("pm_card_visa"), None, at).unwrap().payment;
    l.payments_mut().transition(p.id, PaymentState::Created, PaymentState::Authorizing, "send", at + 1).unwrap();
    let rec = PspResult { idempotency_key: p.idempotency_key.clone(), psp_payment_id: format!("pi_{}", p.id), amount: p.amount, state_if_new: PaymentState::Captured };
    l.payments_mut().record_psp_result(&rec, at + 2).unwrap();
    l.payments_mut().transition(p.id, PaymentState::Authorizing, PaymentState::Captured, "ok", at + 3).unwrap();
}

/// The register's returns per (class, ppm): (gross, tax).
type Returns = BTreeMap<(TaxClass, u32), (i64, i64)>;

/// A day at the till; its Z report and its returns per rate.
fn a_day(reg: &mut Register) -> (ZReport, Returns) {
    let l = &mut reg.ledger;
    l.catalog_mut().seed_demo_store(DemoLocale::JaJp, None, T).unwrap();
    let pin = Pin::parse("2468").unwrap();
    let manager = l.roster_mut().add("Mika", Role::Manager, &pin, None, T + 1).unwrap().id;
    l.roster_mut().sign_in("Mika", &pin, LockoutPolicy::default(), T + 2).unwrap();
    l.shifts_mut().open(Actor::alone(manager), &[dc(1_000, 5)], T + 3).unwrap();
    // cash: a mug (10 %), two teas and a croissant (8 %)
    let a = l.carts_mut().create(Currency::Jpy, T + 10).unwrap();
    for (sku, q) in [("TEA-001", 2), ("MUG-001", 1), ("CRO-001", 1)] {
        l.carts_mut().add(a, sku, q, T + 10).unwrap();
    }
    l.sales_mut().pay_cash(a, 10_000, None, T + 11).unwrap();
    // card: three coffees (8 %) and a mug (10 %)
    let b = l.carts_mut().create(Currency::Jpy, T + 20).unwrap();
    l.carts_mut().add(b, "COF-001", 3, T + 20).unwrap();
    l.carts_mut().add(b, "MUG-001", 1, T + 20).unwrap();
    captured_card(l, b, T + 21);
    // the store's own tender: a croissant paid by PayPay, a 売掛金 of its own
    let paypay = l.tender_types_mut().add("PayPay", StoreTenderKind::Qr, false, false, T).unwrap();
    let c = l.carts_mut().create(Currency::Jpy, T + 25).unwrap();
    l.carts_mut().add(c, "CRO-001", 1, T + 25).unwrap();
    let due = l.sales().by_cart(c).unwrap().totals.due_minor;
    l.sales_mut().pay_store(c, paypay.id, due, Some("PP-0001"), None, T + 26).unwrap();
    // part-paid in cash, then canceled and the cash handed back: no sale, no refund (the
    // register sends no cancel for a sale it never completed; only its tender arrives)
    let e = l.carts_mut().create(Currency::Jpy, T + 27).unwrap();
    l.carts_mut().add(e, "MUG-001", 1, T + 27).unwrap();
    l.sales_mut().pay_cash(e, 500, None, T + 28).unwrap();
    l.sales_mut().begin_cancel(e, "changed their mind", T + 29, &|_| false).unwrap();
    if l.sales().by_cart(e).unwrap().state != SaleState::Canceled {
        l.sales_mut().finish_cancel(e, T + 29).unwrap();
    }
    // the cash sale's mug comes back (cash out of the drawer); a coffee back to the card
    let mug = l.returns_mut().take_back(a, &[Returned { line: 1, quantity: 1 }], None, false, T + 30).unwrap();
    assert!(mug.cash_out_minor > 0);
    let cof = l.returns_mut().take_back(b, &[Returned { line: 0, quantity: 1 }], None, false, T + 31).unwrap();
    for (_, r) in &cof.card_refunds {
        l.refunds_mut().record_result(r.id, "re_1", RefundState::Succeeded, T + 32).unwrap();
    }
    // counted ¥20 short of what the drawer should hold
    let expected = l.shifts_mut().x_report(Actor::alone(manager), T + 40).unwrap().expected_drawer_minor;
    let counted = expected - 20;
    let z = l.shifts_mut().close(Actor::alone(manager), &[dc(1_000, counted / 1_000), dc(1, counted % 1_000)], T + 41).unwrap();
    let mut returns = Returns::new();
    for cart in [a, b] {
        for r in l.returns().by_sale(cart).unwrap() {
            for x in &r.rates {
                let e = returns.entry((x.class, x.ppm)).or_default();
                (e.0, e.1) = (e.0 + x.gross, e.1 + x.tax);
            }
        }
    }
    (z, returns)
}

/// A CSV line's fields (quoted fields with doubled quotes, as the writer makes them).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// What a file says, summed: per (side, account) the amount, and per tax name the sales
/// credited under it (gross, tax).
#[derive(Default, Debug)]
struct Sums {
    by_account: BTreeMap<(char, String), i64>,
    by_tax: BTreeMap<String, (i64, i64)>,
    /// Items taken back, per tax name: (gross, tax).
    returns_by_tax: BTreeMap<String, (i64, i64)>,
    debits: i64,
    credits: i64,
}

impl Sums {
    fn get(&self, side: char, account: &str) -> i64 {
        self.by_account.get(&(side, account.to_string())).copied().unwrap_or(0)
    }
}

/// Column positions: (account, amount, tax name, tax) of the debit side and the credit side.
struct Shape {
    header: bool,
    debit: [usize; 4],
    credit: [usize; 4],
}

fn parse(text: &str, shape: &Shape) -> Sums {
    let text = text.strip_prefix('\u{feff}').expect("a UTF-8 byte-order mark");
    let mut s = Sums::default();
    for line in text.split("\r\n").filter(|l| !l.is_empty()).skip(shape.header as usize) {
        let f = fields(line);
        for (side, [acct, amt, taxname, tax]) in [('D', shape.debit), ('C', shape.credit)] {
            if f[acct].is_empty() {
                continue;
            }
            let amount: i64 = f[amt].parse().unwrap_or_else(|e| panic!("{line}: {e}"));
            *s.by_account.entry((side, f[acct].clone())).or_default() += amount;
            if side == 'D' { s.debits += amount } else { s.credits += amount }
            let taxed = match (f[acct].as_str(), side) {
                ("売上高", 'C') => Some(&mut s.by_tax),
                ("売上戻り高", 'D') if f[taxname] != "対象外" => Some(&mut s.returns_by_tax),
                _ => None,
            };
            if let Some(m) = taxed {
                let t = m.entry(f[taxname].clone()).or_default();
                t.0 += amount;
                t.1 += f[tax].parse::<i64>().unwrap();
            }
        }
    }
    s
}

/// The generic file: English account keys, the tax on its own columns.
fn parse_generic(text: &str) -> Sums {
    let text = text.strip_prefix('\u{feff}').expect("a UTF-8 byte-order mark");
    let mut lines = text.split("\r\n").filter(|l| !l.is_empty());
    let header = fields(lines.next().unwrap());
    assert_eq!(header, paydesk_backoffice::books_export::generic::HEADER.map(String::from));
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let mut s = Sums::default();
    let ja = |k: &str| match k {
        "cash" => "現金",
        "receivable" => "売掛金",
        "sales" => "売上高",
        "sales_returns" => "売上戻り高",
        "cash_over_short" => "現金過不足",
        "suspense" => "仮受金",
        other => panic!("account {other}"),
    };
    for line in lines {
        let f = fields(line);
        assert_eq!(f[col("currency")], "jpy");
        assert_eq!(f[col("date")], DAY);
        for (side, a, m) in [('D', col("debit_account"), col("debit_amount")), ('C', col("credit_account"), col("credit_amount"))] {
            if f[a].is_empty() {
                continue;
            }
            let amount: i64 = f[m].parse().unwrap();
            *s.by_account.entry((side, ja(&f[a]).to_string())).or_default() += amount;
            if side == 'D' { s.debits += amount } else { s.credits += amount }
            let taxed = match (f[a].as_str(), side) {
                ("sales", 'C') => Some(&mut s.by_tax),
                ("sales_returns", 'D') if !f[col("tax_class")].is_empty() => Some(&mut s.returns_by_tax),
                _ => None,
            };
            if let Some(m) = taxed {
                let t = m.entry(format!("{} {}", f[col("tax_class")], f[col("tax_rate")])).or_default();
                t.0 += amount;
                t.1 += f[col("tax")].parse::<i64>().unwrap();
                assert_eq!(f[col("tax_base")].parse::<i64>().unwrap() + f[col("tax")].parse::<i64>().unwrap(), amount, "{line}");
            }
        }
    }
    s
}

fn bo_class(c: TaxClass) -> BoClass {
    match c {
        TaxClass::Standard => BoClass::Standard,
        TaxClass::Reduced => BoClass::Reduced,
        TaxClass::Exempt => BoClass::Exempt,
    }
}

async fn download(h: &Harness, store: &str, query: &str, token: &str) -> reqwest::Response {
    reqwest::Client::new().get(format!("{}/admin/stores/{store}/journal?{query}", h.url)).bearer_auth(token).send().await.unwrap()
}

/// A paired yen store in Tokyo with the day synced up; the Z report.
async fn synced_day(h: &Harness) -> (String, ZReport, Returns) {
    let store = h.owner.create_store("Main St").await.unwrap();
    let settings = json!({"store_name": "Main St", "currency": "jpy", "receipt_footer": "", "offline_max_payment": 50000, "offline_max_total": 200000});
    h.owner.put(&format!("/admin/stores/{store}/settings"), &json!({"expected_version": 0, "settings": settings})).await.unwrap();
    h.owner.put(&format!("/admin/stores/{store}/time-zone"), &json!({"time_zone": "Asia/Tokyo"})).await.unwrap();
    let mut reg = Register::new();
    let (z, returns) = a_day(&mut reg);
    reg.pair(h, &store).await;
    let mut sync = reg.sync_loop();
    let round = sync.round().await.unwrap();
    // Settings applied in that round are audited, and audit rows go up (record 0146): a
    // second round sends them, and nothing of the day is left behind.
    let again = sync.round().await.unwrap();
    let left = reg.ledger.sync_log().outbox_batch(again.acked_through, MAX_OUTBOX_BATCH).unwrap();
    assert!(left.is_empty(), "everything went up in two rounds: {round:?} {again:?}");
    (store, z, returns)
}

#[tokio::test]
async fn each_format_of_the_day_sums_to_the_z_report_to_the_yen() {
    let h = Harness::start().await;
    let (store, z, returns) = synced_day(&h).await;
    assert_eq!(returns.len(), 2, "items back at 10 % and at 8 %: {returns:?}");
    let t = z.report.takings.clone().expect("the Z keeps its takings");
    assert_eq!(z.over_short_minor, -20);
    assert!(t.card_refunds_minor > 0 && t.cash_refunds_minor > 0 && t.tax_rates.len() == 2, "{t:?}");
    let kind = |k: TenderKind| t.by_kind.iter().find(|x| x.kind == k).map_or(0, |x| x.amount_minor);
    assert!(kind(TenderKind::Cash) > 0 && kind(TenderKind::Card) > 0 && kind(TenderKind::Store) > 0, "{t:?}");

    for (format, shape) in [
        ("generic", None),
        ("freee", Some(Shape { header: true, debit: [3, 6, 5, 7], credit: [8, 11, 10, 12] })),
        ("yayoi", Some(Shape { header: false, debit: [4, 8, 7, 9], credit: [10, 14, 13, 15] })),
        ("moneyforward", Some(Shape { header: true, debit: [2, 8, 6, 9], credit: [10, 16, 14, 17] })),
    ] {
        let resp = download(&h, &store, &format!("date={DAY}&format={format}"), ADMIN_TOKEN).await;
        assert_eq!(resp.status(), 200, "{format}");
        let hd = resp.headers();
        assert_eq!(hd["content-type"], "text/csv; charset=utf-8");
        assert_eq!(hd["content-disposition"].to_str().unwrap(), format!("attachment; filename=\"paydesk-journal-{DAY}-{format}.csv\""));
        let text = resp.text().await.unwrap();
        let s = match &shape {
            None => parse_generic(&text),
            Some(shape) => parse(&text, shape),
        };
        let ctx = format!("{format}:\n{text}");
        assert_eq!(s.debits, s.credits, "debits equal credits: {ctx}");
        // sales by rate: each rate's gross and tax, named as the product names it
        let name = |class: TaxClass, ppm: u32, tax: i64| {
            let tax = Tax { class: bo_class(class), ppm, tax };
            match format {
                "generic" => format!("{} {}", bo_class(class).key(), tax.percent()),
                "freee" => freee::tax_name(Some(tax)),
                "yayoi" => yayoi::tax_name(Some(tax)),
                _ => moneyforward::tax_name(Some(tax)),
            }
        };
        let mut want_tax = BTreeMap::new();
        for r in &t.tax_rates {
            assert_eq!(r.base_minor + r.tax_minor, r.gross_minor);
            want_tax.insert(name(r.class, r.ppm, r.tax_minor), (r.gross_minor, r.tax_minor));
        }
        // items taken back: each rate's gross and tax as the register's returns hold them
        let want_returns: BTreeMap<String, (i64, i64)> = returns.iter().map(|(k, v)| (name(k.0, k.1, v.1), *v)).collect();
        assert_eq!(s.returns_by_tax, want_returns, "returns by rate: {ctx}");
        assert_eq!(s.by_tax, want_tax, "{ctx}");
        assert_eq!(s.get('C', "売上高"), t.sales_minor, "sales: {ctx}");
        assert_eq!(s.get('D', "売上戻り高"), t.refunds_minor, "refunds: {ctx}");
        assert_eq!(s.get('C', "売上高") - s.get('D', "売上戻り高"), t.net_minor, "net: {ctx}");
        assert_eq!(s.get('C', "現金過不足") - s.get('D', "現金過不足"), z.over_short_minor, "over/short: {ctx}");
        // the money side: the drawer's cash and what the card processor owes
        assert_eq!(s.get('D', "現金") - s.get('C', "現金"), kind(TenderKind::Cash) - t.cash_refunds_minor + z.over_short_minor, "cash: {ctx}");
        assert_eq!(
            s.get('D', "売掛金") - s.get('C', "売掛金"),
            kind(TenderKind::Card) + kind(TenderKind::Store) - t.card_refunds_minor - t.store_refunds_minor,
            "card and PayPay: {ctx}"
        );
        assert_eq!(s.get('D', "仮受金") + s.get('C', "仮受金"), 0, "a day with no sale across midnight needs no suspense: {ctx}");
    }

    // UTC's day of the same instants is the day before in Tokyo: nothing in it
    let resp = download(&h, &store, "date=2026-09-21&format=freee", ADMIN_TOKEN).await;
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert_eq!(text.trim_start_matches('\u{feff}').split("\r\n").filter(|l| !l.is_empty()).count(), 1, "the header alone: {text}");
}

#[tokio::test]
async fn the_journal_refuses_bad_parameters_a_stranger_and_a_store_it_does_not_hold() {
    let h = Harness::start().await;
    let store = h.owner.create_store("Main St").await.unwrap();
    for (query, says) in [
        ("format=freee", "date: required"),
        ("date=2026-09-22", "format: required"),
        ("date=2026-09-22&format=xlsx", "not one of generic, freee, yayoi, moneyforward"),
        ("date=2026-02-30&format=yayoi", "no day 30"),
        ("date=22.09.2026&format=yayoi", "YYYY-MM-DD"),
        ("date=2026-09-22&format=yayoi&currency=usd", "unknown parameter"),
    ] {
        let resp = download(&h, &store, query, ADMIN_TOKEN).await;
        assert_eq!(resp.status(), 400, "{query}");
        let body: serde_json::Value = resp.json().await.unwrap();
        assert_eq!(body["error"]["code"], "bad_request", "{query}");
        assert!(body["error"]["message"].as_str().unwrap().contains(says), "{query}: {body}");
    }
    // someone without the owner's token, and a store that is not this back office's
    let resp = download(&h, &store, "date=2026-09-22&format=freee", "someone-elses-token-0123456789").await;
    assert_eq!(resp.status(), 401);
    let resp = reqwest::Client::new().get(format!("{}/admin/stores/{store}/journal?date=2026-09-22&format=freee", h.url)).send().await.unwrap();
    assert_eq!(resp.status(), 401, "no credentials");
    let resp = download(&h, &uuid_other(), "date=2026-09-22&format=freee", ADMIN_TOKEN).await;
    assert_eq!(resp.status(), 404);
}

fn uuid_other() -> String {
    "5b0c0f5e-9d7a-4c53-9a44-3a8f3f0e2c11".into()
}
