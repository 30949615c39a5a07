//! The idempotency layer (record 0016): every POST carries an `Idempotency-Key`; its
//! first use claims the key (INSERT under UNIQUE(account, key), committed before
//! execution), a finished key replays its stored answer byte for byte, other
//! parameters are a mismatch (400), a key still executing is in use (409 +
//! `Retry-After`), a claim whose lock expired is re-driven by the next retry — and
//! execution is keyed by the claim, so a re-drive never charges twice.
use super::errors::{internal, invalid, key_in_use, key_reused, ApiError};
use super::params::{self, Action};
use super::{intents, refunds, should_retry, Executed, PspRequest, PspResponse, Tx};
use crate::faults::{Decision, Fault};
use crate::form;
use crate::store::{self, IdemRow, StoreError, WriterState};
use crate::Inner;
use rusqlite::{params, Connection, OptionalExtension};
use std::ops::ControlFlow;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// Longest accepted idempotency key, in characters (Stripe's limit).
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 255;

/// The request's idempotency key: exactly one `Idempotency-Key` header, 1 to 255
/// printable ASCII characters (what an HTTP header carries unambiguously; a transport
/// hands other bytes over as U+FFFD, see `http.rs`). Each way to get it wrong has its
/// own message, so a client learns what to fix.
pub(super) fn idempotency_key(req: &PspRequest) -> Result<&str, ApiError> {
    let mut keys = req.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("idempotency-key")).map(|(_, v)| v.as_str());
    let Some(k) = keys.next() else {
        return Err(invalid("idempotency_key_missing", "An Idempotency-Key header is required for POST requests.", None));
    };
    let more = keys.count();
    if more > 0 {
        return Err(invalid("idempotency_key_duplicate", format!("The request has {} Idempotency-Key headers; send exactly one (the server does not pick one for you).", more + 1), None));
    }
    if k.trim().is_empty() {
        return Err(invalid("idempotency_key_invalid", "The Idempotency-Key header must not be empty.", None));
    }
    if let Some((i, c)) = k.chars().enumerate().find(|(_, c)| !(' '..='~').contains(c)) {
        let what = match c {
            '\u{fffd}' => "a byte that is not valid UTF-8".to_string(),
            c if c.is_control() => format!("the control character U+{:04X}", c as u32),
            c => format!("the non-ASCII character U+{:04X} '{c}'", c as u32),
        };
        return Err(invalid("idempotency_key_not_ascii", format!("The Idempotency-Key header must be printable ASCII (space to '~'); character {} is {what}. A UUID makes a good key.", i + 1), None));
    }
    if k.len() > MAX_IDEMPOTENCY_KEY_LEN {
        return Err(invalid("idempotency_key_invalid", format!("The Idempotency-Key header must be at most {MAX_IDEMPOTENCY_KEY_LEN} characters (got {}).", k.len()), None));
    }
    Ok(k)
}

/// What one POST executes, owned so that it can travel to the writer thread and to a
/// detached task: the account and key it acts under, the validated action, and the
/// internal-error fault (execution begins and fails: a stored 500).
#[derive(Clone)]
struct Exec {
    account: String,
    key: String,
    action: Action,
    fail: bool,
}

/// One attempt to claim a key, as the writer runs it.
struct ClaimReq {
    account: String,
    key: String,
    method: String,
    path: String,
    /// The request's fingerprint and canonical parameters (see [`form::fingerprint`]).
    fp: String,
    canon: String,
    now: i64,
    retention: i64,
    lock_timeout: i64,
}

/// A POST's checked request: its key, action, and fingerprint with canonical parameters.
struct Checked {
    key: String,
    action: Action,
    fp: String,
    canon: String,
}

/// An execution's answer: status, body, and whether it is another execution's stored
/// result (a replay).
type Finished = (u16, Vec<u8>, bool);

/// What the claim found.
enum Claim {
    Claimed { id: i64, redrive: bool },
    Replay(u16, Vec<u8>),
    Mismatch(IdemRow),
    InUse(i64),
}

