//! paydesk's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.
//! The shared helpers are declared here once: a file says `use crate::support;`, not `mod support;`.

mod support;

mod audit;
mod backoffice;
mod backup_send;
mod blind_close;
mod cards;
mod commands;
mod counter_rules;
mod customer;
mod discounts;
mod hardening;
mod keychain;
mod open_price;
mod reader;
mod restart;
mod restored_exchange;
mod restored_returns;
mod screen;
mod shift;
mod staff;
mod staff_admin;
mod store;
mod store_tenders;
mod takings;
mod tax_exempt;
mod ui_modules;
mod upgrade;
mod version;
mod weighed;
