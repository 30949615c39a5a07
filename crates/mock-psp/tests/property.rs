//! Property test over real loopback HTTP: random sequences of requests — random
//! methods, paths, bodies (forms from a pool of names and values, or raw bytes), auth,
//! and zero, one or two `Idempotency-Key` headers from a small pool shared across
//! cases (so keys are reused with other parameters) or of random bytes — against one
//! server without injected faults. Properties: every request is answered, never with a
//! 5xx; the server keeps serving; a key never yields two different PaymentIntents; and
//! the store holds at most one PaymentIntent and one charge per claim, as many charges
//! as the server counted.
use crate::common;
use common::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Clone, Debug)]
enum Body {
    Form(Vec<(String, String)>),
    Raw(Vec<u8>),
}

#[derive(Clone, Debug)]
struct Req {
    method: &'static str,
    path: usize,
    id: usize,
    query: Option<Vec<u8>>,
    auth: usize,
    keys: Vec<Vec<u8>>,
    body: Body,
}

const NAMES: &[&str] = &[
    "amount", "currency", "payment_method", "confirm", "capture_method", "description", "metadata[a]", "metadata[b]", "metadata[]", "metadata",
    "amount_to_capture", "payment_intent", "charge", "reason", "cancellation_reason", "expand[]", "limit", "bogus", "amount[x]",
];
const VALUES: &[&str] = &[
    "100", "1999", "0", "-1", "99999999", "100000000", "9223372036854775808", "1e3", "usd", "jpy", "xyz", "pm_card_visa", "pm_card_chargeDeclined",
    "pm_card_chargeDeclinedInsufficientFunds", "true", "false", "manual", "automatic", "requested_by_customer", "duplicate", "", "é", "a b", "pi_x",
];
const AUTHS: &[Option<&str>] = &[Some(SK_A), Some(SK_A), Some(SK_A), Some(SK_A), Some(SK_B), Some(SK_B), None, Some("sk_test_unknown")];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![4 => prop::sample::select(VALUES).prop_map(String::from), 1 => "[ -~]{0,12}", 1 => any::<String>().prop_map(|s| s.chars().take(20).collect())]
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    // Header values may hold any byte but controls (other than tab) and DEL.
    let header_bytes = prop::collection::vec(prop_oneof![0x20u8..0x7f, 0x80u8..=0xff, Just(b'\t')], 0..12);
    // 40 keys for the whole run: new requests, and later reuses of a key (replays,
    // mismatches); a key with a space; random header bytes.
    prop_oneof![8 => (0..40u32).prop_map(|i| format!("k{i}").into_bytes()), 1 => Just(b"shared key".to_vec()), 1 => header_bytes]
}

/// A form that is valid for one of the POST endpoints (so requests do execute, charge,
/// capture, refund and replay), plus up to two random pairs that may spoil it. `$ID`
/// stands for an intent created earlier in the run.
fn valid_form() -> impl Strategy<Value = (usize, Vec<(String, String)>)> {
    let p = |v: &[(&str, &str)]| v.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
    let create = (prop::sample::select(&["100", "1999", "500"][..]), prop::sample::select(&["pm_card_visa", "pm_card_visa", "pm_card_chargeDeclined"][..]), prop::sample::select(&["automatic", "manual"][..]))
        .prop_map(move |(a, pm, cm)| (0, p(&[("amount", a), ("currency", "usd"), ("payment_method", pm), ("confirm", "true"), ("capture_method", cm), ("metadata[a]", a)])));
    // (path kind, form): see `path`.
    let other = prop::sample::select(vec![
        (5, p(&[("payment_intent", "$ID")])),
        (5, p(&[("payment_intent", "$ID"), ("amount", "50")])),
        (3, p(&[("amount_to_capture", "100")])),
        (3, p(&[])),
        (4, p(&[("cancellation_reason", "duplicate")])),
        (2, p(&[("metadata[b]", "x"), ("description", "d")])),
    ]);
    // Mostly left valid: a spoilt form is one more validation 400.
    (prop_oneof![2 => create, 1 => other], prop::collection::vec((prop::sample::select(NAMES).prop_map(String::from), value()), 0..2), prop::bool::weighted(0.2))
        .prop_map(|((kind, mut f), extra, spoil)| {
            if spoil {
                f.extend(extra);
            }
            (kind, f)
        })
}

fn req() -> impl Strategy<Value = Req> {
    // A valid form goes to its own endpoint (`Some(kind)`), by POST.
    let body = prop_oneof![
        5 => valid_form().prop_map(|(kind, f)| (Some(kind), Body::Form(f))),
        2 => prop::collection::vec((prop::sample::select(NAMES).prop_map(String::from), value()), 0..7).prop_map(|f| (None, Body::Form(f))),
        1 => prop::collection::vec(any::<u8>(), 0..120).prop_map(|b| (None, Body::Raw(b))),
    ];
    let keys = prop_oneof![1 => Just(0usize), 8 => Just(1usize), 1 => Just(2usize)].prop_flat_map(|n| prop::collection::vec(key(), n));
    let query = prop::option::of(prop_oneof![
        prop::sample::select(&["limit=3", "limit=0", "limit=101", "query=metadata%5B'a'%5D%3A'100'", "query=status%3A'succeeded'%20AND%20amount%3A1999", "query=garbage", "page=pg_1", "type=charge.refunded", "starting_after=pi_x"][..]).prop_map(|q| q.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..30).prop_map(|b| form_urlencoded::byte_serialize(&b).collect::<String>().into_bytes()),
    ]);
    (prop_oneof![6 => Just("POST"), 3 => Just("GET"), 1 => Just("DELETE"), 1 => Just("PUT")], 0..10usize, 0..4usize, query, 0..AUTHS.len(), keys, body).prop_map(|(method, path, id, query, auth, keys, (kind, body))| match kind {
        Some(kind) => Req { method: "POST", path: kind, id, query: None, auth, keys, body },
        None => Req { method, path, id, query, auth, keys, body },
    })
}

