//! A restored sale rebuilt from its predecessor's facts (record 0144): the `sale_completed`
//! fact gives its lines, tax per rate and receipt number; `tender_added` (less
//! `tender_superseded`) its tenders; each card tender's `payment_created`/`payment_state`
//! facts its payment (amount, last state, PSP id) and `refund_created`/`refund_state` what
//! the predecessor refunded of it; `return_recorded`, `cash_refunded` and `store_refunded`
//! what the predecessor gave back. What this register gave back since is read from its own
//! tables (`restored_returns`, `restored_payments` and their refunds).

use paydesk_domain::{Currency, PaymentState, TenderKind};
use paydesk_tax::{Dining, PriceMode, RateReturn, TaxClass};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::{collect, Cached};
use crate::error::{Error, Result};

/// One line of a restored sale, as its `sale_completed` fact lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredSaleLine {
    pub sku: String,
    pub name: String,
    pub quantity: u32,
    pub unit_price: i64,
    /// The class the fact names (the item's; `compute` applies the sale's dining to it).
    pub class: TaxClass,
    /// What the line's own discount took off `unit_price × quantity`.
    pub discount: i64,
    pub total: i64,
    /// A weighed line (record 0134): it comes back whole.
    pub weighed: bool,
}

/// One tender of a restored sale and what is left to give back through it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredTender {
    /// Its place in the sale (`tender_seq`).
    pub seq: i64,
    pub kind: TenderKind,
    pub amount_minor: i64,
    /// A card tender's payment: its key, PSP id and last state in the predecessor's history.
    pub checkout_key: Option<String>,
    pub psp_id: Option<String>,
    pub payment_state: Option<PaymentState>,
    /// Given back through it so far, by the predecessor and by this register (a card's
    /// refunds not failed: succeeded or still unsure).
    pub given_back_minor: i64,
    /// Of that, what the predecessor's own refunds took (cards: succeeded or unsure).
    pub predecessor_minor: i64,
    /// Of that, what the predecessor's refunds that succeeded took (cards only).
    pub predecessor_succeeded_minor: i64,
    /// What exchanges made here credited out of it (record 0153) and still hold: paying
    /// another sale now (what a credit gave back since, record 0156, is in `given_back_minor`).
    #[serde(default)]
    pub credited_minor: i64,
    /// What the predecessor's own exchanges credited out of it (record 0157: their facts'
    /// `credit_parts`), counted as still held.
    #[serde(default)]
    pub credited_there_minor: i64,
    /// What can still go back through it.
    pub left_minor: i64,
}

/// A sale of a predecessor, rebuilt from its restored facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredSale {
    /// The predecessor's register id.
    pub source: String,
    /// Its sale id there.
    pub sale_id: i64,
    pub receipt_no: String,
    /// When the predecessor completed it (the `sale_completed` row's time).
    pub completed_at_ms: i64,
    pub currency: Currency,
    pub dining: Dining,
    /// `None`: no tax was computed (exempt lines, no discount).
    pub price_mode: Option<PriceMode>,
    pub sale_discount: i64,
    pub tax_exempt: bool,
    pub total_minor: i64,
    pub tax_minor: i64,
    pub canceled: bool,
    pub lines: Vec<RestoredSaleLine>,
    /// The sale's figures per rate, as the fact states them.
    pub rates: Vec<RateReturn>,
    pub tenders: Vec<RestoredTender>,
    /// How many of each line came back so far: the predecessor's returns and this register's.
    pub returned: Vec<u32>,
    /// What all its returns so far gave back per rate (gross), by class.
    pub returned_gross: Vec<(TaxClass, i64)>,
    /// How many returns it has had (the predecessor's and this register's): the next is `+ 1`.
    pub returns_so_far: i64,
}

/// The kinds of fact keyed by `$.sale` (the partial index `restored_history_by_sale`).
pub(super) const SALE_KINDS: &str =
    "kind IN ('sale_completed', 'sale_canceled', 'tender_added', 'tender_superseded', 'return_recorded', 'cash_refunded', 'store_refunded')";

fn bad(source: &str, sale: i64, why: impl Into<String>) -> Error {
    Error::RestoredSaleNotValued { register: source.to_string(), sale, why: why.into() }
}

pub(super) fn int(v: &Value, field: &str, source: &str, sale: i64) -> Result<i64> {
    v.get(field).and_then(Value::as_i64).ok_or_else(|| bad(source, sale, format!("its facts have no number {field}")))
}

