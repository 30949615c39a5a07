//! Settings → Card reader: register a reader by its registration code and a label (the
//! store's location is created at the PSP once, with the first reader, and reused), and
//! list the readers with their status as the PSP sees them now.

use paydesk_access::Action;
use serde::Serialize;
use tauri::State;

use crate::error::{AppError, AppResult};
use crate::i18n::{id, t};
use crate::ops::{Locks, Operation};
use crate::state::AppState;
use crate::views::Tone;
use paydesk_register::psp::ReaderStatus;

/// Longest registration code and label typed in Settings.
const MAX_CODE_CHARS: usize = 100;
const MAX_LABEL_CHARS: usize = 100;
/// Readers listed (and read at the PSP) at most: a store has a handful.
const MAX_READERS_LISTED: usize = 20;

#[derive(Debug, Serialize)]
pub struct ReaderRow {
    pub id: String,
    pub label: String,
    pub location: Option<String>,
    pub device_type: Option<String>,
    /// Its connection as the PSP said; `None` when it could not be read now.
    pub status: Option<ReaderStatus>,
    /// The status in words.
    pub status_label: String,
    /// Its colour: online is ok, anything else (offline, not read) warn. Decided here, so
    /// the screen compares no status word.
    pub status_tone: Tone,
    pub simulated: bool,
}

#[derive(Debug, Serialize)]
pub struct ReadersView {
    pub readers: Vec<ReaderRow>,
    /// The store's location at the PSP (once a reader is registered).
    pub location: Option<String>,
    /// Test mode: Settings offers the simulated reader's code (`simulated-wpe`).
    pub test_mode: bool,
    pub simulated_code: &'static str,
}

/// Stripe's registration code for a simulated reader.
pub const SIMULATED_CODE: &str = "simulated-wpe";

/// A registration code or label, trimmed; `refusal` is the message id the cashier is
/// shown when it is empty, too long or has control characters.
fn text(s: &str, max: usize, refusal: &'static str) -> AppResult<String> {
    let s = s.trim();
    if s.is_empty() || s.chars().count() > max || s.chars().any(char::is_control) {
        return Err(AppError::InvalidInput(t(refusal)));
    }
    Ok(s.to_string())
}

fn status_label(status: Option<ReaderStatus>) -> String {
    t(match status {
        Some(ReaderStatus::Online) => id!("reader-status-online"),
        Some(ReaderStatus::Offline) => id!("reader-status-offline"),
        Some(ReaderStatus::Other) | None => id!("reader-status-unknown"),
    })
}

fn status_tone(status: Option<ReaderStatus>) -> Tone {
    match status {
        Some(ReaderStatus::Online) => Tone::Ok,
        Some(ReaderStatus::Offline | ReaderStatus::Other) | None => Tone::Warn,
    }
}

async fn rows(state: &AppState, with_status: bool) -> AppResult<ReadersView> {
    let engine = state.engine();
    let mut readers = Vec::new();
    let known = engine.readers()?;
    let location = known.iter().find_map(|r| r.location.clone());
    for r in known.into_iter().take(MAX_READERS_LISTED) {
        let status = if with_status { engine.reader_at_psp(&r.id).await.ok().and_then(|at| at.status()) } else { None };
        readers.push(ReaderRow {
            status_label: status_label(status),
            status_tone: status_tone(status),
            simulated: r.device_type.as_deref().is_some_and(|d| d.starts_with("simulated")),
            id: r.id,
            label: r.label,
            location: r.location,
            device_type: r.device_type,
            status,
        });
    }
    Ok(ReadersView { readers, location, test_mode: super::test_mode(state), simulated_code: SIMULATED_CODE })
}

/// The readers this register knows, each with its status at the PSP now when
/// `with_status` (Settings); without it (the card form) nothing is asked of the PSP.
#[tauri::command]
pub async fn reader_list(state: State<'_, AppState>, with_status: Option<bool>) -> AppResult<ReadersView> {
    let _no_settings_swap = state.engines.no_swap().await;
    rows(&state, with_status.unwrap_or(true)).await
}

/// Registers a reader by its code and label. The store's location is created once (named
/// after the store, with its address) and every later reader joins it.
#[tauri::command]
pub async fn reader_register(
    state: State<'_, AppState>,
    code: String,
    label: String,
    approval: Option<crate::staff::Approval>,
) -> AppResult<ReadersView> {
    let code = text(&code, MAX_CODE_CHARS, id!("input-reader-code"))?;
    let label = text(&label, MAX_LABEL_CHARS, id!("input-reader-label"))?;
    let op = Operation::new(Action::Settings, approval.as_ref()).approval_audited("reader_register");
    let _pass = op.run(&state, Locks::Engine).await?;
    let engine = state.engine();
    let location = match engine.readers()?.into_iter().find_map(|r| r.location) {
        Some(loc) => loc,
        None => {
            let store = engine.store().settings()?;
            let name = if store.name.trim().is_empty() { t(id!("reader-location-default")) } else { store.name.clone() };
            let address = if store.address.trim().is_empty() { name.clone() } else { store.address.clone() };
            // The first line of the store's address; the country from its currency.
            let line1: String = address.lines().next().unwrap_or(&name).chars().take(200).collect();
            // The store keeps no country; its currency names one closely enough for a
            // location's address (the euro: the PSP needs some country; Ireland).
            let country = match state.currency {
                paydesk_domain::Currency::Jpy => "JP",
                paydesk_domain::Currency::Usd => "US",
                paydesk_domain::Currency::Gbp => "GB",
                paydesk_domain::Currency::Krw => "KR",
                paydesk_domain::Currency::Eur => "IE",
            };
            let name: String = name.chars().take(100).collect();
            engine.create_reader_location(&name, &[("line1", line1.as_str()), ("country", country)]).await?
        }
    };
    engine.register_reader(&code, &label, &location).await?;
    rows(&state, true).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_labels_are_checked() {
        assert_eq!(text(" simulated-wpe ", MAX_CODE_CHARS, id!("input-reader-code")).unwrap(), "simulated-wpe");
        for bad in ["", "   ", "a\u{7}b", &"x".repeat(101)] {
            assert_eq!(text(bad, MAX_CODE_CHARS, id!("input-reader-code")).unwrap_err().code(), "invalid_input", "{bad:?}");
            assert_eq!(text(bad, MAX_LABEL_CHARS, id!("input-reader-label")).unwrap_err().code(), "invalid_input", "{bad:?}");
        }
    }
}
