//! The audit chain finds a row changed, deleted or moved, and names it (record 0064).
//! Tampering is done the way plain SQL would do it: edit a column, delete a row, swap
//! two rows' `seq`, renumber, or rewrite a row and recompute its hash.

use paydesk_access::audit::{append, check_confirmed, record_hash, verify, Anchor, AuditRecord, Break, ChainedRecord};
use proptest::prelude::*;

fn record(seq: u64, salt: u64) -> AuditRecord {
    AuditRecord {
        seq,
        at_ms: 1_760_000_000_000 + seq as i64 * 1_000,
        actor_id: Some((salt % 3) as i64 + 1),
        approver_id: salt.is_multiple_of(5).then_some(9),
        action: ["sell", "refund", "settings", "close_shift"][(salt % 4) as usize].to_string(),
        subject: format!("cart:{}", salt % 1000),
        reason: salt.is_multiple_of(3).then(|| "customer changed their mind".to_string()),
        before: salt.is_multiple_of(2).then(|| format!("{{\"due\":{}}}", salt % 977)),
        after: Some(format!("{{\"due\":{}}}", salt % 13)),
    }
}

fn chain(n: u64) -> Vec<ChainedRecord> {
    let mut out: Vec<ChainedRecord> = Vec::new();
    for seq in 1..=n {
        let last = out.last().map_or(Anchor::GENESIS, ChainedRecord::anchor);
        out.push(append(last, record(seq, seq * 7919)).unwrap());
    }
    out
}

/// As `ORDER BY seq` would return the tampered table.
fn by_seq(mut rows: Vec<ChainedRecord>) -> Vec<ChainedRecord> {
    rows.sort_by_key(|r| r.record.seq);
    rows
}

fn head(rows: &[ChainedRecord]) -> Option<Anchor> {
    rows.last().map(ChainedRecord::anchor)
}

#[test]
fn an_untouched_chain_verifies_and_append_refuses_a_wrong_seq_or_oversize() {
    let rows = chain(50);
    let v = verify(&rows, Anchor::GENESIS, head(&rows));
    assert!(v.is_intact(), "{:?}", v.breaks);
    assert_eq!(v.rows_checked, 50);
    assert!(append(head(&rows).unwrap(), record(52, 1)).is_err());
    let mut big = record(51, 1);
    big.after = Some("x".repeat(17 * 1024));
    assert!(append(head(&rows).unwrap(), big).is_err());
    assert!(verify(&[], Anchor::GENESIS, None).is_intact());
}

