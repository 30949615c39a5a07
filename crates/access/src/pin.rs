//! Staff PINs (record 0063): 4 to 8 digits, stored only as an Argon2id hash in PHC form
//! (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`), so a hash keeps the parameters it was
//! made with and stronger parameters later do not lock anyone out.
//!
//! A PIN is short: the hash alone does not protect it against someone holding the
//! ledger file (10^8 guesses at most). What protects the register is the lockout
//! ([`crate::lockout`]) at the screen and the file's own permissions; the hash keeps
//! PINs out of backups, logs and the back office in clear.

use password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

pub const PIN_MIN_DIGITS: usize = 4;
pub const PIN_MAX_DIGITS: usize = 8;
/// The longest PHC string we accept from the ledger (ours are ~100 bytes).
pub const PIN_HASH_MAX_BYTES: usize = 256;

/// OWASP's Argon2id baseline: 19 MiB, 2 passes, 1 lane — ~20-50 ms a check on a
/// register, slow for a thief's guessing loop, quick for a cashier.
const MEMORY_KIB: u32 = 19 * 1024;
const PASSES: u32 = 2;
const LANES: u32 = 1;
/// The most a stored hash may ask for: room for stronger parameters later, a bound for now.
const MAX_MEMORY_KIB: u32 = 64 * 1024;
const MAX_PASSES: u32 = 10;
const MAX_LANES: u32 = 4;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PinError {
    #[error("a PIN is {PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits; this one has {0}")]
    Length(usize),
    #[error("a PIN is digits only (0-9)")]
    NotDigits,
    #[error("the stored PIN hash is not a valid Argon2 PHC string: {0}")]
    BadHash(String),
}

/// A PIN that has the right shape. Its `Debug` never shows the digits.
#[derive(Clone, PartialEq, Eq)]
pub struct Pin(String);

impl Pin {
    pub fn parse(s: &str) -> Result<Pin, PinError> {
        // Count chars, not bytes, so "１２３４" (full-width) is "not digits", not "too long".
        let n = s.chars().count();
        if !(PIN_MIN_DIGITS..=PIN_MAX_DIGITS).contains(&n) {
            return Err(PinError::Length(n));
        }
        if !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(PinError::NotDigits);
        }
        Ok(Pin(s.to_string()))
    }
}

impl fmt::Debug for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Pin(****)")
    }
}

fn hasher() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, PASSES, LANES, None).expect("constant Argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// A fresh salt and the PHC string to store.
pub fn hash_pin(pin: &Pin) -> String {
    let salt = SaltString::generate(&mut OsRng);
    hasher()
        .hash_password(pin.0.as_bytes(), &salt)
        .expect("hashing a 4-8 byte PIN with a generated salt cannot fail")
        .to_string()
}

fn parse_hash(stored: &str) -> Result<PasswordHash<'_>, PinError> {
    if stored.len() > PIN_HASH_MAX_BYTES {
        return Err(PinError::BadHash(format!("{} bytes", stored.len())));
    }
    let parsed = PasswordHash::new(stored).map_err(|e| PinError::BadHash(e.to_string()))?;
    if parsed.algorithm.as_str() != "argon2id" {
        return Err(PinError::BadHash(format!("algorithm {}", parsed.algorithm)));
    }
    if parsed.hash.is_none() || parsed.salt.is_none() {
        return Err(PinError::BadHash("no salt or no hash".into()));
    }
    let params = Params::try_from(&parsed).map_err(|e| PinError::BadHash(format!("parameters: {e}")))?;
    // A bound on what one check may cost: a hash from elsewhere asking for gigabytes
    // would stall the register at every sign-in.
    if params.m_cost() > MAX_MEMORY_KIB || params.t_cost() > MAX_PASSES || params.p_cost() > MAX_LANES {
        return Err(PinError::BadHash(format!(
            "parameters m={} t={} p={} exceed m={MAX_MEMORY_KIB} t={MAX_PASSES} p={MAX_LANES}",
            params.m_cost(),
            params.t_cost(),
            params.p_cost()
        )));
    }
    Ok(parsed)
}

