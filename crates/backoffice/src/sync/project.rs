//! Applying a run of new journal rows: store each fact once under `(store, register,
//! seq)`, then fold them into the `payments` / `refunds` projections (record 0040) and
//! the tenders and shifts (`books.rs`, record 0047) and the completed sales (`sales.rs`,
//! record 0051).
//!
//! Set-based: one statement per table for the whole run (arrays through `unnest`), not
//! one per row, since each statement is a round trip; and those statements pipelined, sent
//! together and answered together (record 0149). The run is folded in seq order
//! first, so the projections end exactly where applying the rows one by one would leave
//! them: a payment's last state, its last PSP id, the time of its last change.
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use crate::state::now_ms;
use paydesk_sync_proto::{Fact, Row};
use futures_util::future::{join, join4};
use std::collections::HashMap;
use std::future::Future;
use tokio_postgres::types::{Json, Type};
use super::cached::Tx as Transaction;

/// The last state of one payment or refund within the run, and where it was first named.
struct Last {
    state: &'static str,
    psp_id: Option<String>,
    at_ms: i64,
    first_seq: i64,
}

/// What a run of rows does to the projections, in the order the rows said it.
#[derive(Default)]
struct Folded {
    /// (checkout key, amount, currency, at)
    payments_created: Vec<(String, i64, String, i64)>,
    payment_states: Vec<(String, Last)>,
    /// (refund key, amount, checkout key, at)
    refunds_created: Vec<(String, i64, String, i64)>,
    refund_states: Vec<(String, Last)>,
    created_at: HashMap<String, i64>,
}

fn fold_state(into: &mut Vec<(String, Last)>, index: &mut HashMap<String, usize>, key: &str, state: &'static str, psp: &Option<String>, at: i64, seq: i64) {
    match index.get(key) {
        Some(&i) => {
            let last = &mut into[i].1;
            last.state = state;
            last.at_ms = at;
            if psp.is_some() {
                last.psp_id = psp.clone();
            }
        }
        None => {
            index.insert(key.to_string(), into.len());
            into.push((key.to_string(), Last { state, psp_id: psp.clone(), at_ms: at, first_seq: seq }));
        }
    }
}

