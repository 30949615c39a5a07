//! The owner's reports (record 0140): sales by item, category, tender, hour or staff (record
//! 0143) over a range of the store's own days, per store or for all the owner's stores,
//! netted of what was given back, as JSON or CSV (`GET /admin/reports`). Read-only queries over the facts the
//! registers sent, with the registers' Z-report definitions (record 0138,
//! `paydesk_ledger::takings`): a tender counts when it took money for a sale that was not
//! canceled, each in the hour it was taken; a sale is counted once, where its first counted
//! tender was taken; what was given back counts when it was given back.
//!
//! This file is the vocabulary: the date range, the grouping, a row. `range.rs` reads the
//! query string, `money.rs` (tender, hour, totals), `staff.rs` (staff) and `goods.rs` (item,
//! category) query, `csv.rs` writes the download, `route.rs` answers.
pub mod csv;
pub mod goods;
pub mod money;
pub mod range;
pub mod route;
pub mod staff;

use serde::Serialize;
use uuid::Uuid;

/// The longest range a report covers, in days (a year, leap day included).
pub const MAX_DAYS: i64 = 366;
/// Rows one report returns at most; past it the answer says `truncated`.
pub const MAX_ROWS: usize = 5_000;

/// A calendar day in a store's own zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Day {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

/// `from..=to`, both days of the store's own calendar: each store's days start at its
/// own midnight, so "all stores" covers each store's own days, not one UTC window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateRange {
    pub from: Day,
    pub to: Day,
}

/// What a report's rows are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    Item,
    Category,
    Tender,
    Hour,
    /// Who took the money (record 0143).
    Staff,
}

impl Grouping {
    pub const ALL: [Grouping; 5] = [Grouping::Item, Grouping::Category, Grouping::Tender, Grouping::Hour, Grouping::Staff];

    pub const fn as_str(self) -> &'static str {
        match self {
            Grouping::Item => "item",
            Grouping::Category => "category",
            Grouping::Tender => "tender",
            Grouping::Hour => "hour",
            Grouping::Staff => "staff",
        }
    }

    pub fn parse(s: &str) -> Option<Grouping> {
        Grouping::ALL.into_iter().find(|g| g.as_str() == s)
    }
}

/// One row of a report, in one currency's minor units (never summed across currencies).
///
/// - item / category: `count` = units sold less units returned, `sales` = sales with the
///   item, `sold` = the lines' amounts, `returned` = the returned lines' amounts.
/// - tender / hour / staff: `count` = tenders counted, `sales` = sales first counted here,
///   `sold` = what the tenders took, `returned` = money given back (refunds; by staff, against
///   the member the sale belongs to).
/// - `net` = `sold` − `returned`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// `None` in a report for all stores (rows of every store summed per currency).
    pub store_id: Option<Uuid>,
    pub currency: String,
    pub key: String,
    pub label: String,
    pub count: i64,
    pub sales: i64,
    pub sold: i64,
    pub returned: i64,
    pub net: i64,
}

impl Row {
    /// Adds `other`'s figures (same currency and key); saturating, as the dashboard's sums:
    /// no real store comes near, a hostile register's rows must not crash the page.
    pub fn absorb(&mut self, other: &Row) {
        self.count = self.count.saturating_add(other.count);
        self.sales = self.sales.saturating_add(other.sales);
        self.sold = self.sold.saturating_add(other.sold);
        self.returned = self.returned.saturating_add(other.returned);
        self.net = self.net.saturating_add(other.net);
    }
}

/// Rows of every store summed per (currency, key), in first-seen order: a report for all
/// stores. Each row was already cut at its own store's midnight.
pub fn all_stores(rows: Vec<Row>) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    let mut at: std::collections::HashMap<(String, String), usize> = std::collections::HashMap::new();
    for mut r in rows {
        r.store_id = None;
        match at.get(&(r.currency.clone(), r.key.clone())) {
            Some(&i) => out[i].absorb(&r),
            None => {
                at.insert((r.currency.clone(), r.key.clone()), out.len());
                out.push(r);
            }
        }
    }
    out
}
