//! The cashier's commands for card-present payments on a server-driven reader (issue #27,
//! decisions 0101/0102): thin over the engine's reader flow. One file per stage:
//! `setup` (register a reader, list them), `charge` (charge on the reader, try another
//! card), `status` (check status), `cancel` (cancel on reader, switch to cash) and
//! `simulate` (test mode only: the simulated customer).
//!
//! This file holds what they share: the view the checkout panel draws ([`ReaderView`],
//! with the state in words), input checks, and what "test mode" means for this register.
//!
//! Permissions are enforced here, as for every tender: a sale's reader payment needs
//! `Sell` (an override of an unknown outcome needs a manager), registering a reader needs
//! `Settings`; the simulated customer exists only in test mode (the embedded PSP or an
//! `sk_test_` key), checked in the command, not only hidden by the page.

pub mod cancel;
pub mod charge;
pub mod setup;
pub mod simulate;
pub mod status;

use paydesk_ledger::{CardPresentDetails, CartId};
use paydesk_register::{NotChargedWhy, PendingWhy, ReaderOutcome, ReaderReport, UnavailableWhy};
use serde::Serialize;

use crate::error::{AppError, AppResult, ReaderRefusal};
use crate::i18n::{active, id, t, tr};
use crate::money;
use crate::state::AppState;
use crate::views::{ReaderKind, SaleScreen, Tone};


/// Test mode: the embedded mock PSP, or a PSP key for Stripe's test mode (`sk_test_…`).
/// Only then may the register play the customer.
pub fn test_mode(state: &AppState) -> bool {
    state.live().test_mode()
}

/// A reader id as the PSP gives it (`tmr_…`): checked before any lookup.
pub(crate) fn validate_reader_id(id: &str) -> AppResult<String> {
    let s = id.trim();
    let ok = s.starts_with("tmr_") && s.len() <= 64 && s.len() > 4 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(s.to_string())
    } else {
        Err(AppError::InvalidInput(t(id!("input-reader-id"))))
    }
}

/// A registered reader of this register (refused with `unknown_reader` otherwise).
pub(crate) fn known_reader(state: &AppState, reader_id: &str) -> AppResult<paydesk_ledger::ReaderRecord> {
    let id = validate_reader_id(reader_id)?;
    state
        .engine()
        .readers()?
        .into_iter()
        .find(|r| r.id == id)
        .ok_or(AppError::Reader(ReaderRefusal::UnknownReader(id)))
}

/// What the checkout panel shows for a reader payment: the typed outcome (the page
/// picks its look from `outcome.kind`), the state in words, and which buttons apply.
#[derive(Debug, Clone, Serialize)]
pub struct ReaderView {
    pub outcome: ReaderOutcome,
    /// The panel's colour for the outcome ([`ReaderKind::tone`]): the screen decides nothing
    /// from the kind.
    pub tone: Tone,
    pub checkout_key: String,
    pub reader_id: String,
    pub reader_label: String,
    pub intent_id: Option<String>,
    pub attempt_no: Option<i64>,
    pub amount: i64,
    pub amount_display: String,
    /// The state in a few words, the panel's heading ("Paid", "Declined — try another
    /// card", "Pending — checking with the processor").
    pub headline: String,
    /// The state in the cashier's words.
    pub message: String,
    /// "Try another card": the newest attempt proved "not charged" and the intent is open.
    pub can_try_again: bool,
    /// "Check status" / "Cancel on reader": something may be running on the reader.
    pub can_cancel: bool,
    /// "Switch to cash" (abandon): not paid, and nothing proven running that could pay.
    pub can_abandon: bool,
    /// The simulated customer may be played (test mode and a card awaited).
    pub test_mode: bool,
    /// Brand and last 4 as the PSP read them ("Visa •••• 4242"), once paid.
    pub card_label: Option<String>,
    pub card: Option<CardPresentDetails>,
    pub sale: SaleScreen,
}

fn reader_label(state: &AppState, reader_id: &str) -> String {
    state
        .engine()
        .readers()
        .ok()
        .and_then(|rs| rs.into_iter().find(|r| r.id == reader_id).map(|r| r.label))
        .unwrap_or_else(|| reader_id.to_string())
}

/// "Visa •••• 4242" from the PSP's answer (never from a token's name).
pub fn card_label(card: &CardPresentDetails) -> Option<String> {
    let brand = card.brand.as_deref().map(paydesk_receipt::brand_name)?;
    Some(match card.last4.as_deref() {
        Some(l4) => format!("{brand} •••• {l4}"),
        None => brand,
    })
}

