//! Every restored sale with a receipt number, as a list of candidates shows it (record
//! 0159): a replaced register's sale ids start at 1 as this register's own do, so one
//! number can be on this register's sale and on one or more predecessors' sales.

use paydesk_domain::Currency;
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::collect;
use super::sale::{int, text, SALE_KINDS};
use crate::error::{Error, Result};

/// A predecessor's completed sale with a given receipt number: who sold it, when, for how much.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredReceipt {
    /// The predecessor's register id.
    pub source: String,
    /// The back office's name for it (empty when it gave none).
    pub register_name: String,
    pub sale: i64,
    pub receipt_no: String,
    /// When the predecessor completed it (its `sale_completed` fact's time).
    pub completed_at_ms: i64,
    pub total_minor: i64,
    pub currency: Currency,
}

/// The restored sales whose receipt number is `receipt_no` (exactly as printed, e.g.
/// `000001`), from every predecessor this register restored (finished or not: a caller
/// that opens one is refused there when its restore is unfinished), oldest restore first.
pub(super) fn restored_receipts(conn: &Connection, receipt_no: &str) -> Result<Vec<RestoredReceipt>> {
    // The receipt number is the sale id zero-padded (sync-proto's `SaleCompleted`): the
    // index by sale finds it; the fact's own number must match exactly.
    let Some(sale) = receipt_no.parse::<i64>().ok().filter(|n| *n >= 1 && receipt_no.len() <= 20 && receipt_no.bytes().all(|b| b.is_ascii_digit())) else {
        return Ok(Vec::new());
    };
    collect(
        conn,
        &format!(
            "SELECT h.source, s.register_name, h.at_ms, h.fact FROM restore_sources s JOIN restored_history h ON h.source = s.register_id
             WHERE json_extract(h.fact, '$.sale') = ?1 AND {SALE_KINDS} AND h.kind = 'sale_completed'
               AND json_extract(h.fact, '$.receipt_no') = ?2 ORDER BY s.started_at_ms, s.register_id"
        ),
        params![sale, receipt_no],
        |r| {
            let (source, register_name, at, fact): (String, String, i64, String) = (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
            Ok(serde_json::from_str::<Value>(&fact).map_err(Error::from).and_then(|v| {
                Ok(RestoredReceipt {
                    total_minor: int(&v, "total", &source, sale)?,
                    currency: text(&v, "currency", &source, sale)?.parse()?,
                    receipt_no: receipt_no.to_string(),
                    completed_at_ms: at,
                    register_name,
                    sale,
                    source,
                })
            }))
        },
    )
}
