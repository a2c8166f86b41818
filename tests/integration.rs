//! The tld4 command's and the repository's integration tests (CLI, docs, corpora).
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml;
//! the root crate's `test_binaries` checks that every file is a module here).
//! `cargo test --test integration NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod arch_cli;
mod bad_input_cli;
mod check_cli;
mod cli;
mod common;
mod cubin_arches;
mod cubin_example;
mod cubin_scenario;
mod doc_paths;
mod explain_cli;
mod gather_cli;
mod gather_example;
mod lavapipe_corpus;
mod memory_scenario_cli;
mod nvdisasm_corpus;
mod readme_examples;
mod robustness_cli;
mod scan_cli;
mod serve_cli;
mod shader_unit_test;
mod test_binaries;
