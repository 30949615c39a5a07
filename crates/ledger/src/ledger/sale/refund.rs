//! A refund of a split sale (record 0032): allocated to its tenders — card amounts back
//! to their own card first (each its own refund with its own key), then the store's own
//! tenders given back as themselves (record 0118), the rest in cash — all committed in
//! ONE transaction before anything is sent.

use crate::ledger::Sales;
use serde::{Deserialize, Serialize};

use super::cancel::cash_refunded_tx;
use super::cash::movement_tx;
use super::{sale_tx, Sale};
use crate::error::{Error, Result};
use crate::ledger::refunds::create_refund_tx;
use crate::ledger::rows::payment_by_id_tx;
use crate::ledger::{Cached, Ledger};
use crate::tender::*;
use paydesk_domain::TenderKind;
use crate::types::*;
use crate::write_tx::WriteTx;

/// What [`Sales::plan_refund`] committed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleRefundPlan {
    pub cart_id: CartId,
    /// Card refunds to drive, each with its own key.
    pub card_refunds: Vec<(TenderId, Refund)>,
    /// Cash paid out, per cash tender (already recorded in the drawer).
    pub cash_refunds: Vec<(TenderId, i64)>,
    pub cash_out_minor: i64,
    /// Given back through a store tender as itself (a voucher as a voucher; record 0118):
    /// no drawer money. Already recorded.
    #[serde(default)]
    pub store_refunds: Vec<(TenderId, i64)>,
    /// Card refunds on a predecessor's payment giving back the part a restored exchange's
    /// credit paid (record 0156), each with its own key; to drive as the others. Cash given
    /// back through that credit is in `cash_out_minor` (already recorded).
    #[serde(default)]
    pub restored_card_refunds: Vec<Refund>,
}

impl Sales<&mut Ledger> {
    /// Refunds `amount_minor` of a paid sale (everything refundable when `None`): card
    /// tenders in order, each up to what is left of its payment, then cash tenders.
    /// Refused while a refund of one of its cards is open (`RefundInProgress`), while a
    /// card tender waits to be forwarded, and above what is refundable
    /// ([`Error::SaleRefundExceeds`]). A sale not paid in full is canceled instead.
    /// A sale whose ryōshūsho (record 0112) is still with the customer is refused
    /// ([`Error::RyoshushoNotTakenBack`]): see [`Sales::plan_refund_with`].
    pub fn plan_refund(&mut self, cart_id: CartId, amount_minor: Option<i64>, reason: Option<&str>, now_ms: i64) -> Result<SaleRefundPlan> {
        self.plan_refund_with(cart_id, amount_minor, reason, false, now_ms)
    }

    /// [`Sales::plan_refund`], saying whether the customer handed the sale's ryōshūsho
    /// back: then it is marked taken back in the same transaction (record 0114), and can
    /// no longer be reprinted as if the money were still the store's.
    pub fn plan_refund_with(
        &mut self,
        cart_id: CartId,
        amount_minor: Option<i64>,
        reason: Option<&str>,
        ryoshusho_taken_back: bool,
        now_ms: i64,
    ) -> Result<SaleRefundPlan> {
        if let Some(a) = amount_minor {
            if a <= 0 {
                return Err(Error::InvalidAmount(format!("a refund of {a} must be greater than zero")));
            }
        }
        let mut keys = card_keys(self, cart_id)?;
        let tx = self.write_tx()?;
        let sale = sale_tx(&tx, cart_id)?;
        refundable_state(&sale)?;
        let ryoshusho = crate::ledger::ryoshusho::outstanding_tx(&tx, cart_id, ryoshusho_taken_back)?;
        let plan = allocate_refund_tx(&tx, &sale, amount_minor, &[], &mut keys, reason, now_ms)?.plan;
        if ryoshusho.is_some() {
            crate::ledger::ryoshusho::mark_taken_back_tx(&tx, cart_id, None, now_ms)?;
        }
        if let Some(r) = reason {
            audit_sale_refund_tx(&tx, &plan, r, now_ms)?;
        }
        tx.commit()?;
        Ok(plan)
    }
}

