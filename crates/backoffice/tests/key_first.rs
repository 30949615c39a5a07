//! V22 (record 0149, fourth addendum): a payment's and a refund's primary keys lead with the
//! key. The upgrade keeps every row and the same uniqueness (a key is its register's own),
//! and a register the statistics do not know yet still has a batch's keys found by the
//! index, not filtered over every payment it has.
use crate::upgrades::Older;
use tokio_postgres::error::SqlState;

/// The plan PostgreSQL chooses for the ingest's payment lookup (`key = ANY`) of register
/// `r`, as JSON text.
async fn plan(c: &tokio_postgres::Client, s: uuid::Uuid, r: uuid::Uuid) -> String {
    let sql = format!(
        "EXPLAIN (FORMAT JSON) SELECT t.checkout_key FROM payments t
         WHERE t.store_id = '{s}' AND t.checkout_key = ANY('{{k-b-1500,k-b-1501}}'::text[]) AND t.register_id = '{r}'"
    );
    let v: serde_json::Value = c.query_one(&sql, &[]).await.unwrap().get(0);
    v.to_string()
}

#[tokio::test]
async fn v22_upgrades_a_v21_database_keeping_each_key_its_register_s_own_and_finds_keys_by_the_index() {
    let old = Older::at(21).await;
    let c = &old.client;
    let (s, a, b) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    // Register a has 2,000 payments and the statistics know them; register b's 2,000 come
    // after the ANALYZE, so the statistics say it has none (a register paired since).
    c.batch_execute(&format!(
        "INSERT INTO stores (store_id, name, created_ms) VALUES ('{s}', 'S', 1);
         INSERT INTO registers (store_id, register_id, name, token_hash, paired_ms, acked_through)
         VALUES ('{s}', '{a}', 'A', '\\x00', 1, 0), ('{s}', '{b}', 'B', '\\x01', 1, 0);
         INSERT INTO payments (store_id, checkout_key, register_id, amount, currency, state, created_at_ms, updated_at_ms)
         SELECT '{s}', 'k-a-' || i, '{a}', 100, 'jpy', 'captured', i, i FROM generate_series(1, 2000) i;
         INSERT INTO refunds (store_id, refund_key, checkout_key, register_id, amount, state, created_at_ms, updated_at_ms)
         SELECT '{s}', 'r-a-' || i, 'k-a-' || i, '{a}', 50, 'succeeded', i, i FROM generate_series(1, 200) i;
         ANALYZE payments; ANALYZE refunds;
         INSERT INTO payments (store_id, checkout_key, register_id, amount, currency, state, created_at_ms, updated_at_ms)
         SELECT '{s}', 'k-b-' || i, '{b}', 100, 'jpy', 'captured', i, i FROM generate_series(1, 2000) i;"
    ))
    .await
    .unwrap();
    let before = plan(&c, s, b).await;
    old.upgrade().await.expect("migrates to V22");

    let counts = c.query_one("SELECT (SELECT count(*) FROM payments), (SELECT count(*) FROM refunds), (SELECT sum(amount) FROM payments)::int8", &[]).await.unwrap();
    assert_eq!((counts.get::<_, i64>(0), counts.get::<_, i64>(1), counts.get::<_, i64>(2)), (4000, 200, 400_000), "every row kept");
    let keys: Vec<String> = c
        .query("SELECT indexdef FROM pg_indexes WHERE tablename IN ('payments', 'refunds') AND indexname IN ('payments_pkey', 'refunds_pkey', 'refunds_by_payment', 'payments_by_key') ORDER BY indexname", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get::<_, String>(0).split(" USING btree ").nth(1).unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        keys,
        ["(store_id, checkout_key, register_id)", "(store_id, checkout_key, register_id)", "(store_id, refund_key, register_id)"],
        "payments_pkey, refunds_by_payment, refunds_pkey lead with the key; payments_by_key, their prefix, is gone"
    );

    // The same uniqueness: one key at two registers, never twice at one.
    let pay = |reg: uuid::Uuid, key: &str| {
        format!(
            "INSERT INTO payments (store_id, checkout_key, register_id, amount, currency, state, created_at_ms, updated_at_ms)
             VALUES ('{s}', '{key}', '{reg}', 100, 'jpy', 'captured', 1, 1)"
        )
    };
    c.batch_execute(&pay(b, "k-a-1")).await.expect("register a's key is free at register b");
    let e = c.batch_execute(&pay(a, "k-a-1")).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::UNIQUE_VIOLATION), "{e}");
    let refund = |key: &str| {
        format!(
            "INSERT INTO refunds (store_id, refund_key, checkout_key, register_id, amount, state, created_at_ms, updated_at_ms)
             VALUES ('{s}', '{key}', 'k-a-2', '{a}', 10, 'succeeded', 1, 1)"
        )
    };
    let e = c.batch_execute(&refund("r-a-1")).await.unwrap_err();
    assert_eq!(e.code(), Some(&SqlState::UNIQUE_VIOLATION), "{e}");
    c.batch_execute(&refund("r-a-201")).await.expect("a new refund key");

    // The keys are the index condition for the register the statistics do not know.
    let after = plan(&c, s, b).await;
    let cond = |p: &str| p.split("\"Index Cond\":").nth(1).map(|c| c.split('"').nth(1).unwrap_or_default().to_string());
    assert!(cond(&after).is_some_and(|c| c.contains("checkout_key")), "V22's plan finds the keys in the index: {after}\n(V21's: {before})");
}
