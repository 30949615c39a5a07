//! Finishing what was started (record 0142, "asked again"): a refund left `executing` (the
//! PSP did not answer, the back office or PostgreSQL died mid-request) is owed to a customer
//! until the PSP's definite answer is recorded. Before this, only a person pressing Execute
//! again learned it; now the server asks again on its own, with the same stored key, so the
//! PSP answers the refund it already made instead of making another.
//!
//! Only `executing` rows are resumed (`Op::Resume`): an approved refund nobody executed is a
//! person's decision still to be made, and the loop never makes it for them. Bounded: at
//! most `max_per_round` rows a round, the least-asked first; each row waits longer after each
//! unsure answer (doubling from `interval` up to `max_backoff`), so a PSP that is down is not
//! hammered and a stuck row does not starve the others. The waits live in memory: after a
//! restart every executing row is asked at the first round, which is what a restart wants.
use super::{execute, Op, OwedState};
use crate::error::ApiResult;
use crate::state::AppState;
use std::collections::HashMap;
use std::time::Instant;
use uuid::Uuid;

/// The policy lives with the other limits (`state::OwedRetryPolicy`): `state` must not
/// import this module, which imports `state`.
pub use crate::state::OwedRetryPolicy as RetryPolicy;

/// When each executing row may be asked next, and how many unsure answers in a row it had.
#[derive(Debug, Default)]
pub struct Waits {
    next: HashMap<Uuid, (u32, Instant)>,
}

/// What one round did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    pub asked: usize,
    /// Left `executing` (paid back, or refused by the PSP).
    pub settled: usize,
}

impl Waits {
    fn due(&self, id: Uuid, now: Instant) -> bool {
        self.next.get(&id).is_none_or(|(_, at)| *at <= now)
    }

    /// An unsure answer (or no answer at all): wait `interval · 2^n`, at most `max_backoff`.
    fn unsure(&mut self, id: Uuid, now: Instant, p: &RetryPolicy) {
        let n = self.next.get(&id).map_or(0, |(n, _)| *n);
        let wait = p.interval.saturating_mul(1u32 << n.min(16)).min(p.max_backoff);
        self.next.insert(id, (n.saturating_add(1), now + wait));
    }
}

/// One round: asks the PSP again about each executing refund that is due.
pub async fn round(st: &AppState, p: &RetryPolicy, waits: &mut Waits) -> ApiResult<Round> {
    let rows = {
        let client = st.pool.get().await?;
        client
            .query(
                "SELECT store_id, owed_id FROM owed_refunds WHERE state = 'executing' ORDER BY attempts, executing_ms, owed_id LIMIT $1",
                &[&p.max_per_round],
            )
            .await?
    };
    let now = Instant::now();
    let ids: Vec<(Uuid, Uuid)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    // Only rows still executing keep a wait: the map never outgrows one round's rows.
    waits.next.retain(|id, _| ids.iter().any(|(_, o)| o == id));
    let mut out = Round::default();
    for (store, id) in ids {
        if !waits.due(id, now) {
            continue;
        }
        out.asked += 1;
        match execute::drive(st, store, id, Op::Resume).await {
            Ok(o) => match o.state {
                OwedState::Succeeded | OwedState::Failed => {
                    out.settled += 1;
                    waits.next.remove(&id);
                }
                OwedState::Executing => waits.unsure(id, now, p),
                // A person's execute or the PSP's answer got there first: nothing to resume.
                OwedState::Proposed | OwedState::Approved => {
                    waits.next.remove(&id);
                }
            },
            Err(e) => {
                // No PSP account, the database gone, the row moved on: asked again later.
                tracing::warn!("owed refund {id}: asking again failed: {e}");
                waits.unsure(id, now, p);
            }
        }
    }
    Ok(out)
}

/// Runs a round every `policy.interval` until the server stops.
pub async fn retry_loop(st: AppState, mut stop: tokio::sync::watch::Receiver<bool>) {
    let policy = st.limits.owed_retry;
    let mut waits = Waits::default();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(policy.interval) => {}
            _ = stop.changed() => return,
        }
        match round(&st, &policy, &mut waits).await {
            Ok(r) if r.asked > 0 => tracing::info!("owed refunds asked again: {}, settled: {}", r.asked, r.settled),
            Ok(_) => {}
            Err(e) => tracing::warn!("owed refunds: a round failed: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_unsure_answer_doubles_the_wait_up_to_the_cap() {
        let p = RetryPolicy { interval: Duration::from_secs(10), max_per_round: 1, max_backoff: Duration::from_secs(60) };
        let (mut w, id, t0) = (Waits::default(), Uuid::nil(), Instant::now());
        assert!(w.due(id, t0), "never asked: due");
        let mut waits = vec![];
        for _ in 0..40 {
            w.unsure(id, t0, &p);
            waits.push(w.next[&id].1 - t0);
        }
        assert_eq!(&waits[..4], [10, 20, 40, 60].map(Duration::from_secs));
        assert!(waits.iter().all(|d| *d <= p.max_backoff), "the cap holds however often it was unsure");
        assert!(!w.due(id, t0 + Duration::from_secs(59)) && w.due(id, t0 + Duration::from_secs(60)));
    }
}
