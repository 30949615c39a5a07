//! paydesk-register's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.

mod commits;
mod events_first_poll;
mod events_paging;
mod in_process;
mod offline_caps;
mod payment_after;
mod reader;
mod readers;
mod receipt_candidates;
mod scan;
mod search_lag;
mod statements;
mod stored_failures;
mod tenders;
mod tls;
