//! Pruning what only needs to be kept a while (record 0040): the `Idempotency-Key`s
//! registers sent. A key is kept so that the same key with another body is refused; once
//! its batch is acknowledged, a resend is compared with the stored journal rows anyway,
//! so a key pruned after `max_age` (or past the newest `max_per_register` of its
//! register) loses nothing: a reuse of it is simply a new key. Without this the table
//! grew by one row per batch forever. Run by the server every `interval`, in bounded
//! deletes so no statement holds many rows at once.
use crate::error::ApiResult;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrunePolicy {
    /// Keys older than this go.
    pub max_age: Duration,
    /// Each register keeps at most this many keys (its newest).
    pub max_per_register: i64,
    /// How often the server prunes.
    pub interval: Duration,
}

impl Default for PrunePolicy {
    fn default() -> Self {
        PrunePolicy { max_age: Duration::from_secs(7 * 86_400), max_per_register: 10_000, interval: Duration::from_secs(3600) }
    }
}

/// Rows one delete statement removes at most.
const CHUNK: i64 = 10_000;

/// Removes keys older than the policy's age and each register's keys past its newest
/// `max_per_register`; the number removed.
pub async fn prune_batch_keys(client: &tokio_postgres::Client, now_ms: i64, policy: &PrunePolicy) -> ApiResult<u64> {
    let cutoff = now_ms.saturating_sub(policy.max_age.as_millis() as i64);
    let mut removed = 0u64;
    loop {
        let n = client
            .execute(
                "DELETE FROM batch_keys WHERE (store_id, register_id, idem_key) IN
                   (SELECT store_id, register_id, idem_key FROM batch_keys WHERE received_ms < $1 LIMIT $2)",
                &[&cutoff, &CHUNK],
            )
            .await?;
        removed += n;
        if n < CHUNK as u64 {
            break;
        }
    }
    loop {
        let n = client
            .execute(
                "DELETE FROM batch_keys WHERE (store_id, register_id, idem_key) IN
                   (SELECT store_id, register_id, idem_key FROM
                      (SELECT store_id, register_id, idem_key,
                              row_number() OVER (PARTITION BY store_id, register_id ORDER BY received_ms DESC, first_seq DESC) AS newest
                       FROM batch_keys) k
                    WHERE k.newest > $1 LIMIT $2)",
                &[&policy.max_per_register, &CHUNK],
            )
            .await?;
        removed += n;
        if n < CHUNK as u64 {
            break;
        }
    }
    Ok(removed)
}
