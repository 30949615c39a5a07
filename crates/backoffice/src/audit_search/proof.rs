//! The proof that a sale's audit rows are inside a register's chain (record 0146): from the
//! first row that recorded a print of the sale's receipt, each row's hash is recomputed from
//! its link and its content (`paydesk_access::audit::record_hash`, what the register
//! computed), each link must be the hash of the row before, and the last row must be the
//! head the back office confirmed (record 0053). Every step is kept for the auditor; a break
//! names the row. Pure: the rows are read by `route.rs`, in pages, and fed in seq order.
use paydesk_access::audit::{record_hash, AuditRecord, Hash};
use serde::Serialize;

/// Steps listed in an answer; past it they are only counted (the breaks are always listed).
pub const MAX_STEPS_LISTED: usize = 200;
/// Rows one proof walks at most (the nearest confirmed head past the sale's rows is
/// normally one batch away; a register offline for months may be further).
pub const MAX_PROOF_ROWS: i64 = 200_000;

/// One row as the back office holds it.
#[derive(Debug, Clone)]
pub struct HeldRow {
    pub record: AuditRecord,
    pub prev_hash: Hash,
    pub hash: Hash,
}

/// A step of the walk: the row, its hash as held and as recomputed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub seq: u64,
    pub action: String,
    pub subject: String,
    pub prev_hash: String,
    pub hash: String,
    pub computed: String,
    pub ok: bool,
}

/// Where the proof fails, by row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Break {
    /// The row's content does not give its hash: it was changed after it was received.
    Changed { seq: u64 },
    /// The row's link is not the hash of the row before: the row before was rewritten (its
    /// hash recomputed), or this one was.
    Unlinked { seq: u64 },
    /// Rows `from..=to` are not here though later rows are: removed at the back office.
    Missing { from: u64, to: u64 },
    /// The walk ended at row `last` but the confirmed head is row `head`, and rows were
    /// received past it: removed at the back office.
    EndsBeforeHead { last: u64, head: u64 },
    /// The last row is the head's seq but not its hash: the chain here is not the one whose
    /// head was confirmed.
    HeadMismatch { seq: u64 },
    /// The audit row a print names does not record that print (another sale or print).
    NotThePrint { print_no: i64, seq: u64 },
    /// The print's text as held does not hash to the SHA-256 its audit row recorded.
    TextChanged { print_no: i64, seq: u64 },
}

impl Break {
    pub fn describe(&self) -> String {
        match *self {
            Break::Changed { seq } => format!("row {seq} was changed: its content does not give its hash"),
            Break::Unlinked { seq } => format!("row {seq} does not link to row {}: one of them was rewritten", seq.saturating_sub(1)),
            Break::Missing { from, to } if from == to => format!("row {from} is missing"),
            Break::Missing { from, to } => format!("rows {from} to {to} are missing"),
            Break::EndsBeforeHead { last, head } => format!("the rows end at {last}, before the confirmed head (row {head})"),
            Break::HeadMismatch { seq } => format!("row {seq} is not the head the back office confirmed there"),
            Break::NotThePrint { print_no, seq } => format!("row {seq} does not record print {print_no} of this sale"),
            Break::TextChanged { print_no, seq } => format!("the text of print {print_no} is not the text row {seq} recorded"),
        }
    }
}

/// A walk in progress from `start` up to the confirmed head `head`.
pub struct Walk {
    head: (u64, Hash),
    expected: u64,
    last: Option<(u64, Hash)>,
    pub steps: Vec<Step>,
    pub steps_not_listed: u64,
    pub breaks: Vec<Break>,
}

impl Walk {
    pub fn new(start: u64, head: (u64, Hash)) -> Walk {
        Walk { head, expected: start, last: None, steps: Vec::new(), steps_not_listed: 0, breaks: Vec::new() }
    }

