//! Each print of a return document (issue #29, record 0117), in the Returns store: table
//! `return_prints`. The rule is the sale receipt's (record 0058): the original until a
//! copy may have come out, a reprint after; decided in the write that records the print,
//! and held by a trigger.

use std::ops::Deref;

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::receipts::PrintOutcome;
use super::{collect, Cached, Ledger, Returns};
use crate::error::Result;

/// One recorded print of a return's document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnPrint {
    pub return_id: i64,
    pub print_no: i64,
    pub reprint: bool,
    pub format: String,
    pub target: String,
    pub outcome: String,
    pub error: Option<String>,
    pub at_ms: i64,
    /// Paper may have come out (printed, or stopped part-way).
    pub paper: bool,
}

const PAPER_SQL: &str = "SELECT EXISTS (SELECT 1 FROM return_prints WHERE return_id = ?1 AND paper = 1)";

impl<L: Deref<Target = Ledger>> Returns<L> {
    /// Whether the next print of the return's document is a reprint: an earlier copy may
    /// have come out. Attempts that reached no printer do not count.
    pub fn next_print_is_reprint(&self, return_id: i64) -> Result<bool> {
        Ok(self.conn.row_cached(PAPER_SQL, [return_id], |r| r.get(0))?)
    }

    /// The return's document prints, in order.
    pub fn prints(&self, return_id: i64) -> Result<Vec<ReturnPrint>> {
        collect(
            &self.conn,
            "SELECT print_no, reprint, format, target, outcome, error, at_ms, paper FROM return_prints
             WHERE return_id = ?1 ORDER BY print_no",
            [return_id],
            |r| {
                Ok(Ok(ReturnPrint {
                    return_id,
                    print_no: r.get(0)?,
                    reprint: r.get::<_, i64>(1)? == 1,
                    format: r.get(2)?,
                    target: r.get(3)?,
                    outcome: r.get(4)?,
                    error: r.get(5)?,
                    at_ms: r.get(6)?,
                    paper: r.get(7)?,
                }))
            },
        )
    }
}

impl Returns<&mut Ledger> {
    /// Records one print of return `return_id`'s document (after it was attempted) with
    /// the return's next number; the original exactly when no earlier copy may have come
    /// out, decided in the same transaction. An unknown return is refused by its foreign key.
    pub fn record_print(
        &mut self,
        return_id: i64,
        format: &str,
        target: &str,
        outcome: PrintOutcome,
        error: Option<&str>,
        now_ms: i64,
    ) -> Result<ReturnPrint> {
        let error = error.map(|e| e.chars().take(1000).collect::<String>());
        let target: String = target.chars().take(300).collect();
        let (outcome, paper) = outcome.stored();
        let tx = self.write_tx()?;
        // Asked first so an unknown return is the ledger's NotFound, not a constraint.
        let record = super::returns::record_tx(&tx, return_id)?;
        let print_no: i64 =
            tx.row_cached("SELECT COALESCE(MAX(print_no), 0) + 1 FROM return_prints WHERE return_id = ?1", [record.id], |r| r.get(0))?;
        let reprint: bool = tx.row_cached(PAPER_SQL, [record.id], |r| r.get(0))?;
        tx.exec_cached(
            "INSERT INTO return_prints (return_id, print_no, reprint, format, target, outcome, error, at_ms, paper)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![record.id, print_no, reprint, format, target, outcome, error, now_ms, paper],
        )?;
        tx.commit()?;
        Ok(ReturnPrint { return_id, print_no, reprint, format: format.into(), target, outcome: outcome.into(), error, at_ms: now_ms, paper })
    }
}

const RESTORED_PAPER_SQL: &str = "SELECT EXISTS (SELECT 1 FROM restored_return_prints WHERE return_id = ?1 AND paper = 1)";

impl<L: Deref<Target = Ledger>> Returns<L> {
    /// Whether the next print of restored return `id`'s document is a reprint (record 0144):
    /// the rule of [`Returns::next_print_is_reprint`].
    pub fn next_restored_print_is_reprint(&self, id: i64) -> Result<bool> {
        Ok(self.conn.row_cached(RESTORED_PAPER_SQL, [id], |r| r.get(0))?)
    }
}

impl Returns<&mut Ledger> {
    /// Records one print of restored return `id`'s document (schema v39) with the text that
    /// was printed: the original exactly when no earlier copy may have come out, and in the
    /// same transaction an audit row `restored_return_print` naming the predecessor, the
    /// sale, the return, the print and the text's SHA-256 (record 0146's rule). An unknown
    /// return is [`crate::Error::NotFound`]-like: the ledger's own lookup refuses it first.
    pub fn record_restored_print(&mut self, id: i64, print: &super::PrintRecord<'_>, now_ms: i64) -> Result<ReturnPrint> {
        let super::PrintRecord { format, target, outcome, error, text } = *print;
        let error = error.map(|e| e.chars().take(1000).collect::<String>());
        let target: String = target.chars().take(300).collect();
        let (outcome, paper) = outcome.stored();
        let record = self.restored_return(id)?;
        let tx = self.write_tx()?;
        let print_no: i64 =
            tx.row_cached("SELECT COALESCE(MAX(print_no), 0) + 1 FROM restored_return_prints WHERE return_id = ?1", [id], |r| r.get(0))?;
        let reprint: bool = tx.row_cached(RESTORED_PAPER_SQL, [id], |r| r.get(0))?;
        let sha = super::receipt_text_sha256(text.unwrap_or(""));
        let after = serde_json::json!({
            "restored_from": record.source, "sale": record.sale_id, "receipt_no": record.receipt_no,
            "return": record.number, "print_no": print_no, "reprint": reprint, "outcome": outcome, "text_sha256": sha,
        });
        let input = super::audit::AuditInput {
            after: Some(after.to_string()),
            ..super::audit::AuditInput::new("restored_return_print", &format!("return {} (restored from {}) print {print_no}", record.number, record.source))
        };
        let audit_seq = super::audit::append_audit(&tx, &input, now_ms)?;
        tx.exec_cached(
            "INSERT INTO restored_return_prints (return_id, print_no, reprint, format, target, outcome, error, at_ms, paper, text_sha256, audit_seq)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![id, print_no, reprint, format, target, outcome, error, now_ms, paper, sha, audit_seq],
        )?;
        tx.commit()?;
        Ok(ReturnPrint { return_id: id, print_no, reprint, format: format.into(), target, outcome: outcome.into(), error, at_ms: now_ms, paper })
    }
}
