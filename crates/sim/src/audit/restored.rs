//! The restored audit (records 0144 and 0153), after the successor settled: the
//! predecessor's sales taken back at its replacement, judged over both registers' tables
//! (read with plain SQL, not the ledgers' own sums) and the PSP's store:
//!
//! - per line: returned at either register ≤ sold;
//! - per predecessor tender: given back at either register (card refunds not failed, cash
//!   out, store refunds) plus what exchange credits hold of it ≤ what it paid;
//! - each successor refund key refunded once at the PSP, as the successor's ledger says;
//!   every PSP refund is known to one of the two ledgers;
//! - the successor's drawer moved by exactly its restored cash out (less the cash its
//!   exchanges' new sales took in, as told);
//! - per predecessor payment refunded at the successor: the PSP's refunded amount is what
//!   the two ledgers' succeeded refunds add up to, and the successor's payment row says so;
//! - each restored return or exchange answered is in the successor's ledger as told, and
//!   none is there unanswered unless a call crashed.

use super::{rows, Audit, AuditResult, KEEP};
use crate::invariant::RestoredCheck as C;
use crate::Sim;
use paydesk_domain::Currency;
use paydesk_ledger::{CartId, Ledger};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

fn check(a: &mut Audit, c: C, ok: bool, what: impl FnOnce() -> String) {
    a.check(c.name(), ok, what);
}

/// (a, b) → n rows of a query with two integer keys and a sum.
fn sums(l: &Ledger, sql: &str) -> rusqlite::Result<HashMap<(i64, i64), i64>> {
    let mut st = l.connection().prepare(sql)?;
    let v = st.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))?.collect();
    v
}

/// Per predecessor tender: cart, seq, paid (if active, else 0), given back, what its exchange
/// credits still hold (a credit carried on to a later one, record 0155, counted once).
const PRED_TENDERS: &str = "SELECT t.cart_id, t.seq, CASE WHEN t.standing = 'active' THEN t.amount_minor ELSE 0 END,
        (SELECT COALESCE(SUM(f.amount_minor), 0) FROM refunds f WHERE f.payment_id = t.payment_id AND f.state != 'failed')
      + (SELECT COALESCE(-SUM(m.amount_minor), 0) FROM cash_movements m WHERE m.tender_id = t.id AND m.kind = 'refund_out')
      + (SELECT COALESCE(SUM(s.amount_minor), 0) FROM store_refunds s WHERE s.tender_id = t.id),
        (SELECT COALESCE(SUM(ec.amount_minor), 0) FROM exchange_credits ec WHERE ec.tender_id = t.id)
      - (SELECT COALESCE(SUM(x.amount_minor), 0) FROM exchange_credit_returns x JOIN exchange_credits ec ON ec.id = x.credit_id
           LEFT JOIN refunds f ON f.id = x.refund_id WHERE ec.tender_id = t.id AND (x.refund_id IS NULL OR f.state != 'failed'))
      - (SELECT COALESCE(SUM(k.amount_minor), 0) FROM exchange_credit_carries k JOIN exchange_credits ec ON ec.id = k.from_credit
           WHERE ec.tender_id = t.id)
    FROM tenders t";

const PRED_RETURNED: &str = "SELECT r.cart_id, l.line, SUM(l.quantity) FROM return_lines l JOIN returns r ON r.id = l.return_id GROUP BY 1, 2";

/// The predecessor's succeeded refunds per checkout key, and every refund key it has.
const PRED_REFUNDS: &str = "SELECT p.idempotency_key, f.idempotency_key, f.state, f.amount_minor FROM refunds f JOIN payments p ON p.id = f.payment_id";

const SUCC_RETURNED: &str =
    "SELECT r.sale_id, l.line, SUM(l.quantity) FROM restored_return_lines l JOIN restored_returns r ON r.id = l.return_id GROUP BY 1, 2";

