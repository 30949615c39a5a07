//! ui/contract.js is what `render()` writes, and the UI uses only what it exports.

use super::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn ui_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui")
}

/// The committed file is the rendered one. With `PAYDESK_WRITE_CONTRACT=1` the test
/// writes it instead (then commit it).
#[test]
fn committed_contract_js_is_rendered_from_the_enums() {
    let path = ui_dir().join("contract.js");
    let want = render();
    if std::env::var_os("PAYDESK_WRITE_CONTRACT").is_some() {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "ui/contract.js is stale (it differs from contract::render()): regenerate it with\n  \
         PAYDESK_WRITE_CONTRACT=1 PAYDESK_APP_BIN=$PWD/target/debug/paydesk PAYDESK_BIN_DIR=$PWD/target/debug \
         cargo nextest run --workspace -E 'test(contract)'\nand commit it"
    );
}

/// Each list holds distinct plain words (they are written into JS quotes and names).
#[test]
fn contract_words_are_distinct_plain_words() {
    for s in sections() {
        let set: HashSet<&str> = s.words.iter().copied().collect();
        assert_eq!(set.len(), s.words.len(), "{} lists a word twice", s.list);
        for w in &s.words {
            assert!(!w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'), "{}: {w:?}", s.list);
        }
    }
}

/// The words the contract lists are the words the Rust side serializes.
#[test]
fn contract_words_are_what_rust_serializes() {
    fn same<T: serde::Serialize>(items: &[T], word: impl Fn(&T) -> &'static str) {
        for i in items {
            assert_eq!(serde_json::to_value(i).unwrap(), word(i));
        }
    }
    same(&PaymentState::ALL, |s| s.as_str());
    same(&TimelineKind::ALL, |k| k.as_str());
    same(&Currency::ALL, |c| c.code());
    same(AlarmCode::ALL, |a| a.as_str());
    same(OutcomeKind::ALL, |k| k.as_str());
    same(ProgressKind::ALL, |k| k.as_str());
    same(Tone::ALL, |t| t.as_str());
    same(&CheckoutOutcome::ALL, |o| o.as_str());
    same(&NotChargedWhy::ALL, |w| w.as_str());
    same(&TenderKind::ALL, |k| k.as_str());
    same(&TenderState::ALL, |t| t.as_str());
    same(&SaleState::ALL, |t| t.as_str());
    same(&TaxClass::ALL, |c| class_name(*c));
    same(CancelLineKind::ALL, |k| k.as_str());
    same(BackofficeLink::ALL, |k| k.as_str());
    same(AuditConfirmation::ALL, |k| k.as_str());
    same(DrawerReportKind::ALL, |k| k.as_str());
    same(PspKind::ALL, |k| k.as_str());
    same(KeyStorage::ALL, |k| k.as_str());
    same(CopySendState::ALL, |k| k.as_str());
    same(AppliedWhen::ALL, |k| k.as_str());
}

/// `outcome.kind` as serde tags a reader outcome is the contract's word for it
/// ([`ReaderKind::of`] is exhaustive; this list builds one outcome of each kind).
#[test]
fn reader_kinds_are_the_serde_tags() {
    use paydesk_register::{PendingWhy, ReaderOutcome, UnavailableWhy};
    let outcomes = [
        ReaderOutcome::Paid,
        ReaderOutcome::Authorized,
        ReaderOutcome::WaitingForCard,
        ReaderOutcome::NotCharged { why: NotChargedWhy::Declined },
        ReaderOutcome::Pending { why: PendingWhy::LostAnswer },
        ReaderOutcome::ReaderBusy,
        ReaderOutcome::ReaderUnavailable { why: UnavailableWhy::ReaderOffline },
    ];
    let kinds: HashSet<ReaderKind> = outcomes.iter().map(|o| ReaderKind::of(*o)).collect();
    assert_eq!(kinds.len(), ReaderKind::ALL.len(), "one outcome of each kind");
    for o in outcomes {
        assert_eq!(serde_json::to_value(o).unwrap()["kind"], ReaderKind::of(o).as_str());
    }
}

/// Every code the hand-written list in ui/bridge.js had is generated, and the one it
/// lacked (`managed_by_back_office`) too.
#[test]
fn contract_has_every_code_the_hand_written_list_had() {
    let codes: HashSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let before = [
        "invalid_input", "unknown_item", "cart_locked", "cart_empty", "no_checkout", "internal", "sale_changed",
        "tender_in_flight", "tender_exceeds_due", "tender_unknown_outstanding", "sale_complete", "sale_canceled",
        "sale_refund_exceeds", "unknown_payment", "refund_exceeds_captured", "wrong_state", "previous_outcome_unknown",
        "already_paid", "later_payment_exists", "offline_refused", "psp_config", "psp_rejected", "alarm", "ledger",
        "outcome_unknown", "backoffice_unreachable", "backoffice_refused", "already_paired", "not_paired",
        "restore_unknown_register", "restore_ambiguous_name", "restore_in_service", "restore_from_itself", "tax_locked",
        "invalid_discount", "printer_not_set", "invalid_printer", "printer_port_unconfirmed", "printer_unreachable",
        "receipt_unavailable", "invalid_item", "csv_rejected", "not_signed_in", "locked", "approval_required",
        "not_allowed", "wrong_pin", "staff_locked", "owner_exists", "no_open_shift", "shift_already_open",
        "shift_has_open_sale", "invalid_count", "invalid_paid_in_out", "no_z_report", "reader_not_test_mode",
        "reader_needs_embedded_psp", "unknown_reader", "keyed_card_not_test_mode", "managed_by_back_office",
    ];
    for c in before {
        assert!(codes.contains(c), "the contract lacks {c}");
    }
}

/// The UI's modules, but the generated one.
pub(super) fn ui_modules() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(ui_dir()).expect("ui/") {
        let p = e.expect("an entry").path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if name.ends_with(".js") && name != "contract.js" {
            out.push((name, std::fs::read_to_string(&p).expect("a UI module")));
        }
    }
    out
}

/// A constant the UI names (`ERROR.WRONG_PIN`) exists: a misspelt one would be
/// `undefined` in JS and match nothing, silently.
#[test]
fn every_contract_constant_the_ui_names_exists() {
    let maps: Vec<(String, HashSet<String>)> =
        sections().into_iter().map(|s| (format!("{}.", s.map), s.words.iter().map(|w| js_name(w)).collect())).collect();
    let mut used = 0;
    for (file, text) in ui_modules() {
        for (prefix, names) in &maps {
            for (i, _) in text.match_indices(prefix.as_str()) {
                // `TONE.` inside `ATTEMPT_TONE.` or `x.ERROR.` is not this map
                let before = text[..i].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    continue;
                }
                let name: String = text[i + prefix.len()..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                assert!(names.contains(&name), "ui/{file} uses {prefix}{name}, which ui/contract.js does not export");
                used += 1;
            }
        }
    }
    assert!(used >= 10, "the UI was expected to use the contract's constants ({used} uses found)");
}

/// The screens compare error codes with the contract's constants, not with literals
/// typed again by hand (`e.code === 'wrong_pin'`).
#[test]
fn ui_compares_error_codes_with_contract_constants() {
    for (file, text) in ui_modules() {
        for (n, line) in text.lines().enumerate() {
            let literal = ["code === '", "code !== '", "code == '", "code != '"].iter().any(|p| line.contains(p));
            assert!(!literal, "ui/{file}:{}: compare with ERROR.* from contract.js: {line}", n + 1);
        }
    }
}
