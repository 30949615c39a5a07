//! The store's settings (one row) and the tax settings a sale is computed with
//! (record 0059): rates from `tax_rates`, rounding and price mode from the settings.

use std::ops::Deref;
use crate::ledger::Catalog;
use paydesk_tax::{PriceMode, RateEntry, RateTable, RegistrationNumber, Rounding, TaxSettings, YearMonthDay};
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use super::parse_class;
use crate::error::{Error, Result};
use crate::ledger::audit::{append_audit, AuditInput};
use crate::ledger::{collect, Cached, Ledger};
use paydesk_domain::money::Currency;
use paydesk_domain::Locale;
use crate::write_tx::WriteTx;

/// The store's locale from its stored tag: exactly `en-US` or `ja-JP`.
pub fn parse_locale(s: &str) -> Result<Locale> {
    Locale::from_setting(s).ok_or_else(|| Error::InvalidInput(format!("locale {s:?}: expected en-US or ja-JP")))
}

/// The store's settings. Limits: name 1-120 characters, address 300, phone 40, header
/// and footer 500 each; the registration number is "T" + 13 digits with its check digit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSettings {
    pub name: String,
    pub address: String,
    pub phone: String,
    pub currency: Currency,
    pub locale: Locale,
    pub price_mode: PriceMode,
    pub registration_number: Option<String>,
    pub rounding: Rounding,
    pub receipt_header: String,
    pub receipt_footer: String,
    /// The IANA time zone receipts, reports and the screens tell the time in
    /// ("Asia/Tokyo"); never empty once read (a store that names none is in its
    /// locale's [`Locale::default_time_zone`]).
    #[serde(default)]
    pub time_zone: String,
}

/// Longest time zone name kept (the longest IANA names are about 30 characters).
pub const MAX_TIME_ZONE_CHARS: usize = 64;

/// A time zone name as the settings keep it: empty means the locale's zone; any other
/// must be a zone of the system's time zone database.
fn checked_time_zone(name: &str, locale: Locale) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Ok(locale.default_time_zone().to_string());
    }
    let shape = name.chars().count() <= MAX_TIME_ZONE_CHARS
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'));
    if !shape || jiff::tz::TimeZone::get(name).is_err() {
        let shown: String = name.chars().take(MAX_TIME_ZONE_CHARS).collect();
        return Err(Error::InvalidInput(format!("time zone {shown:?} is not a zone of the time zone database (e.g. Asia/Tokyo, America/Los_Angeles)")));
    }
    Ok(name.to_string())
}

fn price_mode_str(m: PriceMode) -> &'static str {
    match m {
        PriceMode::Inclusive => "inclusive",
        PriceMode::Exclusive => "exclusive",
    }
}

fn rounding_str(r: Rounding) -> &'static str {
    match r {
        Rounding::Down => "down",
        Rounding::HalfUp => "half_up",
        Rounding::Up => "up",
    }
}

fn bounded(field: &str, s: &str, min: usize, max: usize) -> Result<()> {
    let n = s.chars().count();
    if n < min || n > max || s.chars().any(|c| c.is_control() && c != '\n') {
        return Err(Error::InvalidInput(format!("{field}: {min} to {max} printable characters (got {n})")));
    }
    Ok(())
}

impl StoreSettings {
    /// Whether `other` taxes sales the same way: the fields the back office publishes as
    /// the tax setup (record 0049), which a register may not change while it does.
    pub fn same_tax_setup(&self, other: &StoreSettings) -> bool {
        (self.price_mode, self.rounding, &self.registration_number) == (other.price_mode, other.rounding, &other.registration_number)
    }

    /// Every limit of the settings; the registration number is normalised ("T" + digits).
    pub fn validated(mut self) -> Result<StoreSettings> {
        bounded("name", &self.name, 1, 120)?;
        bounded("address", &self.address, 0, 300)?;
        bounded("phone", &self.phone, 0, 40)?;
        bounded("receipt header", &self.receipt_header, 0, 500)?;
        bounded("receipt footer", &self.receipt_footer, 0, 500)?;
        self.time_zone = checked_time_zone(&self.time_zone, self.locale)?;
        if let Some(r) = &self.registration_number {
            let parsed = RegistrationNumber::parse(r)
                .map_err(|e| Error::InvalidInput(format!("registration number {r:?}: {e}")))?;
            self.registration_number = Some(parsed.as_str().to_string());
        }
        Ok(self)
    }
}

pub(crate) fn settings_tx(conn: &Connection) -> Result<StoreSettings> {
    let row = conn.row_cached(
        "SELECT name, address, phone, currency, locale, price_mode, registration_number, rounding,
                receipt_header, receipt_footer, time_zone FROM store_settings WHERE id = 1",
        [],
        |r| {
            Ok((
                (r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?),
                (r.get::<_, String>(3)?, r.get::<_, String>(4)?, r.get::<_, String>(5)?),
                (r.get::<_, Option<String>>(6)?, r.get::<_, String>(7)?),
                (r.get::<_, String>(8)?, r.get::<_, String>(9)?, r.get::<_, String>(10)?),
            ))
        },
    )?;
    let ((name, address, phone), (currency, locale, mode), (registration_number, rounding), (header, footer, time_zone)) = row;
    let locale = parse_locale(&locale)?;
    let price_mode = match mode.as_str() {
        "inclusive" => PriceMode::Inclusive,
        "exclusive" => PriceMode::Exclusive,
        _ => return Err(Error::UnknownValue { what: "price mode", value: mode }),
    };
    let rounding = match rounding.as_str() {
        "down" => Rounding::Down,
        "half_up" => Rounding::HalfUp,
        "up" => Rounding::Up,
        _ => return Err(Error::UnknownValue { what: "tax rounding", value: rounding }),
    };
    Ok(StoreSettings {
        name,
        address,
        phone,
        currency: currency.parse()?,
        locale,
        price_mode,
        registration_number,
        rounding,
        receipt_header: header,
        receipt_footer: footer,
        // As stored, the locale's zone when none is named (a zone the system lost since is
        // shown as it was named; the receipts fall back, see `store_time`).
        time_zone: if time_zone.is_empty() { locale.default_time_zone().to_string() } else { time_zone },
    })
}

