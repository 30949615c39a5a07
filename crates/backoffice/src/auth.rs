//! Secrets: register tokens and pairing codes are random, shown once, and stored only as
//! SHA-256 hashes (they are 128+ random bits, so a slow hash adds nothing); a presented
//! secret is compared with the stored hash in constant time (record 0038).
use crate::error::ApiError;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

/// A register's token: `pdr.<store_id>.<register_id>.<64 hex>`. The ids route the lookup
/// to one row (and, on Citus, one shard); the secret part proves who is asking.
pub const TOKEN_PREFIX: &str = "pdr";

pub fn sha256(b: &[u8]) -> Vec<u8> {
    Sha256::digest(b).to_vec()
}

fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut b);
    hex::encode(b)
}

/// A new token for a register, and the hash to store.
pub fn new_token(store: Uuid, register: Uuid) -> (String, Vec<u8>) {
    let secret = random_hex(32);
    let hash = sha256(secret.as_bytes());
    (format!("{TOKEN_PREFIX}.{store}.{register}.{secret}"), hash)
}

/// A token split into its ids and secret; anything malformed is "unauthenticated".
pub struct PresentedToken {
    pub store_id: Uuid,
    pub register_id: Uuid,
    secret: String,
}

impl PresentedToken {
    pub fn parse(header: Option<&str>) -> Result<PresentedToken, ApiError> {
        let raw = header.and_then(|h| h.strip_prefix("Bearer ")).ok_or(ApiError::Unauthenticated)?;
        if raw.len() > 200 {
            return Err(ApiError::Unauthenticated);
        }
        let mut parts = raw.split('.');
        let (Some(TOKEN_PREFIX), Some(s), Some(r), Some(secret), None) = (parts.next(), parts.next(), parts.next(), parts.next(), parts.next()) else {
            return Err(ApiError::Unauthenticated);
        };
        let store_id = Uuid::parse_str(s).map_err(|_| ApiError::Unauthenticated)?;
        let register_id = Uuid::parse_str(r).map_err(|_| ApiError::Unauthenticated)?;
        Ok(PresentedToken { store_id, register_id, secret: secret.to_string() })
    }

    /// Does this token's secret hash to `stored`? Constant time in the secret.
    pub fn matches(&self, stored: &[u8]) -> bool {
        sha256(self.secret.as_bytes()).ct_eq(stored).into()
    }
}

/// A pairing code for people to type: 16 characters of an alphabet without look-alikes,
/// shown as four groups (`ABCD-EFGH-JKMN-PQRS`); 80 random bits.
pub fn new_pairing_code() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTVWXYZ0123456789";
    let mut b = [0u8; 16];
    rand::rng().fill_bytes(&mut b);
    let chars: Vec<char> = b.iter().map(|x| ALPHABET[(*x as usize) % ALPHABET.len()] as char).collect();
    chars.chunks(4).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("-")
}

/// The form a pairing code is hashed in: upper case, without dashes and spaces, so a
/// person may type it either way.
pub fn pairing_code_hash(code: &str) -> Vec<u8> {
    let norm: String = code.chars().filter(|c| *c != '-' && *c != ' ').map(|c| c.to_ascii_uppercase()).collect();
    sha256(norm.as_bytes())
}

/// The owner's credential for the admin API and the dashboard.
#[derive(Clone)]
pub struct AdminToken(Vec<u8>);

impl AdminToken {
    pub fn new(token: &str) -> AdminToken {
        AdminToken(sha256(token.as_bytes()))
    }

    pub fn matches(&self, presented: &str) -> bool {
        sha256(presented.as_bytes()).ct_eq(&self.0).into()
    }
}
