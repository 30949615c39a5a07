//! Start-up options (flags or environment variables) and the display check.

use std::path::PathBuf;

pub const USAGE: &str = "\
PayDesk: the cashier's point-of-sale app.

Usage: paydesk [OPTIONS]

Options (each also an environment variable):
  --data-dir DIR         where the ledger lives       PAYDESK_DATA_DIR
                         (default: the platform's app-data dir)
  --psp-url URL          use this PSP instead of the embedded mock PSP
                                                      PAYDESK_PSP_URL
  --psp-key KEY          secret key for the PSP        PAYDESK_PSP_KEY
                         (a flag is visible in the process list: prefer
                         Settings, kept in the keychain, or the variable)
  --fault-profile NAME   embedded PSP faults: none, flaky (default), chaos, offline
                                                      PAYDESK_FAULT_PROFILE
  --psp-seed N           seed of the embedded PSP's faults (reproducible runs)
                                                      PAYDESK_PSP_SEED
  --demo-store LOCALE    the demo store a NEW data folder gets: en-US or ja-JP
                         (default: ja-JP when LANG starts with ja, else en-US;
                         an existing store is never reseeded)
                                                      PAYDESK_DEMO_STORE
  -V, --version          the version and the ledger schema it writes
  -h, --help             this text
";


/// The app's version: the workspace's (`Cargo.toml`), also the package's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `paydesk --version`: the version and the ledger schema this build writes.
pub fn version_line() -> String {
    format!("paydesk {VERSION} (ledger schema {})", paydesk_ledger::SCHEMA_VERSION)
}

/// Said on stderr when the PSP key is given as a flag: every user of the machine can
/// read a process's arguments. Never the key itself.
pub const PSP_KEY_IN_ARGV: &str = "paydesk: warning: --psp-key puts the PSP secret key in the process list, where every user \
of this machine can read it; save it in Settings (kept in the system keychain, or in a file only you can read where \
there is none), or give it with the PAYDESK_PSP_KEY environment variable";

/// What the embedded mock PSP does wrong on purpose (the demo's faults, record 0001).
/// Read once from a flag, the environment or settings.json into this enum; nothing
/// compares the word again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FaultProfile {
    /// Every request answered as asked.
    #[serde(rename = "none")]
    NoFaults,
    /// Some requests or answers lost, some slow, some 503s: the default demo.
    #[default]
    Flaky,
    /// Many more of them.
    Chaos,
    /// The PSP does not answer at all (offline payments, forwarding).
    Offline,
}

impl FaultProfile {
    pub const ALL: [FaultProfile; 4] = [FaultProfile::NoFaults, FaultProfile::Flaky, FaultProfile::Chaos, FaultProfile::Offline];

    /// The word in flags, settings.json and the settings form.
    pub const fn as_str(self) -> &'static str {
        match self {
            FaultProfile::NoFaults => "none",
            FaultProfile::Flaky => "flaky",
            FaultProfile::Chaos => "chaos",
            FaultProfile::Offline => "offline",
        }
    }

    /// The profile a word names (exactly; a flag or form value), or `None`.
    pub fn parse(word: &str) -> Option<FaultProfile> {
        FaultProfile::ALL.into_iter().find(|p| p.as_str() == word)
    }

    /// The words, comma-separated, for an error message.
    pub fn words() -> String {
        FaultProfile::ALL.map(FaultProfile::as_str).join(", ")
    }
}

/// The demo stores a new data folder can be seeded with.
pub const DEMO_STORES: &[&str] = &["en-US", "ja-JP"];

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub data_dir: Option<PathBuf>,
    pub psp_url: Option<String>,
    pub psp_key: Option<String>,
    pub fault_profile: FaultProfile,
    /// The fault profile came from a flag or env var (it then wins over settings.json).
    pub fault_profile_set: bool,
    pub psp_seed: Option<u64>,
    /// `--demo-store` / `PAYDESK_DEMO_STORE`, checked against [`DEMO_STORES`].
    pub demo_store: Option<String>,
}

