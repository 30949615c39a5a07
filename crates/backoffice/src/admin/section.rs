//! The sections the owner publishes and the check of a preview's version (record 0147):
//! here, with the publishes (`catalog.rs`, `staff.rs`) that check it; the publishing page
//! (`crate::publish`) previews them.
use crate::error::{ApiError, ApiResult};
use paydesk_sync_proto::ChangeKind;
use uuid::Uuid;

/// What the owner publishes, one page section each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Catalog,
    Tax,
    Staff,
}

impl Section {
    pub const fn as_str(self) -> &'static str {
        match self {
            Section::Catalog => "catalog",
            Section::Tax => "tax",
            Section::Staff => "staff",
        }
    }

    /// The kind of change a register pulls for this section.
    pub const fn kind(self) -> ChangeKind {
        match self {
            Section::Catalog => ChangeKind::Item,
            Section::Tax => ChangeKind::Tax,
            Section::Staff => ChangeKind::Staff,
        }
    }

    /// The section's own version: the highest version any of its rows holds (0: nothing
    /// published). It moves exactly when the section changes, so a publish of the staff
    /// does not make a catalog preview stale. NotFound when there is no such store.
    pub async fn version(self, tx: &tokio_postgres::Transaction<'_>, store: Uuid) -> ApiResult<u64> {
        let sql = match self {
            Section::Catalog => "SELECT (SELECT COALESCE(max(version), 0) FROM catalog_items WHERE store_id = s.store_id) FROM stores s WHERE s.store_id = $1",
            Section::Tax => "SELECT (SELECT COALESCE(max(version), 0) FROM store_tax WHERE store_id = s.store_id) FROM stores s WHERE s.store_id = $1",
            Section::Staff => "SELECT (SELECT COALESCE(max(version), 0) FROM store_staff WHERE store_id = s.store_id) FROM stores s WHERE s.store_id = $1",
        };
        let row = tx.query_opt(sql, &[&store]).await?.ok_or_else(|| ApiError::NotFound(format!("no store {store}")))?;
        Ok(row.get::<_, i64>(0) as u64)
    }

    /// Refuses a publish whose preview saw another version of this section. The caller
    /// holds the store row's lock (every publish takes it first), so no publish can slip
    /// in between this check and the write.
    pub async fn check_preview(self, tx: &tokio_postgres::Transaction<'_>, store: Uuid, previewed: u64) -> ApiResult<()> {
        let current = self.version(tx, store).await?;
        if current == previewed {
            Ok(())
        } else {
            Err(ApiError::StalePreview { section: self.as_str(), previewed, current })
        }
    }
}
