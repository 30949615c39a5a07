//! The one gate every permission-checked command goes through (issue #31): authorize the
//! person signed in for the action (with a manager's approval when one was sent), record
//! that approval, take the locks the operation needs, write the operation's own audit row
//! — in that order, once, here. A command states what it is ([`Operation`]) and gets a
//! [`Pass`] back; it never repeats the steps.
//!
//! Two phases, because some commands check their input against the ledger between the
//! role check and the approval's audit row (nothing is recorded as approved that cannot
//! happen): [`Operation::authorize`] answers [`Authorized`], and [`Authorized::permit`]
//! (no locks, sync) or [`Authorized::enter`] (locks, async) finishes. [`Operation::permit`]
//! and [`Operation::run`] do both at once.

use paydesk_access::{authorize as table, Action, Authorization};
use paydesk_ledger::{AuditInput, CartId, Staff};

use crate::error::{AppError, AppResult};
use crate::i18n::{active, tr};
use crate::pin_locks::Counter;
use crate::staff::{check_name, parse_pin, Approval, Granted};
use crate::state::AppState;

/// A sale never has this many tenders; a larger `seen_tenders` is a malformed call.
const MAX_SEEN_TENDERS: u32 = 10_000;

/// A permission-checked action as the gate runs it.
pub struct Operation<'a> {
    action: Action,
    approval: Option<&'a Approval>,
    audit: Audit,
}

/// What the gate writes to the audit chain for an operation.
#[derive(Debug, Clone)]
pub enum Audit {
    /// Nothing of its own: the action's ledger write names the people itself (a refund,
    /// a shift step), or an approval is never used for it.
    ByAction,
    /// When a manager approved: one row naming both people, with this subject, before the
    /// locks and the action (record 0068).
    Approval(String),
    /// A row of its own naming the person and the approver (e.g. leaving an unknown
    /// outcome for a new sale), written once the locks are held.
    Row { kind: &'static str, detail: String, reason: Option<String> },
}

/// The locks an operation holds while it runs.
#[derive(Debug, Clone, Copy)]
pub enum Locks {
    /// None: it does not talk to the PSP and takes no tender.
    None,
    /// The engine is not swapped (settings applied) while it talks to the PSP.
    Engine,
    /// Charge presses one after another (a second press waits and sees the first's
    /// checkout), and no engine swap.
    Charge,
    /// The register's one tender turn, refused (not queued) when taken, and no engine
    /// swap; with `seen`, the sale must still have the tenders the cashier saw.
    Turn { seen: Option<u32> },
}

impl<'a> Operation<'a> {
    /// `action` by the person signed in, with `approval` when the screen sent one.
    pub fn new(action: Action, approval: Option<&'a Approval>) -> Self {
        Operation { action, approval, audit: Audit::ByAction }
    }

    /// Selling, which never takes an approval.
    pub fn sell() -> Self {
        Operation::new(Action::Sell, None)
    }

    /// Records an approval (when one is used) under `subject`.
    pub fn approval_audited(self, subject: impl Into<String>) -> Self {
        Operation { audit: Audit::Approval(subject.into()), ..self }
    }

    /// Writes a row of its own once the locks are held.
    pub fn audited(self, kind: &'static str, detail: String, reason: Option<String>) -> Self {
        Operation { audit: Audit::Row { kind, detail, reason }, ..self }
    }

    /// Step one: whether the person signed in may do this now (PIN of the approver checked
    /// under its lockout). Nothing is recorded yet.
    pub fn authorize(self, state: &AppState) -> AppResult<Authorized> {
        let granted = role_check(state, self.action, self.approval)?;
        Ok(Authorized { action: self.action, audit: self.audit, granted })
    }

    /// All steps of an operation that takes no locks.
    pub fn permit(self, state: &AppState) -> AppResult<Granted> {
        self.authorize(state)?.permit(state)
    }

    /// All steps, holding `locks` until the [`Pass`] is dropped.
    pub async fn run(self, state: &AppState, locks: Locks) -> AppResult<Pass<'_>> {
        self.authorize(state)?.enter(state, locks).await
    }
}

/// An operation the person may do, not yet recorded.
pub struct Authorized {
    action: Action,
    audit: Audit,
    granted: Granted,
}

impl Authorized {
    /// Who was granted it (for checks that name the actor before the rest).
    pub fn granted(&self) -> &Granted {
        &self.granted
    }

    /// Records an approval (when one is used) under `subject`, known only once the
    /// input was checked (the item's SKU, the settings file).
    pub fn audit_approval(self, subject: impl Into<String>) -> Self {
        Authorized { audit: Audit::Approval(subject.into()), ..self }
    }

    /// The remaining steps without locks: the approval's row, then the operation's row.
    pub fn permit(self, state: &AppState) -> AppResult<Granted> {
        self.record_approval(state)?;
        self.write_row(state)?;
        Ok(self.granted)
    }

