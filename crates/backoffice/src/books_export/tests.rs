use super::route::{check_date, parse_query};
use super::*;

fn day() -> Figures {
    Figures {
        currency: "jpy".into(),
        exponent: 0,
        tenders: vec![("card".into(), String::new(), 1_650), ("cash".into(), String::new(), 2_000), ("store".into(), "=HYPERLINK(1)".into(), 500)],
        rates: vec![(TaxClass::Standard, 100_000, 2_200, 200), (TaxClass::Reduced, 80_000, 1_950, 144)],
        untaxed: 0,
        refunds: vec![("cash".into(), String::new(), 330)],
        returns: vec![(TaxClass::Standard, 100_000, 330, 30)],
        over_short: vec![("Till 1".into(), 1, -20), ("Till 2".into(), 4, 0)],
    }
}

#[test]
fn every_entry_balances_and_the_sides_carry_the_figures() {
    let j = journal("2026-12-04", &day());
    assert_eq!(j.entries.len(), 3, "sales, refunds, one short drawer (the even one writes nothing): {j:?}");
    for e in &j.entries {
        assert_eq!(e.total(Side::Debit), e.total(Side::Credit), "{e:?}");
        assert!(e.postings.iter().all(|p| p.amount > 0));
    }
    let sales = &j.entries[0];
    // 4,150 taken, 4,150 sold: no suspense line
    assert!(sales.postings.iter().all(|p| p.account != Account::Suspense));
    let short = &j.entries[2];
    assert_eq!(short.postings.iter().find(|p| p.account == Account::Cash).map(|p| (p.side, p.amount)), Some((Side::Credit, 20)));
}

#[test]
fn money_of_another_days_sale_goes_to_suspense() {
    let mut f = day();
    f.tenders[1].2 += 300;
    let j = journal("2026-12-04", &f);
    let s = j.entries[0].postings.iter().find(|p| p.account == Account::Suspense).unwrap();
    assert_eq!((s.side, s.amount), (Side::Credit, 300));
}

#[test]
fn money_given_back_is_split_by_the_rates_of_the_items_taken_back() {
    // a ¥330 item back and ¥100 more by amount: the item at 10 %, the rest untaxed
    let mut f = day();
    f.refunds[0].2 = 430;
    let j = journal("2026-12-04", &f);
    let back: Vec<(Side, Account, i64, Option<i64>)> = j.entries[1].postings.iter().map(|p| (p.side, p.account, p.amount, p.tax.map(|t| t.tax))).collect();
    assert_eq!(back, [(Side::Debit, Account::SalesReturns, 330, Some(30)), (Side::Debit, Account::SalesReturns, 100, None), (Side::Credit, Account::Cash, 430, None)]);
    // an item back whose money has not gone back yet: owed, on the suspense account
    f.refunds.clear();
    let j = journal("2026-12-04", &f);
    let back = &j.entries[1];
    assert_eq!(back.total(Side::Debit), back.total(Side::Credit));
    assert_eq!(back.postings.last().map(|p| (p.side, p.account, p.amount)), Some((Side::Credit, Account::Suspense, 330)));
}

#[test]
fn fields_cannot_become_formulas_and_commas_are_quoted() {
    assert_eq!(field("=HYPERLINK(1)"), "'=HYPERLINK(1)");
    assert_eq!(field("+1"), "'+1");
    assert_eq!(field("@x"), "'@x");
    assert_eq!(field("a,b"), "\"a,b\"");
    assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    let out = String::from_utf8(Format::Freee.write(&[journal("2026-12-04", &day())])).unwrap();
    assert!(out.contains(",'=HYPERLINK(1),") && !out.contains(",=HYPERLINK"), "{out}");
}

#[test]
fn rates_and_amounts_are_written_as_the_products_read_them() {
    assert_eq!(Tax { class: TaxClass::Standard, ppm: 100_000, tax: 0 }.percent(), "10%");
    assert_eq!(Tax { class: TaxClass::Standard, ppm: 88_750, tax: 0 }.percent(), "8.875%");
    assert_eq!(major(1234, 0), "1234");
    assert_eq!(major(1234, 2), "12.34");
    assert_eq!(major(5, 2), "0.05");
    assert_eq!(major(-5, 3), "-0.005");
}

#[test]
fn every_format_has_its_columns_on_every_row() {
    let j = [journal("2026-12-04", &day())];
    for (f, cols, header) in [
        (Format::Generic, generic::HEADER.len(), true),
        (Format::Freee, freee::HEADER.len(), true),
        (Format::Yayoi, yayoi::COLUMNS.len(), false),
        (Format::MoneyForward, moneyforward::HEADER.len(), true),
    ] {
        let text = String::from_utf8(f.write(&j)).unwrap();
        let text = text.strip_prefix('\u{feff}').expect("BOM");
        let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
        // no field here holds a quoted comma, so a plain split counts the columns
        assert!(lines.iter().all(|l| l.split(',').count() == cols), "{f:?}: {text}");
        assert_eq!(lines[0].starts_with("date") || lines[0].starts_with("日付") || lines[0].starts_with("取引No"), header, "{f:?}");
    }
    let yayoi = String::from_utf8(Format::Yayoi.write(&j)).unwrap();
    let flags: Vec<&str> = yayoi.trim_start_matches('\u{feff}').lines().map(|l| &l[..4]).collect();
    // sales: 3 debits beside 2 credits = 3 rows; refunds 1 row; the short drawer 1 row
    assert_eq!(flags, ["2110", "2100", "2101", "2111", "2111"]);
}

#[test]
fn the_query_names_what_is_wrong() {
    assert_eq!(parse_query(Some("date=2026-12-04&format=yayoi")), Ok(("2026-12-04".into(), Format::Yayoi)));
    for (q, says) in [
        ("", "date: required"),
        ("date=2026-12-04", "format: required"),
        ("date=2026-12-04&format=excel", "is not one of generic, freee, yayoi, moneyforward"),
        ("date=2026-02-29&format=freee", "no day 29"),
        ("date=2026-13-01&format=freee", "no month 13"),
        ("date=1999-12-31&format=freee", "2000 to 2999"),
        ("date=04/12/2026&format=freee", "YYYY-MM-DD"),
        ("date=2026-12-04&date=2026-12-05&format=freee", "twice"),
        ("date=2026-12-04&format=freee&store=x", "unknown parameter"),
    ] {
        let e = parse_query(Some(q)).unwrap_err();
        assert!(e.contains(says), "{q}: {e}");
    }
    assert!(check_date("2024-02-29").is_ok());
}