/// The state in words: each outcome and reason its own catalog line.
pub fn message(r: &ReaderReport, label: &str, card: Option<&str>) -> String {
    let l = active();
    let amount = money::format(r.amount, r.currency);
    let reason = r.failure_message.clone().or_else(|| r.failure_code.clone()).unwrap_or_default();
    match r.outcome {
        ReaderOutcome::Paid => tr!(l, "reader-paid", amount = amount, card = card.unwrap_or("").to_string()),
        ReaderOutcome::Authorized => tr!(l, "reader-authorized", amount = amount, card = card.unwrap_or("").to_string()),
        ReaderOutcome::WaitingForCard => tr!(l, "reader-waiting", reader = label.to_string(), amount = amount),
        ReaderOutcome::NotCharged { why } => match why {
            NotChargedWhy::Declined => tr!(l, "reader-declined", reason = reason),
            NotChargedWhy::CustomerCanceled => t(id!("reader-customer-canceled")),
            NotChargedWhy::ActionCanceled => t(id!("reader-action-canceled")),
            NotChargedWhy::NotStarted => tr!(l, "reader-not-started", reason = reason),
            NotChargedWhy::IntentCanceled => t(id!("reader-intent-canceled")),
        },
        ReaderOutcome::Pending { why } => {
            let because = t(match why {
                PendingWhy::ReaderTimeout => id!("reader-pending-timeout"),
                PendingWhy::LostAnswer => id!("reader-pending-lost"),
                PendingWhy::ConnectionError => id!("reader-pending-connection"),
                PendingWhy::ActionStuck => id!("reader-pending-stuck"),
                PendingWhy::CannotRead => id!("reader-pending-cannot-read"),
                PendingWhy::Processing => id!("reader-pending-processing"),
            });
            tr!(l, "reader-pending", amount = amount, because = because, key = r.checkout_key.clone())
        }
        ReaderOutcome::ReaderBusy => tr!(l, "reader-busy", reader = label.to_string()),
        ReaderOutcome::ReaderUnavailable { why } => match why {
            UnavailableWhy::PspUnreachable => t(id!("reader-unavailable-psp")),
            UnavailableWhy::ReaderOffline => tr!(l, "reader-unavailable-offline", reader = label.to_string()),
        },
    }
}

/// The panel's heading: what the cashier must know at a glance. "Paid" only for a
/// succeeded intent; "not charged" words only for a proven not-charged outcome.
pub fn headline(outcome: ReaderOutcome) -> String {
    t(match outcome {
        ReaderOutcome::Paid => id!("reader-head-paid"),
        ReaderOutcome::Authorized => id!("reader-head-authorized"),
        ReaderOutcome::WaitingForCard => id!("reader-head-waiting"),
        ReaderOutcome::NotCharged { why: NotChargedWhy::Declined } => id!("reader-head-declined"),
        ReaderOutcome::NotCharged { .. } => id!("reader-head-not-charged"),
        ReaderOutcome::Pending { .. } => id!("reader-head-pending"),
        ReaderOutcome::ReaderBusy => id!("reader-head-busy"),
        ReaderOutcome::ReaderUnavailable { .. } => id!("reader-head-unavailable"),
    })
}

/// The panel's view of `r`, with the sale it belongs to (or the sale on screen).
pub(crate) fn view(state: &AppState, r: &ReaderReport) -> AppResult<ReaderView> {
    let engine = state.engine();
    let cart = engine
        .payments()
        .by_key(&r.checkout_key)?
        .and_then(|p| p.cart_id)
        .unwrap_or_else(|| state.cart_id());
    view_in(state, r, cart)
}

pub(crate) fn view_in(state: &AppState, r: &ReaderReport, cart: CartId) -> AppResult<ReaderView> {
    let label = reader_label(state, &r.reader_id);
    let card_label = r.card.as_ref().and_then(card_label);
    let message = message(r, &label, card_label.as_deref());
    let sale = crate::sale::screen(state, &crate::sale::sale_now(state, cart)?);
    let (can_try_again, can_cancel, can_abandon) = match r.outcome {
        ReaderOutcome::Paid | ReaderOutcome::Authorized => (false, false, false),
        ReaderOutcome::NotCharged { why: NotChargedWhy::IntentCanceled } => (false, false, false),
        ReaderOutcome::NotCharged { .. } | ReaderOutcome::ReaderBusy => (true, false, true),
        ReaderOutcome::WaitingForCard | ReaderOutcome::Pending { .. } => (false, true, true),
        ReaderOutcome::ReaderUnavailable { .. } => (true, false, true),
    };
    Ok(ReaderView {
        outcome: r.outcome,
        tone: ReaderKind::of(r.outcome).tone(),
        checkout_key: r.checkout_key.clone(),
        reader_id: r.reader_id.clone(),
        reader_label: label,
        intent_id: r.intent_id.clone(),
        attempt_no: r.attempt_no,
        amount: r.amount,
        amount_display: money::format(r.amount, r.currency),
        headline: headline(r.outcome),
        message,
        can_try_again,
        can_cancel,
        can_abandon,
        test_mode: test_mode(state),
        card_label,
        card: r.card.clone(),
        sale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_ids_are_checked_before_any_lookup() {
        assert_eq!(validate_reader_id(" tmr_abc123 ").unwrap(), "tmr_abc123");
        for bad in ["", "tmr_", "abc", "tmr_<x>", "pi_123", &format!("tmr_{}", "a".repeat(70))] {
            assert_eq!(validate_reader_id(bad).unwrap_err().code(), "invalid_input", "{bad:?}");
        }
    }

    #[test]
    fn the_card_label_comes_from_the_psp_answer() {
        let mut c = CardPresentDetails { brand: Some("visa".into()), last4: Some("4242".into()), ..Default::default() };
        assert_eq!(card_label(&c).as_deref(), Some("Visa •••• 4242"));
        c.brand = None;
        assert_eq!(card_label(&c), None);
    }
}