    /// The next row held, in seq order.
    pub fn row(&mut self, r: &HeldRow) {
        let seq = r.record.seq;
        if seq > self.expected {
            self.breaks.push(Break::Missing { from: self.expected, to: seq - 1 });
        }
        let computed = record_hash(&r.prev_hash, &r.record);
        let changed = computed != r.hash;
        if changed {
            self.breaks.push(Break::Changed { seq });
        }
        // The first row's link is where the walk starts: it is checked by the hash it gives.
        let unlinked = self.last.is_some_and(|(s, h)| s + 1 == seq && h != r.prev_hash);
        if unlinked {
            self.breaks.push(Break::Unlinked { seq });
        }
        if self.steps.len() < MAX_STEPS_LISTED {
            self.steps.push(Step {
                seq,
                action: r.record.action.clone(),
                subject: r.record.subject.clone(),
                prev_hash: hex::encode(r.prev_hash),
                hash: hex::encode(r.hash),
                computed: hex::encode(computed),
                ok: !changed && !unlinked,
            });
        } else {
            self.steps_not_listed += 1;
        }
        self.last = Some((seq, r.hash));
        self.expected = seq + 1;
    }

    /// Ends the walk. `received_past_head`: rows past the head's seq are held (so rows
    /// missing at the end were received and removed, not still on their way).
    pub fn finish(mut self, received_past_head: bool) -> Outcome {
        let (head_seq, head_hash) = self.head;
        let mut pending = false;
        match self.last {
            Some((seq, hash)) if seq == head_seq => {
                if hash != head_hash {
                    self.breaks.push(Break::HeadMismatch { seq });
                }
            }
            Some((seq, _)) if received_past_head => self.breaks.push(Break::EndsBeforeHead { last: seq, head: head_seq }),
            None if received_past_head => self.breaks.push(Break::Missing { from: self.expected, to: head_seq }),
            Some(_) | None => pending = true,
        }
        let verdict = if !self.breaks.is_empty() {
            Verdict::Broken
        } else if pending {
            Verdict::Incomplete
        } else {
            Verdict::Verified
        };
        Outcome { verdict, steps: self.steps, steps_not_listed: self.steps_not_listed, breaks: self.breaks }
    }
}

/// What the walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Verdict,
    pub steps: Vec<Step>,
    pub steps_not_listed: u64,
    pub breaks: Vec<Break>,
}

/// The proof's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every row from the sale's first to the confirmed head recomputes, and each print's
    /// text is the one its row recorded.
    Verified,
    /// A row, a link, the head or a text does not hold: named in the breaks.
    Broken,
    /// Not provable yet: no head confirmed past the sale's rows, or rows to it not received.
    Incomplete,
    /// The sale has no receipt print recorded (printed before registers sent them, or never).
    NoReceipt,
}

impl Verdict {
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::Broken => "broken",
            Verdict::Incomplete => "incomplete",
            Verdict::NoReceipt => "no_receipt",
        }
    }
}

/// What a print's audit row says of it (its `after` document, written by the ledger's
/// `record_print_text`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct PrintRecorded {
    pub sale: i64,
    pub print_no: i64,
    pub text_sha256: String,
}

