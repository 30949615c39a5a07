//! TEST MODE ONLY: the simulated customer (Stripe's `present_payment_method` test helper
//! with its test cards), refused with `reader_not_test_mode` against a live PSP key.
//! The customer who cancels and the reader timeout that still charges are the embedded
//! mock PSP's reader faults: they are drawn when a card is handed to the reader, so they
//! are armed for the NEXT process attempt ("Try another card", or the next charge).

use std::time::Duration;

use paydesk_register::TestCard;
use serde::{Deserialize, Serialize};
use tauri::State;

use super::{view, ReaderView};
use crate::error::ReaderRefusal;
use crate::input::validate_key;
use crate::error::{AppError, AppResult};
use crate::i18n::{id, t};
use crate::ops::{Locks, Operation};
use crate::state::AppState;

/// How long the simulate call waits for the tap's result before answering.
const AFTER_TAP_WAIT: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Customer {
    Approved,
    Declined,
    InsufficientFunds,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NextFault {
    /// The customer cancels on the reader: not charged.
    CustomerCancels,
    /// `terminal_reader_timeout`, yet the reader got the command: pending, then paid once.
    TimeoutCharges,
}

fn test_mode_only(state: &AppState) -> AppResult<()> {
    if super::test_mode(state) {
        Ok(())
    } else {
        Err(AppError::Reader(ReaderRefusal::NotTestMode))
    }
}

/// The customer taps a test card on the reader of `checkout_key`'s payment; answers the
/// payment as it stands after the tap (usually its result).
#[tauri::command]
pub async fn reader_simulate(state: State<'_, AppState>, checkout_key: String, customer: Customer) -> AppResult<ReaderView> {
    let key = validate_key(&checkout_key)?;
    let op = Operation::sell().authorize(&state)?;
    test_mode_only(&state)?;
    let _pass = op.enter(&state, Locks::Engine).await?;
    let engine = state.engine();
    let reader = engine.reader_status(&key)?.reader_id;
    let card = match customer {
        Customer::Approved => TestCard::Approved,
        Customer::Declined => TestCard::Declined,
        Customer::InsufficientFunds => TestCard::InsufficientFunds,
    };
    // A tap the reader refuses (no action running) is told as the PSP said it; the
    // payment is read either way.
    if let Err(e) = engine.simulate_customer(&reader, card).await {
        eprintln!("paydesk: the simulated customer's tap was refused: {e}");
    }
    let r = engine.wait_on_reader(&key, AFTER_TAP_WAIT).await?;
    view(&state, &r)
}

/// Arms one reader fault of the embedded mock PSP for the next card handed to a reader.
#[tauri::command]
pub async fn reader_arm_fault(state: State<'_, AppState>, fault: NextFault) -> AppResult<String> {
    Operation::sell().permit(&state)?;
    test_mode_only(&state)?;
    let psp = match (state.embedded(), state.live().embedded) {
        (Some(e), true) => e,
        _ => return Err(AppError::Reader(ReaderRefusal::NeedsEmbeddedPsp)),
    };
    let f = match fault {
        NextFault::CustomerCancels => mock_psp::ReaderFault::CustomerCancels,
        NextFault::TimeoutCharges => mock_psp::ReaderFault::TimeoutStarted,
    };
    psp.server.psp().script_reader_fault(f, 1);
    Ok(t(match fault {
        NextFault::CustomerCancels => id!("reader-armed-customer-cancels"),
        NextFault::TimeoutCharges => id!("reader-armed-timeout"),
    }))
}
