//! Strict `application/x-www-form-urlencoded` parsing (Stripe's bracket notation is
//! kept as flat keys such as `metadata[checkout_key]`), and the request fingerprint.
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Parameters as received, in order.
pub type Params = Vec<(String, String)>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormError(pub String);

fn hexval(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

fn decode(raw: &[u8]) -> Result<String, FormError> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let (Some(h), Some(l)) = (
                    raw.get(i + 1).copied().and_then(hexval),
                    raw.get(i + 2).copied().and_then(hexval),
                ) else {
                    return Err(FormError("malformed percent-encoding in form body".into()));
                };
                out.push(h * 16 + l);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| FormError("form body is not valid UTF-8".into()))
}

/// Parses a form body or query string. Invalid UTF-8 (raw or percent-encoded),
/// malformed escapes, empty names and control characters are errors.
pub fn parse(raw: &[u8]) -> Result<Params, FormError> {
    if std::str::from_utf8(raw).is_err() {
        return Err(FormError("request body is not valid UTF-8".into()));
    }
    let mut out = Vec::new();
    for part in raw.split(|&b| b == b'&') {
        if part.is_empty() {
            continue;
        }
        let (k, v) = match part.iter().position(|&b| b == b'=') {
            Some(p) => (&part[..p], &part[p + 1..]),
            None => (part, &b""[..]),
        };
        let k = decode(k)?;
        let v = decode(v)?;
        if k.is_empty() {
            return Err(FormError("form body has a parameter with an empty name".into()));
        }
        if k.chars().chain(v.chars()).any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r') {
            return Err(FormError(format!("parameter {k} contains control characters")));
        }
        out.push((k, v));
    }
    Ok(out)
}

/// Canonical form of the parameters: sorted by name, values in order of appearance.
pub fn canonical(params: &Params) -> BTreeMap<String, Vec<String>> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, v) in params {
        m.entry(k.clone()).or_default().push(v.clone());
    }
    m
}

/// Fingerprint of method + path + canonical parameters (hex SHA-256).
pub fn fingerprint(method: &str, path: &str, params: &Params) -> (String, String) {
    let canon = canonical(params);
    let json = serde_json::to_string(&canon).unwrap_or_default();
    let mut h = Sha256::new();
    h.update(method.as_bytes());
    h.update(b"\n");
    h.update(path.as_bytes());
    h.update(b"\n");
    h.update(json.as_bytes());
    (hex::encode(h.finalize()), json)
}

/// The first parameter (in sorted order) whose value differs between two canonical
/// parameter sets stored as JSON.
pub fn first_difference(a_json: &str, b_json: &str) -> Option<String> {
    let a: BTreeMap<String, Vec<String>> = serde_json::from_str(a_json).unwrap_or_default();
    let b: BTreeMap<String, Vec<String>> = serde_json::from_str(b_json).unwrap_or_default();
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().find(|k| a.get(*k) != b.get(*k)).cloned()
}

pub fn encode(params: &[(&str, &str)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        s.append_pair(k, v);
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_brackets_and_rejects_bad_bytes() {
        let p = parse(b"amount=100&metadata%5Bcheckout_key%5D=a+b&confirm=true").unwrap();
        assert_eq!(p[1], ("metadata[checkout_key]".to_string(), "a b".to_string()));
        assert!(parse(b"a=%zz").is_err());
        assert!(parse(b"a=%ff").is_err());
        assert!(parse(&[b'a', b'=', 0xff]).is_err());
        assert!(parse(b"=x").is_err());
    }
    #[test]
    fn first_difference_is_sorted_first() {
        let (_, a) = fingerprint("POST", "/x", &parse(b"currency=usd&amount=1").unwrap());
        let (_, b) = fingerprint("POST", "/x", &parse(b"currency=eur&amount=2").unwrap());
        assert_eq!(first_difference(&a, &b).as_deref(), Some("amount"));
    }
}
