//! The idempotent event consumer (record 0011): poll `/v1/events` from the stored
//! cursor minus an overlap, apply each event exactly once, oldest first, and persist
//! the cursor only once everything up to it is applied.

use super::{CrashPoint, Engine, EngineError, EventsReport, Result};
use crate::notify::Subject;
use crate::psp::{AttemptOutcome, Event, List};
use crate::retry::PhaseResult;
use paydesk_ledger::{ApplyOutcome, EventKind, PspEvent};
use paydesk_domain::{Currency, Money};

/// Pages of `GET /v1/events` (100 events a page) one poll reads at most: a bound on
/// the loop against a PSP that keeps answering `has_more`. 1 000 pages is 100 000
/// events, far more than a register's overlap window holds; a poll cut short applies
/// what it read (exactly once) and leaves the cursor where it was.
pub const MAX_EVENT_PAGES_PER_POLL: u32 = 1_000;

impl Engine {
    /// record 0011: poll `/v1/events` (from the newest event seen minus the overlap
    /// window, so redelivery happens), apply each exactly once, oldest first.
    pub async fn consume_events(&self) -> Result<EventsReport> {
        let _one = self.inner.events_lock.lock().await;
        let mut rep = EventsReport::default();
        let since = self.events_since_s()?;
        let (mut events, complete) = self.fetch_events(since, &mut rep).await?;
        if !complete {
            tracing::warn!(pages = rep.pages, "event poll stopped at its page limit; the cursor stays, the next poll reads again");
        }
        self.set_online(true);
        rep.fetched = events.len() as u32;
        events.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
        let mut newest = None;
        for (i, ev) in events.iter().enumerate() {
            if i == 1 {
                self.crash(CrashPoint::MidEventApply);
            }
            let pe = to_psp_event(ev);
            let now = self.now();
            match self.with_ledger(|l| l.sync_log_mut().apply_event(&pe, now))? {
                ApplyOutcome::Applied { .. } => rep.applied += 1,
                ApplyOutcome::AlreadyApplied => rep.duplicates += 1,
            }
            newest = Some(newest.map_or(ev.created, |n: i64| n.max(ev.created)));
        }
        if let Some(n) = newest.filter(|_| complete) {
            self.advance_event_cursor(n)?;
        }
        Ok(rep)
    }

    /// Where a poll starts (seconds): the newest event seen minus the overlap window, so
    /// redelivery happens. No cursor yet: look back from now, or from this register's
    /// first payment if that is older (a first poll long after the first sales — the PSP
    /// was unreachable, the register was busy — must still see their events).
    fn events_since_s(&self) -> Result<i64> {
        let now_s = self.now() / 1000;
        let stored = *self.inner.events_cursor.lock();
        Ok(match stored {
            Some(c) => c - self.inner.cfg.events_overlap.as_secs() as i64,
            None => {
                let first_s = self.with_reader(|l| l.payments().first_created_at_ms())?.map(|ms| ms / 1000);
                first_s.map_or(now_s, |f| f.min(now_s)) - self.inner.cfg.events_lookback.as_secs() as i64
            }
        })
    }

    /// The events since `since`, every page up to [`MAX_EVENT_PAGES_PER_POLL`]; true when
    /// the last page was read. Pages come newest first: stopping early leaves the oldest
    /// events of the window unread, so a cut-short poll applies what it read but keeps
    /// the cursor.
    async fn fetch_events(&self, since: i64, rep: &mut EventsReport) -> Result<(Vec<Event>, bool)> {
        let mut events: Vec<Event> = Vec::new();
        let mut after: Option<String> = None;
        let psp = &self.inner.psp;
        for _ in 0..MAX_EVENT_PAGES_PER_POLL {
            let a = after.clone();
            let c = psp.clone();
            let res = self
                .background_get::<List<Event>>(move || c.list_events_request(Some(since.max(0)), a.as_deref(), 100), &Subject::Checkout("events".into()))
                .await;
            let page = match res {
                PhaseResult::Final(AttemptOutcome::Ok { value, .. }) => value,
                PhaseResult::Final(AttemptOutcome::Fatal(f)) => return Err(EngineError::PspConfig(f.message())),
                PhaseResult::Final(
                    AttemptOutcome::Declined { .. } | AttemptOutcome::Retry { .. } | AttemptOutcome::Unknown { .. },
                )
                | PhaseResult::Exhausted { .. } => {
                    return Err(EngineError::PspRejected("event list unavailable; will retry".into()))
                }
            };
            rep.pages += 1;
            let n = page.data.len();
            after = page.data.last().map(|e| e.id.clone());
            events.extend(page.data);
            if !page.has_more || n == 0 {
                return Ok((events, true));
            }
        }
        Ok((events, false))
    }

    /// Every event up to `newest` is applied (committed): a restarted register resumes
    /// from here. One small commit, only when the cursor moves forward.
    fn advance_event_cursor(&self, newest: i64) -> Result<()> {
        let old = *self.inner.events_cursor.lock();
        if old.is_none_or(|o| newest > o) {
            let now = self.now();
            let stored = self.with_ledger(|l| l.sync_log_mut().advance_event_cursor(&self.inner.events_psp, newest.max(0), now))?;
            *self.inner.events_cursor.lock() = Some(stored);
        }
        Ok(())
    }
}

/// Map a Stripe event to the ledger's event input.
pub fn to_psp_event(ev: &Event) -> PspEvent {
    let obj = &ev.data.object;
    let s = |k: &str| obj.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let meta = |k: &str| obj.get("metadata").and_then(|m| m.get(k)).and_then(|v| v.as_str()).map(str::to_string);
    let object_type = s("object").unwrap_or_default();
    let currency = s("currency").and_then(|c| c.parse::<Currency>().ok());
    let status = s("status");
    let kind = EventKind::from_stripe(&ev.event_type, status.as_deref());
    let (psp_payment_id, checkout_key, psp_refund_id, refund_key, amount) = match object_type.as_str() {
        "payment_intent" => {
            let amt = obj.get("amount").and_then(|v| v.as_i64());
            (s("id"), meta("checkout_key"), None, None, amt.zip(currency).map(|(a, c)| Money::new(a, c)))
        }
        "refund" => {
            let amt = obj.get("amount").and_then(|v| v.as_i64());
            (s("payment_intent"), meta("checkout_key"), s("id"), meta("refund_key"), amt.zip(currency).map(|(a, c)| Money::new(a, c)))
        }
        "charge" => {
            // charge.refunded: the refund is identified by the request's idempotency key
            // (our refund key); its amount comes from the ledger's refund row.
            (s("payment_intent"), meta("checkout_key"), None, ev.request.as_ref().and_then(|r| r.idempotency_key.clone()), None)
        }
        "terminal.reader" => {
            // terminal.reader.action_succeeded / action_failed: no state change of its own
            // (only the intent proves paid or not charged), but it lands on the payment's
            // timeline, applied once like every event (decision 0102).
            let pi = obj
                .get("action")
                .and_then(|a| a.get("process_payment_intent"))
                .and_then(|p| p.get("payment_intent"))
                .and_then(|v| v.as_str().map(str::to_string).or_else(|| v.get("id").and_then(|i| i.as_str()).map(str::to_string)));
            (pi, None, None, None, None)
        }
        _ => (None, None, None, None, None),
    };
    PspEvent {
        event_id: ev.id.clone(),
        event_type: ev.event_type.clone(),
        kind,
        psp_payment_id,
        checkout_key,
        psp_refund_id,
        refund_key,
        amount,
    }
}
