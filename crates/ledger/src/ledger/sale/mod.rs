//! Sales paid by tenders (record 0028): what they share — reading a sale (cart, tenders,
//! totals, derived state), keeping the cart's state in step with it inside every write
//! that can change it, and superseding a pending card tender on an override. One file
//! per operation: `cash.rs` (cash tender, rounding, drawer), `card.rs` (card tender),
//! `cancel.rs` (cancel a sale), `refund.rs` (a sale's refund allocated to its tenders),
//! `report.rs` (End of day), `store.rs` (the store's own tenders, record 0118).

mod cancel;
pub(in crate::ledger) mod card;
mod cash;
mod refund;
mod report;
mod store;

pub use cancel::{CancelAction, CancelPlan, StoreGivenBack};
pub use card::CardTender;
pub use cash::CashTender;
pub use refund::SaleRefundPlan;
pub(in crate::ledger) use refund::{allocate_refund_tx, card_keys, own_slots_tx, refundable_state, CreditLink};
pub use report::{TenderDay, TenderKindTotal, UnpaidBalance};
pub use store::StoreTender;

use std::ops::Deref;
use crate::ledger::Sales;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::carts::load_cart;
use super::timeline::append_timeline_tx;
use super::{collect, Cached, Ledger};
use crate::error::{Error, Result};
use paydesk_domain::money::Money;
use paydesk_domain::state::PaymentState;
use crate::tender::*;
use paydesk_domain::TenderKind;
use crate::types::*;
use crate::write_tx::WriteTx;

/// A sale as the cashier sees it: the cart, its tenders in order, its money and state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sale {
    pub cart: Cart,
    pub state: SaleState,
    pub totals: SaleTotals,
    pub tenders: Vec<Tender>,
    /// The cash rounding increment of the sale's currency (1 = none).
    pub cash_rounding_minor: i64,
    /// What cash must hand over to pay what is open (rounded).
    pub cash_due_minor: i64,
    pub cancel: Option<SaleCancel>,
    /// The credit of an exchange paying part of this sale (record 0123): settled like a
    /// tender, but no money of this sale's — it is the old sale's, still where it was paid.
    #[serde(default)]
    pub exchange_credit: Option<crate::ledger::exchange::ExchangeCredit>,
}

impl Sale {
    /// The card tender whose outcome is unknown, if any.
    pub fn unknown_tender(&self) -> Option<&Tender> {
        self.tenders.iter().find(|t| t.state.is_unknown())
    }
}

/// A sale's cancel row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaleCancel {
    pub state: CancelState,
    pub reason: String,
    pub created_at_ms: i64,
    pub completed_at_ms: Option<i64>,
}

/// An override reason: 3-200 characters, as the other overrides (record 0005) and a
/// paid in / out's (one rule, `drawer::checked_reason`).
pub(crate) fn check_reason(reason: &str) -> Result<&str> {
    crate::drawer::checked_reason(reason)
        .ok_or_else(|| Error::InvalidInput("a reason needs 3 to 200 printable characters".into()))
}

impl<L: Deref<Target = Ledger>> Sales<L> {
    /// The sale of a cart: tenders, totals, state (record 0029).
    pub fn by_cart(&self, cart_id: CartId) -> Result<Sale> {
        sale_tx(&self.conn, cart_id)
    }

    /// The tender that holds a payment, if it is a card tender.
    pub fn tender_of_payment(&self, payment_id: PaymentId) -> Result<Option<Tender>> {
        let cart: Option<i64> = self
            .conn
            .row_cached("SELECT cart_id FROM tenders WHERE payment_id = ?1", [payment_id.0], |r| r.get(0))
            .optional()?;
        match cart {
            None => Ok(None),
            Some(c) => Ok(load_tenders(&self.conn, CartId(c))?.into_iter().find(|t| t.payment_id == Some(payment_id))),
        }
    }
}

const TENDER_SQL: &str = "SELECT t.id, t.cart_id, t.seq, t.kind, t.amount_minor, t.currency, t.standing, t.payment_id,
        p.idempotency_key, p.state, p.offline, t.cash_tendered_minor, t.change_minor, t.rounding_minor,
        t.created_at_ms, t.superseded_reason, t.tender_type_id, tt.name, tt.kind, tt.counts_for_stamp, t.reference,
        t.offered_minor, t.forfeited_minor
     FROM tenders t LEFT JOIN payments p ON p.id = t.payment_id LEFT JOIN tender_types tt ON tt.id = t.tender_type_id
     WHERE t.cart_id = ?1 ORDER BY t.seq";

