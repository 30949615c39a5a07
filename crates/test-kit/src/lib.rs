//! `paydesk-test-kit`: what PayDesk's tests share, so each test crate does not grow its
//! own copy. A dev-dependency only (`publish = false`); nothing in a product depends on
//! it. The mock PSP it starts is the real product part, never a fake:
//!
//! | file | what |
//! |---|---|
//! | `bench_stats.rs` | the benchmarks' permutation test of "slower beyond noise" (ratios, never asserted) |
//! | `serve.rs` | the mock PSP in process, served on a loopback port (`127.0.0.1:0`, or a given port again after a restart) |
//! | `process.rs` | the URL a PSP process prints once it listens (`listening on URL`) |
//! | `ledger.rs` | a register ledger in a temp dir (a real SQLite file) |
//! | `in_process.rs` | the register's transport that calls the mock PSP's service directly (no socket) |
//! | `source_files.rs` | (tests only) the `.rs` files under a folder, sorted, for the checks below that read sources |
//! | `test_layout.rs` | (a test only) every `tests/*.rs` in the workspace is a `mod` of its package's one test binary |
//! | `vocabulary_once.rs` | (a test only) `Currency`, `TenderKind`, `Locale` and `Money` are declared in `crates/domain` and no other crate (decision 0107) |
//! | `records_cited.rs` | (a test only) code cites decision records (`record 0048`) that exist, never a section of the former design.md |
//! | `ledger_stores.rs` | (a test only) `impl Ledger` blocks only in the ledger's `ledger/mod.rs`, and `Ledger` has no public method besides its life cycle and the store accessors (decision 0111) |
//! | `fn_length.rs` | (a test only) the ledger's, register's and mock PSP's functions are at most 70 lines, with no `too_many_arguments` allowance; the long ones left are a list that may only shrink |

pub mod bench_stats;
mod in_process;
mod ledger;
mod process;
mod serve;
#[cfg(test)]
mod test_layout;
#[cfg(test)]
mod docs_crate_graph;
#[cfg(test)]
mod module_cycles;
#[cfg(test)]
mod fn_length;
#[cfg(test)]
mod one_door;
#[cfg(test)]
mod ledger_stores;
#[cfg(test)]
mod records_cited;
#[cfg(test)]
mod source_files;
#[cfg(test)]
mod vocabulary_once;

pub use in_process::{advance_both, call, get_json, InProcess, Posts};
pub use ledger::{ledger_in, TempLedger};
pub use paydesk_sim::world::{http_response, psp_request};
pub use process::{listening_url, workspace_binary};
pub use serve::{psp_on_file, serve, serve_on, PortHold};

/// The secret key the tests' PSP accounts use unless a test needs another.
pub const KEY: &str = "sk_test_a";
