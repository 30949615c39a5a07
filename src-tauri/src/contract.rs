//! The screen's contract (issue #31, decision 0104): `ui/contract.js` is WRITTEN from the
//! Rust enums' `ALL` lists by [`render`], never by hand, so every code, state, kind and
//! tone the UI compares with is one the Rust side can send. A unit test fails when the
//! committed file differs from `render()`; `PAYDESK_WRITE_CONTRACT=1` makes the same
//! test write it.

use std::fmt::Write;

use paydesk_ledger::TimelineKind;
use paydesk_domain::{Currency, PaymentState};
use paydesk_register::{AlarmCode, AttemptKind};

use crate::error::ErrorCode;
use crate::views::{OutcomeKind, ProgressKind, Tone};

/// One exported pair: `NAMES` (the frozen list) and `NAME` (a frozen map from the
/// constant's name to its word, `NAME.SOME_WORD === 'some_word'`).
struct Section {
    list: &'static str,
    map: &'static str,
    doc: &'static str,
    words: Vec<&'static str>,
}

fn sections() -> Vec<Section> {
    let s = |list, map, doc, words: Vec<&'static str>| Section { list, map, doc, words };
    vec![
        s(
            "ERROR_CODES",
            "ERROR",
            "Every `code` a command may reject with (ErrorCode, src-tauri/src/error/code.rs; the engine's and the reader's codes included). The screens match on these, never on the message.",
            ErrorCode::ALL.iter().map(|c| c.as_str()).collect(),
        ),
        s(
            "PAYMENT_STATES",
            "PAYMENT_STATE",
            "A payment's state (paydesk_domain::PaymentState).",
            PaymentState::ALL.iter().map(|p| p.as_str()).collect(),
        ),
        s(
            "ATTEMPT_KINDS",
            "ATTEMPT_KIND",
            "How one attempt ended (paydesk_register::AttemptKind), as the timeline stores it.",
            AttemptKind::ALL.iter().map(|k| k.label()).collect(),
        ),
        s(
            "OUTCOME_KINDS",
            "OUTCOME_KIND",
            "How a charge ended, for the checkout panel (views::OutcomeKind).",
            OutcomeKind::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s(
            "PROGRESS_KINDS",
            "PROGRESS_KIND",
            "What a line of live progress says happened (views::ProgressKind).",
            ProgressKind::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s("TONES", "TONE", "How a state or a line is shown: a CSS class, nothing else (views::Tone).", Tone::ALL.iter().map(|t| t.as_str()).collect()),
        s(
            "ALARM_CODES",
            "ALARM",
            "What an alarm is about (paydesk_register::AlarmCode); its words come from Rust.",
            AlarmCode::ALL.iter().map(|a| a.as_str()).collect(),
        ),
        s(
            "TIMELINE_KINDS",
            "TIMELINE_KIND",
            "What a row of a payment's timeline describes (paydesk_ledger::TimelineKind).",
            TimelineKind::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s("CURRENCIES", "CURRENCY", "The currencies PayDesk takes (paydesk_domain::Currency), lowercase ISO codes.", Currency::ALL.iter().map(|c| c.code()).collect()),
    ]
}

/// `ui/contract.js`, as it must be committed.
pub fn render() -> String {
    let mut out = String::from(
        "// GENERATED from the Rust enums by src-tauri/src/contract.rs (contract::render): do not edit.\n\
         // Regenerate after changing an enum:\n\
         //   PAYDESK_WRITE_CONTRACT=1 cargo nextest run --workspace -E 'test(contract)'\n\
         // (a unit test fails while this file differs from what Rust would write).\n",
    );
    for s in sections() {
        let _ = write!(out, "\n/** {} */\nexport const {} = Object.freeze([\n", s.doc, s.list);
        for w in &s.words {
            let _ = writeln!(out, "  '{w}',");
        }
        let _ = write!(out, "]);\n\n/** The same, by name: `{}.{}` is '{}'. */\nexport const {} = Object.freeze({{\n", s.map, js_name(s.words[0]), s.words[0], s.map);
        for w in &s.words {
            let _ = writeln!(out, "  {}: '{w}',", js_name(w));
        }
        out.push_str("});\n");
    }
    out
}

/// `psp_auth` → `PSP_AUTH`: the constant's name for a word.
fn js_name(word: &str) -> String {
    word.to_ascii_uppercase()
}

#[cfg(test)]
mod tests;
