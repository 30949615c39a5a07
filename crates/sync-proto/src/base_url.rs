//! The one rule for a base URL that carries a secret (record 0038): the register's PSP
//! URL (its secret key), the PSP account the owner sets at the back office (the store's
//! key), and the back office URL a register pairs with (its token). Each is parsed as
//! the HTTP client will read it, never matched as text: `http://localhost.evil.example`
//! is a host under `evil.example`, and `http://127.0.0.1@host` is a user name before
//! `host`. `https://` to any host; plain `http://` only to this machine (127.0.0.0/8,
//! `::1`, `localhost`), because anywhere else the secret would cross the network in
//! clear text. No user name or password, no query or fragment (request paths are
//! appended to the base). Messages never repeat the URL: a mistyped one may hold a
//! password.

/// Longest PSP base URL, at the register and at the back office (real ones are well
/// under 100 characters).
pub const MAX_PSP_URL_LEN: usize = 200;

/// Why a base URL is refused; `Display` names it with the caller's label ("the PSP URL").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlProblem {
    Empty,
    TooLong { max: usize },
    SpaceOrControl,
    NotAUrl(String),
    Scheme,
    Credentials,
    QueryOrFragment,
    NoHost,
    /// Plain http to a host that is not this machine.
    PlainHttpRemote { host: String },
}

/// A refused URL: what it was (`label`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlError {
    pub label: &'static str,
    pub problem: UrlProblem,
}

impl std::fmt::Display for UrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = self.label;
        match &self.problem {
            UrlProblem::Empty => write!(f, "{l} is empty"),
            UrlProblem::TooLong { max } => write!(f, "{l} is longer than {max} characters"),
            UrlProblem::SpaceOrControl => write!(f, "{l} must not contain spaces or control characters"),
            UrlProblem::NotAUrl(why) => write!(f, "{l} is not a valid URL ({why})"),
            UrlProblem::Scheme => write!(f, "{l} must start with https:// (or http:// to this machine)"),
            UrlProblem::Credentials => write!(f, "{l} must not contain a user name or password (the secret is given separately)"),
            UrlProblem::QueryOrFragment => write!(f, "{l} must not have a query (?…) or fragment (#…)"),
            UrlProblem::NoHost => write!(f, "{l} has no host"),
            UrlProblem::PlainHttpRemote { host } => write!(
                f,
                "plain http:// is only allowed to this machine (127.0.0.0/8, ::1, localhost), not to {host}: use https:// so the secret is not sent unencrypted"
            ),
        }
    }
}

impl std::error::Error for UrlError {}

/// Checks `url` (`label` names it in messages, "the PSP URL") and returns it without
/// trailing slashes.
pub fn check_base_url(label: &'static str, url: &str, max_len: usize) -> Result<String, UrlError> {
    let err = |problem| UrlError { label, problem };
    if url.is_empty() {
        return Err(err(UrlProblem::Empty));
    }
    if url.len() > max_len {
        return Err(err(UrlProblem::TooLong { max: max_len }));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(err(UrlProblem::SpaceOrControl));
    }
    let base = url.trim_end_matches('/');
    let parsed = url::Url::parse(base).map_err(|e| err(UrlProblem::NotAUrl(e.to_string())))?;
    let tls = match parsed.scheme() {
        "https" => true,
        "http" => false,
        _ => return Err(err(UrlProblem::Scheme)),
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(err(UrlProblem::Credentials));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(err(UrlProblem::QueryOrFragment));
    }
    let host = parsed.host_str().unwrap_or("");
    if host.is_empty() {
        return Err(err(UrlProblem::NoHost));
    }
    if !tls && !is_loopback_host(host) {
        return Err(err(UrlProblem::PlainHttpRemote { host: host.to_string() }));
    }
    Ok(base.to_string())
}

/// `host` as the URL parser serialises it (IPv4 normalised, IPv6 in brackets, domains
/// lower-cased): is it this machine?
fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|a| a.is_loopback())
        || host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .and_then(|h| h.parse::<std::net::Ipv6Addr>().ok())
            .is_some_and(|a| a == std::net::Ipv6Addr::LOCALHOST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_anywhere_plain_http_only_to_this_machine_by_parsing() {
        let ok = |u| check_base_url("the URL", u, 200);
        assert_eq!(ok("https://api.example.com/").unwrap(), "https://api.example.com");
        for local in ["http://127.0.0.1:12111", "http://127.1:5", "http://localhost:9/x", "http://LOCALHOST:9", "http://[::1]:8080"] {
            assert!(ok(local).is_ok(), "{local}");
        }
        for remote in ["http://localhost.evil.example", "http://127.0.0.1.evil.example", "http://psp.example.com", "http://[::2]", "http://0.0.0.0"] {
            assert!(matches!(ok(remote).unwrap_err().problem, UrlProblem::PlainHttpRemote { .. }), "{remote}");
        }
        // a user name before the real host: refused, whatever the scheme
        for creds in ["http://127.0.0.1@evil.example", "https://127.0.0.1@evil.example", "http://localhost:80@evil.example"] {
            assert_eq!(ok(creds).unwrap_err().problem, UrlProblem::Credentials, "{creds}");
        }
        let e = ok("https://user:hunter2@example.com").unwrap_err();
        assert!(!e.to_string().contains("hunter2"), "{e}");
    }
}
