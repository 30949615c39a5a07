//! Payments: opening a checkout (a cart's, or a bare amount), recording what the PSP
//! answered for a key, the last error shown, and the payment queries (by id / key / PSP
//! id, recovery, in flight, a cart's checkout). A payment's key and exact request are
//! committed here before the caller sends anything (record 0003, 0004).

use std::ops::Deref;
use crate::ledger::Payments;
use rusqlite::{params, Connection, OptionalExtension};

use super::rows::{payment_by_id_tx, payment_by_key_tx, payment_from_row};
use super::timeline::append_timeline_tx;
use super::sale::{insert_tender_tx, PaidBy, refresh_cart_tx, sale_tx, supersede_tx};
use crate::tender::{SaleState, TenderStanding};
use super::{collect, Cached, Ledger, PAYMENT_COLS};
use crate::write_tx::WriteTx;
use crate::error::{Error, Result};
use paydesk_domain::money::Money;
use paydesk_domain::state::PaymentState;
use crate::types::*;

impl Payments<&mut Ledger> {
    /// Opens a checkout for `cart_id` (record 0003–0005).
    ///
    /// If the cart already has an open checkout (created / authorizing / authorized /
    /// capturing) it is returned with `is_new == false`: pressing Charge twice, a double
    /// click or a restart reuses the same key. Otherwise a new payment is committed —
    /// state `created`, a fresh UUID v4 key, the exact request parameters built from the
    /// cart total — and the cart is locked, all in one transaction that is durable when
    /// this returns, before the caller sends anything.
    pub fn open_checkout(&mut self, cart_id: CartId, options: &CheckoutOptions, now_ms: i64) -> Result<Checkout> {
        let key = self.new_key();
        let tx = self.write_tx()?;
        let co = open_checkout_in(&tx, &key, cart_id, options, None, now_ms)?;
        if co.is_new {
            tx.commit()?;
        } // else: read-only path; dropping tx just releases the lock.
        Ok(co)
    }

    /// Starts a NEW checkout for a cart even though one is still open — the cashier's
    /// explicit override of record 0005 (e.g. the previous outcome is unknown and the
    /// customer cannot wait). The reason is required and written to the audit log in the
    /// same transaction as the new payment. The old checkout is left as it is: crash
    /// recovery still resolves it, so a possible double charge stays visible.
    /// Without an open checkout this is a plain [`Payments::open_checkout`].
    pub fn open_checkout_override(
        &mut self,
        cart_id: CartId,
        options: &CheckoutOptions,
        reason: &str,
        now_ms: i64,
    ) -> Result<Checkout> {
        if reason.trim().is_empty() {
            return Err(Error::InvalidInput("an override needs a reason".into()));
        }
        let key = self.new_key();
        let tx = self.write_tx()?;
        let co = open_checkout_in(&tx, &key, cart_id, options, Some(reason), now_ms)?;
        if co.is_new {
            tx.commit()?;
        }
        Ok(co)
    }

    /// Creates a payment without a cart (CLI `checkout --amount`): committed in state
    /// `created` with a new key before returning.
    pub fn create(&mut self, new: &NewPayment, now_ms: i64) -> Result<Payment> {
        let amount = Money::positive(new.amount.amount_minor, new.amount.currency)?;
        let key = self.new_key();
        let tx = self.write_tx()?;
        let id = insert_payment(&tx, &key, amount, &new.options, None, now_ms)?;
        let p = payment_by_id_tx(&tx, id)?;
        tx.commit()?;
        Ok(p)
    }

