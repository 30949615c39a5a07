//! The audit chain (record 0064). Every action at the register appends one row; each
//! row stores the SHA-256 of the row before it (`prev_hash`) and of itself over
//! `prev_hash` and its own content (`hash`). Editing a row's content, deleting a row or
//! moving a row to another place by plain SQL leaves a mark that [`verify`] finds and
//! names.
//!
//! What the chain cannot do alone: someone who rewrites a row *and* recomputes every
//! hash after it produces a chain that verifies. The defence is an anchor kept
//! elsewhere — the head (last seq and hash) recorded in each Z report and sent to the
//! back office — which [`verify`] compares against the last row. The chain makes
//! tampering evident; it does not make it impossible.
//!
//! The row's `seq` (its place) is deliberately not hashed: the order is what the links
//! say, so a row moved to another place still verifies on its own and is reported as
//! *reordered* (with the row it belongs after), not as *changed*.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

pub type Hash = [u8; 32];

/// The link of the first row ever.
pub const GENESIS: Hash = [0; 32];
/// `before`/`after` are short JSON documents; a bigger one is a bug, not an audit row.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024;
/// Names (`action`, `subject`) stay short.
pub const MAX_NAME_BYTES: usize = 400;
/// A reason is a person's sentence, in any script (200 kanji are 600 bytes).
pub const MAX_REASON_BYTES: usize = 1024;
/// [`verify`] lists at most this many breaks and counts the rest.
pub const MAX_BREAKS_LISTED: usize = 100;

/// One action: who, when, what, and the state before and after (JSON, or none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    pub seq: u64,
    pub at_ms: i64,
    /// The staff member signed in; `None` for the register itself (recovery, startup).
    pub actor_id: Option<i64>,
    /// Who approved an action above the actor's role.
    pub approver_id: Option<i64>,
    pub action: String,
    /// What it was done to, e.g. `cart:12`, `payment:pay_…`, `settings`.
    pub subject: String,
    /// Why, in the person's words (an override, a paid-out, a cancel).
    pub reason: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// A record as stored: with its link and its own hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainedRecord {
    pub record: AuditRecord,
    pub prev_hash: Hash,
    pub hash: Hash,
}

/// A known point of the chain: the row before the first one checked (the genesis, or
/// the last row of a pruned part), or the head recorded elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchor {
    pub seq: u64,
    pub hash: Hash,
}

impl Anchor {
    pub const GENESIS: Anchor = Anchor { seq: 0, hash: GENESIS };
}