/// Checks a hash made elsewhere (the back office, record 0050) before it is stored:
/// an Argon2id PHC string with a salt, a hash and parameters Argon2 accepts.
pub fn check_hash(stored: &str) -> Result<(), PinError> {
    parse_hash(stored).map(|_| ())
}

/// The Argon2 work (KiB x passes x lanes) every PIN check in this process has asked
/// for. An unknown name must cost what a wrong PIN costs (record 0063); this is how a
/// test proves it without timing anything, since time on a shared machine proves nothing.
static VERIFY_WORK: AtomicU64 = AtomicU64::new(0);

/// The Argon2 work done by [`verify_pin`] so far in this process (see `VERIFY_WORK`).
pub fn verify_work_done() -> u64 {
    VERIFY_WORK.load(Ordering::Relaxed)
}

/// Whether `pin` matches `stored`. A malformed stored hash is an error (the ledger is
/// damaged), never a silent "no".
pub fn verify_pin(pin: &Pin, stored: &str) -> Result<bool, PinError> {
    let parsed = parse_hash(stored)?;
    let params = Params::try_from(&parsed).map_err(|e| PinError::BadHash(format!("parameters: {e}")))?;
    let work = u64::from(params.m_cost()) * u64::from(params.t_cost()) * u64::from(params.p_cost());
    VERIFY_WORK.fetch_add(work, Ordering::Relaxed);
    // The parameters come from the stored string; `hasher()` only supplies defaults.
    Ok(hasher().verify_password(pin.0.as_bytes(), &parsed).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_is_checked_with_specific_errors() {
        assert_eq!(Pin::parse("123"), Err(PinError::Length(3)));
        assert_eq!(Pin::parse("123456789"), Err(PinError::Length(9)));
        assert_eq!(Pin::parse("12a4"), Err(PinError::NotDigits));
        assert_eq!(Pin::parse("１２３４"), Err(PinError::NotDigits));
        assert!(Pin::parse("0000").is_ok());
        assert!(Pin::parse("12345678").is_ok());
        assert_eq!(format!("{:?}", Pin::parse("4321").unwrap()), "Pin(****)");
    }

    #[test]
    fn hash_verifies_the_right_pin_only_and_is_salted() {
        let pin = Pin::parse("2468").unwrap();
        let a = hash_pin(&pin);
        let b = hash_pin(&pin);
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "each hash has its own salt");
        assert!(!a.contains("2468"));
        let before = verify_work_done();
        assert_eq!(verify_pin(&pin, &a), Ok(true));
        assert_eq!(verify_pin(&Pin::parse("2469").unwrap(), &a), Ok(false));
        // each check counts the work its hash asks for (other tests may add theirs)
        assert!(verify_work_done() - before >= 2 * 19456 * 2);
    }

    #[test]
    fn a_damaged_hash_is_an_error_not_a_wrong_pin() {
        let pin = Pin::parse("2468").unwrap();
        assert!(matches!(verify_pin(&pin, "not a hash"), Err(PinError::BadHash(_))));
        assert!(matches!(verify_pin(&pin, &"$".repeat(300)), Err(PinError::BadHash(_))));
        // Another algorithm is refused rather than trusted.
        let argon2i = "$argon2i$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG";
        assert!(matches!(verify_pin(&pin, argon2i), Err(PinError::BadHash(_))));
    }

    #[test]
    fn a_hash_from_elsewhere_is_checked_before_it_is_kept() {
        let good = hash_pin(&Pin::parse("2468").unwrap());
        check_hash(&good).unwrap();
        let no_hash = good.rsplit_once('$').unwrap().0;
        assert!(matches!(check_hash(no_hash), Err(PinError::BadHash(_))), "{no_hash}");
        let no_memory = good.replacen("m=19456", "m=0", 1);
        assert!(matches!(check_hash(&no_memory), Err(PinError::BadHash(_))), "{no_memory}");
        let gigabytes = good.replacen("m=19456", "m=4194304", 1);
        assert!(matches!(check_hash(&gigabytes), Err(PinError::BadHash(m)) if m.contains("exceed")), "{gigabytes}");
        assert!(matches!(check_hash("$argon2id$"), Err(PinError::BadHash(_))));
    }
}
