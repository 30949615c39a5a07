//! The audit chain (record 0064): its head, its verification against kept heads, the
//! head the back office confirmed, its rows, and the rows the front ends add.

use paydesk_access::audit::{Anchor, Verdict};
use paydesk_access::Action;
use paydesk_ledger::{AuditEntry, AuditInput, ConfirmedHead, Result};

use crate::Engine;

/// Audit use cases; see [`Engine::audit`].
pub struct AuditCases<'e> {
    pub(super) engine: &'e Engine,
}

impl AuditCases<'_> {
    /// The last row's seq and hash.
    pub fn head(&self) -> Result<Anchor> {
        self.engine.with_reader(|l| l.audit().head())
    }

    /// The whole chain checked against `head` (when kept apart) and `checkpoints` (older
    /// heads), besides every head a Z report recorded and the back office's confirmed one.
    pub fn verify(&self, head: Option<Anchor>, checkpoints: &[Anchor]) -> Result<Verdict> {
        self.engine.with_reader(|l| l.audit().verify_with(head, checkpoints))
    }

    /// The verdict, the head and the confirmed head read together (one snapshot).
    pub fn verify_with_head(&self) -> Result<(Verdict, Anchor, Option<ConfirmedHead>)> {
        self.engine.with_reader(|l| Ok((l.audit().verify(None)?, l.audit().head()?, l.audit().confirmed()?)))
    }

    /// The head the back office last confirmed, if any.
    pub fn confirmed(&self) -> Result<Option<ConfirmedHead>> {
        self.engine.with_reader(|l| l.audit().confirmed())
    }

    /// Every row, oldest first.
    pub fn log(&self) -> Result<Vec<AuditEntry>> {
        self.engine.with_reader(|l| l.audit().log())
    }

    /// Every row with the staff's names, read together.
    pub fn log_with_names(&self) -> Result<(Vec<AuditEntry>, super::StaffNames)> {
        self.engine.with_reader(|l| Ok((l.audit().log()?, super::StaffNames::load(l)?)))
    }

    /// One row of a front end's own (an override, a printer change).
    pub fn record(&self, input: &AuditInput) -> Result<i64> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.audit_mut().record_action(input, now))
    }

    /// For an approved action whose ledger write takes no approver (settings, the
    /// catalog, a discount, a cancel, an override): one row naming both people, recorded
    /// just before the action.
    pub fn record_approval(&self, actor_id: Option<i64>, approver_id: i64, action: Action, subject: &str) -> Result<i64> {
        let input = AuditInput {
            actor_id,
            approver_id: Some(approver_id),
            ..AuditInput::new(&format!("approved_{}", action.as_str()), subject)
        };
        self.record(&input)
    }
}
