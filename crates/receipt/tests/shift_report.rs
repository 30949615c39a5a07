//! The X and Z reports (record 0069): the figures worked out by `build_drawer_report`,
//! the limits it refuses, and the printed rows — text at both widths, ESC/POS parsed back by
//! the test printer (kanji, cut, never a drawer kick) and over real loopback TCP, and HTML.

use std::time::Duration;

use paydesk_receipt::shift::*;
use paydesk_receipt::test_printer::{parse_escpos, TestPrinter};
use paydesk_domain::{Currency, TenderKind};
use paydesk_domain::Locale;
use paydesk_receipt::{LocalDateTime, Paper, Printer, PrinterTarget, ReceiptError};

const CHECKPOINT: &str = "42:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

fn at(hour: u8, minute: u8) -> LocalDateTime {
    LocalDateTime { year: 2026, month: 12, day: 2, hour, minute }
}

fn c(denomination: i64, count: i64) -> CountLine {
    CountLine { denomination, count }
}

/// A yen shift: float ¥30,000, ¥12,000 of cash sales (¥15,000 handed over, ¥3,000 change),
/// a ¥500 refund, ¥1,000 paid in, ¥2,000 paid out.
fn ja_shift(kind: ReportKind, counted: Option<Vec<CountLine>>) -> DrawerReportData {
    DrawerReportData {
        language: Locale::Ja,
        currency: Currency::Jpy,
        kind,
        store_name: "PayDesk デモカフェ".into(),
        register: "レジ1".into(),
        opened_by: "鈴木".into(),
        opened_at: at(9, 0),
        printed_at: at(18, 5),
        float: vec![c(10_000, 1), c(5_000, 2), c(1_000, 9), c(100, 10)],
        cash_received: 15_000,
        change_given: 3_000,
        cash_cancel_returns: 0,
        cash_refunds: 500,
        paid: vec![
            PaidLine { kind: PaidKind::PaidIn, amount: 1_000, reason: "両替".into(), by: "佐藤".into() },
            PaidLine { kind: PaidKind::PaidOut, amount: 2_000, reason: "牛乳の仕入れ".into(), by: "佐藤".into() },
        ],
        tenders: vec![
            TenderLine { kind: TenderKind::Card, name: None, count: 3, amount: 4_400 },
            TenderLine { kind: TenderKind::Cash, name: None, count: 5, amount: 12_000 },
        ],
        sales: 8,
        takings: Some(TakingsLines { card_refunds: 400, cash_refunds: 500, store_refunds: 0, canceled_sales: 1, canceled_amount: 800 }),
        close: counted.map(|counted| CloseData {
            closed_by: "佐藤".into(),
            approved_by: None,
            closed_at: at(18, 0),
            counted,
            checkpoint: CHECKPOINT.into(),
        }),
        tax_rates: vec![],
        exempt_sales: 0,
        exempt_amount: 0,
    }
}

fn en_shift() -> DrawerReportData {
    DrawerReportData {
        language: Locale::En,
        currency: Currency::Usd,
        kind: ReportKind::Z { number: 2 },
        store_name: "PayDesk Café".into(),
        register: "main".into(),
        opened_by: "Casey".into(),
        opened_at: at(9, 0),
        printed_at: at(17, 1),
        float: vec![c(2_000, 5), c(25, 4)],
        cash_received: 2_000,
        change_given: 450,
        cash_cancel_returns: 0,
        cash_refunds: 0,
        paid: vec![PaidLine { kind: PaidKind::PaidOut, amount: 300, reason: "window cleaner".into(), by: "Marcus".into() }],
        tenders: vec![TenderLine { kind: TenderKind::Cash, name: None, count: 1, amount: 1_550 }],
        sales: 1,
        // A Z report written before the ledger kept its takings.
        takings: None,
        close: Some(CloseData {
            closed_by: "Casey".into(),
            approved_by: Some("Marcus".into()),
            closed_at: at(17, 0),
            // expected: 10,100 + 1,550 − 300 = 11,350; counted 11,375: 25¢ over.
            counted: vec![c(2_000, 5), c(1_000, 1), c(100, 2), c(25, 7)],
            checkpoint: CHECKPOINT.into(),
        }),
        tax_rates: vec![],
        exempt_sales: 0,
        exempt_amount: 0,
    }
}

