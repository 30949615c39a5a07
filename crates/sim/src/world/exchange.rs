//! One HTTP exchange in virtual time: the request handed to the in-process PSP, the
//! faults of this request applied, a slow execution parked or waited for, and the
//! answer (or the transport error the register sees) counted.

use super::exec::drive_psp;
use super::wire::{PlantedBug, Stored500, Wire};
use super::PspFuture;
use mock_psp::Outcome;
use paydesk_register::transport::{HttpRequest, HttpResponse, Method, TransportError};
use paydesk_register::CrashPoint;
use rand::Rng;
use std::sync::atomic::Ordering;

impl Wire {
    /// One HTTP exchange in virtual time.
    pub fn exchange(&self, req: HttpRequest) -> Result<HttpResponse, TransportError> {
        let timeout_ms = req.timeout.as_millis() as i64;
        let is_post = req.method == Method::Post;
        let mut key = req.idempotency_key.clone();
        {
            let mut st = self.stats.lock();
            st.requests += 1;
            if is_post {
                st.posts += 1;
            }
        }
        if let Some(k) = &req.idempotency_key {
            let n = {
                let mut seen = self.seen.lock();
                let n = seen.entry(k.clone()).or_insert(0);
                *n += 1;
                *n
            };
            if n > 1 {
                self.stats.lock().retries += 1;
                let fresh = match *self.bug.lock() {
                    Some(PlantedBug::FreshKeyOnRetry) => req.path.starts_with("/v1/payment_intents"),
                    Some(PlantedBug::FreshRefundKeyOnRetry) => req.path.starts_with("/v1/refunds"),
                    None => false,
                };
                if fresh {
                    let mut b = [0u8; 16];
                    self.rng.lock().fill(&mut b);
                    key = Some(uuid::Builder::from_random_bytes(b).into_uuid().to_string());
                }
            }
        }
        let crash_psp = is_post && self.psp_crash_next_post.swap(false, Ordering::SeqCst);
        let path = req.path.split('?').next().unwrap_or("").to_string();
        let mut scripted = false;
        let cable_pull = !crash_psp
            && is_post
            && path == "/v1/payment_intents"
            && !self.psp.is_offline()
            && self.cable_pull_after_next_create.swap(false, Ordering::SeqCst);
        if cable_pull {
            self.psp.script_fault(&path, mock_psp::Fault::DropResponse, 1, None);
            scripted = true;
        } else if crash_psp {
            // Make this request park right after its claim, then kill the PSP.
            self.psp.script_fault(&path, mock_psp::Fault::Slow, 1, Some(1_000));
            scripted = true;
        } else if is_post {
            let (p, where_) = *self.stored_500.lock();
            let eligible = where_ == Stored500::Everywhere || path == "/v1/payment_intents";
            if p > 0.0 && eligible && self.rng.lock().random_bool(p) {
                self.psp.script_fault(&path, mock_psp::Fault::InternalError, 1, None);
                scripted = true;
            }
        }
        let psp = self.psp.clone();
        let preq = self.to_psp(&req, key.as_deref());
        let mut fut: PspFuture = Box::pin(async move { psp.handle(preq).await });
        let lat = self.latency();
        let outcome = match drive_psp(&mut fut, &self.core) {
            Ok(o) => {
                self.core.advance(lat);
                o
            }
            Err(deadline) => {
                if crash_psp {
                    drop(fut);
                    let killed = self.core.kill_parked();
                    self.psp_crashes.fetch_add(1, Ordering::SeqCst);
                    let mut st = self.stats.lock();
                    st.fault("psp_crash_mid_execution");
                    *st.faults.entry("psp_crash_killed_executions").or_default() += killed as u64 + 1;
                    drop(st);
                    self.core.advance(lat);
                    return Err(TransportError::Reset("PSP crashed mid-request".into()));
                }
                self.stats.lock().fault("slow");
                let wait = deadline - self.core.now();
                if wait + lat < timeout_ms {
                    self.core.advance(wait);
                    match drive_psp(&mut fut, &self.core) {
                        Ok(o) => {
                            self.core.advance(lat);
                            o
                        }
                        Err(d2) => {
                            self.core.advance(timeout_ms - wait);
                            self.core.park(d2, fut);
                            self.stats.lock().fault("timeout");
                            return Err(TransportError::Timeout);
                        }
                    }
                } else {
                    self.core.park(deadline, fut);
                    self.core.advance(timeout_ms);
                    self.stats.lock().fault("timeout");
                    return Err(TransportError::Timeout);
                }
            }
        };
        let res = match outcome {
            Outcome::Respond(r) => {
                let mut st = self.stats.lock();
                *st.status.entry(r.status).or_default() += 1;
                if r.header("idempotent-replayed") == Some("true") {
                    st.replays += 1;
                }
                match r.status {
                    409 => {
                        st.conflicts += 1;
                    }
                    429 => st.fault("transient_429"),
                    503 => st.fault("transient_503"),
                    500 => st.fault("internal_500"),
                    _ => {}
                }
                Ok(super::http_response(&r))
            }
            Outcome::DropRequest => {
                self.stats.lock().fault("drop_request");
                self.core.advance((timeout_ms - lat).max(0));
                Err(TransportError::Timeout)
            }
            Outcome::DropResponse(_) => {
                self.stats.lock().fault("drop_response");
                // Half the time the connection is reset, half the time it just hangs.
                if self.rng.lock().random_bool(0.5) {
                    Err(TransportError::Reset("connection closed before the answer".into()))
                } else {
                    self.core.advance((timeout_ms - lat).max(0));
                    Err(TransportError::Timeout)
                }
            }
            Outcome::Offline => {
                if scripted {
                    // Refused before the fault was drawn: it must not hit a later request.
                    self.psp.clear_script();
                }
                self.stats.lock().fault("offline_refused");
                Err(TransportError::ConnectRefused("PSP offline".into()))
            }
        };
        if cable_pull {
            self.psp.set_offline(true, Some(std::time::Duration::from_secs(15 * 60)));
            self.stats.lock().fault("cable_pulled_after_a_create");
        }
        if is_post && !matches!(res, Err(TransportError::ConnectRefused(_))) {
            // The request reached the PSP: a crash here loses its answer.
            self.maybe_crash(CrashPoint::AfterSend);
        }
        if !matches!(res, Err(TransportError::ConnectRefused(_))) {
            self.maybe_crash_after_path(&path);
        }
        res
    }
}

