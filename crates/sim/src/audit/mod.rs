//! The audit: trusts neither side's bookkeeping. It reads the PSP's own SQLite store
//! (payment intents, charges, refunds, events) and the register's ledger (payments,
//! refunds, processed events, journal) directly, plus what the simulated cashier was
//! shown, and checks them against each other.

mod exchanges;
mod reader;
mod restored;
mod returns;
mod stores;
mod tenders;

pub use crate::invariant::{Invariant, MidCheck, RestoredCheck};
pub(crate) use restored::audit_restored;

use crate::world::block_on;
use crate::Sim;
use paydesk_domain::{PaymentState, RefundState};
use paydesk_register::CheckoutOutcome;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

pub struct AuditResult {
    pub checked: BTreeMap<String, u64>,
    pub violations_total: u64,
    /// Violations per invariant (exact, unlike the kept list).
    pub failed: BTreeMap<String, u64>,
    pub violations: Vec<String>,
    pub final_states: BTreeMap<String, u64>,
    pub digest: String,
}

/// Violations kept verbatim in the report (the total is always exact).
const KEEP: usize = 50;

struct Audit {
    checked: BTreeMap<String, u64>,
    failed: BTreeMap<String, u64>,
    total: u64,
    violations: Vec<String>,
}

impl Audit {
    /// One of the main audit's invariants, by its enum.
    fn inv(&mut self, inv: Invariant, ok: bool, what: impl FnOnce() -> String) {
        self.check(inv.name(), ok, what);
    }

    fn check(&mut self, name: &str, ok: bool, what: impl FnOnce() -> String) {
        *self.checked.entry(name.to_string()).or_default() += 1;
        if !ok {
            self.total += 1;
            *self.failed.entry(name.to_string()).or_default() += 1;
            if self.violations.len() < KEEP {
                self.violations.push(format!("{name}: {}", what()));
            }
        }
    }
}

#[derive(Debug, Clone)]
struct PspPi {
    id: String,
    key: String,
    sale: String,
    amount: i64,
    currency: String,
    status: String,
    amount_received: i64,
    charge: Option<String>,
    /// Created for a card reader (`payment_method_types` has `card_present`).
    card_present: bool,
}

#[derive(Debug, Clone)]
struct PspCharge {
    status: String,
    amount_refunded: i64,
    payment_intent: String,
}

#[derive(Debug, Clone)]
struct PspRefund {
    id: String,
    pi: String,
    refund_key: String,
    amount: i64,
    currency: String,
    status: String,
}

fn rows(sim: &Sim, sql: &'static str) -> Vec<String> {
    block_on(sim.psp.store().read(move |c| {
        let mut st = c.prepare(sql)?;
        let v = st.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<String>, _>>()?;
        Ok(v)
    }))
    .expect("reading the PSP's store")
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string()
}

fn fnv(h: &mut u64, s: &str) {
    for b in s.as_bytes().iter().chain(b"\x1f") {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x0100_0000_01b3);
    }
}

