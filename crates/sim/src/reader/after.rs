//! The cashier settles each reader sale before the next customer (nothing is left on the
//! reader: paid, or given up), the final pass does the same for whatever a storm left, and
//! what the cashier is told "not charged" is checked against the PSP at that moment.

use crate::driver::Sim;
use paydesk_domain::PaymentState;
use paydesk_register::{ReaderOutcome, ReaderReport};
use rand::Rng;

/// Presses the cashier spends settling one reader sale.
const ROUNDS: usize = 6;

impl Sim {
    /// Until the payment is paid or canceled: wait / check while it may still be paid,
    /// give up on the reader (abandon: cancel the action and the intent, each read after)
    /// once it proved "not charged" or took too long.
    pub(super) async fn settle_reader_sale(&mut self, i: usize, key: &str) {
        for round in 0..ROUNDS {
            let st = match self.engine().reader_status(key) {
                Ok(st) => st,
                Err(e) => {
                    *self.rep.errors.entry(format!("reader:status:{}", e.code())).or_default() += 1;
                    return;
                }
            };
            match st.state {
                PaymentState::Created => {
                    self.abandon(i, key).await;
                }
                PaymentState::OnReader => match st.outcome {
                    ReaderOutcome::NotCharged { .. } => {
                        self.abandon(i, key).await;
                    }
                    _ if round < ROUNDS / 2 => {
                        if self.rng.random_bool(0.3) {
                            self.check_status(i, key).await;
                        } else {
                            self.wait(i, key).await;
                        }
                    }
                    _ => {
                        self.abandon(i, key).await;
                    }
                },
                // Paid, or canceled at the PSP: nothing is on the reader any more.
                _ => return,
            }
            // A card held by the presentation delay, a reader back from offline.
            self.core.advance(self.rng.random_range(1_000..10_000));
        }
        self.rtally("left_on_reader");
    }

    /// The final pass (faults off, no crashes): every reader payment still open is
    /// settled by the cashier, so the audit judges a closed day.
    pub(crate) async fn finish_readers(&mut self) {
        let saved = self.rates;
        self.rates.register_crash = 0.0;
        for i in 0..self.sales.len() {
            let Some(key) = self.reader_key(i) else { continue };
            let open = self.engine().reader_status(&key).map(|s| matches!(s.state, PaymentState::Created | PaymentState::OnReader)).unwrap_or(true);
            if open {
                self.rtally("settled_at_close");
                self.settle_reader_sale(i, &key).await;
            }
        }
        self.rates = saved;
    }

    /// "Not charged" told to the cashier is true when it is told: the intent at the PSP
    /// (its own store, read directly) is neither paid nor holding the funds.
    pub(super) async fn check_not_charged_when_told(&mut self, rep: &ReaderReport) {
        if !matches!(rep.outcome, ReaderOutcome::NotCharged { .. }) {
            return;
        }
        let status = match rep.intent_id.clone() {
            None => None,
            Some(id) => {
                let rows = self
                    .psp
                    .store()
                    .read(move |c| {
                        let mut st = c.prepare("SELECT obj FROM payment_intents WHERE id = ?1")?;
                        let v = st.query_map([id], |r| r.get::<_, String>(0))?.collect::<Result<Vec<String>, _>>()?;
                        Ok(v)
                    })
                    .await
                    .expect("reading the PSP's store");
                rows.first().and_then(|o| serde_json::from_str::<serde_json::Value>(o).ok()).and_then(|v| v["status"].as_str().map(str::to_string))
            }
        };
        let charged = matches!(status.as_deref(), Some("succeeded" | "requires_capture"));
        let what = format!("{} told {:?}, the PSP's intent {:?} is {status:?}", rep.checkout_key, rep.outcome, rep.intent_id);
        self.mid_check("reader_told_not_charged_is_true_when_told", !charged, &what);
    }
}
