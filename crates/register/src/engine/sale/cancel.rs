//! Cancel a sale (record 0031): the ledger commits the cancel, the cash hand-back and a
//! refund row with its own key for every settled card tender in one transaction before
//! anything is sent; then each refund is driven (an authorization is voided) and the
//! sale ends `canceled` once the PSP confirmed all of it. Pressed twice, or resumed by
//! recovery after a crash, it finds those same refunds: never a second refund.

use super::{cancel_state, SaleView};
use crate::engine::{CheckoutReport, DriveMode, Engine, EngineError, RefundReport, Result};
use paydesk_ledger::{CancelAction, CartId, SaleState, StoreGivenBack, TenderStanding};
use paydesk_domain::{PaymentState, RefundState};
use serde::Serialize;

/// Rounds of "commit what is left, drive it" in one call: a refund the PSP refused
/// frees its amount, and the next round commits a fresh refund for it.
const CANCEL_ROUNDS: usize = 3;

/// What a cancel did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CancelReport {
    /// `canceled`, or `canceling` while a refund is not confirmed yet (recovery
    /// continues it with the same keys).
    pub state: SaleState,
    pub refunds: Vec<RefundReport>,
    pub voids: Vec<CheckoutReport>,
    /// Hand this cash back to the customer (0 when a repeat found it already recorded).
    pub cash_returned: i64,
    /// Take this cash back from the customer: the change a change-giving store tender
    /// gave (record 0148; 0 when a repeat found it already recorded).
    pub change_collected: i64,
    /// Give these store tenders back (the voucher, the gift card's value), each with the
    /// change to take back for it.
    pub store_given_back: Vec<StoreGivenBack>,
    pub errors: Vec<String>,
    pub sale: SaleView,
}

impl CancelReport {
    /// Before anything is done: `canceling`, nothing handed over yet.
    fn start(sale: SaleView) -> CancelReport {
        CancelReport {
            state: SaleState::Canceling,
            refunds: Vec::new(),
            voids: Vec::new(),
            cash_returned: 0,
            change_collected: 0,
            store_given_back: Vec::new(),
            errors: Vec::new(),
            sale,
        }
    }
}

impl Engine {
    /// Cancels a sale that is not paid in full: refunds each settled card tender (voids
    /// an authorization, drops an offline one before it is forwarded), records the
    /// cash handed back and the store tenders' change taken back. Idempotent. Refused while a card tender's outcome is unknown.
    pub async fn cancel_sale(&self, cart: CartId, reason: &str) -> Result<CancelReport> {
        self.cancel_sale_with(cart, Some(reason), DriveMode::Interactive).await
    }

    /// Resumes every cancel not confirmed yet (recovery, record 0010). Returns
    /// (resumed, now canceled).
    pub(in crate::engine) async fn resume_sale_cancels(&self) -> Result<(u32, u32, Vec<String>)> {
        let carts = self.with_ledger(|l| l.sales().canceling())?;
        let (mut resumed, mut done, mut errors) = (0, 0, Vec::new());
        for cart in carts {
            resumed += 1;
            match self.cancel_sale_with(cart, None, DriveMode::Background).await {
                Ok(r) => {
                    if r.state == SaleState::Canceled {
                        done += 1;
                    }
                    errors.extend(r.errors);
                }
                Err(e) => errors.push(format!("cancel of sale {cart}: {e}")),
            }
        }
        Ok((resumed, done, errors))
    }

