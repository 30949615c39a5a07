//! Taking back items of a restored sale in ONE transaction (record 0144): valued from the
//! sale's facts and this store's tax for its day (checked to give exactly the sale's
//! figures), money back cards first (each card refund its own row and key, on the
//! predecessor's payment), then cash out of this register's open shift; the return, its
//! lines, rates, links, facts and audit row together.

use paydesk_domain::{PaymentState, TenderKind};
use paydesk_tax::{compute, return_tax, Cart, Discount, Line, RateReturn, ReturnTax, Returned, TaxSettings};
use rusqlite::{params, OptionalExtension};

use super::sale::{RestoredSale, RestoredTender};
use super::RestoredReturnInput;
use crate::error::{Error, Result};
use crate::ledger::audit::{append_audit, AuditInput};
use crate::ledger::cart_tax::tax_setup_on_tx;
use crate::ledger::catalog::class_str;
use crate::ledger::refunds::create_refund_tx;
use crate::ledger::Cached;
use crate::types::{CartId, PaymentId, Refund};
use crate::write_tx::WriteTx;

/// Where one part of the money went: the predecessor's tender, how much, and the refund row
/// or drawer movement that carried it.
struct Link {
    tender_seq: i64,
    amount: i64,
    refund: Option<i64>,
    movement: Option<i64>,
}

/// The money a return gave back: its links, the card refunds to drive, the cash out.
struct GivenBack {
    links: Vec<Link>,
    refunds: Vec<Refund>,
    cash_out: i64,
}

/// The return inside the caller's transaction; answers its id, the card refunds to drive
/// and, with `exchange` (the new sale, record 0153), the exchange's id: as much of the
/// return's worth as the new sale has open becomes its credit, taken out of the sale's
/// tenders (which keep it), and only the rest is given back.
pub(super) fn take_back_tx(
    tx: &WriteTx<'_>,
    sale: &RestoredSale,
    input: &RestoredReturnInput<'_>,
    keys: &mut Vec<String>,
    exchange: Option<CartId>,
) -> Result<(i64, Vec<Refund>, Option<i64>)> {
    if sale.canceled {
        return Err(Error::RestoredSaleCanceled { register: sale.source.clone(), sale: sale.sale_id });
    }
    if super::sale::exchanged_there(tx, &sale.source, sale.sale_id)? {
        return Err(Error::RestoredExchangedThere { register: sale.source.clone(), sale: sale.sale_id });
    }
    check_items(sale, input.items)?;
    let (cart, settings) = valuation(tx, sale)?;
    let mut valued = return_tax(&cart, &settings, &sale.returned, input.items)
        .map_err(|e| Error::RestoredSaleNotValued { register: sale.source.clone(), sale: sale.sale_id, why: e.to_string() })?;
    cap_to_what_is_left(sale, &mut valued);
    let staff = crate::ledger::session::operator(tx)?;
    let credit = exchange.map(|new| plan_credit_tx(tx, sale, new, valued.total, input.now_ms)).transpose()?;
    // What the credit takes out of a tender is no longer there to give back.
    let mut rest_of_sale = sale.clone();
    for (seq, amount) in credit.iter().flat_map(|c| &c.from) {
        let t = rest_of_sale.tenders.iter_mut().find(|t| t.seq == *seq).expect("a credited tender is the sale's");
        t.left_minor -= amount;
        assert!(t.left_minor >= 0, "restored sale {}: tender {seq} credited beyond what it has left", sale.sale_id);
    }
    let back = valued.total - credit.as_ref().map_or(0, |c| c.credit_minor);
    let given = give_back_tx(tx, &rest_of_sale, back, input, keys)?;
    let id = insert_tx(tx, sale, &valued, &given, staff, input)?;
    send_tx(tx, id, sale, &given.links)?;
    // The exchange and its link right after the return's fact it names (v42), then the
    // audit rows: the return's, then the exchange's.
    let exchange_id = credit.as_ref().map(|c| write_credit_tx(tx, id, c, staff, input.now_ms)).transpose()?;
    audit_tx(tx, id, sale, &valued, &given, (staff, input))?;
    if let (Some(x), Some(c)) = (exchange_id, &credit) {
        audit_credit_tx(tx, (x, id), sale, c, staff, input.now_ms)?;
    }
    Ok((id, given.refunds, exchange_id))
}

