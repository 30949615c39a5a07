//! The engines: the register engine in use (over the ledger in the data dir) with the PSP
//! it talks to, the embedded mock PSP, and the gate that keeps an engine from being
//! swapped under an operation in flight. Swapped whole when settings are applied, so every
//! operation sees one consistent engine + PSP pair.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mock_psp::{FaultConfig, MockPsp, RunningServer};
use paydesk_ledger::Ledger;
use paydesk_register::{Engine, HttpTransport, OsRandom, SystemClock};
use serde::Serialize;
use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::LEDGER_FILE;
use crate::config::FaultProfile;
use crate::settings_file::{Settings, EMBEDDED_KEY};

/// The mock PSP that ships inside the app (record 0001: its embedded default).
pub struct EmbeddedPsp {
    pub server: RunningServer,
    pub url: String,
}

impl EmbeddedPsp {
    pub fn apply_profile(&self, profile: FaultProfile) {
        let psp = self.server.psp();
        let faults = match profile {
            FaultProfile::Offline => {
                psp.set_offline(true, None);
                return;
            }
            FaultProfile::NoFaults => FaultConfig::none(),
            FaultProfile::Flaky => FaultConfig::flaky(),
            FaultProfile::Chaos => FaultConfig::chaos(),
        };
        psp.set_offline(false, None);
        psp.set_faults(faults);
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
    pub(super) psp_key: String,
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

pub struct Engines {
    data_dir: PathBuf,
    /// The engine in use; replaced (never mutated) when settings are applied.
    live: tokio::sync::watch::Sender<Arc<Live>>,
    /// The embedded mock PSP, started when first needed and kept for the app's life
    /// (payments it holds must stay resolvable).
    embedded: tokio::sync::Mutex<Option<Arc<EmbeddedPsp>>>,
    /// Every operation that may talk to the PSP holds this for reading; applying
    /// settings takes it for writing, so an engine is never swapped under a
    /// checkout, refund or background pass in flight.
    swap: RwLock<()>,
    psp_seed: Option<u64>,
}

impl Engines {
    /// The engine for `settings` (the embedded PSP started if they use it).
    pub async fn start(data_dir: &Path, psp_seed: Option<u64>, settings: &Settings) -> Result<Engines, Box<dyn std::error::Error>> {
        let embedded = tokio::sync::Mutex::new(None);
        let live = build_live(data_dir, &embedded, psp_seed, settings).await?;
        Ok(Engines {
            data_dir: data_dir.to_path_buf(),
            live: tokio::sync::watch::Sender::new(Arc::new(live)),
            embedded,
            swap: RwLock::new(()),
            psp_seed,
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

    /// Changes of the engine in use (the notification forwarder re-subscribes).
    pub fn watch(&self) -> tokio::sync::watch::Receiver<Arc<Live>> {
        self.live.subscribe()
    }

    /// Held while an operation talks to the PSP: no engine swap meanwhile.
    pub async fn no_swap(&self) -> RwLockReadGuard<'_, ()> {
        self.swap.read().await
    }

    /// The right to swap engines: at once, or within `wait` (zero: don't wait).
    pub async fn swap_lock(&self, wait: Duration) -> Option<RwLockWriteGuard<'_, ()>> {
        match self.swap.try_write() {
            Ok(g) => Some(g),
            Err(_) if wait.is_zero() => None,
            Err(_) => tokio::time::timeout(wait, self.swap.write()).await.ok(),
        }
    }

    /// A new engine for `settings` (not yet in use).
    pub async fn build(&self, settings: &Settings) -> Result<Live, Box<dyn std::error::Error>> {
        build_live(&self.data_dir, &self.embedded, self.psp_seed, settings).await
    }

    /// Puts `live` in use (the caller holds [`Engines::swap_lock`]).
    pub fn replace(&self, live: Live) {
        self.live.send_replace(Arc::new(live));
    }
}

/// Written to `<data dir>/embedded-psp.json` so tools (and the end-to-end tests) can
/// reach the embedded PSP's API and `/__admin` endpoints.
#[derive(Serialize)]
struct EmbeddedInfo<'a> {
    url: &'a str,
    secret_key: &'a str,
    pid: u32,
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
        e.apply_profile(settings.fault_profile);
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