    async fn cancel_sale_with(&self, cart: CartId, reason: Option<&str>, mode: DriveMode) -> Result<CancelReport> {
        // One cancel of a sale at a time in this process; the ledger's transaction
        // makes it safe across processes.
        let _sale = self.flight(&format!("sale:{cart}")).await;
        let stored = self.with_ledger(|l| l.sales().by_cart(cart))?.cancel.map(|c| c.reason);
        let reason = match (stored, reason) {
            (Some(r), _) => r,
            (None, Some(r)) => r.to_string(),
            (None, None) => return Err(EngineError::InvalidInput(format!("sale {cart} has no cancel to resume"))),
        };
        let mut report = CancelReport::start(self.sale_now(cart)?);
        // Recovery only finishes what the cashier started: it drives the refunds and voids
        // already committed and never commits a new refund key (a refund the PSP refused
        // waits for the cashier to press Cancel again, record 0005), so a refusing PSP
        // cannot make recovery mint a key every pass.
        let rounds = match mode {
            DriveMode::Interactive => CANCEL_ROUNDS,
            DriveMode::Background | DriveMode::Forward => 1,
        };
        for _ in 0..rounds {
            let now = self.now();
            let actions = match mode {
                DriveMode::Interactive => {
                    let plan = self.with_ledger(|l| l.sales_mut().begin_cancel(cart, &reason, now, &crate::attempt::may_have_reached_psp))?;
                    report.cash_returned += plan.cash_returned_minor;
                    report.change_collected += plan.change_collected_minor;
                    report.store_given_back.extend(plan.store_given_back);
                    plan.actions
                }
                DriveMode::Background | DriveMode::Forward => self.committed_cancel_actions(cart)?,
            };
            let mut refused = false;
            for action in actions {
                match action {
                    CancelAction::Refund { refund_id, refund_key, .. } => {
                        match self.drive_refund(refund_id, refund_key.clone(), mode).await {
                            Ok(r) => {
                                refused |= r.state == RefundState::Failed;
                                report.refunds.retain(|x| x.refund_key != r.refund_key);
                                report.refunds.push(r);
                            }
                            Err(e) => report.errors.push(format!("refund {refund_key}: {e}")),
                        }
                    }
                    CancelAction::Void { checkout_key, .. } => match self.cancel(&checkout_key).await {
                        Ok(r) => report.voids.push(r),
                        Err(e) => report.errors.push(format!("void {checkout_key}: {e}")),
                    },
                }
            }
            let now = self.now();
            report.state = self.with_ledger(|l| l.sales_mut().finish_cancel(cart, now))?;
            if report.state == SaleState::Canceled || !refused {
                break;
            }
        }
        let sale = self.sale_now(cart)?;
        if let Some(c) = self.with_ledger(|l| l.sales().by_cart(cart))?.cancel {
            report.state = cancel_state(c.state);
        }
        report.sale = sale;
        Ok(report)
    }
}

impl Engine {
    /// The refunds a cancel committed that are still open, and the authorizations it
    /// must still void: what recovery drives, nothing new.
    fn committed_cancel_actions(&self, cart: CartId) -> Result<Vec<CancelAction>> {
        self.with_ledger(|l| -> paydesk_ledger::Result<Vec<CancelAction>> {
            let sale = l.sales().by_cart(cart)?;
            let mut actions = Vec::new();
            for t in sale.tenders.iter().filter(|t| t.standing == TenderStanding::Active) {
                let (Some(pid), Some(key)) = (t.payment_id, t.checkout_key.clone()) else { continue };
                match t.payment_state {
                    Some(PaymentState::Authorized) => actions.push(CancelAction::Void { tender_id: t.id, checkout_key: key }),
                    Some(PaymentState::Refunding) => {
                        for r in l.refunds().for_payment(pid)?.into_iter().filter(|r| !r.state.is_terminal()) {
                            actions.push(CancelAction::Refund {
                                tender_id: t.id,
                                refund_id: r.id,
                                refund_key: r.idempotency_key,
                                checkout_key: key.clone(),
                            });
                        }
                    }
                    Some(
                        PaymentState::Created
                        | PaymentState::QueuedOffline
                        | PaymentState::Authorizing
                        | PaymentState::Capturing
                        | PaymentState::Captured
                        | PaymentState::Failed
                        | PaymentState::Canceled
                        | PaymentState::PartiallyRefunded
                        | PaymentState::Refunded
                        | PaymentState::OnReader,
                    )
                    | None => {}
                }
            }
            Ok(actions)
        })
        .map_err(Into::into)
    }
}
