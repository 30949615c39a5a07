//! 弥生会計's import form (弥生インポート形式, 仕訳日記帳): 25 columns and no header row.
//! An entry of one row is flag 2111; a compound entry is 2110 (first row), 2100 (between)
//! and 2101 (last). A side with no account still writes its amount as 0. Amounts tax
//! included, the tax in 税金額.
use super::{line, Journal, Posting, Tax, TaxClass};

pub const COLUMNS: [&str; 25] = [
    "識別フラグ", "伝票No.", "決算", "取引日付", "借方勘定科目", "借方補助科目", "借方部門", "借方税区分", "借方金額", "借方税金額",
    "貸方勘定科目", "貸方補助科目", "貸方部門", "貸方税区分", "貸方金額", "貸方税金額", "摘要", "番号", "期日", "タイプ", "生成元",
    "仕訳メモ", "付箋1", "付箋2", "調整",
];

/// Yayoi's names for a sales tax class, amounts tax included (込).
pub fn tax_name(t: Option<Tax>) -> String {
    match t {
        None => "対象外".into(),
        Some(t) => match t.class {
            TaxClass::Standard => format!("課税売上込{}", t.percent()),
            TaxClass::Reduced => format!("課税売上込軽減{}", t.percent()),
            TaxClass::Exempt => "非課売上".into(),
        },
    }
}

fn side(p: Option<&Posting>) -> [String; 6] {
    match p {
        Some(p) => [p.account.ja().into(), p.sub.clone(), String::new(), tax_name(p.tax), p.amount.to_string(), p.tax.map_or(0, |t| t.tax).to_string()],
        None => [String::new(), String::new(), String::new(), String::new(), "0".into(), String::new()],
    }
}

pub fn write(journals: &[Journal]) -> String {
    let mut out = String::new();
    for j in journals {
        for e in &j.entries {
            let rows = e.rows();
            let n = rows.len();
            for (i, (d, c)) in rows.into_iter().enumerate() {
                let flag = match (n, i) {
                    (1, _) => "2111",
                    (_, 0) => "2110",
                    (_, i) if i + 1 == n => "2101",
                    _ => "2100",
                };
                let memo = c.or(d).map(|p| p.memo.clone()).unwrap_or_default();
                let mut row = vec![flag.to_string(), String::new(), String::new(), j.slash_date()];
                row.extend(side(d));
                row.extend(side(c));
                row.extend([memo, String::new(), String::new(), "0".into(), "PayDesk".into(), String::new(), String::new(), String::new(), "no".into()]);
                out.push_str(&line(&row));
            }
        }
    }
    out
}
