//! Locations and readers: create (on the writer thread, under the claim; a re-drive
//! finds what its claim created), and the reads — one object, or Stripe's list with
//! its filters. A reader's `status` and `last_seen_at` are computed as it is read.
use super::params::{NewLocation, NewReader};
use super::{load_reader, Reader, Sim, MAX_LOCATIONS_PER_ACCOUNT, MAX_READERS_PER_ACCOUNT};
use crate::api::errors::{db, internal, invalid, missing, ApiError};
use crate::api::lists::{list, ListFilter, ListParams};
use crate::api::params::{P, EXPAND};
use crate::api::{json_response, load, PspResponse, Tx};
use crate::form::Params;
use crate::Inner;
use rusqlite::params;
use serde_json::{json, Value};

fn count(tx: &Tx, table: &'static str) -> Result<i64, ApiError> {
    let sql = format!("SELECT count(*) FROM {table} WHERE account=?1");
    tx.c.prepare_cached(&sql).and_then(|mut s| s.query_row(params![tx.account], |r| r.get(0))).map_err(db)
}

/// `POST /v1/terminal/locations`.
pub(super) fn create_location(tx: &mut Tx, l: &NewLocation) -> Result<String, ApiError> {
    if let Some(obj) = tx.created_by_this_claim("terminal_locations")? {
        return Ok(obj);
    }
    if count(tx, "terminal_locations")? >= MAX_LOCATIONS_PER_ACCOUNT {
        return Err(invalid("terminal_location_limit_reached", format!("This account already has {MAX_LOCATIONS_PER_ACCOUNT} locations, the most it may have."), None));
    }
    let id = tx.st.mint("tml");
    let mut address = json!({"city": null, "country": null, "line1": null, "line2": null, "postal_code": null, "state": null});
    for (k, v) in &l.address {
        address[k.as_str()] = json!(v);
    }
    let obj = json!({
        "id": id, "object": "terminal.location", "address": address, "display_name": l.display_name,
        "livemode": false, "metadata": l.metadata,
    });
    let text = obj.to_string();
    tx.c.prepare_cached("INSERT INTO terminal_locations (id, account, claim_id, created, obj) VALUES (?1,?2,?3,?4,?5)")
        .and_then(|mut s| s.execute(params![id, tx.account, tx.claim_id, tx.now, text]))
        .map_err(db)?;
    Ok(text)
}

/// `POST /v1/terminal/readers`: registers a simulated reader, online, no action.
pub(super) fn create_reader(tx: &mut Tx, n: &NewReader) -> Result<String, ApiError> {
    if let Some(obj) = tx.created_by_this_claim("terminal_readers")? {
        return Ok(obj);
    }
    if let Some(loc) = &n.location {
        load(tx.c, "terminal_locations", tx.account, loc)?.ok_or_else(|| missing("terminal.location", loc, Some("location")))?;
    }
    if count(tx, "terminal_readers")? >= MAX_READERS_PER_ACCOUNT {
        return Err(invalid("terminal_reader_limit_reached", format!("This account already has {MAX_READERS_PER_ACCOUNT} readers, the most it may have."), None));
    }
    let id = tx.st.mint("tmr");
    let serial = format!("SIM-{}", tx.st.random_alnum(12).to_ascii_uppercase());
    let obj = json!({
        "id": id, "object": "terminal.reader", "action": null, "device_sw_version": "2.37.2.0",
        "device_type": n.device_type, "ip_address": "0.0.0.0",
        "label": n.label.clone().unwrap_or_else(|| n.registration_code.clone()),
        "last_seen_at": tx.now_ms, "livemode": false, "location": n.location, "metadata": n.metadata,
        "serial_number": serial, "status": "online",
    });
    let text = obj.to_string();
    tx.c.prepare_cached("INSERT INTO terminal_readers (id, account, claim_id, created, obj, sim) VALUES (?1,?2,?3,?4,?5,'{}')")
        .and_then(|mut s| s.execute(params![id, tx.account, tx.claim_id, tx.now, text]))
        .map_err(db)?;
    Ok(text)
}

const LIST: &[&str] = &["limit", "starting_after", "ending_before", EXPAND];

impl Inner {
    /// `GET /v1/terminal/locations/:id`.
    pub(in crate::api) async fn get_location(&self, account: &str, id: &str, params: &Params) -> Result<PspResponse, ApiError> {
        P::new(params, &[EXPAND], false)?;
        let loc = self.read_object("terminal_locations", account, id).await?.ok_or_else(|| missing("terminal.location", id, Some("location")))?;
        Ok(json_response(&loc))
    }

    /// `GET /v1/terminal/locations`.
    pub(in crate::api) async fn list_locations(&self, account: &str, params: &Params) -> Result<PspResponse, ApiError> {
        let p = P::new(params, LIST, false)?;
        let lp = ListParams::from(&p)?;
        let acct = account.to_string();
        let page = self.store.read(move |c| list(c, "terminal_locations", &acct, &lp, ListFilter::None, "/v1/terminal/locations")).await.map_err(internal)??;
        Ok(PspResponse::new(200, page.to_bytes()))
    }

    /// `GET /v1/terminal/readers/:id`.
    pub(in crate::api) async fn get_reader(&self, account: &str, id: &str, params: &Params) -> Result<PspResponse, ApiError> {
        P::new(params, &[EXPAND], false)?;
        let (acct, rid) = (account.to_string(), id.to_string());
        let r: Option<Reader> = self.store.read(move |c| load_reader(c, &acct, &rid)).await.map_err(internal)?;
        let r = r.ok_or_else(|| missing("terminal.reader", id, None))?;
        Ok(json_response(&r.public(self.clock.now_ms())))
    }

    /// `GET /v1/terminal/readers` with Stripe's filters: `device_type`, `location`,
    /// `serial_number`, `status` (`online`/`offline`, as of now).
    pub(in crate::api) async fn list_readers(&self, account: &str, params: &Params) -> Result<PspResponse, ApiError> {
        let mut allowed = LIST.to_vec();
        allowed.extend(["device_type", "location", "serial_number", "status"]);
        let p = P::new(params, &allowed, false)?;
        let lp = ListParams::from(&p)?;
        let mut fields = vec![];
        for f in ["device_type", "location", "serial_number"] {
            if let Some(v) = p.get(f) {
                fields.push((f, v.to_string()));
            }
        }
        let now_ms = self.clock.now_ms();
        let online = match p.get("status") {
            None => None,
            Some("online") => Some(true),
            Some("offline") => Some(false),
            Some(_) => return Err(invalid("parameter_invalid_string", "status must be online or offline.", Some("status"))),
        };
        let acct = account.to_string();
        let page = self
            .store
            .read(move |c| {
                let page = list(c, "terminal_readers", &acct, &lp, ListFilter::Readers { fields, online, now_ms }, "/v1/terminal/readers")?;
                let Ok(mut page) = page else { return Ok(page) };
                // Each reader as it reads now (its status follows the simulation).
                page.map_data(|text| {
                    let obj: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                    let id = obj["id"].as_str().unwrap_or("").to_string();
                    let sim: Sim = c
                        .prepare_cached("SELECT sim FROM terminal_readers WHERE id=?1")
                        .and_then(|mut s| s.query_row(params![id], |r| r.get::<_, String>(0)))
                        .ok()
                        .and_then(|s| serde_json::from_str(&s).ok())
                        .unwrap_or_default();
                    Reader { obj, sim }.public(now_ms).to_string()
                });
                Ok(Ok(page))
            })
            .await
            .map_err(internal)??;
        Ok(PspResponse::new(200, page.to_bytes()))
    }
}