impl Inner {
    pub(super) async fn post(self: &Arc<Self>, account: &str, segs: &[&str], req: &PspRequest, decision: &Decision, detach: bool) -> Result<PspResponse, ApiError> {
        let Checked { key, action, fp, canon } = self.check_post(segs, req)?;
        let now = self.clock.now_ms();
        let exec = Exec { account: account.to_string(), key: key.clone(), action, fail: decision.internal_error };
        if !self.idempotency_layer {
            // Bench only (the layer's cost): execute at once, nothing claimed or stored.
            let ex = self.store.write(move |c, st| execute(c, st, None, &exec, now)).await.map_err(internal)?;
            self.count(&ex);
            return Ok(should_retry(PspResponse::new(ex.status, ex.body)));
        }
        let cr = ClaimReq {
            account: account.to_string(),
            key: key.clone(),
            method: req.method.clone(),
            path: req.path.clone(),
            fp,
            canon: canon.clone(),
            now,
            retention: self.retention_ms,
            lock_timeout: self.lock_timeout_ms,
        };
        if let Some(answer) = self.answer_if_finished(&cr).await? {
            return Ok(answer);
        }
        // `done`: the chained execution's recorded outcome (see finish_claim).
        let (claim, done) = self.claim_key(cr, &exec, decision, detach).await?;
        let claim_id = match self.claimed(claim, req, &canon, &key) {
            ControlFlow::Continue(id) => id,
            ControlFlow::Break(answer) => return answer,
        };
        let (status, body, replayed) = match done {
            Some(done) => done,
            None => self.execute_claim(claim_id, exec, decision.slow_ms, detach).await,
        };
        self.crash_point("after_execute");
        if replayed {
            // Another execution of this claim (a re-drive, or the first one outliving
            // its lock) finished first: this is its stored answer, not a new one.
            return Ok(should_retry(PspResponse::new(status, body).with("Idempotent-Replayed", "true")));
        }
        Ok(should_retry(PspResponse::new(status, body)))
    }

    /// A POST's request, checked before anything is claimed: the URL, then the key (a
    /// POST without one is a client bug whatever its body), then the parameters.
    fn check_post(&self, segs: &[&str], req: &PspRequest) -> Result<Checked, ApiError> {
        if !params::known_post(segs) {
            return Err(super::not_found_url("POST", segs));
        }
        let key = idempotency_key(req)?.to_string();
        let form_params = form::parse(&req.body).map_err(|e| invalid("parameter_invalid_string", e.0, None))?;
        let mut action = params::validate_post(segs, &form_params)?;
        if let Action::Terminal(t) = &mut action {
            t.decide_faults(&self.faults);
        }
        let (fp, canon) = form::fingerprint(&req.method, &req.path, &form_params);
        Ok(Checked { key, action, fp, canon })
    }

    /// Fast path: a finished key is answered from a read connection (no fsync). A key
    /// not found is no answer (the claim decides), so it does not wait for other
    /// requests' commits to reach the disk.
    async fn answer_if_finished(&self, cr: &ClaimReq) -> Result<Option<PspResponse>, ApiError> {
        let (acct, k2) = (cr.account.clone(), cr.key.clone());
        let existing = self.store.read_point(move |c| store::get_idem(c, &acct, &k2), |row| row.is_some()).await.map_err(internal)?;
        if let Some(row) = existing {
            if row.created_ms.saturating_add(self.retention_ms) > cr.now {
                if row.fingerprint != cr.fp {
                    return Err(self.mismatch(&row, &cr.method, &cr.path, &cr.canon, &cr.key));
                }
                if let (Some(status), Some(body)) = (row.status, row.body) {
                    return Ok(Some(self.replay(status, body)));
                }
            }
        }
        Ok(None)
    }

