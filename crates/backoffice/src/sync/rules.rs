//! Facts that cannot be true (record 0040): well formed, but no register keeping its
//! ledger's rules could have written them. Each is refused with its own code (422,
//! naming the rule and the seq) and the whole batch rolls back, so nothing of it is
//! applied and the dashboard, reconciliation and every other store never see it.
//!
//! - a time before 2020 or more than a day ahead of the back office's clock
//!   (`time_out_of_range`; one `at_ms = 9e18` used to break the dashboard's hourly chart
//!   for every store);
//! - a payment or refund moving to a state its state machine cannot reach from where it
//!   is (`state_backwards`; the ledger's transition tables, `PaymentState::can_become`);
//! - a refund of a payment this register never created (`refund_of_unknown_payment`),
//!   of another register's payment (`refund_of_other_register`; a replaced register's
//!   payment is taken from a register that restored it, record 0144), or above what is left
//!   of its payment once the refunds not failed are counted (`refund_exceeds_payment`);
//! - a card tender whose payment is unknown or has another amount or currency
//!   (`tender_contradicts_payment`), a tender in another currency than its sale or above
//!   the sale's total (`tender_contradicts_sale`).
//!
//! Checkout and refund keys are the register's own: `payments` and `refunds` are keyed
//! by `(store_id, register_id, key)` (V7), so a key another register of the store used,
//! by a bug or on purpose, never blocks this register's batch.
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
// Kept reachable here, by the rules that use it; it is defined with the error.
pub use crate::error::FactRule;
use paydesk_sync_proto::{Fact, PaymentState, RefundState, Row, TenderMethod};
use std::collections::HashMap;
use tokio_postgres::types::Type;
use super::cached::Tx as Transaction;

/// 2020-01-01T00:00:00Z: no PayDesk register wrote anything earlier.
pub const MIN_AT_MS: i64 = 1_577_836_800_000;
/// How far ahead of the back office's clock a register's clock may be.
pub const MAX_AHEAD_MS: i64 = 24 * 3_600_000;

fn refuse(rule: FactRule, seq: i64, message: String) -> ApiError {
    ApiError::ImpossibleFact { rule, seq, message }
}

/// Every row's time within [2020, the back office's clock + a day]. Checked on receipt,
/// before a batch is applied or held.
pub fn check_times(first_seq: u64, rows: &[Row], now_ms: i64) -> ApiResult<()> {
    let latest = now_ms.saturating_add(MAX_AHEAD_MS);
    for (i, row) in rows.iter().enumerate() {
        if row.at_ms < MIN_AT_MS || row.at_ms > latest {
            let seq = first_seq as i64 + i as i64;
            return Err(refuse(
                FactRule::TimeOutOfRange,
                seq,
                format!("at_ms {} is before 2020 or more than a day ahead of the back office's clock ({now_ms}); check the register's clock", row.at_ms),
            ));
        }
    }
    Ok(())
}

fn stored<S>(what: &str, s: &str, parse: fn(&str) -> Option<S>) -> ApiResult<S> {
    parse(s).ok_or_else(|| ApiError::Internal(format!("stored {what} state {s:?}")))
}

/// The payments and refunds a run moves, whose stored states [`judge_transitions`] needs.
pub struct Moved<'a> {
    pay: Vec<&'a str>,
    refs: Vec<&'a str>,
}

/// The stored states of what a run moves, as read before the run's writes.
pub struct StoredStates {
    pay: Vec<tokio_postgres::Row>,
    refs: Vec<tokio_postgres::Row>,
}

