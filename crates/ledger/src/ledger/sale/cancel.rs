//! Cancel a sale (record 0031): every settled card tender refunded with its own refund
//! key exactly once (an authorization voided, an offline one dropped before it is
//! forwarded), the cash handed back recorded in the drawer, the sale `canceled` once
//! the PSP confirmed it all. Idempotent: pressed twice or resumed after a crash, it
//! finds the refunds it already committed and never makes a second one for a tender.
//! A store tender is handed back as itself, and the change a change-giving one paid out
//! of the drawer is taken back into it in the same transaction (record 0148).

use std::ops::Deref;
use crate::ledger::Sales;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::cash::movement_tx;
use super::{check_reason, refresh_cart_tx, sale_tx, Sale};
use crate::error::{Error, Result};
use crate::ledger::refunds::create_refund_tx;
use crate::ledger::rows::refund_by_id_tx;
use crate::ledger::timeline::timeline_of;
use crate::ledger::transitions::transition_tx;
use crate::ledger::{Cached, Ledger};
use paydesk_domain::state::PaymentState;
use crate::tender::*;
use paydesk_domain::TenderKind;
use crate::types::*;
use crate::write_tx::WriteTx;

/// What the engine must still do at the PSP for a cancel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum CancelAction {
    /// Drive this refund (committed with its own key) to its outcome.
    Refund { tender_id: TenderId, refund_id: RefundId, refund_key: String, checkout_key: String },
    /// Void this authorization (`<checkout key>-cancel`).
    Void { tender_id: TenderId, checkout_key: String },
}

/// What [`Sales::begin_cancel`] committed and what is left to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelPlan {
    pub cart_id: CartId,
    pub actions: Vec<CancelAction>,
    /// Cash handed back by this call (0 when a repeat found it already recorded).
    pub cash_returned_minor: i64,
    /// Cash the customer hands back by this call: the change a change-giving store
    /// tender paid out of the drawer (record 0148; 0 when a repeat found it recorded).
    #[serde(default)]
    pub change_collected_minor: i64,
    /// The store tenders handed back to the customer as themselves (the voucher, the
    /// gift card's value), listed by the call that started the cancel.
    #[serde(default)]
    pub store_given_back: Vec<StoreGivenBack>,
    /// `canceled` when nothing was left to confirm at the PSP, else `canceling`.
    pub state: SaleState,
}

impl CancelPlan {
    /// A repeat on a canceled sale: nothing left to do, nothing to hand over.
    fn already_canceled(cart_id: CartId) -> CancelPlan {
        CancelPlan {
            cart_id,
            actions: Vec::new(),
            cash_returned_minor: 0,
            change_collected_minor: 0,
            store_given_back: Vec::new(),
            state: SaleState::Canceled,
        }
    }
}

/// A store tender a cancel gives back (record 0148): the customer gets back what they
/// handed over through it, less what already went back through it, and hands back the
/// change it gave from the drawer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreGivenBack {
    pub tender_id: TenderId,
    pub type_name: String,
    /// The slip or approval number, if one was typed.
    pub reference: Option<String>,
    /// The value to give back: what was handed over less what earlier refunds gave back
    /// through it.
    pub give_back_minor: i64,
    /// The change to take back from the customer into the drawer (recorded by this call).
    pub change_collected_minor: i64,
}

