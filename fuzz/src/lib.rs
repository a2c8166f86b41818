//! A fuzzer for the TLD4 crates on stable Rust: structure-aware generation and mutation
//! (byte flips, splices, JSON and assembly tokens, boundary numbers) over eight targets, with
//! each input run under `catch_unwind` and checked for its target's properties.
//!
//! * [`targets`]: what each target runs and asserts (round trips, typed errors, no panic).
//! * [`mutate`]: the generators and mutators; [`json`]: structure-aware JSON mutation.
//! * [`corpus`]: the committed seeds and their manifest (which seeds must be refused).
//! * [`driver`]: seeds first, then mutation for a bounded time; crashes saved to files.
//!
//! `cargo run --profile fuzz -p tld4-fuzz -- --seconds 120` (overflow checks and debug
//! assertions on) exits 1 on any crash or seed with the wrong verdict.

pub mod capi_target;
pub mod corpus;
pub mod driver;
pub mod http_target;
pub mod json;
pub mod memory_target;
pub mod mutate;
pub mod targets;

pub use corpus::{CorpusError, Expect, Seed};
pub use driver::{fuzz, run_caught, Crash, Report, Settings};
pub use targets::{Target, Verdict};