pub(super) fn text(v: &Value, field: &str, source: &str, sale: i64) -> Result<String> {
    v.get(field).and_then(Value::as_str).map(str::to_string).ok_or_else(|| bad(source, sale, format!("its facts have no text {field}")))
}

fn class(v: &Value, field: &str, source: &str, sale: i64) -> Result<TaxClass> {
    serde_json::from_value(v.get(field).cloned().unwrap_or(Value::Null)).map_err(|_| bad(source, sale, format!("its facts name no tax class {field}")))
}

/// The source must be one this register restored from, its history held whole.
pub(super) fn finished_source(conn: &Connection, source: &str) -> Result<()> {
    let finished: Option<Option<i64>> = conn
        .row_cached("SELECT finished_at_ms FROM restore_sources WHERE register_id = ?1", [source], |r| r.get(0))
        .optional()?;
    match finished {
        None => Err(Error::UnknownRestoreSource { register: source.to_string() }),
        Some(None) => Err(Error::RestoreNotFinished { register: source.to_string() }),
        Some(Some(_)) => Ok(()),
    }
}

/// The predecessors whose history has a completed sale with this receipt number, and its id.
pub(super) fn by_receipt(conn: &Connection, receipt_no: &str) -> Result<Vec<(String, i64)>> {
    // The receipt number is the sale id zero-padded (sync-proto's `SaleCompleted`): the
    // index by sale finds it.
    let Some(sale) = receipt_no.parse::<i64>().ok().filter(|n| *n >= 1 && receipt_no.len() <= 20 && receipt_no.bytes().all(|b| b.is_ascii_digit())) else {
        return Ok(Vec::new());
    };
    collect(
        conn,
        &format!(
            "SELECT h.source FROM restore_sources s JOIN restored_history h ON h.source = s.register_id
             WHERE json_extract(h.fact, '$.sale') = ?1 AND {SALE_KINDS} AND h.kind = 'sale_completed'
               AND json_extract(h.fact, '$.receipt_no') = ?2 ORDER BY s.started_at_ms, s.register_id"
        ),
        params![sale, receipt_no],
        |r| Ok(Ok((r.get::<_, String>(0)?, sale))),
    )
}

/// The restored sale `sale` of `source`, with what is left of it after every return and
/// refund so far (the predecessor's and this register's).
pub(super) fn restored_sale_tx(conn: &Connection, source: &str, sale: i64) -> Result<RestoredSale> {
    finished_source(conn, source)?;
    let rows = sale_facts(conn, source, sale)?;
    let Some((completed_at_ms, done)) = rows.iter().find(|(_, k, _)| k == "sale_completed").map(|(at, _, v)| (*at, v)) else {
        return Err(Error::UnknownRestoredSale { register: source.to_string(), sale });
    };
    let (lines, rates) = completed(done, source, sale)?;
    let mut given = predecessor_gave(&rows, lines.len(), source, sale)?;
    this_register_gave(conn, source, sale, &mut given)?;
    tenders_left(conn, source, sale, &mut given)?;
    Ok(RestoredSale {
        source: source.to_string(),
        sale_id: sale,
        receipt_no: text(done, "receipt_no", source, sale)?,
        completed_at_ms,
        currency: text(done, "currency", source, sale)?.parse()?,
        dining: serde_json::from_value(done.get("dining").cloned().unwrap_or(Value::Null)).map_err(|_| bad(source, sale, "no dining"))?,
        price_mode: serde_json::from_value(done.get("price_mode").cloned().unwrap_or(Value::Null)).map_err(|_| bad(source, sale, "no price mode"))?,
        sale_discount: int(done, "sale_discount", source, sale)?,
        tax_exempt: done.get("tax_exempt_reason").is_some_and(|r| !r.is_null()),
        total_minor: int(done, "total", source, sale)?,
        tax_minor: int(done, "tax_total", source, sale)?,
        canceled: given.canceled,
        lines,
        rates,
        tenders: given.tenders,
        returned: given.returned,
        returned_gross: given.returned_gross,
        returns_so_far: given.returns_so_far,
    })
}

