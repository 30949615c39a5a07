//! paydesk-receipt's integration tests as ONE test binary (docs/decisions/0103-one-test-binary-per-crate.md):
//! every file in tests/ is a module of this file, so the heavy dependencies are linked once,
//! not once per file. nextest still runs each test in its own process.
//! A new test file: put it in tests/ and add its `mod` line below (alphabetical);
//! paydesk-test-kit's `every_test_file_is_compiled` fails while a file is not listed.
//! The shared helpers are declared here once: a file says `use crate::common;`, not `mod common;`.

mod common;

mod document;
mod print;
mod props;
mod ryoshusho;
mod render;
mod return_doc;
mod shift_report;
mod unreachable;
mod weighed;
