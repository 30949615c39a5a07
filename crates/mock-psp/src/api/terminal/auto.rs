//! Presentations that happen later than the call that caused them, each on its own
//! task: the admin auto-present switch (a reader presents a given card N ms after a
//! process action starts, so the embedded demo works without a person), and a card
//! held by the presentation-delay fault coming due. A task acts only if the action it
//! was made for is still in progress (a cancel or another card meanwhile wins), so a
//! task scheduled twice acts once.
use super::{load_reader, present};
use crate::api::{Executed, Tx};
use crate::Inner;
use serde::Serialize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// Longest auto-present delay: ten minutes.
pub const MAX_AUTO_PRESENT_MS: u64 = 600_000;

/// The auto-present switch: present `card_number` `after_ms` after a process action
/// starts, on every reader or only on `reader`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AutoPresent {
    pub card_number: String,
    pub after_ms: u64,
    pub reader: Option<String>,
}

impl AutoPresent {
    /// Checks the card against the test cards this PSP knows.
    pub fn new(card_number: &str, after_ms: u64, reader: Option<String>) -> Result<AutoPresent, String> {
        if super::cards::lookup(card_number).is_none() {
            return Err(format!("{card_number} is not one of Stripe's card_present test card numbers"));
        }
        Ok(AutoPresent { card_number: card_number.to_string(), after_ms: after_ms.min(MAX_AUTO_PRESENT_MS), reader })
    }
}

impl Inner {
    /// After a POST to a reader: schedules what the reader will do by itself.
    pub(in crate::api) async fn terminal_after(self: &Arc<Self>, account: &str, reader: &str) {
        let (acct, rid) = (account.to_string(), reader.to_string());
        let Ok(Some(r)) = self.store.read(move |c| load_reader(c, &acct, &rid)).await else { return };
        if !r.processing() {
            return;
        }
        let seq = r.sim.action_seq;
        if let Some(p) = &r.sim.pending {
            let wait_ms = p.due_ms.saturating_sub(self.clock.now_ms()).max(0) as u64;
            self.later(account, reader, seq, None, wait_ms);
            return;
        }
        let auto = self.auto_present.lock().clone();
        if let Some(a) = auto.filter(|a| a.reader.as_deref().is_none_or(|x| x == reader)) {
            self.later(account, reader, seq, Some(a.card_number), a.after_ms);
        }
    }

    /// After a GET of a reader: a held card already due (its task gone with an earlier
    /// process) is authorized now. Only then: polling schedules nothing else.
    pub(in crate::api) async fn terminal_overdue(self: &Arc<Self>, account: &str, reader: &str) {
        let (acct, rid) = (account.to_string(), reader.to_string());
        let Ok(Some(r)) = self.store.read(move |c| load_reader(c, &acct, &rid)).await else { return };
        if r.processing() && r.sim.pending.as_ref().is_some_and(|p| p.due_ms <= self.clock.now_ms()) {
            self.later(account, reader, r.sim.action_seq, None, 0);
        }
    }

    fn later(self: &Arc<Self>, account: &str, reader: &str, seq: u64, card: Option<String>, wait_ms: u64) {
        let (this, acct, rid) = (Arc::clone(self), account.to_string(), reader.to_string());
        // Through the clock: a simulation under virtual time runs it in that time.
        let clock = self.clock.clone();
        clock.spawn(Box::pin(async move {
            this.clock.sleep(Duration::from_millis(wait_ms)).await;
            let clock = this.clock.clone();
            let (a2, r2) = (acct.clone(), rid.clone());
            let done = this
                .store
                .write(move |c, st| {
                    let now_ms = clock.now_ms();
                    let mut tx = Tx { c, st, claim_id: None, account: &a2, key: "", now: now_ms / 1000, now_ms, out: Executed::new() };
                    let r = present::later(&mut tx, &r2, seq, card.as_deref());
                    Ok((r.map(|o| o.is_some()).unwrap_or(false), tx.out))
                })
                .await;
            let Ok((acted, out)) = done else { return };
            if acted {
                this.count_background(&out);
                // A card presented by the switch may itself be held by the delay fault.
                this.terminal_after(&acct, &rid).await;
            }
        }));
    }

    fn count_background(&self, out: &Executed) {
        if out.charged {
            self.stats.charges.fetch_add(1, Relaxed);
        }
        if out.declined {
            self.stats.declines.fetch_add(1, Relaxed);
        }
        if let Some(f) = out.reader_fault {
            self.stats.reader_fault(f);
        }
    }
}
