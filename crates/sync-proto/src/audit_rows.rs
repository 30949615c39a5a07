//! The audit chain's rows and the receipts issued, on the wire (issue #32, record 0146).
//!
//! The back office confirms only the chain's head (record 0053). To show an auditor that a
//! sale's row is inside the chain whose head it confirmed, it needs the rows themselves:
//! each `audit_row` carries exactly what the row's hash covers (`paydesk_access::audit`'s
//! content: time, actor, approver, action, subject, reason, before, after) with its link
//! and hash, so the back office recomputes every step. Nothing secret is in a row: the
//! chain never holds a PIN or its hash (record 0064).
//!
//! Each print of a sale's receipt goes up as `receipt_printed`: the text as printed (the
//! lines of the receipt as the paper has them), when and by whom, and the seq of the audit
//! row that recorded the print with the text's SHA-256; that row binds the text into the
//! chain.
use crate::audit::check_hash;
use crate::limits::MAX_SEQ;
use crate::sales::MAX_RECEIPT_NO_CHARS;
use crate::staff::check_staff_name;
use crate::ProtoError;
use serde::{Deserialize, Serialize};

/// The chain's own limits (`paydesk_access::audit`): an action or a subject.
pub const MAX_AUDIT_NAME_BYTES: usize = 400;
/// A reason in the person's words.
pub const MAX_AUDIT_REASON_BYTES: usize = 1024;
/// A before/after JSON document.
pub const MAX_AUDIT_DOCUMENT_BYTES: usize = 16 * 1024;
/// A receipt's text as printed (a sale of 1,000 lines at 48 columns fits; a longer one
/// goes up without its text, its SHA-256 still in the chain).
pub const MAX_RECEIPT_TEXT_BYTES: usize = 96 * 1024;
/// Prints of one sale's receipt (the ledger's CHECK).
pub const MAX_PRINT_NO: i64 = 10_000;

/// One row of the register's audit chain, as stored there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditRow {
    pub seq: u64,
    pub at_ms: i64,
    pub actor_id: Option<i64>,
    pub approver_id: Option<i64>,
    pub action: String,
    pub subject: String,
    pub reason: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    /// The hash of the row before (64 zeros before the first row).
    pub prev_hash: String,
    pub hash: String,
}

/// How a print attempt ended (the ledger's `receipt_prints.outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrintOutcome {
    Printed,
    Failed,
    Rendered,
}

impl PrintOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            PrintOutcome::Printed => "printed",
            PrintOutcome::Failed => "failed",
            PrintOutcome::Rendered => "rendered",
        }
    }
}

/// One print of a sale's receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiptPrinted {
    pub sale: i64,
    pub receipt_no: String,
    /// 1, 2, ... per sale.
    pub print_no: i64,
    /// Marked REPRINT / 再発行: an earlier copy may have come out.
    pub reprint: bool,
    pub outcome: PrintOutcome,
    /// Paper may have come out.
    pub paper: bool,
    /// Who was signed in (the register's staff id and the name then); none on a register
    /// without staff.
    pub staff: Option<i64>,
    pub staff_name: Option<String>,
    /// The receipt's lines as printed, joined by "\n"; `None` when longer than
    /// [`MAX_RECEIPT_TEXT_BYTES`] or printed by a build that did not keep it.
    pub text: Option<String>,
    /// SHA-256 of `text` as the register computed it (also in the audit row).
    pub text_sha256: String,
    /// The audit row that recorded this print.
    pub audit_seq: u64,
}

fn bytes_at_most(field: String, s: &str, max: usize) -> Result<(), ProtoError> {
    if s.len() > max {
        return Err(ProtoError::field(field, format!("is {} bytes; at most {max}", s.len())));
    }
    Ok(())
}

impl AuditRow {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        if self.seq == 0 || self.seq > MAX_SEQ {
            return Err(ProtoError::field(f("seq"), format!("must be 1 to {MAX_SEQ}, got {}", self.seq)));
        }
        if self.at_ms < 0 {
            return Err(ProtoError::field(f("at_ms"), "is negative"));
        }
        for (name, id) in [("actor_id", self.actor_id), ("approver_id", self.approver_id)] {
            if id.is_some_and(|v| v < 1) {
                return Err(ProtoError::field(f(name), "must be a staff id (1 or more)"));
            }
        }
        bytes_at_most(f("action"), &self.action, MAX_AUDIT_NAME_BYTES)?;
        if self.action.is_empty() {
            return Err(ProtoError::field(f("action"), "is empty"));
        }
        bytes_at_most(f("subject"), &self.subject, MAX_AUDIT_NAME_BYTES)?;
        if let Some(r) = &self.reason {
            bytes_at_most(f("reason"), r, MAX_AUDIT_REASON_BYTES)?;
            if r.is_empty() {
                // the ledger stores "no reason" as none, never as an empty one
                return Err(ProtoError::field(f("reason"), "is empty (none is null)"));
            }
        }
        for (name, doc) in [("before", &self.before), ("after", &self.after)] {
            if let Some(d) = doc {
                bytes_at_most(f(name), d, MAX_AUDIT_DOCUMENT_BYTES)?;
            }
        }
        check_hash(&f("prev_hash"), &self.prev_hash)?;
        check_hash(&f("hash"), &self.hash)
    }
}

impl ReceiptPrinted {
    pub(crate) fn validate(&self, f: &dyn Fn(&str) -> String) -> Result<(), ProtoError> {
        crate::text::id(&f("sale"), self.sale)?;
        let n = self.receipt_no.len();
        if n == 0 || n > MAX_RECEIPT_NO_CHARS || !self.receipt_no.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ProtoError::field(f("receipt_no"), format!("must be 1 to {MAX_RECEIPT_NO_CHARS} digits")));
        }
        if !(1..=MAX_PRINT_NO).contains(&self.print_no) {
            return Err(ProtoError::field(f("print_no"), format!("must be 1 to {MAX_PRINT_NO}, got {}", self.print_no)));
        }
        // The ledger's rules for a print (schema v15): printed means paper, rendered never.
        match self.outcome {
            PrintOutcome::Printed if !self.paper => return Err(ProtoError::field(f("paper"), "must be true for a printed receipt")),
            PrintOutcome::Rendered if self.paper => return Err(ProtoError::field(f("paper"), "must be false for a rendered receipt")),
            PrintOutcome::Printed | PrintOutcome::Rendered | PrintOutcome::Failed => {}
        }
        if self.staff.is_some_and(|s| s < 1) {
            return Err(ProtoError::field(f("staff"), "must be a staff id (1 or more)"));
        }
        if let Some(name) = &self.staff_name {
            check_staff_name(&f("staff_name"), name)?;
        }
        if let Some(t) = &self.text {
            bytes_at_most(f("text"), t, MAX_RECEIPT_TEXT_BYTES)?;
        }
        check_hash(&f("text_sha256"), &self.text_sha256)?;
        if self.audit_seq == 0 || self.audit_seq > MAX_SEQ {
            return Err(ProtoError::field(f("audit_seq"), format!("must be 1 to {MAX_SEQ}")));
        }
        Ok(())
    }
}