pub(in crate::ledger) fn load_tenders(conn: &Connection, cart_id: CartId) -> Result<Vec<Tender>> {
    collect(conn, TENDER_SQL, params![cart_id.0], |r| {
        let kind: String = r.get(3)?;
        let currency: String = r.get(5)?;
        let standing: String = r.get(6)?;
        let payment_state: Option<String> = r.get(9)?;
        let offline: Option<i64> = r.get(10)?;
        let id = TenderId(r.get(0)?);
        let cart_id = CartId(r.get(1)?);
        let seq = r.get(2)?;
        let amount_minor: i64 = r.get(4)?;
        let payment_id = r.get::<_, Option<i64>>(7)?.map(PaymentId);
        let checkout_key = r.get(8)?;
        let (cash_tendered_minor, change_minor, rounding_minor) = (r.get(11)?, r.get(12)?, r.get(13)?);
        let created_at_ms = r.get(14)?;
        let superseded_reason = r.get(15)?;
        let store_row = store_row(r)?;
        Ok((|| {
            let kind: TenderKind = kind.parse()?;
            let standing: TenderStanding = standing.parse()?;
            let payment_state = payment_state.map(|s| s.parse::<PaymentState>()).transpose()?;
            let state = match (kind, payment_state) {
                // A store tender is settled the moment it is recorded, like cash.
                (TenderKind::Cash | TenderKind::Store, _) => TenderState::of_cash(standing),
                (TenderKind::Card, Some(ps)) => TenderState::of_card(standing, ps, offline == Some(1)),
                (TenderKind::Card, None) => {
                    return Err(Error::UnknownValue { what: "card tender without payment", value: id.to_string() })
                }
            };
            Ok(Tender {
                id,
                cart_id,
                seq,
                kind,
                amount: Money::new(amount_minor, currency.parse()?),
                standing,
                state,
                payment_id,
                checkout_key,
                payment_state,
                offline: offline == Some(1),
                cash_tendered_minor,
                change_minor,
                rounding_minor,
                created_at_ms,
                superseded_reason,
                store: store_row.map(StoreRow::into_info).transpose()?.map(Box::new),
            })
        })())
    })
}

/// The store tender columns of a tender row (all NULL for cash and card).
struct StoreRow {
    type_id: i64,
    name: String,
    kind: String,
    counts_for_stamp: i64,
    reference: Option<String>,
    offered: i64,
    forfeited: i64,
}

impl StoreRow {
    fn into_info(self) -> Result<StoreTenderInfo> {
        Ok(StoreTenderInfo {
            tender_type_id: paydesk_domain::TenderTypeId(self.type_id),
            type_name: self.name,
            type_kind: self.kind.parse()?,
            counts_for_stamp: self.counts_for_stamp == 1,
            reference: self.reference,
            offered_minor: self.offered,
            forfeited_minor: self.forfeited,
        })
    }
}

fn store_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<StoreRow>> {
    let Some(type_id) = r.get::<_, Option<i64>>(16)? else { return Ok(None) };
    Ok(Some(StoreRow {
        type_id,
        name: r.get(17)?,
        kind: r.get(18)?,
        counts_for_stamp: r.get(19)?,
        reference: r.get(20)?,
        offered: r.get(21)?,
        forfeited: r.get(22)?,
    }))
}

pub(super) fn tender_by_id(conn: &Connection, cart_id: CartId, id: TenderId) -> Result<Tender> {
    load_tenders(conn, cart_id)?
        .into_iter()
        .find(|t| t.id == id)
        .ok_or_else(|| Error::UnknownValue { what: "tender", value: id.to_string() })
}

pub(super) fn cash_rounding_tx(conn: &Connection, currency: paydesk_domain::money::Currency) -> Result<i64> {
    Ok(conn
        .row_cached("SELECT increment_minor FROM cash_rounding WHERE currency = ?1", [currency.code()], |r| r.get(0))
        .optional()?
        .unwrap_or(1))
}

