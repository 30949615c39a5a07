//! What the register last saw of the PSP and of its own saved settings: whether the PSP
//! answers, whether it refuses this register, when it last answered, and why saved
//! settings are not in use yet. The status bar reads it; the background pass and the
//! engine's notifications write it.

use std::sync::Mutex;

use crate::base::{lock, now_ms};

#[derive(Default)]
pub struct Connectivity {
    /// Reachability as last observed (engine notifications and the background poll).
    online: Mutex<Option<bool>>,
    /// The PSP answers but refuses this register (wrong key, wrong URL, not a PSP):
    /// reachable, yet nothing can be charged there until Settings are fixed.
    refusing: Mutex<Option<String>>,
    last_sync_ms: Mutex<Option<i64>>,
    /// Why saved settings are not in use yet.
    waiting: Mutex<Option<String>>,
}

impl Connectivity {
    /// Records whether the PSP answered; true when that changed.
    pub fn set_online(&self, online: bool) -> bool {
        let mut o = lock(&self.online);
        if online {
            *lock(&self.last_sync_ms) = Some(now_ms());
        }
        let changed = *o != Some(online);
        *o = Some(online);
        changed
    }

    /// Records whether the PSP refuses this register; true when that changed.
    pub fn set_psp_refusing(&self, why: Option<String>) -> bool {
        let mut r = lock(&self.refusing);
        let changed = *r != why;
        *r = why;
        changed
    }

    /// Another PSP is in use: what was seen of the old one says nothing of it.
    pub fn forget(&self) {
        *lock(&self.online) = None;
        *lock(&self.refusing) = None;
    }

    pub fn online(&self) -> Option<bool> {
        *lock(&self.online)
    }

    pub fn refusing(&self) -> Option<String> {
        lock(&self.refusing).clone()
    }

    pub fn last_sync_ms(&self) -> Option<i64> {
        *lock(&self.last_sync_ms)
    }

    pub fn waiting(&self) -> Option<String> {
        lock(&self.waiting).clone()
    }

    pub fn set_waiting(&self, why: Option<String>) {
        *lock(&self.waiting) = why;
    }
}
