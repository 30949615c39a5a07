//! The receipt's fixed words in English and Japanese, and money, date and rate formatting.
//! (The app's message catalogs can take these over; the receipt needs them without the app.)

use crate::document::{Currency, Language, LocalDateTime, TenderKind};

pub(crate) struct Labels {
    pub title: &'static str,
    pub reprint: &'static str,
    pub registration: &'static str,
    pub tel: &'static str,
    pub receipt_no: &'static str,
    pub eat_in: &'static str,
    pub line_discount: &'static str,
    pub subtotal: &'static str,
    pub sale_discount: &'static str,
    pub total: &'static str,
    /// A rate's tax-inclusive total; "{rate}" is replaced by the rate ("10%").
    pub taxable: &'static str,
    /// A rate's tax-exclusive total, for stores whose prices exclude tax.
    pub taxable_excl: &'static str,
    pub tax_included: &'static str,
    pub tax: &'static str,
    pub exempt: &'static str,
    /// The mark in front of a reduced-rate item.
    pub reduced_mark: &'static str,
    pub reduced_legend: &'static str,
    pub cash: &'static str,
    pub card: &'static str,
    pub other: &'static str,
    pub change: &'static str,
}

const EN: Labels = Labels {
    title: "RECEIPT",
    reprint: "** REPRINT **",
    registration: "Reg. No.",
    tel: "Tel",
    receipt_no: "No.",
    eat_in: "Eat in",
    line_discount: "Discount",
    subtotal: "Subtotal",
    sale_discount: "Sale discount",
    total: "TOTAL",
    taxable: "Taxable {rate}",
    taxable_excl: "Taxable {rate} excl. tax",
    tax_included: "incl. tax",
    tax: "Tax",
    exempt: "Tax exempt",
    reduced_mark: "*",
    reduced_legend: "* reduced tax rate",
    cash: "Cash",
    card: "Card",
    other: "Other",
    change: "Change",
};

const JA: Labels = Labels {
    title: "領収書",
    reprint: "【再発行】",
    registration: "登録番号",
    tel: "TEL",
    receipt_no: "No.",
    eat_in: "店内飲食",
    line_discount: "値引",
    subtotal: "小計",
    sale_discount: "お会計値引",
    total: "合計",
    taxable: "{rate}対象",
    taxable_excl: "{rate}対象(税抜)",
    tax_included: "内消費税",
    tax: "消費税",
    exempt: "非課税",
    reduced_mark: "※",
    reduced_legend: "※は軽減税率対象商品",
    cash: "現金",
    card: "クレジット",
    other: "その他",
    change: "お釣り",
};

impl Labels {
    pub fn of(language: Language) -> &'static Labels {
        match language {
            Language::En => &EN,
            Language::Ja => &JA,
        }
    }

    pub fn tender(&self, kind: TenderKind) -> &'static str {
        match kind {
            TenderKind::Cash => self.cash,
            TenderKind::Card => self.card,
            TenderKind::Other => self.other,
        }
    }
}

/// `¥1,200`, `-¥100`, `$12.00`: the currency's symbol, thousands separators, its minor digits.
pub fn format_money(amount: i64, currency: Currency) -> String {
    let sign = if amount < 0 { "-" } else { "" };
    let abs = amount.unsigned_abs();
    let (symbol, digits) = match currency {
        Currency::Jpy => ("¥", currency.minor_digits()),
        Currency::Usd => ("$", currency.minor_digits()),
    };
    let unit = 10u64.pow(digits);
    let whole = (abs / unit).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        // A comma before each group of three counted from the right.
        let left_after = whole.len() - i;
        if i > 0 && left_after / 3 * 3 == left_after {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if digits == 0 {
        format!("{sign}{symbol}{grouped}")
    } else {
        format!("{sign}{symbol}{grouped}.{:0width$}", abs % unit, width = digits as usize)
    }
}

/// 1000 → "10%", 850 → "8.5%", 0 → "0%".
pub(crate) fn format_rate(basis_points: u32) -> String {
    let whole = basis_points / 100;
    let frac = basis_points % 100;
    let (tenths, hundredths) = (frac / 10, frac % 10);
    if frac == 0 {
        format!("{whole}%")
    } else if hundredths == 0 {
        format!("{whole}.{tenths}%")
    } else {
        format!("{whole}.{frac:02}%")
    }
}

pub(crate) fn format_date(t: &LocalDateTime, language: Language) -> String {
    match language {
        Language::Ja => format!("{:04}年{:02}月{:02}日 {:02}:{:02}", t.year, t.month, t.day, t.hour, t.minute),
        Language::En => format!("{:04}-{:02}-{:02} {:02}:{:02}", t.year, t.month, t.day, t.hour, t.minute),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_and_rates() {
        assert_eq!(format_money(1200, Currency::Jpy), "¥1,200");
        assert_eq!(format_money(-100, Currency::Jpy), "-¥100");
        assert_eq!(format_money(1_234_567, Currency::Jpy), "¥1,234,567");
        assert_eq!(format_money(1200, Currency::Usd), "$12.00");
        assert_eq!(format_money(5, Currency::Usd), "$0.05");
        assert_eq!(format_money(123_456_789, Currency::Usd), "$1,234,567.89");
        assert_eq!(format_rate(1000), "10%");
        assert_eq!(format_rate(850), "8.5%");
        assert_eq!(format_rate(825), "8.25%");
        assert_eq!(format_rate(0), "0%");
    }
}
