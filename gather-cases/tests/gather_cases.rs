//! tld4-gather-cases' integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml;
//! the root crate's `test_binaries` checks that every file is a module here).
//! `cargo test --test gather_cases NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod cases_json;
mod cases_strict;
mod names;