/// The credit a restored exchange will write: on which new sale, how much, out of which of
/// the predecessor's tenders (by `tender_seq`).
struct CreditPlan {
    new_cart: CartId,
    credit_minor: i64,
    from: Vec<(i64, i64)>,
}

/// Checks the new sale and sizes the credit for goods worth `worth_minor`, taken out of the
/// restored sale's tenders as money given back would be: cards first (each settled, at most
/// what it has left), then cash. Never out of a store tender ([`Error::RestoredStoreTender`]:
/// a voucher is never turned into other goods' payment here, as it is never turned into cash).
fn plan_credit_tx(tx: &WriteTx<'_>, sale: &RestoredSale, new_cart: CartId, worth_minor: i64, now_ms: i64) -> Result<CreditPlan> {
    let open = crate::ledger::exchange::new_sale_open_tx(tx, sale.sale_id, sale.currency, new_cart, worth_minor, now_ms)?;
    let credit_minor = worth_minor.min(open);
    let mut rest = credit_minor;
    let mut from = Vec::new();
    for t in sale.tenders.iter().filter(|t| t.kind == TenderKind::Card) {
        unsettled(sale, t)?;
        let take = rest.min(t.left_minor);
        if take > 0 {
            from.push((t.seq, take));
            rest -= take;
        }
    }
    if rest > 0 && sale.tenders.iter().any(|t| t.kind == TenderKind::Store && t.left_minor > 0) {
        return Err(Error::RestoredStoreTender { register: sale.source.clone(), sale: sale.sale_id });
    }
    for t in sale.tenders.iter().filter(|t| t.kind == TenderKind::Cash) {
        let take = rest.min(t.left_minor);
        if take > 0 {
            from.push((t.seq, take));
            rest -= take;
        }
    }
    if rest > 0 {
        let refundable = sale.tenders.iter().filter(|t| t.kind != TenderKind::Store).map(|t| t.left_minor).sum();
        return Err(Error::RestoredRefundExceeds { register: sale.source.clone(), sale: sale.sale_id, requested_minor: credit_minor, refundable_minor: refundable });
    }
    Ok(CreditPlan { new_cart, credit_minor, from })
}

/// Writes the restored exchange and its credits, and queues its `exchange_recorded` fact
/// with `sale_register` naming the predecessor and its `credit_parts` (v42's
/// `restored_exchanges_sent`, its trigger v44's), right after the return's own fact, the
/// credit rows first (the trigger reads them); answers its id. The back office keeps the restored
/// return under the predecessor's sale and the link naming that register (record 0153,
/// addendum "the link to the back office").
fn write_credit_tx(tx: &WriteTx<'_>, return_id: i64, plan: &CreditPlan, staff: Option<i64>, now_ms: i64) -> Result<i64> {
    tx.exec_cached(
        "INSERT INTO restored_exchanges (return_id, new_cart_id, credit_minor, created_at_ms, staff_id) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![return_id, plan.new_cart.0, plan.credit_minor, now_ms, staff],
    )?;
    let id = tx.last_insert_rowid();
    for (seq, amount) in &plan.from {
        tx.exec_cached(
            "INSERT INTO restored_exchange_credits (exchange_id, tender_seq, amount_minor) VALUES (?1, ?2, ?3)",
            params![id, seq, amount],
        )?;
    }
    tx.exec_cached("INSERT INTO restored_exchanges_sent (exchange_id) VALUES (?1)", [id])?;
    Ok(id)
}

