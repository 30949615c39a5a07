//! The store's clock (records 0058 and 0130): an instant as the store's local time, date
//! and day, by the time zone its settings name. Receipts, End of day and the tax day all
//! read time here, so a receipt, the day's report and the rate a sale was taxed at agree
//! about which day a sale was on.

use paydesk_domain::Locale;
use paydesk_receipt::LocalDateTime;
use paydesk_tax::YearMonthDay;

use super::catalog::StoreSettings;

/// The UTC calendar day of a Unix time in ms (days-from-civil inverse, Howard Hinnant).
pub fn utc_day(ms: i64) -> YearMonthDay {
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = (yoe + era * 400 + i64::from(month <= 2)).clamp(0, 9999) as u16;
    YearMonthDay { year, month, day }
}

/// The store's local time of `ms`: in the time zone its settings name (record 0058),
/// by that zone's rules at that instant (summer time included). The screens format with
/// the same zone, so a receipt and the screen beside it tell the same time.
pub fn store_time(ms: i64, store: &StoreSettings) -> LocalDateTime {
    zone_time(ms, &store.time_zone, store.locale)
}

/// The start (local midnight) of the store's day that contains `ms`, in ms since the
/// epoch: End of day counts "today" from here, by the store's zone, not the computer's
/// (a register whose system clock runs in UTC still closes a Tokyo day at Tokyo midnight).
/// A day that starts inside a summer-time gap starts at its first existing instant (jiff's
/// rule). A zone the database lacks falls back to the locale's standard offset, as
/// [`store_time`] does.
pub fn store_day_start(ms: i64, store: &StoreSettings) -> i64 {
    let start = jiff::Timestamp::from_millisecond(ms)
        .ok()
        .zip(jiff::tz::TimeZone::get(&store.time_zone).ok())
        .and_then(|(at, tz)| at.to_zoned_datetime(tz).start_of_day().ok())
        .map(|z| z.timestamp().as_millisecond());
    if let Some(start) = start {
        return start;
    }
    let offset_ms = standard_offset_ms(store.locale);
    (ms + offset_ms).div_euclid(86_400_000) * 86_400_000 - offset_ms
}

fn standard_offset_ms(locale: Locale) -> i64 {
    match locale {
        Locale::Ja => 9 * 3_600_000,
        Locale::En => -8 * 3_600_000,
    }
}

/// The local time of `ms` in the locale's own zone (a store that names none).
pub fn local_time(ms: i64, locale: Locale) -> LocalDateTime {
    zone_time(ms, locale.default_time_zone(), locale)
}

/// `ms` in zone `name`. A zone the system's database does not have (tzdata removed
/// since it was saved) falls back to the locale's standard offset, so a receipt is never
/// refused over the clock: Japan's is exact all year, the US Pacific one off by an hour
/// in summer.
fn zone_time(ms: i64, name: &str, locale: Locale) -> LocalDateTime {
    let civil = jiff::Timestamp::from_millisecond(ms)
        .ok()
        .zip(jiff::tz::TimeZone::get(name).ok())
        .map(|(at, tz)| at.to_zoned_datetime(tz).datetime());
    if let Some(dt) = civil {
        return LocalDateTime {
            year: dt.year() as u16,
            month: dt.month() as u8,
            day: dt.day() as u8,
            hour: dt.hour() as u8,
            minute: dt.minute() as u8,
        };
    }
    let offset_ms = standard_offset_ms(locale);
    let t = ms + offset_ms;
    let d = utc_day(t);
    let in_day = t.rem_euclid(86_400_000) / 60_000;
    LocalDateTime { year: d.year, month: d.month, day: d.day, hour: (in_day / 60) as u8, minute: (in_day % 60) as u8 }
}

/// The store's calendar date of `ms` (record 0130): the day whose tax rates apply. A
/// Japanese rate change at local midnight applies from 00:00 JST, not from 09:00 JST
/// (UTC midnight).
pub fn store_date(ms: i64, store: &StoreSettings) -> YearMonthDay {
    let t = store_time(ms, store);
    YearMonthDay { year: t.year, month: t.month, day: t.day }
}
