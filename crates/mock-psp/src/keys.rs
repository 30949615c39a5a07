//! Where the `mock-psp` binary gets its merchants' secret keys: `--secret-key` (visible
//! to anyone who can list processes), the `MOCK_PSP_SECRET_KEYS` environment variable
//! (comma-separated), and `--secret-key-file PATH` (one key per line; blank lines and
//! lines starting with `#` ignored). A key file readable by group or others is refused,
//! as ssh refuses such a private key. No message ever contains a key: a bad one is
//! named by where it came from (its line, its position in the list).
use std::path::Path;

/// The environment variable read for keys.
pub const ENV_VAR: &str = "MOCK_PSP_SECRET_KEYS";
/// Longest key, in characters.
pub const MAX_KEY_LEN: usize = 255;
/// Largest key file.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// Most keys (accounts) in all.
pub const MAX_KEYS: usize = 1000;

fn check_key(k: &str, whence: &str) -> Result<(), String> {
    if k.is_empty() {
        return Err(format!("{whence}: empty secret key"));
    }
    if k.len() > MAX_KEY_LEN {
        return Err(format!("{whence}: secret key longer than {MAX_KEY_LEN} characters"));
    }
    if let Some(i) = k.chars().position(|c| !c.is_ascii_graphic()) {
        return Err(format!("{whence}: secret key has a space, control or non-ASCII character at position {}", i + 1));
    }
    Ok(())
}

/// Keys from every source, in order (arguments, environment, file), duplicates dropped.
/// `env` is the environment variable's value, if set.
pub fn load(args: &[String], env: Option<&str>, file: Option<&Path>) -> Result<Vec<String>, String> {
    let mut keys: Vec<String> = Vec::new();
    let mut add = |k: &str, whence: String| -> Result<(), String> {
        check_key(k, &whence)?;
        if !keys.iter().any(|x| x == k) {
            keys.push(k.to_string());
        }
        if keys.len() > MAX_KEYS {
            return Err(format!("more than {MAX_KEYS} secret keys"));
        }
        Ok(())
    };
    for (i, k) in args.iter().enumerate() {
        add(k, format!("--secret-key #{}", i + 1))?;
    }
    if let Some(env) = env {
        for (i, k) in env.split(',').map(str::trim).enumerate() {
            // A trailing comma or an empty variable adds nothing.
            if !k.is_empty() {
                add(k, format!("{ENV_VAR} entry {}", i + 1))?;
            }
        }
    }
    if let Some(path) = file {
        let p = path.display();
        let meta = std::fs::metadata(path).map_err(|e| format!("--secret-key-file {p}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("--secret-key-file {p}: not a regular file"));
        }
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(format!("--secret-key-file {p}: readable or writable by group or others (mode {mode:03o}); refusing it, run: chmod 600 {p}"));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!("--secret-key-file {p}: larger than {MAX_FILE_BYTES} bytes"));
        }
        let text = std::fs::read(path).map_err(|e| format!("--secret-key-file {p}: {e}"))?;
        let text = String::from_utf8(text).map_err(|_| format!("--secret-key-file {p}: not UTF-8 text"))?;
        for (i, line) in text.lines().enumerate() {
            let k = line.trim();
            if k.is_empty() || k.starts_with('#') {
                continue;
            }
            add(k, format!("--secret-key-file {p} line {}", i + 1))?;
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn every_source_and_no_key_in_any_message() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("keys");
        std::fs::write(&f, "# accounts\nsk_test_file1\n\n  sk_test_file2  \nsk_test_a\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        let keys = load(&["sk_test_a".into()], Some("sk_test_env1, sk_test_env2,"), Some(&f)).unwrap();
        assert_eq!(keys, ["sk_test_a", "sk_test_env1", "sk_test_env2", "sk_test_file1", "sk_test_file2"]);
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = load(&[], None, Some(&f)).unwrap_err();
        assert!(e.contains("mode 644") && e.contains("chmod 600") && !e.contains("sk_test"), "{e}");
        std::fs::write(&f, "sk_test_ok\nsk_test bad\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = load(&[], None, Some(&f)).unwrap_err();
        assert!(e.contains("line 2") && !e.contains("sk_test"), "{e}");
        let e = load(&[], Some("sk_live_é"), None).unwrap_err();
        assert!(e.contains(ENV_VAR) && !e.contains("sk_live"), "{e}");
        assert!(load(&["".into()], None, None).unwrap_err().contains("--secret-key #1"));
        assert!(load(&[], None, Some(&dir.path().join("missing"))).is_err());
        assert!(load(&[], None, Some(dir.path())).unwrap_err().contains("not a regular file"));
    }
}