impl ChainedRecord {
    pub fn anchor(&self) -> Anchor {
        Anchor { seq: self.record.seq, hash: self.hash }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppendError {
    #[error("audit row {got} does not follow row {after}")]
    Seq { after: u64, got: u64 },
    #[error("audit {field} is {bytes} bytes; the limit is {limit}")]
    TooLong { field: &'static str, bytes: usize, limit: usize },
}

/// Field by field, each with its length, so no two different records share bytes
/// ("ab"+"c" vs "a"+"bc"), behind a version tag so a future layout cannot collide.
fn content_bytes(r: &AuditRecord) -> Vec<u8> {
    fn put_str(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u64).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn put_opt_str(out: &mut Vec<u8>, s: &Option<String>) {
        match s {
            Some(s) => {
                out.push(1);
                put_str(out, s);
            }
            None => out.push(0),
        }
    }
    fn put_opt_i64(out: &mut Vec<u8>, v: Option<i64>) {
        match v {
            Some(v) => {
                out.push(1);
                out.extend_from_slice(&v.to_be_bytes());
            }
            None => out.push(0),
        }
    }
    let mut out = Vec::with_capacity(64 + r.action.len() + r.subject.len());
    out.extend_from_slice(b"paydesk-audit-v1\0");
    out.extend_from_slice(&r.at_ms.to_be_bytes());
    put_opt_i64(&mut out, r.actor_id);
    put_opt_i64(&mut out, r.approver_id);
    put_str(&mut out, &r.action);
    put_str(&mut out, &r.subject);
    put_opt_str(&mut out, &r.reason);
    put_opt_str(&mut out, &r.before);
    put_opt_str(&mut out, &r.after);
    out
}

/// SHA-256 over the link and the record's content.
pub fn record_hash(prev_hash: &Hash, r: &AuditRecord) -> Hash {
    let mut h = Sha256::new();
    h.update(prev_hash);
    h.update(content_bytes(r));
    h.finalize().into()
}

/// The row to store after `last` (the chain's head, [`Anchor::GENESIS`] for the first).
pub fn append(last: Anchor, record: AuditRecord) -> Result<ChainedRecord, AppendError> {
    if record.seq != last.seq + 1 {
        return Err(AppendError::Seq { after: last.seq, got: record.seq });
    }
    for (field, bytes, limit) in [
        ("action", record.action.len(), MAX_NAME_BYTES),
        ("subject", record.subject.len(), MAX_NAME_BYTES),
        ("reason", record.reason.as_ref().map_or(0, String::len), MAX_REASON_BYTES),
        ("before", record.before.as_ref().map_or(0, String::len), MAX_DOCUMENT_BYTES),
        ("after", record.after.as_ref().map_or(0, String::len), MAX_DOCUMENT_BYTES),
    ] {
        if bytes > limit {
            return Err(AppendError::TooLong { field, bytes, limit });
        }
    }
    let hash = record_hash(&last.hash, &record);
    Ok(ChainedRecord { record, prev_hash: last.hash, hash })
}

/// One place where the chain is broken, named by the row's `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Break {
    /// The row's content was edited: its stored hash no longer matches it.
    Changed { seq: u64 },
    /// The row is intact but not where it was written: the links put it at `written_at`.
    Reordered { seq: u64, written_at: u64 },
    /// Rows `from_seq..=to_seq` are gone.
    Deleted { from_seq: u64, to_seq: u64 },
    /// The row before `seq` is not the one it was chained to, and that one is nowhere:
    /// it was removed and the rows renumbered, or rewritten with its hash recomputed.
    Unlinked { seq: u64 },
    /// The chain ends at `last_seq` but the head kept apart says `head_seq`: rows at
    /// the end were removed.
    Truncated { last_seq: u64, head_seq: u64 },
    /// The last row is not the head kept apart (rewritten with its hash recomputed, or
    /// rows added after the head was recorded).
    HeadMismatch { last_seq: u64, head_seq: u64 },
    /// Row `seq` is not the row an earlier checkpoint (a Z report's recorded head)
    /// saw there: rewritten with its hash recomputed, or gone.
    CheckpointMismatch { seq: u64 },
    /// The chain ends at `last_seq`, before the row `confirmed_seq` the back office
    /// confirmed: rows it had already received were deleted from the end.
    BehindConfirmed { last_seq: u64, confirmed_seq: u64 },
    /// Row `seq` is not the row the back office confirmed there: the chain was rewritten
    /// and re-sealed (every later hash recomputed) after the back office saw it.
    ConfirmedMismatch { seq: u64 },
}

impl Break {
    /// What a person reads in `paydesk-cli audit verify` and the app.
    pub fn describe(&self) -> String {
        match *self {
            Break::Changed { seq } => format!("row {seq} was changed after it was written"),
            Break::Reordered { seq, written_at } => format!("row {seq} was moved: it was written as row {written_at}"),
            Break::Deleted { from_seq, to_seq } if from_seq == to_seq => format!("row {from_seq} was deleted"),
            Break::Deleted { from_seq, to_seq } => format!("rows {from_seq} to {to_seq} were deleted"),
            Break::Unlinked { seq } => format!("the row before row {seq} was removed or rewritten"),
            Break::Truncated { last_seq, head_seq } => format!("rows {} to {head_seq} were deleted from the end", last_seq + 1),
            Break::HeadMismatch { last_seq, head_seq } => {
                format!("the last row ({last_seq}) does not match the recorded head (row {head_seq})")
            }
            Break::CheckpointMismatch { seq } => format!("row {seq} is not the row a Z report recorded there"),
            Break::BehindConfirmed { last_seq, confirmed_seq } => {
                format!("rows {} to {confirmed_seq}, confirmed by the back office, were deleted from the end", last_seq + 1)
            }
            Break::ConfirmedMismatch { seq } => format!("row {seq} is not the row the back office confirmed there"),
        }
    }
}

/// The result of [`verify`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub rows_checked: u64,
    /// In the order found, at most [`MAX_BREAKS_LISTED`].
    pub breaks: Vec<Break>,
    /// Breaks found beyond the listed ones.
    pub breaks_not_listed: u64,
}

impl Verdict {
    pub fn is_intact(&self) -> bool {
        self.breaks.is_empty()
    }

