//! What counts as takings at the back office, as SQL predicates over a tender `t`: the one
//! definition the reports (record 0140) and the accountant's journal (record 0141) share,
//! so that neither can drift from the other or from the registers' Z reports
//! (`paydesk_ledger::takings`, record 0138).

/// The tender's sale stands: it was completed and not canceled since. A register sends no
/// cancel for a sale it never completed, so a part-paid sale canceled (its cash handed
/// back, its card refunded) has a tender here and no sale: it is no sale, as at the
/// register, and what undid it is no refund. One still open is not counted yet either; no
/// shift closes with one open, so no Z report counts it.
pub(crate) const SALE_STANDS: &str = "EXISTS (SELECT 1 FROM sales s WHERE s.store_id = t.store_id AND s.register_id = t.register_id
                                     AND s.sale_id = t.sale_id AND s.canceled_at_ms IS NULL)";

/// A tender that took money for a sale that stands: not superseded, and a card's payment
/// took the money (captured, refunded since — a refund is counted as a refund — or
/// accepted offline and waiting: the customer left with the goods), as
/// `TenderState::of_card` counts it at the register.
pub(crate) fn tender_counts() -> String {
    format!(
        "t.superseded_at_ms IS NULL
    AND (t.method <> 'card' OR EXISTS (SELECT 1 FROM payments p WHERE p.store_id = t.store_id AND p.checkout_key = t.checkout_key
                                        AND p.state IN ('captured', 'refunding', 'partially_refunded', 'refunded', 'queued_offline')))
    AND {SALE_STANDS}"
    )
}

/// A read-only transaction for the owner's reports and journal. A year of a large store
/// is millions of rows: such a read gets longer than a sync batch's statement timeout and
/// room to sort and hash in memory (a million-sale year took 30 s and spilled its sorts to
/// disk on the defaults, `report_bench`); both still bounded, and only here.
pub(crate) async fn reading(client: &mut deadpool_postgres::Client) -> crate::error::ApiResult<deadpool_postgres::Transaction<'_>> {
    let tx = client.build_transaction().read_only(true).start().await?;
    tx.batch_execute(&format!("SET LOCAL statement_timeout = {REPORT_TIMEOUT_MS}; SET LOCAL work_mem = '{REPORT_WORK_MEM_MB}MB'")).await?;
    Ok(tx)
}

/// The longest one report or journal query may run.
pub(crate) const REPORT_TIMEOUT_MS: u64 = 120_000;
/// PostgreSQL's memory per sort or hash of a report query (its default is 4 MB).
pub(crate) const REPORT_WORK_MEM_MB: u64 = 64;
