//! マネーフォワード クラウド会計's journal import (仕訳帳): its template's columns, one row
//! per debit/credit pair; rows of one 取引No and 取引日 whose sides balance are one
//! compound entry. Amounts tax included, the tax in 税額.
use super::{line, Journal, Posting, Tax, TaxClass};

pub const HEADER: [&str; 27] = [
    "取引No", "取引日", "借方勘定科目", "借方補助科目", "借方部門", "借方取引先", "借方税区分", "借方インボイス", "借方金額(円)", "借方税額",
    "貸方勘定科目", "貸方補助科目", "貸方部門", "貸方取引先", "貸方税区分", "貸方インボイス", "貸方金額(円)", "貸方税額",
    "摘要", "仕訳メモ", "タグ", "MF仕訳タイプ", "決算整理仕訳", "作成日時", "作成者", "最終更新日時", "最終更新者",
];

/// Money Forward's names for a sales tax class.
pub fn tax_name(t: Option<Tax>) -> String {
    match t {
        None => "対象外".into(),
        Some(t) => match t.class {
            TaxClass::Standard => format!("課税売上 {}", t.percent()),
            TaxClass::Reduced => format!("課税売上 (軽){}", t.percent()),
            TaxClass::Exempt => "非課税売上".into(),
        },
    }
}

fn side(p: Option<&Posting>) -> [String; 8] {
    match p {
        Some(p) => [
            p.account.ja().into(), p.sub.clone(), String::new(), String::new(), tax_name(p.tax), String::new(), p.amount.to_string(),
            p.tax.map_or(0, |t| t.tax).to_string(),
        ],
        None => Default::default(),
    }
}

pub fn write(journals: &[Journal]) -> String {
    let mut out = line(&HEADER.map(String::from));
    let mut no = 0u32;
    for j in journals {
        for e in &j.entries {
            // 取引No runs through the file: two currencies' journals never share one.
            no += 1;
            for (d, c) in e.rows() {
                let memo = c.or(d).map(|p| p.memo.clone()).unwrap_or_default();
                let mut row = vec![no.to_string(), j.slash_date()];
                row.extend(side(d));
                row.extend(side(c));
                row.extend([memo, String::new(), String::new(), String::new(), String::new(), String::new(), String::new(), String::new(), String::new()]);
                out.push_str(&line(&row));
            }
        }
    }
    out
}
