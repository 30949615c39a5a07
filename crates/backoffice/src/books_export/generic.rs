//! The generic journal: one row per debit/credit pair of an entry, with the currency's
//! decimals, the tax class, its rate and the tax included, and the base beside it (amount
//! less tax), for any spreadsheet or a product not listed.
use super::{line, major, Journal, Posting};

pub const HEADER: [&str; 15] = [
    "date", "entry", "currency", "debit_account", "debit_sub", "debit_amount", "credit_account", "credit_sub", "credit_amount",
    "tax_class", "tax_rate", "tax_base", "tax", "debit_account_ja", "memo",
];

fn side(p: Option<&Posting>, exp: u32) -> [String; 3] {
    match p {
        Some(p) => [p.account.key().to_string(), p.sub.clone(), major(p.amount, exp)],
        None => [String::new(), String::new(), String::new()],
    }
}

pub fn write(journals: &[Journal]) -> String {
    let mut out = line(&HEADER.map(String::from));
    for j in journals {
        for e in &j.entries {
            for (d, c) in e.rows() {
                let taxed = d.and_then(|p| p.tax).or(c.and_then(|p| p.tax));
                let amount = c.filter(|p| p.tax.is_some()).or(d.filter(|p| p.tax.is_some())).map_or(0, |p| p.amount);
                let [da, ds, dm] = side(d, j.exponent);
                let [ca, cs, cm] = side(c, j.exponent);
                let (class, rate, base, tax) = match taxed {
                    Some(t) => (t.class.key().to_string(), t.percent(), major(amount - t.tax, j.exponent), major(t.tax, j.exponent)),
                    None => Default::default(),
                };
                let memo = c.or(d).map(|p| p.memo.clone()).unwrap_or_default();
                let ja = d.map(|p| p.account.ja().to_string()).unwrap_or_default();
                out.push_str(&line(&[j.date.clone(), e.no.to_string(), j.currency.clone(), da, ds, dm, ca, cs, cm, class, rate, base, tax, ja, memo]));
            }
        }
    }
    out
}
