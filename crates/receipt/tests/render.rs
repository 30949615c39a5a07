//! Text, ESC/POS and HTML renderings of one receipt agree, fit the paper, and the ESC/POS
//! bytes are exactly what the test printer's parser accepts.

use crate::common;

use common::*;
use paydesk_domain::Locale;
use paydesk_receipt::escpos::{encode_text, CUT, DRAWER_KICK, INIT, KANJI_ON, KANJI_SHIFT_JIS};
use paydesk_receipt::test_printer::{parse_escpos, ParseError};
use paydesk_domain::TenderKind;
use paydesk_receipt::*;
use unicode_width::UnicodeWidthStr;

fn receipts() -> Vec<Receipt> {
    let mut long = ja_sale();
    long.lines[0].name = "北海道産ゆめぴりか使用 手巻おにぎり 紀州南高梅 大粒 増量".into();
    long.store.name = "とても長い名前の店舗 ペイデスク商店 東京都渋谷区神南一丁目店".into();
    // Prices exclude tax here: ¥990 + ¥82 tax.
    long.tenders = vec![Tender { kind: TenderKind::Cash, amount: 2000, card: None, store: None }];
    vec![
        build_receipt(&ja_sale(), &inclusive(), false).unwrap(),
        build_receipt(&long, &exclusive(), true).unwrap(),
        build_receipt(&en_sale(), &exclusive(), false).unwrap(),
    ]
}

fn columns(s: &str, language: Locale) -> usize {
    match language {
        Locale::Ja => s.width_cjk(),
        Locale::En => s.width(),
    }
}

#[test]
fn every_text_line_is_exactly_the_paper_width() {
    for r in receipts() {
        for paper in [Paper::Mm58, Paper::Mm80] {
            for line in render_text(&r, paper) {
                assert_eq!(columns(&line, r.language), paper.columns(), "{paper:?} {line:?}");
            }
        }
    }
}

#[test]
fn japanese_58mm_text() {
    let r = build_receipt(&ja_sale(), &inclusive(), false).unwrap();
    let got: Vec<String> = render_text(&r, Paper::Mm58).into_iter().map(|l| l.trim_end().to_string()).collect();
    let want = [
        "             領収書",
        "     ペイデスク商店 渋谷店",
        "     東京都渋谷区神南1-2-3",
        "        TEL 03-1234-5678",
        "    登録番号 T7000012050002",
        "        いらっしゃいませ",
        "2026年12月01日 21:05     No.0042",
        "--------------------------------",
        "※おにぎり 鮭",
        "  ¥140 x 2                  ¥280",
        "※緑茶 500ml                ¥160",
        "週刊誌                      ¥550",
        "--------------------------------",
        "小計                        ¥990",
        "合計                        ¥990",
        "10%対象                     ¥550",
        "  内消費税                   ¥50",
        "8%対象                      ¥440",
        "  内消費税                   ¥32",
        "--------------------------------",
        "現金                      ¥1,000",
        "お釣り                       ¥10",
        "※は軽減税率対象商品",
        "       またお越しください",
    ];
    assert_eq!(got, want);
}

/// What the printer decodes is the text rendering, row for row (centred rows are centred by
/// the printer, so compare them trimmed), with the title double and bold.
#[test]
fn escpos_decodes_to_the_same_rows() {
    for r in receipts() {
        for paper in [Paper::Mm58, Paper::Mm80] {
            let bytes = render_escpos(&r, EscPosOptions::for_receipt(&r, paper));
            let p = parse_escpos(&bytes).unwrap();
            let text = render_text(&r, paper);
            assert_eq!(p.lines.len(), text.len());
            for (printed, t) in p.lines.iter().zip(&text) {
                assert_eq!(printed.text.trim(), t.trim(), "{paper:?}");
            }
            assert!(p.lines[0].double && p.lines[0].bold && p.lines[0].align == Align::Center);
            assert!(!p.lines[1].double);
            assert_eq!((p.inits, p.cuts, p.kicks.len()), (1, 1, usize::from(r.opens_drawer())));
            assert!(p.unterminated.is_empty());
            assert_eq!(p.kanji, r.language == Locale::Ja);
        }
    }
}