/// What each tender has left to give back: what it paid, less what was given back through
/// it (the predecessor's and this register's), less what exchange credits took out of it
/// and still hold: this register's (record 0153) and the predecessor's own, as their facts'
/// `credit_parts` name them (record 0157).
fn tenders_left(conn: &Connection, source: &str, sale: i64, given: &mut Given) -> Result<()> {
    let there = credited_there(conn, source, sale)?;
    if let Some((seq, _)) = there.iter().find(|(seq, _)| !given.tenders.iter().any(|t| t.seq == *seq)) {
        return Err(bad(source, sale, format!("an exchange there credits tender {seq}, which it does not have")));
    }
    for t in &mut given.tenders {
        // What this register's exchanges credited out of it pays another sale now: not
        // there to give back (record 0153); nor what the predecessor's did (record 0157).
        t.credited_minor = credited_tx(conn, source, sale, t.seq)?;
        t.credited_there_minor = there.iter().filter(|(seq, _)| *seq == t.seq).map(|(_, a)| a).sum();
        let credited = t.credited_minor + t.credited_there_minor;
        match t.kind {
            TenderKind::Card => {
                card_left(conn, source, sale, t)?;
                t.left_minor = (t.left_minor - credited).max(0);
            }
            // Cash as one pool taken off the tenders in order (a cash refund names the sale,
            // not the tender), each tender's credits out first: the pool never lands on money
            // a credit holds, so no tender shows more left than the sale's cash has.
            TenderKind::Cash => {
                let room = (t.amount_minor - credited).max(0);
                let took = given.cash_back.min(room);
                given.cash_back -= took;
                t.given_back_minor = took;
                t.left_minor = room - took;
            }
            TenderKind::Store => {
                t.given_back_minor = given.store_back.iter().filter(|(s, _)| *s == t.seq).map(|(_, a)| a).sum();
                t.left_minor = (t.amount_minor - t.given_back_minor - credited).max(0);
            }
        }
    }
    Ok(())
}

/// What the predecessor's own exchanges of the sale took out of each of its tenders, by
/// `tender_seq`, as their `exchange_recorded` facts' `credit_parts` say (record 0157; a
/// part-less fact adds nothing here and is refused by [`exchanged_there`]). Counted whole:
/// what such a credit gave back at the predecessor since is in that tender's refunds or the
/// sale's cash back too, and the facts cannot tell the two apart, so the tender then shows
/// less left than it has, never more. A part carried on from an earlier credit
/// (`credit_carried`) is not the sale's money and is not here.
fn credited_there(conn: &Connection, source: &str, sale: i64) -> Result<Vec<(i64, i64)>> {
    collect(
        conn,
        "SELECT json_extract(p.value, '$.tender_seq'), SUM(json_extract(p.value, '$.amount'))
         FROM restored_history h, json_each(h.fact, '$.credit_parts') p
         WHERE h.source = ?1 AND h.kind = 'exchange_recorded' AND json_extract(h.fact, '$.old_sale') = ?2
           AND json_extract(h.fact, '$.sale_register') IS NULL
         GROUP BY 1 ORDER BY 1",
        params![source, sale],
        |r| Ok(Ok((r.get(0)?, r.get(1)?))),
    )
}

/// The facts of the predecessor naming the sale, in its order: (time, kind, fact).
fn sale_facts(conn: &Connection, source: &str, sale: i64) -> Result<Vec<(i64, String, Value)>> {
    collect(
        conn,
        // A fact naming a `sale_register` is about a sale the predecessor itself restored
        // (another register's, whose id may be this one's): not this sale's.
        &format!(
            "SELECT at_ms, kind, fact FROM restored_history WHERE source = ?1 AND json_extract(fact, '$.sale') = ?2 AND {SALE_KINDS}
                                                               AND json_extract(fact, '$.sale_register') IS NULL ORDER BY seq"
        ),
        params![source, sale],
        |r| {
            let (at, kind, fact): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
            Ok(serde_json::from_str::<Value>(&fact).map_err(Error::from).map(|v| (at, kind, v)))
        },
    )
}

