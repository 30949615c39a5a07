//! The back office's offline money caps at this register (record 0139). The store's owner
//! sets, at the back office, the largest payment a register may accept while the payment
//! processor is unreachable and the most it may hold so; the sync client writes them here.
//! The engine applies the lower of these and the register's own caps, so a register can be
//! stricter than its store but never looser. One row, replaced whole, audited with no actor:
//! the back office is the author.

use std::ops::Deref;

use paydesk_domain::money::Currency;
use rusqlite::{params, OptionalExtension};

use super::audit::{append_audit, AuditInput};
use super::Cached;
use crate::error::{Error, Result};
use crate::ledger::{Catalog, Ledger};

/// Caps as the back office published them, in `currency`'s minor units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PublishedCaps {
    pub currency: Currency,
    pub per_payment_minor: i64,
    pub total_minor: i64,
}

impl PublishedCaps {
    /// The caps are money: not negative, and no payment larger than the total.
    pub fn validate(&self) -> Result<()> {
        if self.per_payment_minor < 0 || self.total_minor < self.per_payment_minor {
            return Err(Error::InvalidInput(format!(
                "published offline caps {} per payment and {} in all: expected 0 ≤ per payment ≤ total",
                self.per_payment_minor, self.total_minor
            )));
        }
        Ok(())
    }
}

fn read(conn: &rusqlite::Connection) -> Result<Option<PublishedCaps>> {
    let row: Option<(String, i64, i64)> = conn
        .row_cached("SELECT currency, per_payment_minor, total_minor FROM published_offline_caps WHERE id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    row.map(|(c, per_payment_minor, total_minor)| {
        let currency = c.parse().map_err(|_| Error::UnknownValue { what: "currency", value: c.clone() })?;
        Ok(PublishedCaps { currency, per_payment_minor, total_minor })
    })
    .transpose()
}

impl<L: Deref<Target = Ledger>> Catalog<L> {
    /// The caps the back office published, if any.
    pub fn published_offline_caps(&self) -> Result<Option<PublishedCaps>> {
        read(&self.conn)
    }
}

impl Catalog<&mut Ledger> {
    /// Replaces the published caps (`None`: the back office publishes none). False when they
    /// are already these (a settings page read twice writes nothing). Audited.
    pub fn set_published_offline_caps(&mut self, caps: Option<PublishedCaps>, now_ms: i64) -> Result<bool> {
        if let Some(c) = &caps {
            c.validate()?;
        }
        let tx = self.write_tx()?;
        let before = read(&tx)?;
        if before == caps {
            return Ok(false);
        }
        match &caps {
            Some(c) => tx.exec_cached(
                "INSERT INTO published_offline_caps (id, currency, per_payment_minor, total_minor, updated_at_ms)
                 VALUES (1, ?1, ?2, ?3, ?4)
                 ON CONFLICT (id) DO UPDATE SET currency = excluded.currency, per_payment_minor = excluded.per_payment_minor,
                     total_minor = excluded.total_minor, updated_at_ms = excluded.updated_at_ms",
                params![c.currency.code(), c.per_payment_minor, c.total_minor, now_ms],
            )?,
            None => tx.exec_cached("DELETE FROM published_offline_caps WHERE id = 1", [])?,
        };
        let audit = AuditInput {
            actor_id: None,
            before: Some(serde_json::to_string(&before)?),
            after: Some(serde_json::to_string(&caps)?),
            reason: Some("published by the back office".to_string()),
            ..AuditInput::new("published_offline_caps", "store")
        };
        append_audit(&tx, &audit, now_ms)?;
        tx.commit()?;
        Ok(true)
    }
}