    /// Records what the PSP answered for `result.idempotency_key`, idempotently
    /// (record 0006). Never creates a second row for a key:
    ///
    /// * no row for the key → insert one in `state_if_new` → `Recorded`;
    /// * row without a PSP id and same amount/currency → attach the id → `Recorded`;
    /// * row with the same fields → `Exists`;
    /// * a field differs → `ExistsWithDifferent{Amount,Currency,PspPaymentId}` (checked in
    ///   that order), and nothing changes;
    /// * the PSP id is on another key → `PspPaymentIdBelongsToAnotherKey`.
    pub fn record_psp_result(&mut self, result: &PspResult, now_ms: i64) -> Result<RecordOutcome> {
        if result.amount.amount_minor <= 0 {
            return Err(Error::InvalidAmount(format!("{} must be greater than zero", result.amount.amount_minor)));
        }
        if result.psp_payment_id.is_empty() {
            return Err(Error::InvalidInput("empty psp_payment_id".into()));
        }
        let tx = self.write_tx()?;
        let outcome = record_psp_result_tx(&tx, result, now_ms)?;
        if matches!(outcome, RecordOutcome::Recorded(_)) {
            tx.commit()?;
        }
        // Any other outcome wrote nothing: dropping tx rolls back (no fsync).
        Ok(outcome)
    }

    /// Stores the last error shown for a payment (decline message, 400 body).
    pub fn set_last_error(&mut self, payment_id: PaymentId, error: Option<&str>, now_ms: i64) -> Result<()> {
        let tx = self.write_tx()?;
        set_last_error_tx(&tx, payment_id, error, now_ms)?;
        tx.commit()?;
        Ok(())
    }
}

impl<L: Deref<Target = Ledger>> Payments<L> {
    pub fn by_id(&self, id: PaymentId) -> Result<Payment> {
        payment_by_id_tx(&self.conn, id)
    }

    pub fn by_key(&self, key: &str) -> Result<Option<Payment>> {
        payment_by_key_tx(&self.conn, key)
    }

    pub fn by_psp_id(&self, psp_payment_id: &str) -> Result<Option<Payment>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE psp_payment_id = ?1");
        self.conn.row_cached(&sql, [psp_payment_id], payment_from_row).optional()?.transpose()
    }

    /// Payments crash recovery must resolve (record 0010): `created`, `authorizing`,
    /// `capturing`, `refunding` — see [`PaymentState::needs_recovery`]. Oldest first.
    pub fn needing_recovery(&self) -> Result<Vec<Payment>> {
        let states: Vec<&str> =
            PaymentState::ALL.into_iter().filter(|s| s.needs_recovery()).map(|s| s.as_str()).collect();
        self.in_states(&states)
    }

    /// Payments whose outcome may be unknown (`authorizing`, `capturing`, `refunding`).
    pub fn in_flight(&self) -> Result<Vec<Payment>> {
        let states: Vec<&str> =
            PaymentState::ALL.into_iter().filter(|s| s.is_in_flight()).map(|s| s.as_str()).collect();
        self.in_states(&states)
    }

    pub(super) fn in_states(&self, states: &[&str]) -> Result<Vec<Payment>> {
        // The JSON array keeps the statement parameterized whatever the list length.
        let sql = format!(
            "SELECT {PAYMENT_COLS} FROM payments WHERE state IN (SELECT value FROM json_each(?1))
             ORDER BY created_at_ms, id"
        );
        collect(&self.conn, &sql, params![serde_json::to_string(states)?], payment_from_row)
    }

    /// The open checkout of a cart, if any.
    pub fn open_checkout_for_cart(&self, cart_id: CartId) -> Result<Option<Payment>> {
        open_checkout_of_cart(&self.conn, cart_id)
    }

    /// The cart's most recent payment, open or finished (index `payments_by_cart`).
    pub fn last_for_cart(&self, cart_id: CartId) -> Result<Option<Payment>> {
        let sql = format!("SELECT {PAYMENT_COLS} FROM payments WHERE cart_id = ?1 ORDER BY id DESC LIMIT 1");
        self.conn.row_cached(&sql, params![cart_id.0], payment_from_row).optional()?.transpose()
    }
}

