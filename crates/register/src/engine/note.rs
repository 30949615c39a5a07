//! [`NoteMark`]: what a `note` row of a payment's timeline records, typed. Stored as its
//! label in the timeline's `outcome` column (the ledger schema is unchanged) and read
//! back with [`NoteMark::of`], so the engine decides from the mark, never from the
//! note's or the last error's words (issue #31).

use paydesk_ledger::{TimelineEntry, TimelineKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoteMark {
    /// The PSP's search was asked for the payment and its answer was conclusive.
    Search,
    /// The search found nothing yet, too early to prove "never charged".
    SearchNotConclusive,
    /// Not accepted offline after an attempt that may have reached the PSP: the key is
    /// never sent again; the PSP's records decide (record 0009).
    OfflineRefused,
}

impl NoteMark {
    const ALL: [NoteMark; 3] = [NoteMark::Search, NoteMark::SearchNotConclusive, NoteMark::OfflineRefused];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            NoteMark::Search => "search",
            NoteMark::SearchNotConclusive => "search_not_conclusive",
            NoteMark::OfflineRefused => "offline_refused",
        }
    }

    /// The mark of a timeline row: `None` for any row that is not a marked note.
    pub(crate) fn of(t: &TimelineEntry) -> Option<NoteMark> {
        match t.kind {
            TimelineKind::Note => {
                let label = t.outcome.as_deref()?;
                NoteMark::ALL.into_iter().find(|m| m.as_str() == label)
            }
            TimelineKind::Created
            | TimelineKind::Attempt
            | TimelineKind::Transition
            | TimelineKind::PspResult
            | TimelineKind::Event
            | TimelineKind::Refund => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_ledger::PaymentId;

    fn row(kind: TimelineKind, outcome: Option<&str>, detail: &str) -> TimelineEntry {
        TimelineEntry {
            id: 1,
            payment_id: PaymentId(1),
            refund_id: None,
            at_ms: 0,
            kind,
            detail: detail.into(),
            outcome: outcome.map(str::to_string),
            latency_ms: None,
            replayed: false,
            attempt_no: None,
        }
    }

    /// The mark is the note's typed outcome: the words of the note (or of an attempt
    /// with the same label) decide nothing.
    #[test]
    fn marks_come_from_notes_only() {
        for m in NoteMark::ALL {
            assert_eq!(NoteMark::of(&row(TimelineKind::Note, Some(m.as_str()), "")), Some(m));
            assert_eq!(NoteMark::of(&row(TimelineKind::Attempt, Some(m.as_str()), "")), None);
        }
        let words = row(TimelineKind::Note, None, "offline_refused: never charged; search");
        assert_eq!(NoteMark::of(&words), None);
    }
}