    /// Claim: INSERT under UNIQUE(account, key), committed before execution. Usually the
    /// writer runs the execution itself in the transaction right after the claim's (the
    /// outcome comes back with the claim): no round trip through this task in between.
    /// Not when the execution must wait first (the slow fault) or a crash test stops the
    /// process between the two steps.
    async fn claim_key(self: &Arc<Self>, cr: ClaimReq, exec: &Exec, decision: &Decision, detach: bool) -> Result<(Claim, Option<Finished>), ApiError> {
        let claim_step = move |c: &Connection, _: &mut WriterState| claim(c, &cr);
        let fresh = |c: &Claim| matches!(c, Claim::Claimed { .. });
        let chained = decision.slow_ms.is_none() && self.crash_point.as_deref() != Some("after_claim");
        if !chained {
            // A fresh claim goes on to execution as soon as it is committed (every other
            // request sees it), without waiting for its fsync: nothing leaves the process
            // until the completion's fsync, which covers the claim too. Every other
            // outcome (replay, mismatch, in use) is an answer to the client, so it waits.
            return Ok((self.store.write_answered_at_commit(claim_step, fresh).await.map_err(internal)?, None));
        }
        let (exec2, clock) = (exec.clone(), self.clock.clone());
        let execute_step = move |c: &Claim, conn: &Connection, st: &mut WriterState| {
            let Claim::Claimed { id, .. } = c else { return Err(StoreError("only a fresh claim is executed".into())) };
            execute(conn, st, Some(*id), &exec2, clock.now_ms())
        };
        // The claim, its execution and the recording of the outcome (counters, a
        // stored 500 if the execution failed) are one piece of work: detached, it
        // completes even if the client disconnects meanwhile and hyper drops this
        // future; otherwise a failed execution would leave the key locked until
        // the lock timeout, and a charge would go uncounted.
        let (this, exec2) = (Arc::clone(self), exec.clone());
        let work = async move {
            let (claim, executed) = this.store.write_then(claim_step, fresh, execute_step).await?;
            let done = match &claim {
                Claim::Claimed { id, .. } => Some(Arc::clone(&this).finish_claim(*id, exec2, None, executed).await),
                Claim::Replay(..) | Claim::Mismatch(_) | Claim::InUse(_) => None,
            };
            Ok::<_, StoreError>((claim, done))
        };
        let r = if detach { tokio::spawn(work).await.unwrap_or_else(|e| Err(StoreError(format!("execution task failed: {e}")))) } else { work.await };
        r.map_err(internal)
    }

    /// The claim's id when this request claimed the key (fresh or re-driven); otherwise
    /// (`Break`) the answer: the stored one, a mismatch, or "in use, retry".
    fn claimed(&self, claim: Claim, req: &PspRequest, canon: &str, key: &str) -> ControlFlow<Result<PspResponse, ApiError>, i64> {
        match claim {
            Claim::Claimed { id, redrive } => {
                if redrive {
                    self.stats.redrives.fetch_add(1, Relaxed);
                }
                ControlFlow::Continue(id)
            }
            Claim::Replay(status, body) => ControlFlow::Break(Ok(self.replay(status, body))),
            Claim::Mismatch(row) => ControlFlow::Break(Err(self.mismatch(&row, &req.method, &req.path, canon, key))),
            Claim::InUse(wait_ms) => {
                self.stats.conflicts.fetch_add(1, Relaxed);
                let secs = ((wait_ms + 999) / 1000).clamp(1, 1);
                ControlFlow::Break(Ok(key_in_use(key).response().with("Retry-After", secs.to_string()).with("Stripe-Should-Retry", "true")))
            }
        }
    }

    /// Executes a claim the writer did not chain. From here on the claim is committed:
    /// the execution must run to completion whatever happens to the client (Stripe
    /// keeps executing), or the key would stay locked until the lock timeout.
    async fn execute_claim(self: &Arc<Self>, claim_id: i64, exec: Exec, slow_ms: Option<u64>, detach: bool) -> Finished {
        self.crash_point("after_claim");
        let run = Arc::clone(self).finish_claim(claim_id, exec, slow_ms, None);
        if detach {
            match tokio::spawn(run).await {
                Ok(done) => done,
                Err(e) => (500, serde_json::to_vec(&internal(StoreError(format!("execution task failed: {e}"))).body()).unwrap(), false),
            }
        } else {
            run.await
        }
    }

    /// Executes a committed claim unless the writer already did (`executed`), and
    /// records the outcome: counters, and a stored 500 when execution failed. The
    /// flag: the answer is another execution's stored result (see `execute`).
    async fn finish_claim(self: Arc<Self>, claim_id: i64, exec: Exec, slow_ms: Option<u64>, executed: Option<Result<Executed, StoreError>>) -> Finished {
        let exec_now = self.clock.now_ms();
        let fail = exec.fail;
        let res = match executed {
            Some(r) => r,
            None => {
                if let Some(ms) = slow_ms {
                    self.stats.fault(Fault::Slow);
                    self.clock.sleep(Duration::from_millis(ms)).await;
                }
                let exec_now = self.clock.now_ms();
                self.store.write(move |c, st| execute(c, st, Some(claim_id), &exec, exec_now)).await
            }
        };
        if fail {
            self.stats.fault(Fault::InternalError);
        }
        match res {
            Ok(ex) => {
                self.count(&ex);
                (ex.status, ex.body, ex.replayed)
            }
            Err(e) => {
                // Execution began and failed: store a 500 so a retry replays "unknown".
                let body = serde_json::to_vec(&internal(e).body()).unwrap();
                let b2 = body.clone();
                let _ = self
                    .store
                    .write(move |c, _| {
                        c.execute("UPDATE idem SET status=500, body=?2, finished_ms=?3 WHERE id=?1 AND status IS NULL", params![claim_id, b2, exec_now])?;
                        Ok(())
                    })
                    .await;
                (500, body, false)
            }
        }
    }

