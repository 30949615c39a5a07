//! Checkout entry points (record 0003–0005, 0013): a new key committed before the
//! network (`checkout_amount`, `charge_cart`), an explicit new payment after another
//! (`new_payment_after`), a re-drive with the same key (`retry_checkout`), and `told`,
//! which keeps what the cashier is told true when a call ends in an error.

use super::DriveMode;
use super::{CheckoutOutcome, CheckoutReport, CrashPoint, Engine, EngineError, Result};
use paydesk_ledger::{After, CartId, CheckoutOptions, NewPayment, Payment, TimelineInput, TimelineKind};
use paydesk_domain::{Money, PaymentState};

impl Engine {
    /// What a checkout call tells the cashier when it ended in an error after the key
    /// was committed (record 0013). An error about the request itself (refused
    /// input, a guard) changes nothing and is passed on. Any other error — the disk
    /// filled while recording the PSP's answer, an alarm — says nothing about the
    /// money: the payment is reported as the ledger holds it, which for one still in
    /// flight means "pending" with its key, resolved later with that key.
    pub(super) fn told(&self, key: &str, res: Result<CheckoutReport>) -> Result<CheckoutReport> {
        let e = match res {
            Ok(r) => return Ok(r),
            Err(e) => e,
        };
        // A refused offline payment (nothing sent, canceled) and an unresolved one already
        // say what they mean, with their key.
        if e.refused_the_request() || matches!(e, EngineError::OfflineRefused { .. } | EngineError::Unresolved { .. }) {
            return Err(e);
        }
        let read = self
            .with_reader(|l| l.payments().by_key(key))
            .or_else(|_| self.with_ledger(|l| l.payments().by_key(key)));
        let p = match read {
            Ok(Some(p)) => p,
            Ok(None) | Err(_) => return Err(EngineError::Unresolved { key: key.to_string(), source: Box::new(e) }),
        };
        let mut r = match self.report(&p) {
            Ok(r) => r,
            Err(_) => CheckoutReport {
                checkout_key: p.idempotency_key.clone(),
                state: p.state,
                outcome: CheckoutOutcome::of(p.state),
                psp_payment_id: p.psp_payment_id.clone(),
                attempts: 0,
                amount: p.amount.amount_minor,
                currency: p.amount.currency,
                replayed: false,
                message: None,
                error_code: None,
            },
        };
        r.message = Some(match r.outcome {
            CheckoutOutcome::Pending => format!("{e}; the outcome is not known yet: the register resolves it with the same key"),
            CheckoutOutcome::Paid
            | CheckoutOutcome::Authorized
            | CheckoutOutcome::Declined
            | CheckoutOutcome::Failed
            | CheckoutOutcome::QueuedOffline
            | CheckoutOutcome::Canceled
            | CheckoutOutcome::Refunded => e.to_string(),
        });
        r.error_code = Some(e.code().to_string());
        Ok(r)
    }

    /// A checkout without a cart (CLI `checkout --amount`): a new key and the
    /// exact parameters are committed, then the interactive phase runs.
    pub async fn checkout_amount(&self, amount: Money, options: CheckoutOptions) -> Result<CheckoutReport> {
        validate_options(&options)?;
        let now = self.now();
        let p = self.with_ledger(|l| l.payments_mut().create(&NewPayment { amount, options }, now))?;
        self.crash(CrashPoint::AfterKeyCommit);
        let res = self.drive_created_here(&p.idempotency_key).await;
        self.told(&p.idempotency_key, res)
    }

    /// The Charge button for a cart. Pressing it again, double clicks and
    /// Enter-mashing reuse the cart's open checkout (same key); a finished
    /// checkout is reported as it is.
    pub async fn charge_cart(&self, cart: CartId, options: CheckoutOptions) -> Result<CheckoutReport> {
        validate_options(&options)?;
        let now = self.now();
        let existing = self.with_ledger(|l| l.payments().open_checkout_for_cart(cart))?;
        let key = match existing {
            Some(p) => p.idempotency_key,
            None => {
                // The cart's last checkout is finished (paid, accepted offline, declined
                // or abandoned): pressing Charge again reports it. A new key needs
                // explicit intent (`new_payment_after`).
                match self.with_ledger(|l| l.payments().last_for_cart(cart))? {
                    // Opened by a concurrent caller since we looked: drive that one.
                    Some(last) if last.state.is_checkout_open() => {
                        let res = self.drive(&last.idempotency_key, DriveMode::Interactive).await;
                        return self.told(&last.idempotency_key, res);
                    }
                    Some(last) => return self.report(&last),
                    None => {}
                }
                let co = self.with_ledger(|l| l.payments_mut().open_checkout(cart, &options, now))?;
                if co.is_new {
                    self.crash(CrashPoint::AfterKeyCommit);
                    let res = self.drive_created_here(&co.payment.idempotency_key).await;
                    return self.told(&co.payment.idempotency_key, res);
                }
                co.payment.idempotency_key
            }
        };
        // An open checkout found in the ledger: it may have been sent already (by a
        // concurrent press, or by a process that crashed before saving the result).
        let res = self.drive(&key, DriveMode::Interactive).await;
        self.told(&key, res)
    }

