//! The compact, streamed matching (`matching.rs`) against the matching it replaced, kept
//! here verbatim as the reference: on random accounts, the same exceptions (kind, subject,
//! detail, and for one subject the same order, since the last detail found is the one
//! stored) and the same matched count, with the register records fed in any order.
use super::matching::{Charges, Found, Matcher, RegPayment, RegRefund, Refunds};
use super::psp::{IntentObj, RefundObj};
use super::ExceptionKind;
use paydesk_sync_proto::{PaymentState, RefundState};
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Debug, Clone, Deserialize)]
struct PspIntent {
    id: String,
    amount: i64,
    currency: String,
    status: String,
    #[serde(default)]
    metadata: HashMap<String, String>,
}

impl PspIntent {
    fn charged(&self) -> bool {
        matches!(self.status.as_str(), "succeeded" | "requires_capture" | "processing")
    }
}

#[derive(Debug, Clone, Deserialize)]
struct PspRefund {
    id: String,
    amount: i64,
    status: String,
    #[serde(default)]
    payment_intent: Option<String>,
    #[serde(default)]
    metadata: HashMap<String, String>,
}

/// The matching as it was, verbatim (whole account and every record in memory).
fn compare(payments: &[RegPayment], refunds: &[RegRefund], intents: &[PspIntent], psp_refunds: &[PspRefund]) -> (Vec<Found>, u64) {
    let by_key: HashMap<&str, &RegPayment> = payments.iter().map(|p| (p.checkout_key.as_str(), p)).collect();
    let mut found = Vec::new();
    let mut matched = 0u64;
    let mut charged: HashMap<&str, Vec<&PspIntent>> = HashMap::new();
    for pi in intents.iter().filter(|pi| pi.charged()) {
        let key = pi.metadata.get("checkout_key").map(String::as_str);
        let Some(p) = key.and_then(|k| by_key.get(k)) else {
            found.push(Found {
                kind: ExceptionKind::ChargeWithoutRecord,
                subject: pi.id.clone(),
                detail: json!({"psp_id": pi.id, "checkout_key": key, "amount": pi.amount, "currency": pi.currency, "psp_status": pi.status}),
            });
            continue;
        };
        charged.entry(p.checkout_key.as_str()).or_default().push(pi);
        if pi.amount != p.amount || pi.currency != p.currency {
            found.push(Found {
                kind: ExceptionKind::AmountDiffers,
                subject: p.checkout_key.clone(),
                detail: json!({"psp_id": pi.id, "psp_amount": pi.amount, "psp_currency": pi.currency, "register_amount": p.amount, "register_currency": p.currency}),
            });
        } else if !p.state.money_taken() && !p.state.unsettled() {
            found.push(Found {
                kind: ExceptionKind::StateDiffers,
                subject: p.checkout_key.clone(),
                detail: json!({"psp_id": pi.id, "psp_status": pi.status, "register_state": p.state.as_str(), "amount": p.amount, "currency": p.currency}),
            });
        } else {
            matched += 1;
        }
    }
    for (key, pis) in &charged {
        if pis.len() > 1 {
            let ids: Vec<&str> = pis.iter().map(|p| p.id.as_str()).collect();
            found.push(Found { kind: ExceptionKind::DuplicateCharge, subject: (*key).to_string(), detail: json!({"psp_ids": ids}) });
        }
    }
    for p in payments.iter().filter(|p| p.state.money_taken() && !charged.contains_key(p.checkout_key.as_str())) {
        found.push(Found {
            kind: ExceptionKind::RecordWithoutCharge,
            subject: p.checkout_key.clone(),
            detail: json!({"checkout_key": p.checkout_key, "register_state": p.state.as_str(), "amount": p.amount, "currency": p.currency}),
        });
    }
    let reg_refunds: HashMap<&str, &RegRefund> = refunds.iter().map(|r| (r.refund_key.as_str(), r)).collect();
    let mut psp_refunded: HashSet<&str> = HashSet::new();
    for re in psp_refunds.iter().filter(|r| r.status == "succeeded" || r.status == "pending") {
        let key = re.metadata.get("refund_key").map(String::as_str);
        match key.and_then(|k| reg_refunds.get(k)) {
            None => found.push(Found {
                kind: ExceptionKind::RefundMismatch,
                subject: re.id.clone(),
                detail: json!({"problem": "refunded at the PSP, no register record", "psp_refund_id": re.id, "refund_key": key, "amount": re.amount, "payment_intent": re.payment_intent}),
            }),
            Some(r) if r.amount != re.amount || r.state == RefundState::Failed => found.push(Found {
                kind: ExceptionKind::RefundMismatch,
                subject: r.refund_key.clone(),
                detail: json!({"problem": "amount or outcome differs", "psp_refund_id": re.id, "psp_amount": re.amount, "register_amount": r.amount, "register_state": r.state.as_str()}),
            }),
            Some(r) => {
                psp_refunded.insert(r.refund_key.as_str());
                matched += 1;
            }
        }
    }
    for r in refunds.iter().filter(|r| r.state == RefundState::Succeeded && !psp_refunded.contains(r.refund_key.as_str())) {
        if found.iter().any(|f| f.kind == ExceptionKind::RefundMismatch && f.subject == r.refund_key) {
            continue;
        }
        found.push(Found {
            kind: ExceptionKind::RefundMismatch,
            subject: r.refund_key.clone(),
            detail: json!({"problem": "refunded at a register, no refund at the PSP", "refund_key": r.refund_key, "checkout_key": r.checkout_key, "amount": r.amount}),
        });
    }
    (found, matched)
}

