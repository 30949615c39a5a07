//! Staff in the window tests (record 0068): a demo store has staff, so before a test's
//! first sale someone must be signed in and a shift open. Done through real parts: the
//! owner is signed in through the sign-in screen (tile, then the PIN typed), or created
//! through the first-start screen on a store without staff; the shift is opened with
//! `paydesk-cli shift open` on the same ledger file.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::{build_binary, App, LONG};

/// How a window test's register starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StaffStart {
    /// The owner signed in and a shift open: what every test that sells needs.
    #[default]
    OwnerWithShift,
    /// The owner signed in, no shift opened.
    OwnerNoShift,
    /// Nobody signed in: the sign-in (or first-start) screen on show.
    SignedOut,
}

/// The PIN the harness gives an owner it creates on the first-start screen (the demo
/// owner's PIN too).
pub const OWNER_PIN: &str = "1111";
/// The name the harness gives an owner it creates on the first-start screen.
pub const CREATED_OWNER: &str = "Owner";

impl App {
    /// Which screen covers the register: "signin", "owner", or "register" (none).
    pub async fn screen(&self) -> String {
        let v = self.wait_js("return document.body.dataset.screen || ''", "signin.js to decide the screen", LONG).await;
        v.as_str().unwrap_or_default().to_string()
    }

    /// Signs `name` in through the sign-in screen: their tile, then the PIN typed.
    pub async fn sign_in_as(&self, name: &str, pin: &str) {
        let n = serde_json::to_string(name).unwrap();
        self.click(&format!(".staff-tile[data-name={n}]")).await;
        self.type_pin(pin).await;
        self.wait_js("return document.body.dataset.screen === 'register'", &format!("{name} signed in"), LONG).await;
    }

    /// Types a PIN on the sign-in screen and presses Sign in.
    pub async fn type_pin(&self, pin: &str) {
        let f = self.el("#signin-pin").await;
        f.clear().await.expect("clear the PIN");
        f.send_keys(pin).await.expect("type the PIN");
        self.click("#signin-submit").await;
    }

    /// The owner signed in (created on the first-start screen when the store has no
    /// staff); returns their name.
    pub async fn sign_in_owner(&self) -> String {
        match self.screen().await.as_str() {
            "owner" => {
                self.el("#owner-name").await.send_keys(CREATED_OWNER).await.unwrap();
                self.el("#owner-pin").await.send_keys(OWNER_PIN).await.unwrap();
                self.el("#owner-pin-again").await.send_keys(OWNER_PIN).await.unwrap();
                self.click("#owner-create").await;
                self.wait_js("return document.body.dataset.screen === 'register'", "the owner created", LONG).await;
                CREATED_OWNER.to_string()
            }
            "signin" => {
                let v = self.wait_js("const t = document.querySelector('.staff-tile[data-role=owner]'); return t && t.dataset.name", "the owner's tile", LONG).await;
                let name = v.as_str().unwrap().to_string();
                self.sign_in_as(&name, OWNER_PIN).await;
                name
            }
            _ => self.js("return document.getElementById('whoami').dataset.name").await.as_str().unwrap_or_default().to_string(),
        }
    }

    /// Runs `paydesk-cli --db <this app's ledger> ARGS` with `stdin` (PINs go there, never
    /// on the command line); returns its stdout, panicking with its stderr on failure.
    pub fn cli(&self, args: &[&str], stdin: &str) -> String {
        let bin = build_binary("paydesk-cli", "paydesk-cli");
        let mut child = Command::new(bin)
            .arg("--db")
            .arg(self.data_dir.join("ledger.db"))
            .args(args)
            // The embedded PSP's test key: the shift commands never call the PSP.
            .env("PAYDESK_PSP_KEY", "sk_test_paydesk_embedded")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start paydesk-cli");
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().expect("paydesk-cli");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "paydesk-cli {args:?}: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
        stdout
    }

    /// Opens a shift (no float) by `name` unless one is open.
    pub fn open_shift(&self, name: &str, pin: &str) {
        if self.cli(&["shift", "status"], "").trim() == "null" {
            self.cli(&["shift", "open", "--by", name], &format!("{pin}\n"));
        }
    }

    /// What `launch` asked for: the owner signed in and a shift open, or not.
    pub async fn prepare_staff(&self, start: StaffStart) {
        match start {
            StaffStart::SignedOut => {}
            StaffStart::OwnerNoShift => {
                self.sign_in_owner().await;
            }
            StaffStart::OwnerWithShift => {
                let owner = self.sign_in_owner().await;
                self.open_shift(&owner, OWNER_PIN);
            }
        }
    }
}