    fn push(&mut self, b: Break) {
        if self.breaks.len() < MAX_BREAKS_LISTED {
            self.breaks.push(b);
        } else {
            self.breaks_not_listed += 1;
        }
    }
}

/// Checks `rows` in ascending `seq` order (as `ORDER BY seq` returns them), starting
/// after `start`, and against `head` when one is kept apart. Memory: two small maps with
/// an entry per row.
pub fn verify(rows: &[ChainedRecord], start: Anchor, head: Option<Anchor>) -> Verdict {
    let mut v = Verdict { rows_checked: rows.len() as u64, breaks: Vec::new(), breaks_not_listed: 0 };
    let exists: HashMap<Hash, ()> = rows.iter().map(|r| (r.hash, ())).chain([(start.hash, ())]).collect();
    let written_at = places_by_links(rows, start);
    let mut prev = start;
    for (i, r) in rows.iter().enumerate() {
        let seq = r.record.seq;
        if record_hash(&r.prev_hash, &r.record) != r.hash {
            v.push(Break::Changed { seq });
        } else if written_at[i] != seq {
            v.push(Break::Reordered { seq, written_at: written_at[i] });
        } else if r.prev_hash != prev.hash && !exists.contains_key(&r.prev_hash) {
            // The row it was chained to is nowhere. (When it exists elsewhere, it was
            // moved and has been reported as such.)
            if seq > prev.seq + 1 {
                v.push(Break::Deleted { from_seq: prev.seq + 1, to_seq: seq - 1 });
            } else {
                v.push(Break::Unlinked { seq });
            }
        }
        prev = r.anchor();
    }
    if let Some(head) = head {
        if prev.seq < head.seq {
            v.push(Break::Truncated { last_seq: prev.seq, head_seq: head.seq });
        } else if prev.seq > head.seq || (prev.hash != head.hash && !exists.contains_key(&head.hash)) {
            // (A head row that exists but sits elsewhere was moved: reported above.)
            v.push(Break::HeadMismatch { last_seq: prev.seq, head_seq: head.seq });
        }
    }
    v
}

/// Checks that each checkpoint (an older head kept apart, e.g. on a printed Z report) is
/// still in the chain: the row at its `seq` exists and has its hash. Unlike `head`, a
/// checkpoint may be followed by later rows. Added to `v`'s breaks.
pub fn check_checkpoints(v: &mut Verdict, rows: &[ChainedRecord], checkpoints: &[Anchor]) {
    for cp in checkpoints {
        if cp.seq == 0 {
            continue; // genesis: always there
        }
        let found = rows.binary_search_by_key(&cp.seq, |r| r.record.seq).ok().map(|i| rows[i].hash);
        if found != Some(cp.hash) {
            v.push(Break::CheckpointMismatch { seq: cp.seq });
        }
    }
}

/// Checks that the head the back office last confirmed (record 0064, 0053) is still in
/// the chain: the row at its `seq` exists and has its hash. A chain that ends before it
/// lost rows the back office had received (`BehindConfirmed`); a row there with another
/// hash was rewritten and re-sealed (`ConfirmedMismatch`). Later rows are fine.
pub fn check_confirmed(v: &mut Verdict, rows: &[ChainedRecord], confirmed: Anchor) {
    if confirmed.seq == 0 {
        return; // nothing confirmed but the empty chain
    }
    let last_seq = rows.last().map_or(0, |r| r.record.seq);
    match rows.binary_search_by_key(&confirmed.seq, |r| r.record.seq) {
        Ok(i) if rows[i].hash == confirmed.hash => {}
        Ok(_) => v.push(Break::ConfirmedMismatch { seq: confirmed.seq }),
        Err(_) if last_seq < confirmed.seq => v.push(Break::BehindConfirmed { last_seq, confirmed_seq: confirmed.seq }),
        // a gap exactly there: deleted rows are named by `verify` already, and the
        // confirmed row is one of them
        Err(_) => v.push(Break::ConfirmedMismatch { seq: confirmed.seq }),
    }
}

/// Where each row was written, by following the links rather than trusting the `seq`
/// column: from `start`, each row is one after the row it is chained to. A deletion or a
/// rewritten hash cuts the chain; the next piece is placed from its first row's own
/// `seq`, so one break does not make every later row look moved.
fn places_by_links(rows: &[ChainedRecord], start: Anchor) -> Vec<u64> {
    let mut next_of: HashMap<Hash, usize> = HashMap::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        next_of.entry(r.prev_hash).or_insert(i);
    }
    let mut place: Vec<Option<u64>> = vec![None; rows.len()];
    let walk = |mut hash: Hash, mut at: u64, place: &mut Vec<Option<u64>>| {
        // Each row is placed once, so a loop of links (only forgeable by hand) ends.
        while let Some(&i) = next_of.get(&hash) {
            if place[i].is_some() {
                break;
            }
            at += 1;
            place[i] = Some(at);
            hash = rows[i].hash;
        }
    };
    walk(start.hash, start.seq, &mut place);
    for i in 0..rows.len() {
        if place[i].is_none() {
            let seq = rows[i].record.seq;
            place[i] = Some(seq);
            walk(rows[i].hash, seq, &mut place);
        }
    }
    place.into_iter().map(|p| p.expect("every row is placed by the loop above")).collect()
}
