//! The accountant's daily journal (record 0141): one store's day, in the store's own zone,
//! as balanced journal entries computed once here and written in four CSV shapes
//! (`generic`, `freee`, `yayoi`, `moneyforward`). The figures are the registers' own as
//! their Z reports count them (record 0138, `paydesk_ledger::takings`): sales by the tenders
//! that took them and by tax rate, money given back, and each closed drawer's over/short.
//! Reading is `read.rs`, the route `route.rs`.
pub mod freee;
pub mod generic;
pub mod moneyforward;
mod read;
pub mod route;
pub mod yayoi;

pub use read::{read_day, Day};

/// Where a posting goes. Names are the accounts Japanese small-business charts share (each
/// product maps them by name on import); the generic format adds an English key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Account {
    /// 現金: the drawer's cash.
    Cash,
    /// 売掛金: money a card processor or a store tender's issuer owes the store.
    Receivable,
    /// 売上高: sales, tax included, with the tax class and its tax amount.
    Sales,
    /// 売上戻り高: money given back for a sale, with the tax class of the items taken back.
    SalesReturns,
    /// 現金過不足: a drawer counted over or short at its Z.
    CashOverShort,
    /// 仮受金: money taken today for a sale counted on another day (record 0138), a sale
    /// counted today whose money was taken on another day, or items taken back whose money
    /// goes back on another day; each clears across the days.
    Suspense,
}

impl Account {
    pub fn ja(self) -> &'static str {
        match self {
            Account::Cash => "現金",
            Account::Receivable => "売掛金",
            Account::Sales => "売上高",
            Account::SalesReturns => "売上戻り高",
            Account::CashOverShort => "現金過不足",
            Account::Suspense => "仮受金",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            Account::Cash => "cash",
            Account::Receivable => "receivable",
            Account::Sales => "sales",
            Account::SalesReturns => "sales_returns",
            Account::CashOverShort => "cash_over_short",
            Account::Suspense => "suspense",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Debit,
    Credit,
}

/// A tax class as the registers send it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaxClass {
    Standard,
    Reduced,
    Exempt,
}

impl TaxClass {
    pub fn parse(s: &str) -> Option<TaxClass> {
        match s {
            "standard" => Some(TaxClass::Standard),
            "reduced" => Some(TaxClass::Reduced),
            "exempt" => Some(TaxClass::Exempt),
            _ => None,
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            TaxClass::Standard => "standard",
            TaxClass::Reduced => "reduced",
            TaxClass::Exempt => "exempt",
        }
    }
}

/// The tax inside a sales posting: its class, its rate in parts per million and the tax
/// amount included in the posting's amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tax {
    pub class: TaxClass,
    pub ppm: u32,
    pub tax: i64,
}

impl Tax {
    /// "10%", "8%", "8.875%": the rate as the products name it.
    pub fn percent(&self) -> String {
        let whole = self.ppm / 10_000;
        let frac = self.ppm % 10_000;
        if frac == 0 {
            format!("{whole}%")
        } else {
            format!("{whole}.{}%", format!("{frac:04}").trim_end_matches('0'))
        }
    }
}

/// One side of an entry: never negative (a negative figure goes on the other side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    pub side: Side,
    pub account: Account,
    /// A sub-account (補助科目): the card processor or the store tender's name.
    pub sub: String,
    /// Minor units, tax included.
    pub amount: i64,
    pub tax: Option<Tax>,
    pub memo: String,
}

/// One balanced entry (伝票) of the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1.. within the day's journal.
    pub no: u32,
    pub postings: Vec<Posting>,
}

impl Entry {
    pub fn total(&self, side: Side) -> i64 {
        self.postings.iter().filter(|p| p.side == side).map(|p| p.amount).sum()
    }