impl Sales<&mut Ledger> {
    /// Starts (or resumes) the cancel of a sale, in ONE transaction: the cancel row
    /// (`canceling`, with the reason), the cash hand-back (once per cash tender),
    /// offline card tenders voided before they are forwarded, and a refund row with
    /// its own key for every settled card tender that has neither an open refund nor
    /// nothing left to refund. Refused for a paid sale ([`Error::SaleComplete`]: refund
    /// it) and while a card tender's outcome is unknown
    /// ([`Error::TenderUnknownOutstanding`]: refunding or keeping it cannot be decided).
    ///
    /// An offline card tender is dropped here only if none of its attempts may have
    /// reached the PSP (`may_have_reached_psp`, the register's reading of an attempt's
    /// outcome): one parked after a lost answer may be charged, so it is forwarded with
    /// its key first and, if charged, refunded like any settled tender.
    pub fn begin_cancel(
        &mut self,
        cart_id: CartId,
        reason: &str,
        now_ms: i64,
        may_have_reached_psp: &dyn Fn(&TimelineEntry) -> bool,
    ) -> Result<CancelPlan> {
        let reason = check_reason(reason)?.to_string();
        let cards = self.by_cart(cart_id)?.tenders.iter().filter(|t| t.kind == TenderKind::Card).count();
        let mut keys: Vec<String> = (0..cards).map(|_| self.new_key()).collect();
        let tx = self.write_tx()?;
        let sale = sale_tx(&tx, cart_id)?;
        match sale.state {
            SaleState::Paid => return Err(Error::SaleComplete { cart_id: cart_id.0 }),
            SaleState::Canceled => {
                return Ok(CancelPlan::already_canceled(cart_id))
            }
            SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance | SaleState::Canceling => {}
        }
        if let Some(c) = &sale.exchange_credit {
            return Err(Error::ExchangeCreditHeld { cart_id: cart_id.0, exchange_id: c.exchange_id });
        }
        if let Some(t) = undecided_tender_tx(&tx, &sale, may_have_reached_psp)? {
            return Err(Error::TenderUnknownOutstanding {
                cart_id: cart_id.0,
                checkout_key: t.checkout_key.clone().unwrap_or_default(),
            });
        }
        let started = tx.exec_cached(
            "INSERT INTO sale_cancels (cart_id, state, reason, created_at_ms) VALUES (?1, 'canceling', ?2, ?3)
             ON CONFLICT(cart_id) DO NOTHING",
            params![cart_id.0, reason, now_ms],
        )? == 1;
        let mut actions = Vec::new();
        let mut cash_returned = 0i64;
        let mut change_collected = 0i64;
        let mut store_given_back = Vec::new();
        for t in sale.tenders.iter().filter(|t| t.standing == TenderStanding::Active) {
            match (t.kind, t.payment_state) {
                (TenderKind::Cash, _) => cash_returned += return_cash_tx(&tx, t, now_ms)?,
                // The voucher (or the gift card's value) is handed back; the change it
                // gave comes back into the drawer.
                (TenderKind::Store, _) => {
                    let collected = collect_change_tx(&tx, t, now_ms)?;
                    change_collected += collected;
                    if started || collected > 0 {
                        store_given_back.push(store_given_back_tx(&tx, t, collected)?);
                    }
                }
                (TenderKind::Card, None) => {}
                (TenderKind::Card, Some(ps)) => actions.extend(undo_card_tender_tx(&tx, t, ps, &mut keys, now_ms)?),
            }
        }
        let state = if actions.is_empty() { complete_tx(&tx, cart_id, now_ms)? } else { SaleState::Canceling };
        refresh_cart_tx(&tx, cart_id, now_ms)?;
        tx.commit()?;
        Ok(CancelPlan {
            cart_id,
            actions,
            cash_returned_minor: cash_returned,
            change_collected_minor: change_collected,
            store_given_back,
            state,
        })
    }

    /// Ends a cancel once every settled card tender of the sale is refunded in full or
    /// void: the sale becomes `canceled`. Otherwise it stays `canceling` (a refund still
    /// in flight, or one that failed and needs [`Sales::begin_cancel`] again).
    pub fn finish_cancel(&mut self, cart_id: CartId, now_ms: i64) -> Result<SaleState> {
        let tx = self.write_tx()?;
        let state = sale_tx(&tx, cart_id)?.state;
        if state != SaleState::Canceling {
            return Ok(state);
        }
        let state = complete_tx(&tx, cart_id, now_ms)?;
        if state == SaleState::Canceled {
            refresh_cart_tx(&tx, cart_id, now_ms)?;
            tx.commit()?;
        }
        Ok(state)
    }
}

