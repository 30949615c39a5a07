//! Exchanges into `sale_exchanges` (records 0123 and 0145), in seq order within the batch's
//! transaction, after the returns of the same batch (the register sends an exchange right
//! after the return it names). Stored once, like every fact (the journal's seq is the
//! idempotency; a second row for the same exchange, return or new sale under another seq
//! is refused). Checked as applied; a register sending an exchange no ledger keeping its
//! rules could have written is refused with `exchange_contradicts_sale` and the seq, and
//! the whole batch rolls back: the old sale was never completed by this register or was
//! canceled; the return is not one of the old sale's; another currency; a credit above
//! the return's total. The new sale is not required yet: it is completed later, when its
//! rest is paid (if it is known already, its currency must match).
//!
//! An exchange naming a `sale_register` is a replacement's exchange of a sale restored from
//! its predecessor (record 0153, addendum "the link to the back office"): accepted only when
//! this register restored that one and the owner marked it replaced (as a restored return,
//! `returns::owner_of`), its old sale and return looked up under the predecessor, the return
//! one this register took back (`taken_by`); kept with `old_register_id` naming the
//! predecessor. An exchange of the register's own sale names a return of its own
//! (`taken_by` empty).
//!
//! The credit per tender (`credit_parts`, record 0157) is checked against the old sale as
//! this database knows it: each part names a tender of that sale (not superseded) and is at
//! most what the tender paid; what was carried on (`credit_carried`, record 0155) is at most
//! what exchange credits of the sender put on the old sale. A successor of the register
//! reads the parts to know what each tender has left, so parts that contradict the sale are
//! refused whole with `exchange_contradicts_sale`, as every other impossible link. The parts
//! are kept (`sale_exchange_parts`, V23) and a tender's parts are checked together: what
//! every exchange of the sale, by the register or its replacement, credited out of one
//! tender is at most what it paid, and what several exchanges carried on from one sale's
//! credit (`credit_carried`, kept beside the link) is at most what that credit held. A card
//! part of the register's own exchange is also checked against the card's refunds sent
//! before it (record 0161): a card refunded and then credited is refused.
use super::rules::FactRule;
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::{ExchangeRecorded, Fact, Row};
use tokio_postgres::Transaction;

