//! freee会計's journal import (仕訳インポート, the general form with a debit and a credit
//! column for each item): one row per debit/credit pair; rows with the same date and 伝票番号
//! are one compound entry. Amounts tax included, the tax in 税額.
use super::{line, Journal, Posting, Tax, TaxClass};

pub const HEADER: [&str; 14] = [
    "日付", "伝票番号", "決算整理仕訳", "借方勘定科目", "借方補助科目", "借方税区分", "借方金額", "借方税額",
    "貸方勘定科目", "貸方補助科目", "貸方税区分", "貸方金額", "貸方税額", "摘要",
];

/// freee's names for a sales tax class (its default set).
pub fn tax_name(t: Option<Tax>) -> String {
    match t {
        None => "対象外".into(),
        Some(t) => match t.class {
            TaxClass::Standard => format!("課税売上{}", t.percent()),
            TaxClass::Reduced => format!("課税売上{}(軽)", t.percent()),
            TaxClass::Exempt => "非課売上".into(),
        },
    }
}

fn side(p: Option<&Posting>) -> [String; 5] {
    match p {
        Some(p) => [p.account.ja().into(), p.sub.clone(), tax_name(p.tax), p.amount.to_string(), p.tax.map_or(0, |t| t.tax).to_string()],
        None => Default::default(),
    }
}

pub fn write(journals: &[Journal]) -> String {
    let mut out = line(&HEADER.map(String::from));
    for j in journals {
        for e in &j.entries {
            for (d, c) in e.rows() {
                let [da, ds, dt, dm, dx] = side(d);
                let [ca, cs, ct, cm, cx] = side(c);
                let memo = c.or(d).map(|p| p.memo.clone()).unwrap_or_default();
                out.push_str(&line(&[j.slash_date(), e.no.to_string(), String::new(), da, ds, dt, dm, dx, ca, cs, ct, cm, cx, memo]));
            }
        }
    }
    out
}
