//! The installable package (record 0054) as a store gets it: the `.deb` that
//! `make package` builds, unpacked with `dpkg-deb -x` into a temp dir (no root, no
//! install), so a test runs exactly the binary and files the package carries.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `.deb` to test: `PAYDESK_DEB`, or the newest in `<target>/release/bundle/deb/`
/// (where `make package` leaves it). Panics naming the command when there is none.
pub fn deb_path() -> PathBuf {
    if let Some(p) = std::env::var_os("PAYDESK_DEB") {
        return PathBuf::from(p);
    }
    newest_deb().unwrap_or_else(|| panic!("no .deb in {}: run `make package` first (or set PAYDESK_DEB)", deb_dir().display()))
}

/// `<target>/release/bundle/deb/`, the target dir being the one this executable is in.
pub fn deb_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    // <target>/<profile>/deps/<exe> (tests) or <target>/<profile>/<exe>
    let target = exe
        .ancestors()
        .find(|a| a.join("CACHEDIR.TAG").exists())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| exe.ancestors().nth(3).expect("target dir").to_path_buf());
    target.join("release/bundle/deb")
}

/// The newest `.deb` that `make package` built, if any.
pub fn newest_deb() -> Option<PathBuf> {
    std::fs::read_dir(deb_dir())
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "deb"))
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

/// A control field of the package (`dpkg-deb -f`).
pub fn control_field(deb: &Path, field: &str) -> String {
    let out = Command::new("dpkg-deb").arg("-f").arg(deb).arg(field).output().expect("run dpkg-deb");
    assert!(out.status.success(), "dpkg-deb -f {field}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Unpacks the package's files into `into` (`dpkg-deb -x`) and returns that root.
pub fn unpack(deb: &Path, into: &Path) -> PathBuf {
    let status = Command::new("dpkg-deb").arg("-x").arg(deb).arg(into).status().expect("run dpkg-deb");
    assert!(status.success(), "dpkg-deb -x {} failed", deb.display());
    into.to_path_buf()
}
