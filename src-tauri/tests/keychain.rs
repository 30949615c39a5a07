//! The PSP secret key in the OS keychain (record 0065), against a real Secret Service:
//! gnome-keyring on a private D-Bus session bus that this test starts (no activation, so
//! nothing else answers on it) and stops. The key is read back independently with
//! `secret-tool`, and the settings files are checked to no longer hold it. The private
//! Secret Service is shared with `backup_send.rs` (the backup key's entry).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use paydesk_app::secrets::SecretStore;
use paydesk_app::settings_file::{PspInUse, Settings};
use paydesk_app::Options;

/// A session bus and an unlocked gnome-keyring on it, both in their own process groups.
pub(crate) struct SecretService {
    address: String,
    _dir: tempfile::TempDir,
    children: Vec<Child>,
}

impl SecretService {
    pub(crate) fn start() -> SecretService {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&run).unwrap();
        std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        // A bus with no service directories: nothing is started on demand behind our back.
        let conf = dir.path().join("bus.conf");
        std::fs::write(
            &conf,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={}/bus</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>"#,
                run.display()
            ),
        )
        .unwrap();
        let mut bus = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", conf.display()))
            .args(["--nofork", "--nopidfile", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("dbus-daemon (make deps installs dbus-daemon)");
        // The address line is the bus's own "ready" signal.
        let mut address = String::new();
        BufReader::new(bus.stdout.take().unwrap()).read_line(&mut address).unwrap();
        let address = address.trim().to_string();
        assert!(address.starts_with("unix:"), "dbus-daemon printed {address:?}");
        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("HOME", &home)
            .env("XDG_RUNTIME_DIR", &run)
            .env("XDG_DATA_HOME", home.join("share"))
            .env_remove("DISPLAY")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("gnome-keyring-daemon (make deps installs gnome-keyring)");
        // --unlock reads the login keyring's password from stdin until it closes.
        keyring.stdin.take().unwrap().write_all(b"paydesk-test").unwrap();
        let s = SecretService { address, _dir: dir, children: vec![bus, keyring] };
        s.wait_for_name("org.freedesktop.secrets", Duration::from_secs(30));
        s
    }

    /// Until `name` has an owner on the bus (a condition with a deadline, not a sleep
    /// standing in for one).
    fn wait_for_name(&self, name: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let out = Command::new("dbus-send")
                .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
                .args(["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus"])
                .arg("org.freedesktop.DBus.NameHasOwner")
                .arg(format!("string:{name}"))
                .output()
                .expect("dbus-send");
            if String::from_utf8_lossy(&out.stdout).contains("boolean true") {
                return;
            }
            assert!(Instant::now() < deadline, "{name} did not appear on the private bus within {within:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// This test process talks to this bus from now on.
    pub(crate) fn use_it(&self) {
        std::env::set_var("DBUS_SESSION_BUS_ADDRESS", &self.address);
    }

    /// The secret stored for `account` under PayDesk's service, read with secret-tool.
    pub(crate) fn lookup(&self, account: &str) -> Option<String> {
        let out = Command::new("secret-tool")
            .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .args(["lookup", "service", "PayDesk", "username", account])
            .output()
            .expect("secret-tool (make deps installs libsecret-tools)");
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim_end().to_string()).filter(|s| !s.is_empty())
    }

    fn stop(&mut self) {
        for c in &mut self.children {
            // SAFETY: kill(2) on the process group we created; no memory is involved.
            unsafe { libc::kill(-(c.id() as i32), libc::SIGTERM) };
            let _ = c.wait();
        }
        self.children.clear();
    }
}

impl Drop for SecretService {
    fn drop(&mut self) {
        self.stop();
    }
}

pub(crate) fn account(dir: &Path, name: &str) -> String {
    format!("{name}@{}", std::fs::canonicalize(dir).unwrap().display())
}

fn external() -> Settings {
    Settings { psp_url: "https://psp.example.com".into(), psp_key: "sk_live_keychain_42".into(), ..Settings::default() }
}

fn file_text(p: PathBuf) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn saved_keys_go_to_the_keychain_and_the_files_keep_none() {
    let ss = SecretService::start();
    ss.use_it();
    let dir = tempfile::tempdir().unwrap();
    let secrets = SecretStore::open(dir.path());
    assert!(secrets.in_keychain(), "{secrets:?}");
    assert_eq!(secrets.note(), None);

    let s = external();
    s.save(dir.path(), &secrets).unwrap();
    PspInUse::of(&s).save(dir.path(), &secrets).unwrap();
    for (file, name) in [(Settings::path(dir.path()), "psp-key"), (PspInUse::path(dir.path()), "psp-key-in-use")] {
        let text = file_text(file);
        assert!(!text.contains("sk_live_keychain_42") && text.contains("\"psp_key_in\": \"keychain\""), "{text}");
        assert_eq!(ss.lookup(&account(dir.path(), name)).as_deref(), Some("sk_live_keychain_42"), "{name}");
    }
    let opts = Options::default();
    assert_eq!(Settings::load(dir.path(), &opts, &secrets).unwrap(), s);
    assert_eq!(PspInUse::load(dir.path(), &secrets).unwrap(), Some(PspInUse::of(&s)));

    // Another data folder on the same machine has its own entries.
    let other = tempfile::tempdir().unwrap();
    assert_eq!(Settings::load(other.path(), &opts, &SecretStore::open(other.path())).unwrap(), Settings::default());

    // The keychain gone (the daemon stopped): the file says where the key is, and the
    // register says it cannot reach it rather than starting without a key.
    let mut ss = ss;
    ss.stop();
    let gone = SecretStore::open(dir.path());
    assert!(!gone.in_keychain());
    let e = Settings::load(dir.path(), &opts, &gone).unwrap_err();
    assert!(e.contains("in the keychain, which cannot be used"), "{e}");
}

#[test]
fn a_key_in_an_existing_settings_file_moves_to_the_keychain() {
    let ss = SecretService::start();
    ss.use_it();
    let dir = tempfile::tempdir().unwrap();
    // As a build before the keychain wrote them (0600, the key in clear, no psp_key_in).
    let old = r#"{"psp_url": "https://psp.example.com", "psp_key": "sk_live_keychain_42", "fault_profile": "none"}"#;
    std::fs::write(Settings::path(dir.path()), old).unwrap();
    std::fs::write(PspInUse::path(dir.path()), r#"{"psp_url": "https://psp.example.com", "psp_key": "sk_live_keychain_42"}"#).unwrap();

    let secrets = SecretStore::open(dir.path());
    let s = Settings::load(dir.path(), &Options::default(), &secrets).unwrap();
    assert_eq!((s.psp_key.as_str(), s.fault_profile.as_str()), ("sk_live_keychain_42", "none"));
    let u = PspInUse::load(dir.path(), &secrets).unwrap().unwrap();
    assert_eq!(u.psp_key, "sk_live_keychain_42");
    for (file, name) in [(Settings::path(dir.path()), "psp-key"), (PspInUse::path(dir.path()), "psp-key-in-use")] {
        let text = file_text(file.clone());
        assert!(!text.contains("sk_live_keychain_42"), "{} still holds the key: {text}", file.display());
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(ss.lookup(&account(dir.path(), name)).as_deref(), Some("sk_live_keychain_42"));
    }
    // And it reads back the same after the move.
    assert_eq!(Settings::load(dir.path(), &Options::default(), &secrets).unwrap(), s);
}

#[test]
fn without_a_keychain_the_key_stays_in_the_private_file_and_settings_say_why() {
    // A session bus address where nothing listens: the keychain cannot answer.
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", format!("unix:path={}/no-bus", dir.path().display()));
    let secrets = SecretStore::open(dir.path());
    assert!(!secrets.in_keychain());
    let note = secrets.note().unwrap();
    assert!(note.contains("settings.json") && note.contains("keychain"), "{note}");
    let s = external();
    s.save(dir.path(), &secrets).unwrap();
    let text = file_text(Settings::path(dir.path()));
    assert!(text.contains("sk_live_keychain_42") && text.contains("\"psp_key_in\": \"file\""), "{text}");
    assert_eq!(Settings::load(dir.path(), &Options::default(), &secrets).unwrap(), s);
}