/// The restored exchange's audit row, after the return's.
fn audit_credit_tx(tx: &WriteTx<'_>, (id, return_id): (i64, i64), sale: &RestoredSale, plan: &CreditPlan, staff: Option<i64>, now_ms: i64) -> Result<()> {
    let after = serde_json::json!({
        "source": sale.source, "old_sale": sale.sale_id, "new_sale": plan.new_cart.0, "return_id": return_id, "credit": plan.credit_minor,
        "from_tenders": plan.from.iter().map(|(t, a)| serde_json::json!({ "tender_seq": t, "amount": a })).collect::<Vec<_>>(),
    });
    let entry = AuditInput {
        actor_id: staff,
        after: Some(after.to_string()),
        ..AuditInput::new(
            "restored_sale_exchange",
            &format!("restored exchange {id}: sale {} of register {} to sale {}", sale.sale_id, sale.source, plan.new_cart.0),
        )
    };
    append_audit(tx, &entry, now_ms)?;
    Ok(())
}

/// The return's number: the sale's receipt number and its place among all its returns.
fn number_of(sale: &RestoredSale) -> (i64, String) {
    let seq = sale.returns_so_far + 1;
    (seq, format!("{}-R{seq}", sale.receipt_no))
}

/// `total` back through the sale's tenders: cards first, each at most what it has left and
/// each its own refund row and key; then cash out of this register's open shift (record
/// 0032's order). A store tender is never given back here, and never turned into cash.
fn give_back_tx(tx: &WriteTx<'_>, sale: &RestoredSale, total: i64, input: &RestoredReturnInput<'_>, keys: &mut Vec<String>) -> Result<GivenBack> {
    let mut rest = total;
    let mut given = GivenBack { links: Vec::new(), refunds: Vec::new(), cash_out: 0 };
    for t in sale.tenders.iter().filter(|t| t.kind == TenderKind::Card) {
        unsettled(sale, t)?;
        let take = rest.min(t.left_minor);
        if take <= 0 {
            continue;
        }
        let pid = restored_payment_tx(tx, sale, t, input.now_ms)?;
        let key = keys.pop().ok_or_else(|| Error::InvalidInput("the sale changed; return again".into()))?;
        let refund = create_refund_tx(tx, &key, pid, take, input.reason, None, input.now_ms)?;
        given.links.push(Link { tender_seq: t.seq, amount: take, refund: Some(refund.id.0), movement: None });
        given.refunds.push(refund);
        rest -= take;
    }
    if rest > 0 && sale.tenders.iter().any(|t| t.kind == TenderKind::Store && t.left_minor > 0) {
        return Err(Error::RestoredStoreTender { register: sale.source.clone(), sale: sale.sale_id });
    }
    for t in sale.tenders.iter().filter(|t| t.kind == TenderKind::Cash) {
        let take = rest.min(t.left_minor);
        if take <= 0 {
            continue;
        }
        // Cash leaves THIS register's drawer: an open shift's, counted at its close.
        crate::ledger::shift::admit_money_tx(tx)?;
        tx.exec_cached(
            "INSERT INTO cash_movements (at_ms, kind, amount_minor, currency, cart_id, tender_id, shift_id, staff_id)
             VALUES (?1, 'refund_out', ?2, ?3, NULL, NULL, (SELECT id FROM shifts WHERE closed_at_ms IS NULL),
                     (SELECT staff_id FROM register_session WHERE id = 1))",
            params![input.now_ms, -take, sale.currency.code()],
        )?;
        given.links.push(Link { tender_seq: t.seq, amount: take, refund: None, movement: Some(tx.last_insert_rowid()) });
        given.cash_out += take;
        rest -= take;
    }
    if rest > 0 {
        let refundable = sale.tenders.iter().filter(|t| t.kind != TenderKind::Store).map(|t| t.left_minor).sum();
        return Err(Error::RestoredRefundExceeds { register: sale.source.clone(), sale: sale.sale_id, requested_minor: total, refundable_minor: refundable });
    }
    Ok(given)
}

