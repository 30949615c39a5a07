//! What the app holds while it runs: the register engine (over the ledger in the
//! data dir), the embedded mock PSP, the cart on screen and the checkout on screen.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mock_psp::{FaultConfig, MockPsp, RunningServer};
use paydesk_ledger::{Cart, CartId, Ledger, SaleState};
use paydesk_domain::Currency;
use paydesk_register::{Engine, HttpTransport, OsRandom, SystemClock};
use serde::Serialize;

use crate::config::Options;
use crate::error::{AppError, AppResult};
use crate::store::cart::CartView;
use crate::secrets::SecretStore;
use crate::settings::{PspInUse, Settings, EMBEDDED_KEY};

/// The mock PSP that ships inside the app (design §2: its embedded default).
pub struct EmbeddedPsp {
    pub server: RunningServer,
    pub url: String,
}

impl EmbeddedPsp {
    pub fn apply_profile(&self, profile: &str) {
        let psp = self.server.psp();
        if profile == "offline" {
            psp.set_offline(true, None);
        } else {
            psp.set_offline(false, None);
            psp.set_faults(FaultConfig::preset(profile).unwrap_or_else(FaultConfig::none));
        }
    }
}

/// What a change of settings rebuilds: the engine (its transport to the PSP and its
/// config), built from `settings`. Swapped whole, so every operation sees one
/// consistent engine + PSP pair.
pub struct Live {
    pub engine: Engine,
    /// The PSP this engine talks to (embedded or external).
    pub psp_url: String,
    /// The secret key it uses (never shown; compared to know whether the PSP changed).
    psp_key: String,
    pub embedded: bool,
    /// The settings this engine was built from.
    pub settings: Settings,
}

impl Live {
    /// Test mode (issue #27): the embedded mock PSP, or a key for the PSP's test mode.
    /// Only then does the register offer the simulated customer and keyed test cards.
    pub fn test_mode(&self) -> bool {
        self.embedded || self.psp_key.starts_with("sk_test_")
    }
}

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
    /// The engine in use; replaced (never mutated) when settings are applied.
    live: tokio::sync::watch::Sender<Arc<Live>>,
    /// The embedded mock PSP, started when first needed and kept for the app's life
    /// (payments it holds must stay resolvable).
    embedded: tokio::sync::Mutex<Option<Arc<EmbeddedPsp>>>,
    /// The settings as saved (may be ahead of `live` while a change waits).
    pub settings: Mutex<Settings>,
    /// Where the PSP key is kept: the OS keychain, or the 0600 file (design §12.6).
    pub secrets: SecretStore,
    /// Why saved settings are not in use yet (shown in the status bar).
    pub waiting: Mutex<Option<String>>,
    /// Every operation that may talk to the PSP holds this for reading; applying
    /// settings takes it for writing, so an engine is never swapped under a
    /// checkout, refund or background pass in flight.
    pub gate: tokio::sync::RwLock<()>,
    /// The cart on screen.
    pub cart: Mutex<CartId>,
    /// The checkout key on screen (receipt, decline, unknown outcome).
    pub checkout: Mutex<Option<String>>,
    /// Serializes Charge presses: a second press waits and gets the same checkout.
    pub charge_lock: tokio::sync::Mutex<()>,
    /// Reachability as last observed (engine notifications and the background poll).
    pub online: Mutex<Option<bool>>,
    /// The PSP answers but refuses this register (wrong key, wrong URL, not a PSP):
    /// reachable, yet nothing can be charged there until Settings are fixed.
    pub psp_refusing: Mutex<Option<String>>,
    pub last_sync_ms: Mutex<Option<i64>>,
    /// The discounts above the cashier's limit a manager approved for the sale on screen.
    pub discount_approved: Mutex<crate::sale::discount::Approved>,
    psp_seed: Option<u64>,
    /// Wrong-PIN locks kept on a monotonic clock too (staff/locks.rs, design §12.3).
    pub pin_locks: crate::staff::locks::Locks,
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

/// Written to `<data dir>/embedded-psp.json` so tools (and the end-to-end tests) can
/// reach the embedded PSP's API and `/__admin` endpoints.
#[derive(Serialize)]
struct EmbeddedInfo<'a> {
    url: &'a str,
    secret_key: &'a str,
    pid: u32,
}

/// The ledger's file in the data dir (design §10.2: what a backup must include).
pub const LEDGER_FILE: &str = "ledger.db";

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

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

pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}


