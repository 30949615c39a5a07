//! The report's query string, checked before any SQL: each wrong parameter is a 400 that
//! names it (record 0140).
use super::{DateRange, Day, Grouping, MAX_DAYS};
use crate::error::{ApiError, ApiResult};
use uuid::Uuid;

/// JSON or a CSV download.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

/// A report asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub by: Grouping,
    pub range: DateRange,
    /// `None`: all the owner's stores.
    pub store: Option<Uuid>,
    pub format: Format,
}

impl Day {
    /// `YYYY-MM-DD`, a day that exists (no 2026-02-30), years 2000 to 2999.
    pub fn parse(s: &str) -> Option<Day> {
        crate::calendar::parse_day(s).ok().map(|d| Day { year: i32::from(d.year()), month: d.month() as u32, day: d.day() as u32 })
    }

    /// Days since 1970-01-01, for the range's length.
    pub fn ordinal(self) -> i64 {
        let epoch = jiff::civil::date(1970, 1, 1);
        // A `Day` is only ever made by `parse`: a real day of 2000-2999.
        let d = jiff::civil::Date::new(self.year as i16, self.month as i8, self.day as i8).expect("a parsed day exists");
        i64::from(epoch.until(d).expect("days between two real dates").get_days())
    }

    pub fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl DateRange {
    pub fn days(self) -> i64 {
        self.to.ordinal() - self.from.ordinal() + 1
    }
}

fn bad(msg: String) -> ApiError {
    ApiError::BadRequest(msg)
}

/// Reads `by`, `from`, `to`, `store` and `format` from a query string. Unknown or repeated
/// parameters are refused: a typo ("form=") must not silently give another report.
pub fn parse(query: &str) -> ApiResult<Request> {
    if query.len() > 1_000 {
        return Err(bad("the query string is longer than 1000 characters".into()));
    }
    let (mut by, mut from, mut to, mut store, mut format) = (None, None, None, None, None);
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        let slot = match &*k {
            "by" => &mut by,
            "from" => &mut from,
            "to" => &mut to,
            "store" => &mut store,
            "format" => &mut format,
            other => return Err(bad(format!("unknown parameter {:?} (by, from, to, store, format)", other.chars().take(40).collect::<String>()))),
        };
        if slot.replace(v.into_owned()).is_some() {
            return Err(bad(format!("parameter {k:?} given twice")));
        }
    }
    let by = by.ok_or_else(|| bad("by: missing (item, category, tender, hour or staff)".into()))?;
    let by = Grouping::parse(&by).ok_or_else(|| bad(format!("by: unknown grouping {:?} (item, category, tender, hour or staff)", by.chars().take(40).collect::<String>())))?;
    let day = |name: &str, v: Option<String>| -> ApiResult<Day> {
        let v = v.ok_or_else(|| bad(format!("{name}: missing (YYYY-MM-DD)")))?;
        Day::parse(&v).ok_or_else(|| bad(format!("{name}: {:?} is not a date YYYY-MM-DD", v.chars().take(40).collect::<String>())))
    };
    let range = DateRange { from: day("from", from)?, to: day("to", to)? };
    if range.from > range.to {
        return Err(bad(format!("from {} is after to {}", range.from.iso(), range.to.iso())));
    }
    if range.days() > MAX_DAYS {
        return Err(bad(format!("the range is {} days; at most {MAX_DAYS}", range.days())));
    }
    let store = match store {
        None => None,
        Some(s) => Some(Uuid::parse_str(&s).map_err(|_| bad(format!("store: {:?} is not a store id", s.chars().take(40).collect::<String>())))?),
    };
    let format = match format.as_deref() {
        None | Some("json") => Format::Json,
        Some("csv") => Format::Csv,
        Some(f) => return Err(bad(format!("format: {:?} is neither json nor csv", f.chars().take(40).collect::<String>()))),
    };
    Ok(Request { by, range, store, format })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_parse_only_when_they_exist_and_ranges_count_both_ends() {
        assert_eq!(Day::parse("2028-02-29"), Some(Day { year: 2028, month: 2, day: 29 }));
        for bad in ["2026-02-29", "2026-13-01", "2026-1-01", "26-01-01", "2026-01-0a", "+026-01-01", "2026-04-31", "1999-12-31"] {
            assert_eq!(Day::parse(bad), None, "{bad}");
        }
        assert_eq!(Day::parse("1970-01-01").map(|d| d.ordinal()), None, "before 2000");
        assert_eq!(Day::parse("2000-01-01").unwrap().ordinal(), 10_957);
        let r = |a: &str, b: &str| DateRange { from: Day::parse(a).unwrap(), to: Day::parse(b).unwrap() }.days();
        assert_eq!(r("2026-01-01", "2026-01-01"), 1);
        assert_eq!(r("2028-01-01", "2028-12-31"), 366);
        assert_eq!(r("2026-02-28", "2026-03-01"), 2);
    }

    #[test]
    fn each_bad_parameter_is_named() {
        let msg = |q: &str| parse(q).unwrap_err().to_string();
        assert!(msg("by=cashier&from=2026-01-01&to=2026-01-02").contains("unknown grouping"));
        assert!(msg("by=item&from=2026-01-32&to=2026-02-01").starts_with("from:"));
        assert!(msg("by=item&from=2026-02-01&to=2026-01-01").contains("is after"));
        assert!(msg("by=item&from=2026-01-01&to=2027-01-02").contains("at most 366"));
        assert!(msg("by=item&from=2026-01-01&to=2026-01-02&store=x").starts_with("store:"));
        assert!(msg("by=item&from=2026-01-01&to=2026-01-02&format=xls").starts_with("format:"));
        assert!(msg("by=item&form=2026-01-01&to=2026-01-02").contains("unknown parameter"));
        assert!(msg("by=item&by=hour&from=2026-01-01&to=2026-01-02").contains("twice"));
        let ok = parse("by=hour&from=2026-01-01&to=2026-12-31&format=csv").unwrap();
        assert_eq!((ok.by, ok.format, ok.store, ok.range.days()), (Grouping::Hour, Format::Csv, None, 365));
        assert_eq!(parse("by=staff&from=2026-01-01&to=2026-01-01").unwrap().by, Grouping::Staff);
    }
}
