//! For any receipt the store can build — names in any mix of scripts, any quantities — every
//! text row is exactly the paper's width, and the ESC/POS bytes parse back to the same rows.

use crate::common;

use common::*;
use paydesk_domain::Locale;
use paydesk_receipt::test_printer::parse_escpos;
use paydesk_domain::TenderKind;
use paydesk_receipt::*;
use paydesk_tax::{Dining, TaxClass};
use proptest::prelude::*;
use unicode_width::UnicodeWidthStr;

/// Characters each language's printer set can print (no backslash: under the Japanese set
/// 0x5C is ¥, which is what ¥ is sent as).
const JA_CHARS: &str = "abcXYZ019 -.,()/あいうアイウ漢字鮭緑茶弁当ｱｲｳﾞ※×ー￥";
const EN_CHARS: &str = "abcXYZ019 -.,()/&éñü£×";

fn name(pool: &'static str) -> impl Strategy<Value = String> {
    let chars: Vec<char> = pool.chars().collect();
    // Starts with a letter: an all-blank name is refused by design (tests/document.rs).
    prop::collection::vec(prop::sample::select(chars), 0..MAX_TEXT_CHARS).prop_map(|v| std::iter::once('N').chain(v).collect())
}

fn sale() -> impl Strategy<Value = SaleData> {
    prop_oneof![Just(Locale::Ja), Just(Locale::En)].prop_flat_map(|language| {
        let pool = match language {
            Locale::Ja => JA_CHARS,
            Locale::En => EN_CHARS,
        };
        let line = (name(pool), 0i64..=2_000_000, 1u32..=99, prop_oneof![Just(TaxClass::Standard), Just(TaxClass::Reduced), Just(TaxClass::Exempt)])
            .prop_map(|(name, unit_price, quantity, class)| LineInput { name, unit_price, quantity, class, discount: None, weight: None });
        (prop::collection::vec(line, 1..8), name(pool), prop::collection::vec(name(pool), 0..3), any::<bool>()).prop_map(
            move |(lines, store_name, footer, eat_in)| {
                let mut s = if language == Locale::Ja { ja_sale() } else { en_sale() };
                s.lines = lines;
                s.store.name = store_name;
                s.footer = footer;
                s.dining = if eat_in { Dining::EatIn } else { Dining::TakeOut };
                // Enough cash for any cart above (tax-exclusive included).
                s.tenders = vec![Tender { kind: TenderKind::Cash, amount: 1_000_000_000, card: None, store: None }];
                s
            },
        )
    })
}

#[test]
fn rows_fit_and_escpos_round_trips() {
    // Cases that got through every assertion (a case returned early, or rejected by
    // a filter, is not one): a property that checks nothing must not pass.
    let reached = std::sync::atomic::AtomicU32::new(0);
    proptest!(ProptestConfig { cases: 500, .. ProptestConfig::default() }, |(s in sale(), exclusive_prices in any::<bool>(), reprint in any::<bool>())| {
        let settings = if exclusive_prices { exclusive() } else { inclusive() };
        let r = build_receipt(&s, &settings, reprint).unwrap();
        for paper in [Paper::Mm58, Paper::Mm80] {
            let text = render_text(&r, paper);
            for line in &text {
                let w = match r.language { Locale::Ja => line.width_cjk(), Locale::En => line.width() };
                prop_assert_eq!(w, paper.columns(), "{:?}", line);
            }
            let printed = parse_escpos(&render_escpos(&r, EscPosOptions::for_receipt(&r, paper))).unwrap();
            prop_assert_eq!(printed.lines.len(), text.len());
            for (p, t) in printed.lines.iter().zip(&text) {
                prop_assert_eq!(p.text.trim(), t.trim());
            }
            prop_assert_eq!(printed.cuts, 1);
            // The receipt number as a barcode, for a scanner at Payments (record 0123).
            prop_assert_eq!(&printed.barcodes, &vec![r.receipt_no.clone()]);
            prop_assert_eq!(printed.kicks.len(), usize::from(!reprint));
        }
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("rows_fit_and_escpos_round_trips: {n} cases reached the assertions");
    assert!(n >= 500, "only {n} cases reached the assertions, at least 500 expected");
}