    /// Counts an execution in the stats.
    fn count(&self, ex: &Executed) {
        if ex.replayed {
            self.stats.replays.fetch_add(1, Relaxed);
            return;
        }
        self.stats.executions.fetch_add(1, Relaxed);
        if ex.charged {
            self.stats.charges.fetch_add(1, Relaxed);
        }
        if ex.declined {
            self.stats.declines.fetch_add(1, Relaxed);
        }
        if ex.refunded {
            self.stats.refunds.fetch_add(1, Relaxed);
        }
        if let Some(f) = ex.reader_fault {
            self.stats.reader_fault(f);
        }
    }

    fn replay(&self, status: u16, body: Vec<u8>) -> PspResponse {
        self.stats.replays.fetch_add(1, Relaxed);
        should_retry(PspResponse::new(status, body).with("Idempotent-Replayed", "true"))
    }

    fn mismatch(&self, row: &IdemRow, method: &str, path: &str, canon: &str, key: &str) -> ApiError {
        self.stats.mismatches.fetch_add(1, Relaxed);
        let (what, param) = if row.method != method || row.path != path {
            (format!("the request path (first used with {} {}, now {} {})", row.method, row.path, method, path), None)
        } else {
            let p = form::first_difference(&row.params, canon).unwrap_or_default();
            (format!("parameter '{p}'"), Some(p))
        };
        key_reused(key, &what, param)
    }

    fn crash_point(&self, name: &str) {
        if self.crash_point.as_deref() == Some(name) {
            eprintln!("mock-psp: crash point {name} reached, aborting");
            std::process::abort();
        }
    }
}

// ---------------------------------------------------------------- claim + execute (writer thread)

fn claim(c: &Connection, r: &ClaimReq) -> Result<Claim, StoreError> {
    let now = r.now;
    if let Some(row) = store::get_idem(c, &r.account, &r.key)? {
        if row.created_ms.saturating_add(r.retention) > now {
            if row.fingerprint != r.fp {
                return Ok(Claim::Mismatch(row));
            }
            if let (Some(s), Some(b)) = (row.status, row.body) {
                return Ok(Claim::Replay(s, b));
            }
            if row.lock_until_ms > now {
                return Ok(Claim::InUse(row.lock_until_ms - now));
            }
            // The executing request died (or is far too slow): take the lock over and
            // re-drive. Execution is keyed by this claim's id, so no second charge.
            c.prepare_cached("UPDATE idem SET lock_until_ms=?2 WHERE id=?1")?.execute(params![row.id, now.saturating_add(r.lock_timeout)])?;
            return Ok(Claim::Claimed { id: row.id, redrive: true });
        }
        // Past retention: forgotten; the same key is a new request.
        c.prepare_cached("DELETE FROM idem WHERE id=?1")?.execute(params![row.id])?;
    }
    c.prepare_cached(
        "INSERT INTO idem (account, key, method, path, fingerprint, params, created_ms, lock_until_ms) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
    )?
    .execute(params![r.account, r.key, r.method, r.path, r.fp, r.canon, now, now.saturating_add(r.lock_timeout)])?;
    Ok(Claim::Claimed { id: c.last_insert_rowid(), redrive: false })
}

