//! tld4-gpu-memory's integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml;
//! the root crate's `test_binaries` checks that every file is a module here).
//! `cargo test --test gpu_memory NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod by_sectors;
mod classes;
mod descriptor_fields;
mod memory;
mod memory_corpus;