fn parse_day(s: &str) -> Option<YearMonthDay> {
    let mut it = s.split('-');
    let (y, m, d) = (it.next()?.parse().ok()?, it.next()?.parse().ok()?, it.next()?.parse().ok()?);
    Some(YearMonthDay { year: y, month: m, day: d })
}

pub(crate) fn rate_table_tx(conn: &Connection) -> Result<RateTable> {
    let entries = collect(conn, "SELECT class, name, ppm, effective_from FROM tax_rates ORDER BY id", [], |r| {
        let class: String = r.get(0)?;
        let name: String = r.get(1)?;
        let ppm: i64 = r.get(2)?;
        let from: Option<String> = r.get(3)?;
        Ok((|| {
            let class = parse_class(&class).ok_or(Error::UnknownValue { what: "tax class", value: class.clone() })?;
            let effective_from = match from {
                None => None,
                Some(f) => Some(parse_day(&f).ok_or(Error::UnknownValue { what: "rate date", value: f.clone() })?),
            };
            // The table's CHECK holds ppm to 0..=1 000 000.
            let ppm = u32::try_from(ppm).map_err(|_| Error::UnknownValue { what: "tax rate", value: ppm.to_string() })?;
            Ok(RateEntry { class, name, ppm, effective_from })
        })())
    })?;
    Ok(RateTable { entries })
}

/// The settings a sale's tax is computed with now.
pub(crate) fn tax_settings_tx(conn: &Connection) -> Result<TaxSettings> {
    let s = settings_tx(conn)?;
    Ok(TaxSettings { rates: rate_table_tx(conn)?, rounding: s.rounding, price_mode: s.price_mode })
}

/// The back office's version of the tax setup in use; None while it is the register's
/// own (record 0049).
pub(crate) fn tax_published_version(conn: &Connection) -> Result<Option<i64>> {
    Ok(conn.row_cached("SELECT tax_published_version FROM store_settings WHERE id = 1", [], |r| r.get(0))?)
}

pub(crate) fn write_settings_tx(tx: &WriteTx<'_>, new: StoreSettings, actor_id: Option<i64>, now_ms: i64) -> Result<StoreSettings> {
    write_settings_from(tx, new, TaxSource::Local, actor_id, now_ms)
}

/// Who may change the tax fields (price mode, rounding, registration number) in a
/// settings write: the register's screens only while the back office publishes none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaxSource {
    Local,
    BackOffice,
}

pub(crate) fn write_settings_from(
    tx: &WriteTx<'_>,
    new: StoreSettings,
    source: TaxSource,
    actor_id: Option<i64>,
    now_ms: i64,
) -> Result<StoreSettings> {
    let new = new.validated()?;
    let before = settings_tx(tx)?;
    if before == new {
        return Ok(new);
    }
    if source == TaxSource::Local && !before.same_tax_setup(&new) && tax_published_version(tx)?.is_some() {
        return Err(Error::PublishedTax);
    }
    tx.exec_cached(
        "UPDATE store_settings SET name = ?1, address = ?2, phone = ?3, currency = ?4, locale = ?5, price_mode = ?6,
             registration_number = ?7, rounding = ?8, receipt_header = ?9, receipt_footer = ?10, updated_at_ms = ?11,
             time_zone = ?12
         WHERE id = 1",
        params![
            new.name,
            new.address,
            new.phone,
            new.currency.code(),
            new.locale.tag(),
            price_mode_str(new.price_mode),
            new.registration_number,
            rounding_str(new.rounding),
            new.receipt_header,
            new.receipt_footer,
            now_ms,
            new.time_zone
        ],
    )?;
    let input = AuditInput {
        actor_id,
        before: Some(serde_json::to_string(&before)?),
        after: Some(serde_json::to_string(&new)?),
        ..AuditInput::new("store_settings", "store settings")
    };
    append_audit(tx, &input, now_ms)?;
    Ok(new)
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    pub fn store_settings(&self) -> Result<StoreSettings> {
        settings_tx(&self.conn)
    }
}

impl Catalog<&mut Ledger> {
    /// Replaces the settings (validated; audited with before and after). A sale whose
    /// first tender was taken keeps the tax it was locked with (record 0060).
    pub fn set_store_settings(&mut self, new: StoreSettings, actor_id: Option<i64>, now_ms: i64) -> Result<StoreSettings> {
        let tx = self.write_tx()?;
        let out = write_settings_tx(&tx, new, actor_id, now_ms)?;
        tx.commit()?;
        Ok(out)
    }
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The tax settings sales are computed with now (rates as stored, the store's
    /// rounding and price mode).
    pub fn tax_settings(&self) -> Result<TaxSettings> {
        tax_settings_tx(&self.conn)
    }
}
