//! What the app holds while it runs: the register engine (over the ledger in the
//! data dir), the embedded mock PSP, the cart on screen and the checkout on screen.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mock_psp::{FaultConfig, MockPsp, RunningServer};
use paydesk_ledger::{CartId, Currency, Ledger, Money, NewProduct};
use paydesk_register::{Engine, HttpTransport, OsRandom, SystemClock};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::config::Options;
use crate::error::{AppError, AppResult};
use crate::settings::{Settings, EMBEDDED_KEY};

/// The mock PSP that ships inside the app (SPEC: its embedded default).
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

pub struct AppState {
    pub data_dir: PathBuf,
    pub currency: Currency,
    pub catalog: Catalog,
    pub engine: Engine,
    pub psp: Option<EmbeddedPsp>,
    /// The PSP the engine talks to (embedded or external).
    pub psp_url: String,
    pub settings: Mutex<Settings>,
    /// The cart on screen.
    pub cart: Mutex<CartId>,
    /// The checkout key on screen (receipt, decline, unknown outcome).
    pub checkout: Mutex<Option<String>>,
    /// Serializes Charge presses: a second press waits and gets the same checkout.
    pub charge_lock: tokio::sync::Mutex<()>,
    /// Reachability as last observed (engine notifications and the background poll).
    pub online: Mutex<Option<bool>>,
    pub last_sync_ms: Mutex<Option<i64>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusView {
    pub psp_online: Option<bool>,
    pub psp_url: String,
    pub psp_embedded: bool,
    pub fault_profile: String,
    pub pending_forward: u32,
    pub in_flight: u32,
    pub last_sync: Option<i64>,
    pub data_dir: String,
}

/// Written to `<data dir>/embedded-psp.json` so tools (and the end-to-end tests) can
/// reach the embedded PSP's API and `/__admin` endpoints.
#[derive(Serialize)]
struct EmbeddedInfo<'a> {
    url: &'a str,
    secret_key: &'a str,
    pid: u32,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl AppState {
    /// Opens the ledger, seeds the demo catalog, starts the embedded PSP (unless an
    /// external one is configured) and builds the engine. Needs a Tokio runtime.
    pub async fn start(data_dir: PathBuf, opts: &Options) -> Result<AppState, Box<dyn std::error::Error>> {
        std::fs::create_dir_all(&data_dir)?;
        let settings = Settings::load(&data_dir, opts);
        let catalog = Catalog::demo();
        let currency = Currency::Usd;

        let mut ledger = Ledger::open(data_dir.join("ledger.db"))?;
        let products: Vec<NewProduct> = catalog
            .items
            .iter()
            .map(|i| NewProduct { sku: i.sku.clone(), name: i.name.clone(), price: Money::new(i.price, currency) })
            .collect();
        ledger.seed_catalog(&products)?;
        let cart = ledger.create_cart(currency, now_ms())?;

        let (psp, psp_url, psp_key) = if settings.embedded() {
            let mut b = MockPsp::builder()
                .db(data_dir.join("mock-psp.db"))
                .secret_key(EMBEDDED_KEY)
                .retention(Duration::from_secs(u64::from(settings.retention_hours) * 3600))
                .admin(true);
            if let Some(seed) = opts.psp_seed {
                b = b.seed(seed);
            }
            let server = b.build()?.serve(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
            let url = server.url();
            let e = EmbeddedPsp { server, url: url.clone() };
            e.apply_profile(&settings.fault_profile);
            let info = EmbeddedInfo { url: &url, secret_key: EMBEDDED_KEY, pid: std::process::id() };
            std::fs::write(data_dir.join("embedded-psp.json"), serde_json::to_vec_pretty(&info)?)?;
            (Some(e), url, EMBEDDED_KEY.to_string())
        } else {
            let _ = std::fs::remove_file(data_dir.join("embedded-psp.json"));
            (None, settings.psp_url.clone(), settings.psp_key.clone())
        };

        let transport = HttpTransport::new(&psp_url, &psp_key, Duration::from_secs(2))
            .map_err(|e| format!("PSP connection: {e}"))?;
        let engine = Engine::new(
            ledger,
            Arc::new(transport),
            Arc::new(SystemClock::new()),
            Arc::new(OsRandom),
            settings.engine_config(),
        );

        Ok(AppState {
            data_dir,
            currency,
            catalog,
            engine,
            psp,
            psp_url,
            settings: Mutex::new(settings),
            cart: Mutex::new(cart),
            checkout: Mutex::new(None),
            charge_lock: tokio::sync::Mutex::new(()),
            online: Mutex::new(None),
            last_sync_ms: Mutex::new(None),
        })
    }

    pub fn cart_id(&self) -> CartId {
        *lock(&self.cart)
    }

    /// A fresh empty cart for the next customer.
    pub fn new_cart(&self) -> AppResult<CartId> {
        let id = self.engine.with_ledger(|l| l.create_cart(self.currency, now_ms()))?;
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

    pub fn status(&self) -> AppResult<StatusView> {
        let st = self.engine.status()?;
        let settings = lock(&self.settings).clone();
        let last_sync = match (st.last_sync_ms, *lock(&self.last_sync_ms)) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Ok(StatusView {
            psp_online: lock(&self.online).or(st.psp_online),
            psp_url: self.psp_url.clone(),
            psp_embedded: self.psp.is_some(),
            fault_profile: settings.fault_profile,
            pending_forward: st.queued_offline,
            in_flight: st.in_flight,
            last_sync,
            data_dir: self.data_dir.display().to_string(),
        })
    }

    /// The barcode → SKU table of the catalog.
    pub fn sku_for(&self, code: &str) -> Option<String> {
        self.catalog.lookup(code).map(|i| i.sku.clone())
    }
}


impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::Internal(format!("The register could not write its files: {e}"))
    }
}
