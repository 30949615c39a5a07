//! Weighed lines on the receipt (record 0134), in both languages: the weight and the price
//! per unit under the name, then the amount; a weight and price that do not make the
//! line's amount are refused rather than printed.

use crate::common;
use common::*;
use paydesk_receipt::*;
use paydesk_tax::{weighed_amount, SaleUnit, TaxClass};

fn weighed_line(name: &str, grams: i64, unit: SaleUnit, rate: i64) -> LineInput {
    LineInput {
        name: name.into(),
        unit_price: weighed_amount(rate, grams, unit).unwrap(),
        quantity: 1,
        class: TaxClass::Reduced,
        discount: None,
        weight: Some(Weighed { grams, unit, rate }),
    }
}

#[test]
fn a_weighed_line_prints_its_weight_and_price_per_unit_in_both_languages() {
    let mut en = en_sale();
    en.lines.push(weighed_line("Bananas", 452, SaleUnit::Kilogram, 69));
    let r = build_receipt(&en, &exclusive(), false).unwrap();
    let text = render_text(&r, Paper::Mm80).join("\n");
    assert!(text.contains("0.452 kg @ $0.69/kg"), "{text}");
    let row = text.lines().find(|l| l.contains("0.452 kg")).unwrap();
    assert!(row.trim_end().ends_with("$0.31"), "the amount, $0.69 × 0.452 = $0.31188: {row}");

    let mut ja = ja_sale();
    ja.lines.push(weighed_line("量り売りのナッツ", 152, SaleUnit::HundredGrams, 398));
    ja.tenders[0].amount += 605;
    let r = build_receipt(&ja, &inclusive(), false).unwrap();
    let text = render_text(&r, Paper::Mm80).join("\n");
    let row = text.lines().find(|l| l.contains("152g @¥398/100g")).unwrap_or_else(|| panic!("{text}"));
    assert!(row.trim_end().ends_with("¥605"), "{row}");
    assert_eq!(r.subtotal, ja_sale_subtotal() + 605);

    // A weight whose amount is not the line's price is refused, not printed.
    let mut bad = ja_sale();
    let mut line = weighed_line("量り売りのナッツ", 152, SaleUnit::HundredGrams, 398);
    line.unit_price = 604;
    bad.lines.push(line);
    bad.tenders[0].amount += 605;
    assert!(matches!(build_receipt(&bad, &inclusive(), false), Err(ReceiptError::BadText { .. })));
}

fn ja_sale_subtotal() -> i64 {
    build_receipt(&ja_sale(), &inclusive(), false).unwrap().subtotal
}
