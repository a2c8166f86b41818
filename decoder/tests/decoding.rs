//! tld4-decoder's integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml).
//! `cargo test --test decoding NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod arch_corpora;
mod docs;
mod fast_path;
mod pred_precondition;
mod seeds;
mod text_and_round_trips;

/// A file in `tests/` that is not a module here would never run: each one must be.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = include_str!("decoding.rs");
    for entry in std::fs::read_dir(&dir).expect("tests/") {
        let path = entry.expect("tests/ entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let is_module =
            path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
        if is_module && name != "decoding" {
            assert!(
                this.contains(&format!("\nmod {name};")),
                "tests/{name} is not a module of tests/decoding.rs: add `mod {name};`"
            );
        }
    }
}