/// One fresh key per card tender of the sale, drawn before the write transaction (a key
/// comes from the ledger's key source, which the transaction borrows).
pub(in crate::ledger) fn card_keys(ledger: &mut Ledger, cart_id: CartId) -> Result<Vec<String>> {
    let cards = ledger.sales().by_cart(cart_id)?.tenders.iter().filter(|t| t.kind == TenderKind::Card).count();
    // A sale paid in part by an exchange credit gives that part back through the old
    // sale's tenders (record 0123): one key per card among them too.
    let credited: i64 = ledger.conn.row_cached(
        "SELECT count(*) FROM exchange_credits ec JOIN exchanges e ON e.id = ec.exchange_id JOIN tenders t ON t.id = ec.tender_id
         WHERE e.new_cart_id = ?1 AND t.kind = 'card'",
        [cart_id.0],
        |r| r.get(0),
    )?;
    // A restored exchange's credit gives its part back through the predecessor's tenders
    // (record 0156): one key per part (a cash part leaves its key unused).
    let restored: i64 = ledger.conn.row_cached(
        "SELECT count(*) FROM restored_exchange_credits c JOIN restored_exchanges x ON x.id = c.exchange_id WHERE x.new_cart_id = ?1",
        [cart_id.0],
        |r| r.get(0),
    )?;
    let n = cards + usize::try_from(credited + restored).map_err(|_| Error::Overflow)?;
    Ok((0..n).map(|_| ledger.new_key()).collect())
}

/// What [`allocate_refund_tx`] wrote: the plan, and the drawer movement of each cash
/// refund (same order as `plan.cash_refunds`), for a return to link to.
pub(in crate::ledger) struct Allocated {
    pub plan: SaleRefundPlan,
    pub cash_movements: Vec<i64>,
    /// The `store_refunds` row of each store refund (same order as `plan.store_refunds`).
    pub store_refunds: Vec<i64>,
    /// What went back through a restored exchange's credit (record 0156), in order.
    pub restored: Vec<crate::ledger::restored_returns::GiveBack>,
}

/// THE allocation of money given back on a paid sale (record 0032), shared by a refund
/// by amount and a return by item (record 0114): card tenders first, each up to what its
/// payment has left (each its own refund row and key from `keys`), then store tenders,
/// each up to what it paid and given back as itself (record 0118), then cash out of the
/// drawer of the open shift, then through an exchange credit back to the old sale's
/// tenders (record 0123), or, for a restored exchange's credit, back to the predecessor's
/// tenders as a restored return gives back (record 0156). Inside the caller's transaction; `amount_minor` `None` is
/// everything refundable; `held` is what an exchange written in the same transaction
/// takes out of the sale's own tenders.
pub(in crate::ledger) fn allocate_refund_tx(
    tx: &WriteTx<'_>,
    sale: &Sale,
    amount_minor: Option<i64>,
    held: &[crate::ledger::exchange::CreditPart],
    keys: &mut Vec<String>,
    reason: Option<&str>,
    now_ms: i64,
) -> Result<Allocated> {
    let cart_id = sale.cart.id;
    refundable_state(sale)?;
    let mut slots = refund_slots_tx(tx, sale)?;
    hold_out(&mut slots, held, cart_id);
    let own: i64 = slots.iter().map(|s| s.left).sum();
    let restored = restored_credit_if_asked_tx(tx, sale, amount_minor, own)?;
    let refundable = own + restored.as_ref().map_or(0, |r| r.left());
    let mut rest = amount_minor.unwrap_or(refundable);
    within_refundable(sale, rest, refundable, restored.as_ref())?;
    let mut plan = SaleRefundPlan::nothing(cart_id);
    let mut cash_movements = Vec::new();
    let mut store_refunds = Vec::new();
    for Slot { tender: t, left, credit } in slots {
        let take = rest.min(left);
        if take <= 0 {
            continue;
        }
        rest -= take;
        // A credit slot's tender is the OLD sale's (record 0123): its money goes back
        // where it came from, and the give-back is linked to the credit.
        let link = match t.kind {
            TenderKind::Card => {
                let key = keys.pop().ok_or_else(|| Error::InvalidInput("the sale changed; refund again".into()))?;
                let pid = t.payment_id.expect("a card tender has a payment");
                let refund = create_refund_tx(tx, &key, pid, take, reason, None, now_ms)?;
                let id = refund.id.0;
                plan.card_refunds.push((t.id, refund));
                CreditLink::Refund(id)
            }
            TenderKind::Cash => {
                // Cash leaves a drawer: the drawer of an open shift, counted at its close.
                crate::ledger::shift::admit_money_tx(tx)?;
                let written = movement_tx(tx, CashMovementKind::RefundOut, -take, t.amount.currency, t.cart_id, Some(t.id), now_ms)?;
                assert!(written, "a refund_out movement is never a duplicate");
                let id = tx.last_insert_rowid();
                cash_movements.push(id);
                plan.cash_refunds.push((t.id, take));
                plan.cash_out_minor += take;
                CreditLink::Movement(id)
            }
            TenderKind::Store => {
                let id = store_refund_tx(tx, &t, take, now_ms)?;
                store_refunds.push(id);
                plan.store_refunds.push((t.id, take));
                CreditLink::StoreRefund(id)
            }
        };
        if let Some(credit) = credit {
            crate::ledger::exchange::credit_returned_tx(tx, credit, take, link)?;
        }
    }
    // Last, the part a restored exchange's credit paid: back through the predecessor's
    // tenders it came out of (record 0156), linked to the credit.
    let mut restored_given = Vec::new();
    if let (Some(r), true) = (&restored, rest > 0) {
        restored_given = r.give_back_tx(tx, rest, keys, reason, now_ms)?;
        rest -= plan.add_restored(&restored_given);
    }
    assert_eq!(rest, 0, "sale {cart_id}: refund allocation left {rest}");
    Ok(Allocated { plan, cash_movements, store_refunds, restored: restored_given })
}