impl AppState {
    /// Opens the ledger, seeds the demo catalog, starts the embedded PSP (unless an
    /// external one is configured) and builds the engine. Needs a Tokio runtime.
    pub async fn start(data_dir: PathBuf, opts: &Options) -> Result<AppState, Box<dyn std::error::Error>> {
        std::fs::create_dir_all(&data_dir)?;
        // The ledger, the PSP key file, the pairing token: this user's alone (design §10.2).
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
        // A new data folder gets a demo store (design §11.16); a store with any item,
        // even an older one, is never reseeded.
        if ledger.catalog()?.is_empty() {
            ledger.seed_demo_store(opts.demo_locale(), None, now_ms())?;
            // Its staff in the same start-up step (design §12.9); a store made another
            // way (the CLI, an older version) gets the first-start screen instead.
            ledger.seed_demo_staff(opts.demo_locale(), now_ms())?;
        }
        // A fresh start shows the sign-in screen: a register stopped or killed with
        // someone signed in must not let the next person act as them (design §12.9).
        ledger.sign_out(now_ms())?;
        let store = ledger.store_settings()?;
        let (currency, lang) = (store.currency, store.locale.code());
        crate::i18n::set_active(crate::i18n::initial(&settings.language, Some(store.locale), |k| std::env::var(k).ok()));
        // A sale part-paid when the register stopped (cash in the drawer, the customer at
        // the counter) comes back on screen, to be paid or canceled (design §8.11).
        let cart = match ledger.newest_cart()? {
            Some(c) if resumes_on_screen(ledger.sale(c)?.state) => c,
            Some(_) | None => ledger.create_cart(currency, now_ms())?,
        };

        drop(ledger); // the engine opens its own connection
        if !start_with.embedded() {
            let _ = std::fs::remove_file(data_dir.join("embedded-psp.json"));
        }
        let embedded = tokio::sync::Mutex::new(None);
        let live = build_live(&data_dir, &embedded, opts.psp_seed, &start_with).await?;
        if in_use.as_ref() != Some(&PspInUse::of(&start_with)) {
            PspInUse::of(&start_with).save(&data_dir, &secrets)?;
        }
        Ok(AppState {
            data_dir,
            currency,
            lang,
            barcodes: Mutex::new(HashMap::new()),
            live: tokio::sync::watch::Sender::new(Arc::new(live)),
            embedded,
            settings: Mutex::new(settings),
            secrets,
            waiting: Mutex::new(None),
            gate: tokio::sync::RwLock::new(()),
            cart: Mutex::new(cart),
            checkout: Mutex::new(None),
            charge_lock: tokio::sync::Mutex::new(()),
            online: Mutex::new(None),
            psp_refusing: Mutex::new(None),
            last_sync_ms: Mutex::new(None),
            discount_approved: Mutex::new(Default::default()),
            psp_seed: opts.psp_seed,
            pin_locks: Default::default(),
        })
    }

    /// The embedded PSP if it is running.
    pub fn embedded(&self) -> Option<Arc<EmbeddedPsp>> {
        self.embedded.try_lock().ok().and_then(|g| g.clone())
    }

    /// The engine and PSP in use.
    pub fn live(&self) -> Arc<Live> {
        self.live.borrow().clone()
    }

    /// The engine in use (cheap clone).
    pub fn engine(&self) -> Engine {
        self.live.borrow().engine.clone()
    }

