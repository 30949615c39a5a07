//! The customer display's window and its own settings (record 0132): the cashier opens it
//! (Settings → Customer display), or it opens at start when its setting says so. Its
//! language is the display's own choice, kept apart from the cashier's screen language:
//! a tourist can read the display in English while the cashier works in Japanese.
//!
//! The settings live in `customer-display.json` in the data folder (nothing secret: the
//! language and whether to open at start), read once at start and written on save.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use paydesk_domain::Locale;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager, Runtime, State, WebviewUrl, WebviewWindowBuilder};

use crate::base::lock;
use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr, LanguageOption};
use crate::ops::Operation;
use crate::state::AppState;

/// The customer window's label: `capabilities/customer.json` grants this label alone
/// its one command.
pub const LABEL: &str = "customer";
/// Its page, in `ui/`.
const PAGE: &str = "customer.html";
const FILE: &str = "customer-display.json";

/// As saved: `language` "" (the store's), "en" or "ja".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DisplaySettings {
    #[serde(default)]
    pub language: String,
    #[serde(default)]
    pub open_at_start: bool,
}

impl DisplaySettings {
    /// The chosen language, or `None` for the store's. Unknown codes are refused on save,
    /// so one read here (a file edited by hand) falls back to the store's.
    fn chosen(&self) -> Option<Locale> {
        Locale::ALL.into_iter().find(|l| l.code() == self.language)
    }
}

/// The display's settings while the app runs (managed state).
pub struct Display {
    path: PathBuf,
    settings: Mutex<DisplaySettings>,
}

impl Display {
    /// Reads `customer-display.json`; a missing or unreadable file is the defaults (the
    /// display is a convenience: a broken file must not keep the register from starting).
    pub fn load(data_dir: &Path) -> Display {
        let path = data_dir.join(FILE);
        let settings = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                eprintln!("paydesk: {} is not readable, using the defaults: {e}", path.display());
                DisplaySettings::default()
            }),
            Err(_) => DisplaySettings::default(),
        };
        Display { path, settings: Mutex::new(settings) }
    }

    pub fn settings(&self) -> DisplaySettings {
        lock(&self.settings).clone()
    }

    /// The display's language: its own choice, else the store's.
    pub fn language(&self, state: &AppState) -> Locale {
        self.settings().chosen().unwrap_or(state.locale)
    }

    fn save(&self, s: DisplaySettings) -> AppResult<()> {
        let bytes = serde_json::to_vec_pretty(&s).map_err(|e| AppError::Internal(e.to_string()))?;
        crate::settings_file::write_private(&self.path, &bytes).map_err(|e| AppError::Internal(format!("{}: {e}", self.path.display())))?;
        *lock(&self.settings) = s;
        Ok(())
    }
}

/// What the cashier's form shows.
#[derive(Debug, Serialize)]
pub struct DisplaySettingsView {
    pub language: String,
    pub open_at_start: bool,
    pub languages: Vec<LanguageOption>,
    /// Whether the display window is open now.
    pub open: bool,
}

fn settings_view<R: Runtime>(app: &AppHandle<R>, s: DisplaySettings) -> DisplaySettingsView {
    DisplaySettingsView {
        language: s.language,
        open_at_start: s.open_at_start,
        languages: Locale::ALL.iter().map(|l| LanguageOption { code: l.code(), name: l.native_name() }).collect(),
        open: app.get_webview_window(LABEL).is_some(),
    }
}

#[tauri::command]
pub fn customer_display_settings<R: Runtime>(app: AppHandle<R>, display: State<'_, Display>) -> DisplaySettingsView {
    settings_view(&app, display.settings())
}

/// Saves the display's language ("" for the store's) and whether it opens at start; an
/// open display switches language at once.
#[tauri::command]
pub fn save_customer_display<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, AppState>,
    display: State<'_, Display>,
    language: String,
    open_at_start: bool,
) -> AppResult<DisplaySettingsView> {
    Operation::sell().permit(&state)?;
    let known = language.is_empty() || Locale::ALL.iter().any(|l| l.code() == language);
    if !known {
        let shown: String = language.chars().take(16).collect();
        return Err(AppError::InvalidInput(tr!(active(), "language-unknown", lang = shown)));
    }
    let s = DisplaySettings { language, open_at_start };
    display.save(s.clone())?;
    state.screen.changed();
    Ok(settings_view(&app, s))
}

/// Opens the display (or brings it forward if it is open). Async: a window is made on
/// the event loop, which a command on it must not block.
#[tauri::command]
pub async fn open_customer_display<R: Runtime>(app: AppHandle<R>) -> AppResult<()> {
    open(&app).map_err(|e| AppError::Internal(e.to_string()))
}

fn open<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    if let Some(w) = app.get_webview_window(LABEL) {
        return w.show();
    }
    let lang = match (app.try_state::<Display>(), app.try_state::<AppState>()) {
        (Some(d), Some(s)) => d.language(&s),
        _ => active(),
    };
    let (width, height) = fitted_size(app);
    WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App(PAGE.into()))
        .title(tr!(lang, "customer-window-title"))
        .inner_size(width, height)
        .min_inner_size(640.0, 400.0)
        .focused(false)
        .build()
        .map(|_| ())
}

/// The display's size: 1280x800, or the primary monitor's when that is smaller (a 1024x768
/// customer screen showed the amount to pay off its right edge). Logical pixels.
fn fitted_size<R: Runtime>(app: &AppHandle<R>) -> (f64, f64) {
    const WANTED: (f64, f64) = (1280.0, 800.0);
    match app.primary_monitor() {
        Ok(Some(m)) => {
            let s = m.size().to_logical::<f64>(m.scale_factor());
            (WANTED.0.min(s.width).max(640.0), WANTED.1.min(s.height).max(400.0))
        }
        Ok(None) | Err(_) => WANTED,
    }
}

/// At start, when the display's setting says so. A display that cannot open is said in
/// the log and the register starts without it.
pub fn open_at_start<R: Runtime>(app: &AppHandle<R>) {
    let wanted = app.try_state::<Display>().is_some_and(|d| d.settings().open_at_start);
    if wanted {
        if let Err(e) = open(app) {
            eprintln!("paydesk: the customer display did not open: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_display_file_is_read_back_and_a_broken_one_is_the_defaults() {
        let dir = std::env::temp_dir().join(format!("paydesk-customer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let d = Display::load(&dir);
        assert_eq!(d.settings(), DisplaySettings::default());
        d.save(DisplaySettings { language: "en".into(), open_at_start: true }).unwrap();
        let again = Display::load(&dir);
        assert_eq!(again.settings().chosen(), Some(Locale::En));
        assert!(again.settings().open_at_start);
        std::fs::write(dir.join(FILE), b"{not json").unwrap();
        assert_eq!(Display::load(&dir).settings(), DisplaySettings::default());
        // an unknown code in a hand-edited file follows the store
        assert_eq!(DisplaySettings { language: "fr".into(), open_at_start: false }.chosen(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