/// The lines and the per-rate figures of a `sale_completed` fact.
fn completed(done: &Value, source: &str, sale: i64) -> Result<(Vec<RestoredSaleLine>, Vec<RateReturn>)> {
    let mut lines = Vec::new();
    for l in done.get("lines").and_then(Value::as_array).into_iter().flatten() {
        lines.push(RestoredSaleLine {
            sku: text(l, "sku", source, sale)?,
            name: text(l, "name", source, sale)?,
            quantity: u32::try_from(int(l, "quantity", source, sale)?).map_err(|_| Error::Overflow)?,
            unit_price: int(l, "unit_price", source, sale)?,
            class: class(l, "tax_class", source, sale)?,
            discount: int(l, "discount", source, sale)?,
            total: int(l, "total", source, sale)?,
            weighed: l.get("unit").is_some_and(|u| !u.is_null()),
        });
    }
    if lines.is_empty() || lines.len() > paydesk_tax::MAX_LINES {
        return Err(bad(source, sale, "its fact has no lines"));
    }
    let mut rates = Vec::new();
    for r in done.get("rates").and_then(Value::as_array).into_iter().flatten() {
        // An older register's fact says basis points (record 0131).
        let ppm = match r.get("ppm").and_then(Value::as_i64) {
            Some(p) => p,
            None => int(r, "basis_points", source, sale)? * 100,
        };
        rates.push(RateReturn {
            class: class(r, "class", source, sale)?,
            ppm: u32::try_from(ppm).map_err(|_| Error::Overflow)?,
            base: int(r, "base", source, sale)?,
            tax: int(r, "tax", source, sale)?,
            gross: int(r, "gross", source, sale)?,
        });
    }
    Ok((lines, rates))
}

/// What was given back of a sale so far, and its tenders.
struct Given {
    returned: Vec<u32>,
    returned_gross: Vec<(TaxClass, i64)>,
    returns_so_far: i64,
    /// Cash given back for the sale (all its cash tenders together).
    cash_back: i64,
    /// (tender_seq, amount) given back through a store tender.
    store_back: Vec<(i64, i64)>,
    canceled: bool,
    tenders: Vec<RestoredTender>,
}

/// What the predecessor's facts say: its returns, cash and store refunds, a cancel, and the
/// sale's tenders (less those superseded).
fn predecessor_gave(rows: &[(i64, String, Value)], lines: usize, source: &str, sale: i64) -> Result<Given> {
    let mut g = Given { returned: vec![0; lines], returned_gross: Vec::new(), returns_so_far: 0, cash_back: 0, store_back: Vec::new(), canceled: false, tenders: Vec::new() };
    for (_, kind, v) in rows {
        match kind.as_str() {
            "return_recorded" => {
                g.returns_so_far += 1;
                for l in v.get("lines").and_then(Value::as_array).into_iter().flatten() {
                    let i = usize::try_from(int(l, "line", source, sale)?).map_err(|_| Error::Overflow)?;
                    let q = u32::try_from(int(l, "quantity", source, sale)?).map_err(|_| Error::Overflow)?;
                    *g.returned.get_mut(i).ok_or_else(|| bad(source, sale, format!("a return of it names line {i}")))? += q;
                }
                for r in v.get("rates").and_then(Value::as_array).into_iter().flatten() {
                    add_gross(&mut g.returned_gross, class(r, "class", source, sale)?, int(r, "gross", source, sale)?);
                }
            }
            "cash_refunded" => g.cash_back += int(v, "amount", source, sale)?,
            "store_refunded" => g.store_back.push((int(v, "tender_seq", source, sale)?, int(v, "amount", source, sale)?)),
            "sale_canceled" => g.canceled = true,
            "tender_added" => g.tenders.push(tender(v, source, sale)?),
            "tender_superseded" => {
                let seq = int(v, "tender_seq", source, sale)?;
                g.tenders.retain(|t| t.seq != seq);
            }
            _ => {}
        }
    }
    Ok(g)
}

/// A `tender_added` fact as a tender with nothing given back yet.
fn tender(v: &Value, source: &str, sale: i64) -> Result<RestoredTender> {
    let seq = int(v, "tender_seq", source, sale)?;
    let kind = match v.get("method") {
        Some(Value::String(m)) if m == "card" => TenderKind::Card,
        Some(Value::String(m)) if m == "cash" => TenderKind::Cash,
        Some(Value::Object(o)) if o.contains_key("store") => TenderKind::Store,
        _ => return Err(bad(source, sale, format!("tender {seq} has no method this register knows"))),
    };
    Ok(RestoredTender {
        seq,
        kind,
        amount_minor: int(v, "amount", source, sale)?,
        checkout_key: v.get("checkout_key").and_then(Value::as_str).map(str::to_string),
        psp_id: None,
        payment_state: None,
        given_back_minor: 0,
        predecessor_minor: 0,
        predecessor_succeeded_minor: 0,
        credited_minor: 0,
        credited_there_minor: 0,
        left_minor: 0,
    })
}

