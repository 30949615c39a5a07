//! Putting saved settings in use: the engine is rebuilt only while nothing is in flight,
//! and a change of PSP waits until every payment sent to the old one is settled there.

use std::time::Duration;

use paydesk_register::Engine;
use serde::Serialize;

use super::{AppState, Live};
use crate::config::FaultProfile;
use crate::settings_file::{PspInUse, Settings, EMBEDDED_KEY};

/// What saving settings did (shown to the cashier).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "reason", rename_all = "snake_case")]
pub enum Applied {
    /// Nothing the engine uses changed.
    Unchanged,
    /// The engine was rebuilt with the new settings.
    Now,
    /// Saved, not yet in use; the reason says what it waits for.
    Waiting(String),
}

impl AppState {
    /// Puts the saved settings in use when it is safe; otherwise says what it waits for
    /// (the background pass calls this again every few seconds).
    ///
    /// Safe means: no checkout, refund or background pass is in flight (the gate), and,
    /// when the PSP itself changes (URL or key: another merchant account), no payment or
    /// refund whose outcome is unknown at the old PSP and no offline payment that may
    /// have reached it — those keys must be settled where they were sent, or sending
    /// them to the new PSP could charge the customer a second time.
    /// `wait`: how long to wait for operations in flight to finish (zero: don't).
    pub async fn apply_settings(&self, wait: Duration) -> Applied {
        let wanted = self.stored.settings();
        let current = self.live();
        let engine_settings =
            |s: &Settings| Settings { fault_profile: FaultProfile::default(), language: None, idle_lock_s: 0, ..s.clone() };
        if engine_settings(&wanted) == engine_settings(&current.settings) {
            self.connectivity.set_waiting(None);
            return Applied::Unchanged;
        }
        let outcome = self.try_apply(&wanted, &current, wait).await;
        self.connectivity.set_waiting(match &outcome {
            Applied::Waiting(r) => Some(r.clone()),
            _ => None,
        });
        outcome
    }

    async fn try_apply(&self, wanted: &Settings, current: &Live, wait: Duration) -> Applied {
        let Some(_swap) = self.engines.swap_lock(wait).await else {
            return Applied::Waiting(
                "the register is talking to the processor right now; the new settings apply as soon as that finishes".into(),
            );
        };
        let (new_url, new_key) = if wanted.embedded() {
            (self.embedded().map(|e| e.url.clone()), EMBEDDED_KEY.to_string())
        } else {
            (Some(wanted.psp_url.clone()), wanted.psp_key.clone())
        };
        let psp_changes = new_url.as_deref() != Some(current.psp_url.as_str()) || new_key != current.psp_key;
        if psp_changes {
            match self.unsettled_at_psp(&current.engine) {
                Ok(0) => {}
                Ok(n) => {
                    return Applied::Waiting(format!(
                        "{n} payment{} sent to the current processor {} not settled yet; the new processor is used once {} settled there (never sent twice)",
                        if n == 1 { "" } else { "s" },
                        if n == 1 { "is" } else { "are" },
                        if n == 1 { "it is" } else { "they are" },
                    ))
                }
                Err(e) => return Applied::Waiting(format!("could not check the open payments ({e})")),
            }
        }
        match self.engines.build(wanted).await {
            Ok(live) => {
                // Recorded before the first request can go to the new PSP: after a crash
                // from here on, the restart goes on with the new one, which is right.
                if psp_changes {
                    if let Err(e) = PspInUse::of(wanted).save(&self.stored.data_dir, &self.stored.secrets) {
                        return Applied::Waiting(format!("could not record the processor in use ({e})"));
                    }
                }
                // What the status bar says waits is over the moment the new settings are
                // live: cleared first, so no status shows the new PSP in use and "waiting"
                // together (apply_settings clears it again after; harmless).
                self.connectivity.set_waiting(None);
                self.engines.replace(live);
                if psp_changes {
                    self.connectivity.forget();
                }
                Applied::Now
            }
            Err(e) => Applied::Waiting(format!("the new settings could not be used: {e}")),
        }
    }

    /// Payments and refunds the current PSP may have received without the register
    /// knowing the outcome: unknown outcomes, and offline payments with an attempt
    /// that possibly reached it.
    fn unsettled_at_psp(&self, engine: &Engine) -> Result<usize, paydesk_ledger::Error> {
        engine.payments().unsettled_at_psp()
    }
}
