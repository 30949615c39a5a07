//! Refunds owed back to customers (record 0142): what reconciliation found the store should
//! not have charged becomes a proposed refund (`propose`), approved by a second person who
//! proves who they are with their staff PIN (`approve`), executed once against the PSP with
//! the idempotency key made at proposal (`execute`), and shown on the dashboard
//! (`dashboard`). Stored in `owed_refunds` (`migrations/V14__owed_refunds.sql`).
pub mod approve;
pub mod dashboard;
pub mod execute;
pub mod person;
pub mod propose;
pub mod retry;

use crate::error::{ApiError, ApiResult};
use serde_json::{json, Value};
use uuid::Uuid;

/// Where an owed refund is. `executing` is entered, in its own committed transaction,
/// before the PSP is called, and left only on the PSP's definite answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwedState {
    Proposed,
    Approved,
    Executing,
    Succeeded,
    Failed,
}

impl OwedState {
    pub const fn as_str(self) -> &'static str {
        match self {
            OwedState::Proposed => "proposed",
            OwedState::Approved => "approved",
            OwedState::Executing => "executing",
            OwedState::Succeeded => "succeeded",
            OwedState::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<OwedState> {
        [OwedState::Proposed, OwedState::Approved, OwedState::Executing, OwedState::Succeeded, OwedState::Failed].into_iter().find(|x| x.as_str() == s)
    }

    /// Still owed to the customer: not paid back and not given up.
    pub const fn owed(self) -> bool {
        match self {
            OwedState::Proposed | OwedState::Approved | OwedState::Executing => true,
            OwedState::Succeeded | OwedState::Failed => false,
        }
    }

    /// The PSP may have been asked (so only the stored key may ever ask it again).
    pub const fn psp_asked(self) -> bool {
        match self {
            OwedState::Executing | OwedState::Succeeded | OwedState::Failed => true,
            OwedState::Proposed | OwedState::Approved => false,
        }
    }
}

/// What a person or the back office does to an owed refund; each allows only the states
/// listed (an allow-list per operation, so a new state is refused until someone decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Approve,
    /// `approved` starts; `executing` resumes with the same key (the answer was lost).
    Execute,
    /// The back office on its own (`retry`): only resumes what a person started, never
    /// starts an approved refund nobody executed.
    Resume,
    /// The PSP's definite answer.
    Record,
}

impl Op {
    pub const fn from_states(self) -> &'static [OwedState] {
        match self {
            Op::Approve => &[OwedState::Proposed],
            Op::Execute => &[OwedState::Approved, OwedState::Executing],
            Op::Resume => &[OwedState::Executing],
            Op::Record => &[OwedState::Executing],
        }
    }

    pub fn allows(self, s: OwedState) -> bool {
        self.from_states().contains(&s)
    }
}

/// The refused transition's answer: 409 with a code saying which state stopped it.
pub fn refused(op: Op, s: OwedState) -> ApiError {
    let code = match s {
        OwedState::Proposed => "not_approved",
        OwedState::Approved => "already_approved",
        OwedState::Executing => "executing",
        OwedState::Succeeded => "already_paid_back",
        OwedState::Failed => "refund_failed",
    };
    ApiError::Refused { code, message: format!("cannot {op:?} an owed refund that is {}", s.as_str()).to_lowercase() }
}

/// One row of `owed_refunds`, as the routes answer it.
#[derive(Debug, Clone)]
pub struct Owed {
    pub owed_id: Uuid,
    pub exception_id: Uuid,
    pub kind: String,
    pub psp_charge_id: String,
    pub amount: i64,
    pub currency: String,
    pub idempotency_key: String,
    pub state: OwedState,
    pub proposed_by: String,
    pub approved_by: Option<String>,
    pub attempts: i32,
    pub psp_refund_id: Option<String>,
    pub last_error: Option<String>,
}

pub const COLUMNS: &str = "owed_id, exception_id, kind, psp_charge_id, amount, currency, idempotency_key, state, proposed_by, approved_by, attempts, psp_refund_id, last_error";

impl Owed {
    pub fn from_row(r: &tokio_postgres::Row) -> ApiResult<Owed> {
        Self::from_row_at(r, 0)
    }

    /// The row's `COLUMNS` starting at column `at`.
    pub fn from_row_at(r: &tokio_postgres::Row, at: usize) -> ApiResult<Owed> {
        let state: &str = r.get(at + 7);
        Ok(Owed {
            owed_id: r.get(at),
            exception_id: r.get(at + 1),
            kind: r.get(at + 2),
            psp_charge_id: r.get(at + 3),
            amount: r.get(at + 4),
            currency: r.get(at + 5),
            idempotency_key: r.get(at + 6),
            state: OwedState::parse(state).ok_or_else(|| ApiError::Internal(format!("stored owed refund state {state:?}")))?,
            proposed_by: r.get(at + 8),
            approved_by: r.get(at + 9),
            attempts: r.get(at + 10),
            psp_refund_id: r.get(at + 11),
            last_error: r.get(at + 12),
        })
    }

    /// The answer's JSON (the idempotency key is not a secret, but nobody needs it).
    pub fn to_json(&self) -> Value {
        json!({
            "owed_id": self.owed_id, "exception_id": self.exception_id, "kind": self.kind, "psp_charge_id": self.psp_charge_id,
            "amount": self.amount, "currency": self.currency, "state": self.state.as_str(), "proposed_by": self.proposed_by,
            "approved_by": self.approved_by, "attempts": self.attempts, "psp_refund_id": self.psp_refund_id, "last_error": self.last_error,
        })
    }
}

/// The owed refund `id` of `store`, locked for this transaction when `lock`.
pub async fn load(c: &impl deadpool_postgres::GenericClient, store: Uuid, id: Uuid, lock: bool) -> ApiResult<Owed> {
    let sql = format!("SELECT {COLUMNS} FROM owed_refunds WHERE store_id = $1 AND owed_id = $2{}", if lock { " FOR UPDATE" } else { "" });
    let row = c.query_opt(&sql, &[&store, &id]).await?.ok_or_else(|| ApiError::NotFound(format!("no owed refund {id} in store {store}")))?;
    Owed::from_row(&row)
}

pub fn parse_id(s: &str, what: &str) -> ApiResult<Uuid> {
    Uuid::parse_str(s).map_err(|_| ApiError::NotFound(format!("no {what} {s:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operation_allows_only_its_states() {
        use OwedState::*;
        let all = [Proposed, Approved, Executing, Succeeded, Failed];
        let allowed = |op: Op| all.iter().copied().filter(|s| op.allows(*s)).collect::<Vec<_>>();
        assert_eq!(allowed(Op::Approve), [Proposed]);
        assert_eq!(allowed(Op::Execute), [Approved, Executing]);
        assert_eq!(allowed(Op::Resume), [Executing]);
        assert_eq!(allowed(Op::Record), [Executing]);
        for s in all {
            assert_eq!(OwedState::parse(s.as_str()), Some(s));
            // owed and paid back/given up are exact opposites; asked the PSP only from executing on
            assert_eq!(s.owed(), !matches!(s, Succeeded | Failed));
            assert_eq!(s.psp_asked(), !matches!(s, Proposed | Approved));
        }
        assert_eq!(OwedState::parse("pending"), None);
    }
}
