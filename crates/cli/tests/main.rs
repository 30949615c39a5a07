//! paydesk-cli's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.
//! The shared helpers are declared here once: a file says `use crate::common;`, not `mod common;`.

mod common;
#[path = "../../backoffice/tests/support/mod.rs"]
mod support;

mod access;
mod backup;
mod capture_canceled;
mod cart_held;
mod catalog;
mod checkout;
mod counter_rules;
mod crash;
mod created_maybe_sent;
mod offline_past_window;
mod open_price;
mod reader;
mod refund_twice;
mod refusals;
mod resilience;
mod restore;
mod restored_exchange;
mod restored_return;
mod ryoshusho;
mod ryoshusho_kept;
mod sale;
mod sale_exchange;
mod sale_return;
mod staff_admin;
mod store_tender;
mod shift;
mod simulate_restored;
mod sync;
mod told_stays_true;
mod us_tax;
mod weighed;
