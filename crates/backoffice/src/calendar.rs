//! A calendar day as the owner types it in a query (`YYYY-MM-DD`), for the reports (record
//! 0140) and the accountant's journal (record 0141). The calendar is jiff's; the shape is
//! checked here first because a query is hostile input and only this one form is meant.

use jiff::civil::Date;

/// Why a query's day is not one, for a 400 that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DayProblem {
    #[error("is not a day written YYYY-MM-DD")]
    Shape,
    #[error("is outside the years 2000 to 2999")]
    Year,
    #[error("has no month {0}")]
    NoMonth(i8),
    #[error("has no day {0} in that month")]
    NoDay(i8),
}

/// `s` as a day of the years 2000 to 2999 that exists (no 2026-02-30), written exactly
/// `YYYY-MM-DD`. A register's clock before 2000 is refused at sync, so no day before holds
/// anything; no store is open in the year 3000.
pub fn parse_day(s: &str) -> Result<Date, DayProblem> {
    let b = s.as_bytes();
    let shaped = b.len() == 10 && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    if !shaped {
        return Err(DayProblem::Shape);
    }
    let number = |r: std::ops::Range<usize>| s[r].parse::<i16>().map_err(|_| DayProblem::Shape);
    let (year, month, day) = (number(0..4)?, number(5..7)? as i8, number(8..10)? as i8);
    if !(2000..=2999).contains(&year) {
        return Err(DayProblem::Year);
    }
    if !(1..=12).contains(&month) {
        return Err(DayProblem::NoMonth(month));
    }
    Date::new(year, month, day).map_err(|_| DayProblem::NoDay(day))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_real_days_written_one_way_are_days() {
        assert_eq!(parse_day("2028-02-29"), Ok(jiff::civil::date(2028, 2, 29)));
        assert_eq!(parse_day("2027-02-29"), Err(DayProblem::NoDay(29)));
        assert_eq!(parse_day("2026-04-31"), Err(DayProblem::NoDay(31)));
        assert_eq!(parse_day("2026-13-01"), Err(DayProblem::NoMonth(13)));
        assert_eq!(parse_day("2026-00-10"), Err(DayProblem::NoMonth(0)));
        assert_eq!(parse_day("1999-12-31"), Err(DayProblem::Year));
        assert_eq!(parse_day("3000-01-01"), Err(DayProblem::Year));
        for bad in ["2026-1-01", "2026/01/01", "+026-01-01", "２０２６-01-01", "2026-01-01T00", ""] {
            assert_eq!(parse_day(bad), Err(DayProblem::Shape), "{bad:?}");
        }
    }
}
