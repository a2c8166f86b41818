//! Reference gathers from a Vulkan driver for the TLD4 texture unit (the lavapipe oracle:
//! docs/sources.md, The oracles).
//!
//! The library holds what needs no Vulkan, so that the root package's tests can use it:
//! the corpus generator ([`generate`]), the ambiguity classification and agreement report
//! ([`classify`]), the corpus files' reading and writing ([`corpus`]), and the comparison of a
//! corpus with the texture unit ([`corpus::compare_with_texture_unit`]). The binary
//! `tld4-lavapipe` (feature `vulkan`) adds the driver: `fill`, `generate`, `compare`.

pub mod classify;
pub mod corpus;
pub mod generate;
pub mod rng;
