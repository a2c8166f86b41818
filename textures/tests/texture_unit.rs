//! tld4-textures' integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml;
//! the root crate's `test_binaries` checks that every file is a module here).
//! `cargo test --test texture_unit NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod addressing;
mod bad_input;
mod common;
mod cube;
mod detached;
mod errors;
mod formats;
mod lanes;
mod precision;
mod preconditions;
mod properties;
mod trace;
mod unnormalized;
