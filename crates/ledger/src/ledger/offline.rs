//! The store-and-forward queue (record 0009): payments accepted offline, in creation
//! order, and the totals the offline limits are checked against.

use std::ops::Deref;
use crate::ledger::Payments;
use super::Ledger;
use crate::error::{Error, Result};
use paydesk_domain::state::PaymentState;
use crate::types::*;

impl<L: Deref<Target = Ledger>> Payments<L> {
    /// The store-and-forward queue (record 0009), forwarded in creation order.
    pub fn offline_queue(&self) -> Result<Vec<Payment>> {
        self.in_states(&[PaymentState::QueuedOffline.as_str()])
    }

    /// Count, totals and age of the offline queue, for the offline limits.
    pub fn offline_queue_stats(&self) -> Result<OfflineQueueStats> {
        let q = self.offline_queue()?;
        let mut stats = OfflineQueueStats { count: q.len() as i64, ..Default::default() };
        for p in &q {
            // A CHECK on the table: the queue's totals only add positive amounts.
            assert!(p.amount.amount_minor > 0, "queued payment {} of {}", p.id, p.amount);
            stats.oldest_created_at_ms =
                Some(stats.oldest_created_at_ms.map_or(p.created_at_ms, |o: i64| o.min(p.created_at_ms)));
            match stats.total_minor_by_currency.iter_mut().find(|(c, _)| *c == p.amount.currency) {
                Some((_, t)) => *t = t.checked_add(p.amount.amount_minor).ok_or(Error::Overflow)?,
                None => stats.total_minor_by_currency.push((p.amount.currency, p.amount.amount_minor)),
            }
        }
        Ok(stats)
    }
}