/// The body of [`Payments::open_checkout`] (`override_reason` None) and
/// [`Payments::open_checkout_override`], inside the caller's write transaction (which it
/// does not commit). `is_new == false`: the cart's open checkout, nothing written.
pub(super) fn open_checkout_in(
    tx: &WriteTx<'_>,
    key: &str,
    cart_id: CartId,
    options: &CheckoutOptions,
    override_reason: Option<&str>,
    now_ms: i64,
) -> Result<Checkout> {
    // The sale, read once: its cart is the one checked below (same transaction, nothing
    // written yet), and it is read again only if an override changed it.
    let sale = sale_tx(tx, cart_id)?;
    let cart = &sale.cart;
    let previous = open_checkout_of_cart(tx, cart_id)?;
    let (previous, reason) = match (previous, override_reason) {
        (Some(existing), None) => return Ok(Checkout { payment: existing, is_new: false }),
        (Some(previous), Some(reason)) => (Some(previous), reason),
        (None, _) => (None, ""),
    };
    if previous.is_none() && cart.state == CartState::Paid {
        return Err(Error::CartNotOpen { cart_id: cart_id.0, state: cart.state.as_str().into() });
    }
    if cart.lines.is_empty() {
        return Err(Error::EmptyCart(cart_id.0));
    }
    crate::ledger::held::refuse_held(cart)?; // parked or discarded: paid once recalled (record 0128)
    // The checkout is the sale's card tender for everything still open (record 0028);
    // an overridden open checkout's tender stops counting first.
    if let SaleState::Canceling | SaleState::Canceled = sale.state {
        return Err(Error::SaleCanceled { cart_id: cart_id.0 });
    }
    let mut superseded = false;
    if let Some(prev) = &previous {
        if let Some(t) = sale.tenders.iter().find(|t| t.payment_id == Some(prev.id) && t.standing == TenderStanding::Active) {
            supersede_tx(tx, t, reason.trim(), now_ms, false)?;
            superseded = true;
        }
    }
    let open = if superseded { sale_tx(tx, cart_id)?.totals.open_minor() } else { sale.totals.open_minor() };
    if open <= 0 {
        return Err(Error::TenderExceedsDue { cart_id: cart_id.0, requested_minor: 0, open_minor: open });
    }
    let amount = Money::positive(open, cart.currency)?;
    let id = insert_payment(tx, key, amount, options, Some(cart_id), now_ms)?;
    insert_tender_tx(tx, cart_id, amount, PaidBy::Card(id), now_ms)?;
    refresh_cart_tx(tx, cart_id, now_ms)?;
    match previous {
        None => {}
        Some(previous) => {
            crate::ledger::audit::append_audit(
                tx,
                &crate::ledger::AuditInput {
                    reason: Some(reason.to_string()),
                    ..crate::ledger::AuditInput::new(
                        "new_checkout_override",
                        &format!(
                            "cart {cart_id}: new payment {id} while payment {} ({}) is {}",
                            previous.id, previous.idempotency_key, previous.state
                        ),
                    )
                },
                now_ms,
            )?;
            let note = format!("superseded by payment {id} on cashier override: {reason}");
            append_timeline_tx(tx, previous.id, &TimelineInput::said(TimelineKind::Note, note), now_ms)?;
        }
    }
    let payment = payment_by_id_tx(tx, id)?;
    Ok(Checkout { payment, is_new: true })
}

pub(super) fn open_checkout_of_cart(conn: &Connection, cart_id: CartId) -> Result<Option<Payment>> {
    let open: Vec<&str> =
        PaymentState::ALL.into_iter().filter(|s| s.is_checkout_open()).map(|s| s.as_str()).collect();
    let sql = format!(
        "SELECT {PAYMENT_COLS} FROM payments WHERE cart_id = ?1 AND state IN (SELECT value FROM json_each(?2))
         ORDER BY id DESC LIMIT 1"
    );
    conn.row_cached(&sql, params![cart_id.0, serde_json::to_string(&open)?], payment_from_row)
        .optional()?
        .transpose()
}

/// [`Payments::set_last_error`] inside a caller's transaction.
pub(super) fn set_last_error_tx(tx: &WriteTx<'_>, payment_id: PaymentId, error: Option<&str>, now_ms: i64) -> Result<()> {
    let n = tx.exec_cached(
        "UPDATE payments SET last_error = ?2, updated_at_ms = ?3 WHERE id = ?1",
        params![payment_id.0, error, now_ms],
    )?;
    if n == 0 {
        return Err(Error::UnknownPayment(payment_id.to_string()));
    }
    Ok(())
}

