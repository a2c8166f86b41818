//! The tld4 command's and the repository's integration tests (CLI, docs, corpora).
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml).
//! `cargo test --test integration NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod arch_cli;
mod bad_input_cli;
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
mod shader_unit_test;

/// A file in `tests/` that is not a module here would never run: each one must be.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = include_str!("integration.rs");
    for entry in std::fs::read_dir(&dir).expect("tests/") {
        let path = entry.expect("tests/ entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let is_module =
            path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
        if is_module && name != "integration" {
            assert!(
                this.contains(&format!("\nmod {name};")),
                "tests/{name} is not a module of tests/integration.rs: add `mod {name};`"
            );
        }
    }
}