    /// The rows a two-sided CSV writes: the n-th debit beside the n-th credit.
    pub fn rows(&self) -> Vec<(Option<&Posting>, Option<&Posting>)> {
        let d: Vec<&Posting> = self.postings.iter().filter(|p| p.side == Side::Debit).collect();
        let c: Vec<&Posting> = self.postings.iter().filter(|p| p.side == Side::Credit).collect();
        (0..d.len().max(c.len())).map(|i| (d.get(i).copied(), c.get(i).copied())).collect()
    }
}

/// A store's day in one currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    /// "YYYY-MM-DD" in the store's zone.
    pub date: String,
    /// Lower-case ISO code as the registers send it, and its minor-unit exponent.
    pub currency: String,
    pub exponent: u32,
    pub entries: Vec<Entry>,
}

impl Journal {
    /// "YYYY/MM/DD", the date form the three products all read.
    pub fn slash_date(&self) -> String {
        self.date.replace('-', "/")
    }
}

/// Which CSV to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Generic,
    Freee,
    Yayoi,
    MoneyForward,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Generic, Format::Freee, Format::Yayoi, Format::MoneyForward];

    pub fn key(self) -> &'static str {
        match self {
            Format::Generic => "generic",
            Format::Freee => "freee",
            Format::Yayoi => "yayoi",
            Format::MoneyForward => "moneyforward",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.key() == s)
    }

    /// Whether it takes yen only (the three Japanese products keep their books in yen).
    pub fn yen_only(self) -> bool {
        match self {
            Format::Generic => false,
            Format::Freee | Format::Yayoi | Format::MoneyForward => true,
        }
    }

    /// The file: UTF-8 with a byte-order mark (record 0141: what each product's importer
    /// accepts and a spreadsheet opens as Japanese text).
    pub fn write(self, journals: &[Journal]) -> Vec<u8> {
        let text = match self {
            Format::Generic => generic::write(journals),
            Format::Freee => freee::write(journals),
            Format::Yayoi => yayoi::write(journals),
            Format::MoneyForward => moneyforward::write(journals),
        };
        let mut out = "\u{feff}".as_bytes().to_vec();
        out.extend_from_slice(text.as_bytes());
        out
    }
}

/// What a day's registers counted, as `read.rs` reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Figures {
    pub currency: String,
    pub exponent: u32,
    /// Tenders that count as sales: (method, store tender name or "", amount).
    pub tenders: Vec<(String, String, i64)>,
    /// Sales first counted today, per rate: (class, ppm, gross, tax).
    pub rates: Vec<(TaxClass, u32, i64, i64)>,
    /// Sales first counted today with no rate at all (no tax computed): their total.
    pub untaxed: i64,
    /// Money given back: (method, store tender name or "", amount).
    pub refunds: Vec<(String, String, i64)>,
    /// Items taken back today, per rate: (class, ppm, gross, tax), the registers' own figures.
    pub returns: Vec<(TaxClass, u32, i64, i64)>,
    /// Closed drawers' over (+) or short (−): (register name, Z number, amount).
    pub over_short: Vec<(String, i64, i64)>,
}

fn tender_posting(side: Side, method: &str, name: &str, amount: i64, memo: &str) -> Posting {
    let (account, sub) = match method {
        "cash" => (Account::Cash, String::new()),
        "card" => (Account::Receivable, "カード".to_string()),
        _ => (Account::Receivable, name.to_string()),
    };
    Posting { side, account, sub, amount, tax: None, memo: memo.to_string() }
}

