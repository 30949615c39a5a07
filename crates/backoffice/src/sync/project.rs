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
use futures_util::future::{join, join3};
use std::collections::HashMap;
use tokio_postgres::types::{Json, Type};
use tokio_postgres::Transaction;

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
    payments_created: Vec<(String, i64, String, i64)>,
    payment_states: Vec<(String, Last)>,
    refunds_created: Vec<(String, String, i64, i64)>,
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
                f.refunds_created.push((refund_key.clone(), checkout_key.clone(), *amount, row.at_ms));
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
/// projections go to PostgreSQL as one pipeline, seven statements in one round trip, each
/// parsed, bound and run at once (`query_typed`: no separate prepare). The requests leave
/// in the order the join first polls them, PostgreSQL runs them in that order, and the
/// answers are judged in that order, so a run is refused for exactly what, and at the
/// seq, that running them one by one refuses it: a refusal found in an answer rolls back
/// the writes sent after it with the whole transaction. The other kinds follow on their
/// own per-fact path, then the rules that read what the run wrote.
pub async fn apply_rows(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row]) -> ApiResult<u64> {
    if rows.is_empty() {
        return Ok(0);
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
        tx.execute_typed(
            "INSERT INTO journal (store_id, register_id, seq, at_ms, kind, fact, received_ms)
             SELECT $1, $2, x.seq, x.at_ms, x.kind, x.fact, $7 FROM unnest($3::int8[], $4::int8[], $5::text[], $6::jsonb[]) AS x(seq, at_ms, kind, fact)",
            &[(s, Type::UUID), (r, Type::UUID), (&seqs, Type::INT8_ARRAY), (&ats, Type::INT8_ARRAY), (&kinds, Type::TEXT_ARRAY), (&facts, Type::JSONB_ARRAY), (&now, Type::INT8)],
        )
        .await
    };
    let pc = unzip4(&f.payments_created);
    let payments = async {
        if f.payments_created.is_empty() {
            return Ok(0);
        }
        tx.execute_typed(
            "INSERT INTO payments (store_id, checkout_key, register_id, amount, currency, state, created_at_ms, updated_at_ms)
             SELECT $1, x.k, $2, x.a, x.c, 'created', x.t, x.t FROM unnest($3::text[], $4::int8[], $5::text[], $6::int8[]) AS x(k, a, c, t)
             ON CONFLICT (store_id, register_id, checkout_key) DO NOTHING",
            &[(s, Type::UUID), (r, Type::UUID), (&pc.0, Type::TEXT_ARRAY), (&pc.1, Type::INT8_ARRAY), (&pc.2, Type::TEXT_ARRAY), (&pc.3, Type::INT8_ARRAY)],
        )
        .await
    };
    let rc = unzip4(&f.refunds_created);
    let refunds = async {
        if f.refunds_created.is_empty() {
            return Ok(0);
        }
        tx.execute_typed(
            "INSERT INTO refunds (store_id, refund_key, checkout_key, register_id, amount, state, created_at_ms, updated_at_ms)
             SELECT $1, x.k, x.p, $2, x.a, 'pending', x.t, x.t FROM unnest($3::text[], $4::text[], $5::int8[], $6::int8[]) AS x(k, p, a, t)
             ON CONFLICT (store_id, register_id, refund_key) DO NOTHING",
            &[(s, Type::UUID), (r, Type::UUID), (&rc.0, Type::TEXT_ARRAY), (&rc.1, Type::TEXT_ARRAY), (&rc.2, Type::INT8_ARRAY), (&rc.3, Type::INT8_ARRAY)],
        )
        .await
    };
    let pay_states = StateUpdate::new(&f.payment_states);
    let ref_states = StateUpdate::new(&f.refund_states);
    let ((stored, journal, payments), (refunds, pay_updated, ref_updated)) = join(
        join3(moved.read(tx, reg), journal, payments),
        join3(refunds, pay_states.send(tx, reg, "payments", "checkout_key", "psp_id"), ref_states.send(tx, reg, "refunds", "refund_key", "psp_refund_id")),
    )
    .await;
    // In the order they ran: the rules on the stored states came first.
    super::rules::judge_transitions(first, rows, stored?)?;
    journal?;
    payments?;
    refunds?;
    updated_all(&f.payment_states, pay_updated?)?;
    updated_all(&f.refund_states, ref_updated?)?;
    super::books::apply_books(tx, reg, first, rows).await?;
    super::sales::apply_sales(tx, reg, first, rows).await?;
    super::returns::apply_returns(tx, reg, first, rows).await?;
    super::store_refunds::apply_store_refunds(tx, reg, first, rows).await?;
    super::exchanges::apply_exchanges(tx, reg, first, rows).await?;
    super::local::apply_local(tx, reg, rows).await?;
    super::audit_rows::apply_audit_rows(tx, reg, rows).await?;
    super::rules::check_applied(tx, reg, first, rows).await?;
    Ok(rows.len() as u64)
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
    fn new(states: &'a [(String, Last)]) -> StateUpdate<'a> {
        StateUpdate {
            keys: states.iter().map(|(k, _)| k.as_str()).collect(),
            names: states.iter().map(|(_, l)| l.state).collect(),
            ids: states.iter().map(|(_, l)| l.psp_id.as_deref()).collect(),
            ats: states.iter().map(|(_, l)| l.at_ms).collect(),
        }
    }

    /// The keys it updated ([`updated_all`] judges them).
    async fn send(&self, tx: &Transaction<'_>, reg: RegisterId, table: &str, key_col: &str, id_col: &str) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        if self.keys.is_empty() {
            return Ok(Vec::new());
        }
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
fn updated_all(states: &[(String, Last)], updated: Vec<tokio_postgres::Row>) -> ApiResult<()> {
    let updated: std::collections::HashSet<String> = updated.iter().map(|r| r.get(0)).collect();
    if let Some((_, last)) = states.iter().find(|(k, _)| !updated.contains(k)) {
        return Err(never_created(last.first_seq));
    }
    Ok(())
}

#[allow(clippy::type_complexity)]
fn unzip4<A: Clone, B: Clone, C: Clone, D: Clone>(v: &[(A, B, C, D)]) -> (Vec<A>, Vec<B>, Vec<C>, Vec<D>) {
    let mut out = (Vec::with_capacity(v.len()), Vec::with_capacity(v.len()), Vec::with_capacity(v.len()), Vec::with_capacity(v.len()));
    for (a, b, c, d) in v {
        out.0.push(a.clone());
        out.1.push(b.clone());
        out.2.push(c.clone());
        out.3.push(d.clone());
    }
    out
}