fn path(r: &Req, ids: &[String]) -> String {
    let id = ids.get(r.id).cloned().unwrap_or_else(|| "pi_doesnotexist".into());
    match r.path {
        0 | 1 => "/v1/payment_intents".into(),
        2 => format!("/v1/payment_intents/{id}"),
        3 => format!("/v1/payment_intents/{id}/capture"),
        4 => format!("/v1/payment_intents/{id}/cancel"),
        5 => "/v1/refunds".into(),
        6 => "/v1/payment_intents/search".into(),
        7 => "/v1/events".into(),
        8 => format!("/v1/charges/{id}"),
        _ => "/v1/nowhere/%ff".into(),
    }
}

#[test]
fn random_requests_never_panic_never_5xx_and_charge_at_most_once_per_key() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let p = rt.block_on(start_default());
    // The runner takes an `Fn`: state shared across cases lives in cells.
    let ids: RefCell<Vec<String>> = RefCell::new(Vec::new());
    // (account, key) -> the PaymentIntent a POST /v1/payment_intents answered with.
    let intent_of_key: RefCell<HashMap<(usize, Vec<u8>), String>> = RefCell::new(HashMap::new());
    // Cases that got through every assertion: a run that checks nothing must not pass.
    let reached = std::cell::Cell::new(0u32);
    // A fixed seed: the same sequences every run (reproducible in CI), bounded to a few
    // seconds; no regression files are written into the source tree.
    let config = Config { cases: 256, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let result = runner.run(&prop::collection::vec(req(), 1..8), |reqs| {
        rt.block_on(async {
            for r in &reqs {
                let target = path(r, &ids.borrow());
                let url = match &r.query {
                    Some(q) => format!("{}{target}?{}", p.url, String::from_utf8_lossy(q)),
                    None => format!("{}{target}", p.url),
                };
                let method = reqwest::Method::from_bytes(r.method.as_bytes()).unwrap();
                let mut b = p.client.request(method, &url).header("content-type", "application/x-www-form-urlencoded");
                if let Some(sk) = AUTHS[r.auth] {
                    b = b.bearer_auth(sk);
                }
                for k in &r.keys {
                    b = b.header("Idempotency-Key", reqwest::header::HeaderValue::from_bytes(k).unwrap());
                }
                let id = ids.borrow().get(r.id).cloned().unwrap_or_else(|| "pi_doesnotexist".into());
                let body = match &r.body {
                    Body::Form(f) => form_urlencoded::Serializer::new(String::new()).extend_pairs(f.iter().map(|(k, v)| (k, if v == "$ID" { &id } else { v }))).finish().into_bytes(),
                    Body::Raw(raw) => raw.clone(),
                };
                let resp = into(b.body(body).send().await.map_err(|e| TestCaseError::fail(format!("{r:?}: no answer: {e}")))?).await;
                prop_assert!(resp.status < 500, "{r:?}: {} {}", resp.status, String::from_utf8_lossy(&resp.body));
                let v = resp.json();
                if r.method == "POST" && r.path <= 1 && resp.status == 200 && r.keys.len() == 1 {
                    let id = v["id"].as_str().unwrap_or("").to_string();
                    prop_assert!(id.starts_with("pi_"), "{v}");
                    let account = if AUTHS[r.auth] == Some(SK_A) { 0 } else { 1 };
                    let first = intent_of_key.borrow_mut().entry((account, r.keys[0].clone())).or_insert_with(|| id.clone()).clone();
                    prop_assert_eq!(&first, &id, "one key, two PaymentIntents");
                    if !ids.borrow().contains(&id) {
                        ids.borrow_mut().push(id);
                    }
                }
            }
            // Still serving.
            prop_assert_eq!(p.get(SK_A, "/v1/events?limit=1").await.status, 200);
            reached.set(reached.get() + 1);
            Ok(())
        })
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    println!("{} cases reached the assertions", reached.get());
    assert!(reached.get() >= 256, "only {} cases reached the assertions, at least 256 expected", reached.get());
    // The store: at most one intent per claim, one charge per intent, and as many
    // charges as the server counted.
    let s = rt.block_on(p.stats());
    let (per_claim, charges, charged_intents): (i64, i64, i64) = p
        .server
        .psp()
        .store()
        .read_blocking(|c| {
            let per_claim = c.query_row("SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM payment_intents WHERE claim_id IS NOT NULL GROUP BY claim_id)", [], |r| r.get(0))?;
            let (charges, intents) = c.query_row("SELECT count(*), count(DISTINCT json_extract(obj, '$.payment_intent')) FROM charges WHERE json_extract(obj, '$.status') = 'succeeded'", [], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok((per_claim, charges, intents))
        })
        .unwrap();
    assert!(per_claim <= 1, "a claim has {per_claim} PaymentIntents");
    assert_eq!(charges, charged_intents, "an intent was charged twice");
    assert_eq!(s["charges"].as_i64(), Some(charges), "the server counted every charge once: {s}");
    assert_eq!(s["http"]["refused"], 0);
    // The run did exercise the paths the properties are about.
    eprintln!("property run: {s}");
    for counter in ["executions", "charges", "declines", "replays", "mismatches", "refunds", "rejected", "unauthorized"] {
        assert!(s[counter].as_u64().unwrap() > 0, "no {counter} in the whole run: {s}");
    }
    rt.block_on(async move { p.server.shutdown().await });
}