/// A restored exchange's credit (record 0156) is rebuilt from the predecessor's facts only
/// when its part is asked for: what the sale's own tenders (`own`) can give back never waits
/// on it.
fn restored_credit_if_asked_tx(tx: &WriteTx<'_>, sale: &Sale, amount_minor: Option<i64>, own: i64) -> Result<Option<crate::ledger::restored_returns::RestoredCredit>> {
    match &sale.exchange_credit {
        Some(c) if c.restored_from.is_some() && amount_minor.is_none_or(|a| a > own) => crate::ledger::restored_returns::restored_credit_tx(tx, c),
        _ => Ok(None),
    }
}

/// What an exchange being written in this transaction credits out of a tender (record
/// 0123) is no longer there to give back; a part carried on from the sale's own credit
/// (record 0155) is out of that credit's slot.
fn hold_out(slots: &mut [Slot], held: &[crate::ledger::exchange::CreditPart], cart_id: CartId) {
    for (tender, amount, from) in held {
        let slot = slots.iter_mut().find(|s| s.credit == *from && s.tender.id == *tender).expect("a held tender is one of the sale's slots");
        slot.left -= amount;
        assert!(slot.left >= 0, "sale {cart_id}: tender {tender} held beyond what it has left");
    }
}

impl SaleRefundPlan {
    /// A plan that gives nothing back yet.
    fn nothing(cart_id: CartId) -> SaleRefundPlan {
        SaleRefundPlan {
            cart_id,
            card_refunds: Vec::new(),
            cash_refunds: Vec::new(),
            cash_out_minor: 0,
            store_refunds: Vec::new(),
            restored_card_refunds: Vec::new(),
        }
    }

    /// Adds what went back through a restored exchange's credit (record 0156): a card part
    /// is a refund to drive, a cash part left the drawer. Answers their sum.
    fn add_restored(&mut self, given: &[crate::ledger::restored_returns::GiveBack]) -> i64 {
        let mut sum = 0;
        for g in given {
            sum += g.amount_minor;
            match &g.refund {
                Some(refund) => self.restored_card_refunds.push(refund.clone()),
                None => self.cash_out_minor += g.amount_minor,
            }
        }
        sum
    }
}

/// `amount_minor` is more than nothing and at most what the sale's slots (its restored
/// credit's included, record 0156) have left. A restored credit that holds more than the
/// predecessor's tenders can give back now is said as such, never made up elsewhere.
fn within_refundable(sale: &Sale, amount_minor: i64, refundable: i64, restored: Option<&crate::ledger::restored_returns::RestoredCredit>) -> Result<()> {
    let cart_id = sale.cart.id.0;
    if amount_minor > refundable {
        if let Some(r) = restored.filter(|r| r.held() > r.left()) {
            let (register, sale) = r.register();
            return Err(Error::RestoredCreditNotGivenBack { cart_id, register: register.to_string(), sale });
        }
    }
    if amount_minor > refundable || amount_minor <= 0 {
        return Err(Error::SaleRefundExceeds { cart_id, requested_minor: amount_minor, refundable_minor: refundable });
    }
    Ok(())
}

/// Only a sale paid in full is refunded; one still open or owing is canceled instead.
pub(in crate::ledger) fn refundable_state(sale: &Sale) -> Result<()> {
    let cart_id = sale.cart.id;
    match sale.state {
        SaleState::Paid => Ok(()),
        SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance => {
            Err(Error::SaleNotPaid { cart_id: cart_id.0, state: sale.state.as_str() })
        }
        SaleState::Canceling | SaleState::Canceled => Err(Error::SaleCanceled { cart_id: cart_id.0 }),
    }
}

/// One tender money can go back through, and how much it has left.
pub(in crate::ledger) struct Slot {
    pub tender: Tender,
    pub left: i64,
    /// Set when `tender` is the OLD sale's, reached through this sale's exchange credit
    /// (`exchange_credits.id`, record 0123).
    pub credit: Option<i64>,
}

/// How a give-back through an exchange credit was carried.
pub(in crate::ledger) enum CreditLink {
    Refund(i64),
    Movement(i64),
    StoreRefund(i64),
}

