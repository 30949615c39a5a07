//! A reader command's refusals (issue #27), kept with the errors: the app's error type
//! carries them, and their codes are part of the screen's contract.

use crate::i18n::{active, id, t, tr};

/// Why a reader command was refused before anything was sent (codes the UI mirrors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReaderRefusal {
    /// The simulated customer exists only with the embedded PSP or an `sk_test_` key.
    NotTestMode,
    /// A scripted reader fault needs the embedded mock PSP (its admin switches).
    NeedsEmbeddedPsp,
    /// No reader with this id is registered on this register.
    UnknownReader(String),
    /// A keyed test token (`pm_card_…`) outside test mode: a live PSP charges real cards
    /// only on a reader, and a token would be charged as if a card were there.
    KeyedCardNotTestMode,
}

impl ReaderRefusal {
    pub fn code(&self) -> &'static str {
        match self {
            ReaderRefusal::NotTestMode => "reader_not_test_mode",
            ReaderRefusal::NeedsEmbeddedPsp => "reader_needs_embedded_psp",
            ReaderRefusal::UnknownReader(_) => "unknown_reader",
            ReaderRefusal::KeyedCardNotTestMode => "keyed_card_not_test_mode",
        }
    }

    pub fn words(&self) -> String {
        match self {
            ReaderRefusal::NotTestMode => t(id!("reader-error-not-test-mode")),
            ReaderRefusal::NeedsEmbeddedPsp => t(id!("reader-error-needs-embedded")),
            ReaderRefusal::UnknownReader(r) => tr!(active(), "reader-error-unknown", reader = r.clone()),
            ReaderRefusal::KeyedCardNotTestMode => t(id!("reader-error-keyed-not-test-mode")),
        }
    }
}
