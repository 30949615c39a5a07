//! Harness for PayDesk's end-to-end tests of the real app window.
//!
//! Each [`App`] gets its own virtual display (`Xvfb -displayfd`), its own
//! `tauri-driver` (free `--port` and `--native-port`), its own data and XDG dirs, so
//! tests run in parallel. Helpers run in their own process groups and are stopped with
//! SIGTERM (SIGKILL on tauri-driver would orphan WebKitWebDriver and the app).
//! Waits are on conditions with generous timeouts, never fixed sleeps.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use process::{descendants, processes, pss_kb, wait_listening, Group};
pub use thirtyfour;

mod announce;
mod process;
pub mod package;
mod reader;
mod tender;
pub mod staff;
pub use staff::StaffStart;
use thirtyfour::prelude::*;

/// The root of the repository (this package's manifest dir).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The app binary built by cargo: `PAYDESK_APP_BIN`, or `cargo build -p paydesk` into
/// the target dir this test executable lives in (a no-op when it is up to date).
pub fn app_binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| match std::env::var_os("PAYDESK_APP_BIN") {
        Some(p) => PathBuf::from(p),
        None => build_binary("paydesk", "paydesk"),
    })
    .clone()
}

/// A free loopback TCP port (bound then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// How to start the app.
#[derive(Debug, Clone)]
pub struct Launch {
    pub width: u32,
    pub height: u32,
    /// Extra environment for the app (e.g. `PAYDESK_FAULT_PROFILE=none`).
    pub env: Vec<(String, String)>,
    /// Another binary than PayDesk (the benchmark's bare baseline, a packaged build).
    pub binary: Option<PathBuf>,
    /// A data folder whose files are copied into the app's data dir before it starts
    /// (an older version's data, for upgrade tests).
    pub data_from: Option<PathBuf>,
    /// Who is signed in when `start` returns, and whether a shift is open.
    pub staff: StaffStart,
}

impl Default for Launch {
    fn default() -> Self {
        Launch {
            width: 1280,
            height: 800,
            env: vec![("PAYDESK_FAULT_PROFILE".into(), "none".into())],
            binary: None,
            data_from: None,
            staff: StaffStart::default(),
        }
    }
}

/// A binary of this workspace (`paydesk_test_kit::workspace_binary`: the folder
/// `make test` built, or cargo). `package` only names it in messages.
pub fn build_binary(_package: &str, bin: &str) -> PathBuf {
    paydesk_test_kit::workspace_binary(bin)
}

/// The files of `from` and of its folders (a seeded `backups/`) into `to`.
fn copy_folder(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())).flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        } else if e.path().is_dir() {
            std::fs::create_dir_all(to.join(e.file_name())).unwrap();
            copy_folder(&e.path(), &to.join(e.file_name()));
        }
    }
}

/// A running PayDesk window driven over WebDriver.
pub struct App {
    pub driver: WebDriver,
    pub data_dir: PathBuf,
    pub name: String,
    /// From asking for the session (the app is launched) to the UI being ready.
    pub start_to_interactive: Duration,
    /// The app binary this session runs.
    pub binary: PathBuf,
    // drop order: driver session first (quit in `close`), then tauri-driver, then Xvfb
    tauri_driver: Group,
    xvfb: Group,
    _tmp: tempfile::TempDir,
}

pub const LONG: Duration = Duration::from_secs(60);