fn row<'a>(lines: &'a [String], label: &str) -> &'a str {
    lines.iter().map(|l| l.trim()).find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no {label:?} row in {lines:#?}"))
}

#[test]
fn the_figures_of_an_x_report_add_up() {
    let r = build_drawer_report(&ja_shift(ReportKind::X, None)).unwrap();
    assert_eq!(r.float_total, 30_000);
    assert_eq!(r.cash_sales, 12_000);
    assert_eq!((r.paid_in, r.paid_out), (1_000, 2_000));
    assert_eq!(r.expected, 30_000 + 12_000 - 500 + 1_000 - 2_000);
    assert_eq!((r.counted, r.over_short), (None, None));
}

#[test]
fn a_z_report_short_and_one_over() {
    // Counted ¥40,000 against ¥40,500 expected: ¥500 short.
    let short = build_drawer_report(&ja_shift(ReportKind::Z { number: 1 }, Some(vec![c(10_000, 4)]))).unwrap();
    assert_eq!((short.expected, short.counted, short.over_short), (40_500, Some(40_000), Some(-500)));
    let text = render_report_text(&short, Paper::Mm80);
    assert_eq!(text[0].trim(), "精算レポート No.1");
    assert!(row(&text, "不足").ends_with("-¥500"), "{text:#?}");
    assert!(row(&text, "理論在高").ends_with("¥40,500"));
    assert!(row(&text, "実在高").ends_with("¥40,000"));

    let over = build_drawer_report(&en_shift()).unwrap();
    assert_eq!((over.expected, over.counted, over.over_short), (11_350, Some(11_375), Some(25)));
    let text = render_report_text(&over, Paper::Mm80);
    assert_eq!(text[0].trim(), "Z REPORT No. 2");
    assert!(row(&text, "Over").ends_with("$0.25"), "{text:#?}");
    assert!(row(&text, "Approved by").ends_with("Marcus"));
    assert!(row(&text, "window cleaner (Marcus)").ends_with("-$3.00"));
    assert!(row(&text, "$0.25 x 7").ends_with("$1.75"));

    let mut even = en_shift();
    even.close.as_mut().unwrap().counted = vec![c(2_000, 5), c(1_000, 1), c(100, 2), c(25, 6)];
    let even = build_drawer_report(&even).unwrap();
    assert_eq!(even.over_short, Some(0));
    assert!(row(&render_report_text(&even, Paper::Mm80), "Over / short").ends_with("$0.00"));
}

/// The Z report prints what was given back — card refunds beside cash refunds — the net,
/// and the canceled sales apart; a Z written before the ledger kept them prints none.
#[test]
fn a_z_report_shows_card_refunds_net_and_canceled_sales() {
    let z = build_drawer_report(&ja_shift(ReportKind::Z { number: 1 }, Some(vec![c(10_000, 4)]))).unwrap();
    // tenders ¥16,400 − card ¥400 − cash ¥500
    assert_eq!(z.net, Some(15_500));
    let text = render_report_text(&z, Paper::Mm80);
    assert!(row(&text, "カード返金").ends_with("-¥400"), "{text:#?}");
    assert!(row(&text, "純売上").ends_with("¥15,500"), "{text:#?}");
    assert!(row(&text, "取消 1件").ends_with("¥800"), "{text:#?}");
    let old = build_drawer_report(&en_shift()).unwrap();
    assert_eq!(old.net, None);
    let text = render_report_text(&old, Paper::Mm80);
    assert!(!text.iter().any(|l| l.contains("Card refunds") || l.contains("Net sales")), "{text:#?}");
    let mut bad = ja_shift(ReportKind::X, None);
    bad.takings.as_mut().unwrap().card_refunds = -1;
    assert!(build_drawer_report(&bad).is_err());
}

