//! Writing the rate table (`tax_rates`, record 0131): the demo seed and what the back office
//! publishes replace it whole, audited, in the caller's transaction.

use rusqlite::params;

use paydesk_tax::RateTable;

use super::class_str;
use super::settings::rate_table_tx;
use crate::error::{Error, Result};
use crate::ledger::audit::{append_audit, AuditInput};
use crate::write_tx::WriteTx;

/// Replaces the rate table with `rates` (checked first) unless it already is that table.
/// Returns whether it changed; a change is audited with `reason`.
pub(crate) fn write_rates_tx(tx: &WriteTx<'_>, rates: &RateTable, actor_id: Option<i64>, reason: Option<String>, now_ms: i64) -> Result<bool> {
    rates.validate().map_err(|e| Error::InvalidInput(format!("tax rates: {e}")))?;
    let before = rate_table_tx(tx)?;
    if before == *rates {
        return Ok(false);
    }
    tx.exec_cached("DELETE FROM tax_rates", [])?;
    for e in &rates.entries {
        tx.exec_cached(
            "INSERT INTO tax_rates (class, name, ppm, effective_from) VALUES (?1, ?2, ?3, ?4)",
            params![class_str(e.class), e.name, i64::from(e.ppm), e.effective_from.map(|d| d.to_string())],
        )?;
    }
    let input = AuditInput {
        actor_id,
        before: Some(serde_json::to_string(&before)?),
        after: Some(serde_json::to_string(rates)?),
        reason,
        ..AuditInput::new("tax_rates", "tax rates")
    };
    append_audit(tx, &input, now_ms)?;
    Ok(true)
}
