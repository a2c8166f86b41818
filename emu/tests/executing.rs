//! tld4-emu's integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml;
//! the root crate's `test_binaries` checks that every file is a module here).
//! `cargo test --test executing NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod bound;
mod constants;
mod embedding;
mod execute;
mod last_binding;
mod last_memory;
mod memory;
mod simd_levels;
