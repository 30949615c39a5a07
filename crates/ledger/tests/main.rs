//! paydesk-ledger's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.
//! The shared helpers are declared here once: a file says `use crate::common;`, not `mod common;`.

mod common;

mod audit_confirmed;
mod audit_rows;
mod backup;
mod cancel_store_change;
mod catalog;
mod concurrency;
mod counter_rules;
mod crash;
mod csv_cells;
mod demo_staff;
mod exchange_chains;
mod exchanges;
mod gtin;
mod held;
mod item_fact_shape;
mod named_rates;
mod old_sqlite;
mod open;
mod open_prices;
mod published_caps;
mod operations;
mod outbox;
mod outbox_local;
mod outbox_exchanges;
mod outbox_returns;
mod outbox_sales;
mod outbox_store_tenders;
mod paced_copies;
mod private_files;
mod proptest_exchanges;
mod proptest_returns;
mod proptest_sequences;
mod proptest_staff;
mod proptest_tenders;
mod receipts;
mod refunds_events;
mod restored;
mod restored_credit_give_back;
mod restored_exchanges;
mod restored_returns;
mod return_prints;
mod returns;
mod running_copies;
mod search;
mod ryoshusho;
mod ryoshusho_kept;
mod sale_tax;
mod shifts;
mod sqlite_build;
mod store_tenders;
mod staff_admin;
mod staff_audit;
mod successor;
mod takings_periods;
mod tax_exempt;
mod tender_staff;
mod tenders;
mod upgrade;
mod upgrade_catalog;
mod upgrade_prints;
mod upgrade_reader;
mod upgrade_tenders;
mod weighed;