/// One random account: few keys, so that duplicates, missing records, stray charges and
/// refunds on either side are all common.
struct Account {
    intents: Vec<Value>,
    psp_refunds: Vec<Value>,
    payments: Vec<RegPayment>,
    refunds: Vec<RegRefund>,
}

fn account(rng: &mut StdRng) -> Account {
    let keys: Vec<String> = (0..rng.random_range(1..25)).map(|i| if i == 0 { String::new() } else { format!("k-{i}") }).collect();
    let statuses = ["succeeded", "requires_capture", "processing", "canceled", "requires_payment_method", "requires_action"];
    let intents = (0..rng.random_range(0..60))
        .map(|j| {
            let mut metadata = serde_json::Map::new();
            if rng.random_bool(0.9) {
                metadata.insert("checkout_key".into(), json!(keys.choose(rng).unwrap()));
            }
            if rng.random_bool(0.3) {
                metadata.insert("note".into(), json!("other metadata"));
            }
            json!({"id": format!("pi_{j}"), "object": "payment_intent", "amount": *[100, 200, 300].choose(rng).unwrap(),
                   "currency": *["usd", "jpy"].choose(rng).unwrap(), "status": *statuses.choose(rng).unwrap(), "created": 1_700_000_000 + j, "metadata": metadata})
        })
        .collect();
    let refund_keys: Vec<String> = (0..rng.random_range(1..15)).map(|i| format!("r-{i}")).collect();
    let psp_refunds = (0..rng.random_range(0..30))
        .map(|j| {
            let mut metadata = serde_json::Map::new();
            if rng.random_bool(0.85) {
                metadata.insert("refund_key".into(), json!(refund_keys.choose(rng).unwrap()));
            }
            let pi = rng.random_bool(0.8).then(|| format!("pi_{}", rng.random_range(0..60)));
            json!({"id": format!("re_{j}"), "object": "refund", "amount": *[50, 100].choose(rng).unwrap(),
                   "status": *["succeeded", "pending", "failed", "canceled"].choose(rng).unwrap(), "payment_intent": pi, "metadata": metadata})
        })
        .collect();
    // a loop, not filter + map: both draw from the one generator
    let (mut payments, mut refunds) = (vec![], vec![]);
    for k in &keys {
        if rng.random_bool(0.7) {
            payments.push(RegPayment {
                checkout_key: k.clone(),
                amount: *[100, 200, 300].choose(rng).unwrap(),
                currency: ["usd", "jpy"].choose(rng).unwrap().to_string(),
                state: *PaymentState::ALL.choose(rng).unwrap(),
            });
        }
    }
    for rk in &refund_keys {
        if rng.random_bool(0.7) {
            refunds.push(RegRefund {
                refund_key: rk.clone(),
                checkout_key: keys.choose(rng).unwrap().clone(),
                amount: *[50, 100].choose(rng).unwrap(),
                state: *RefundState::ALL.choose(rng).unwrap(),
            });
        }
    }
    Account { intents, psp_refunds, payments, refunds }
}