/// This register's own returns of the sale: lines, per-rate gross, how many, cash out.
fn this_register_gave(conn: &Connection, source: &str, sale: i64, g: &mut Given) -> Result<()> {
    let mine: Vec<(i64, i64)> = collect(
        conn,
        "SELECT l.line, SUM(l.quantity) FROM restored_return_lines l JOIN restored_returns r ON r.id = l.return_id
         WHERE r.source = ?1 AND r.sale_id = ?2 GROUP BY l.line",
        params![source, sale],
        |r| Ok(Ok((r.get(0)?, r.get(1)?))),
    )?;
    for (line, q) in mine {
        let slot = g.returned.get_mut(usize::try_from(line).map_err(|_| Error::Overflow)?).ok_or(Error::Overflow)?;
        *slot += u32::try_from(q).map_err(|_| Error::Overflow)?;
    }
    let rates: Vec<(String, i64)> = collect(
        conn,
        "SELECT x.class, SUM(x.gross_minor) FROM restored_return_rates x JOIN restored_returns r ON r.id = x.return_id
         WHERE r.source = ?1 AND r.sale_id = ?2 GROUP BY x.class",
        params![source, sale],
        |r| Ok(Ok((r.get(0)?, r.get(1)?))),
    )?;
    for (c, gross) in rates {
        let c = crate::ledger::catalog::parse_class(&c).ok_or(Error::UnknownValue { what: "tax class", value: c })?;
        add_gross(&mut g.returned_gross, c, gross);
    }
    g.returns_so_far += conn.row_cached("SELECT count(*) FROM restored_returns WHERE source = ?1 AND sale_id = ?2", params![source, sale], |r| r.get::<_, i64>(0))?;
    g.cash_back += conn.row_cached(
        "SELECT COALESCE(SUM(t.amount_minor), 0) FROM restored_return_tenders t JOIN restored_returns r ON r.id = t.return_id
         WHERE r.source = ?1 AND r.sale_id = ?2 AND t.movement_id IS NOT NULL",
        params![source, sale],
        |r| r.get::<_, i64>(0),
    )?;
    // Cash a restored exchange's credit gave back from a later sale of this register (v43,
    // record 0156) left this drawer against the sale's cash: given back through it.
    g.cash_back += conn.row_cached(
        "SELECT COALESCE(SUM(g.amount_minor), 0) FROM restored_exchange_credit_returns g
           JOIN restored_exchange_credits c ON c.id = g.credit_id JOIN restored_exchanges x ON x.id = c.exchange_id
           JOIN restored_returns r ON r.id = x.return_id
         WHERE r.source = ?1 AND r.sale_id = ?2 AND g.movement_id IS NOT NULL",
        params![source, sale],
        |r| r.get::<_, i64>(0),
    )?;
    Ok(())
}

/// What this register's exchanges of the sale took out of its tender `seq` as credit and
/// still hold: less what the credits gave back since (v43, record 0156; a card refund that
/// failed gave nothing back). What was given back is counted as given back through the
/// tender instead (the card's refunds, the sale's cash back), once.
fn credited_tx(conn: &Connection, source: &str, sale: i64, seq: i64) -> Result<i64> {
    Ok(conn.row_cached(
        "SELECT COALESCE(SUM(c.amount_minor - COALESCE((
                    SELECT SUM(g.amount_minor) FROM restored_exchange_credit_returns g LEFT JOIN refunds rf ON rf.id = g.refund_id
                    WHERE g.credit_id = c.id AND (g.refund_id IS NULL OR rf.state != 'failed')), 0)), 0)
         FROM restored_exchange_credits c JOIN restored_exchanges x ON x.id = c.exchange_id
           JOIN restored_returns r ON r.id = x.return_id
         WHERE r.source = ?1 AND r.sale_id = ?2 AND c.tender_seq = ?3",
        params![source, sale, seq],
        |r| r.get(0),
    )?)
}

fn add_gross(into: &mut Vec<(TaxClass, i64)>, c: TaxClass, g: i64) {
    match into.iter_mut().find(|(k, _)| *k == c) {
        Some(e) => e.1 += g,
        None => into.push((c, g)),
    }
}

