//! The audit of exchanges (issue #29, records 0123 and 0124), after the run. It reads the
//! ledger's tables directly (`exchanges`, `exchange_credits`, `exchange_credit_returns`,
//! `refunds`, `cash_movements`, `store_refunds`), not the ledger's own sums:
//!
//! - a credit never exceeds the new sale's total nor the worth of the return that made
//!   it, and it is exactly what its old tenders credited;
//! - the new sale's settled is its settled tenders plus the credit;
//! - per old tender: what it gave back (card refunds not failed, cash out of the drawer,
//!   store refunds: its own and its credits' give-backs alike) plus what its credits
//!   still hold never exceeds what it paid (a credit carried on to a later exchange's,
//!   record 0155, is held by the later one: counted once);
//! - every exchange the register answered is in the ledger with the credit told, and
//!   every exchange in the ledger was answered or made by a call that crashed.
//!
//! The drawer's share of a credit's cash give-back belongs to the new sale (whose return
//! told it), not to the old sale whose cash tender it left through: [`Book::carried`]
//! moves it for `tenders.rs`.

use super::Audit;
use crate::Sim;
use paydesk_ledger::{CartId, Ledger};
use std::collections::HashMap;

/// One exchange as the ledger has it.
#[derive(Debug)]
struct Row {
    id: i64,
    old_cart: i64,
    new_cart: i64,
    credit: i64,
    /// The worth of the return that made the credit.
    return_total: i64,
    /// The sum of its `exchange_credits` rows.
    credited: i64,
}

/// One old tender a credit came out of, and where its money went.
#[derive(Debug)]
struct TenderRow {
    id: i64,
    cart: i64,
    paid: i64,
    active: bool,
    /// Card refunds not failed, cash out of the drawer, store refunds: all it gave back.
    gave: i64,
    /// What its credits took (a ¥ carried on from one credit to a later one, record 0155,
    /// once), and what of that was given back since.
    credited: i64,
    credit_returned: i64,
}

/// The exchanges' rows, read once for the whole audit.
#[derive(Debug, Default)]
pub(super) struct Book {
    rows: Vec<Row>,
    tenders: Vec<TenderRow>,
    /// Credit give-backs in cash: (old tender, new cart, amount out of the drawer).
    carried_cash: Vec<(i64, i64, i64)>,
    /// Credits: (new cart, old tender, amount).
    credits: Vec<(i64, i64, i64)>,
}

const ROWS: &str = "SELECT e.id, e.old_cart_id, e.new_cart_id, e.credit_minor, r.total_minor,
        (SELECT COALESCE(SUM(amount_minor), 0) FROM exchange_credits WHERE exchange_id = e.id)
    FROM exchanges e JOIN returns r ON r.id = e.return_id ORDER BY e.id";

const TENDERS: &str = "SELECT t.id, t.cart_id, t.amount_minor, t.standing = 'active',
        (SELECT COALESCE(SUM(f.amount_minor), 0) FROM refunds f WHERE f.payment_id = t.payment_id AND f.state != 'failed')
      + (SELECT COALESCE(-SUM(m.amount_minor), 0) FROM cash_movements m WHERE m.tender_id = t.id AND m.kind = 'refund_out')
      + (SELECT COALESCE(SUM(s.amount_minor), 0) FROM store_refunds s WHERE s.tender_id = t.id),
        (SELECT COALESCE(SUM(ec.amount_minor), 0) FROM exchange_credits ec WHERE ec.tender_id = t.id)
      - (SELECT COALESCE(SUM(k.amount_minor), 0) FROM exchange_credit_carries k JOIN exchange_credits ec ON ec.id = k.from_credit
           WHERE ec.tender_id = t.id),
        (SELECT COALESCE(SUM(x.amount_minor), 0) FROM exchange_credit_returns x JOIN exchange_credits ec ON ec.id = x.credit_id
           LEFT JOIN refunds f ON f.id = x.refund_id WHERE ec.tender_id = t.id AND (x.refund_id IS NULL OR f.state != 'failed'))
    FROM tenders t WHERE t.id IN (SELECT tender_id FROM exchange_credits) ORDER BY t.id";

const CARRIED_CASH: &str = "SELECT ec.tender_id, e.new_cart_id, -m.amount_minor
    FROM exchange_credit_returns x JOIN exchange_credits ec ON ec.id = x.credit_id
    JOIN exchanges e ON e.id = ec.exchange_id JOIN cash_movements m ON m.id = x.movement_id";

const CREDITS: &str = "SELECT e.new_cart_id, ec.tender_id, ec.amount_minor FROM exchange_credits ec JOIN exchanges e ON e.id = ec.exchange_id";

