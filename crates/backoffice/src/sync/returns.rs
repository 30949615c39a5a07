//! Returns and cash refunds into `sale_returns` (with their lines and rates) and
//! `cash_refunds` (record 0119), in seq order within the batch's transaction, after the
//! sales of the same batch. Each is checked against the sale it names as it is applied, so
//! a register sending something no ledger keeping its rules could have written is refused
//! with the rule's code and the seq, and the whole batch rolls back:
//!
//! - `return_contradicts_sale`: the sale was never completed by this register, was canceled,
//!   is in another currency; a line the sale does not have or with another SKU; more of a
//!   line back than it sold, or more money back than the sale's total, over all its returns;
//! - `cash_refund_contradicts_sale`: cash back for a sale never completed, in another
//!   currency, or more cash back over all its refunds and returns than its cash tenders took.
//!
//! A fact naming a `sale_register` is a replacement's return of its predecessor's sale
//! (record 0144): accepted only when this register restored that one (`register_restores`)
//! and the owner marked it replaced, then checked against the predecessor's sale exactly as
//! the predecessor's own would be, over the returns of both. Both kinds are kept under the
//! sale's register (the reports join them to its lines and tenders by register), with the
//! replacement named (`taken_by`, `drawer_register_id`).
use super::rules::FactRule;
use super::RegisterId;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::catalog::class_name;
use paydesk_sync_proto::{Fact, ReturnRecorded, Row};
use tokio_postgres::Transaction;
use uuid::Uuid;

fn refuse(rule: FactRule, seq: i64, message: String) -> ApiError {
    ApiError::ImpossibleFact { rule, seq, message }
}

