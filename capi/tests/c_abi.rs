//! The C ABI's integration tests.
//! One test binary for the crate: each file of `tests/` is a module of it (one link and one
//! compilation of the shared code instead of one a file; `autotests = false` in Cargo.toml;
//! the root crate's `test_binaries` checks that every file is a module here).
//! `cargo test --test c_abi NAME` runs the tests whose path contains NAME (e.g. a file's name).

mod arch;
mod arch_exec;
mod arch_fixture;
mod bad_input;
mod bound;
mod capi;
mod check;
mod class_desc;
mod common;
mod descriptor;
mod descriptor_ext;
mod descriptors_doc;
mod error_shape;
mod execute;
mod fields;
mod handles;
mod header;
mod memory;
mod memory_cache;
mod memory_exec;
mod names;
mod ranges;
mod sectors;
mod unnormalized;