#[test]
fn every_row_fits_the_paper_at_both_widths() {
    let z = build_drawer_report(&ja_shift(ReportKind::Z { number: 7 }, Some(vec![c(10_000, 4)]))).unwrap();
    for paper in [Paper::Mm58, Paper::Mm80] {
        for l in render_report_text(&z, paper) {
            let (sjis, _, bad) = encoding_of_ja(&l);
            assert!(!bad, "{l}");
            assert_eq!(sjis, paper.columns(), "{l:?} at {paper:?}");
        }
    }
}

/// Shift_JIS bytes of a Japanese line: a printer prints each double-byte character two
/// columns wide, so the byte length is the column count.
fn encoding_of_ja(s: &str) -> (usize, (), bool) {
    let mut bytes = 0;
    let mut bad = false;
    for ch in s.chars() {
        let mut buf = [0u8; 4];
        let (b, _, unmappable) = encoding_rs::SHIFT_JIS.encode(ch.encode_utf8(&mut buf));
        bytes += b.len();
        bad |= unmappable;
    }
    (bytes, (), bad)
}

#[test]
fn the_checkpoint_is_printed_whole_and_joins_back_from_its_rows() {
    let z = build_drawer_report(&en_shift()).unwrap();
    for paper in [Paper::Mm58, Paper::Mm80] {
        let text = render_report_text(&z, paper);
        let at = text.iter().position(|l| l.trim() == "Audit checkpoint").expect("the checkpoint label");
        let joined: String = text[at + 1..].iter().map(|l| l.trim()).collect();
        assert_eq!(joined, CHECKPOINT, "{paper:?}");
    }
    // An X report closes nothing and prints no checkpoint.
    let x = build_drawer_report(&ja_shift(ReportKind::X, None)).unwrap();
    let text = render_report_text(&x, Paper::Mm80).join("\n");
    assert!(text.contains("点検レポート(X)") && text.contains("シフト継続中") && !text.contains("監査"), "{text}");
}

#[test]
fn escpos_parses_back_to_the_text_rows_with_kanji_a_cut_and_no_kick() {
    let z = build_drawer_report(&ja_shift(ReportKind::Z { number: 3 }, Some(vec![c(10_000, 4), c(500, 1)]))).unwrap();
    for paper in [Paper::Mm58, Paper::Mm80] {
        let p = parse_escpos(&render_report_escpos(&z, paper)).unwrap();
        let printed: Vec<String> = p.texts().iter().map(|t| t.trim().to_string()).collect();
        let text: Vec<String> = render_report_text(&z, paper).iter().map(|t| t.trim().to_string()).collect();
        assert_eq!(printed, text);
        assert!(p.kanji && p.lines[0].double && p.lines[0].bold);
        assert_eq!((p.cuts, p.kicks.len()), (1, 0), "a report never opens the drawer");
    }
    let en = parse_escpos(&render_report_escpos(&build_drawer_report(&en_shift()).unwrap(), Paper::Mm80)).unwrap();
    assert!(!en.kanji);
    assert_eq!((en.cuts, en.kicks.len()), (1, 0));
}

#[test]
fn a_z_report_prints_over_tcp_to_the_test_printer() {
    let tp = TestPrinter::start().unwrap();
    let z = build_drawer_report(&ja_shift(ReportKind::Z { number: 1 }, Some(vec![c(10_000, 4)]))).unwrap();
    let a = tp.addr();
    Printer::new(PrinterTarget::Tcp { host: a.ip().to_string(), port: a.port() })
        .send(&render_report_escpos(&z, Paper::Mm80))
        .unwrap();
    let p = tp.next_job(Duration::from_secs(10)).expect("a job").unwrap();
    let texts: Vec<String> = p.texts().iter().map(|t| t.to_string()).collect();
    assert_eq!(texts[0].trim(), "精算レポート No.1");
    assert!(row(&texts, "不足").ends_with("-¥500"));
    let at = texts.iter().position(|l| l.trim() == "監査チェックポイント").unwrap();
    assert_eq!(texts[at + 1..].iter().map(|l| l.trim()).collect::<String>(), CHECKPOINT);
}

