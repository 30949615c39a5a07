//! Authentication: the secret key from `Authorization: Bearer sk_…` (or Basic with the
//! key as user name) names the merchant account; an unknown key is quoted back only
//! redacted. A merchant key is never authority over `/__admin`.
use super::{PspRequest, PspResponse};
use super::errors::invalid;
use crate::Inner;

fn b64decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = 0u32;
    let mut bits = 0;
    // Bounded by the header's length: a request head is at most 16 KiB (see `http`).
    for c in s.trim().bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        } as u32;
        buf = (buf << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Some(out)
}

enum Auth {
    Missing,
    Unknown(String),
    Account(String),
}

fn authenticate(inner: &Inner, req: &PspRequest) -> Auth {
    let Some(h) = req.header("authorization") else { return Auth::Missing };
    let key = if let Some(k) = h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")) {
        k.trim().to_string()
    } else if let Some(b) = h.strip_prefix("Basic ").or_else(|| h.strip_prefix("basic ")) {
        match b64decode(b).and_then(|v| String::from_utf8(v).ok()) {
            Some(s) => s.split(':').next().unwrap_or("").to_string(),
            None => return Auth::Unknown(String::new()),
        }
    } else {
        return Auth::Unknown(String::new());
    };
    if key.is_empty() {
        return Auth::Missing;
    }
    match inner.accounts.get(&key) {
        Some(acct) => Auth::Account(acct.clone()),
        None => Auth::Unknown(key),
    }
}

fn redact(key: &str) -> String {
    let n = key.chars().count();
    if n <= 16 {
        format!("{}{}", key.chars().take(n / 2).collect::<String>(), "*".repeat(n - n / 2))
    } else {
        format!("{}{}{}", key.chars().take(8).collect::<String>(), "*".repeat((n - 12).min(20)), key.chars().skip(n - 4).collect::<String>())
    }
}

/// The account a request acts for, or the 401 to answer (counted as unauthorized).
pub(super) fn account_or_401(inner: &Inner, req: &PspRequest) -> Result<String, PspResponse> {
    let e = match authenticate(inner, req) {
        Auth::Account(a) => return Ok(a),
        Auth::Missing => invalid("api_key_missing", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').", None),
        Auth::Unknown(k) => invalid("api_key_invalid", format!("Invalid API Key provided: {}", redact(&k)), None),
    };
    inner.stats.unauthorized.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Err(e.with_status(401).response().with("WWW-Authenticate", "Bearer realm=\"Stripe\""))
}
