//! Card-present payments on a server-driven reader (decision 0102).
//!
//! A reader payment IS a payment (its checkout key, its request, its tender): what is
//! new is kept beside it.
//! * `reader_payments`: the reader it is for, committed WITH the payment row, before
//!   anything is sent (rule 1).
//! * `reader_attempts`: each `process_payment_intent` attempt, committed BEFORE it is
//!   sent, under its own key `<checkout key>-process-<n>`. `n` grows only on a person's
//!   action ("Present again" / "Try another card" after a proven decline); every attempt
//!   processes the SAME PaymentIntent, so a second success is impossible at the PSP.
//! * `card_present_details`: what the PSP said about the card, for the receipt.
//!
//! Three durable commits at most before the cashier sees "Paid": the key, the intent's id
//! with attempt 1 (moving `created -> on_reader`), and the result.

use std::ops::Deref;
use crate::ledger::CardReaders;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::payments::{insert_payment_as, PaymentMethodParams};
use super::rows::{payment_by_id_tx, payment_by_psp_tx};
use super::sale::card::{admit_card_tender_tx, check_card_amount, CardAdmission};
use super::sale::{insert_tender_tx, PaidBy, refresh_cart_tx, tender_by_id};
use super::timeline::append_timeline_tx;
use super::transitions::{record_attempt_tx, transition_tx};
use super::{CardTender, Cached, Ledger};
use crate::error::{Error, Result};
use paydesk_domain::money::Money;
use paydesk_domain::state::{CaptureMethod, PaymentState};
use crate::types::*;
use crate::write_tx::WriteTx;
use std::ops::ControlFlow;

/// Attempts one reader payment may have (each needs a person's action): a bound on the
/// loop "decline, present again".
pub const MAX_READER_ATTEMPTS: i64 = 100;

/// A reader this register knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderRecord {
    /// The PSP's id (`tmr_…`).
    pub id: String,
    pub label: String,
    pub location: Option<String>,
    pub device_type: Option<String>,
    pub registered_at_ms: i64,
}

/// What is known of one process attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReaderAttemptOutcome {
    /// Committed and (maybe) sent: the reader may be collecting or authorizing. Unknown
    /// until the intent and the reader are read.
    Sent,
    /// The intent is back in `requires_payment_method` with the action failed or cleared:
    /// not charged. The same intent may be processed again by a person.
    Declined,
    /// The action was canceled and the read afterwards showed nothing charged.
    Canceled,
    /// The intent succeeded or holds the funds.
    Succeeded,
}

impl ReaderAttemptOutcome {
    pub const ALL: [ReaderAttemptOutcome; 4] = [
        ReaderAttemptOutcome::Sent,
        ReaderAttemptOutcome::Declined,
        ReaderAttemptOutcome::Canceled,
        ReaderAttemptOutcome::Succeeded,
    ];
    pub const fn as_str(self) -> &'static str {
        match self {
            ReaderAttemptOutcome::Sent => "sent",
            ReaderAttemptOutcome::Declined => "declined",
            ReaderAttemptOutcome::Canceled => "canceled",
            ReaderAttemptOutcome::Succeeded => "succeeded",
        }
    }
    pub fn parse(s: &str) -> Result<ReaderAttemptOutcome> {
        ReaderAttemptOutcome::ALL
            .into_iter()
            .find(|o| o.as_str() == s)
            .ok_or_else(|| Error::UnknownValue { what: "reader attempt outcome", value: s.to_string() })
    }
    /// Nothing of this attempt can still charge the card: a person may start the next one.
    pub const fn proves_not_charged(self) -> bool {
        match self {
            ReaderAttemptOutcome::Declined | ReaderAttemptOutcome::Canceled => true,
            ReaderAttemptOutcome::Sent | ReaderAttemptOutcome::Succeeded => false,
        }
    }
}

/// One process attempt as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderAttempt {
    pub payment_id: PaymentId,
    pub attempt_no: i64,
    /// The `Idempotency-Key` of its `process_payment_intent`.
    pub idempotency_key: String,
    pub reader_id: String,
    pub outcome: ReaderAttemptOutcome,
    pub failure_code: Option<String>,
    pub failure_message: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// A payment's reader and its attempts, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderPayment {
    pub payment_id: PaymentId,
    pub reader_id: String,
    pub attempts: Vec<ReaderAttempt>,
}

impl ReaderPayment {
    pub fn latest(&self) -> Option<&ReaderAttempt> {
        self.attempts.last()
    }
}