pub(super) fn insert_payment(
    tx: &WriteTx<'_>,
    key: &str,
    amount: Money,
    options: &CheckoutOptions,
    cart_id: Option<CartId>,
    now_ms: i64,
) -> Result<PaymentId> {
    if options.payment_method.is_empty() {
        return Err(Error::InvalidInput("payment_method is empty".into()));
    }
    insert_payment_as(tx, key, amount, PaymentMethodParams::Token(&options.payment_method), options, cart_id, now_ms)
}

/// How the PaymentIntent gets its payment method: a token confirmed at once (keyed test
/// cards), or a card presented on a reader later (created without a payment method and
/// without `confirm`, decision 0102).
#[derive(Debug, Clone, Copy)]
pub(super) enum PaymentMethodParams<'a> {
    Token(&'a str),
    CardPresent,
}

pub(super) fn insert_payment_as(
    tx: &WriteTx<'_>,
    key: &str,
    amount: Money,
    method: PaymentMethodParams<'_>,
    options: &CheckoutOptions,
    cart_id: Option<CartId>,
    now_ms: i64,
) -> Result<PaymentId> {
    // Money invariant: callers pass `Money::positive`; a payment charges something.
    assert!(amount.amount_minor > 0, "payment amount {amount}");
    let staff_id = crate::ledger::shift::admit_money_tx(tx)?;
    // The exact request the PSP will get, on every attempt (record 0004). The key is
    // also in metadata so reconciliation can search for it past the dedup window (record 0008).
    let mut params = RequestParams::default();
    params.push("amount", amount.amount_minor.to_string());
    params.push("currency", amount.currency.code());
    match method {
        PaymentMethodParams::Token(pm) => {
            params.push("payment_method", pm);
            params.push("confirm", "true");
        }
        PaymentMethodParams::CardPresent => params.push("payment_method_types[]", "card_present"),
    }
    params.push("capture_method", options.capture_method.as_str());
    params.push("metadata[checkout_key]", key);
    if let Some(c) = cart_id {
        params.push("metadata[cart_id]", c.0.to_string());
    }
    for (k, v) in &options.extra_params {
        params.push(k.clone(), v.clone());
    }
    tx.exec_cached(
        "INSERT INTO payments (idempotency_key, amount_minor, currency, state, capture_method, request_params,
             cart_id, created_at_ms, updated_at_ms, staff_id)
         VALUES (?1, ?2, ?3, 'created', ?4, ?5, ?6, ?7, ?7, ?8)",
        params![
            key,
            amount.amount_minor,
            amount.currency.code(),
            options.capture_method.as_str(),
            serde_json::to_string(&params)?,
            cart_id.map(|c| c.0),
            now_ms,
            staff_id
        ],
    )?;
    let id = PaymentId(tx.last_insert_rowid());
    append_timeline_tx(tx, id, &TimelineInput::said(TimelineKind::Created, format!("checkout of {amount} created")), now_ms)?;
    if let (Some(staff_id), None) = (staff_id, cart_id) {
        // A payment outside a sale (a sale's card payment is audited as its tender).
        let after = serde_json::json!({ "amount_minor": amount.amount_minor, "currency": amount.currency.code() });
        crate::ledger::audit::append_audit(
            tx,
            &crate::ledger::audit::AuditInput {
                actor_id: Some(staff_id),
                after: Some(after.to_string()),
                ..crate::ledger::audit::AuditInput::new("payment_created", &format!("payment:{key}"))
            },
            now_ms,
        )?;
    }
    Ok(id)
}