/// The return's rows: the return, its lines, rates and links. Answers its id.
fn insert_tx(tx: &WriteTx<'_>, sale: &RestoredSale, valued: &ReturnTax, given: &GivenBack, staff: Option<i64>, input: &RestoredReturnInput<'_>) -> Result<i64> {
    let (seq, number) = number_of(sale);
    tx.exec_cached(
        "INSERT INTO restored_returns (source, sale_id, receipt_no, sale_at_ms, seq, number, created_at_ms, staff_id, reason, currency,
                                       total_minor, tax_minor, cash_out_minor)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            sale.source,
            sale.sale_id,
            sale.receipt_no,
            sale.completed_at_ms,
            seq,
            number,
            input.now_ms,
            staff,
            input.reason,
            sale.currency.code(),
            valued.total,
            valued.tax_total,
            given.cash_out
        ],
    )?;
    let id = tx.last_insert_rowid();
    for l in &valued.lines {
        let line = &sale.lines[l.line];
        tx.exec_cached(
            "INSERT INTO restored_return_lines (return_id, line, sku, name, sold, quantity, class, net_minor) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![id, l.line as i64, line.sku, line.name, line.quantity, l.quantity, class_str(l.class), l.net],
        )?;
    }
    for r in &valued.rates {
        tx.exec_cached(
            "INSERT INTO restored_return_rates (return_id, class, ppm, base_minor, tax_minor, gross_minor) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, class_str(r.class), r.ppm, r.base, r.tax, r.gross],
        )?;
    }
    for k in &given.links {
        tx.exec_cached(
            "INSERT INTO restored_return_tenders (return_id, tender_seq, amount_minor, refund_id, movement_id) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, k.tender_seq, k.amount, k.refund, k.movement],
        )?;
    }
    Ok(id)
}

/// A card payment of the sale whose outcome the predecessor never learned (or whose PSP id
/// it never had) cannot be given back on: refused, named.
pub(super) fn unsettled(sale: &RestoredSale, t: &RestoredTender) -> Result<()> {
    let state = t.payment_state.unwrap_or(PaymentState::Created);
    let ended_unpaid = matches!(state, PaymentState::Failed | PaymentState::Canceled);
    let settled = super::sale::money_taken(state) || ended_unpaid;
    let paid_without_id = super::sale::money_taken(state) && state != PaymentState::Refunded && t.psp_id.is_none();
    if !settled || paid_without_id {
        return Err(Error::RestoredPaymentUnsettled {
            register: sale.source.clone(),
            sale: sale.sale_id,
            checkout_key: t.checkout_key.clone().unwrap_or_default(),
            state: if paid_without_id { format!("{} without a PSP id", state.as_str()) } else { state.as_str().to_string() },
        });
    }
    Ok(())
}

/// The typed refusals, in the sale's terms, before anything is valued (as a local return's).
fn check_items(sale: &RestoredSale, items: &[Returned]) -> Result<()> {
    let mut seen = vec![false; sale.lines.len()];
    for r in items {
        let Some(line) = sale.lines.get(r.line) else {
            return Err(Error::ReturnUnknownLine { cart_id: sale.sale_id, line: r.line, lines: sale.lines.len() });
        };
        if r.quantity == 0 || std::mem::replace(&mut seen[r.line], true) {
            return Err(Error::InvalidInput(format!("line {}: each line once, with a quantity of 1 or more", r.line)));
        }
        if line.weighed && r.quantity != 1 {
            return Err(Error::WeighedLineWhole { line_no: r.line as i64 + 1 });
        }
        let before = sale.returned[r.line];
        if r.quantity > line.quantity.saturating_sub(before) {
            return Err(Error::ReturnExceedsSold { cart_id: sale.sale_id, line: r.line, sold: line.quantity, returned_before: before, requested: r.quantity });
        }
    }
    Ok(())
}