/// The day's entries: 1 sales, 2 money given back, then one per drawer over or short.
/// Each is balanced; an empty part writes no entry.
pub fn journal(date: &str, f: &Figures) -> Journal {
    let mut entries = Vec::new();
    let mut sales: Vec<Posting> = Vec::new();
    for (m, n, a) in f.tenders.iter().filter(|t| t.2 != 0) {
        sales.push(tender_posting(Side::Debit, m, n, *a, "売上"));
    }
    for (class, ppm, gross, tax) in f.rates.iter().filter(|r| r.2 != 0) {
        let t = Tax { class: *class, ppm: *ppm, tax: *tax };
        let memo = format!("売上 {}", t.percent());
        sales.push(Posting { side: Side::Credit, account: Account::Sales, sub: String::new(), amount: *gross, tax: Some(t), memo });
    }
    if f.untaxed != 0 {
        sales.push(Posting { side: Side::Credit, account: Account::Sales, sub: String::new(), amount: f.untaxed, tax: None, memo: "売上 税計算なし".into() });
    }
    let entry = Entry { no: 0, postings: sales };
    let gap = entry.total(Side::Debit) - entry.total(Side::Credit);
    let mut sales = entry.postings;
    if gap != 0 {
        let side = if gap > 0 { Side::Credit } else { Side::Debit };
        sales.push(Posting { side, account: Account::Suspense, sub: String::new(), amount: gap.abs(), tax: None, memo: "他の日に計上の売上".into() });
    }
    if !sales.is_empty() {
        entries.push(sales);
    }
    // Money given back: the items taken back per rate (their tax comes off the tax owed),
    // and what was given back without items (a refund by amount) with no tax; items
    // taken back whose money has not gone back yet wait on the suspense account.
    let mut back: Vec<Posting> = Vec::new();
    let given: i64 = f.refunds.iter().map(|r| r.2).sum();
    for (class, ppm, gross, tax) in f.returns.iter().filter(|r| r.2 != 0) {
        let t = Tax { class: *class, ppm: *ppm, tax: *tax };
        let memo = format!("返品 {}", t.percent());
        back.push(Posting { side: Side::Debit, account: Account::SalesReturns, sub: String::new(), amount: *gross, tax: Some(t), memo });
    }
    let gap = given - f.returns.iter().map(|r| r.2).sum::<i64>();
    if gap > 0 {
        back.push(Posting { side: Side::Debit, account: Account::SalesReturns, sub: String::new(), amount: gap, tax: None, memo: "返金 返品なし".into() });
    }
    for (m, n, a) in f.refunds.iter().filter(|r| r.2 != 0) {
        back.push(tender_posting(Side::Credit, m, n, *a, "返金"));
    }
    if gap < 0 {
        back.push(Posting { side: Side::Credit, account: Account::Suspense, sub: String::new(), amount: -gap, tax: None, memo: "返品 未返金".into() });
    }
    if !back.is_empty() {
        entries.push(back);
    }
    for (register, z, amount) in f.over_short.iter().filter(|o| o.2 != 0) {
        let memo = format!("{register} Z{z} {}", if *amount > 0 { "過剰" } else { "不足" });
        let (cash, other) = if *amount > 0 { (Side::Debit, Side::Credit) } else { (Side::Credit, Side::Debit) };
        entries.push(vec![
            Posting { side: cash, account: Account::Cash, sub: String::new(), amount: amount.abs(), tax: None, memo: memo.clone() },
            Posting { side: other, account: Account::CashOverShort, sub: String::new(), amount: amount.abs(), tax: None, memo },
        ]);
    }
    let entries = entries.into_iter().enumerate().map(|(i, postings)| Entry { no: i as u32 + 1, postings }).collect();
    Journal { date: date.to_string(), currency: f.currency.clone(), exponent: f.exponent, entries }
}

/// An amount in major units with the currency's decimals ("1100", "12.34", "-0.05").
pub fn major(amount: i64, exponent: u32) -> String {
    if exponent == 0 {
        return amount.to_string();
    }
    let p = 10i64.pow(exponent);
    let sign = if amount < 0 { "-" } else { "" };
    let a = amount.unsigned_abs();
    format!("{sign}{}.{:0width$}", a / p as u64, a % p as u64, width = exponent as usize)
}

/// One CSV field, formula-safe and quoted where needed (the reports' cell).
pub use crate::csv_cell::cell as field;

/// A CSV line of fields, CRLF-terminated (what the Windows importers expect).
pub fn line(fields: &[String]) -> String {
    let mut s = fields.iter().map(|f| field(f)).collect::<Vec<_>>().join(",");
    s.push_str("\r\n");
    s
}

#[cfg(test)]
mod tests;