impl Moved<'_> {
    /// Reads the stored states: both statements are sent on the first poll, so a caller
    /// that joins this with the run's writes (record 0149) has them run before the writes.
    /// Both are read key by key (`LATERAL … LIMIT 1`, record 0149's second and fourth
    /// addenda; the `LIMIT` keeps the planner from flattening it into a hash join over the
    /// table, which it did, and a key is unique in its register anyway): as
    /// `key = ANY($3)` PostgreSQL, on statistics from when the register had few rows, kept
    /// the keys a filter over every payment or refund of the register. Since V22 the
    /// refunds' primary key leads with the refund key and `refunds_by_payment` with the
    /// payment's, so an equality on the whole primary key is the one cheap probe there is
    /// (before V22 the planner costed `refunds_by_payment`, then sharing the prefix, a
    /// hair below it).
    pub async fn read(&self, tx: &Transaction<'_>, reg: RegisterId) -> Result<StoredStates, tokio_postgres::Error> {
        let (s, r) = (&reg.store_id, &reg.register_id);
        let pay = async {
            if self.pay.is_empty() {
                return Ok(Vec::new());
            }
            super::cached::query(
                tx,
                "SELECT p.checkout_key, p.state FROM (SELECT DISTINCT k FROM unnest($3::text[]) AS u(k)) x
                 CROSS JOIN LATERAL (SELECT checkout_key, state FROM payments
                                     WHERE store_id = $1 AND register_id = $2 AND checkout_key = x.k LIMIT 1) p",
                &[(s, Type::UUID), (r, Type::UUID), (&self.pay, Type::TEXT_ARRAY)],
            )
            .await
        };
        let refs = async {
            if self.refs.is_empty() {
                return Ok(Vec::new());
            }
            super::cached::query(
                tx,
                "SELECT f.refund_key, f.state FROM (SELECT DISTINCT k FROM unnest($3::text[]) AS u(k)) x
                 CROSS JOIN LATERAL (SELECT refund_key, state FROM refunds
                                     WHERE store_id = $1 AND refund_key = x.k AND register_id = $2 LIMIT 1) f",
                &[(s, Type::UUID), (r, Type::UUID), (&self.refs, Type::TEXT_ARRAY)],
            )
            .await
        };
        let (pay, refs) = futures_util::future::join(pay, refs).await;
        Ok(StoredStates { pay: pay?, refs: refs? })
    }
}