/// Where money goes back, in allocation order: the sale's own tenders (cards, then
/// store tenders, then cash), then the old sale's tenders its exchange credit came out
/// of (record 0123). Refused while a card tender waits to be forwarded or one of its
/// refunds is open.
pub(in crate::ledger) fn refund_slots_tx(tx: &WriteTx<'_>, sale: &Sale) -> Result<Vec<Slot>> {
    let mut slots = own_slots_tx(tx, sale)?;
    for (credit, tender, left) in crate::ledger::exchange::credit_slots_tx(tx, sale)? {
        if tender.kind == TenderKind::Card {
            refusal_of_card_tx(tx, &tender)?;
        }
        slots.push(Slot { tender, left, credit: Some(credit) });
    }
    Ok(slots)
}

/// Refused while the card tender waits to be forwarded or one of its refunds is open.
fn refusal_of_card_tx(tx: &rusqlite::Connection, t: &Tender) -> Result<()> {
    if t.state == TenderState::Offline {
        return Err(Error::CardTenderNotForwarded { cart_id: t.cart_id.0, tender_seq: t.seq });
    }
    let pid = t.payment_id.expect("a card tender has a payment");
    let open: i64 =
        tx.row_cached("SELECT count(*) FROM refunds WHERE payment_id = ?1 AND state IN ('pending','in_flight')", [pid.0], |r| r.get(0))?;
    if open > 0 {
        return Err(Error::RefundInProgress { payment_id: pid.0, refund_key: t.checkout_key.clone().unwrap_or_default() });
    }
    Ok(())
}

/// The sale's own tenders with what each has left: what it paid, less what was given
/// back through it, less what exchanges credited out of it (given back later or not).
pub(in crate::ledger) fn own_slots_tx(tx: &rusqlite::Connection, sale: &Sale) -> Result<Vec<Slot>> {
    let mut slots: Vec<Slot> = Vec::new();
    let mut push = |t: &Tender, left: i64| -> Result<()> {
        let left = left - crate::ledger::exchange::credited_out_tx(tx, t.id)?;
        assert!(left >= 0, "tender {} of sale {}: gave back more than it paid ({left} left)", t.id, t.cart_id);
        slots.push(Slot { tender: t.clone(), left, credit: None });
        Ok(())
    };
    for t in sale.tenders.iter().filter(|t| t.state.is_settled() && t.kind == TenderKind::Card) {
        refusal_of_card_tx(tx, t)?;
        let pid = t.payment_id.expect("a card tender has a payment");
        let reserved: i64 = tx.row_cached(
            "SELECT COALESCE(SUM(amount_minor), 0) FROM refunds WHERE payment_id = ?1 AND state != 'failed'",
            [pid.0],
            |r| r.get(0),
        )?;
        push(t, payment_by_id_tx(tx, pid)?.amount.amount_minor - reserved)?;
    }
    for t in sale.tenders.iter().filter(|t| t.state.is_settled() && t.kind == TenderKind::Store) {
        push(t, t.amount.amount_minor - store_refunded_tx(tx, t.id)?)?;
    }
    for t in sale.tenders.iter().filter(|t| t.state.is_settled() && t.kind == TenderKind::Cash) {
        push(t, t.amount.amount_minor - cash_refunded_tx(tx, t.id)?)?;
    }
    Ok(slots)
}

/// What was given back through a store tender already (positive).
fn store_refunded_tx(tx: &rusqlite::Connection, tender: TenderId) -> Result<i64> {
    Ok(tx.row_cached("SELECT COALESCE(SUM(amount_minor), 0) FROM store_refunds WHERE tender_id = ?1", [tender.0], |r| r.get(0))?)
}

/// A store tender given back as itself (a voucher as a voucher): a `store_refunds` row in
/// the open shift, no drawer movement. Answers its id.
fn store_refund_tx(tx: &WriteTx<'_>, t: &Tender, amount_minor: i64, now_ms: i64) -> Result<i64> {
    tx.exec_cached(
        "INSERT INTO store_refunds (tender_id, cart_id, amount_minor, at_ms, shift_id, staff_id)
         VALUES (?1, ?2, ?3, ?4, (SELECT id FROM shifts WHERE closed_at_ms IS NULL),
                 (SELECT staff_id FROM register_session WHERE id = 1))",
        rusqlite::params![t.id.0, t.cart_id.0, amount_minor, now_ms],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The audit row of a sale refund given a reason: what was refunded, and why.
fn audit_sale_refund_tx(tx: &WriteTx<'_>, plan: &SaleRefundPlan, reason: &str, now_ms: i64) -> Result<()> {
    crate::ledger::audit::append_audit(
        tx,
        &crate::ledger::AuditInput {
            reason: (!reason.is_empty()).then(|| reason.to_string()),
            ..crate::ledger::AuditInput::new(
                "sale_refund",
                &format!("sale {}: {} card refund(s), {} in cash", plan.cart_id, plan.card_refunds.len(), plan.cash_out_minor),
            )
        },
        now_ms,
    )?;
    Ok(())
}