/// SHA-256 of a text, as the register spells it.
pub fn text_sha256(text: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

/// Checks one print against its audit row: the row records this sale's print, and the text
/// held hashes to what the row recorded. `Ok(Some(true))`: the text is the one recorded;
/// `Ok(None)`: no text kept to compare.
pub fn check_print(sale: i64, print_no: i64, text: Option<&str>, row: &HeldRow) -> Result<Option<bool>, Break> {
    let seq = row.record.seq;
    if row.record.action != "receipt_print" {
        return Err(Break::NotThePrint { print_no, seq });
    }
    let said: PrintRecorded = row
        .record
        .after
        .as_deref()
        .and_then(|a| serde_json::from_str(a).ok())
        .ok_or(Break::NotThePrint { print_no, seq })?;
    if said.sale != sale || said.print_no != print_no {
        return Err(Break::NotThePrint { print_no, seq });
    }
    match text {
        None => Ok(None),
        Some(t) if text_sha256(t) == said.text_sha256 => Ok(Some(true)),
        Some(_) => Err(Break::TextChanged { print_no, seq }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_access::audit::{append, Anchor};

    fn chain(n: u64) -> Vec<HeldRow> {
        let mut last = Anchor::GENESIS;
        (1..=n)
            .map(|seq| {
                let r = AuditRecord {
                    seq,
                    at_ms: 1_000 + seq as i64,
                    actor_id: None,
                    approver_id: None,
                    action: "x".into(),
                    subject: format!("row {seq}"),
                    reason: None,
                    before: None,
                    after: None,
                };
                let c = append(last, r).unwrap();
                last = c.anchor();
                HeldRow { record: c.record, prev_hash: c.prev_hash, hash: c.hash }
            })
            .collect()
    }

    fn walk(rows: &[HeldRow], start: u64, head: &HeldRow, past: bool) -> Outcome {
        let mut w = Walk::new(start, (head.record.seq, head.hash));
        rows.iter().filter(|r| r.record.seq >= start && r.record.seq <= head.record.seq).for_each(|r| w.row(r));
        w.finish(past)
    }

    #[test]
    fn an_intact_chain_verifies_and_every_edit_names_its_row() {
        let rows = chain(6);
        let head = rows[4].clone();
        let ok = walk(&rows, 2, &head, true);
        assert_eq!((ok.verdict, ok.steps.len()), (Verdict::Verified, 4));

        let mut changed = rows.clone();
        changed[2].record.subject = "rewritten".into();
        assert_eq!(walk(&changed, 2, &head, true).breaks, [Break::Changed { seq: 3 }]);

        // rewritten and its hash recomputed: the next row's link names it
        let mut resealed = rows.clone();
        resealed[2].record.subject = "rewritten".into();
        resealed[2].hash = record_hash(&resealed[2].prev_hash, &resealed[2].record);
        assert_eq!(walk(&resealed, 2, &head, true).breaks, [Break::Unlinked { seq: 4 }]);

        let mut gone = rows.clone();
        gone.remove(2);
        assert_eq!(walk(&gone, 2, &head, true).breaks, [Break::Missing { from: 3, to: 3 }]);

        // rows to the head not here: on their way (nothing past the head) or removed
        assert_eq!(walk(&rows[..3], 2, &head, false).verdict, Verdict::Incomplete);
        assert_eq!(walk(&rows[..3], 2, &head, true).breaks, [Break::EndsBeforeHead { last: 3, head: 5 }]);

        // every hash re-sealed to the end: the head the back office confirmed catches it
        let mut all = rows.clone();
        all[1].record.subject = "rewritten".into();
        let mut last = Anchor { seq: 1, hash: all[0].hash };
        for r in &mut all[1..] {
            r.prev_hash = last.hash;
            r.hash = record_hash(&r.prev_hash, &r.record);
            last = Anchor { seq: r.record.seq, hash: r.hash };
        }
        assert_eq!(walk(&all, 2, &head, true).breaks, [Break::HeadMismatch { seq: 5 }]);
    }

    #[test]
    fn a_print_is_checked_against_the_row_that_recorded_it() {
        let mut row = chain(1).remove(0);
        row.record.action = "receipt_print".into();
        row.record.after = Some(serde_json::json!({"sale": 7, "print_no": 2, "text_sha256": text_sha256("RECEIPT")}).to_string());
        assert_eq!(check_print(7, 2, Some("RECEIPT"), &row), Ok(Some(true)));
        assert_eq!(check_print(7, 2, None, &row), Ok(None));
        assert_eq!(check_print(7, 2, Some("RECEIPT!"), &row), Err(Break::TextChanged { print_no: 2, seq: 1 }));
        assert_eq!(check_print(8, 2, Some("RECEIPT"), &row), Err(Break::NotThePrint { print_no: 2, seq: 1 }));
    }
}
