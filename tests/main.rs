//! paydesk-e2e's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.
//! tests/package.rs (the shipped .deb) stays its own binary, `package`, run last by `make test`.

mod window_backoffice;
mod window_cancel_change;
mod window_catalog;
mod window_checkout;
mod window_copies;
mod window_counter_rules;
mod window_customer_display;
mod window_dst;
mod window_exchange;
mod window_held;
mod window_i18n;
mod window_layout;
mod window_next_sale;
mod window_not_charged;
mod window_open_price;
mod window_reader;
mod window_receipts;
mod window_restored_return;
mod window_returns;
mod window_ryoshusho;
mod window_scan;
mod window_search;
mod window_settings;
mod window_shift;
mod window_shift_approval;
mod window_small_screen;
mod window_staff;
mod window_store;
mod window_store_tender;
mod window_tax_exempt;
mod window_tender;
mod window_weighed;
