//! The store's settings screen (record 0061): name, address, phone, tax-inclusive or
//! exclusive prices, the qualified-invoice registration number, tax rounding, receipt
//! header and footer, and the receipt printer. Currency and locale are shown, not
//! edited here: they come with the store (its demo seed or `paydesk-cli store set`), and
//! a register's carts, offline limits and refunds are in that currency.

use paydesk_tax::{PriceMode, Rounding};
use paydesk_ledger::StoreSettings;
use serde::{Deserialize, Serialize};
use tauri::State;

use super::print::PrinterConfig;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::ops::Operation;
use crate::state::AppState;

#[derive(Debug, Serialize)]
pub struct StoreView {
    pub name: String,
    pub address: String,
    pub phone: String,
    pub currency: String,
    pub locale: String,
    /// inclusive | exclusive
    pub price_mode: &'static str,
    pub registration_number: String,
    /// down | half_up | up
    pub rounding: &'static str,
    pub receipt_header: String,
    pub receipt_footer: String,
    /// The IANA time zone receipts and the screens tell the time in.
    pub time_zone: String,
    pub printer: String,
    /// The back office publishes the tax setup: its fields are read-only here (record 0049).
    pub tax_published: bool,
}

/// The form as typed.
#[derive(Debug, Clone, Deserialize)]
pub struct StoreForm {
    pub name: String,
    pub address: String,
    pub phone: String,
    pub price_mode: String,
    pub registration_number: String,
    pub rounding: String,
    pub receipt_header: String,
    pub receipt_footer: String,
    /// Empty: the locale's own zone.
    #[serde(default)]
    pub time_zone: String,
}

fn view(s: &StoreSettings, printer: String, tax_published: bool) -> StoreView {
    StoreView {
        name: s.name.clone(),
        address: s.address.clone(),
        phone: s.phone.clone(),
        currency: s.currency.code().to_ascii_uppercase(),
        locale: s.locale.tag().to_string(),
        price_mode: match s.price_mode {
            PriceMode::Inclusive => "inclusive",
            PriceMode::Exclusive => "exclusive",
        },
        registration_number: s.registration_number.clone().unwrap_or_default(),
        rounding: match s.rounding {
            Rounding::Down => "down",
            Rounding::HalfUp => "half_up",
            Rounding::Up => "up",
        },
        receipt_header: s.receipt_header.clone(),
        receipt_footer: s.receipt_footer.clone(),
        time_zone: s.time_zone.clone(),
        printer,
        tax_published,
    }
}

#[tauri::command]
pub fn get_store(state: State<'_, AppState>) -> AppResult<StoreView> {
    let s = state.engine().store().view()?;
    Ok(view(&s.settings, PrinterConfig::load(&state.stored.data_dir)?.printer, s.tax_published.is_some()))
}

/// The form applied to the stored settings (currency and locale kept). Every limit is
/// the ledger's (`StoreSettings::validated`), checked again when it is written.
pub fn apply_form(current: &StoreSettings, f: &StoreForm) -> AppResult<StoreSettings> {
    let price_mode = match f.price_mode.as_str() {
        "inclusive" => PriceMode::Inclusive,
        "exclusive" => PriceMode::Exclusive,
        _ => return Err(AppError::InvalidInput(tr!(active(), "input-store-price-mode"))),
    };
    let rounding = match f.rounding.as_str() {
        "down" => Rounding::Down,
        "half_up" => Rounding::HalfUp,
        "up" => Rounding::Up,
        _ => return Err(AppError::InvalidInput(tr!(active(), "input-store-rounding"))),
    };
    let reg = f.registration_number.trim();
    let new = StoreSettings {
        name: f.name.trim().to_string(),
        address: f.address.trim().to_string(),
        phone: f.phone.trim().to_string(),
        currency: current.currency,
        locale: current.locale,
        price_mode,
        registration_number: (!reg.is_empty()).then(|| reg.to_string()),
        rounding,
        receipt_header: f.receipt_header.trim_end().to_string(),
        receipt_footer: f.receipt_footer.trim_end().to_string(),
        time_zone: f.time_zone.trim().to_string(),
    };
    new.validated().map_err(|e| match e {
        paydesk_ledger::Error::InvalidInput(m) => AppError::InvalidInput(tr!(active(), "input-store-not-saved", detail = m)),
        other => AppError::from(other),
    })
}

#[tauri::command]
pub fn save_store(state: State<'_, AppState>, store: StoreForm, approval: Option<crate::staff::Approval>) -> AppResult<StoreView> {
    let action = paydesk_access::Action::Settings;
    let op = Operation::new(action, approval.as_ref()).authorize(&state)?;
    let engine = state.engine();
    let current = engine.store().settings()?;
    let new = apply_form(&current, &store)?;
    // Checked before the approval is recorded (the ledger refuses it again inside its write).
    if !new.same_tax_setup(&current) && engine.store().tax_published_version()?.is_some() {
        return Err(AppError::ManagedByBackOffice(crate::error::Managed::Tax));
    }
    let granted = op.audit_approval("store_settings").permit(&state)?;
    let saved = engine.store().set(new, granted.actor_id())?;
    let tax = engine.store().tax_published_version()?;
    Ok(view(&saved, PrinterConfig::load(&state.stored.data_dir)?.printer, tax.is_some()))
}
