//! 64 concurrent requests with one key → exactly one PaymentIntent, over 100 rounds.
use crate::common;
use common::*;
use std::collections::HashSet;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixty_four_concurrent_same_key_one_charge_100_rounds() {
    let p = start_default().await;
    let rounds = 100;
    let mut created = HashSet::new();
    for round in 0..rounds {
        let key = uuid_like(round);
        let ck = format!("round-{round}");
        let mut tasks = Vec::new();
        for _ in 0..64 {
            let c = p.client.clone();
            let url = format!("{}/v1/payment_intents", p.url);
            let key = key.clone();
            let ck = ck.clone();
            tasks.push(tokio::spawn(async move {
                let form = [("amount", "2500"), ("currency", "usd"), ("payment_method", "pm_card_visa"), ("confirm", "true"), ("metadata[checkout_key]", ck.as_str())];
                into(c.post(url).bearer_auth(SK_A).header("Idempotency-Key", key).form(&form).send().await.unwrap()).await
            }));
        }
        let mut ids = HashSet::new();
        let mut fresh = 0;
        for t in tasks {
            let r = t.await.unwrap();
            match r.status {
                200 => {
                    ids.insert(r.json()["id"].as_str().unwrap().to_string());
                    if !r.replayed() {
                        fresh += 1;
                    }
                }
                409 => assert_eq!(r.err_code(), "idempotency_key_in_use"),
                s => panic!("unexpected status {s}: {:?}", r.json()),
            }
        }
        assert_eq!(fresh, 1, "round {round}: exactly one execution");
        assert_eq!(ids.len(), 1, "round {round}: every 200 is the same PaymentIntent");
        created.extend(ids);
        // The one PaymentIntent is also what a search finds.
        let q: String = form_urlencoded::byte_serialize(format!("metadata['checkout_key']:'{ck}'").as_bytes()).collect();
        let found = p.get(SK_A, &format!("/v1/payment_intents/search?query={q}")).await.json();
        assert_eq!(found["data"].as_array().unwrap().len(), 1);
    }
    assert_eq!(created.len(), rounds);
    assert_eq!(p.all_pis(SK_A).await.len(), rounds);
    let s = p.stats().await;
    assert_eq!(s["charges"], rounds as u64);
    assert_eq!(s["requests"].as_u64().unwrap(), 64 * rounds as u64 + rounds as u64 + 1);
}
