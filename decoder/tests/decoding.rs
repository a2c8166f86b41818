//! tld4-decoder's integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml;
//! the root crate's `test_binaries` checks that every file is a module here).
//! `cargo test --test decoding NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod arch_corpora;
mod docs;
mod fast_path;
mod immediates;
mod pred_precondition;
mod seeds;
mod text_and_round_trips;