/// Given back per (sale, tender_seq) at the successor: a return's parts (a refund not
/// failed, or cash) and its exchanges' credits.
const SUCC_GIVEN: &str = "SELECT sale_id, tender_seq, SUM(amount) FROM (
        SELECT r.sale_id, t.tender_seq, t.amount_minor AS amount FROM restored_return_tenders t
          JOIN restored_returns r ON r.id = t.return_id LEFT JOIN refunds f ON f.id = t.refund_id
         WHERE t.refund_id IS NULL OR f.state != 'failed'
        UNION ALL
        SELECT r.sale_id, c.tender_seq, c.amount_minor FROM restored_exchange_credits c
          JOIN restored_exchanges e ON e.id = c.exchange_id JOIN restored_returns r ON r.id = e.return_id)
    GROUP BY 1, 2";

/// The successor's restored returns: id, sale, cash out, what its movements paid out, currency.
const SUCC_RETURNS: &str = "SELECT r.id, r.sale_id, r.cash_out_minor,
        (SELECT COALESCE(-SUM(m.amount_minor), 0) FROM restored_return_tenders t JOIN cash_movements m ON m.id = t.movement_id WHERE t.return_id = r.id),
        r.currency
    FROM restored_returns r ORDER BY r.id";

const SUCC_PAYMENTS: &str = "SELECT p.idempotency_key, p.refunded_minor, p.psp_payment_id FROM payments p JOIN restored_payments x ON x.payment_id = p.id";

struct Books {
    pred_tenders: Vec<(i64, i64, i64, i64, i64)>,
    pred_returned: HashMap<(i64, i64), i64>,
    /// (checkout key, refund key, state, amount)
    pred_refunds: Vec<(String, String, String, i64)>,
    succ_returned: HashMap<(i64, i64), i64>,
    succ_given: HashMap<(i64, i64), i64>,
    succ_returns: Vec<(i64, i64, i64, i64, String)>,
    succ_lines: HashMap<i64, Vec<(i64, i64)>>,
    succ_refunds: Vec<(String, String, String, i64)>,
    succ_payments: Vec<(String, i64, Option<String>)>,
    drawer: Vec<(Currency, i64)>,
}

fn read(pred: &Ledger, succ: &Ledger) -> rusqlite::Result<Books> {
    let quad = |l: &Ledger, sql: &str| -> rusqlite::Result<Vec<(String, String, String, i64)>> {
        let mut st = l.connection().prepare(sql)?;
        let v = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect();
        v
    };
    let mut st = pred.connection().prepare(PRED_TENDERS)?;
    let pred_tenders = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
    let mut st = succ.connection().prepare(SUCC_RETURNS)?;
    let succ_returns = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
    let mut succ_lines: HashMap<i64, Vec<(i64, i64)>> = HashMap::new();
    let mut st = succ.connection().prepare("SELECT return_id, line, quantity FROM restored_return_lines ORDER BY return_id, line")?;
    for row in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)))? {
        let (id, line, q) = row?;
        succ_lines.entry(id).or_default().push((line, q));
    }
    let mut st = succ.connection().prepare(SUCC_PAYMENTS)?;
    let succ_payments = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Books {
        pred_tenders,
        pred_returned: sums(pred, PRED_RETURNED)?,
        pred_refunds: quad(pred, PRED_REFUNDS)?,
        succ_returned: sums(succ, SUCC_RETURNED)?,
        succ_given: sums(succ, SUCC_GIVEN)?,
        succ_returns,
        succ_lines,
        succ_refunds: quad(succ, PRED_REFUNDS)?,
        succ_payments,
        drawer: succ.sales().expected_drawer().map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?,
    })
}

struct PspRefund {
    key: String,
    amount: i64,
    status: String,
}

pub(crate) fn audit_restored(sim: &Sim, into: &mut AuditResult) {
    let mut a = Audit { checked: BTreeMap::new(), failed: BTreeMap::new(), total: 0, violations: Vec::new() };
    run(sim, &mut a);
    for (k, v) in a.checked {
        *into.checked.entry(k).or_default() += v;
    }
    for (k, v) in a.failed {
        *into.failed.entry(k).or_default() += v;
    }
    into.violations_total += a.total;
    let room = KEEP.saturating_sub(into.violations.len());
    into.violations.extend(a.violations.into_iter().take(room));
}