fn fold(first: i64, rows: &[Row]) -> ApiResult<Folded> {
    let mut f = Folded::default();
    let (mut pay_ix, mut ref_ix) = (HashMap::new(), HashMap::new());
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        match &row.fact {
            Fact::PaymentCreated { checkout_key, amount, currency } => {
                f.created_at.entry(format!("p:{checkout_key}")).or_insert(seq);
                f.payments_created.push((checkout_key.clone(), *amount, currency.clone(), row.at_ms));
            }
            Fact::PaymentState { checkout_key, state, psp_id } => {
                fold_state(&mut f.payment_states, &mut pay_ix, checkout_key, state.as_str(), psp_id, row.at_ms, seq);
            }
            Fact::RefundCreated { refund_key, checkout_key, amount } => {
                f.created_at.entry(format!("r:{refund_key}")).or_insert(seq);
                f.refunds_created.push((refund_key.clone(), *amount, checkout_key.clone(), row.at_ms));
            }
            Fact::RefundState { refund_key, state, psp_refund_id } => {
                fold_state(&mut f.refund_states, &mut ref_ix, refund_key, state.as_str(), psp_refund_id, row.at_ms, seq);
            }
            // tenders and shifts: `books.rs`
            Fact::TenderAdded(_) | Fact::TenderSuperseded { .. } | Fact::ShiftOpened { .. } | Fact::PaidInOut { .. } | Fact::ShiftClosed { .. } => {}
            // completed sales: `sales.rs`
            Fact::SaleCompleted(_) | Fact::SaleCanceled { .. } => {}
            // the register's own items, staff and tax: `local.rs`
            Fact::ItemSaved(_) | Fact::StaffSaved { .. } | Fact::TaxSetupChanged(_)
            | Fact::ReturnRecorded(_)
            | Fact::CashRefunded { .. }
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    // A change before its own creation in the same run is out of the register's order.
    for (prefix, states) in [("p:", &f.payment_states), ("r:", &f.refund_states)] {
        for (key, last) in states {
            if f.created_at.get(&format!("{prefix}{key}")).is_some_and(|c| *c > last.first_seq) {
                return Err(never_created(last.first_seq));
            }
        }
    }
    Ok(f)
}

fn never_created(seq: i64) -> ApiError {
    // The register's own order puts a payment's creation before its changes; a fact about
    // something it never created is refused whole, so nothing half-applies.
    ApiError::Unprocessable(format!("seq {seq}: a state change refers to a payment or refund this register never created"))
}

/// Applies rows `first..first + rows.len()`, all past the acknowledged seq.
///
/// The payment and refund facts (the common kinds: a card sale is three of them) are the
/// fast path (record 0149): the stored states their rules read, the journal and the two
/// projections go to PostgreSQL as one pipeline, up to eight statements in one round trip,
/// each parsed, bound and run at once (`query_typed`: no separate prepare). The requests
/// leave in the order the join first polls them, PostgreSQL runs them in that order, and
/// the answers are judged in that order, so a run is refused for exactly what, and at the
/// seq, that running them one by one refuses it: a refusal found in an answer rolls back
/// the writes sent after it with the whole transaction. The other kinds follow on their
/// own per-fact path, then the rules that read what the run wrote.
///
/// `tail` (the caller's statements after the run: the register's health) runs after the
/// rules, in the same round trip when the run is payments and refunds only (record 0149's
/// addendum); its answer is returned only when the run was accepted.
pub async fn apply_rows<T>(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row], tail: impl Future<Output = T>) -> ApiResult<(u64, T)> {
    if rows.is_empty() {
        return Ok((0, tail.await));
    }
    let f = fold(first, rows)?;
    let moved = super::rules::moved(rows);
    let (s, r) = (&reg.store_id, &reg.register_id);
    let seqs: Vec<i64> = (0..rows.len() as i64).map(|i| first + i).collect();
    let ats: Vec<i64> = rows.iter().map(|r| r.at_ms).collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r.fact.kind()).collect();
    // Serialized straight to the wire as jsonb, not through a `serde_json::Value` each.
    let facts: Vec<Json<&Fact>> = rows.iter().map(|r| Json(&r.fact)).collect();
    let now = now_ms();
    let journal = async {
        super::cached::execute(
            tx,
            "INSERT INTO journal (store_id, register_id, seq, at_ms, kind, fact, received_ms)
             SELECT $1, $2, x.seq, x.at_ms, x.kind, x.fact, $7 FROM unnest($3::int8[], $4::int8[], $5::text[], $6::jsonb[]) AS x(seq, at_ms, kind, fact)",
            &[(s, Type::UUID), (r, Type::UUID), (&seqs, Type::INT8_ARRAY), (&ats, Type::INT8_ARRAY), (&kinds, Type::TEXT_ARRAY), (&facts, Type::JSONB_ARRAY), (&now, Type::INT8)],
        )
        .await
    };
    let (pay_new, pay_moved, pay_rest) = split(&f.payments_created, &f.payment_states, "created");
    let (ref_new, ref_moved, ref_rest) = split(&f.refunds_created, &f.refund_states, "pending");
    let pay_states = StateUpdate::new(&pay_rest);
    let ref_states = StateUpdate::new(&ref_rest);
    // A run of payment and refund facts only writes nothing between the projections and the
    // rules that read them (every per-fact module below skips it), so those reads and the
    // caller's `tail` ride in the same round trip, sent after the writes and judged after
    // them; any other run sends them once its per-fact modules have written.
    let fast = fast_only(rows);
    let after = async {
        if fast {
            Ok(join(super::rules::check_applied(tx, reg, first, rows), tail).await)
        } else {
            Err(tail)
        }
    };
    let (((stored, journal, pay_new, pay_moved), (ref_new, ref_moved, pay_updated, ref_updated)), after) = join(
        join(
            join4(moved.read(tx, reg), journal, pay_new.send(tx, reg, &PAYMENTS, false), pay_moved.send(tx, reg, &PAYMENTS, true)),
            join4(ref_new.send(tx, reg, &REFUNDS, false), ref_moved.send(tx, reg, &REFUNDS, true), pay_states.send(tx, reg, &PAYMENTS), ref_states.send(tx, reg, &REFUNDS)),
        ),
        after,
    )
    .await;
    // In the order they ran: the rules on the stored states came first.
    super::rules::judge_transitions(first, rows, stored?)?;
    journal?;
    pay_new?;
    pay_moved?;
    ref_new?;
    ref_moved?;
    updated_all(&pay_rest, pay_updated?)?;
    updated_all(&ref_rest, ref_updated?)?;
    super::books::apply_books(tx, reg, first, rows).await?;
    super::sales::apply_sales(tx, reg, first, rows).await?;
    super::returns::apply_returns(tx, reg, first, rows).await?;
    super::store_refunds::apply_store_refunds(tx, reg, first, rows).await?;
    super::exchanges::apply_exchanges(tx, reg, first, rows).await?;
    super::local::apply_local(tx, reg, rows).await?;
    super::audit_rows::apply_audit_rows(tx, reg, rows).await?;
    let tail = match after {
        Ok((checked, tail)) => {
            checked?;
            tail
        }
        Err(tail) => {
            super::rules::check_applied(tx, reg, first, rows).await?;
            tail.await
        }
    };
    Ok((rows.len() as u64, tail))
}

