//! A PSP binary run as its own process on `127.0.0.1:0` says where it listens in its
//! first line (`listening on http://ADDR`); the harness that starts it reads it here.

use std::io::BufRead;

/// The URL of a `listening on URL` line, the first line the mock PSP prints once its
/// socket is bound: reading it is the signal that the server is ready.
pub fn listening_url(out: &mut impl BufRead) -> Result<String, String> {
    let mut line = String::new();
    out.read_line(&mut line).map_err(|e| format!("reading the PSP's first line: {e}"))?;
    line.trim().strip_prefix("listening on ").map(str::to_string).ok_or_else(|| format!("the PSP's first line is {line:?}, not `listening on URL`"))
}

/// A binary of this workspace for a test to run as a real process.
///
/// `make test` builds every binary first and names their folder in `PAYDESK_BIN_DIR`:
/// they are taken from there, and no test asks cargo again while tests run (on a clean
/// CI clone the first such cargo call cost a test over a minute). Without it (a single
/// test run by hand) cargo builds the binary into the target dir the calling test
/// executable lives in, in its profile — a no-op when up to date. `--workspace`, not
/// `-p`: features are then unified as in `cargo build --workspace --bins`, so the binary
/// is found up to date instead of being rebuilt with another feature set.
pub fn workspace_binary(bin: &str) -> std::path::PathBuf {
    use std::path::Path;
    if let Some(dir) = std::env::var_os("PAYDESK_BIN_DIR") {
        let path = Path::new(&dir).join(bin);
        assert!(path.exists(), "PAYDESK_BIN_DIR is set but {} is not there", path.display());
        return path;
    }
    let exe = std::env::current_exe().expect("current_exe");
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>");
    let target_dir = profile_dir.parent().expect("target dir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.current_dir(root).args(["build", "-q", "--workspace", "--bin", bin]).env("CARGO_TARGET_DIR", target_dir);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd.status().unwrap_or_else(|e| panic!("cargo build --bin {bin}: {e}"));
    assert!(status.success(), "cargo build --bin {bin} failed");
    let path = profile_dir.join(bin);
    assert!(path.exists(), "{} not found after the build", path.display());
    path
}