pub(in crate::ledger) fn sale_tx(conn: &Connection, cart_id: CartId) -> Result<Sale> {
    let cart = load_cart(conn, cart_id)?;
    let tenders = load_tenders(conn, cart_id)?;
    let exchange_credit = crate::ledger::exchange::credit_of_tx(conn, cart_id)?;
    let credit = exchange_credit.as_ref().map(|c| (TenderState::of_cash(TenderStanding::Active), c.amount_minor));
    let totals =
        SaleTotals::of(cart.total.amount_minor, tenders.iter().map(|t| (t.state, t.amount.amount_minor)).chain(credit))?;
    let cancel = conn
        .row_cached(
            "SELECT state, reason, created_at_ms, completed_at_ms FROM sale_cancels WHERE cart_id = ?1",
            [cart_id.0],
            |r| Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?
        .map(|(s, reason, created_at_ms, completed_at_ms)| {
            Ok::<_, Error>(SaleCancel { state: s.parse()?, reason, created_at_ms, completed_at_ms })
        })
        .transpose()?;
    // Only a card accepted offline can have left the customer with the goods unpaid.
    let declined_offline =
        tenders.iter().any(|t| t.offline && t.state == TenderState::Void && t.standing == TenderStanding::Active);
    let state = match cancel.as_ref().map(|c| c.state) {
        Some(CancelState::Canceled) => SaleState::Canceled,
        Some(CancelState::Canceling) => SaleState::Canceling,
        None if totals.settled_minor > 0 && totals.settled_minor == totals.total_minor => SaleState::Paid,
        None if declined_offline => SaleState::UnpaidBalance,
        None if totals.settled_minor > 0 || totals.outstanding_minor > 0 => SaleState::PartiallyPaid,
        None => SaleState::Open,
    };
    let cash_rounding_minor = cash_rounding_tx(conn, cart.currency)?;
    let cash_due_minor = round_cash(totals.open_minor(), cash_rounding_minor);
    Ok(Sale { cart, state, totals, tenders, cash_rounding_minor, cash_due_minor, cancel, exchange_credit })
}

/// Brings the cart's state in line with its sale, inside the write that changed the
/// sale (a tender, a payment's move, a cancel): `paid` exactly when settled tenders add
/// up to the total, `open` (editable) only when nothing is settled or reserved, else
/// `locked`. Asserts the invariant every write keeps: settled never exceeds the total.
pub(super) fn refresh_cart_tx(tx: &WriteTx<'_>, cart_id: CartId, now_ms: i64) -> Result<Sale> {
    let mut sale = sale_tx(tx, cart_id)?;
    assert!(
        sale.totals.settled_minor <= sale.totals.total_minor,
        "sale {cart_id}: settled {} exceeds the total {}",
        sale.totals.settled_minor,
        sale.totals.total_minor
    );
    let want = match sale.state {
        SaleState::Paid => CartState::Paid,
        SaleState::Open => CartState::Open,
        SaleState::PartiallyPaid | SaleState::UnpaidBalance | SaleState::Canceling | SaleState::Canceled => {
            CartState::Locked
        }
    };
    if want == CartState::Open && sale.cart.tax_locked {
        crate::ledger::cart_tax::unlock_tax_tx(tx, cart_id)?;
    }
    if want != sale.cart.state {
        tx.exec_cached(
            "UPDATE carts SET state = ?2, updated_at_ms = ?3 WHERE id = ?1",
            params![cart_id.0, want.as_str(), now_ms],
        )?;
        if want == CartState::Open && sale.cart.tax_locked {
            // Unlocked: the cart's tax and total are computed afresh; read them back.
            return sale_tx(tx, cart_id);
        }
        // Only the cart's state and stamp changed, which nothing in the sale is derived
        // from: the sale read above, so updated, is what a second read would return.
        sale.cart.state = want;
        sale.cart.updated_at_ms = now_ms;
        return Ok(sale);
    }
    if want == CartState::Open && sale.cart.tax_locked {
        return sale_tx(tx, cart_id);
    }
    Ok(sale)
}

/// Refuses a new tender unless the sale takes one; with `override_reason`, a pending
/// card tender is superseded (audited, noted on its payment's timeline) instead of
/// blocking. Returns the sale as it stands after that.
pub(super) fn admit_tender_tx(tx: &WriteTx<'_>, cart_id: CartId, override_reason: Option<&str>, now_ms: i64) -> Result<Sale> {
    let sale = sale_tx(tx, cart_id)?;
    match sale.state {
        SaleState::Paid => return Err(Error::SaleComplete { cart_id: cart_id.0 }),
        SaleState::Canceling | SaleState::Canceled => return Err(Error::SaleCanceled { cart_id: cart_id.0 }),
        SaleState::Open | SaleState::PartiallyPaid | SaleState::UnpaidBalance => {}
    }
    if sale.cart.lines.is_empty() {
        return Err(Error::EmptyCart(cart_id.0));
    }
    // A parked or discarded cart is paid only once recalled (record 0128).
    crate::ledger::held::refuse_held(&sale.cart)?;
    crate::ledger::shift::admit_money_tx(tx)?;
    let Some(unknown) = sale.unknown_tender() else { return Ok(sale) };
    let Some(reason) = override_reason else {
        return Err(Error::TenderUnknownOutstanding {
            cart_id: cart_id.0,
            checkout_key: unknown.checkout_key.clone().unwrap_or_default(),
        });
    };
    let reason = check_reason(reason)?;
    for t in sale.tenders.iter().filter(|t| t.state.is_unknown()) {
        supersede_tx(tx, t, reason, now_ms, true)?;
    }
    sale_tx(tx, cart_id)
}

/// Marks a pending card tender superseded (record 0028): it stops counting; its
/// payment is left to recovery, so a charge that turns up stays visible. `record`
/// writes the audit row and the timeline note (the checkout override writes its own).
pub(super) fn supersede_tx(tx: &WriteTx<'_>, t: &Tender, reason: &str, now_ms: i64, record: bool) -> Result<()> {
    tx.exec_cached(
        "UPDATE tenders SET standing = 'superseded', superseded_reason = ?2, superseded_at_ms = ?3
         WHERE id = ?1 AND standing = 'active'",
        params![t.id.0, reason, now_ms],
    )?;
    if !record {
        return Ok(());
    }
    let key = t.checkout_key.clone().unwrap_or_default();
    crate::ledger::audit::append_audit(
        tx,
        &crate::ledger::AuditInput {
            reason: Some(reason.to_string()),
            ..crate::ledger::AuditInput::new(
                "tender_override",
                &format!("sale {}: tender {} ({key}) with an unknown outcome superseded by a new tender", t.cart_id, t.seq),
            )
        },
        now_ms,
    )?;
    if let Some(pid) = t.payment_id {
        append_timeline_tx(
            tx,
            pid,
            &TimelineInput {
                kind: Some(TimelineKind::Note),
                detail: format!("tender superseded on cashier override: {reason}; if it was charged, it is owed back"),
                ..Default::default()
            },
            now_ms,
        )?;
    }
    Ok(())
}

/// How a new tender is paid: a card tender has its payment at the PSP, a cash tender
/// its count at the drawer, a store tender its type and slip (record 0118) — one value
/// says which kind it is.
#[derive(Clone, Copy)]
pub(super) enum PaidBy<'a> {
    Card(PaymentId),
    Cash(&'a CashSplit),
    Store { type_id: paydesk_domain::TenderTypeId, split: &'a paydesk_domain::tender_type::StoreSplit, reference: Option<&'a str> },
}

/// Inserts a tender row with the sale's next `seq`.
pub(super) fn insert_tender_tx(tx: &WriteTx<'_>, cart_id: CartId, amount: Money, paid_by: PaidBy<'_>, now_ms: i64) -> Result<TenderId> {
    assert!(amount.amount_minor > 0, "tender of {amount}");
    let (kind, payment_id, cash, store) = match paid_by {
        PaidBy::Card(pid) => (TenderKind::Card, Some(pid), None, None),
        PaidBy::Cash(split) => (TenderKind::Cash, None, Some(split), None),
        PaidBy::Store { type_id, split, reference } => (TenderKind::Store, None, None, Some((type_id, split, reference))),
    };
    crate::ledger::cart_tax::lock_tax_tx(tx, cart_id)?;
    let seq: i64 =
        tx.row_cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM tenders WHERE cart_id = ?1", [cart_id.0], |r| r.get(0))?;
    tx.exec_cached(
        "INSERT INTO tenders (cart_id, seq, kind, amount_minor, currency, payment_id, cash_tendered_minor,
             change_minor, rounding_minor, created_at_ms, shift_id, staff_id, tender_type_id, reference,
             offered_minor, forfeited_minor)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, (SELECT id FROM shifts WHERE closed_at_ms IS NULL),
                 (SELECT staff_id FROM register_session WHERE id = 1), ?11, ?12, ?13, ?14)",
        params![
            cart_id.0,
            seq,
            kind.as_str(),
            amount.amount_minor,
            amount.currency.code(),
            payment_id.map(|p| p.0),
            cash.map(|c| c.tendered_minor),
            cash.map(|c| c.change_minor).or(store.map(|(_, s, _)| s.change_minor)),
            cash.map(|c| c.rounding_minor),
            now_ms,
            store.map(|(t, _, _)| t.0),
            store.and_then(|(_, _, r)| r),
            store.map(|(_, s, _)| s.offered_minor),
            store.map(|(_, s, _)| s.forfeited_minor),
        ],
    )?;
    let id = TenderId(tx.last_insert_rowid());
    if let Some(staff_id) = crate::ledger::session::operator(tx)? {
        // Who took the money, in the chain (record 0067). A register without staff
        // names nobody and writes no row per tender.
        let after = serde_json::json!({ "cart": cart_id.0, "kind": kind.as_str(), "amount_minor": amount.amount_minor, "currency": amount.currency.code() });
        crate::ledger::audit::append_audit(
            tx,
            &crate::ledger::audit::AuditInput {
                actor_id: Some(staff_id),
                after: Some(after.to_string()),
                ..crate::ledger::audit::AuditInput::new("tender", &format!("tender:{}", id.0))
            },
            now_ms,
        )?;
    }
    Ok(id)
}
