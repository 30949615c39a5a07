//! paydesk-sync's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.
//! The shared helpers are declared here once: a file says `use crate::support;`, not `mod support;`.

#[path = "../../backoffice/tests/support/mod.rs"]
mod support;
#[path = "common/register.rs"]
mod register;
#[path = "common/proxy.rs"]
mod proxy;

mod audit_search;
mod audit_up;
mod backup_send;
mod catalog_down;
mod chaos;
mod exchanges_up;
mod journal_export;
mod local_up;
mod reports_staff;
mod reports_z;
mod returns_up;
mod sales_up;
mod shape_and_zone_down;
mod store_tenders_up;
mod sync;
