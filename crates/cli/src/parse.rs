//! Parsers for values given on the command line, refusing bad input before the ledger is
//! touched: a duration without a unit, an amount that is not a positive whole number of
//! minor units. Used by `args` and by the subcommands' own arguments; kept apart from
//! `args` (which names every subcommand) so a subcommand's module does not import it back
//! (issue #31: no import circles).

use std::time::Duration;

/// Every duration flag: `humantime` forms — `500ms`, `30s`, `10m`, `24h`, `1d`, `1h 30m`.
/// A bare number is refused with the expected form named: it has no unit, and reading
/// "30" as 30 ms (or 30 s) would silently set a timeout a thousand times off.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    const FORM: &str = "a number with a unit, e.g. 30s, 500ms, 10m or 24h";
    let t = s.trim();
    if t.is_empty() {
        return Err(format!("empty duration: expected {FORM}"));
    }
    if t.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("duration {t:?} has no unit: expected {FORM}"));
    }
    humantime::parse_duration(t).map_err(|e| format!("invalid duration {t:?} ({e}): expected {FORM}"))
}

pub(crate) fn parse_amount(s: &str) -> Result<i64, String> {
    let t = s.trim();
    if t.is_empty() || !t.trim_start_matches('-').chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("amount {s:?} is not a whole number of minor units"));
    }
    let v: i64 = t.parse().map_err(|_| format!("amount {s:?} overflows (largest is {})", i64::MAX))?;
    if v <= 0 {
        return Err(format!("amount must be greater than zero (got {v})"));
    }
    Ok(v)
}

/// A currency code as the ledger knows it (`jpy`, `usd`, …); anything else is refused
/// with the known ones named.
pub(crate) fn parse_currency(s: &str) -> Result<paydesk_domain::Currency, String> {
    s.parse().map_err(|_| format!("unknown currency {s:?} (known: jpy, usd, eur, gbp, krw)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration(" 24h "), Ok(Duration::from_secs(24 * 3600)));
        assert_eq!(parse_duration("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        for bad in ["30", "0", ""] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("30s"), "{bad:?}: {e}");
        }
        let e = parse_duration("30 parsecs").unwrap_err();
        assert!(e.contains("invalid duration") && e.contains("30s"), "{e}");
    }
}