#[test]
fn html_has_the_rows_escaped() {
    let mut d = en_shift();
    d.paid[0].reason = "<b>bleach</b> & soap".into();
    let html = render_report_html(&build_drawer_report(&d).unwrap());
    assert!(html.contains("&lt;b&gt;bleach&lt;/b&gt; &amp; soap"), "{html}");
    assert!(!html.contains("<b>bleach"));
    assert!(html.contains("Z REPORT No. 2") && html.contains(CHECKPOINT.split_at(30).0));
}

#[test]
fn bad_figures_and_texts_are_refused_with_the_field() {
    let field = |d: DrawerReportData| match build_drawer_report(&d).unwrap_err() {
        ReceiptError::BadText { field, .. } => field,
        other => panic!("{other:?}"),
    };
    let z = || ja_shift(ReportKind::Z { number: 1 }, Some(vec![c(10_000, 4)]));
    let mut d = z();
    d.close.as_mut().unwrap().checkpoint = "42:ABC".into();
    assert_eq!(field(d), "close.checkpoint");
    let mut d = z();
    d.close.as_mut().unwrap().counted = vec![c(100, 1), c(100, 2)];
    assert_eq!(field(d), "close.counted[1]");
    let mut d = z();
    d.float.push(c(1, -1));
    assert_eq!(field(d), "float[4]");
    let mut d = z();
    d.paid[1].reason = "a\u{1b}@".into();
    assert_eq!(field(d), "paid[1].reason");
    let mut d = z();
    d.paid[1].reason = "x".repeat(MAX_REASON_CHARS + 1);
    assert_eq!(field(d), "paid[1].reason");
    let mut d = z();
    d.cash_refunds = -1;
    assert_eq!(field(d), "cash_refunds");
    let mut d = z();
    d.opened_by = "x".repeat(65);
    assert_eq!(field(d), "opened_by");
    let mut d = z();
    d.kind = ReportKind::X;
    assert_eq!(field(d), "close");
    assert_eq!(field(ja_shift(ReportKind::Z { number: 1 }, None)), "close");
    assert_eq!(field(ja_shift(ReportKind::Z { number: 0 }, Some(vec![]))), "kind.number");
    let mut d = z();
    d.float = vec![c(10_000, MAX_PAID_LINES as i64 * 1_000_000_000_000)];
    assert_eq!(field(d), "float[0]");
}