/// Whether every row is a payment or refund fact: the run the per-fact modules leave alone.
fn fast_only(rows: &[Row]) -> bool {
    rows.iter().all(|r| match r.fact {
        Fact::PaymentCreated { .. } | Fact::PaymentState { .. } | Fact::RefundCreated { .. } | Fact::RefundState { .. } => true,
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
        | Fact::ReceiptPrinted(_) => false,
    })
}

/// A projection's table, its names being this module's constants, never input.
struct Table {
    name: &'static str,
    key: &'static str,
    /// `payments.currency`, `refunds.checkout_key`
    other: &'static str,
    id: &'static str,
}

const PAYMENTS: Table = Table { name: "payments", key: "checkout_key", other: "currency", id: "psp_id" };
const REFUNDS: Table = Table { name: "refunds", key: "refund_key", other: "checkout_key", id: "psp_refund_id" };

/// The payments or refunds a run creates, as columns: each with the last state the run
/// gives it, so a sale's payment is written once, as it ends the run, not inserted as
/// `created` and updated to `captured` (record 0149).
#[derive(Default)]
struct Creations<'a> {
    keys: Vec<&'a str>,
    amounts: Vec<i64>,
    others: Vec<&'a str>,
    states: Vec<&'a str>,
    ids: Vec<Option<&'a str>>,
    created: Vec<i64>,
    updated: Vec<i64>,
}

/// Splits a run's creations and state changes into the creations it does not move, those
/// it moves (with their last state), and the changes of what it did not create. A key
/// created twice keeps its first creation, as the insert that skipped the second did.
fn split<'a>(created: &'a [(String, i64, String, i64)], states: &'a [(String, Last)], initial: &'static str) -> (Creations<'a>, Creations<'a>, Vec<&'a (String, Last)>) {
    let by_key: HashMap<&str, &Last> = states.iter().map(|(k, l)| (k.as_str(), l)).collect();
    let (mut still, mut moved) = (Creations::default(), Creations::default());
    let mut seen = std::collections::HashSet::new();
    for (key, amount, other, at) in created {
        if !seen.insert(key.as_str()) {
            continue;
        }
        let last = by_key.get(key.as_str());
        let c = if last.is_some() { &mut moved } else { &mut still };
        c.keys.push(key);
        c.amounts.push(*amount);
        c.others.push(other);
        c.states.push(last.map_or(initial, |l| l.state));
        c.ids.push(last.and_then(|l| l.psp_id.as_deref()));
        c.created.push(*at);
        c.updated.push(last.map_or(*at, |l| l.at_ms));
    }
    let rest = states.iter().filter(|(k, _)| !seen.contains(k.as_str())).collect();
    (still, moved, rest)
}