#[test]
fn each_kind_of_tampering_is_named() {
    let rows = chain(10);
    let h = head(&rows);

    let mut changed = rows.clone();
    changed[4].record.after = Some("{\"due\":0}".into());
    assert_eq!(verify(&changed, Anchor::GENESIS, h).breaks, vec![Break::Changed { seq: 5 }]);

    let mut deleted = rows.clone();
    deleted.remove(4);
    assert_eq!(verify(&deleted, Anchor::GENESIS, h).breaks, vec![Break::Deleted { from_seq: 5, to_seq: 5 }]);

    let mut first_gone = rows.clone();
    first_gone.remove(0);
    assert_eq!(verify(&first_gone, Anchor::GENESIS, h).breaks, vec![Break::Deleted { from_seq: 1, to_seq: 1 }]);

    // Swap the seq of rows 3 and 4 (UPDATE … SET seq = …): both moved, nothing else.
    let mut swapped = rows.clone();
    swapped[2].record.seq = 4;
    swapped[3].record.seq = 3;
    assert_eq!(
        verify(&by_seq(swapped), Anchor::GENESIS, h).breaks,
        vec![Break::Reordered { seq: 3, written_at: 4 }, Break::Reordered { seq: 4, written_at: 3 }]
    );

    // Delete row 6 and renumber the rest to hide the gap.
    let mut renumbered = rows.clone();
    renumbered.remove(5);
    for r in renumbered.iter_mut().skip(5) {
        r.record.seq -= 1;
    }
    let b = verify(&renumbered, Anchor::GENESIS, h).breaks;
    assert_eq!(b[0], Break::Unlinked { seq: 6 }, "{b:?}");

    // Rewrite row 7 and recompute its own hash: the next row's link gives it away.
    let mut rewritten = rows.clone();
    rewritten[6].record.subject = "cart:0".into();
    rewritten[6].hash = record_hash(&rewritten[6].prev_hash, &rewritten[6].record);
    assert_eq!(verify(&rewritten, Anchor::GENESIS, h).breaks, vec![Break::Unlinked { seq: 8 }]);

    // The last row rewritten, or rows cut from the end: only the head kept apart sees it.
    let mut last = rows.clone();
    last[9].record.action = "sell".into();
    last[9].hash = record_hash(&last[9].prev_hash, &last[9].record);
    assert!(verify(&last, Anchor::GENESIS, None).is_intact());
    assert_eq!(verify(&last, Anchor::GENESIS, h).breaks, vec![Break::HeadMismatch { last_seq: 10, head_seq: 10 }]);
    let mut added = rows.clone();
    added.push(append(head(&rows).unwrap(), record(11, 5)).unwrap());
    assert_eq!(verify(&added, Anchor::GENESIS, h).breaks, vec![Break::HeadMismatch { last_seq: 11, head_seq: 10 }]);
    let cut = rows[..7].to_vec();
    assert_eq!(verify(&cut, Anchor::GENESIS, h).breaks, vec![Break::Truncated { last_seq: 7, head_seq: 10 }]);
}

/// Re-seals `rows` from index `from`: every hash recomputed with the chain's own formula.
fn reseal(rows: &mut [ChainedRecord], from: usize) {
    for i in from..rows.len() {
        let prev = if i == 0 { Anchor::GENESIS.hash } else { rows[i - 1].hash };
        rows[i].prev_hash = prev;
        rows[i].hash = record_hash(&prev, &rows[i].record);
    }
}

#[test]
fn the_head_the_back_office_confirmed_catches_a_deleted_tail_and_a_resealed_chain() {
    let rows = chain(12);
    let confirmed = rows[9].anchor(); // row 10
    let check = |rows: &[ChainedRecord]| {
        let mut v = verify(rows, Anchor::GENESIS, None);
        check_confirmed(&mut v, rows, confirmed);
        v.breaks
    };
    assert_eq!(check(&rows), vec![], "later rows are fine");
    assert_eq!(check(&rows[..10]), vec![], "exactly up to it");
    // The tail cut after row 6: the chain alone verifies; the confirmed head does not.
    assert!(verify(&rows[..6], Anchor::GENESIS, None).is_intact());
    assert_eq!(check(&rows[..6]), vec![Break::BehindConfirmed { last_seq: 6, confirmed_seq: 10 }]);
    // Cut, then new rows appended up to and past the confirmed seq: another row there.
    let mut regrown = rows[..6].to_vec();
    for seq in 7..=11 {
        let last = regrown.last().unwrap().anchor();
        regrown.push(append(last, record(seq, seq * 31)).unwrap());
    }
    assert!(verify(&regrown, Anchor::GENESIS, None).is_intact());
    assert_eq!(check(&regrown), vec![Break::ConfirmedMismatch { seq: 10 }]);
    // Row 3 rewritten and every later hash recomputed: intact alone, caught by the anchor.
    let mut resealed = rows.clone();
    resealed[2].record.reason = Some("nothing to see".into());
    reseal(&mut resealed, 2);
    assert!(verify(&resealed, Anchor::GENESIS, None).is_intact());
    assert_eq!(check(&resealed), vec![Break::ConfirmedMismatch { seq: 10 }]);
    // A row rewritten after the confirmed head is not the anchor's to catch.
    let mut later = rows.clone();
    later[11].record.reason = Some("after the confirmation".into());
    reseal(&mut later, 11);
    assert_eq!(check(&later), vec![]);
    // Nothing confirmed but the empty chain: nothing to check.
    let mut v = verify(&rows[..0], Anchor::GENESIS, None);
    check_confirmed(&mut v, &rows[..0], Anchor::GENESIS);
    assert!(v.is_intact());
    assert_eq!(
        Break::BehindConfirmed { last_seq: 6, confirmed_seq: 10 }.describe(),
        "rows 7 to 10, confirmed by the back office, were deleted from the end"
    );
}