/// The card as the PSP's charge described it (`payment_method_details.card_present`),
/// printed on the receipt: never taken from a token's name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardPresentDetails {
    pub brand: Option<String>,
    pub last4: Option<String>,
    pub read_method: Option<String>,
    pub application_preferred_name: Option<String>,
    pub dedicated_file_name: Option<String>,
    pub authorization_response_code: Option<String>,
    pub authorization_code: Option<String>,
    pub account_type: Option<String>,
    pub cardholder_verification_method: Option<String>,
}

/// The key of process attempt `n` of a checkout: derived, so a crash between the commit
/// and the send re-sends the same key (a replay at the PSP, never a second process).
pub fn process_key(checkout_key: &str, attempt_no: i64) -> String {
    format!("{checkout_key}-process-{attempt_no}")
}

/// What [`CardReaders::begin_attempt`] found or made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BeginAttempt {
    /// A new attempt committed (the payment is `on_reader`): send it.
    New(ReaderAttempt),
    /// The newest attempt is still unknown: it is resolved by reading, never a second one.
    Running(ReaderAttempt),
    /// The newest attempt succeeded: nothing to send.
    Succeeded(ReaderAttempt),
    /// The newest attempt proved "not charged" and no person asked for another one.
    NeedsPerson(ReaderAttempt),
}

/// What a read of the intent and the reader concluded, applied in one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderSettlement {
    /// The state to reach along the table (`captured`, `authorized`, `canceled`); `None`
    /// keeps the state. A payment already past it is left as it is.
    pub to: Option<PaymentState>,
    /// The attempt's new outcome (only an attempt still `sent` changes).
    pub attempt: Option<(i64, ReaderAttemptOutcome, Option<String>, Option<String>)>,
    pub details: Option<CardPresentDetails>,
    /// Why, on the timeline.
    pub note: String,
}

fn clip(s: Option<&str>, max: usize) -> Option<String> {
    s.map(|v| v.chars().take(max).collect())
}

fn attempt_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(ReaderAttempt, String)> {
    let outcome: String = r.get(4)?;
    Ok((
        ReaderAttempt {
            payment_id: PaymentId(r.get(0)?),
            attempt_no: r.get(1)?,
            idempotency_key: r.get(2)?,
            reader_id: r.get(3)?,
            outcome: ReaderAttemptOutcome::Sent,
            failure_code: r.get(5)?,
            failure_message: r.get(6)?,
            created_at_ms: r.get(7)?,
            updated_at_ms: r.get(8)?,
        },
        outcome,
    ))
}

fn reader_payment_in(conn: &rusqlite::Connection, payment_id: PaymentId) -> Result<Option<ReaderPayment>> {
    // Cached: every checkout's drive asks this (is it a reader payment?) before sending.
    let reader: Option<String> = conn
        .row_cached("SELECT reader_id FROM reader_payments WHERE payment_id = ?1", [payment_id.0], |r| r.get(0))
        .optional()?;
    let Some(reader_id) = reader else { return Ok(None) };
    let mut st = conn.prepare_cached(
        "SELECT payment_id, attempt_no, idempotency_key, reader_id, outcome, failure_code, failure_message,
                created_at_ms, updated_at_ms
         FROM reader_attempts WHERE payment_id = ?1 ORDER BY attempt_no",
    )?;
    let rows = st.query_map([payment_id.0], attempt_from_row)?;
    let mut attempts = Vec::new();
    for row in rows {
        let (mut a, outcome) = row?;
        a.outcome = ReaderAttemptOutcome::parse(&outcome)?;
        attempts.push(a);
    }
    Ok(Some(ReaderPayment { payment_id, reader_id, attempts }))
}

fn check_reader_id(reader_id: &str) -> Result<()> {
    let ok = !reader_id.is_empty()
        && reader_id.len() <= 255
        && reader_id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!("invalid reader id {reader_id:?}")))
    }
}

fn reader_options(capture: CaptureMethod) -> CheckoutOptions {
    CheckoutOptions { payment_method: "card_present".into(), capture_method: capture, extra_params: Vec::new() }
}

impl CardReaders<&mut Ledger> {
    /// Adds or updates a reader this register knows (after the PSP registered it).
    pub fn register(&mut self, r: &ReaderRecord) -> Result<()> {
        check_reader_id(&r.id)?;
        let label = r.label.trim();
        if label.is_empty() || label.chars().count() > 100 {
            return Err(Error::InvalidInput("a reader's label has 1 to 100 characters".into()));
        }
        let tx = self.write_tx()?;
        tx.exec_cached(
            "INSERT INTO readers (id, label, location, device_type, registered_at_ms) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(id) DO UPDATE SET label = excluded.label, location = excluded.location,
                                           device_type = excluded.device_type",
            params![r.id, label, clip(r.location.as_deref(), 255), clip(r.device_type.as_deref(), 100), r.registered_at_ms],
        )?;
        tx.commit()?;
        Ok(())
    }
}