/// What a run moves (its `payment_state` and `refund_state` keys).
pub fn moved(rows: &[Row]) -> Moved<'_> {
    let mut pay_keys: Vec<&str> = Vec::new();
    let mut ref_keys: Vec<&str> = Vec::new();
    for row in rows {
        match &row.fact {
            Fact::PaymentState { checkout_key, .. } => pay_keys.push(checkout_key.as_str()),
            Fact::RefundState { refund_key, .. } => ref_keys.push(refund_key.as_str()),
            Fact::PaymentCreated { .. }
            | Fact::RefundCreated { .. }
            | Fact::TenderAdded(_)
            | Fact::TenderSuperseded { .. }
            | Fact::ShiftOpened { .. }
            | Fact::PaidInOut { .. }
            | Fact::ShiftClosed { .. }
            | Fact::SaleCompleted(_)
            | Fact::SaleCanceled { .. }
            | Fact::ItemSaved(_)
            | Fact::StaffSaved { .. }
            | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    Moved { pay: pay_keys, refs: ref_keys }
}

/// Before a run is applied: each payment and refund it moves only goes where its state
/// machine can lead from where it is (stored, as [`Moved::read`] found it, or
/// `created`/`pending` in this run).
pub fn judge_transitions(first: i64, rows: &[Row], stored_states: StoredStates) -> ApiResult<()> {
    let mut pay: HashMap<String, PaymentState> = HashMap::new();
    for row in stored_states.pay {
        pay.insert(row.get(0), stored("payment", row.get(1), PaymentState::parse)?);
    }
    let mut refs: HashMap<String, RefundState> = HashMap::new();
    for row in stored_states.refs {
        refs.insert(row.get(0), stored("refund", row.get(1), RefundState::parse)?);
    }
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        match &row.fact {
            Fact::PaymentCreated { checkout_key, .. } => {
                pay.entry(checkout_key.clone()).or_insert(PaymentState::Created);
            }
            Fact::RefundCreated { refund_key, .. } => {
                refs.entry(refund_key.clone()).or_insert(RefundState::Pending);
            }
            Fact::PaymentState { checkout_key, state, .. } => {
                // a key never created is `update_states`'s refusal
                if let Some(cur) = pay.get_mut(checkout_key) {
                    if !cur.can_become(*state) {
                        return Err(refuse(
                            FactRule::StateBackwards,
                            seq,
                            format!("payment {checkout_key} moves from {} to {}, which its state machine never does", cur.as_str(), state.as_str()),
                        ));
                    }
                    *cur = *state;
                }
            }
            Fact::RefundState { refund_key, state, .. } => {
                if let Some(cur) = refs.get_mut(refund_key) {
                    if !cur.can_become(*state) {
                        return Err(refuse(
                            FactRule::StateBackwards,
                            seq,
                            format!("refund {refund_key} moves from {} to {}, which its state machine never does", cur.as_str(), state.as_str()),
                        ));
                    }
                    *cur = *state;
                }
            }
            Fact::TenderAdded(_)
            | Fact::TenderSuperseded { .. }
            | Fact::ShiftOpened { .. }
            | Fact::PaidInOut { .. }
            | Fact::ShiftClosed { .. }
            | Fact::SaleCompleted(_)
            | Fact::SaleCanceled { .. }
            | Fact::ItemSaved(_)
            | Fact::StaffSaved { .. }
            | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    Ok(())
}

/// What a run names, with the seq that named it first (refunds, card tenders) or last.
#[derive(Default)]
struct Named<'a> {
    /// (checkout key, seq of the refund that named it last)
    refunded: Vec<(&'a str, i64)>,
    /// (sale, tender_seq, checkout key, amount, currency, seq)
    cards: Vec<(i64, i64, &'a str, i64, &'a str, i64)>,
    /// sale -> seq, for tenders ((sale, tender_seq) -> seq) and completions
    tenders: HashMap<(i64, i64), i64>,
    sales: HashMap<i64, i64>,
}

fn named(first: i64, rows: &[Row]) -> Named<'_> {
    let mut n = Named::default();
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        match &row.fact {
            Fact::RefundCreated { checkout_key, .. } => match n.refunded.iter_mut().find(|(k, _)| *k == checkout_key.as_str()) {
                Some(e) => e.1 = seq,
                None => n.refunded.push((checkout_key.as_str(), seq)),
            },
            Fact::TenderAdded(t) => {
                n.tenders.entry((t.sale, t.tender_seq)).or_insert(seq);
                n.sales.entry(t.sale).or_insert(seq);
                match (&t.method, t.checkout_key.as_deref()) {
                    (TenderMethod::Card, Some(key)) => n.cards.push((t.sale, t.tender_seq, key, t.amount, t.currency.as_str(), seq)),
                    // the wire refuses a card tender without a key and a cash or store one with one
                    (TenderMethod::Card, None) | (TenderMethod::Cash, _) | (TenderMethod::Store(_), _) => {}
                }
            }
            Fact::SaleCompleted(sale) => {
                n.sales.insert(sale.sale, seq);
            }
            Fact::PaymentCreated { .. }
            | Fact::PaymentState { .. }
            | Fact::RefundState { .. }
            | Fact::TenderSuperseded { .. }
            | Fact::ShiftOpened { .. }
            | Fact::PaidInOut { .. }
            | Fact::ShiftClosed { .. }
            | Fact::SaleCanceled { .. }
            | Fact::ItemSaved(_)
            | Fact::StaffSaved { .. }
            | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    n
}

/// After a run is applied, inside its transaction: the refunds and tenders it wrote
/// agree with the payments and sales they name (the run's own included). The three reads
/// go out in one round trip (record 0149) and are judged in this order: refunds, card
/// tenders, tenders against their sales.
pub async fn check_applied(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row]) -> ApiResult<()> {
    let n = named(first, rows);
    let (s, r) = (&reg.store_id, &reg.register_id);
    let refund_keys: Vec<&str> = n.refunded.iter().map(|(k, _)| *k).collect();
    let card_keys: Vec<&str> = n.cards.iter().map(|c| c.2).collect();
    let sales: Vec<i64> = n.sales.keys().copied().collect();
    let refunds_read = async {
        if refund_keys.is_empty() {
            return Ok(Vec::new());
        }
        // Sums as numeric, compared in SQL and capped for the message: a hostile run of
        // many refunds cannot overflow anything.
        // The payment is this register's own, or (record 0144) one of a replaced register
        // this one restored: a replacement refunds its predecessor's card payments, and then
        // the refunds of both count against the payment.
        // Every read is a probe of exactly one key (record 0149, second addendum), whatever
        // the statistics say: each `LATERAL` names `x.k` and cannot be flattened, so it runs
        // once per key on its index. The other register's payment is a `LIMIT 1` on the
        // primary key's (store, key) prefix (`payments_by_key` before V22; as an `EXISTS` in
        // the select list it was planned as a hashed subplan reading every payment of the
        // store), and the refund sum is two equality probes of `refunds_by_payment` (store,
        // key, register since V22): this register's refunds,
        // and the payment's register's when that is another (`IN ($2, p.register_id)` left
        // the register a filter over the store's refunds).
        super::cached::query(
            tx,
            "SELECT x.k, p.amount, o.k IS NOT NULL,
                    LEAST(coalesce(mine.s, 0) + coalesce(theirs.s, 0), 9223372036854775807)::int8
             FROM unnest($3::text[]) AS x(k)
             LEFT JOIN LATERAL (
                 SELECT q.amount, q.register_id FROM payments q
                 WHERE q.store_id = $1 AND q.checkout_key = x.k
                   AND (q.register_id = $2 OR q.register_id IN (
                            SELECT y.source_register_id FROM register_restores y JOIN registers g
                                ON g.store_id = y.store_id AND g.register_id = y.source_register_id
                            WHERE y.store_id = $1 AND y.register_id = $2 AND g.replaced_ms IS NOT NULL))
                 ORDER BY q.register_id = $2 DESC LIMIT 1) p ON true
             LEFT JOIN LATERAL (
                 SELECT o.checkout_key AS k FROM payments o
                 WHERE o.store_id = $1 AND o.checkout_key = x.k AND o.register_id <> $2 LIMIT 1) o ON true
             LEFT JOIN LATERAL (
                 SELECT sum(f.amount) AS s FROM refunds f
                 WHERE f.store_id = $1 AND f.register_id = $2 AND f.checkout_key = x.k AND f.state <> 'failed') mine ON true
             LEFT JOIN LATERAL (
                 SELECT sum(f.amount) AS s FROM refunds f
                 WHERE f.store_id = $1 AND f.register_id = p.register_id AND p.register_id <> $2
                   AND f.checkout_key = x.k AND f.state <> 'failed') theirs ON true",
            &[(s, Type::UUID), (r, Type::UUID), (&refund_keys, Type::TEXT_ARRAY)],
        )
        .await
    };
    // The card tenders' payments and the tenders' sales are read key by key too: each
    // `LATERAL` names the key (`LIMIT 1` or `OFFSET 0` keeps it from being flattened into a
    // join the planner could run as a scan of the register's rows).
    let cards_read = async {
        if card_keys.is_empty() {
            return Ok(Vec::new());
        }
        super::cached::query(
            tx,
            "SELECT p.checkout_key, p.amount, p.currency FROM (SELECT DISTINCT k FROM unnest($3::text[]) AS u(k)) x
             CROSS JOIN LATERAL (SELECT checkout_key, amount, currency FROM payments
                                 WHERE store_id = $1 AND register_id = $2 AND checkout_key = x.k LIMIT 1) p",
            &[(s, Type::UUID), (r, Type::UUID), (&card_keys, Type::TEXT_ARRAY)],
        )
        .await
    };
    let sales_read = async {
        if sales.is_empty() {
            return Ok(Vec::new());
        }
        super::cached::query(
            tx,
            "SELECT b.sale_id, b.tender_seq, b.amount, b.currency, b.total, b.sale_currency
             FROM unnest($3::int8[]) AS x(sale)
             CROSS JOIN LATERAL (
                 SELECT t.sale_id, t.tender_seq::int8 AS tender_seq, t.amount, t.currency, s.total, s.currency AS sale_currency
                 FROM tenders t JOIN sales s ON s.store_id = t.store_id AND s.register_id = t.register_id AND s.sale_id = t.sale_id
                 WHERE t.store_id = $1 AND t.register_id = $2 AND t.sale_id = x.sale AND (t.currency <> s.currency OR t.amount > s.total)
                 OFFSET 0) b
             ORDER BY b.sale_id, b.tender_seq LIMIT 1",
            &[(s, Type::UUID), (r, Type::UUID), (&sales, Type::INT8_ARRAY)],
        )
        .await
    };
    let (found, payments, bad) = futures_util::future::join3(refunds_read, cards_read, sales_read).await;
    // Each answer is taken in the order the statements ran, right before its rules, so the
    // refusal or error reported is the one running them one by one gives (a statement after
    // a failed one fails only because the transaction is aborted).
    let found = found?;
    if !n.refunded.is_empty() {
        let by_key: HashMap<String, (Option<i64>, bool, i64)> = found.iter().map(|row| (row.get(0), (row.get(1), row.get(2), row.get(3)))).collect();
        for (key, seq) in &n.refunded {
            let Some((amount, other, refunded)) = by_key.get(*key) else { continue };
            match amount {
                None if *other => return Err(refuse(FactRule::RefundOfOtherRegister, *seq, format!("refunds payment {key}, which another register of the store took; a register refunds only its own payments"))),
                None => return Err(refuse(FactRule::RefundOfUnknownPayment, *seq, format!("refunds payment {key}, which this register never created"))),
                Some(a) if refunded > a => {
                    return Err(refuse(FactRule::RefundExceedsPayment, *seq, format!("refunds of payment {key} come to {refunded}, above its amount {a}")));
                }
                Some(_) => {}
            }
        }
    }
    let payments = payments?;
    if !n.cards.is_empty() {
        let payments: HashMap<String, (i64, String)> = payments.iter().map(|row| (row.get(0), (row.get(1), row.get(2)))).collect();
        for (sale, tender_seq, key, amount, currency, seq) in &n.cards {
            match payments.get(*key) {
                None => return Err(refuse(FactRule::TenderContradictsPayment, *seq, format!("tender {tender_seq} of sale {sale} names payment {key}, which this register never created"))),
                Some((pa, pc)) if pa != amount || pc.as_str() != *currency => {
                    return Err(refuse(
                        FactRule::TenderContradictsPayment,
                        *seq,
                        format!("tender {tender_seq} of sale {sale} is {amount} {currency}, its payment {key} {pa} {pc}"),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    if let Some(b) = bad?.first() {
        let (sale, tender_seq): (i64, i64) = (b.get(0), b.get(1));
        let seq = n.tenders.get(&(sale, tender_seq)).or_else(|| n.sales.get(&sale)).copied().unwrap_or(first);
        return Err(refuse(
            FactRule::TenderContradictsSale,
            seq,
            format!("tender {tender_seq} of sale {sale} is {} {}, but the sale's total is {} {}", b.get::<_, i64>(2), b.get::<_, String>(3), b.get::<_, i64>(4), b.get::<_, String>(5)),
        ));
    }
    Ok(())
}