/// Applies the return and cash-refund facts of rows `first..`, all past the acknowledged seq.
pub async fn apply_returns(tx: &Transaction<'_>, reg: RegisterId, first: i64, rows: &[Row]) -> ApiResult<()> {
    for (i, row) in rows.iter().enumerate() {
        let seq = first + i as i64;
        match &row.fact {
            Fact::ReturnRecorded(ret) => insert_return(tx, reg, seq, row.at_ms, ret).await?,
            Fact::CashRefunded { movement, sale, amount, currency, shift, sale_register } => {
                let bad = |m: String| refuse(FactRule::CashRefundContradictsSale, seq, format!("cash refund {movement}: {m}"));
                let owner = owner_of(tx, reg, sale_register.as_deref(), &bad).await?;
                insert_cash_refund(tx, (reg, owner), seq, row.at_ms, (*movement, *sale, *amount), currency, *shift).await?
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
            | Fact::StoreRefunded { .. }
            | Fact::ExchangeRecorded(_)
            | Fact::AuditRow(_)
            | Fact::ReceiptPrinted(_) => {}
        }
    }
    Ok(())
}

/// The register whose sale a return or cash refund names: the sender, or a predecessor the
/// sender restored and the owner marked replaced (record 0144). Anything else is refused
/// with the fact's own rule. Exchanges of a restored sale ask it too (`exchanges.rs`).
pub(super) async fn owner_of(tx: &Transaction<'_>, reg: RegisterId, named: Option<&str>, bad: &(dyn Fn(String) -> ApiError + Sync)) -> ApiResult<RegisterId> {
    let Some(named) = named else { return Ok(reg) };
    let Ok(id) = Uuid::parse_str(named) else {
        return Err(bad(format!("names sale_register {named:?}, which is no register id")));
    };
    if id == reg.register_id {
        return Ok(reg);
    }
    let restored = tx
        .query_opt(
            "SELECT 1 FROM register_restores x JOIN registers r ON r.store_id = x.store_id AND r.register_id = x.source_register_id
             WHERE x.store_id = $1 AND x.register_id = $2 AND x.source_register_id = $3 AND r.replaced_ms IS NOT NULL",
            &[&reg.store_id, &reg.register_id, &id],
        )
        .await?;
    if restored.is_none() {
        return Err(bad(format!("names the sale of register {id}, which this register never restored from")));
    }
    Ok(RegisterId { store_id: reg.store_id, register_id: id })
}

/// The sale a return or cash refund names: its currency and total, if this register
/// completed it and it still counts.
async fn sale_of(tx: &Transaction<'_>, reg: RegisterId, sale: i64) -> ApiResult<Option<(String, i64, bool)>> {
    let row = tx
        .query_opt(
            "SELECT currency, total, canceled_at_ms IS NOT NULL FROM sales WHERE store_id = $1 AND register_id = $2 AND sale_id = $3",
            &[&reg.store_id, &reg.register_id, &sale],
        )
        .await?;
    Ok(row.map(|r| (r.get(0), r.get(1), r.get(2))))
}

async fn insert_return(tx: &Transaction<'_>, sender: RegisterId, seq: i64, at_ms: i64, ret: &ReturnRecorded) -> ApiResult<()> {
    let bad = |m: String| refuse(FactRule::ReturnContradictsSale, seq, format!("return {}: {m}", ret.return_no));
    // Kept under the sale's register; `taken_by` names a replacement that took it back.
    let reg = owner_of(tx, sender, ret.sale_register.as_deref(), &bad).await?;
    let taken_by = (reg.register_id != sender.register_id).then_some(sender.register_id);
    let (s, r) = (&reg.store_id, &reg.register_id);
    match sale_of(tx, reg, ret.sale).await? {
        None => return Err(bad(format!("sale {} was never completed by {}", ret.sale, if taken_by.is_some() { "that register" } else { "this register" }))),
        Some((_, _, true)) => return Err(bad(format!("sale {} was canceled; nothing of it can come back", ret.sale))),
        Some((currency, _, false)) if currency != ret.currency => {
            return Err(bad(format!("is in {}, its sale {} in {currency}", ret.currency, ret.sale)));
        }
        Some(_) => {}
    }
    let n = tx
        .execute(
            "INSERT INTO sale_returns (store_id, register_id, sale_id, return_no, currency, total, tax_total, cash_out, returned_at_ms, taken_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING",
            &[s, r, &ret.sale, &ret.return_no, &ret.currency, &ret.total, &ret.tax_total, &ret.cash_out, &at_ms, &taken_by],
        )
        .await?;
    if n == 0 {
        return Err(ApiError::Unprocessable(format!("seq {seq}: return {} was already recorded under another seq", ret.return_no)));
    }
    // The wire bounds these (1,000 lines, quantity 9,999), so the casts cannot truncate.
    let line_no: Vec<i32> = ret.lines.iter().map(|l| l.line as i32 + 1).collect();
    let skus: Vec<&str> = ret.lines.iter().map(|l| l.sku.as_str()).collect();
    let qty: Vec<i32> = ret.lines.iter().map(|l| l.quantity as i32).collect();
    let classes: Vec<&str> = ret.lines.iter().map(|l| class_name(l.tax_class)).collect();
    let nets: Vec<i64> = ret.lines.iter().map(|l| l.net).collect();
    // Every line must be one the sale has, under the same SKU: checked before the insert,
    // whose foreign key would only say "violates".
    let wrong = tx
        .query_opt(
            "SELECT x.n, x.sku, l.sku FROM unnest($4::int4[], $5::text[]) AS x(n, sku)
             LEFT JOIN sale_lines l ON l.store_id = $1 AND l.register_id = $2 AND l.sale_id = $3 AND l.line_no = x.n
             WHERE l.sku IS DISTINCT FROM x.sku ORDER BY x.n LIMIT 1",
            &[s, r, &ret.sale, &line_no, &skus],
        )
        .await?;
    if let Some(w) = wrong {
        let (n, sent, had): (i32, String, Option<String>) = (w.get(0), w.get(1), w.get(2));
        return Err(bad(match had {
            None => format!("takes back line {} ({sent}), which sale {} does not have", n - 1, ret.sale),
            Some(had) => format!("takes back line {} as {sent}, but that line of sale {} is {had}", n - 1, ret.sale),
        }));
    }
    tx.execute(
        "INSERT INTO sale_return_lines (store_id, register_id, return_no, sale_id, line_no, sku, quantity, tax_class, net)
         SELECT $1, $2, $3, $4, x.n, x.sku, x.q, x.c, x.net
         FROM unnest($5::int4[], $6::text[], $7::int4[], $8::text[], $9::int8[]) AS x(n, sku, q, c, net)",
        &[s, r, &ret.return_no, &ret.sale, &line_no, &skus, &qty, &classes, &nets],
    )
    .await?;
    if !ret.rates.is_empty() {
        let classes: Vec<&str> = ret.rates.iter().map(|x| class_name(x.class)).collect();
        // validated: 0..=1 000 000 fits an int4
        let ppms: Vec<i32> = ret.rates.iter().map(|x| x.ppm as i32).collect();
        let bases: Vec<i64> = ret.rates.iter().map(|x| x.base).collect();
        let taxes: Vec<i64> = ret.rates.iter().map(|x| x.tax).collect();
        let grosses: Vec<i64> = ret.rates.iter().map(|x| x.gross).collect();
        tx.execute(
            "INSERT INTO sale_return_rates (store_id, register_id, return_no, class, ppm, base, tax, gross)
             SELECT $1, $2, $3, x.c, x.b, x.base, x.t, x.g
             FROM unnest($4::text[], $5::int4[], $6::int8[], $7::int8[], $8::int8[]) AS x(c, b, base, t, g)",
            &[s, r, &ret.return_no, &classes, &ppms, &bases, &taxes, &grosses],
        )
        .await?;
    }
    // Over all the sale's returns so far (this one included): no line back more than it
    // sold, no more money back than the sale took.
    let over = tx
        .query_opt(
            "SELECT rl.line_no, sum(rl.quantity)::int8, l.quantity::int8
             FROM sale_return_lines rl JOIN sale_lines l USING (store_id, register_id, sale_id, line_no)
             WHERE rl.store_id = $1 AND rl.register_id = $2 AND rl.sale_id = $3
             GROUP BY rl.line_no, l.quantity HAVING sum(rl.quantity) > l.quantity ORDER BY rl.line_no LIMIT 1",
            &[s, r, &ret.sale],
        )
        .await?;
    if let Some(o) = over {
        let (n, back, sold): (i32, i64, i64) = (o.get(0), o.get(1), o.get(2));
        return Err(bad(format!("brings line {} of sale {} back {back} times in all; it sold {sold}", n - 1, ret.sale)));
    }
    let totals = tx
        .query_one(
            "SELECT (SELECT sum(total) FROM sale_returns WHERE store_id = $1 AND register_id = $2 AND sale_id = $3)::int8,
                    (SELECT total FROM sales WHERE store_id = $1 AND register_id = $2 AND sale_id = $3)",
            &[s, r, &ret.sale],
        )
        .await?;
    let (back, total): (i64, i64) = (totals.get(0), totals.get(1));
    if back > total {
        return Err(bad(format!("returns of sale {} come to {back}, above its total {total}", ret.sale)));
    }
    Ok(())
}

async fn insert_cash_refund(
    tx: &Transaction<'_>,
    (drawer, reg): (RegisterId, RegisterId),
    seq: i64,
    at_ms: i64,
    (movement, sale, amount): (i64, i64, i64),
    currency: &str,
    shift: Option<i64>,
) -> ApiResult<()> {
    let bad = |m: String| refuse(FactRule::CashRefundContradictsSale, seq, format!("cash refund {movement}: {m}"));
    let (s, r) = (&reg.store_id, &reg.register_id);
    match sale_of(tx, reg, sale).await? {
        None => return Err(bad(format!("sale {sale} was never completed by {}", if drawer.register_id == reg.register_id { "this register" } else { "that register" }))),
        Some((c, _, _)) if c != currency => return Err(bad(format!("is in {currency}, its sale {sale} in {c}"))),
        Some(_) => {}
    }
    let n = tx
        .execute(
            "INSERT INTO cash_refunds (store_id, register_id, movement_id, sale_id, amount, currency, shift_id, refunded_at_ms, drawer_register_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
            &[s, r, &movement, &sale, &amount, &currency, &shift, &at_ms, &drawer.register_id],
        )
        .await?;
    if n == 0 {
        return Err(ApiError::Unprocessable(format!("seq {seq}: cash refund {movement} was already recorded under another seq")));
    }
    // The cash a sale's tenders kept (handed over less change), against all its cash back.
    let sums = tx
        .query_one(
            "SELECT coalesce((SELECT sum(amount) FROM cash_refunds WHERE store_id = $1 AND register_id = $2 AND sale_id = $3), 0)::int8,
                    coalesce((SELECT sum(amount) FROM tenders WHERE store_id = $1 AND register_id = $2 AND sale_id = $3
                                                             AND method = 'cash' AND superseded_at_ms IS NULL), 0)::int8",
            &[s, r, &sale],
        )
        .await?;
    let (back, paid): (i64, i64) = (sums.get(0), sums.get(1));
    if back > paid {
        return Err(bad(format!("cash back for sale {sale} comes to {back}, above the {paid} its cash tenders took")));
    }
    Ok(())
}
