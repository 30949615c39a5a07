//! Events: written with each state change of an intent or a charge (`emit`, on the
//! writer thread, in the operation's transaction), `GET /v1/events/:id`, and the event
//! list — with the duplicate-events fault, which redelivers older events and shuffles
//! a page's interior as real webhooks and event feeds can.
use super::errors::{db, internal, missing, ApiError};
use super::lists::{list, ListFilter, ListParams};
use super::params::{EXPAND, P};
use super::{json_response, PspResponse, Tx, STRIPE_API_VERSION};
use crate::faults::Fault;
use crate::form::Params;
use crate::store::StoreError;
use crate::Inner;
use rand::Rng;
use rusqlite::{params, Connection};
use serde_json::Value;

/// How many recent events the duplicate-events fault draws its redeliveries from.
const REDELIVERY_POOL: i64 = 50;

impl Inner {
    /// `GET /v1/events/:id`.
    pub(super) async fn get_event(&self, account: &str, id: &str, params: &Params) -> Result<PspResponse, ApiError> {
        P::new(params, &[EXPAND], false)?;
        let ev = self.read_object("events", account, id).await?.ok_or_else(|| missing("event", id, Some("id")))?;
        Ok(json_response(&ev))
    }

    /// `GET /v1/events` (list params, `type`, `types[]`); `duplicates`: the fault drew
    /// a redelivery for this request.
    pub(super) async fn list_events(&self, account: &str, params: &Params, duplicates: bool) -> Result<PspResponse, ApiError> {
        let p = P::new(params, &["limit", "starting_after", "ending_before", "created", "created[gt]", "created[gte]", "created[lt]", "created[lte]", "type", "types[]", "delivery_success", EXPAND], false)?;
        let lp = ListParams::from(&p)?;
        let mut types: Vec<String> = p.all("types[]");
        if let Some(t) = p.get("type") {
            types.push(t.to_string());
        }
        let filter = if types.is_empty() { ListFilter::None } else { ListFilter::EventTypes(types) };
        let acct = account.to_string();
        let page = self.store.read(move |c| list(c, "events", &acct, &lp, filter, "/v1/events")).await.map_err(internal)??;
        if !duplicates {
            return Ok(PspResponse::new(200, page.to_bytes()));
        }
        let mut page = page.to_value();
        let acct = account.to_string();
        let older = self.store.read(move |c| recent_events(c, &acct, REDELIVERY_POOL)).await.map_err(internal)?;
        if self.redeliver(&mut page, older) {
            self.stats.fault(Fault::DuplicateEvents);
        }
        Ok(json_response(&page))
    }

    /// Duplicate + out-of-order redelivery: older events are inserted again and the
    /// page's interior is shuffled. The first and last items stay in place so that
    /// `starting_after`/`ending_before` cursors taken from them never skip an event.
    fn redeliver(&self, page: &mut Value, older: Vec<Value>) -> bool {
        let Some(data) = page.get_mut("data").and_then(|d| d.as_array_mut()) else { return false };
        if data.len() < 2 || older.is_empty() {
            return false;
        }
        let first_seq = data.iter().map(|e| e["created"].as_i64().unwrap_or(0)).max().unwrap_or(0);
        self.faults.with_rng(|rng| {
            let last = data.pop().unwrap();
            let first = data.remove(0);
            // Shuffle the interior (Fisher-Yates).
            for i in (1..data.len()).rev() {
                let j = rng.random_range(0..=i);
                data.swap(i, j);
            }
            let n = rng.random_range(1..=3usize);
            for _ in 0..n {
                let ev = &older[rng.random_range(0..older.len())];
                if ev["created"].as_i64().unwrap_or(0) <= first_seq {
                    let pos = rng.random_range(0..=data.len());
                    data.insert(pos, ev.clone());
                }
            }
            data.insert(0, first);
            data.push(last);
        });
        true
    }
}

/// The text of an event whose `data.object` is `obj_json` (an object's JSON text),
/// without parsing or re-serialising the object. Fields in Stripe's order (`id` first).
/// Not compared to a `serde_json::Value` serialisation byte for byte: that order depends
/// on whether a crate in the build enables serde_json's `preserve_order` (the
/// workspace build does, a standalone mock-psp build does not).
fn event_json(id: &str, now: i64, typ: &str, key: &str, obj_json: &str) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let mut ev = String::with_capacity(obj_json.len() + 256);
    ev.push_str("{\"id\":");
    ev.push_str(&q(id));
    ev.push_str(",\"object\":\"event\",\"api_version\":");
    ev.push_str(&q(STRIPE_API_VERSION));
    ev.push_str(",\"created\":");
    ev.push_str(&now.to_string());
    ev.push_str(",\"data\":{\"object\":");
    ev.push_str(obj_json);
    ev.push_str("},\"livemode\":false,\"pending_webhooks\":0,\"request\":{\"id\":null,\"idempotency_key\":");
    // Empty for what the PSP did by itself (a reader presenting later): no request.
    ev.push_str(&if key.is_empty() { "null".to_string() } else { q(key) });
    ev.push_str("},\"type\":");
    ev.push_str(&q(typ));
    ev.push('}');
    ev
}

/// Records an event of type `typ` about the object `obj_json` (its JSON text), in the
/// operation's transaction.
pub(super) fn emit(tx: &mut Tx, typ: &str, obj_json: &str) -> Result<(), ApiError> {
    let id = tx.st.mint("evt");
    let ev = event_json(&id, tx.now, typ, tx.key, obj_json);
    tx.c.prepare_cached("INSERT INTO events (id, account, created, type, obj) VALUES (?1,?2,?3,?4,?5)")
        .and_then(|mut s| s.execute(params![id, tx.account, tx.now, typ, ev]))
        .map_err(db)?;
    Ok(())
}

fn recent_events(c: &Connection, account: &str, n: i64) -> Result<Vec<Value>, StoreError> {
    let mut st = c.prepare_cached("SELECT obj FROM events WHERE account=?1 ORDER BY seq DESC LIMIT ?2")?;
    let rows = st.query_map(params![account, n], |r| r.get::<_, String>(0))?;
    let mut v = Vec::new();
    for r in rows {
        v.push(serde_json::from_str(&r?).unwrap_or(Value::Null));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `event_json` splices the object's text into the envelope: the same JSON as
    /// building the event as a `Value` (whatever serde_json's key-order feature in this
    /// build), the object's bytes verbatim, `id` first as Stripe sends it.
    #[test]
    fn event_json_is_the_same_json_as_the_value_and_keeps_the_object_bytes() {
        let obj = json!({"id": "pi_1", "amount": 1999, "metadata": {"k": "v \"q\" \\ é \u{1}"}, "z": null});
        let obj_text = obj.to_string();
        for (id, key, typ) in [("evt_1", "key-1", "payment_intent.succeeded"), ("evt_\"2", "k\\\n\u{7f}ü", "charge.refunded")] {
            let want = json!({
                "id": id, "object": "event", "api_version": STRIPE_API_VERSION, "created": 1_700_000_000,
                "data": {"object": obj}, "livemode": false, "pending_webhooks": 0,
                "request": {"id": null, "idempotency_key": key}, "type": typ,
            });
            let got = event_json(id, 1_700_000_000, typ, key, &obj_text);
            assert_eq!(serde_json::from_str::<Value>(&got).unwrap(), want, "{got}");
            assert!(got.contains(&format!("\"data\":{{\"object\":{obj_text}}}")), "{got}");
            assert!(got.starts_with(&format!("{{\"id\":{}", serde_json::to_string(id).unwrap())), "{got}");
        }
    }
}