impl App {
    /// Starts Xvfb, tauri-driver and the app; waits until the UI says it is ready.
    pub async fn start(name: &str, launch: Launch) -> App {
        let bin = launch.binary.clone().unwrap_or_else(app_binary);
        let tmp = tempfile::Builder::new().prefix(&format!("paydesk-{name}-")).tempdir().unwrap();
        let data_dir = tmp.path().join("data");
        for d in ["data", "xdg-data", "xdg-config", "xdg-cache", "xdg-runtime", "home"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        if let Some(from) = &launch.data_from {
            copy_folder(from, &data_dir);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(tmp.path().join("xdg-runtime"), std::fs::Permissions::from_mode(0o700));
        }

        // Virtual display: Xvfb picks a free display number and writes it to stdout.
        let mut x = Command::new("Xvfb");
        x.args(["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0"])
            .arg(format!("{}x{}x24", launch.width, launch.height))
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut xvfb = Group::spawn(x, "Xvfb");
        let mut line = String::new();
        BufReader::new(xvfb.child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("read Xvfb display number");
        let display = format!(":{}", line.trim());
        assert!(line.trim().parse::<u32>().is_ok(), "Xvfb did not report a display: {line:?}");

        // tauri-driver gets two free ports. A port found free can be taken by another
        // test before tauri-driver binds it (bind-then-release races), and the native one is
        // bound only when a session starts: a driver that exits, or a session that fails,
        // gets a new pair of ports and a new tauri-driver, at most three times.
        let t0 = Instant::now();
        let mut last_err = None;
        let mut started = None;
        for _ in 0..3 {
            let (port, native_port) = (free_port(), free_port());
            let mut td = Command::new(tauri_driver_path());
            td.args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
                .env("DISPLAY", &display)
                .env_remove("WAYLAND_DISPLAY")
                // No desktop session: the app keeps the PSP key in its 0600 file, never in
                // the keychain of whoever runs the tests (the keychain has its own test).
                .env_remove("DBUS_SESSION_BUS_ADDRESS")
                .env("XDG_DATA_HOME", tmp.path().join("xdg-data"))
                .env("XDG_CONFIG_HOME", tmp.path().join("xdg-config"))
                .env("XDG_CACHE_HOME", tmp.path().join("xdg-cache"))
                .env("XDG_RUNTIME_DIR", tmp.path().join("xdg-runtime"))
                .env("PAYDESK_DATA_DIR", &data_dir)
                // no accessibility bus / dconf noise in a headless session
                .env("NO_AT_BRIDGE", "1")
                .env("GSETTINGS_BACKEND", "memory")
                .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
                .stdout(Stdio::null())
                .stderr(Stdio::inherit());
            for (k, v) in &launch.env {
                td.env(k, v);
            }
            let mut tauri_driver = Group::spawn(td, "tauri-driver");
            if !wait_listening(&mut tauri_driver, port, Duration::from_secs(30)) {
                last_err = Some(format!("tauri-driver did not listen on {port}"));
                tauri_driver.stop();
                continue;
            }
            let mut caps = Capabilities::new();
            caps.set("tauri:options", json!({ "application": bin, "args": [] })).unwrap();
            caps.set("browserName", "wry").unwrap();
            // New sessions sometimes take seconds (WebKit process start-up).
            match WebDriver::builder(format!("http://127.0.0.1:{port}"), caps).request_timeout(Duration::from_secs(90)).await {
                Ok(d) => {
                    started = Some((d, tauri_driver));
                    break;
                }
                Err(e) => {
                    last_err = Some(format!("{e:?}"));
                    tauri_driver.stop();
                }
            }
        }
        let (driver, tauri_driver) = started.unwrap_or_else(|| panic!("WebDriver session failed: {last_err:?}"));
        let mut app = App {
            driver,
            data_dir,
            name: name.to_string(),
            start_to_interactive: Duration::ZERO,
            binary: bin,
            tauri_driver,
            xvfb,
            _tmp: tmp,
        };
        // A start that failed says why (main.js) instead of leaving the wait to time out.
        let ready = app
            .wait_js("const b = document.body.dataset; return b.ready === 'true' || (b.startError && { error: b.startError })", "the UI to be ready", LONG)
            .await;
        assert_eq!(ready, Value::Bool(true), "the UI did not start");
        app.start_to_interactive = t0.elapsed();
        app.prepare_staff(launch.staff).await;
        app
    }

    /// Proportional set size (kB) of the app process and all its descendants (the
    /// WebKit web and network processes), from /proc/<pid>/smaps_rollup.
    pub fn app_pss_kb(&self) -> (u64, usize) {
        let procs = processes();
        let bin = std::fs::canonicalize(&self.binary).unwrap_or(self.binary.clone());
        let root_pid = self.tauri_driver.child.id() as i32;
        let under_driver = descendants(&procs, root_pid);
        let app_pids: Vec<i32> = under_driver
            .iter()
            .copied()
            .filter(|p| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|e| e == bin))
            .collect();
        let mut all: Vec<i32> = Vec::new();
        for p in app_pids {
            all.push(p);
            all.extend(descendants(&procs, p));
        }
        all.sort();
        all.dedup();
        let total = all.iter().map(|p| pss_kb(*p)).sum();
        (total, all.len())
    }

    /// Polls `script` (a JS function body returning a truthy value) until it is truthy.
    pub async fn wait_js(&self, script: &str, what: &str, timeout: Duration) -> Value {
        let end = Instant::now() + timeout;
        let mut last;
        loop {
            match self.driver.execute(script, vec![]).await {
                Ok(r) => {
                    let v = r.json().clone();
                    let truthy = match &v {
                        Value::Null => false,
                        Value::Bool(b) => *b,
                        Value::String(s) => !s.is_empty(),
                        Value::Number(n) => n.as_f64() != Some(0.0),
                        _ => true,
                    };
                    if truthy {
                        return v;
                    }
                    last = v;
                }
                Err(e) => last = Value::String(format!("error: {e}")),
            }
            if Instant::now() > end {
                self.diagnosis_shot("timeout").await;
                panic!("timed out after {timeout:?} waiting for {what}; last: {last}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs `script` once and returns its value.
    pub async fn js(&self, script: &str) -> Value {
        self.driver.execute(script, vec![]).await.expect("execute script").json().clone()
    }

    pub async fn text(&self, css: &str) -> String {
        self.driver.find(By::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}")).text().await.unwrap()
    }

    /// Waits until `css` matches an element and returns it.
    pub async fn el(&self, css: &str) -> WebElement {
        let sel = serde_json::to_string(css).unwrap();
        self.wait_js(&format!("return !!document.querySelector({sel})"), css, LONG).await;
        self.driver.find(By::Css(css)).await.unwrap()
    }

    /// Types a code into the barcode field and presses Enter, like a scanner.
    pub async fn scan(&self, code: &str) {
        let f = self.el("#scan").await;
        f.send_keys(code).await.expect("type into #scan");
        f.send_keys(Key::Enter).await.expect("press Enter in #scan");
    }

    /// Saves a PNG under target/screenshots/, and under docs/screenshots/ when
    /// `PAYDESK_SCREENSHOTS=docs` (how the committed screenshots are refreshed).
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.driver.screenshot_as_png().await.expect("screenshot");
        let dir = app_binary().parent().unwrap().parent().unwrap().join("screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, &png).unwrap();
        if std::env::var("PAYDESK_SCREENSHOTS").is_ok_and(|v| v == "docs") {
            let docs = repo_root().join("docs/screenshots");
            std::fs::create_dir_all(&docs).unwrap();
            std::fs::write(docs.join(format!("{name}.png")), &png).unwrap();
        }
        path
    }

    /// Kills the app process with SIGKILL, as a crash or a pulled plug would: nothing of
    /// its shutdown runs. tauri-driver and Xvfb stay up (close them with [`App::close`]).
    /// Returns once the process is gone; its data folder stays as the crash left it.
    pub fn kill_app(&self) {
        let bin = std::fs::canonicalize(&self.binary).unwrap_or(self.binary.clone());
        let is_app = |p: &i32| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|e| e == bin);
        let pids: Vec<i32> = descendants(&processes(), self.tauri_driver.child.id() as i32).into_iter().filter(is_app).collect();
        assert!(!pids.is_empty(), "no app process under tauri-driver");
        for p in &pids {
            unsafe { libc::kill(*p, libc::SIGKILL) };
        }
        // A killed process's exe link goes away when it dies (a zombie has none).
        let end = Instant::now() + Duration::from_secs(10);
        while pids.iter().any(is_app) {
            assert!(Instant::now() < end, "the app did not die on SIGKILL");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Ends the WebDriver session, then stops tauri-driver and Xvfb.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(20), self.driver.clone().quit()).await;
        self.tauri_driver.stop();
        self.xvfb.stop();
    }
}

fn tauri_driver_path() -> PathBuf {
    if let Some(p) = std::env::var_os("TAURI_DRIVER") {
        return p.into();
    }
    if let Some(home) = std::env::var_os("HOME") {
        let p = Path::new(&home).join(".cargo/bin/tauri-driver");
        if p.exists() {
            return p;
        }
    }
    PathBuf::from("tauri-driver")
}

/// The test's HTTP client to a PSP. Idle connections are dropped after 30 s, well before the
/// mock PSP closes them (75 s): a pooled connection the server closed just as the test
/// reused it was reset ("connection reset" on a plain GET, seen once in
/// `offline_payment_is_accepted_then_forwarded_when_the_psp_is_back` after a long wait).
/// The register's own transport keeps the same 30 s for the same reason.
fn psp_client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(20)).pool_idle_timeout(Duration::from_secs(30)).build().unwrap()
}

/// The app's embedded mock PSP, reached through its own HTTP API (as a PSP-side
/// check independent of the screen) and its `/__admin` endpoints (faults, stats).
pub struct Psp {
    pub url: String,
    pub key: String,
    http: reqwest::Client,
}

impl Psp {
    /// A PSP reached at `url` with `key` (e.g. a [`PspProcess`]).
    pub fn new(url: &str, key: &str) -> Psp {
        Psp {
            url: url.trim_end_matches('/').to_string(),
            key: key.to_string(),
            http: psp_client(),
        }
    }

    pub async fn get(&self, path_and_query: &str) -> Value {
        let r = self
            .http
            .get(format!("{}{}", self.url, path_and_query))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path_and_query}: {e}"));
        r.json().await.expect("json")
    }

    pub async fn admin(&self, path: &str, form: &[(&str, &str)]) -> Value {
        let r = self
            .http
            .post(format!("{}/__admin/{path}", self.url))
            .form(form)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST /__admin/{path}: {e}"));
        let status = r.status();
        let v: Value = r.json().await.expect("json");
        assert!(status.is_success(), "/__admin/{path}: {status} {v}");
        v
    }

    pub async fn stats(&self) -> Value {
        let r = self.http.get(format!("{}/__admin/stats", self.url)).send().await.expect("stats");
        r.json().await.expect("json")
    }

    /// The next `count` requests to `path` get `fault` (script mode).
    pub async fn script(&self, path: &str, fault: &str, count: u32, slow_ms: Option<u64>) {
        let count = count.to_string();
        let slow = slow_ms.map(|s| s.to_string());
        let mut form = vec![("path", path), ("fault", fault), ("count", count.as_str())];
        if let Some(s) = &slow {
            form.push(("slow_ms", s.as_str()));
        }
        self.admin("faults/script", &form).await;
    }

    pub async fn set_offline(&self, on: bool) {
        self.admin("offline", &[("on", if on { "true" } else { "false" })]).await;
    }

    /// Payment intents the PSP holds for one checkout key (its metadata).
    pub async fn intents_for(&self, checkout_key: &str) -> Vec<Value> {
        let q = format!("metadata['checkout_key']:'{checkout_key}'");
        let r = self
            .http
            .get(format!("{}/v1/payment_intents/search", self.url))
            .query(&[("query", q.as_str())])
            .bearer_auth(&self.key)
            .send()
            .await
            .expect("search");
        let v: Value = r.json().await.expect("json");
        v["data"].as_array().cloned().unwrap_or_default()
    }
}

/// Another processor: the `mock-psp` binary as its own process on a free loopback
/// port, in-memory, with admin endpoints; stopped (SIGTERM to its group) on drop.
pub struct PspProcess {
    pub psp: Psp,
    _group: Group,
}

impl PspProcess {
    pub fn start(secret_key: &str) -> PspProcess {
        let bin = build_binary("mock-psp", "mock-psp");
        let mut cmd = Command::new(bin);
        cmd.args(["--addr", "127.0.0.1:0", "--db", ":memory:", "--secret-key", secret_key, "--admin"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut group = Group::spawn(cmd, "mock-psp");
        let mut out = BufReader::new(group.child.stdout.take().unwrap());
        let url = paydesk_test_kit::listening_url(&mut out).unwrap_or_else(|e| panic!("mock-psp: {e}"));
        // keep its stdout drained so later lines never block or break the process
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        PspProcess { psp: Psp::new(&url, secret_key), _group: group }
    }
}

impl App {
    /// The embedded PSP of this app (from `<data dir>/embedded-psp.json`).
    pub async fn psp(&self) -> Psp {
        let path = self.data_dir.join("embedded-psp.json");
        let end = Instant::now() + LONG;
        loop {
            if let Ok(b) = std::fs::read(&path) {
                if let Ok(v) = serde_json::from_slice::<Value>(&b) {
                    return Psp {
                        url: v["url"].as_str().unwrap().trim_end_matches('/').to_string(),
                        key: v["secret_key"].as_str().unwrap().to_string(),
                        http: psp_client(),
                    };
                }
            }
            assert!(Instant::now() < end, "no {}", path.display());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Clicks the element matching `css` (waiting for it to exist and be enabled).
    pub async fn click(&self, css: &str) {
        let sel = serde_json::to_string(css).unwrap();
        self.wait_js(
            &format!("const e = document.querySelector({sel}); return !!e && !e.disabled && e.offsetParent !== null"),
            &format!("{css} to be clickable"),
            LONG,
        )
        .await;
        if let Err(e) = self.driver.find(By::Css(css)).await.unwrap().click().await {
            self.diagnosis_shot("click").await;
            panic!("click {css}: {e}");
        }
    }

    /// For diagnosis only: the window as it was when a step failed, in target/screenshots
    /// (never docs/), named after the app and `what` failed.
    async fn diagnosis_shot(&self, what: &str) {
        if let Ok(png) = self.driver.screenshot_as_png().await {
            let dir = app_binary().parent().unwrap().parent().unwrap().join("screenshots");
            let _ = std::fs::create_dir_all(&dir);
            let _ = std::fs::write(dir.join(format!("{}-{what}.png", self.name)), png);
        }
    }

    /// Waits for the checkout result panel of `kind` and returns its checkout key.
    pub async fn wait_result(&self, kind: &str) -> String {
        let k = serde_json::to_string(kind).unwrap();
        let v = self
            .wait_js(
                &format!("const r = document.getElementById('result'); return r && r.dataset.kind === {k} && r.dataset.key"),
                &format!("a {kind} result"),
                LONG,
            )
            .await;
        v.as_str().unwrap().to_string()
    }

    /// Text of the whole progress list of the checkout panel.
    pub async fn progress_text(&self) -> String {
        self.js("return document.getElementById('progress').innerText").await.as_str().unwrap_or("").to_string()
    }
}