/// Exceptions by (kind, subject), each subject's details in the order found.
fn by_subject(found: &[Found]) -> BTreeMap<(&'static str, String), Vec<String>> {
    let mut m: BTreeMap<_, Vec<String>> = BTreeMap::new();
    for f in found {
        m.entry((f.kind.as_str(), f.subject.clone())).or_default().push(f.detail.to_string());
    }
    m
}

#[test]
fn the_compact_streamed_matching_finds_exactly_what_the_old_one_found() {
    let mut kinds_seen = HashSet::new();
    for seed in 0..500u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut a = account(&mut rng);
        let intents: Vec<PspIntent> = a.intents.iter().map(|v| serde_json::from_value(v.clone()).unwrap()).collect();
        let psp_refunds: Vec<PspRefund> = a.psp_refunds.iter().map(|v| serde_json::from_value(v.clone()).unwrap()).collect();
        let (want, want_matched) = compare(&a.payments, &a.refunds, &intents, &psp_refunds);

        // the new side reads the same JSON through the page types the PSP reader uses
        let (mut charges, mut refunds) = (Charges::default(), Refunds::default());
        for v in &a.intents {
            serde_json::from_value::<IntentObj>(v.clone()).unwrap().keep(&mut charges).unwrap();
        }
        for v in &a.psp_refunds {
            serde_json::from_value::<RefundObj>(v.clone()).unwrap().keep(&mut refunds);
        }
        assert_eq!(charges.len(), intents.iter().filter(|i| i.charged()).count(), "seed {seed}");
        // PostgreSQL returns the records in whatever order it likes
        a.payments.shuffle(&mut rng);
        a.refunds.shuffle(&mut rng);
        let mut m = Matcher::new(charges, refunds);
        for p in &a.payments {
            m.payment(p);
        }
        for r in &a.refunds {
            m.refund(r);
        }
        let (got, got_matched) = m.finish();
        assert_eq!(by_subject(&got), by_subject(&want), "seed {seed}");
        assert_eq!((got.len(), got_matched), (want.len(), want_matched), "seed {seed}");
        kinds_seen.extend(want.iter().map(|f| f.kind));
    }
    // the random accounts did exercise every kind
    assert_eq!(kinds_seen.len(), 6, "{kinds_seen:?}");
}

#[test]
fn an_intent_without_a_checkout_key_is_not_the_empty_key() {
    let (mut charges, refunds) = (Charges::default(), Refunds::default());
    charges.add("pi_none", None, 100, "usd", super::matching::ChargedStatus::Succeeded).unwrap();
    charges.add("pi_empty", Some(""), 100, "usd", super::matching::ChargedStatus::Succeeded).unwrap();
    let mut m = Matcher::new(charges, refunds);
    m.payment(&RegPayment { checkout_key: String::new(), amount: 100, currency: "usd".into(), state: PaymentState::Captured });
    let (found, matched) = m.finish();
    assert_eq!(matched, 1);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].kind, found[0].subject.as_str(), &found[0].detail["checkout_key"]), (ExceptionKind::ChargeWithoutRecord, "pi_none", &Value::Null));
}