/// Record 0122: the store's own tenders print one line per tender type, by its name, with
/// its count and amount — never one lumped "Other tender" line — and a store refund has
/// its own line in the net. Every row stays Shift_JIS and the paper's width, a 40-character
/// name too.
#[test]
fn store_tenders_print_one_line_per_type_by_name() {
    let long = "全国百貨店共通商品券".repeat(4);
    let mut d = ja_shift(ReportKind::Z { number: 4 }, Some(vec![c(10_000, 4)]));
    d.tenders.push(TenderLine { kind: TenderKind::Store, name: Some("商品券".into()), count: 2, amount: 1_600 });
    d.tenders.push(TenderLine { kind: TenderKind::Store, name: Some("PayPay".into()), count: 1, amount: 500 });
    d.tenders.push(TenderLine { kind: TenderKind::Store, name: Some(long.clone()), count: 1, amount: 100 });
    d.takings.as_mut().unwrap().store_refunds = 300;
    let z = build_drawer_report(&d).unwrap();
    // tenders ¥16,400 + ¥2,200 − card ¥400 − cash ¥500 − store ¥300
    assert_eq!(z.net, Some(17_400));
    for paper in [Paper::Mm58, Paper::Mm80] {
        let text = render_report_text(&z, paper);
        assert!(row(&text, "商品券 x 2").ends_with("¥1,600"), "{text:#?}");
        assert!(row(&text, "PayPay x 1").ends_with("¥500"), "{text:#?}");
        assert!(!text.iter().any(|l| l.contains("その他")  && !l.contains("返金")), "nothing lumped: {text:#?}");
        assert!(row(&text, "その他支払返金").ends_with("-¥300"), "{text:#?}");
        assert!(row(&text, "純売上").ends_with("¥17,400"), "{text:#?}");
        let all = text.join("");
        assert!(all.contains("全国百貨店共通商品券"), "the long name is printed: {text:#?}");
        for l in &text {
            let (sjis, _, bad) = encoding_of_ja(l);
            assert!(!bad, "{l}");
            assert_eq!(sjis, paper.columns(), "{l:?} at {paper:?}");
        }
        let p = parse_escpos(&render_report_escpos(&z, paper)).unwrap();
        let printed: Vec<String> = p.texts().iter().map(|t| t.trim().to_string()).collect();
        assert_eq!(printed, text.iter().map(|t| t.trim().to_string()).collect::<Vec<_>>());
    }
    // A name with a control character would reach the printer as a command.
    let mut bad = d.clone();
    bad.tenders[2].name = Some("商品\u{1b}券".into());
    assert!(matches!(build_drawer_report(&bad), Err(ReceiptError::BadText { field, .. }) if field == "tenders[2].name"));
}

/// The sales' tax by rate with names and decimals, and the tax-exempt sales on a line of their
/// own (record 0135), in both languages; a report without them prints neither.
#[test]
fn the_tax_by_rate_and_the_exempt_sales_are_listed() {
    let nyc = TaxRateLine {
        class: paydesk_tax::TaxClass::Standard,
        ppm: 88_750,
        base: 500,
        tax: 44,
        gross: 544,
        parts: vec![("NY State".into(), 40_000, 20), ("New York City".into(), 45_000, 22), ("MCTD".into(), 3_750, 2)],
    };
    let exempt = TaxRateLine { class: paydesk_tax::TaxClass::Exempt, ppm: 0, base: 945, tax: 0, gross: 945, parts: vec![] };
    let d = DrawerReportData { tax_rates: vec![nyc.clone(), exempt.clone()], exempt_sales: 1, exempt_amount: 945, ..en_shift() };
    let text = render_report_text(&build_drawer_report(&d).unwrap(), Paper::Mm80);
    assert!(text.iter().any(|l| l.trim() == "Tax by rate"), "{text:#?}");
    assert!(row(&text, "Taxable 8.875% excl. tax").ends_with("$5.00"));
    assert!(text.iter().any(|l| l.trim().starts_with("Tax ") && l.ends_with("$0.44")), "{text:#?}");
    assert!(row(&text, "NY State 4%").ends_with("$0.20"));
    assert!(row(&text, "MCTD 0.375%").ends_with("$0.02"));
    assert!(row(&text, "Tax exempt").ends_with("$9.45"));
    assert!(row(&text, "Tax-exempt sales x 1").ends_with("$9.45"));
    let ja = DrawerReportData { tax_rates: vec![nyc, exempt], exempt_sales: 2, exempt_amount: 1_890, ..ja_shift(ReportKind::X, None) };
    let text = render_report_text(&build_drawer_report(&ja).unwrap(), Paper::Mm80);
    assert!(row(&text, "税率別").starts_with("税率別"));
    assert!(row(&text, "免税売上 2件").ends_with("¥1,890"));
    let plain = render_report_text(&build_drawer_report(&en_shift()).unwrap(), Paper::Mm80);
    assert!(!plain.iter().any(|l| l.contains("Tax by rate") || l.contains("Tax-exempt")), "{plain:#?}");
    let bad = DrawerReportData { exempt_amount: -1, ..en_shift() };
    assert!(build_drawer_report(&bad).is_err());
}