impl Book {
    pub(super) fn read(l: &Ledger) -> rusqlite::Result<Book> {
        let c = l.connection();
        let mut st = c.prepare(ROWS)?;
        let rows = st
            .query_map([], |r| {
                Ok(Row { id: r.get(0)?, old_cart: r.get(1)?, new_cart: r.get(2)?, credit: r.get(3)?, return_total: r.get(4)?, credited: r.get(5)? })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut st = c.prepare(TENDERS)?;
        let tenders = st
            .query_map([], |r| {
                Ok(TenderRow { id: r.get(0)?, cart: r.get(1)?, paid: r.get(2)?, active: r.get(3)?, gave: r.get(4)?, credited: r.get(5)?, credit_returned: r.get(6)? })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let triple = |sql: &str| -> rusqlite::Result<Vec<(i64, i64, i64)>> {
            let mut st = c.prepare(sql)?;
            let v = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect();
            v
        };
        Ok(Book { rows, tenders, carried_cash: triple(CARRIED_CASH)?, credits: triple(CREDITS)? })
    }

    /// The cash the drawer paid out for `cart` that `cart`'s own answers told: plus the
    /// credit give-backs of `cart` as a new sale, less those that left through `cart`'s
    /// own cash tenders for another (new) sale.
    pub(super) fn carried(&self, cart: CartId, own_tenders: &[i64]) -> i64 {
        let told_here: i64 = self.carried_cash.iter().filter(|(_, new, _)| *new == cart.0).map(|(_, _, a)| a).sum();
        let told_elsewhere: i64 = self.carried_cash.iter().filter(|(t, _, _)| own_tenders.contains(t)).map(|(_, _, a)| a).sum();
        told_here - told_elsewhere
    }

    /// What `cart`'s credit took out of each old tender (a return of `cart` may give
    /// back through them up to that).
    pub(super) fn credit_from(&self, cart: CartId) -> HashMap<i64, i64> {
        let mut out = HashMap::new();
        for (new, tender, amount) in &self.credits {
            if *new == cart.0 {
                *out.entry(*tender).or_default() += amount;
            }
        }
        out
    }
}

pub(super) fn audit_exchanges(sim: &Sim, a: &mut Audit, book: &Book) {
    let engine = sim.engine();
    for x in &book.rows {
        let new = engine.ledger_for_tests(|l| l.sales().by_cart(CartId(x.new_cart)));
        let Ok(s) = new else {
            a.check("split_sale_readable", false, || format!("exchange {}: its new sale {} cannot be read", x.id, x.new_cart));
            continue;
        };
        let on_sale = s.exchange_credit.as_ref().map(|c| c.amount_minor);
        let ok = x.credit <= s.totals.total_minor && x.credit <= x.return_total && x.credited == x.credit && on_sale == Some(x.credit);
        a.check("exchange_credit_within_new_sale_and_return", ok, || {
            format!(
                "exchange {}: credit {} (its tenders credited {}, the sale shows {on_sale:?}) on a new sale of {} from a return worth {}",
                x.id, x.credit, x.credited, s.totals.total_minor, x.return_total
            )
        });
        let tenders: i64 = s.tenders.iter().filter(|t| t.state.is_settled()).map(|t| t.amount.amount_minor).sum();
        a.check("exchange_new_sale_settled_is_tenders_plus_credit", s.totals.settled_minor == tenders + x.credit, || {
            format!("exchange {}: new sale {} settled {}, its tenders {tenders} + credit {}", x.id, x.new_cart, s.totals.settled_minor, x.credit)
        });
        // Made by the simulated cashier: answered, or a call that crashed.
        let known = sim.sales.iter().filter_map(|s| s.split.as_ref()).find(|sp| sp.cart.0 == x.new_cart);
        let ok = known.and_then(|sp| sp.exchange.as_ref()).is_some_and(|t| sim.sales[t.old].split.as_ref().is_some_and(|o| o.cart.0 == x.old_cart));
        a.check("no_exchange_without_an_answer", ok, || format!("exchange {} (sale {} to {}) was never answered and no call crashed", x.id, x.old_cart, x.new_cart));
    }
    for t in &book.tenders {
        let held = t.credited - t.credit_returned;
        a.check("exchange_tender_gives_back_within_paid", t.active && t.gave + held <= t.paid, || {
            format!("tender {} of sale {} paid {} (active {}): gave back {}, its credits still hold {held}", t.id, t.cart, t.paid, t.active, t.gave)
        });
    }
    for (i, sale) in sim.sales.iter().enumerate() {
        let Some(sp) = &sale.split else { continue };
        let Some(told) = &sp.exchange else { continue };
        let Some(credit) = told.credit else { continue };
        let old = sim.sales[told.old].split.as_ref().map(|o| o.cart.0);
        let found = book.rows.iter().find(|x| x.new_cart == sp.cart.0);
        let ok = found.is_some_and(|x| Some(x.old_cart) == old && x.credit == credit);
        a.check("told_exchange_is_in_the_ledger", ok, || {
            format!("split-{i} (cart {}): told a credit of {credit} from sale {old:?}, the ledger has {found:?}", sp.cart)
        });
    }
}
