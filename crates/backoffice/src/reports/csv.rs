//! The report as a CSV download (record 0140): a header row, then one row per line of the
//! report; amounts in minor units as integers. Safe to open in a spreadsheet: a cell that
//! starts with `=`, `+`, `-`, `@` (or a tab or carriage return) is a formula to Excel, so it
//! is written with a leading `'`; an item name is the register's and anyone can type one.
use super::Row;

pub const HEADER: [&str; 10] = ["store_id", "currency", "key", "label", "count", "sales", "sold", "returned", "net", "grouping"];

pub use crate::csv_cell::cell;

/// A number: never neutralized (a negative count is a number, not a formula; it is ours,
/// not typed by anyone).
fn num(n: i64) -> String {
    n.to_string()
}

/// The whole file, CRLF line ends (RFC 4180).
pub fn write(rows: &[Row], grouping: &str) -> String {
    let mut out = HEADER.join(",");
    out.push_str("\r\n");
    for r in rows {
        let store = r.store_id.map(|s| s.to_string()).unwrap_or_else(|| "all".into());
        let cells = [cell(&store), cell(&r.currency), cell(&r.key), cell(&r.label), num(r.count), num(r.sales), num(r.sold), num(r.returned), num(r.net), cell(grouping)];
        out.push_str(&cells.join(","));
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralized_and_separators_quoted() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("+1"), "'+1");
        assert_eq!(cell("-2"), "'-2");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("Tea, green"), "\"Tea, green\"");
        assert_eq!(cell("Tea"), "Tea");
        assert_eq!(num(-3), "-3");
    }
}