/// The sale as `return_tax` takes it: its lines with their discounts as the amounts they
/// took, its sale discount as an amount, and this store's tax settings for its day in the
/// sale's price mode. Checked: `compute` gives exactly the fact's figures per rate and in
/// total, or the sale is refused as not valued here (another rounding, another rate).
fn valuation(tx: &WriteTx<'_>, sale: &RestoredSale) -> Result<(Cart, TaxSettings)> {
    let (mut settings, date) = tax_setup_on_tx(tx, sale.completed_at_ms)?;
    if let Some(mode) = sale.price_mode {
        settings.price_mode = mode;
    }
    let lines = sale
        .lines
        .iter()
        .map(|l| Line { unit_price: l.unit_price, quantity: l.quantity, class: l.class, discount: (l.discount > 0).then_some(Discount::Amount { amount: l.discount }) })
        .collect();
    let cart = Cart {
        lines,
        dining: sale.dining,
        sale_discount: (sale.sale_discount > 0).then_some(Discount::Amount { amount: sale.sale_discount }),
        date,
        exempt: sale.tax_exempt,
    };
    let not_valued = |why: String| Error::RestoredSaleNotValued { register: sale.source.clone(), sale: sale.sale_id, why };
    let got = compute(&cart, &settings).map_err(|e| not_valued(e.to_string()))?;
    if got.total != sale.total_minor {
        return Err(not_valued(format!("its total is {}, this register's tax gives {}", sale.total_minor, got.total)));
    }
    if sale.price_mode.is_some() {
        let mine: Vec<RateReturn> = got.rates.iter().map(|r| RateReturn { class: r.class, ppm: r.ppm, base: r.base, tax: r.tax, gross: r.gross }).collect();
        let mut theirs = sale.rates.clone();
        let mut mine_sorted = mine;
        theirs.sort_by_key(|r| class_str(r.class));
        mine_sorted.sort_by_key(|r| class_str(r.class));
        if theirs != mine_sorted {
            return Err(not_valued("its tax per rate is not what this register's tax settings for its day give".into()));
        }
    }
    Ok((cart, settings))
}

/// A return never gives back more at a rate than the sale took there less every return so
/// far. The valuation is exact for discounts by amount; a percentage line discount is
/// valued here as the amount it took, kept in proportion, which can differ by a minor unit
/// from what the predecessor's own returns gave for their part. Any such unit over what is
/// left comes off this return's base first, then its tax.
fn cap_to_what_is_left(sale: &RestoredSale, v: &mut ReturnTax) {
    for r in &mut v.rates {
        let sold: i64 = sale.rates.iter().filter(|s| s.class == r.class).map(|s| s.gross).sum();
        let sold = if sale.price_mode.is_none() { sale.total_minor } else { sold };
        let back: i64 = sale.returned_gross.iter().filter(|(c, _)| *c == r.class).map(|(_, g)| g).sum();
        let over = r.gross - (sold - back).max(0);
        if over > 0 {
            let from_base = over.min(r.base);
            r.base -= from_base;
            r.tax -= (over - from_base).min(r.tax);
            r.gross = r.base + r.tax;
        }
    }
    v.total = v.rates.iter().map(|r| r.gross).sum();
    v.tax_total = v.rates.iter().map(|r| r.tax).sum();
}

