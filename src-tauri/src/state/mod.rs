//! What the app holds while it runs, by concern: the engines (`engines.rs`: the register
//! engine over the ledger in the data dir, the embedded mock PSP, the swap gate), the sale
//! on screen (`screen.rs`), what the status bar says (`connectivity.rs`), the data folder
//! with the saved settings and their secret (`stored.rs`), putting saved settings in use
//! (`apply.rs`), the scanner's in-store label rules and its way to the ledger
//! (`barcodes.rs`); here, starting all of it.

mod apply;
mod barcodes;
mod connectivity;
mod engines;
pub mod screen;
mod stored;

pub use apply::Applied;
pub use barcodes::{Barcodes, Ring};
pub use connectivity::Connectivity;
pub use engines::{EmbeddedPsp, Engines, Live};
pub use stored::Stored;

use std::path::PathBuf;
use std::sync::Arc;

use paydesk_ledger::{CartId, Ledger, SaleState};
use paydesk_domain::{Currency, Locale};
use paydesk_register::Engine;
use serde::Serialize;

use crate::base::now_ms;
use crate::config::Options;
use crate::error::{AppError, AppResult};
use crate::secrets::SecretStore;
use crate::settings_file::{PspInUse, Settings};

pub struct AppState {
    /// The data folder, the settings as saved (may be ahead of the engine in use while a
    /// change waits) and where the PSP key is kept.
    pub stored: Stored,
    /// The store's currency (its settings in the ledger; fixed while the app runs).
    pub currency: Currency,
    /// The language of item names on screen: the store's locale.
    pub locale: Locale,
    /// Barcode → SKU of the active items.
    pub barcodes: Barcodes,
    /// The engine in use, the embedded PSP, and the gate that keeps a swap of engines
    /// from happening under an operation in flight.
    pub engines: Engines,
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
    pub fault_profile: &'static str,
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
        let mut settings = Settings::load(&data_dir, opts, &secrets).map_err(|e| format!("the settings cannot be used: {e}"))?;
        // The PSP the last run sent payments to goes on being used until every payment
        // there is settled (apply_settings switches then), even if the saved settings,
        // a flag or an environment variable now name another one.
        let in_use = PspInUse::load(&data_dir, &secrets)?;
        let mut start_with = match &in_use {
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
        let (currency, locale) = (store.currency, store.locale);
        // Offline caps in a file from before they had a currency are in this store's.
        settings.adopt_offline_currency(currency);
        start_with.adopt_offline_currency(currency);
        crate::i18n::set_active(crate::i18n::initial(settings.language, Some(store.locale), |k| std::env::var(k).ok()));
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
            stored: Stored::new(data_dir, settings, secrets),
            currency,
            locale,
            barcodes: Barcodes::default(),
            engines,
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
        let settings = self.stored.settings();
        let last_sync = match (st.last_sync_ms, self.connectivity.last_sync_ms()) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Ok(StatusView {
            psp_online: self.connectivity.online().or(st.psp_online),
            psp_refusing: self.connectivity.refusing(),
            psp_url: live.psp_url.clone(),
            psp_embedded: live.embedded,
            fault_profile: settings.fault_profile.as_str(),
            pending_forward: st.queued_offline,
            in_flight: st.in_flight,
            last_sync,
            data_dir: self.stored.data_dir.display().to_string(),
            settings_waiting: self.connectivity.waiting(),
        })
    }

}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::Internal(crate::i18n::tr!(crate::i18n::active(), "internal-files", error = e.to_string()))
    }
}
