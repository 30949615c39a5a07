//! The ryōshūsho (領収書, issue #29): the stamp box for a cash part of ¥50,000 or more before
//! tax and never for a card part, the amounts it states, what it refuses, and its three
//! renderings agreeing.

use crate::common::*;
use paydesk_domain::{Currency, Locale, TenderKind};
use paydesk_receipt::ryoshusho::{build_ryoshusho, render_ryoshusho_escpos, render_ryoshusho_html, render_ryoshusho_text, Part, RyoshushoRequest, StampNeeded, StampRule};
use paydesk_receipt::test_printer::parse_escpos;
use paydesk_receipt::*;
use paydesk_tax::{Dining, TaxClass};
use unicode_width::UnicodeWidthStr;

/// One line of `price` yen at `class`, paid by `tenders` (kind, amount).
fn sale(price: i64, class: TaxClass, tenders: &[(TenderKind, i64)]) -> Receipt {
    let data = SaleData {
        lines: vec![LineInput { name: "腕時計".into(), unit_price: price, quantity: 1, class, discount: None, weight: None }],
        tenders: tenders.iter().map(|(kind, amount)| Tender { kind: *kind, amount: *amount, card: None, store: None }).collect(),
        dining: Dining::TakeOut,
        header: vec![],
        footer: vec![],
        ..ja_sale()
    };
    build_receipt(&data, &inclusive(), false).unwrap()
}

fn request(addressee: &str) -> RyoshushoRequest {
    RyoshushoRequest { addressee: addressee.into(), description: "お品代として".into(), number: "0042-1".into(), issued_at: at() }
}

fn text(r: &paydesk_receipt::ryoshusho::Ryoshusho, paper: Paper) -> String {
    let rows = render_ryoshusho_text(r, paper);
    for row in &rows {
        assert_eq!(row.width_cjk(), paper.columns(), "{row:?}");
    }
    rows.join("\n")
}

#[test]
fn a_55000_yen_cash_receipt_has_the_stamp_box_and_says_what_it_is_for() {
    let r = build_ryoshusho(&sale(55_000, TaxClass::Standard, &[(TenderKind::Cash, 60_000)]), &request("株式会社ペイデスク"), false, Some(&StampRule::japan())).unwrap();
    // ¥5,000 of the ¥55,000 is tax: ¥50,000 before tax, exactly the threshold.
    assert_eq!(r.stamp, Some(StampNeeded { base_minor: 50_000, duty_minor: 200 }));
    assert_eq!(r.parts, vec![Part { kind: TenderKind::Cash, amount: 55_000, counts_for_stamp: true }], "the change is not received");
    let t = text(&r, Paper::Mm80);
    for want in ["領収書", "株式会社ペイデスク 様", "¥55,000-", "但し お品代として", "上記正に領収いたしました", "現金", "10%対象", "内消費税", "¥5,000", "収入印紙", "印紙税額 ¥200", "T7000012050002", "レシート番号 0042", "No.0042-1"] {
        assert!(t.contains(want), "{want:?} missing:\n{t}");
    }
    assert!(!t.contains("再発行") && !t.contains("クレジット"), "{t}");
}

#[test]
fn a_55000_yen_card_receipt_has_no_stamp_box_and_says_it_was_a_card() {
    let r = build_ryoshusho(&sale(55_000, TaxClass::Standard, &[(TenderKind::Card, 55_000)]), &request(""), false, Some(&StampRule::japan())).unwrap();
    assert_eq!(r.stamp, None);
    let t = text(&r, Paper::Mm80);
    assert!(t.contains("クレジットカード決済") && !t.contains("収入印紙") && !t.contains("現金"), "{t}");
    assert!(t.lines().any(|l| l.trim() == "様"), "a blank addressee leaves the line for the pen:\n{t}");
}