fn run(sim: &Sim, a: &mut Audit) {
    let Some(succ) = &sim.successor else { return };
    let (pe, se) = (sim.engine(), succ.engine());
    let books = pe.ledger_for_tests(|p| se.ledger_for_tests(|s| read(p, s)));
    let b = match books {
        Ok(b) => b,
        Err(e) => return check(a, C::RestoredBooksReadable, false, || format!("a ledger could not be read: {e}")),
    };
    check(a, C::RestoredBooksReadable, true, String::new);
    let touched: HashSet<i64> = b.succ_returns.iter().map(|r| r.1).collect();

    // Per line, over both registers.
    for sale in &touched {
        let s = pe.ledger_for_tests(|l| l.sales().by_cart(CartId(*sale)));
        let Ok(s) = s else {
            check(a, C::RestoredBooksReadable, false, || format!("predecessor sale {sale} taken back at the successor cannot be read there"));
            continue;
        };
        let lines = s.cart.lines.len() as i64;
        let stray = b.succ_returned.keys().any(|(x, l)| x == sale && (*l < 0 || *l >= lines));
        for (line, l) in s.cart.lines.iter().enumerate() {
            let at = (*sale, line as i64);
            let (p, q) = (b.pred_returned.get(&at).copied().unwrap_or(0), b.succ_returned.get(&at).copied().unwrap_or(0));
            check(a, C::RestoredReturnedNeverExceedsSold, p + q <= l.quantity && !stray, || {
                format!("sale {sale} line {line}: sold {}, returned {p} at the predecessor and {q} at the successor", l.quantity)
            });
        }
    }

    // Per predecessor tender of a sale taken back at the successor.
    let pred: HashMap<(i64, i64), (i64, i64, i64)> = b.pred_tenders.iter().map(|(c, s, paid, gave, held)| ((*c, *s), (*paid, *gave, *held))).collect();
    for (at, given) in &b.succ_given {
        let (paid, gave, held) = pred.get(at).copied().unwrap_or((0, 0, 0));
        check(a, C::RestoredGivenBackPerTenderWithinPaid, gave + held + given <= paid, || {
            format!("sale {} tender {}: paid {paid}; at the predecessor gave back {gave} and its exchange credits hold {held}; at the successor {given}", at.0, at.1)
        });
    }

    // The PSP: each successor refund key once, as its ledger says.
    let psp: Vec<PspRefund> = rows(sim, "SELECT obj FROM refunds ORDER BY seq")
        .iter()
        .map(|o| {
            let v: Value = serde_json::from_str(o).unwrap_or(Value::Null);
            PspRefund {
                key: v["metadata"]["refund_key"].as_str().unwrap_or("").to_string(),
                amount: v["amount"].as_i64().unwrap_or(-1),
                status: v["status"].as_str().unwrap_or("").to_string(),
            }
        })
        .collect();
    let mut by_key: HashMap<&str, Vec<&PspRefund>> = HashMap::new();
    for r in &psp {
        by_key.entry(r.key.as_str()).or_default().push(r);
    }
    for (_, key, state, amount) in &b.succ_refunds {
        let v = by_key.get(key.as_str()).cloned().unwrap_or_default();
        let ok = v.len() <= 1
            && match state.as_str() {
                "succeeded" => v.len() == 1 && v[0].status == "succeeded" && v[0].amount == *amount,
                "failed" => v.iter().all(|r| r.status != "succeeded"),
                _ => false,
            };
        check(a, C::RestoredCardRefundExecutedOnce, ok, || {
            format!("successor refund {key}: ledger {state} {amount}; PSP {:?}", v.iter().map(|r| (&r.status, r.amount)).collect::<Vec<_>>())
        });
    }
    let known: HashSet<&str> = b.pred_refunds.iter().chain(&b.succ_refunds).map(|r| r.1.as_str()).collect();
    for (key, v) in &by_key {
        check(a, C::RestoredCardRefundExecutedOnce, known.contains(key), || format!("PSP refund key {key} ({} refunds) unknown to both registers", v.len()));
    }

    // Ledger = PSP for each predecessor payment the successor refunded.
    let pis: HashMap<String, i64> = {
        let charges: HashMap<String, i64> = rows(sim, "SELECT obj FROM charges")
            .iter()
            .map(|o| {
                let v: Value = serde_json::from_str(o).unwrap_or(Value::Null);
                (v["id"].as_str().unwrap_or("").to_string(), v["amount_refunded"].as_i64().unwrap_or(-1))
            })
            .collect();
        rows(sim, "SELECT obj FROM payment_intents")
            .iter()
            .map(|o| {
                let v: Value = serde_json::from_str(o).unwrap_or(Value::Null);
                let refunded = v["latest_charge"].as_str().and_then(|c| charges.get(c)).copied().unwrap_or(-1);
                (v["id"].as_str().unwrap_or("").to_string(), refunded)
            })
            .collect()
    };
    let succeeded = |refunds: &[(String, String, String, i64)], ck: &str| -> i64 {
        refunds.iter().filter(|r| r.0 == ck && r.2 == "succeeded").map(|r| r.3).sum()
    };
    for (ck, refunded, psp_id) in &b.succ_payments {
        let (p, s) = (succeeded(&b.pred_refunds, ck), succeeded(&b.succ_refunds, ck));
        let at_psp = psp_id.as_ref().and_then(|id| pis.get(id)).copied();
        check(a, C::RestoredLedgerEqualsPsp, at_psp == Some(p + s) && *refunded == p + s, || {
            format!("payment {ck}: PSP refunded {at_psp:?}; predecessor's refunds {p} + successor's {s}; successor's row {refunded}")
        });
    }

    // The successor's drawer: its restored cash out, less the cash its new sales took in.
    let mut want: BTreeMap<Currency, i64> = succ.cash_in.clone();
    for (id, _, cash_out, moved, cur) in &b.succ_returns {
        let c = cur.parse::<Currency>().ok();
        check(a, C::RestoredDrawerMovesByCashPaidOut, c.is_some() && moved == cash_out, || {
            format!("restored return {id}: cash out {cash_out}, its movements paid out {moved} ({cur})")
        });
        if let Some(c) = c {
            *want.entry(c).or_default() -= cash_out;
        }
    }
    want.retain(|_, v| *v != 0);
    let drawer: BTreeMap<Currency, i64> = b.drawer.iter().copied().filter(|(_, v)| *v != 0).collect();
    check(a, C::RestoredDrawerMovesByCashPaidOut, drawer == want, || format!("successor drawer {drawer:?}, told in less paid out {want:?}"));

    // As told: each answer in the ledger; nothing there unanswered unless a call crashed.
    let by_id: HashMap<i64, &(i64, i64, i64, i64, String)> = b.succ_returns.iter().map(|r| (r.0, r)).collect();
    for t in &succ.told {
        let mut want: Vec<(i64, i64)> = t.lines.iter().map(|r| (r.line as i64, i64::from(r.quantity))).collect();
        want.sort_unstable();
        let got = by_id.get(&t.return_id);
        let lines = b.succ_lines.get(&t.return_id).cloned().unwrap_or_default();
        let ok = got.is_some_and(|r| r.1 == t.sale && r.2 == t.cash_out && r.4.parse::<Currency>().ok() == Some(t.currency)) && lines == want;
        check(a, C::RestoredToldIsInTheLedger, ok, || format!("told return {} of sale {}: {want:?}, cash {}; ledger {got:?} {lines:?}", t.return_id, t.sale, t.cash_out));
    }
    let told: HashSet<i64> = succ.told.iter().map(|t| t.return_id).collect();
    let stray = b.succ_returns.iter().filter(|r| !told.contains(&r.0)).count() as u64;
    check(a, C::RestoredToldIsInTheLedger, stray <= succ.unanswered, || {
        format!("{stray} restored returns in the ledger were never answered; {} calls crashed", succ.unanswered)
    });
}
