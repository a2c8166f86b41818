//! The conformance verdicts' tests (docs/sources.md, Conformance verdicts), one binary.

mod cts_grid;
mod peers;
mod verdicts;