impl Creations<'_> {
    /// Inserts them; a key this register already holds (a creation sent twice under two
    /// seqs) keeps its row, and takes the run's last state when `moved`, as the update
    /// after a skipped insert gave it.
    async fn send(&self, tx: &Transaction<'_>, reg: RegisterId, table: &Table, moved: bool) -> Result<u64, tokio_postgres::Error> {
        if self.keys.is_empty() {
            return Ok(0);
        }
        let Table { name, key, other, id } = *table;
        let action = if moved {
            format!("UPDATE SET state = excluded.state, {id} = COALESCE(excluded.{id}, {name}.{id}), updated_at_ms = excluded.updated_at_ms")
        } else {
            "NOTHING".to_string()
        };
        let sql = format!(
            "INSERT INTO {name} (store_id, {key}, register_id, amount, {other}, state, {id}, created_at_ms, updated_at_ms)
             SELECT $1, x.k, $2, x.a, x.o, x.s, x.p, x.t, x.u
             FROM unnest($3::text[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::int8[], $9::int8[]) AS x(k, a, o, s, p, t, u)
             ON CONFLICT (store_id, register_id, {key}) DO {action}"
        );
        super::cached::execute(
            tx,
            &sql,
            &[
                (&reg.store_id, Type::UUID),
                (&reg.register_id, Type::UUID),
                (&self.keys, Type::TEXT_ARRAY),
                (&self.amounts, Type::INT8_ARRAY),
                (&self.others, Type::TEXT_ARRAY),
                (&self.states, Type::TEXT_ARRAY),
                (&self.ids, Type::TEXT_ARRAY),
                (&self.created, Type::INT8_ARRAY),
                (&self.updated, Type::INT8_ARRAY),
            ],
        )
        .await
    }
}

/// One statement moving each named payment or refund of this register to its last state in
/// the run.
struct StateUpdate<'a> {
    keys: Vec<&'a str>,
    names: Vec<&'a str>,
    ids: Vec<Option<&'a str>>,
    ats: Vec<i64>,
}

impl<'a> StateUpdate<'a> {
    fn new(states: &[&'a (String, Last)]) -> StateUpdate<'a> {
        StateUpdate {
            keys: states.iter().map(|(k, _)| k.as_str()).collect(),
            names: states.iter().map(|(_, l)| l.state).collect(),
            ids: states.iter().map(|(_, l)| l.psp_id.as_deref()).collect(),
            ats: states.iter().map(|(_, l)| l.at_ms).collect(),
        }
    }

    /// The keys it updated ([`updated_all`] judges them).
    async fn send(&self, tx: &Transaction<'_>, reg: RegisterId, table: &Table) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        if self.keys.is_empty() {
            return Ok(Vec::new());
        }
        let Table { name: table, key: key_col, id: id_col, .. } = *table;
        // Table and column names are this module's constants, never input. `= ANY($3)` makes
        // it an index scan of exactly these keys; a join with `unnest` was planned as a hash
        // join over the store's whole table, slower with every payment the store has.
        let sql = format!(
            "UPDATE {table} t SET state = ($4::text[])[array_position($3::text[], t.{key_col})],
                    {id_col} = COALESCE(($5::text[])[array_position($3::text[], t.{key_col})], t.{id_col}),
                    updated_at_ms = ($6::int8[])[array_position($3::text[], t.{key_col})]
             WHERE t.store_id = $1 AND t.{key_col} = ANY($3::text[]) AND t.register_id = $2
             RETURNING t.{key_col}"
        );
        // Never prepared: planned for each call's keys. A prepared statement's generic plan
        // (PostgreSQL's choice after five runs) does not see how few keys `= ANY($3)` holds
        // and filtered them over every payment of the register (a profile of 90,000 rows:
        // 1.8 ms a batch at the start, 7.5 ms at the end); the plan for the keys themselves
        // probes the primary key, which leads with the key since V22. Forcing custom plans
        // for the whole transaction instead slowed the journal's insert threefold.
        tx.query_typed(
            &sql,
            &[
                (&reg.store_id, Type::UUID),
                (&reg.register_id, Type::UUID),
                (&self.keys, Type::TEXT_ARRAY),
                (&self.names, Type::TEXT_ARRAY),
                (&self.ids, Type::TEXT_ARRAY),
                (&self.ats, Type::INT8_ARRAY),
            ],
        )
        .await
    }
}

/// A name this register never created refuses the run.
fn updated_all(states: &[&(String, Last)], updated: Vec<tokio_postgres::Row>) -> ApiResult<()> {
    let updated: std::collections::HashSet<String> = updated.iter().map(|r| r.get(0)).collect();
    if let Some((_, last)) = states.iter().find(|(k, _)| !updated.contains(k)) {
        return Err(never_created(last.first_seq));
    }
    Ok(())
}