impl<L: Deref<Target = Ledger>> CardReaders<L> {
    /// The readers this register knows, by label.
    pub fn list(&self) -> Result<Vec<ReaderRecord>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, label, location, device_type, registered_at_ms FROM readers ORDER BY label, id")?;
        let rows = st.query_map([], |r| {
            Ok(ReaderRecord {
                id: r.get(0)?,
                label: r.get(1)?,
                location: r.get(2)?,
                device_type: r.get(3)?,
                registered_at_ms: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

impl CardReaders<&mut Ledger> {
    /// A reader payment outside a sale (the CLI's `reader charge --amount`): key, request
    /// (card_present, no payment method, no confirm) and reader in one commit.
    pub fn create_payment(&mut self, amount: Money, reader_id: &str, capture: CaptureMethod, now_ms: i64) -> Result<Payment> {
        check_reader_id(reader_id)?;
        let key = self.new_key();
        let tx = self.write_tx()?;
        let opts = reader_options(capture);
        let id = insert_payment_as(&tx, &key, amount, PaymentMethodParams::CardPresent, &opts, None, now_ms)?;
        tx.exec_cached("INSERT INTO reader_payments (payment_id, reader_id) VALUES (?1, ?2)", params![id.0, reader_id])?;
        let p = payment_by_id_tx(&tx, id)?;
        tx.commit()?;
        Ok(p)
    }

    /// A card-present tender of the sale (record 0028, decision 0102): like
    /// [`Sales::open_card_tender`] (same guards: a pending tender of the same amount is
    /// returned with `is_new == false`, another amount needs an override), the payment's
    /// request is card_present and its reader is committed with it.
    pub fn open_tender(
        &mut self,
        cart_id: CartId,
        amount_minor: Option<i64>,
        reader_id: &str,
        capture: CaptureMethod,
        override_reason: Option<&str>,
        now_ms: i64,
    ) -> Result<CardTender> {
        check_reader_id(reader_id)?;
        check_card_amount(amount_minor)?;
        let key = self.new_key();
        let tx = self.write_tx()?;
        let money = match admit_card_tender_tx(&tx, cart_id, amount_minor, override_reason, now_ms)? {
            CardAdmission::Resume(pending) => return Ok(*pending),
            CardAdmission::New(money) => money,
        };
        let opts = reader_options(capture);
        let pid = insert_payment_as(&tx, &key, money, PaymentMethodParams::CardPresent, &opts, Some(cart_id), now_ms)?;
        tx.exec_cached("INSERT INTO reader_payments (payment_id, reader_id) VALUES (?1, ?2)", params![pid.0, reader_id])?;
        let id = insert_tender_tx(&tx, cart_id, money, PaidBy::Card(pid), now_ms)?;
        refresh_cart_tx(&tx, cart_id, now_ms)?;
        let tender = tender_by_id(&tx, cart_id, id)?;
        let payment = payment_by_id_tx(&tx, pid)?;
        tx.commit()?;
        Ok(CardTender { tender, payment, is_new: true })
    }
}

impl<L: Deref<Target = Ledger>> CardReaders<L> {
    /// The reader and attempts of a payment; `None` for a keyed (token) payment.
    pub fn payment(&self, payment_id: PaymentId) -> Result<Option<ReaderPayment>> {
        reader_payment_in(&self.conn, payment_id)
    }
}

impl CardReaders<&mut Ledger> {
    /// Commits the next process attempt BEFORE it is sent (rule 1), in one transaction
    /// with what the intent's create learned: its attempts on the timeline and the
    /// intent's id (attached once; a different id is refused, nothing written). The
    /// payment moves `created -> on_reader`.
    ///
    /// * no attempt yet → attempt 1 (`New`);
    /// * the newest is `sent` → `Running` (never a second attempt while one may run);
    /// * the newest `succeeded` → `Succeeded`;
    /// * the newest proved "not charged" → the next one only when `person_asked`
    ///   ("Present again"), else `NeedsPerson`.
    pub fn begin_attempt(
        &mut self,
        payment_id: PaymentId,
        intent_id: &str,
        create_attempts: &[(TimelineInput, i64)],
        person_asked: bool,
        now_ms: i64,
    ) -> Result<BeginAttempt> {
        if intent_id.is_empty() || intent_id.len() > 255 {
            return Err(Error::InvalidInput("invalid PaymentIntent id".into()));
        }
        let tx = self.write_tx()?;
        let p = payment_by_id_tx(&tx, payment_id)?;
        let rp = reader_payment_in(&tx, payment_id)?
            .ok_or_else(|| Error::NotAReaderPayment { checkout_key: p.idempotency_key.clone() })?;
        for (entry, at_ms) in create_attempts {
            record_attempt_tx(&tx, payment_id, entry, *at_ms)?;
        }
        attach_intent_id_tx(&tx, &p, intent_id, now_ms)?;
        let next_no = match next_attempt_no(&rp, person_asked) {
            ControlFlow::Continue(n) => n,
            ControlFlow::Break(answer) => {
                tx.commit()?;
                return Ok(answer);
            }
        };
        if next_no > MAX_READER_ATTEMPTS {
            return Err(Error::ReaderAttemptLimit { checkout_key: p.idempotency_key.clone(), max: MAX_READER_ATTEMPTS });
        }
        match p.state {
            PaymentState::Created => {
                transition_tx(&tx, payment_id, PaymentState::Created, PaymentState::OnReader, "handed to the reader", now_ms)?;
            }
            PaymentState::OnReader => {}
            other => {
                return Err(Error::IllegalTransition(paydesk_domain::state::IllegalTransition { from: other, to: PaymentState::OnReader }))
            }
        }
        insert_attempt_tx(&tx, &p, &rp.reader_id, next_no, now_ms)?;
        let rp = reader_payment_in(&tx, payment_id)?.expect("the reader payment read above");
        tx.commit()?;
        Ok(BeginAttempt::New(rp.latest().expect("the attempt just inserted").clone()))
    }

    /// Applies what a read of the intent and the reader proved, in one commit: the
    /// attempt's outcome (only a `sent` attempt changes), the card's details (the first
    /// answer is kept), and the state along the table (a payment already past `to` is
    /// left as it is: an event may have moved it first).
    pub fn settle(&mut self, payment_id: PaymentId, s: &ReaderSettlement, now_ms: i64) -> Result<Payment> {
        let tx = self.write_tx()?;
        if let Some((no, outcome, code, message)) = &s.attempt {
            tx.exec_cached(
                "UPDATE reader_attempts SET outcome = ?3, failure_code = ?4, failure_message = ?5, updated_at_ms = ?6
                 WHERE payment_id = ?1 AND attempt_no = ?2 AND outcome = 'sent'",
                params![payment_id.0, no, outcome.as_str(), clip(code.as_deref(), 100), clip(message.as_deref(), 500), now_ms],
            )?;
        }
        if let Some(d) = &s.details {
            let last4 = d.last4.as_deref().filter(|l| l.len() == 4 && l.bytes().all(|b| b.is_ascii_digit()));
            tx.exec_cached(
                "INSERT INTO card_present_details (payment_id, brand, last4, read_method, application_preferred_name,
                     dedicated_file_name, authorization_response_code, authorization_code, account_type,
                     cardholder_verification_method, recorded_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT(payment_id) DO NOTHING",
                params![
                    payment_id.0,
                    clip(d.brand.as_deref(), 40),
                    last4,
                    clip(d.read_method.as_deref(), 60),
                    clip(d.application_preferred_name.as_deref(), 100),
                    clip(d.dedicated_file_name.as_deref(), 100),
                    clip(d.authorization_response_code.as_deref(), 20),
                    clip(d.authorization_code.as_deref(), 40),
                    clip(d.account_type.as_deref(), 40),
                    clip(d.cardholder_verification_method.as_deref(), 60),
                    now_ms
                ],
            )?;
        }
        let cur = payment_by_id_tx(&tx, payment_id)?.state;
        if let Some(to) = s.to {
            if let Some(path) = cur.path_to(to) {
                let mut from = cur;
                for step in path {
                    from = transition_tx(&tx, payment_id, from, step, &s.note, now_ms)?.state();
                }
            }
        }
        append_timeline_tx(&tx, payment_id, &TimelineInput::said(TimelineKind::Note, s.note.clone()), now_ms)?;
        let p = payment_by_id_tx(&tx, payment_id)?;
        tx.commit()?;
        Ok(p)
    }
}

impl<L: Deref<Target = Ledger>> CardReaders<L> {
    /// The card's details as the PSP answered them (for the receipt).
    pub fn card_present_details(&self, payment_id: PaymentId) -> Result<Option<CardPresentDetails>> {
        Ok(self
            .conn
            .query_row(
                "SELECT brand, last4, read_method, application_preferred_name, dedicated_file_name,
                        authorization_response_code, authorization_code, account_type, cardholder_verification_method
                 FROM card_present_details WHERE payment_id = ?1",
                [payment_id.0],
                |r| {
                    Ok(CardPresentDetails {
                        brand: r.get(0)?,
                        last4: r.get(1)?,
                        read_method: r.get(2)?,
                        application_preferred_name: r.get(3)?,
                        dedicated_file_name: r.get(4)?,
                        authorization_response_code: r.get(5)?,
                        authorization_code: r.get(6)?,
                        account_type: r.get(7)?,
                        cardholder_verification_method: r.get(8)?,
                    })
                },
            )
            .optional()?)
    }
}

/// Attaches the intent's id to the payment (once); a payment that holds another id, or an
/// id another payment holds, is refused (the reader would charge for the wrong sale).
fn attach_intent_id_tx(tx: &WriteTx<'_>, p: &Payment, intent_id: &str, now_ms: i64) -> Result<()> {
    match p.psp_payment_id.as_deref() {
        Some(stored) if stored != intent_id => Err(Error::ReaderIntentMismatch {
            checkout_key: p.idempotency_key.clone(),
            stored: stored.to_string(),
            found: intent_id.to_string(),
        }),
        Some(_) => Ok(()),
        None => {
            if let Some(other) = payment_by_psp_tx(tx, intent_id)? {
                return Err(Error::ReaderIntentMismatch {
                    checkout_key: p.idempotency_key.clone(),
                    stored: format!("(held by {})", other.idempotency_key),
                    found: intent_id.to_string(),
                });
            }
            let n = tx.exec_cached(
                "UPDATE payments SET psp_payment_id = ?2, updated_at_ms = ?3 WHERE id = ?1 AND psp_payment_id IS NULL",
                params![p.id.0, intent_id, now_ms],
            )?;
            // The payment was read without an id in this same transaction.
            assert_eq!(n, 1, "payment {}: intent id attached by someone else", p.id);
            Ok(())
        }
    }
}

/// The number of the next process attempt, or (`Break`) the answer when none may start:
/// one is still running, one succeeded, or the last was not charged and nobody asked
/// to present the card again.
fn next_attempt_no(rp: &ReaderPayment, person_asked: bool) -> ControlFlow<BeginAttempt, i64> {
    match rp.latest() {
        None => ControlFlow::Continue(1),
        Some(a) => match a.outcome {
            ReaderAttemptOutcome::Sent => ControlFlow::Break(BeginAttempt::Running(a.clone())),
            ReaderAttemptOutcome::Succeeded => ControlFlow::Break(BeginAttempt::Succeeded(a.clone())),
            ReaderAttemptOutcome::Declined | ReaderAttemptOutcome::Canceled if !person_asked => ControlFlow::Break(BeginAttempt::NeedsPerson(a.clone())),
            ReaderAttemptOutcome::Declined | ReaderAttemptOutcome::Canceled => ControlFlow::Continue(a.attempt_no + 1),
        },
    }
}

/// The attempt row (`sent`, with its own key), committed before it is sent; the payment's
/// first attempt time, and a timeline note.
fn insert_attempt_tx(tx: &WriteTx<'_>, p: &Payment, reader_id: &str, attempt_no: i64, now_ms: i64) -> Result<()> {
    let key = process_key(&p.idempotency_key, attempt_no);
    tx.exec_cached(
        "INSERT INTO reader_attempts (payment_id, attempt_no, idempotency_key, reader_id, outcome, created_at_ms, updated_at_ms)
         VALUES (?1, ?2, ?3, ?4, 'sent', ?5, ?5)",
        params![p.id.0, attempt_no, key, reader_id, now_ms],
    )?;
    tx.exec_cached(
        "UPDATE payments SET first_attempt_at_ms = COALESCE(first_attempt_at_ms, ?2) WHERE id = ?1",
        params![p.id.0, now_ms],
    )?;
    append_timeline_tx(
        tx,
        p.id,
        &TimelineInput {
            kind: Some(TimelineKind::Note),
            detail: format!("process attempt {attempt_no} on reader {reader_id} committed ({key})"),
            attempt_no: Some(attempt_no),
            ..Default::default()
        },
        now_ms,
    )?;
    Ok(())
}