#[test]
fn escpos_command_frame() {
    let r = build_receipt(&ja_sale(), &inclusive(), false).unwrap();
    let b = render_escpos(&r, EscPosOptions::for_receipt(&r, Paper::Mm58));
    assert!(b.starts_with(&INIT));
    let find = |needle: &[u8]| b.windows(needle.len()).position(|w| w == needle);
    assert!(find(&KANJI_SHIFT_JIS).unwrap() < find(&KANJI_ON).unwrap());
    assert!(b.ends_with(&[CUT.as_slice(), DRAWER_KICK.as_slice()].concat()));
    // A reprint cuts but does not kick; English never enters kanji mode.
    let again = build_receipt(&ja_sale(), &inclusive(), true).unwrap();
    assert!(render_escpos(&again, EscPosOptions::for_receipt(&again, Paper::Mm58)).ends_with(&CUT));
    let en = build_receipt(&en_sale(), &inclusive(), false).unwrap();
    let eb = render_escpos(&en, EscPosOptions::for_receipt(&en, Paper::Mm80));
    assert!(!eb.windows(2).any(|w| w == KANJI_ON));
}

/// A Japanese printer prints a one-byte Shift_JIS character half width and a two-byte one
/// full width, so a row's Shift_JIS length must be its column count.
#[test]
fn shift_jis_bytes_match_the_columns_counted() {
    let r = &receipts()[1];
    for line in render_text(r, Paper::Mm58) {
        assert_eq!(encode_text(&line, Locale::Ja).len(), 32, "{line:?}");
    }
    assert_eq!(encode_text("¥※ｱ", Locale::Ja), vec![0x5C, 0x81, 0xA6, 0xB1]);
    // What the character set lacks becomes a placeholder of the same width, never bytes that
    // could be read as a command.
    assert_eq!(encode_text("a😀é", Locale::Ja), [b"a".as_slice(), &[0x81, 0xAC], b"?"].concat());
    assert_eq!(encode_text("Café €1", Locale::En), b"Caf\xE9 \x801".to_vec());
}

#[test]
fn the_parser_refuses_what_it_does_not_know() {
    assert_eq!(parse_escpos(&[0x1B, b'@', 0x07]), Err(ParseError::Unknown { offset: 2, byte: 0x07 }));
    assert_eq!(parse_escpos(&[0x1B, b'?']), Err(ParseError::Unknown { offset: 1, byte: b'?' }));
    assert_eq!(parse_escpos(&[0x1D, b'V']), Err(ParseError::Truncated { offset: 0 }));
    assert_eq!(parse_escpos(&[0x1B, b'a', 7]), Err(ParseError::BadParameter { offset: 0, value: 7 }));
    // A high byte outside kanji mode, with no code page chosen.
    assert_eq!(parse_escpos(&[0x1B, b'@', 0x82, 0xA0, b'\n']), Err(ParseError::Unknown { offset: 2, byte: 0x82 }));
    // A lone Shift_JIS lead byte.
    assert!(matches!(parse_escpos(&[0x1C, b'C', 1, 0x1C, b'&', 0x82, b'\n']), Err(ParseError::BadShiftJis { .. })));
    let ok = parse_escpos(&[0x1C, b'C', 1, 0x1C, b'&', 0x1B, b'R', 8, 0x82, 0xA0, 0x5C, b'1', b'\n']).unwrap();
    assert_eq!(ok.texts(), vec!["あ¥1"]);
}

#[test]
fn html_is_escaped_and_complete() {
    let mut sale = en_sale();
    sale.store.name = "<script>alert('x')</script> & \"Co\"".into();
    let r = build_receipt(&sale, &exclusive(), false).unwrap();
    let html = render_html(&r);
    assert!(!html.contains("<script>"));
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Co&quot;"));
    for needle in ["RECEIPT", "$33.48", "Taxable 10% excl. tax", "Change", "$16.52", "Thank you!"] {
        assert!(html.contains(needle), "{needle}");
    }
    let ja = build_receipt(&ja_sale(), &inclusive(), true).unwrap();
    let html = render_html(&ja);
    for needle in ["lang=\"ja\"", "【再発行】", "登録番号 T7000012050002", "※おにぎり 鮭", "8%対象", "内消費税"] {
        assert!(html.contains(needle), "{needle}");
    }
}

#[test]
fn the_receipt_number_prints_as_a_code128_barcode_and_nothing_else_does() {
    use paydesk_receipt::escpos::barcode_code128;
    let printed = paydesk_receipt::test_printer::parse_escpos(&barcode_code128("000123")).unwrap();
    assert_eq!(printed.barcodes, vec!["000123".to_string()]);
    // A text no scanner could give back as typed prints no barcode at all.
    for bad in ["", "12{3", "番号", "123456789012345678901"] {
        assert!(barcode_code128(bad).is_empty(), "{bad:?}");
    }
}