/// Executes a request under its claim (`claim_id`), or with no claim at all when the
/// idempotency layer is off (the bench's comparison): then nothing is read from or
/// written to the idempotency table.
fn execute(c: &Connection, st: &mut WriterState, claim_id: Option<i64>, exec: &Exec, now_ms: i64) -> Result<Executed, StoreError> {
    if let Some(claim_id) = claim_id {
        let row: Option<(Option<i64>, Option<Vec<u8>>)> = c
            .prepare_cached("SELECT status, body FROM idem WHERE id=?1")?
            .query_row(params![claim_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        match row {
            None => return Err(StoreError("the idempotency claim disappeared before execution".into())),
            Some((Some(s), Some(b))) => {
                // Another (re-driven) execution finished first: answer with its result.
                return Ok(Executed { status: s as u16, body: b, replayed: true, charged: false, declined: false, refunded: false, reader_fault: None });
            }
            Some(_) => {}
        }
    }
    let mut tx = Tx { c, st, claim_id, account: &exec.account, key: &exec.key, now: now_ms / 1000, now_ms, out: Executed::new() };
    // Success bodies come back as the JSON text already written to their table, so the
    // object is serialised once per request.
    let result: Result<String, ApiError> = if exec.fail {
        Err(super::errors::injected_failure())
    } else {
        match &exec.action {
            Action::CreatePi(a) => intents::create(&mut tx, a),
            Action::Capture { id, amount } => intents::capture(&mut tx, id, *amount),
            Action::Cancel { id, reason } => intents::cancel(&mut tx, id, reason.as_deref()),
            Action::UpdatePi(u) => intents::update(&mut tx, u),
            Action::Refund(r) => refunds::create(&mut tx, r),
            Action::Terminal(t) => super::terminal::execute(&mut tx, t),
        }
    };
    let mut ex = tx.out;
    let (status, body) = match result {
        Ok(text) => (200, text.into_bytes()),
        Err(e) => (e.status, serde_json::to_vec(&e.body()).unwrap()),
    };
    ex.status = status;
    ex.body = body;
    if let Some(claim_id) = claim_id {
        c.prepare_cached("UPDATE idem SET status=?2, body=?3, finished_ms=?4 WHERE id=?1")?
            .execute(params![claim_id, status as i64, ex.body, now_ms])?;
    }
    Ok(ex)
}

#[cfg(test)]
mod tests {
    use super::super::PspRequest;
    use std::time::Duration;

    /// hyper drops a request's future when its client disconnects. A POST dropped
    /// while its claim and chained execution wait for the log syncer's fsync still
    /// completes as one piece of work: the charge is recorded and counted once, and the
    /// retry replays it. (Without the detached task the charge would go uncounted, and a
    /// failed execution would leave the key locked until the lock timeout.)
    // The syncer's lock is held across awaits on purpose: it keeps the fsync back.
    #[allow(clippy::await_holding_lock)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_post_dropped_while_its_execution_waits_for_the_fsync_is_still_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let psp = crate::MockPsp::builder().db(dir.path().join("p.sqlite3")).secret_key("sk_test_a").build().unwrap();
        let form = [("amount", "1999"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true")];
        let req = || PspRequest::post("/v1/payment_intents", "sk_test_a", Some("k-dropped"), &form);
        let store = psp.store();
        let hold = store.durability().expect("group commit on a file").hold.lock();
        let client = {
            let psp = psp.clone();
            let req = req();
            tokio::spawn(async move { psp.handle_detached(req).await })
        };
        // The execution has committed (seen without waiting for the fsync) ...
        let finished = || store.read_blocking(|c| Ok(c.query_row("SELECT count(*) FROM idem WHERE key='k-dropped' AND status=200", [], |r| r.get::<_, i64>(0))?)).unwrap();
        let t0 = std::time::Instant::now();
        while finished() == 0 {
            assert!(t0.elapsed() < Duration::from_secs(30), "the execution never committed");
            tokio::task::yield_now().await;
        }
        // ... and the client goes away before it could be answered.
        client.abort();
        assert!(client.await.unwrap_err().is_cancelled());
        drop(hold);
        let t0 = std::time::Instant::now();
        while psp.stats()["charges"] != 1 {
            assert!(t0.elapsed() < Duration::from_secs(30), "the dropped request's charge was never counted: {}", psp.stats());
            tokio::task::yield_now().await;
        }
        let again = psp.handle(req()).await;
        let r = again.response().expect("answered");
        assert_eq!((r.status, r.header("idempotent-replayed")), (200, Some("true")), "the retry replays the first result");
        assert_eq!((psp.stats()["charges"].as_u64(), psp.stats()["replays"].as_u64()), (Some(1), Some(1)));
    }
}