pub(crate) fn audit(sim: &Sim) -> AuditResult {
    let mut a = Audit { checked: BTreeMap::new(), failed: BTreeMap::new(), total: 0, violations: Vec::new() };

    // ---------------------------------------------------------------- the PSP's truth
    let pis: Vec<PspPi> = rows(sim, "SELECT obj FROM payment_intents ORDER BY seq")
        .iter()
        .map(|o| {
            let v: Value = serde_json::from_str(o).unwrap_or(Value::Null);
            PspPi {
                id: s(&v, "id"),
                key: v["metadata"]["checkout_key"].as_str().unwrap_or("").to_string(),
                sale: s(&v, "description"),
                amount: v["amount"].as_i64().unwrap_or(-1),
                currency: s(&v, "currency"),
                status: s(&v, "status"),
                amount_received: v["amount_received"].as_i64().unwrap_or(0),
                charge: v["latest_charge"].as_str().map(str::to_string),
                card_present: v["payment_method_types"].as_array().is_some_and(|t| t.iter().any(|x| x == "card_present")),
            }
        })
        .collect();
    let charges: HashMap<String, PspCharge> = rows(sim, "SELECT obj FROM charges")
        .iter()
        .map(|o| {
            let v: Value = serde_json::from_str(o).unwrap_or(Value::Null);
            (
                s(&v, "id"),
                PspCharge { status: s(&v, "status"), amount_refunded: v["amount_refunded"].as_i64().unwrap_or(0), payment_intent: s(&v, "payment_intent") },
            )
        })
        .collect();
    let psp_refunds: Vec<PspRefund> = rows(sim, "SELECT obj FROM refunds ORDER BY seq")
        .iter()
        .map(|o| {
            let v: Value = serde_json::from_str(o).unwrap_or(Value::Null);
            PspRefund {
                id: s(&v, "id"),
                pi: s(&v, "payment_intent"),
                refund_key: v["metadata"]["refund_key"].as_str().unwrap_or("").to_string(),
                amount: v["amount"].as_i64().unwrap_or(-1),
                currency: s(&v, "currency"),
                status: s(&v, "status"),
            }
        })
        .collect();
    let psp_events: Vec<String> = rows(sim, "SELECT id FROM events ORDER BY seq");

    // A charge exists when the card was authorized (captured or not).
    let charged = |p: &PspPi| p.charge.as_ref().and_then(|c| charges.get(c)).is_some_and(|c| c.status == "succeeded");

    // ---------------------------------------------------------------- the ledger's truth
    let engine = sim.engine();
    let payments = engine.ledger_for_tests(|l| l.payments().list(i64::MAX, 0)).expect("ledger payments");
    let mut ledger_refunds = Vec::new();
    for p in &payments {
        for r in engine.ledger_for_tests(|l| l.refunds().for_payment(p.id)).expect("ledger refunds") {
            ledger_refunds.push((p.idempotency_key.clone(), r));
        }
    }
    let (processed, journal): (Vec<String>, Vec<JournalRow>) = engine.ledger_for_tests(|l| {
        let c = l.connection();
        let processed = c
            .prepare("SELECT event_id FROM processed_events")
            .and_then(|mut st| st.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>())
            .expect("processed_events");
        let journal = c
            .prepare("SELECT event_id, account, amount_minor, currency FROM journal")
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect::<Result<Vec<_>, _>>()
            })
            .expect("journal");
        (processed, journal)
    });

    let by_key: HashMap<&str, &paydesk_ledger::Payment> = payments.iter().map(|p| (p.idempotency_key.as_str(), p)).collect();
    let mut pis_by_key: HashMap<&str, Vec<&PspPi>> = HashMap::new();
    for p in &pis {
        pis_by_key.entry(p.key.as_str()).or_default().push(p);
    }

    // 1. Never twice, per checkout key and per sale (the PSP's own records).
    for (key, v) in &pis_by_key {
        a.inv(Invariant::PspOneIntentPerCheckoutKey, v.len() == 1, || {
            format!("checkout key {key} has {} payment intents at the PSP: {:?}", v.len(), v.iter().map(|p| &p.id).collect::<Vec<_>>())
        });
        let n = v.iter().filter(|p| charged(p)).count();
        a.inv(Invariant::PspAtMostOneChargePerCheckoutKey, n <= 1, || format!("checkout key {key} was charged {n} times at the PSP"));
    }
    let mut charged_by_sale: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    // Reader payments have no sale name at the PSP: judged per key (audit/reader.rs).
    for p in pis.iter().filter(|p| charged(p) && !p.card_present) {
        charged_by_sale.entry(p.sale.as_str()).or_default().push(p.id.as_str());
    }
    // A split sale's card tenders are judged one by one (audit/tenders.rs): its name, as
    // the sim gave it (split/pay.rs), is left out here.
    let split_names: HashSet<String> =
        (0..sim.sales.len()).filter(|i| sim.sales[*i].split.is_some()).map(|i| format!("split-{i}")).collect();
    for (sale, ids) in charged_by_sale.iter().filter(|(s, _)| !split_names.contains(**s)) {
        a.inv(Invariant::PspAtMostOneChargePerSale, ids.len() <= 1, || format!("{sale}: customer charged {} times: {ids:?}", ids.len()));
    }

    // 2. What the cashier was told "paid" is exactly one captured intent, same amount.
    for (i, sale) in sim.sales.iter().enumerate() {
        for (key, told) in &sale.told {
            if *told != CheckoutOutcome::Paid {
                continue;
            }
            let v = pis_by_key.get(key.as_str()).cloned().unwrap_or_default();
            let ok = v.len() == 1
                && v[0].status == "succeeded"
                && v[0].amount == sale.amount.amount_minor
                && v[0].amount_received == sale.amount.amount_minor
                && v[0].currency == sale.amount.currency.code();
            a.inv(Invariant::PaidMeansOneCapturedIntentSameAmount, ok, || {
                format!("sale-{i} key {key} shown paid {} {}, PSP has {:?}", sale.amount.amount_minor, sale.amount.currency.code(), v)
            });
            let lp = by_key.get(key.as_str());
            a.inv(
                Invariant::PaidIsCapturedInLedger,
                lp.is_some_and(|p| {
                    matches!(p.state, PaymentState::Captured | PaymentState::PartiallyRefunded | PaymentState::Refunded)
                }),
                || format!("sale-{i} key {key} shown paid, ledger has {:?}", lp.map(|p| p.state)),
            );
        }
    }

    // 2b. What the cashier was told "declined" or "failed" (an error from a charge that
    //     did not say "unknown") is never charged, by that key, ever after, and the
    //     ledger keeps it failed or canceled.
    for (i, sale) in sim.sales.iter().enumerate() {
        for (key, told) in &sale.told {
            if !matches!(told, CheckoutOutcome::Declined | CheckoutOutcome::Failed) {
                continue;
            }
            let v = pis_by_key.get(key.as_str()).cloned().unwrap_or_default();
            a.inv(Invariant::ToldNotChargedIsNeverCharged, v.iter().all(|p| !charged(p)), || {
                format!("sale-{i} key {key} shown {told:?} (not charged), PSP has {v:?}")
            });
            let lp = by_key.get(key.as_str());
            a.inv(
                Invariant::ToldNotChargedEndsFailedInLedger,
                lp.is_some_and(|p| matches!(p.state, PaymentState::Failed | PaymentState::Canceled)),
                || format!("sale-{i} key {key} shown {told:?}, ledger has {:?}", lp.map(|p| p.state)),
            );
        }
    }

    // 3. Nothing lost: every sale has its checkout in the ledger; every PSP intent is
    //    known to the ledger under its key with its id.
    let mut ledger_sales: HashSet<String> = HashSet::new();
    for p in &payments {
        if let Some(d) = p.request_params.get("description") {
            ledger_sales.insert(d.to_string());
        }
    }
    for i in (0..sim.sales.len()).filter(|i| sim.sales[*i].split.is_none() && sim.sales[*i].reader.is_none()) {
        let name = format!("sale-{i}");
        a.inv(Invariant::EverySaleInLedger, ledger_sales.contains(&name), || format!("{name} has no checkout in the ledger"));
    }
    for p in &pis {
        let lp = by_key.get(p.key.as_str());
        a.inv(Invariant::EveryPspIntentInLedger, lp.is_some_and(|l| l.psp_payment_id.as_deref() == Some(p.id.as_str())), || {
            format!("PSP intent {} ({}, key {}) is {:?} in the ledger", p.id, p.status, p.key, lp.map(|l| (&l.psp_payment_id, l.state)))
        });
    }

    // 4. After recovery the ledger equals the PSP: states, amounts, refunds.
    let mut final_states: BTreeMap<String, u64> = BTreeMap::new();
    for lp in &payments {
        *final_states.entry(lp.state.as_str().to_string()).or_default() += 1;
        let key = lp.idempotency_key.as_str();
        a.inv(Invariant::LedgerResolvedAfterRecovery, !lp.state.needs_recovery() && lp.state != PaymentState::QueuedOffline, || {
            format!("{key} still {} after recovery", lp.state)
        });
        let v = pis_by_key.get(key).cloned().unwrap_or_default();
        let pi = v.first().copied();
        let ok = match lp.state {
            PaymentState::Captured | PaymentState::PartiallyRefunded | PaymentState::Refunded | PaymentState::Refunding => {
                pi.is_some_and(|pi| {
                    let refunded = pi.charge.as_ref().and_then(|c| charges.get(c)).map(|c| c.amount_refunded).unwrap_or(-1);
                    let state_ok = match lp.state {
                        PaymentState::Captured => refunded == 0,
                        PaymentState::PartiallyRefunded => refunded > 0 && refunded < lp.amount.amount_minor,
                        PaymentState::Refunded => refunded == lp.amount.amount_minor,
                        _ => true,
                    };
                    pi.status == "succeeded"
                        && pi.amount == lp.amount.amount_minor
                        && pi.amount_received == lp.amount.amount_minor
                        && pi.currency == lp.amount.currency.code()
                        && lp.psp_payment_id.as_deref() == Some(pi.id.as_str())
                        && refunded == lp.refunded_minor
                        && state_ok
                })
            }
            PaymentState::Authorized => pi.is_some_and(|pi| pi.status == "requires_capture" && pi.amount == lp.amount.amount_minor),
            PaymentState::Failed => pi.is_none_or(|pi| !charged(pi)),
            PaymentState::Canceled => pi.is_none_or(|pi| pi.status == "canceled" || !charged(pi)),
            _ => false,
        };
        a.inv(Invariant::LedgerEqualsPsp, ok, || {
            format!(
                "{key}: ledger {} {} {} refunded {} psp_id {:?}; PSP {:?} (charge {:?})",
                lp.state,
                lp.amount.amount_minor,
                lp.amount.currency.code(),
                lp.refunded_minor,
                lp.psp_payment_id,
                pi,
                pi.and_then(|p| p.charge.as_ref()).and_then(|c| charges.get(c))
            )
        });
    }

    // Refunds: one PSP refund per refund key, matching the ledger's.
    let mut psp_ref_by_key: HashMap<&str, Vec<&PspRefund>> = HashMap::new();
    for r in &psp_refunds {
        psp_ref_by_key.entry(r.refund_key.as_str()).or_default().push(r);
    }
    let ledger_ref_keys: HashSet<&str> = ledger_refunds.iter().map(|(_, r)| r.idempotency_key.as_str()).collect();
    for (k, v) in &psp_ref_by_key {
        a.inv(Invariant::PspAtMostOneRefundPerRefundKey, v.len() == 1, || format!("refund key {k}: {} refunds at the PSP", v.len()));
        a.inv(Invariant::EveryPspRefundInLedger, ledger_ref_keys.contains(k), || format!("PSP refund {} (key {k}) unknown to the ledger", v[0].id));
    }
    for (pkey, r) in &ledger_refunds {
        let v = psp_ref_by_key.get(r.idempotency_key.as_str()).cloned().unwrap_or_default();
        let ok = match r.state {
            RefundState::Succeeded => {
                v.len() == 1
                    && v[0].status == "succeeded"
                    && v[0].amount == r.amount.amount_minor
                    && v[0].currency == r.amount.currency.code()
                    // Resolved from a charge.refunded event the ledger may not know the
                    // refund's PSP id; when it does, it must be this one.
                    && r.psp_refund_id.as_deref().is_none_or(|id| id == v[0].id)
                    && by_key.get(pkey.as_str()).and_then(|p| p.psp_payment_id.as_deref()) == Some(v[0].pi.as_str())
            }
            RefundState::Failed => v.iter().all(|x| x.status != "succeeded"),
            RefundState::Pending | RefundState::InFlight => false,
        };
        a.inv(Invariant::RefundLedgerEqualsPsp, ok, || format!("refund {} of {pkey}: ledger {} {}; PSP {:?}", r.idempotency_key, r.state, r.amount.amount_minor, v));
    }

    // 5. The idempotent consumer: every PSP event applied once, one journal row each,
    //    and the journal's money equals the PSP's.
    let processed_set: HashSet<&str> = processed.iter().map(String::as_str).collect();
    let mut journal_per_event: HashMap<&str, u32> = HashMap::new();
    for j in &journal {
        *journal_per_event.entry(j.0.as_str()).or_default() += 1;
    }
    for e in &psp_events {
        a.inv(Invariant::EveryPspEventApplied, processed_set.contains(e.as_str()), || format!("event {e} never applied"));
    }
    for e in &processed {
        let n = journal_per_event.get(e.as_str()).copied().unwrap_or(0);
        a.inv(Invariant::OneJournalRowPerEvent, n == 1, || format!("event {e} has {n} journal rows"));
    }
    a.inv(Invariant::NoJournalRowWithoutEvent, journal.len() == processed.len(), || {
        format!("{} journal rows for {} processed events", journal.len(), processed.len())
    });
    let mut psp_money: BTreeMap<(String, &str), i64> = BTreeMap::new();
    for p in pis.iter().filter(|p| p.status == "succeeded") {
        *psp_money.entry((p.currency.clone(), "sales")).or_default() += p.amount_received;
    }
    for r in psp_refunds.iter().filter(|r| r.status == "succeeded") {
        *psp_money.entry((r.currency.clone(), "refunds")).or_default() -= r.amount;
    }
    let mut journal_money: BTreeMap<(String, &str), i64> = BTreeMap::new();
    for (_, acct, amt, cur) in &journal {
        let acct: &str = match acct.as_str() {
            "sales" => "sales",
            "refunds" => "refunds",
            _ => continue,
        };
        *journal_money.entry((cur.clone().unwrap_or_default(), acct)).or_default() += amt;
    }
    psp_money.retain(|_, v| *v != 0);
    journal_money.retain(|_, v| *v != 0);
    a.inv(Invariant::JournalMoneyEqualsPsp, psp_money == journal_money, || format!("journal {journal_money:?} vs PSP {psp_money:?}"));

    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let psp = tenders::PspView { pis_by_key: &pis_by_key, charges: &charges, refunds: &psp_refunds };
    tenders::audit_tenders(sim, &mut a, &psp, &mut h);
    returns::returns_of_single_sales(sim, &mut a);
    if sim.cfg.reader_share > 0.0 {
        reader::audit_readers(sim, &mut a, &psp, &payments, &mut h);
    }

    if std::env::var_os("PAYDESK_SIM_DEBUG").is_some() {
        for v in &a.violations {
            for p in &payments {
                if v.contains(&p.idempotency_key) {
                    eprintln!("--- {v}");
                    if let Ok(view) = engine.payment_view(&p.idempotency_key) {
                        eprintln!("{}", serde_json::to_string_pretty(&view).unwrap_or_default());
                    }
                }
            }
        }
    }

    // Digest of both sides' final state.
    for p in &payments {
        fnv(&mut h, &p.idempotency_key);
        fnv(&mut h, p.state.as_str());
        fnv(&mut h, p.psp_payment_id.as_deref().unwrap_or("-"));
        fnv(&mut h, &format!("{}{}{}", p.amount.amount_minor, p.amount.currency.code(), p.refunded_minor));
    }
    for p in &pis {
        fnv(&mut h, &format!("{}{}{}{}", p.id, p.key, p.status, p.amount));
    }
    for r in &psp_refunds {
        fnv(&mut h, &format!("{}{}{}", r.id, r.refund_key, r.amount));
    }
    fnv(&mut h, &format!("events{}journal{}", psp_events.len(), journal.len()));

    AuditResult { checked: a.checked, failed: a.failed, violations_total: a.total, violations: a.violations, final_states, digest: format!("{h:016x}") }
}

/// One `journal` row: (event id, account, amount in minor units, currency).
type JournalRow = (String, String, i64, Option<String>);