impl Options {
    /// Reads the environment, then the command line (flags win). On `--help` or a bad
    /// flag prints to stderr/stdout and returns the exit code to use.
    pub fn from_env_and_args() -> Result<Options, i32> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let mut o = Options {
            data_dir: env("PAYDESK_DATA_DIR").map(PathBuf::from),
            psp_url: env("PAYDESK_PSP_URL"),
            psp_key: env("PAYDESK_PSP_KEY"),
            fault_profile: FaultProfile::default(),
            fault_profile_set: false,
            psp_seed: None,
            demo_store: env("PAYDESK_DEMO_STORE"),
        };
        if let Some(p) = env("PAYDESK_FAULT_PROFILE") {
            o.fault_profile = fault_profile(&p)?;
            o.fault_profile_set = true;
        }
        if let Some(s) = env("PAYDESK_PSP_SEED") {
            o.psp_seed = Some(s.parse().map_err(|_| bad("PAYDESK_PSP_SEED must be a number"))?);
        }
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let (flag, inline) = match a.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (a.clone(), None),
            };
            let mut value = |name: &str| -> Result<String, i32> {
                inline
                    .clone()
                    .or_else(|| args.next())
                    .ok_or_else(|| bad(&format!("{name} needs a value")))
            };
            match flag.as_str() {
                "-h" | "--help" => {
                    print!("{USAGE}");
                    return Err(0);
                }
                "-V" | "--version" => {
                    println!("{}", version_line());
                    return Err(0);
                }
                "--data-dir" => o.data_dir = Some(PathBuf::from(value("--data-dir")?)),
                "--psp-url" => o.psp_url = Some(value("--psp-url")?),
                "--psp-key" => {
                    o.psp_key = Some(value("--psp-key")?);
                    eprintln!("{PSP_KEY_IN_ARGV}");
                }
                "--fault-profile" => {
                    o.fault_profile = fault_profile(&value("--fault-profile")?)?;
                    o.fault_profile_set = true;
                }
                "--demo-store" => o.demo_store = Some(value("--demo-store")?),
                "--psp-seed" => {
                    o.psp_seed = Some(
                        value("--psp-seed")?
                            .parse()
                            .map_err(|_| bad("--psp-seed must be a number"))?,
                    )
                }
                other => return Err(bad(&format!("unknown option {other}"))),
            }
        }
        if let Some(d) = &o.demo_store {
            if !DEMO_STORES.contains(&d.as_str()) {
                return Err(bad(&format!("unknown demo store {d:?} (one of: {})", DEMO_STORES.join(", "))));
            }
        }
        Ok(o)
    }

    /// The demo store for a new data folder: the flag or variable, else the OS
    /// language (`LC_ALL`, then `LANG`, starting with "ja"), else en-US.
    pub fn demo_locale(&self) -> paydesk_ledger::DemoLocale {
        let os = ["LC_ALL", "LANG"].iter().find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()));
        demo_locale_of(self.demo_store.as_deref(), os.as_deref())
    }
}

/// [`Options::demo_locale`] without the environment (unit-tested).
pub fn demo_locale_of(chosen: Option<&str>, os_lang: Option<&str>) -> paydesk_ledger::DemoLocale {
    use paydesk_ledger::DemoLocale;
    match chosen {
        Some("ja-JP") => DemoLocale::JaJp,
        Some(_) => DemoLocale::EnUs,
        None if os_lang.is_some_and(|l| l.starts_with("ja")) => DemoLocale::JaJp,
        None => DemoLocale::EnUs,
    }
}

/// A fault profile's word from a flag or the environment, or the usage error.
fn fault_profile(word: &str) -> Result<FaultProfile, i32> {
    FaultProfile::parse(word).ok_or_else(|| bad(&format!("unknown fault profile {word:?} (one of: {})", FaultProfile::words())))
}

fn bad(msg: &str) -> i32 {
    eprintln!("paydesk: {msg}\n\n{USAGE}");
    2
}

/// PayDesk is a window; without a display GTK would abort with a cryptic message.
pub fn check_display() -> Result<(), String> {
    if cfg!(target_os = "linux") {
        let has = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        if !has("DISPLAY") && !has("WAYLAND_DISPLAY") {
            return Err("\
PayDesk is a desktop app and needs a display, but neither DISPLAY nor WAYLAND_DISPLAY
is set (this looks like a headless machine or an SSH session without X forwarding).

To run it anyway on a virtual display:
    xvfb-run -a make run
To use the register without a window (same engine, same embedded mock PSP):
    cargo run -p paydesk-cli -- --help"
                .to_string());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_ledger::DemoLocale;

    #[test]
    fn the_demo_store_is_the_flag_else_the_os_language_else_en_us() {
        assert_eq!(demo_locale_of(Some("ja-JP"), Some("en_US.UTF-8")), DemoLocale::JaJp);
        assert_eq!(demo_locale_of(Some("en-US"), Some("ja_JP.UTF-8")), DemoLocale::EnUs);
        assert_eq!(demo_locale_of(None, Some("ja_JP.UTF-8")), DemoLocale::JaJp);
        assert_eq!(demo_locale_of(None, Some("C.UTF-8")), DemoLocale::EnUs);
        assert_eq!(demo_locale_of(None, None), DemoLocale::EnUs);
    }
}