    /// The cashier explicitly starts a new payment after `previous` (e.g. "Try
    /// another card" after a decline): a new key. Refused while `previous` is in
    /// flight (outcome unknown) unless `override_reason` is given, which is
    /// written to the audit log. Refused if `previous` already went through.
    ///
    /// At most one new payment per `previous` (the ledger links them): when `previous`
    /// already has one — the command was re-run, or a crash hid its answer — no other is
    /// made. A successor still in flight is resumed with its own key, a paid or queued one
    /// is reported, and one that ended declined or canceled is refused with
    /// [`EngineError::LaterPaymentExists`] naming it (try again after that one instead).
    pub async fn new_payment_after(
        &self,
        previous: &str,
        options: CheckoutOptions,
        override_reason: Option<&str>,
    ) -> Result<CheckoutReport> {
        validate_options(&options)?;
        let prev = self.payment(previous)?;
        if let Some(next) = self.with_ledger(|l| l.payments().successor_of(prev.id))? {
            return self.resume_successor(&prev, &next).await;
        }
        self.check_new_intent(&prev, override_reason)?;
        let now = self.now();
        let new = NewPayment { amount: prev.amount, options: options.clone() };
        // A cart whose checkout is still open (unknown outcome): the ledger opens the new
        // one and writes the audit row in one transaction.
        let audited = prev.cart_id.is_some() && prev.state.is_checkout_open();
        let after = match prev.cart_id {
            Some(cart_id) => After::Cart {
                cart_id,
                options: &options,
                override_reason: audited.then(|| override_reason.unwrap_or_default()),
            },
            None => After::Amount(&new),
        };
        let co = self.with_ledger(|l| l.payments_mut().payment_after(prev.id, after, now))?;
        let p = co.payment;
        if !co.is_new {
            // Another caller made the successor meanwhile, or the cart's open checkout.
            if let Some(next) = self.with_ledger(|l| l.payments().successor_of(prev.id))? {
                return self.resume_successor(&prev, &next).await;
            }
            let res = self.drive(&p.idempotency_key, DriveMode::Interactive).await;
            return self.told(&p.idempotency_key, res);
        }
        if override_reason.is_some() && is_unknown(prev.state) {
            let detail = format!("previous {} ({}) -> new {}", prev.idempotency_key, prev.state, p.idempotency_key);
            let reason = override_reason.unwrap_or_default().to_string();
            if !audited {
                self.with_ledger(|l| l.audit_mut().record_register_action("new_payment_override", &reason, Some(&detail), now))?;
            }
            let _ = self.with_ledger(|l| {
                l.payments_mut().append_timeline(
                    prev.id,
                    &TimelineInput {
                        kind: Some(TimelineKind::Note),
                        detail: format!("cashier started a new payment {} anyway: {reason}", p.idempotency_key),
                        ..Default::default()
                    },
                    now,
                )
            });
        }
        self.crash(CrashPoint::AfterKeyCommit);
        let res = self.drive_created_here(&p.idempotency_key).await;
        self.told(&p.idempotency_key, res)
    }

    /// `previous` already has its new payment `next`: never a second one.
    async fn resume_successor(&self, prev: &Payment, next: &Payment) -> Result<CheckoutReport> {
        match next.state {
            PaymentState::Failed | PaymentState::Canceled => Err(EngineError::LaterPaymentExists {
                key: prev.idempotency_key.clone(),
                later: next.idempotency_key.clone(),
                state: next.state,
            }),
            // In flight: the same key again (it may have been sent already).
            PaymentState::Created | PaymentState::Authorizing | PaymentState::Capturing | PaymentState::OnReader => {
                let res = self.drive(&next.idempotency_key, DriveMode::Interactive).await;
                self.told(&next.idempotency_key, res)
            }
            // Queued offline (forwarded in order by the background), authorized, paid or
            // refunded since: it went through (or will be forwarded); nothing to send.
            PaymentState::QueuedOffline
            | PaymentState::Authorized
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded => self.report(next),
        }
    }

    fn check_new_intent(&self, prev: &Payment, override_reason: Option<&str>) -> Result<()> {
        match prev.state {
            PaymentState::Failed | PaymentState::Canceled => Ok(()),
            PaymentState::Created | PaymentState::Authorizing | PaymentState::QueuedOffline | PaymentState::OnReader => {
                match override_reason.map(str::trim) {
                    Some(r) if !r.is_empty() => Ok(()),
                    Some(_) => Err(EngineError::InvalidInput("an override needs a reason".into())),
                    None => Err(EngineError::PreviousOutcomeUnknown {
                        key: prev.idempotency_key.clone(),
                        state: prev.state,
                    }),
                }
            }
            PaymentState::Authorized
            | PaymentState::Capturing
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::Refunded => Err(EngineError::AlreadyPaid {
                key: prev.idempotency_key.clone(),
                state: prev.state,
            }),
        }
    }

    /// The cashier's "retry" (or any re-drive): same key, stored parameters.
    pub async fn retry_checkout(&self, key: &str) -> Result<CheckoutReport> {
        let res = self.drive(key, DriveMode::Interactive).await;
        self.told(key, res)
    }
}

fn is_unknown(s: PaymentState) -> bool {
    matches!(s, PaymentState::Created | PaymentState::Authorizing | PaymentState::QueuedOffline | PaymentState::OnReader)
}

pub(super) fn validate_options(o: &CheckoutOptions) -> Result<()> {
    let pm = o.payment_method.trim();
    if pm.is_empty() || pm.len() > 200 || !pm.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(EngineError::InvalidInput(format!("invalid payment method token {:?}", o.payment_method)));
    }
    Ok(())
}
