//! What the app holds while it runs, by concern: the engines (`engines.rs`: the register
//! engine over the ledger in the data dir, the embedded mock PSP, the swap gate), the sale
//! on screen (`screen.rs`), what the status bar says (`connectivity.rs`), and here the
//! settings with their secrets and applying them.

mod connectivity;
mod engines;
pub mod screen;

pub use connectivity::Connectivity;
pub use engines::{EmbeddedPsp, Engines, Live};

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use paydesk_ledger::{CartId, Ledger, SaleState};
use paydesk_domain::Currency;
use paydesk_register::Engine;
use serde::Serialize;

use crate::base::{lock, now_ms};
use crate::config::Options;
use crate::error::{AppError, AppResult};
use crate::secrets::SecretStore;
use crate::settings_file::{PspInUse, Settings, EMBEDDED_KEY};

/// What saving settings did (shown to the cashier).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "reason", rename_all = "snake_case")]
pub enum Applied {
    /// Nothing the engine uses changed.
    Unchanged,
    /// The engine was rebuilt with the new settings.
    Now,
    /// Saved, not yet in use; the reason says what it waits for.
    Waiting(String),
}

pub struct AppState {
    pub data_dir: PathBuf,
    /// The store's currency (its settings in the ledger; fixed while the app runs).
    pub currency: Currency,
    /// The language of item names on screen: the store's locale ("en" or "ja").
    pub lang: &'static str,
    /// Barcode → SKU of the active items (see [`AppState::sku_for`]).
    barcodes: Mutex<HashMap<String, String>>,
    /// The engine in use, the embedded PSP, and the gate that keeps a swap of engines
    /// from happening under an operation in flight.
    pub engines: Engines,
    /// The settings as saved (may be ahead of `live` while a change waits).
    pub settings: Mutex<Settings>,
    /// Where the PSP key is kept: the OS keychain, or the 0600 file (record 0065).
    pub secrets: SecretStore,
    /// Whether the PSP answers, and whether saved settings wait (the status bar).
    pub connectivity: Connectivity,
    /// The sale on screen: its cart, its checkout, the charge lock, approved discounts.
    pub screen: screen::Screen,
    /// Wrong-PIN locks kept on a monotonic clock too (staff/locks.rs, record 0063).
    pub pin_locks: crate::pin_locks::Locks,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusView {
    pub psp_online: Option<bool>,
    /// Why the PSP refuses this register, when it does (then `psp_online` is true: it
    /// answered). The status bar says so instead of "online" or "offline".
    pub psp_refusing: Option<String>,
    pub psp_url: String,
    pub psp_embedded: bool,
    pub fault_profile: String,
    pub pending_forward: u32,
    pub in_flight: u32,
    pub last_sync: Option<i64>,
    pub data_dir: String,
    /// Saved settings not in use yet, and why.
    pub settings_waiting: Option<String>,
}

/// The ledger's file in the data dir (record 0054: what a backup must include).
pub const LEDGER_FILE: &str = "ledger.db";

/// Whether a sale the register had on screen when it stopped is shown again at start:
/// only one the customer is still paying for. A paid or canceled one is done; an unpaid
/// balance (an offline card declined later) left with its customer and is listed by End
/// of day; a cart with nothing tendered is simply a new cart.
fn resumes_on_screen(s: SaleState) -> bool {
    match s {
        SaleState::PartiallyPaid => true,
        SaleState::Open | SaleState::Paid | SaleState::UnpaidBalance | SaleState::Canceling | SaleState::Canceled => false,
    }
}


impl AppState {
    /// Opens the ledger, seeds the demo catalog, starts the embedded PSP (unless an
    /// external one is configured) and builds the engine. Needs a Tokio runtime.
    pub async fn start(data_dir: PathBuf, opts: &Options) -> Result<AppState, Box<dyn std::error::Error>> {
        std::fs::create_dir_all(&data_dir)?;
        // The ledger, the PSP key file, the pairing token: this user's alone (record 0054).
        std::fs::set_permissions(&data_dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .map_err(|e| format!("the data folder {} cannot be made private to this user: {e}", data_dir.display()))?;
        let secrets = SecretStore::open(&data_dir);
        let settings = Settings::load(&data_dir, opts, &secrets).map_err(|e| format!("the settings cannot be used: {e}"))?;
        // The PSP the last run sent payments to goes on being used until every payment
        // there is settled (apply_settings switches then), even if the saved settings,
        // a flag or an environment variable now name another one.
        let in_use = PspInUse::load(&data_dir, &secrets)?;
        let start_with = match &in_use {
            Some(u) if *u != PspInUse::of(&settings) => u.applied_to(&settings),
            _ => settings.clone(),
        };
        let mut ledger = Ledger::open(data_dir.join(LEDGER_FILE))?;
        // A new data folder gets a demo store (record 0061); a store with any item,
        // even an older one, is never reseeded.
        if ledger.catalog().items()?.is_empty() {
            ledger.catalog_mut().seed_demo_store(opts.demo_locale(), None, now_ms())?;
            // Its staff in the same start-up step (record 0068); a store made another
            // way (the CLI, an older version) gets the first-start screen instead.
            ledger.catalog_mut().seed_demo_staff(opts.demo_locale(), now_ms())?;
        }
        // A fresh start shows the sign-in screen: a register stopped or killed with
        // someone signed in must not let the next person act as them (record 0068).
        ledger.roster_mut().sign_out(now_ms())?;
        let store = ledger.catalog().store_settings()?;
        let (currency, lang) = (store.currency, store.locale.code());
        crate::i18n::set_active(crate::i18n::initial(&settings.language, Some(store.locale), |k| std::env::var(k).ok()));
        // A sale part-paid when the register stopped (cash in the drawer, the customer at
        // the counter) comes back on screen, to be paid or canceled (record 0035).
        let cart = match ledger.carts().newest()? {
            Some(c) if resumes_on_screen(ledger.sales().by_cart(c)?.state) => c,
            Some(_) | None => ledger.carts_mut().create(currency, now_ms())?,
        };

        drop(ledger); // the engine opens its own connection
        if !start_with.embedded() {
            let _ = std::fs::remove_file(data_dir.join("embedded-psp.json"));
        }
        let engines = Engines::start(&data_dir, opts.psp_seed, &start_with).await?;
        if in_use.as_ref() != Some(&PspInUse::of(&start_with)) {
            PspInUse::of(&start_with).save(&data_dir, &secrets)?;
        }
        Ok(AppState {
            data_dir,
            currency,
            lang,
            barcodes: Mutex::new(HashMap::new()),
            engines,
            settings: Mutex::new(settings),
            secrets,
            connectivity: Connectivity::default(),
            screen: screen::Screen::new(cart),
            pin_locks: Default::default(),
        })
    }

    /// The embedded PSP if it is running.
    pub fn embedded(&self) -> Option<Arc<EmbeddedPsp>> {
        self.engines.embedded()
    }

    /// The engine and PSP in use.
    pub fn live(&self) -> Arc<Live> {
        self.engines.live()
    }

    /// The engine in use (cheap clone).
    pub fn engine(&self) -> Engine {
        self.engines.live().engine.clone()
    }

    /// Changes of the engine in use (the notification forwarder re-subscribes).
    pub fn watch_live(&self) -> tokio::sync::watch::Receiver<Arc<Live>> {
        self.engines.watch()
    }

    /// Puts the saved settings in use when it is safe; otherwise says what it waits for
    /// (the background pass calls this again every few seconds).
    ///
    /// Safe means: no checkout, refund or background pass is in flight (the gate), and,
    /// when the PSP itself changes (URL or key: another merchant account), no payment or
    /// refund whose outcome is unknown at the old PSP and no offline payment that may
    /// have reached it — those keys must be settled where they were sent, or sending
    /// them to the new PSP could charge the customer a second time.
    /// `wait`: how long to wait for operations in flight to finish (zero: don't).
    pub async fn apply_settings(&self, wait: Duration) -> Applied {
        let wanted = lock(&self.settings).clone();
        let current = self.live();
        let engine_settings =
            |s: &Settings| Settings { fault_profile: String::new(), language: String::new(), idle_lock_s: 0, ..s.clone() };
        if engine_settings(&wanted) == engine_settings(&current.settings) {
            self.connectivity.set_waiting(None);
            return Applied::Unchanged;
        }
        let outcome = self.try_apply(&wanted, &current, wait).await;
        self.connectivity.set_waiting(match &outcome {
            Applied::Waiting(r) => Some(r.clone()),
            _ => None,
        });
        outcome
    }

    async fn try_apply(&self, wanted: &Settings, current: &Live, wait: Duration) -> Applied {
        let Some(_swap) = self.engines.swap_lock(wait).await else {
            return Applied::Waiting(
                "the register is talking to the processor right now; the new settings apply as soon as that finishes".into(),
            );
        };
        let (new_url, new_key) = if wanted.embedded() {
            (self.embedded().map(|e| e.url.clone()), EMBEDDED_KEY.to_string())
        } else {
            (Some(wanted.psp_url.clone()), wanted.psp_key.clone())
        };
        let psp_changes = new_url.as_deref() != Some(current.psp_url.as_str()) || new_key != current.psp_key;
        if psp_changes {
            match self.unsettled_at_psp(&current.engine) {
                Ok(0) => {}
                Ok(n) => {
                    return Applied::Waiting(format!(
                        "{n} payment{} sent to the current processor {} not settled yet; the new processor is used once {} settled there (never sent twice)",
                        if n == 1 { "" } else { "s" },
                        if n == 1 { "is" } else { "are" },
                        if n == 1 { "it is" } else { "they are" },
                    ))
                }
                Err(e) => return Applied::Waiting(format!("could not check the open payments ({e})")),
            }
        }
        match self.engines.build(wanted).await {
            Ok(live) => {
                // Recorded before the first request can go to the new PSP: after a crash
                // from here on, the restart goes on with the new one, which is right.
                if psp_changes {
                    if let Err(e) = PspInUse::of(wanted).save(&self.data_dir, &self.secrets) {
                        return Applied::Waiting(format!("could not record the processor in use ({e})"));
                    }
                }
                // What the status bar says waits is over the moment the new settings are
                // live: cleared first, so no status shows the new PSP in use and "waiting"
                // together (apply_settings clears it again after; harmless).
                self.connectivity.set_waiting(None);
                self.engines.replace(live);
                if psp_changes {
                    self.connectivity.forget();
                }
                Applied::Now
            }
            Err(e) => Applied::Waiting(format!("the new settings could not be used: {e}")),
        }
    }

    /// Payments and refunds the current PSP may have received without the register
    /// knowing the outcome: unknown outcomes, and offline payments with an attempt
    /// that possibly reached it.
    fn unsettled_at_psp(&self, engine: &Engine) -> Result<usize, paydesk_ledger::Error> {
        engine.payments().unsettled_at_psp()
    }

    pub fn cart_id(&self) -> CartId {
        self.screen.cart_id()
    }

    /// A fresh empty cart for the next customer.
    pub fn new_cart(&self) -> AppResult<CartId> {
        let id = self.engine().carts().create(self.currency)?;
        self.screen.show_cart(id);
        Ok(id)
    }

    pub fn status(&self) -> AppResult<StatusView> {
        let live = self.live();
        let st = live.engine.status()?;
        let settings = lock(&self.settings).clone();
        let last_sync = match (st.last_sync_ms, self.connectivity.last_sync_ms()) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Ok(StatusView {
            psp_online: self.connectivity.online().or(st.psp_online),
            psp_refusing: self.connectivity.refusing(),
            psp_url: live.psp_url.clone(),
            psp_embedded: live.embedded,
            fault_profile: settings.fault_profile,
            pending_forward: st.queued_offline,
            in_flight: st.in_flight,
            last_sync,
            data_dir: self.data_dir.display().to_string(),
            settings_waiting: self.connectivity.waiting(),
        })
    }

    /// The SKU of the active item with this SKU (any letter case) or barcode. SKUs are
    /// looked up directly; barcodes through a table kept here, read again from the
    /// ledger on a miss or a stale hit (the catalog screen, the CLI or the back office's
    /// sync may have changed the item).
    pub fn sku_for(&self, code: &str) -> AppResult<Option<String>> {
        let engine = self.engine();
        for sku in [code.to_string(), code.to_ascii_uppercase()] {
            if let Some(i) = engine.catalog().item(&sku)? {
                return Ok(i.active.then_some(i.sku));
            }
        }
        let cached = lock(&self.barcodes).get(code).cloned();
        if let Some(sku) = cached {
            // Checked against the ledger on every hit: the back office's sync (record 0049) and
            // the CLI change the catalog without telling this table, and a barcode that
            // moved to another SKU must never ring up the old one.
            let item = engine.catalog().item(&sku)?;
            if item.as_ref().is_some_and(|i| i.active && i.barcode.as_deref() == Some(code)) {
                return Ok(Some(sku));
            }
        }
        let items = engine.catalog().list()?;
        let table: HashMap<String, String> = items
            .into_iter()
            .filter(|i| i.active)
            .filter_map(|i| i.barcode.map(|b| (b, i.sku)))
            .collect();
        let found = table.get(code).cloned();
        *lock(&self.barcodes) = table;
        Ok(found)
    }

    /// Forgets the barcode table (after the catalog changed here).
    pub fn catalog_changed(&self) {
        lock(&self.barcodes).clear();
    }

}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::Internal(crate::i18n::tr!(crate::i18n::active(), "internal-files", error = e.to_string()))
    }
}