#[test]
fn only_the_cash_part_before_tax_counts() {
    let japan = StampRule::japan();
    let stamp = |price: i64, class: TaxClass, tenders: &[(TenderKind, i64)]| {
        build_ryoshusho(&sale(price, class, tenders), &request("A"), false, Some(&japan)).unwrap().stamp.map(|s| (s.base_minor, s.duty_minor))
    };
    // ¥54,000 with its tax is ¥49,091 before tax: no stamp.
    assert_eq!(stamp(54_000, TaxClass::Standard, &[(TenderKind::Cash, 54_000)]), None);
    // Half by card: the cash half of a ¥110,000 sale is ¥50,000 before tax.
    assert_eq!(stamp(110_000, TaxClass::Standard, &[(TenderKind::Card, 55_000), (TenderKind::Cash, 55_000)]), Some((50_000, 200)));
    // All by card: none, however large.
    assert_eq!(stamp(5_000_000, TaxClass::Standard, &[(TenderKind::Card, 5_000_000)]), None);
    // A tax-exempt sale has no tax to take off.
    assert_eq!(stamp(50_000, TaxClass::Exempt, &[(TenderKind::Cash, 50_000)]), Some((50_000, 200)));
    // ¥1,100,000 in cash is ¥1,000,000 before tax: still the ¥200 stamp; a yen more is not.
    assert_eq!(stamp(1_100_000, TaxClass::Standard, &[(TenderKind::Cash, 1_100_000)]), Some((1_000_000, 200)));
    assert_eq!(stamp(1_100_012, TaxClass::Standard, &[(TenderKind::Cash, 1_100_012)]), Some((1_000_011, 400)));
    // Where no stamp duty applies (no rule), none.
    assert_eq!(build_ryoshusho(&sale(55_000, TaxClass::Standard, &[(TenderKind::Cash, 55_000)]), &request("A"), false, None).unwrap().stamp, None);
}

#[test]
fn the_stores_approved_words_replace_the_box() {
    let rule = StampRule { approved_text: Some("収入印紙税申告納付につき渋谷税務署承認済".into()), ..StampRule::japan() };
    let r = build_ryoshusho(&sale(55_000, TaxClass::Standard, &[(TenderKind::Cash, 55_000)]), &request("A"), false, Some(&rule)).unwrap();
    let t = text(&r, Paper::Mm58);
    assert!(t.contains("収入印紙税申告納付につき") && !t.contains("印紙税額") && !t.contains("+---"), "{t}");
}

#[test]
fn a_second_copy_is_marked_and_the_three_renderings_agree() {
    let r = build_ryoshusho(&sale(55_000, TaxClass::Standard, &[(TenderKind::Cash, 55_000)]), &request("山田 太郎"), true, Some(&StampRule::japan())).unwrap();
    for paper in [Paper::Mm58, Paper::Mm80] {
        let t = text(&r, paper);
        assert!(t.contains("再発行"), "{t}");
        let p = parse_escpos(&render_ryoshusho_escpos(&r, paper)).unwrap();
        let printed: Vec<String> = p.texts().iter().map(|x| x.trim().to_string()).collect();
        let shown: Vec<String> = render_ryoshusho_text(&r, paper).iter().map(|x| x.trim().to_string()).collect();
        assert_eq!(printed, shown);
        assert!(p.kanji && p.lines[0].double);
        assert_eq!((p.cuts, p.kicks.len()), (1, 0), "a ryoshusho never opens the drawer");
    }
    let html = render_ryoshusho_html(&r);
    assert!(html.contains("lang=\"ja\"") && html.contains("山田 太郎"), "{html}");
}

#[test]
fn an_english_store_gets_english_words_and_no_stamp_without_a_rule() {
    let data = en_sale();
    let receipt = build_receipt(&data, &inclusive(), false).unwrap();
    let r = build_ryoshusho(&receipt, &RyoshushoRequest { description: "Office supplies".into(), ..request("Acme Corp.") }, false, None).unwrap();
    assert_eq!((r.language, r.currency, r.stamp), (Locale::En, Currency::Usd, None));
    let t = text(&r, Paper::Mm80);
    assert!(t.contains("Received from: Acme Corp.") && t.contains("For: Office supplies") && t.contains("Credit card") && t.contains("Cash"), "{t}");
    assert!(!t.contains("Revenue stamp"), "{t}");
}