/// A card tender's payment as the predecessor's facts tell it, and what its refunds (the
/// predecessor's and this register's) took of it.
fn card_left(conn: &Connection, source: &str, sale: i64, t: &mut RestoredTender) -> Result<()> {
    let Some(key) = t.checkout_key.clone() else {
        return Err(bad(source, sale, format!("card tender {} names no payment", t.seq)));
    };
    let facts: Vec<(String, Value)> = collect(
        conn,
        "SELECT kind, fact FROM restored_history WHERE source = ?1 AND json_extract(fact, '$.checkout_key') = ?2
           AND kind IN ('payment_created', 'payment_state', 'refund_created') ORDER BY seq",
        params![source, key],
        |r| {
            let fact: String = r.get(1)?;
            Ok(serde_json::from_str::<Value>(&fact).map_err(Error::from).map(|v| (r.get::<_, String>(0).unwrap_or_default(), v)))
        },
    )?;
    let mut amount = None;
    let mut refunds: Vec<(String, i64)> = Vec::new();
    for (kind, v) in &facts {
        match kind.as_str() {
            "payment_created" => amount = v.get("amount").and_then(Value::as_i64),
            "payment_state" => {
                // A state this code does not know stays unknown: refused when money would go
                // through it, never guessed.
                t.payment_state = v.get("state").and_then(Value::as_str).and_then(|s| s.parse().ok());
                if let Some(id) = v.get("psp_id").and_then(Value::as_str) {
                    t.psp_id = Some(id.to_string());
                }
            }
            "refund_created" => refunds.push((text(v, "refund_key", source, sale)?, int(v, "amount", source, sale)?)),
            _ => {}
        }
    }
    if amount != Some(t.amount_minor) {
        return Err(bad(source, sale, format!("card tender {} and its payment {key} disagree on the amount", t.seq)));
    }
    for (refund_key, a) in refunds {
        let last: Option<String> = conn
            .row_cached(
                "SELECT json_extract(fact, '$.state') FROM restored_history WHERE source = ?1 AND json_extract(fact, '$.refund_key') = ?2
                   AND kind = 'refund_state' ORDER BY seq DESC LIMIT 1",
                params![source, refund_key],
                |r| r.get(0),
            )
            .optional()?;
        match last.as_deref() {
            // Failed: never given back. Anything else: given back, or maybe (unsure counts).
            Some("failed") => {}
            Some("succeeded") => {
                t.predecessor_minor += a;
                t.predecessor_succeeded_minor += a;
            }
            _ => t.predecessor_minor += a,
        }
    }
    let here: i64 = conn.row_cached(
        "SELECT COALESCE(SUM(f.amount_minor), 0) FROM restored_payments rp JOIN refunds f ON f.payment_id = rp.payment_id
         WHERE rp.checkout_key = ?1 AND rp.source = ?2 AND f.state != 'failed'",
        params![key, source],
        |r| r.get(0),
    )?;
    t.given_back_minor = t.predecessor_minor + here;
    // Only a payment whose money was taken and is settled has anything to give back; an
    // unsure one is refused when the money would go through it (the allocation's check).
    let paid = t.payment_state.is_some_and(money_taken);
    t.left_minor = if paid { (t.amount_minor - t.given_back_minor).max(0) } else { 0 };
    Ok(())
}

/// The money was taken at the PSP and the payment's outcome is settled (a refund may be on
/// its way). Every state named: a new one must say whether a restored return may give back
/// through it.
pub(super) fn money_taken(state: PaymentState) -> bool {
    match state {
        PaymentState::Captured | PaymentState::PartiallyRefunded | PaymentState::Refunded | PaymentState::Refunding => true,
        PaymentState::Created
        | PaymentState::QueuedOffline
        | PaymentState::Authorizing
        | PaymentState::Authorized
        | PaymentState::Capturing
        | PaymentState::Failed
        | PaymentState::Canceled
        | PaymentState::OnReader => false,
    }
}

/// Whether predecessor `source` made an exchange from its sale `sale` (record 0153) whose
/// fact names no tender (a register before record 0157). Such an exchange credited part of
/// the sale's tenders into another sale, and what each payment has left is not known here:
/// the simulation found a successor giving that money back a second time. Taking back or
/// exchanging such a sale is refused; the sale can still be looked up and shown. A fact
/// with `credit_parts` is counted in the rebuild instead ([`credited_there`]).
/// Only the predecessor's exchanges of its OWN sales count: one naming a `sale_register`
/// (v42) was of a sale it restored from a register before it, whose id says nothing of
/// the predecessor's own sale of the same id.
pub(super) fn exchanged_there(conn: &Connection, source: &str, sale: i64) -> Result<bool> {
    Ok(conn.row_cached(
        "SELECT EXISTS (SELECT 1 FROM restored_history WHERE source = ?1 AND kind = 'exchange_recorded' AND json_extract(fact, '$.old_sale') = ?2
                                                      AND json_extract(fact, '$.sale_register') IS NULL
                                                      AND json_type(fact, '$.credit_parts') IS NOT 'array')",
        params![source, sale],
        |r| r.get(0),
    )?)
}