/// Applies the exchange facts of rows `first..`, all past the acknowledged seq.
pub async fn apply_exchanges(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row]) -> ApiResult<()> {
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        match &row.fact {
            Fact::ExchangeRecorded(x) => {
                // The refunds this batch sent after the exchange: already projected (refunds
                // come first), but later than it at the register, so a give-back of its own
                // credit may be among them; its card check must not count them (record 0161).
                let later: Vec<&str> = rows[i + 1..]
                    .iter()
                    .filter_map(|r| match &r.fact {
                        Fact::RefundCreated { refund_key, .. } => Some(refund_key.as_str()),
                        _ => None,
                    })
                    .collect();
                insert_exchange(tx, reg, (seq, &later), row.at_ms, x).await?
            }
            Fact::PaymentCreated { .. }
            | Fact::PaymentState { .. }
            | Fact::RefundCreated { .. }
            | Fact::RefundState { .. }
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
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    Ok(())
}

async fn insert_exchange(tx: &Transaction<'_>, reg: RegisterId, (seq, later): (i64, &[&str]), at_ms: i64, x: &ExchangeRecorded) -> ApiResult<()> {
    let bad = |m: String| ApiError::ImpossibleFact { rule: FactRule::ExchangeContradictsSale, seq, message: format!("exchange {}: {m}", x.exchange) };
    // Whose sale and return: the sender's, or a predecessor it restored (then `taken_by` is the sender).
    let owner = super::returns::owner_of(tx, reg, x.sale_register.as_deref(), &bad).await?;
    let restored = owner.register_id != reg.register_id;
    let whose = if restored { format!("register {}", owner.register_id) } else { "this register".to_string() };
    let (s, r, o) = (&reg.store_id, &reg.register_id, &owner.register_id);
    let old = tx
        .query_opt(
            "SELECT currency, canceled_at_ms IS NOT NULL FROM sales WHERE store_id = $1 AND register_id = $2 AND sale_id = $3",
            &[s, o, &x.old_sale],
        )
        .await?;
    match old {
        None => return Err(bad(format!("sale {} was never completed by {whose}", x.old_sale))),
        Some(row) if row.get::<_, bool>(1) => return Err(bad(format!("sale {} was canceled; nothing of it can come back", x.old_sale))),
        Some(row) if row.get::<_, String>(0) != x.currency => {
            return Err(bad(format!("is in {}, its sale {} in {}", x.currency, x.old_sale, row.get::<_, String>(0))));
        }
        Some(_) => {}
    }
    let ret = tx
        .query_opt(
            "SELECT sale_id, total, taken_by FROM sale_returns WHERE store_id = $1 AND register_id = $2 AND return_no = $3",
            &[s, o, &x.return_no],
        )
        .await?;
    match ret {
        None => return Err(bad(format!("return {} was never recorded by {whose}", x.return_no))),
        Some(row) if row.get::<_, i64>(0) != x.old_sale => {
            return Err(bad(format!("return {} is of sale {}, not {}", x.return_no, row.get::<_, i64>(0), x.old_sale)));
        }
        Some(row) if row.get::<_, Option<uuid::Uuid>>(2) != restored.then_some(reg.register_id) => {
            return Err(bad(match restored {
                true => format!("return {} of {whose}'s sale {} was not taken back by this register", x.return_no, x.old_sale),
                false => format!("return {} of sale {} was taken back by another register", x.return_no, x.old_sale),
            }));
        }
        Some(row) if row.get::<_, i64>(1) < x.credit => {
            return Err(bad(format!("credits {} out of return {}, which came to {}", x.credit, x.return_no, row.get::<_, i64>(1))));
        }
        Some(_) => {}
    }
    check_parts(tx, (&reg, o), x, &bad).await?;
    if !restored {
        check_card_room(tx, &reg, x, later, &bad).await?;
    }
    let new = tx
        .query_opt("SELECT currency FROM sales WHERE store_id = $1 AND register_id = $2 AND sale_id = $3", &[s, r, &x.new_sale])
        .await?;
    if let Some(row) = new {
        let c: String = row.get(0);
        if c != x.currency {
            return Err(bad(format!("is in {}, its new sale {} in {c}", x.currency, x.new_sale)));
        }
    }
    let n = tx
        .execute(
            "INSERT INTO sale_exchanges (store_id, register_id, exchange_id, old_sale_id, return_no, new_sale_id, credit, currency, exchanged_at_ms, old_register_id, credit_carried)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING",
            &[s, r, &x.exchange, &x.old_sale, &x.return_no, &x.new_sale, &x.credit, &x.currency, &at_ms, o, &x.credit_carried.unwrap_or(0)],
        )
        .await?;
    if n == 0 {
        return Err(ApiError::Unprocessable(format!("seq {seq}: exchange {} (return {}, new sale {}) was already recorded under another seq", x.exchange, x.return_no, x.new_sale)));
    }
    store_parts(tx, (&reg, o), x).await
}

/// Keeps the credit's parts (V23), so the next exchange of the same sale is checked against
/// them: one row per tender named, in the exchange's transaction.
async fn store_parts(tx: &Transaction<'_>, (reg, owner): (&RegisterId, &uuid::Uuid), x: &ExchangeRecorded) -> ApiResult<()> {
    let Some(parts) = &x.credit_parts else { return Ok(()) };
    let seqs: Vec<i32> = parts.iter().map(|p| p.tender_seq as i32).collect();
    let amounts: Vec<i64> = parts.iter().map(|p| p.amount).collect();
    tx.execute(
        "INSERT INTO sale_exchange_parts (store_id, register_id, old_register_id, exchange_id, old_sale_id, tender_seq, amount)
         SELECT $1, $2, $3, $4, $5, t, a FROM unnest($6::int4[], $7::int8[]) AS p(t, a)",
        &[&reg.store_id, &reg.register_id, owner, &x.exchange, &x.old_sale, &seqs, &amounts],
    )
    .await?;
    Ok(())
}

/// The credit's parts (record 0157) against the old sale of register `owner`: each a tender
/// of it that was not superseded, none above what that tender paid; the part carried on at
/// most what the sender's own exchange credits put on the old sale (sync-proto already
/// checked the shape: positive, each tender once, adding up to the credit).
async fn check_parts(tx: &Transaction<'_>, (reg, owner): (&RegisterId, &uuid::Uuid), x: &ExchangeRecorded, bad: &(dyn Fn(String) -> ApiError + Sync)) -> ApiResult<()> {
    let Some(parts) = &x.credit_parts else { return Ok(()) };
    let rows = tx
        .query(
            "SELECT tender_seq, amount FROM tenders WHERE store_id = $1 AND register_id = $2 AND sale_id = $3 AND superseded_at_ms IS NULL",
            &[&reg.store_id, owner, &x.old_sale],
        )
        .await?;
    let tenders: Vec<(i64, i64)> = rows.iter().map(|r| (i64::from(r.get::<_, i32>(0)), r.get::<_, i64>(1))).collect();
    // What earlier exchanges of this sale, by any register, already credited out of each tender (V23).
    let rows = tx
        .query(
            "SELECT tender_seq, SUM(amount)::bigint FROM sale_exchange_parts
             WHERE store_id = $1 AND old_register_id = $2 AND old_sale_id = $3 GROUP BY tender_seq",
            &[&reg.store_id, owner, &x.old_sale],
        )
        .await?;
    let credited = |seq: i64| rows.iter().find(|r| i64::from(r.get::<_, i32>(0)) == seq).map_or(0, |r| r.get::<_, i64>(1));
    for p in parts {
        match tenders.iter().find(|(seq, _)| *seq == p.tender_seq) {
            None => return Err(bad(format!("credits tender {} of sale {}, which it does not have", p.tender_seq, x.old_sale))),
            Some((_, paid)) if p.amount > *paid => {
                return Err(bad(format!("credits {} out of tender {} of sale {}, which paid {paid}", p.amount, p.tender_seq, x.old_sale)));
            }
            Some((_, paid)) if p.amount.saturating_add(credited(p.tender_seq)) > *paid => {
                let before = credited(p.tender_seq);
                return Err(bad(format!(
                    "credits {} out of tender {} of sale {}, which paid {paid} and has {before} credited by earlier exchanges",
                    p.amount, p.tender_seq, x.old_sale
                )));
            }
            Some(_) => {}
        }
    }
    if let Some(carried) = x.credit_carried {
        let row = tx
            .query_one(
                "SELECT (SELECT COALESCE(SUM(credit), 0) FROM sale_exchanges
                         WHERE store_id = $1 AND register_id = $2 AND old_register_id = $2 AND new_sale_id = $3)::bigint,
                        (SELECT COALESCE(SUM(credit_carried), 0) FROM sale_exchanges
                         WHERE store_id = $1 AND register_id = $2 AND old_register_id = $2 AND old_sale_id = $3)::bigint",
                &[&reg.store_id, &reg.register_id, &x.old_sale],
            )
            .await?;
        let (held, before): (i64, i64) = (row.get(0), row.get(1));
        if carried > held {
            return Err(bad(format!("carries {carried} on from the credit of sale {}, which holds {held}", x.old_sale)));
        }
        // several carries out of one credit, together (V23): never more than it held
        if carried.saturating_add(before) > held {
            return Err(bad(format!("carries {carried} on from the credit of sale {}, which holds {held} and has carried {before} on already", x.old_sale)));
        }
    }
    Ok(())
}