    /// The remaining steps: the approval's row, the locks, then the operation's row.
    pub async fn enter(self, state: &AppState, locks: Locks) -> AppResult<Pass<'_>> {
        self.record_approval(state)?;
        let held = Held::take(state, locks).await?;
        self.write_row(state)?;
        Ok(Pass { granted: self.granted, held })
    }

    fn record_approval(&self, state: &AppState) -> AppResult<()> {
        match &self.audit {
            Audit::Approval(subject) => {
                // A refund is recorded with its approver in its own row instead (ByAction).
                let Some(approver) = self.granted.approver_id() else { return Ok(()) };
                state.engine().audit().record_approval(self.granted.actor_id(), approver, self.action, subject)?;
                Ok(())
            }
            Audit::ByAction | Audit::Row { .. } => Ok(()),
        }
    }

    fn write_row(&self, state: &AppState) -> AppResult<()> {
        match &self.audit {
            Audit::Row { kind, detail, reason } => {
                let input = AuditInput {
                    actor_id: self.granted.actor_id(),
                    approver_id: self.granted.approver_id(),
                    reason: reason.clone(),
                    ..AuditInput::new(kind, detail)
                };
                state.engine().audit().record(&input)?;
                Ok(())
            }
            Audit::ByAction | Audit::Approval(_) => Ok(()),
        }
    }
}

/// The role table (record 0062, 0068). Below the action's role the answer is
/// `approval_required`: the screen asks a manager inline and sends the same command again
/// with their name and PIN, checked here under the lockout (an approval PIN, audited by
/// the ledger either way).
/// Whether the person signed in may do `action` now, with `approval` when one was given.
fn role_check(state: &AppState, action: Action, approval: Option<&Approval>) -> AppResult<Granted> {
    let paydesk_register::usecases::Session { has_staff, signed_in: me } = state.engine().staff().session()?;
    if !has_staff {
        return Ok(Granted::default());
    }
    let me = me.ok_or(AppError::NotSignedIn)?;
    let min_role = match table(me.person(), action, None) {
        Authorization::Allowed => return Ok(Granted { actor: Some(me), approver: None }),
        Authorization::NeedsApproval { min_role } => min_role,
        // Without an approver the table answers only the two above; anything else is a no.
        refused @ (Authorization::Approved { .. } | Authorization::ApproverTooLow { .. } | Authorization::SelfApproval) => {
            return Err(AppError::NotAllowed { action, authorization: refused })
        }
    };
    let Some(approval) = approval else {
        return Err(AppError::ApprovalRequired { action, min_role });
    };
    let name = check_name(&approval.name)?.to_string();
    let pin = parse_pin(&approval.pin)?;
    let approver = approval_pin(state, &name, &pin)?;
    match table(me.person(), action, Some(approver.person())) {
        Authorization::Approved { .. } => Ok(Granted { actor: Some(me), approver: Some(approver) }),
        Authorization::Allowed => Ok(Granted { actor: Some(me), approver: None }),
        refused @ (Authorization::NeedsApproval { .. } | Authorization::ApproverTooLow { .. } | Authorization::SelfApproval) => {
            Err(AppError::NotAllowed { action, authorization: refused })
        }
    }
}

/// An approver's PIN, counted on this register's approvals at their name (never their
/// own sign-in, record 0063), and under the monotonic lock when the app runs.
fn approval_pin(state: &AppState, name: &str, pin: &paydesk_access::Pin) -> AppResult<Staff> {
    state.pin_locks.guard(Counter::Approval, name, || {
        Ok(state.engine().staff().check_approval_pin(name, pin)?)
    })
}

/// A granted operation holding its locks.
pub struct Pass<'s> {
    pub granted: Granted,
    held: Held<'s>,
}

impl Pass<'_> {
    /// The sale the tender turn was taken for (the cart on screen then).
    pub fn cart(&self) -> Option<CartId> {
        match &self.held {
            Held::Turn { cart, .. } => Some(*cart),
            Held::Nothing | Held::Engine { .. } | Held::Charge { .. } => None,
        }
    }
}

enum Held<'s> {
    Nothing,
    Engine { _swap: tokio::sync::RwLockReadGuard<'s, ()> },
    Charge { _one: tokio::sync::MutexGuard<'s, ()>, _swap: tokio::sync::RwLockReadGuard<'s, ()> },
    Turn { _one: tokio::sync::MutexGuard<'s, ()>, _swap: tokio::sync::RwLockReadGuard<'s, ()>, cart: CartId },
}

impl<'s> Held<'s> {
    async fn take(state: &'s AppState, locks: Locks) -> AppResult<Held<'s>> {
        Ok(match locks {
            Locks::None => Held::Nothing,
            Locks::Engine => Held::Engine { _swap: state.engines.no_swap().await },
            Locks::Charge => {
                let one = state.screen.charge_turn().await;
                Held::Charge { _one: one, _swap: state.engines.no_swap().await }
            }
            Locks::Turn { seen } => turn(state, seen).await?,
        })
    }
}

/// Takes the register's one tender slot (refused, not queued, when taken: a queued
/// second press would run after the first on a sale that changed) and, when `seen` is
/// given, checks the sale still has the tenders the cashier saw.
async fn turn(state: &AppState, seen: Option<u32>) -> AppResult<Held<'_>> {
    if seen.is_some_and(|s| s > MAX_SEEN_TENDERS) {
        return Err(AppError::InvalidInput(tr!(active(), "input-sale-view")));
    }
    let one = state.screen.try_charge_turn().ok_or(AppError::TenderInFlight)?;
    // no settings swap (a new engine) under a tender in flight
    let swap = state.engines.no_swap().await;
    let cart = state.cart_id();
    if let Some(seen) = seen {
        let now = paydesk_register::SaleView::of(&state.engine().carts().sale_now(cart)?).tenders.len();
        let now = u32::try_from(now).unwrap_or(u32::MAX);
        if now != seen {
            return Err(AppError::SaleChanged { seen, now });
        }
    }
    Ok(Held::Turn { _one: one, _swap: swap, cart })
}
