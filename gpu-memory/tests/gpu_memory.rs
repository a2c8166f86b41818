//! tld4-gpu-memory's integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml).
//! `cargo test --test gpu_memory NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod classes;
mod memory;
mod memory_corpus;

/// A file in `tests/` that is not a module here would never run: each one must be.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = include_str!("gpu_memory.rs");
    for entry in std::fs::read_dir(&dir).expect("tests/") {
        let path = entry.expect("tests/ entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let is_module =
            path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
        if is_module && name != "gpu_memory" {
            assert!(
                this.contains(&format!("\nmod {name};")),
                "tests/{name} is not a module of tests/gpu_memory.rs: add `mod {name};`"
            );
        }
    }
}
