//! The screen's contract (issue #31, decision 0104): `ui/contract.js` is WRITTEN from the
//! Rust enums' `ALL` lists by [`render`], never by hand, so every code, state, kind and
//! tone the UI compares with is one the Rust side can send. A unit test fails when the
//! committed file differs from `render()`; `PAYDESK_WRITE_CONTRACT=1` makes the same
//! test write it.

use std::fmt::Write;

use paydesk_ledger::{SaleState, TenderState, TimelineKind};
use paydesk_domain::{Currency, PaymentState, TenderKind};
use paydesk_register::{AlarmCode, AttemptKind, CheckoutOutcome, NotChargedWhy};
use paydesk_tax::TaxClass;

use crate::wording::class_name;
use crate::error::ErrorCode;
use crate::views::{
    AppliedWhen, AuditConfirmation, BackofficeLink, CancelLineKind, CopySendState, DrawerReportKind, KeyStorage, OutcomeKind, ProgressKind, PspKind,
    ReaderKind, Tone,
};

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
    let mut out = vec![
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
        s(
            "PRICE_KINDS",
            "PRICE_KIND",
            "How a catalog item is priced at the till (paydesk_ledger::PriceKind, record 0126).",
            paydesk_ledger::PriceKind::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s(
            "SALE_UNITS",
            "SALE_UNIT",
            "How a catalog item is sold: by the piece or by weight (paydesk_tax::SaleUnit, record 0134).",
            paydesk_tax::SaleUnit::ALL.iter().map(|u| u.as_str()).collect(),
        ),
        s("CURRENCIES", "CURRENCY", "The currencies PayDesk takes (paydesk_domain::Currency), lowercase ISO codes.", Currency::ALL.iter().map(|c| c.code()).collect()),
    ];
    out.extend(sale_sections());
    out.extend(screen_sections());
    out
}

/// The tender panel's and the reader panel's words (issue #31, the sections added after
/// record 0104's first cut).
fn sale_sections() -> Vec<Section> {
    let s = |list, map, doc, words: Vec<&'static str>| Section { list, map, doc, words };
    vec![
        s(
            "CHECKOUT_OUTCOMES",
            "CHECKOUT_OUTCOME",
            "How a card tender stands after pay_card (paydesk_register::CheckoutOutcome).",
            CheckoutOutcome::ALL.iter().map(|o| o.as_str()).collect(),
        ),
        s("TENDER_KINDS", "TENDER_KIND", "How a tender pays (paydesk_domain::TenderKind).", TenderKind::ALL.iter().map(|k| k.as_str()).collect()),
        s("TENDER_STATES", "TENDER_STATE", "A tender as the sale sees it (paydesk_ledger::TenderState).", TenderState::ALL.iter().map(|t| t.as_str()).collect()),
        s("SALE_STATES", "SALE_STATE", "Where a sale stands (paydesk_ledger::SaleState).", SaleState::ALL.iter().map(|t| t.as_str()).collect()),
        s("TAX_CLASSES", "TAX_CLASS", "What an item is, for tax (paydesk_tax::TaxClass).", TaxClass::ALL.iter().map(|c| class_name(*c)).collect()),
        s(
            "CANCEL_LINE_KINDS",
            "CANCEL_LINE_KIND",
            "What canceling a sale does to one card tender (views::CancelLineKind).",
            CancelLineKind::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s(
            "READER_OUTCOMES",
            "READER_OUTCOME",
            "A reader payment's `outcome.kind` (views::ReaderKind, the tag of paydesk_register::ReaderOutcome).",
            ReaderKind::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s(
            "NOT_CHARGED_WHYS",
            "NOT_CHARGED_WHY",
            "Why a reader payment was not charged: `outcome.why` of a `not_charged` outcome (paydesk_register::NotChargedWhy).",
            NotChargedWhy::ALL.iter().map(|w| w.as_str()).collect(),
        ),
    ]
}

/// The other screens' words: Settings, About, the audit check, the drawer reports and
/// the back-office pill.
fn screen_sections() -> Vec<Section> {
    let s = |list, map, doc, words: Vec<&'static str>| Section { list, map, doc, words };
    vec![
        s(
            "BACKOFFICE_LINKS",
            "BACKOFFICE_LINK",
            "How the back-office link stands, for its pill (views::BackofficeLink).",
            BackofficeLink::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s(
            "AUDIT_CONFIRMATIONS",
            "AUDIT_CONFIRMATION",
            "Whether the back office confirmed the audit chain's head (views::AuditConfirmation).",
            AuditConfirmation::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s("REPORT_KINDS", "REPORT_KIND", "Which drawer report: X or Z (views::DrawerReportKind).", DrawerReportKind::ALL.iter().map(|k| k.as_str()).collect()),
        s("PSP_KINDS", "PSP_KIND", "The PSP in use (views::PspKind).", PspKind::ALL.iter().map(|k| k.as_str()).collect()),
        s("KEY_STORAGES", "KEY_STORAGE", "Where the PSP's secret key is kept (views::KeyStorage).", KeyStorage::ALL.iter().map(|k| k.as_str()).collect()),
        s(
            "COPY_SEND_STATES",
            "COPY_SEND_STATE",
            "How sending the encrypted copies to the back office stands (views::CopySendState).",
            CopySendState::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        s("APPLIED_WHENS", "APPLIED", "When saved settings take effect (views::AppliedWhen).", AppliedWhen::ALL.iter().map(|k| k.as_str()).collect()),
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
#[cfg(test)]
mod ui_scan;
