//! The store's catalog (record 0028): its items, looked up by SKU or scanned (`scan.rs`,
//! record 0115); one item saved, a CSV file imported all or nothing or exported; which
//! SKUs the back office manages; items found by a typed query, and the categories the
//! register shows as tabs (record 0133).

use paydesk_ledger::{Category, CatalogItem, CsvProblem, Found, ImportReport, NewProduct, Result, SearchQuery, StoreSettings};
use paydesk_tax::{InStoreRule, TaxClass};

use super::scan::{resolve, Scanned};

use crate::Engine;

/// (SKU, category key) of every item in a category, by SKU.
pub type ItemCategories = Vec<(String, String)>;

/// Catalog use cases; see [`Engine::catalog`].
pub struct CatalogCases<'e> {
    pub(super) engine: &'e Engine,
}

/// What the catalog screen shows, read together: every item, the store's settings (its
/// currency and language), the SKUs the back office publishes, and each tax class's rate
/// today (the store's local date), so the screen names a class by this store's rate.
#[derive(Debug, Clone)]
pub struct CatalogScreen {
    pub items: Vec<CatalogItem>,
    pub store: StoreSettings,
    pub published: Vec<String>,
    /// Each class's stacked rate in ppm today; `None` when the table has none for it yet.
    pub class_ppm: Vec<(TaxClass, Option<u32>)>,
}

impl CatalogCases<'_> {
    /// Every item, active or not.
    pub fn list(&self) -> Result<Vec<CatalogItem>> {
        self.engine.with_reader(|l| l.catalog().items())
    }

    /// The active department keys (record 0126): the row of keys over the items.
    pub fn department_keys(&self) -> Result<Vec<CatalogItem>> {
        self.engine.with_reader(|l| l.catalog().department_keys())
    }

    /// The item with exactly this SKU.
    pub fn item(&self, sku: &str) -> Result<Option<CatalogItem>> {
        self.engine.with_reader(|l| l.catalog().item(sku))
    }

    /// What a scanned or typed code rings up under the store's in-store label `rules`:
    /// index reads of one snapshot, never the whole catalog (record 0115).
    pub fn scan(&self, code: &str, rules: &[InStoreRule]) -> Result<Scanned> {
        self.engine.with_reader(|l| resolve(&l.catalog(), rules, code))
    }

    /// The item of each SKU (by exact SKU, `None` for one the catalog lacks), in one
    /// snapshot: a cart's lines named at once.
    pub fn items<'s>(&self, skus: impl IntoIterator<Item = &'s str>) -> Result<Vec<(String, Option<CatalogItem>)>> {
        self.engine.with_reader(|l| skus.into_iter().map(|sku| Ok((sku.to_string(), l.catalog().item(sku)?))).collect())
    }

    /// The items, the store, the published SKUs and today's rates in one snapshot.
    pub fn screen(&self) -> Result<CatalogScreen> {
        let now = self.engine.now();
        self.engine.with_reader(|l| {
            let store = l.catalog().store_settings()?;
            let rates = l.catalog().tax_settings()?.rates;
            let today = paydesk_ledger::ledger::store_date(now, &store);
            let class_ppm = TaxClass::ALL.into_iter().map(|c| (c, rates.rate(c, today).ok().map(|r| r.ppm))).collect();
            Ok(CatalogScreen { items: l.catalog().items()?, store, published: l.catalog().published_skus()?, class_ppm })
        })
    }

    /// The offline caps the store's back office published (record 0139), if any.
    pub fn published_offline_caps(&self) -> Result<Option<paydesk_ledger::PublishedCaps>> {
        self.engine.with_reader(|l| l.catalog().published_offline_caps())
    }

    /// Whether the back office manages this SKU (then it is changed there, not here).
    pub fn is_published(&self, sku: &str) -> Result<bool> {
        self.engine.with_reader(|l| l.catalog().is_published(sku))
    }

    /// Adds or changes one item (by SKU), in `actor_id`'s name.
    pub fn save(&self, item: &CatalogItem, actor_id: Option<i64>) -> Result<usize> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().upsert(std::slice::from_ref(item), actor_id, now))
    }

    /// Imports a catalog file in the store's currency, all or nothing: `Ok(Err(..))` lists
    /// the problems and nothing was written.
    pub fn import_csv(&self, bytes: &[u8], actor_id: Option<i64>) -> Result<std::result::Result<ImportReport, Vec<CsvProblem>>> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().import_csv(bytes, actor_id, now))
    }

    /// The catalog as CSV, the columns [`CatalogCases::import_csv`] reads.
    pub fn export_csv(&self) -> Result<String> {
        self.engine.with_reader(|l| l.catalog().export_csv())
    }

    /// Adds (or replaces) plain products by SKU: the CLI's `add-product`, benches, demos.
    pub fn seed(&self, products: &[NewProduct]) -> Result<usize> {
        self.engine.with_ledger(|l| l.carts_mut().seed_catalog(products))
    }

    /// Active items matching `query` (in `category` when given), best match first, at most
    /// `limit` and never more than 50: index reads of one snapshot (record 0133).
    pub fn search(&self, query: &SearchQuery, category: Option<&str>, limit: usize) -> Result<Vec<Found>> {
        self.engine.with_reader(|l| l.catalog().search(query, category, limit))
    }

    /// The categories in tab order, and (SKU, category key) of every item in one.
    pub fn categories(&self) -> Result<(Vec<Category>, ItemCategories)> {
        self.engine.with_reader(|l| Ok((l.catalog().categories()?, l.catalog().item_categories()?)))
    }

    /// Adds or changes categories by key, all or none, in `actor_id`'s name.
    pub fn save_categories(&self, categories: &[Category], actor_id: Option<i64>) -> Result<usize> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().save_categories(categories, actor_id, now))
    }

    /// Adds or changes one item and puts it in category `key` (None: in none), one
    /// transaction, in `actor_id`'s name.
    pub fn save_in_category(&self, item: &CatalogItem, key: Option<&str>, actor_id: Option<i64>) -> Result<bool> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().upsert_in_category(item, key, actor_id, now))
    }

    /// Puts item `sku` in category `key` (None: in none), in `actor_id`'s name.
    pub fn set_item_category(&self, sku: &str, key: Option<&str>, actor_id: Option<i64>) -> Result<bool> {
        let now = self.engine.now();
        self.engine.with_ledger(|l| l.catalog_mut().set_item_category(sku, key, actor_id, now))
    }
}