#[test]
fn descriptions_say_which_row() {
    assert_eq!(Break::Changed { seq: 5 }.describe(), "row 5 was changed after it was written");
    assert_eq!(Break::Deleted { from_seq: 3, to_seq: 4 }.describe(), "rows 3 to 4 were deleted");
    assert_eq!(Break::Truncated { last_seq: 7, head_seq: 10 }.describe(), "rows 8 to 10 were deleted from the end");
}

#[derive(Debug, Clone)]
enum Tamper {
    Edit { at: usize, field: u8 },
    Delete { at: usize },
    Swap { a: usize, b: usize },
}

fn tamper() -> impl Strategy<Value = (usize, Tamper)> {
    (3usize..60).prop_flat_map(|n| {
        let t = prop_oneof![
            (0..n, 0u8..7).prop_map(|(at, field)| Tamper::Edit { at, field }),
            (0..n - 1).prop_map(|at| Tamper::Delete { at }),
            (0..n, 0..n).prop_filter("two rows", |(a, b)| a != b).prop_map(|(a, b)| Tamper::Swap { a, b }),
        ];
        (Just(n), t)
    })
}

/// Any one edit, delete or swap is found, and the break names the rows touched
/// (and only those).
#[test]
fn one_tampering_is_found_and_named() {
    // Cases that got through every assertion (a case returned early, or rejected by
    // a filter, is not one): a property that checks nothing must not pass.
    let reached = std::sync::atomic::AtomicU32::new(0);
    proptest!(ProptestConfig::with_cases(300), |((n, t) in tamper())| {
        let rows = chain(n as u64);
        let h = head(&rows);
        let mut bad = rows.clone();
        let expected: Vec<Break> = match t {
            Tamper::Edit { at, field } => {
                let r = &mut bad[at].record;
                match field {
                    0 => r.at_ms += 1,
                    1 => r.actor_id = Some(r.actor_id.unwrap_or(0) + 1),
                    2 => r.approver_id = if r.approver_id.is_some() { None } else { Some(4) },
                    3 => r.action.push('x'),
                    4 => r.before = if r.before.is_some() { None } else { Some("{}".into()) },
                    5 => r.reason = Some(format!("{}!", r.reason.clone().unwrap_or_default())),
                    _ => r.after = Some("{\"due\":-1}".into()),
                }
                vec![Break::Changed { seq: at as u64 + 1 }]
            }
            Tamper::Delete { at } => {
                bad.remove(at);
                vec![Break::Deleted { from_seq: at as u64 + 1, to_seq: at as u64 + 1 }]
            }
            Tamper::Swap { a, b } => {
                let (sa, sb) = (bad[a].record.seq, bad[b].record.seq);
                bad[a].record.seq = sb;
                bad[b].record.seq = sa;
                bad = by_seq(bad);
                let (lo, hi) = (sa.min(sb), sa.max(sb));
                vec![Break::Reordered { seq: lo, written_at: hi }, Break::Reordered { seq: hi, written_at: lo }]
            }
        };
        let v = verify(&bad, Anchor::GENESIS, h);
        prop_assert_eq!(v.breaks, expected);
        reached.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let n = reached.into_inner();
    println!("one_tampering_is_found_and_named: {n} cases reached the assertions");
    assert!(n >= 300, "only {n} cases reached the assertions, at least 300 expected");
}
