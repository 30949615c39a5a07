//! Restore (record 0048): a replacement register reads its predecessor's history from
//! the back office, page by page, to keep as read-only history. Only a register the
//! owner marked replaced can be read, so the history read is final: its token is
//! refused from then on and nothing is added to it.
use crate::limits::MAX_SEQ;
use crate::up::Fact;
use crate::{check_version, text, ProtoError};
use serde::{Deserialize, Serialize};

/// Most rows in one page of a predecessor's history.
pub const MAX_RESTORE_PAGE: usize = 500;

/// The predecessor, as the back office knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestoreSource {
    pub v: u32,
    pub register_id: String,
    pub register_name: String,
    /// When the owner marked it replaced.
    pub replaced_ms: i64,
    /// Its history at the back office is seqs 1 to this, with no gap: all a restore gives.
    pub acked_through: u64,
    /// Rows its last batch said were still queued behind it, and offline payments not
    /// yet forwarded: the back office never received them (they died with its disk).
    pub queued_at_last_sync: u64,
    pub offline_waiting_at_last_sync: u64,
    pub last_sync_ms: Option<i64>,
}

impl RestoreSource {
    pub fn validate(&self) -> Result<(), ProtoError> {
        check_version(self.v)?;
        text::key("register_id", &self.register_id)?;
        text::text("register_name", &self.register_name)?;
        if self.acked_through > MAX_SEQ {
            return Err(ProtoError::SeqTooLarge { max: MAX_SEQ });
        }
        Ok(())
    }
}

/// One row of a predecessor's journal, with its seq.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalRow {
    pub seq: u64,
    pub at_ms: i64,
    pub fact: Fact,
}

/// Rows `after + 1 ..` of a predecessor's journal, consecutive, at most
/// [`MAX_RESTORE_PAGE`]; empty past its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestorePage {
    pub v: u32,
    pub register_id: String,
    pub after: u64,
    pub rows: Vec<JournalRow>,
}

impl RestorePage {
    /// The rules a page keeps before a register stores any of it: the register asked
    /// for `after`, the rows follow it one by one, and each fact is well formed.
    pub fn validate(&self, register_id: &str, after: u64, max: usize) -> Result<(), ProtoError> {
        check_version(self.v)?;
        if self.register_id != register_id {
            return Err(ProtoError::field("register_id", format!("is {}, not the register asked for ({register_id})", self.register_id)));
        }
        if self.after != after {
            return Err(ProtoError::field("after", format!("is {}, not the seq asked for ({after})", self.after)));
        }
        if self.rows.len() > max.min(MAX_RESTORE_PAGE) {
            return Err(ProtoError::TooManyRows { rows: self.rows.len(), max: max.min(MAX_RESTORE_PAGE) });
        }
        for (i, row) in self.rows.iter().enumerate() {
            let want = after + 1 + i as u64;
            let at = format!("rows[{i}] (seq {})", row.seq);
            if row.seq != want || row.seq > MAX_SEQ {
                return Err(ProtoError::field(format!("{at}.seq"), format!("must be {want}: a page's rows follow each other")));
            }
            if row.at_ms < 0 {
                return Err(ProtoError::field(format!("{at}.at_ms"), "is negative"));
            }
            row.fact.validate(&at)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seq: u64) -> JournalRow {
        JournalRow { seq, at_ms: 1, fact: Fact::PaymentCreated { checkout_key: format!("k{seq}"), amount: 100, currency: "usd".into() } }
    }

    #[test]
    fn a_page_must_follow_what_was_asked() {
        let page = RestorePage { v: 1, register_id: "a".into(), after: 4, rows: vec![row(5), row(6)] };
        page.validate("a", 4, 500).unwrap();
        assert!(page.validate("b", 4, 500).is_err(), "another register");
        assert!(page.validate("a", 3, 500).is_err(), "another start");
        assert!(matches!(page.validate("a", 4, 1), Err(ProtoError::TooManyRows { .. })));
        let gap = RestorePage { rows: vec![row(5), row(7)], ..page.clone() };
        assert!(gap.validate("a", 4, 500).unwrap_err().to_string().contains("must be 6"));
        let bad = RestorePage { rows: vec![JournalRow { seq: 5, at_ms: 1, fact: Fact::PaymentCreated { checkout_key: "k".into(), amount: 0, currency: "usd".into() } }], ..page };
        assert!(bad.validate("a", 4, 500).is_err(), "a zero amount");
    }
}