/// A card part of the register's own exchange against what its card had left (record 0161):
/// the card's refunds by this register sent before the exchange (not failed) are money that
/// left it, and what earlier exchanges credited out of it is held or was given back among
/// those refunds. The register's ledger keeps part + refunds + still held <= paid, and a
/// give-back is at most both what was credited and what was refunded, so
/// part + max(credited before, refunded before) <= paid holds for every ledger keeping its
/// rules: more is refused. A card refunded in full and then credited to a new sale is the
/// case it catches (a credit no money backs). Refunds by another register, and exchanges of
/// a restored sale, are left to the tender-paid check above: their order against the
/// exchange is not one journal's.
async fn check_card_room(tx: &Transaction<'_>, reg: &RegisterId, x: &ExchangeRecorded, later: &[&str], bad: &(dyn Fn(String) -> ApiError + Sync)) -> ApiResult<()> {
    let Some(parts) = &x.credit_parts else { return Ok(()) };
    let seqs: Vec<i32> = parts.iter().map(|p| p.tender_seq as i32).collect();
    let later: Vec<String> = later.iter().map(|k| k.to_string()).collect();
    let rows = tx
        .query(
            "SELECT t.tender_seq, t.amount,
                    (SELECT COALESCE(SUM(f.amount), 0) FROM refunds f
                     WHERE f.store_id = t.store_id AND f.checkout_key = t.checkout_key AND f.register_id = t.register_id
                       AND f.state <> 'failed' AND f.refund_key <> ALL($5::text[]))::bigint,
                    (SELECT COALESCE(SUM(p.amount), 0) FROM sale_exchange_parts p
                     WHERE p.store_id = t.store_id AND p.old_register_id = t.register_id AND p.old_sale_id = t.sale_id
                       AND p.tender_seq = t.tender_seq)::bigint
             FROM tenders t
             WHERE t.store_id = $1 AND t.register_id = $2 AND t.sale_id = $3 AND t.tender_seq = ANY($4::int4[])
               AND t.method = 'card' AND t.checkout_key IS NOT NULL AND t.superseded_at_ms IS NULL",
            &[&reg.store_id, &reg.register_id, &x.old_sale, &seqs, &later],
        )
        .await?;
    for r in &rows {
        let (seq, paid, refunded, credited): (i32, i64, i64, i64) = (r.get(0), r.get(1), r.get(2), r.get(3));
        let part = parts.iter().find(|p| p.tender_seq == i64::from(seq)).map_or(0, |p| p.amount);
        if part.saturating_add(refunded.max(credited)) > paid {
            return Err(bad(format!(
                "credits {part} out of card tender {seq} of sale {}, which paid {paid}, has {refunded} refunded and {credited} credited by earlier exchanges",
                x.old_sale
            )));
        }
    }
    Ok(())
}
