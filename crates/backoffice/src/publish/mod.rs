//! The owner's publishing pages (issue #32, record 0147): the catalog (with a CSV upload),
//! the tax setup and the staff, each previewed before it is published. A preview is what
//! the publish would write, computed by the publish's own planning code
//! (`admin::catalog::plan_items`, `admin::staff::plan_staff`) and written nowhere; the
//! publish then carries the section's version the preview saw, and a publish in between
//! refuses it (`stale_preview`), so the owner never publishes other than what was shown.
//!
//! Here: the vocabulary (sections, a preview's entries, what the back office knows of each
//! register). `csv.rs` reads the upload, `preview.rs` computes the differences, `route.rs`
//! answers the page.
pub mod csv;
pub mod preview;
pub mod route;

// Sections live with the PUTs that check a preview's version (admin imports nothing of
// publish: no import circle).
pub use crate::admin::section::Section;
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::ChangeKind;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// One field of an entry: what it is and what it would be (`null` where there is none:
/// an added entry's old side). A PIN is never a value here, only the word "set".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    pub field: &'static str,
    pub old: Value,
    pub new: Value,
}

/// One item (by SKU), member (by name) or part of the tax setup, and its fields that change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub key: String,
    pub fields: Vec<FieldChange>,
}

/// What a publish would change. `removed`: items and members it retires (active → not
/// active; a publish deletes nothing, past sales name them) and tax rate rows it drops.
#[derive(Debug, Clone, Serialize)]
pub struct Preview {
    pub section: &'static str,
    /// The section's version this preview was computed against: the publish sends it back.
    pub based_on: u64,
    pub added: Vec<Entry>,
    pub changed: Vec<Entry>,
    pub removed: Vec<Entry>,
    /// Entries sent that would not change (they take no version).
    pub unchanged: usize,
    /// Versions the publish would take from the store's sequence (0: nothing to publish).
    pub versions: usize,
    /// The store's paired registers, each with what the back office knows it has applied.
    pub registers: Vec<RegisterView>,
}

/// What the back office knows of a register's copy of a section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Applied {
    /// It last asked for changes after version `through`, naming this section's kind:
    /// it has applied everything up to `through`.
    Through { through: u64, asked_ms: i64 },
    /// It last asked without naming this section's kind: it does not take it.
    DoesNotTake { asked_ms: i64 },
    /// It has not asked for changes since the back office began recording it (V19).
    NotAsked,
}

/// A paired register (not replaced) of the store.
#[derive(Debug, Clone, Serialize)]
pub struct RegisterView {
    pub register_id: Uuid,
    pub name: String,
    pub applied: Applied,
}

/// At most this many registers are listed per store (the page shows them all).
pub const MAX_REGISTERS_SHOWN: i64 = 200;

/// The store's registers in service and what each has applied of `section`.
pub async fn registers(client: &tokio_postgres::Transaction<'_>, store: Uuid, section: Section) -> ApiResult<Vec<RegisterView>> {
    let rows = client
        .query(
            "SELECT register_id, name, changes_since, changes_kinds, changes_asked_ms FROM registers
             WHERE store_id = $1 AND replaced_ms IS NULL ORDER BY name, register_id LIMIT $2",
            &[&store, &MAX_REGISTERS_SHOWN],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let since: Option<i64> = r.get(2);
        let kinds: Option<String> = r.get(3);
        let asked: Option<i64> = r.get(4);
        let applied = match (since, kinds, asked) {
            (Some(since), Some(kinds), Some(asked_ms)) => {
                let takes = ChangeKind::parse_list(&kinds).map_err(|e| ApiError::Internal(format!("stored kinds: {e}")))?.contains(&section.kind());
                if takes {
                    Applied::Through { through: since as u64, asked_ms }
                } else {
                    Applied::DoesNotTake { asked_ms }
                }
            }
            _ => Applied::NotAsked,
        };
        out.push(RegisterView { register_id: r.get(0), name: r.get(1), applied });
    }
    Ok(out)
}