    /// Changes of the engine in use (the notification forwarder re-subscribes).
    pub fn watch_live(&self) -> tokio::sync::watch::Receiver<Arc<Live>> {
        self.live.subscribe()
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
            *lock(&self.waiting) = None;
            return Applied::Unchanged;
        }
        let outcome = self.try_apply(&wanted, &current, wait).await;
        *lock(&self.waiting) = match &outcome {
            Applied::Waiting(r) => Some(r.clone()),
            _ => None,
        };
        outcome
    }

    async fn try_apply(&self, wanted: &Settings, current: &Live, wait: Duration) -> Applied {
        let gate = match self.gate.try_write() {
            Ok(g) => Some(g),
            Err(_) if wait.is_zero() => None,
            Err(_) => tokio::time::timeout(wait, self.gate.write()).await.ok(),
        };
        let Some(_gate) = gate else {
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
        match build_live(&self.data_dir, &self.embedded, self.psp_seed, wanted).await {
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
                *lock(&self.waiting) = None;
                self.live.send_replace(Arc::new(live));
                if psp_changes {
                    *lock(&self.online) = None;
                    *lock(&self.psp_refusing) = None;
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
        *lock(&self.cart)
    }

    /// A fresh empty cart for the next customer.
    pub fn new_cart(&self) -> AppResult<CartId> {
        let id = self.engine().carts().create(self.currency)?;
        *lock(&self.cart) = id;
        *lock(&self.checkout) = None;
        Ok(id)
    }

    pub fn set_online(&self, online: bool) -> bool {
        let mut o = lock(&self.online);
        if online {
            *lock(&self.last_sync_ms) = Some(now_ms());
        }
        let changed = *o != Some(online);
        *o = Some(online);
        changed
    }

    /// Records whether the PSP refuses this register; true when that changed.
    pub fn set_psp_refusing(&self, why: Option<String>) -> bool {
        let mut r = lock(&self.psp_refusing);
        let changed = *r != why;
        *r = why;
        changed
    }

    pub fn status(&self) -> AppResult<StatusView> {
        let live = self.live();
        let st = live.engine.status()?;
        let settings = lock(&self.settings).clone();
        let last_sync = match (st.last_sync_ms, *lock(&self.last_sync_ms)) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Ok(StatusView {
            psp_online: lock(&self.online).or(st.psp_online),
            psp_refusing: lock(&self.psp_refusing).clone(),
            psp_url: live.psp_url.clone(),
            psp_embedded: live.embedded,
            fault_profile: settings.fault_profile,
            pending_forward: st.queued_offline,
            in_flight: st.in_flight,
            last_sync,
            data_dir: self.data_dir.display().to_string(),
            settings_waiting: lock(&self.waiting).clone(),
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
            // Checked against the ledger on every hit: the back office's sync (§9.16) and
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

    /// A cart as the screen shows it, item names in the store's language.
    pub fn view_of(&self, cart: &Cart) -> AppResult<CartView> {
        if self.lang == "en" {
            return Ok(CartView::of(cart, &|_| None));
        }
        let items = self.engine().catalog().items(cart.lines.iter().map(|line| line.sku.as_str()))?;
        let names: HashMap<String, Option<String>> =
            items.into_iter().map(|(sku, item)| (sku, item.map(|i| i.name_in(self.lang).to_string()))).collect();
        Ok(CartView::of(cart, &|sku| names.get(sku).cloned().flatten()))
    }

    /// The cart on screen.
    pub fn cart_view(&self) -> AppResult<CartView> {
        let id = self.cart_id();
        let cart = self.engine().carts().cart(id)?;
        self.view_of(&cart)
    }
}

/// The embedded PSP, started on first use (then kept in `slot`).
async fn embedded_psp(
    data_dir: &Path,
    slot: &tokio::sync::Mutex<Option<Arc<EmbeddedPsp>>>,
    psp_seed: Option<u64>,
    settings: &Settings,
) -> Result<Arc<EmbeddedPsp>, Box<dyn std::error::Error>> {
    let mut slot = slot.lock().await;
    if let Some(e) = slot.as_ref() {
        return Ok(e.clone());
    }
    let mut b = MockPsp::builder()
        .db(data_dir.join("mock-psp.db"))
        .secret_key(EMBEDDED_KEY)
        .retention(Duration::from_secs(u64::from(settings.retention_hours) * 3600))
        .admin(true);
    if let Some(seed) = psp_seed {
        b = b.seed(seed);
    }
    let server = b.build()?.serve(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let url = server.url();
    let e = Arc::new(EmbeddedPsp { server, url: url.clone() });
    let info = EmbeddedInfo { url: &url, secret_key: EMBEDDED_KEY, pid: std::process::id() };
    std::fs::write(data_dir.join("embedded-psp.json"), serde_json::to_vec_pretty(&info)?)?;
    *slot = Some(e.clone());
    Ok(e)
}

/// A new engine over a new connection to the same ledger file, for `settings`.
async fn build_live(
    data_dir: &Path,
    slot: &tokio::sync::Mutex<Option<Arc<EmbeddedPsp>>>,
    psp_seed: Option<u64>,
    settings: &Settings,
) -> Result<Live, Box<dyn std::error::Error>> {
    let mut cfg = settings.engine_config();
    // A reader call answers the cashier within a couple of seconds ("present the card"),
    // and the page checks the status from then on: a screen never hangs on a reader.
    cfg.reader = paydesk_register::ReaderConfig {
        poll_interval: Duration::from_millis(250),
        wait: Duration::from_secs(2),
        ..paydesk_register::ReaderConfig::default()
    };
    let (url, key, embedded) = if settings.embedded() {
        let e = embedded_psp(data_dir, slot, psp_seed, settings).await?;
        e.apply_profile(&settings.fault_profile);
        // The embedded PSP keeps the retention it started with: the register must
        // never believe a key is remembered longer than the PSP remembers it.
        cfg.window.retention = cfg.window.retention.min(e.server.psp().retention());
        (e.url.clone(), EMBEDDED_KEY.to_string(), true)
    } else {
        (settings.psp_url.clone(), settings.psp_key.clone(), false)
    };
    // Never store a payment offline longer than its key may still be sent (a settings
    // file from before this rule may allow 24 h with a 23 h window).
    cfg.offline.max_age = cfg.offline.max_age.min(cfg.window.safe_age());
    let transport = HttpTransport::new(&url, &key, Duration::from_secs(2)).map_err(|e| format!("PSP connection: {e}"))?;
    let ledger = Ledger::open(data_dir.join(LEDGER_FILE))?;
    let engine = Engine::new(ledger, Arc::new(transport), Arc::new(SystemClock::new()), Arc::new(OsRandom), cfg);
    Ok(Live { engine, psp_url: url, psp_key: key, embedded, settings: settings.clone() })
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::Internal(crate::i18n::tr!(crate::i18n::active(), "internal-files", error = e.to_string()))
    }
}