impl<L: Deref<Target = Ledger>> Sales<L> {
    /// Sales whose cancel is not confirmed yet (recovery resumes them), oldest first.
    pub fn canceling(&self) -> Result<Vec<CartId>> {
        crate::ledger::collect(
            &self.conn,
            "SELECT cart_id FROM sale_cancels WHERE state = 'canceling' ORDER BY created_at_ms, cart_id",
            [],
            |r| Ok(Ok(CartId(r.get(0)?))),
        )
    }
}

/// The first tender whose outcome is not known yet, which refuses the cancel: pending or
/// being resolved, offline but not parked, or parked offline after an attempt that may
/// have reached the PSP (it may be charged, so it is forwarded first).
fn undecided_tender_tx<'s>(
    tx: &WriteTx<'_>,
    sale: &'s Sale,
    may_have_reached_psp: &dyn Fn(&TimelineEntry) -> bool,
) -> Result<Option<&'s Tender>> {
    for t in &sale.tenders {
        let parked = t.payment_state == Some(PaymentState::QueuedOffline);
        let maybe_charged = match (parked && t.standing == TenderStanding::Active, t.payment_id) {
            (true, Some(pid)) => timeline_of(tx, pid)?.iter().any(may_have_reached_psp),
            (true, None) | (false, _) => false,
        };
        if t.state.is_unknown() || (t.state == TenderState::Offline && !parked) || maybe_charged {
            return Ok(Some(t));
        }
    }
    Ok(None)
}

/// Hands back what the drawer still holds of a cash tender (once: a second cancel finds
/// the movement already there); the amount handed back now.
fn return_cash_tx(tx: &WriteTx<'_>, t: &Tender, now_ms: i64) -> Result<i64> {
    let kept = t.amount.amount_minor + t.rounding_minor.unwrap_or(0) - cash_refunded_tx(tx, t.id)?;
    if kept > 0 && movement_tx(tx, CashMovementKind::CancelReturn, -kept, t.amount.currency, t.cart_id, Some(t.id), now_ms)? {
        return Ok(kept);
    }
    Ok(0)
}

/// Takes back into the drawer the change a store tender paid out of it (once: the
/// movement is unique per tender and kind); the amount taken back now. It is a `sale_in`
/// of the store tender, the one kind that brings cash in (the table's CHECK gives every
/// other kind a negative amount); a store tender has no other `sale_in` (record 0148).
fn collect_change_tx(tx: &WriteTx<'_>, t: &Tender, now_ms: i64) -> Result<i64> {
    let change = t.change_minor.unwrap_or(0);
    if change > 0 && movement_tx(tx, CashMovementKind::SaleIn, change, t.amount.currency, t.cart_id, Some(t.id), now_ms)? {
        return Ok(change);
    }
    Ok(0)
}

/// What the cashier gives back for a store tender of a canceled sale.
fn store_given_back_tx(tx: &WriteTx<'_>, t: &Tender, collected: i64) -> Result<StoreGivenBack> {
    let info = t.store.as_ref().ok_or_else(|| Error::InvalidInput(format!("store tender {} has no store details", t.id)))?;
    let refunded: i64 =
        tx.row_cached("SELECT COALESCE(SUM(amount_minor), 0) FROM store_refunds WHERE tender_id = ?1", [t.id.0], |r| r.get(0))?;
    Ok(StoreGivenBack {
        tender_id: t.id,
        type_name: info.type_name.clone(),
        reference: info.reference.clone(),
        give_back_minor: info.offered_minor - refunded,
        change_collected_minor: collected,
    })
}

