//! paydesk-backoffice's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.
//! The shared helpers are declared here once: a file says `use crate::support;`, not `mod support;`.

mod support;
// The rule tests' facts (rows, batches, a two-line cash sale): the back office's own, not in
// `support`, which other crates' tests include without `paydesk-sync-proto`.
mod facts;

mod audit_heads;
mod audit_page;
mod audit_rows;
mod catalog;
mod cluster;
mod dashboard;
mod fast_path;
mod impossible_exchanges;
mod impossible_facts;
mod impossible_returns;
mod impossible_store_tenders;
mod ingest;
mod key_first;
mod outage;
mod owed;
mod owed_chaos;
mod owner;
mod pairing;
mod publish_page;
mod publishing;
mod reconcile;
mod reports;
mod reports_page;
mod restore;
mod restored_exchanges;
mod restored_returns;
mod sales;
mod slow_clients;
mod staff;
mod upgrades;
mod zone_and_shape;
