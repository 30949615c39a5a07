//! What the simulated cashier was told by a checkout call, kept for the audit's
//! "told stays true" invariants (record 0013, 0024).

use crate::Sim;
use paydesk_register::{CheckoutOutcome, CheckoutReport, EngineError};

impl Sim {
    /// What the cashier was shown. An error from a call that charges (`checkout`) tells
    /// the cashier the sale was not paid, unless it says the outcome is unknown or only
    /// refused the request; the audit holds the payment to that ("never charged").
    pub(crate) fn record_checkout(&mut self, sale: usize, r: &Result<CheckoutReport, EngineError>) {
        if let Err(e) = r {
            let told_failed = !e.refused_the_request() && !matches!(e, EngineError::Unresolved { .. });
            if told_failed {
                if let Some(key) = e.checkout_key().map(str::to_string).or_else(|| self.newest_key_of_sale(sale)) {
                    self.sales[sale].told.push((key, CheckoutOutcome::Failed));
                }
            }
        }
        self.record(sale, r);
    }

    /// The newest payment of `sale` in the ledger (an error that names no key).
    fn newest_key_of_sale(&self, sale: usize) -> Option<String> {
        let name = format!("sale-{sale}");
        let recent = self.engine().list_payments(32, 0).ok()?;
        recent.into_iter().find(|p| p.request_params.get("description") == Some(name.as_str())).map(|p| p.idempotency_key)
    }

}