/// The predecessor's payment as a row of this ledger, made once (named in
/// `restored_payments` first, so the outbox's payment triggers skip it). `refunded_minor`
/// starts at what the predecessor's refunds of it succeeded in giving back.
pub(super) fn restored_payment_tx(tx: &WriteTx<'_>, sale: &RestoredSale, t: &RestoredTender, now_ms: i64) -> Result<PaymentId> {
    let key = t.checkout_key.as_deref().expect("a card tender names its payment");
    let known: Option<(String, Option<i64>)> = tx
        .row_cached("SELECT source, payment_id FROM restored_payments WHERE checkout_key = ?1", [key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    match known {
        Some((source, Some(pid))) if source == sale.source => return Ok(PaymentId(pid)),
        Some(_) => return Err(Error::InvalidInput(format!("payment {key} is held here for another register"))),
        None => {}
    }
    let own: i64 = tx.row_cached("SELECT count(*) FROM payments WHERE idempotency_key = ?1", [key], |r| r.get(0))?;
    if own > 0 {
        return Err(Error::InvalidInput(format!("payment {key} of register {} has the key of one of this register's own", sale.source)));
    }
    tx.exec_cached(
        "INSERT INTO restored_payments (checkout_key, source, payment_id, predecessor_refunds_minor) VALUES (?1, ?2, NULL, ?3)",
        params![key, sale.source, t.predecessor_minor],
    )?;
    let state = if t.predecessor_succeeded_minor > 0 { PaymentState::PartiallyRefunded } else { PaymentState::Captured }.as_str();
    tx.exec_cached(
        "INSERT INTO payments (idempotency_key, psp_payment_id, amount_minor, currency, state, capture_method, request_params, cart_id,
                               offline, created_at_ms, updated_at_ms, refunded_minor)
         VALUES (?1, ?2, ?3, ?4, ?5, 'automatic', '[]', NULL, 0, ?6, ?6, ?7)",
        params![key, t.psp_id, t.amount_minor, sale.currency.code(), state, now_ms, t.predecessor_succeeded_minor],
    )?;
    let pid = tx.last_insert_rowid();
    tx.exec_cached("UPDATE restored_payments SET payment_id = ?2 WHERE checkout_key = ?1", params![key, pid])?;
    Ok(PaymentId(pid))
}

/// The return's facts for the back office, in its transaction: each cash movement as
/// `cash_refunded` (no trigger sends a movement without a sale of this register), then the
/// return (`restored_return_facts`), both naming the predecessor as `sale_register`. The
/// card refunds went up through v7's triggers already.
fn send_tx(tx: &WriteTx<'_>, id: i64, sale: &RestoredSale, links: &[Link]) -> Result<()> {
    for k in links {
        if let Some(m) = k.movement {
            cash_refunded_fact_tx(tx, m, sale)?;
        }
    }
    let n = tx.exec_cached(
        "INSERT INTO outbox (seq, at_ms, fact)
         SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), f.at_ms, f.fact FROM restored_return_facts f WHERE f.return_id = ?1",
        [id],
    )?;
    assert_eq!(n, 1, "restored return {id} has its one fact");
    Ok(())
}

/// The `cash_refunded` fact of drawer movement `m`, cash given back for the restored sale,
/// naming the predecessor as `sale_register` (no trigger sends a movement without a sale of
/// this register). Also for a restored credit's give-back (record 0156).
pub(super) fn cash_refunded_fact_tx(tx: &WriteTx<'_>, m: i64, sale: &RestoredSale) -> Result<()> {
    tx.exec_cached(
        "INSERT INTO outbox (seq, at_ms, fact)
         SELECT (SELECT high_water + 1 FROM outbox_seq WHERE id = 1), m.at_ms,
                json_object('kind', 'cash_refunded', 'movement', m.id, 'sale', ?2, 'amount', -m.amount_minor,
                            'currency', m.currency, 'shift', m.shift_id, 'sale_register', ?3)
         FROM cash_movements m WHERE m.id = ?1",
        params![m, sale.sale_id, sale.source],
    )?;
    Ok(())
}

/// The audit row of the return: which sale of which register, which lines, how much back and how.
fn audit_tx(tx: &WriteTx<'_>, id: i64, sale: &RestoredSale, v: &ReturnTax, given: &GivenBack, (staff, input): (Option<i64>, &RestoredReturnInput<'_>)) -> Result<()> {
    let (_, number) = number_of(sale);
    let lines: Vec<_> = v.lines.iter().map(|l| serde_json::json!({ "line": l.line, "sku": sale.lines[l.line].sku, "quantity": l.quantity })).collect();
    let after = serde_json::json!({
        "source": sale.source, "sale": sale.sale_id, "receipt_no": sale.receipt_no, "number": number, "lines": lines,
        "total": v.total, "tax": v.tax_total, "cash_out": given.cash_out, "card_refunds": given.refunds.len(),
    });
    let entry = AuditInput {
        actor_id: staff,
        reason: input.reason.map(str::to_string),
        after: Some(after.to_string()),
        ..AuditInput::new("restored_sale_return", &format!("restored return {id}: {number} (sale {} of register {})", sale.sale_id, sale.source))
    };
    append_audit(tx, &entry, input.now_ms)?;
    Ok(())
}