#[test]
fn bad_input_is_refused_by_field_and_an_unpaid_sale_gets_none() {
    let paid = sale(1_000, TaxClass::Standard, &[(TenderKind::Cash, 1_000)]);
    let refused = |req: RyoshushoRequest| match build_ryoshusho(&paid, &req, false, None) {
        Err(ReceiptError::BadText { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(refused(request("株式会社\u{1b}@")), "addressee", "an ESC would reach the printer as a command");
    assert_eq!(refused(request(&"長".repeat(MAX_TEXT_CHARS + 1))), "addressee");
    assert_eq!(refused(RyoshushoRequest { description: "  ".into(), ..request("A") }), "description");
    let mut unpaid = paid.clone();
    unpaid.paid = 500;
    assert!(matches!(build_ryoshusho(&unpaid, &request("A"), false, None), Err(ReceiptError::Underpaid { paid: 500, total: 1_000 })));
}

/// A ¥55,000 watch and a ¥1,650 mug (both 10 %), ¥60,000 in cash.
fn watch_and_mug() -> Receipt {
    let data = SaleData {
        lines: vec![
            LineInput { name: "腕時計".into(), unit_price: 55_000, quantity: 1, class: TaxClass::Standard, discount: None, weight: None },
            LineInput { name: "マグ".into(), unit_price: 1_650, quantity: 1, class: TaxClass::Standard, discount: None, weight: None },
        ],
        tenders: vec![Tender { kind: TenderKind::Cash, amount: 60_000, card: None, store: None }],
        dining: Dining::TakeOut,
        header: vec![],
        footer: vec![],
        ..ja_sale()
    };
    build_receipt(&data, &inclusive(), false).unwrap()
}

fn kept(gross: i64, tax: i64, parts: Vec<Part>) -> paydesk_receipt::ryoshusho::Kept {
    let returned = vec![paydesk_receipt::ryoshusho::ReturnedRate { class: TaxClass::Standard, ppm: 100_000, base: gross - tax, tax, gross }];
    paydesk_receipt::ryoshusho::Kept { returned, parts, replaces: "0042-1".into() }
}

fn cash(amount: i64) -> Part {
    Part { kind: TenderKind::Cash, amount, counts_for_stamp: true }
}

#[test]
fn a_ryoshusho_for_what_was_kept_states_it_and_judges_the_stamp_on_the_kept_cash() {
    use paydesk_receipt::ryoshusho::build_kept_ryoshusho;
    let sale = watch_and_mug();
    let rule = StampRule::japan();
    let req = RyoshushoRequest { number: "0042-2".into(), ..request("株式会社ペイデスク") };
    // The mug back: ¥55,000 kept, ¥5,000 of it tax: ¥50,000 before tax, the threshold.
    let r = build_kept_ryoshusho(&sale, &req, &kept(1_650, 150, vec![cash(55_000)]), false, Some(&rule)).unwrap();
    assert_eq!((r.total, r.tax_total, r.replaces.as_deref()), (55_000, 5_000, Some("0042-1")));
    assert_eq!(r.stamp, Some(StampNeeded { base_minor: 50_000, duty_minor: 200 }));
    assert_eq!((r.rates.len(), r.rates[0].gross, r.rates[0].tax), (1, 55_000, 5_000));
    let t = text(&r, Paper::Mm80);
    for want in ["¥55,000-", "No.0042-2", "No.0042-1 の差替え", "収入印紙", "印紙税額 ¥200", "現金"] {
        assert!(t.contains(want), "{want:?} missing:\n{t}");
    }
    // ¥11 more back: ¥54,989 kept, ¥49,990 before tax: under the threshold, no box.
    let under = build_kept_ryoshusho(&sale, &req, &kept(1_661, 151, vec![cash(54_989)]), false, Some(&rule)).unwrap();
    assert_eq!((under.total, under.stamp), (54_989, None));
    assert!(!text(&under, Paper::Mm80).contains("収入印紙"));
    // Kept by card: no stamp, whatever the amount.
    let card = Part { kind: TenderKind::Card, amount: 55_000, counts_for_stamp: false };
    assert_eq!(build_kept_ryoshusho(&sale, &req, &kept(1_650, 150, vec![card]), false, Some(&rule)).unwrap().stamp, None);
    // A reprint is marked as one.
    assert!(text(&build_kept_ryoshusho(&sale, &req, &kept(1_650, 150, vec![cash(55_000)]), true, Some(&rule)).unwrap(), Paper::Mm80).contains("再発行"));
}

#[test]
fn a_ryoshusho_for_more_than_was_kept_is_refused() {
    use paydesk_receipt::ryoshusho::{build_kept_ryoshusho, Kept, ReturnedRate};
    let sale = watch_and_mug();
    let req = RyoshushoRequest { number: "0042-2".into(), ..request("") };
    // Parts paying more (or less) than the sale less its returns.
    for parts in [vec![cash(55_001)], vec![cash(54_999)], vec![cash(55_000), cash(0)]] {
        let e = build_kept_ryoshusho(&sale, &req, &kept(1_650, 150, parts.clone()), false, None).unwrap_err();
        assert!(matches!(e, ReceiptError::KeptUnstated { .. }), "{parts:?}: {e:?}");
    }
    // A return at a rate the sale never bore, or more than the sale: refused.
    let reduced = Kept { returned: vec![ReturnedRate { class: TaxClass::Reduced, ppm: 80_000, base: 100, tax: 8, gross: 108 }], parts: vec![cash(56_542)], replaces: "0042-1".into() };
    assert!(matches!(build_kept_ryoshusho(&sale, &req, &reduced, false, None), Err(ReceiptError::KeptUnstated { .. })));
    assert!(matches!(build_kept_ryoshusho(&sale, &req, &kept(56_650, 5_150, vec![]), false, None), Err(ReceiptError::KeptUnstated { .. })));
}