/// What undoing a card tender takes: an offline one is dropped before forwarding, an
/// authorization voided, a capture refunded (its open refund resumed, or a new refund
/// of what is left with one of the keys made before the transaction).
fn undo_card_tender_tx(tx: &WriteTx<'_>, t: &Tender, ps: PaymentState, keys: &mut Vec<String>, now_ms: i64) -> Result<Option<CancelAction>> {
    let pid = t.payment_id.expect("a card tender has a payment");
    let checkout_key = t.checkout_key.clone().unwrap_or_default();
    match ps {
        PaymentState::QueuedOffline => {
            transition_tx(tx, pid, ps, PaymentState::Canceled, "sale canceled before forwarding", now_ms)?;
            Ok(None)
        }
        PaymentState::Authorized => Ok(Some(CancelAction::Void { tender_id: t.id, checkout_key })),
        PaymentState::Captured | PaymentState::Refunding | PaymentState::PartiallyRefunded => {
            let r = match open_refund_tx(tx, pid)? {
                Some(r) => r,
                None => {
                    let reserved: i64 = tx.row_cached(
                        "SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE payment_id = ?1 AND state != 'failed'",
                        [pid.0],
                        |r| r.get(0),
                    )?;
                    let left = t.amount.amount_minor - reserved;
                    if left <= 0 {
                        return Ok(None);
                    }
                    let key = keys.pop().ok_or_else(|| Error::InvalidInput("the sale changed; cancel again".into()))?;
                    create_refund_tx(tx, &key, pid, left, Some("sale canceled"), None, now_ms)?
                }
            };
            Ok(Some(CancelAction::Refund { tender_id: t.id, refund_id: r.id, refund_key: r.idempotency_key, checkout_key }))
        }
        PaymentState::Refunded | PaymentState::Failed | PaymentState::Canceled => Ok(None),
        // Excluded above: a pending or forwarding tender refuses the cancel.
        PaymentState::Created | PaymentState::Authorizing | PaymentState::Capturing | PaymentState::OnReader => {
            unreachable!("sale {}: cancel with tender {} {ps}", t.cart_id, t.id)
        }
    }
}

/// `canceled` if every active card tender's payment is refunded in full or void.
fn complete_tx(tx: &WriteTx<'_>, cart_id: CartId, now_ms: i64) -> Result<SaleState> {
    let sale = sale_tx(tx, cart_id)?;
    let done = sale.tenders.iter().filter(|t| t.standing == TenderStanding::Active).all(|t| match t.payment_state {
        None => true,
        Some(ps) => match ps {
            PaymentState::Refunded | PaymentState::Failed | PaymentState::Canceled => true,
            PaymentState::Created
            | PaymentState::QueuedOffline
            | PaymentState::Authorizing
            | PaymentState::Authorized
            | PaymentState::Capturing
            | PaymentState::Captured
            | PaymentState::Refunding
            | PaymentState::PartiallyRefunded
            | PaymentState::OnReader => false,
        },
    });
    if !done {
        return Ok(SaleState::Canceling);
    }
    tx.exec_cached(
        "UPDATE sale_cancels SET state = 'canceled', completed_at_ms = ?2 WHERE cart_id = ?1 AND state = 'canceling'",
        params![cart_id.0, now_ms],
    )?;
    Ok(SaleState::Canceled)
}

fn open_refund_tx(tx: &WriteTx<'_>, payment_id: PaymentId) -> Result<Option<Refund>> {
    let id: Option<i64> = tx
        .row_cached(
            "SELECT id FROM refunds WHERE payment_id = ?1 AND state IN ('pending','in_flight') ORDER BY id LIMIT 1",
            [payment_id.0],
            |r| r.get(0),
        )
        .optional()?;
    id.map(|id| refund_by_id_tx(tx, RefundId(id))).transpose()
}

/// Cash already refunded out of a cash tender (positive).
pub(super) fn cash_refunded_tx(conn: &rusqlite::Connection, tender: TenderId) -> Result<i64> {
    Ok(conn.row_cached(
        "SELECT COALESCE(-SUM(amount_minor), 0) FROM cash_movements WHERE tender_id = ?1 AND kind = 'refund_out'",
        [tender.0],
        |r| r.get(0),
    )?)
}
