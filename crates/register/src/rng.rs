//! Injected randomness: checkout/refund keys (UUID v4) and retry jitter seeds.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use parking_lot::Mutex;
use std::sync::Arc;

pub trait Random: Send + Sync + 'static {
    fn next_u64(&self) -> u64;
    fn fill(&self, buf: &mut [u8]);
}

/// Operating-system entropy (production).
#[derive(Debug, Default)]
pub struct OsRandom;

impl Random for OsRandom {
    fn next_u64(&self) -> u64 {
        rand::rng().next_u64()
    }
    fn fill(&self, buf: &mut [u8]) {
        rand::rng().fill_bytes(buf)
    }
}

/// A seeded, reproducible generator (simulation and tests).
#[derive(Debug)]
pub struct SeededRandom(Mutex<ChaCha20Rng>);

impl SeededRandom {
    pub fn new(seed: u64) -> Self {
        Self(Mutex::new(ChaCha20Rng::seed_from_u64(seed)))
    }
}

impl Random for SeededRandom {
    fn next_u64(&self) -> u64 {
        self.0.lock().next_u64()
    }
    fn fill(&self, buf: &mut [u8]) {
        self.0.lock().fill_bytes(buf)
    }
}

pub type SharedRandom = Arc<dyn Random>;

/// A UUID v4 drawn from the injected generator.
pub fn new_key(rng: &dyn Random) -> String {
    let mut b = [0u8; 16];
    rng.fill(&mut b);
    uuid::Builder::from_random_bytes(b).into_uuid().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn keys_are_v4_and_seed_reproducible() {
        let a = SeededRandom::new(7);
        let b = SeededRandom::new(7);
        let ka = new_key(&a);
        assert_eq!(ka, new_key(&b));
        let u = uuid::Uuid::parse_str(&ka).unwrap();
        assert_eq!(u.get_version_num(), 4);
        assert_ne!(new_key(&OsRandom), new_key(&OsRandom));
    }
}