/// [`Payments::record_psp_result`] inside a caller's transaction (nothing is committed
/// here; a non-`Recorded` outcome writes nothing).
pub(super) fn record_psp_result_tx(tx: &WriteTx<'_>, result: &PspResult, now_ms: i64) -> Result<RecordOutcome> {
    if result.amount.amount_minor <= 0 {
        return Err(Error::InvalidAmount(format!("{} must be greater than zero", result.amount.amount_minor)));
    }
    if result.psp_payment_id.is_empty() {
        return Err(Error::InvalidInput("empty psp_payment_id".into()));
    }
    let by_psp: Option<(i64, String)> = tx
        .row_cached(
            "SELECT id, idempotency_key FROM payments WHERE psp_payment_id = ?1",
            [&result.psp_payment_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    match payment_by_key_tx(tx, &result.idempotency_key)? {
        Some(p) => record_on_existing_tx(tx, &p, result, by_psp, now_ms),
        None => match by_psp {
            Some((other_id, other_key)) => Ok(RecordOutcome::PspPaymentIdBelongsToAnotherKey { id: PaymentId(other_id), other_key }),
            None => Ok(RecordOutcome::Recorded(insert_from_psp_tx(tx, result, now_ms)?)),
        },
    }
}

/// The PSP's result for a key we already have: recorded only when it agrees with the
/// row (amount, currency) and adds the PSP's id nobody holds; any mismatch is reported,
/// nothing written.
fn record_on_existing_tx(
    tx: &WriteTx<'_>,
    p: &Payment,
    result: &PspResult,
    by_psp: Option<(i64, String)>,
    now_ms: i64,
) -> Result<RecordOutcome> {
    if p.amount.amount_minor != result.amount.amount_minor {
        return Ok(RecordOutcome::ExistsWithDifferentAmount {
            id: p.id,
            stored_minor: p.amount.amount_minor,
            requested_minor: result.amount.amount_minor,
        });
    }
    if p.amount.currency != result.amount.currency {
        return Ok(RecordOutcome::ExistsWithDifferentCurrency { id: p.id, stored: p.amount.currency, requested: result.amount.currency });
    }
    if let Some(stored) = p.psp_payment_id.clone() {
        if stored == result.psp_payment_id {
            return Ok(RecordOutcome::Exists(p.id));
        }
        return Ok(RecordOutcome::ExistsWithDifferentPspPaymentId { id: p.id, stored, requested: result.psp_payment_id.clone() });
    }
    if let Some((other_id, other_key)) = by_psp {
        return Ok(RecordOutcome::PspPaymentIdBelongsToAnotherKey { id: PaymentId(other_id), other_key });
    }
    tx.exec_cached(
        "UPDATE payments SET psp_payment_id = ?2, updated_at_ms = ?3 WHERE id = ?1",
        params![p.id.0, result.psp_payment_id, now_ms],
    )?;
    let detail = format!("PSP payment {}", result.psp_payment_id);
    append_timeline_tx(tx, p.id, &TimelineInput::said(TimelineKind::PspResult, detail), now_ms)?;
    Ok(RecordOutcome::Recorded(p.id))
}

/// A payment the PSP has and we had no row for (the register lost it): recorded from
/// the PSP's result, in the state it reported.
fn insert_from_psp_tx(tx: &WriteTx<'_>, result: &PspResult, now_ms: i64) -> Result<PaymentId> {
    // Checked by the caller: a row recorded from the PSP has a positive amount.
    assert!(result.amount.amount_minor > 0, "PSP result amount {}", result.amount);
    let mut params = RequestParams::default();
    params.push("amount", result.amount.amount_minor.to_string());
    params.push("currency", result.amount.currency.code());
    params.push("metadata[checkout_key]", result.idempotency_key.clone());
    tx.exec_cached(
        "INSERT INTO payments (idempotency_key, psp_payment_id, amount_minor, currency, state,
             capture_method, request_params, created_at_ms, updated_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, 'automatic', ?6, ?7, ?7)",
        params![
            result.idempotency_key,
            result.psp_payment_id,
            result.amount.amount_minor,
            result.amount.currency.code(),
            result.state_if_new.as_str(),
            serde_json::to_string(&params)?,
            now_ms
        ],
    )?;
    let id = PaymentId(tx.last_insert_rowid());
    let detail = format!("recorded from PSP payment {} in state {}", result.psp_payment_id, result.state_if_new);
    append_timeline_tx(tx, id, &TimelineInput::said(TimelineKind::PspResult, detail), now_ms)?;
    Ok(id)
}
