//! Conformance verdicts for texture gathers: is someone's gather result tld4's (NVIDIA's
//! model, bit for bit), or allowed by the Khronos conformance test suite's bounds, or wrong?
//!
//! A port of the gather verification of VK-GL-CTS (`framework/common/tcuTexLookupVerifier.cpp`:
//! `isGatherResultValid`, `isGatherOffsetsResultValid`; `tcuTexCompareVerifier.cpp`:
//! `isGatherOffsetsCompareResultValid`, `isGatherCompareResultValid`; `tcuTexVerifierUtil.cpp`),
//! with the precision the gather tests grant per texture kind
//! (`vktShaderRenderTextureGatherTests.cpp`, `es31fTextureGatherTests.cpp`): docs/sources.md,
//! Conformance verdicts, states the rules and the parameters.
//!
//! * [`Checker`]: a texture and a sampler; [`Checker::check`] gives one query's [`Verdict`]:
//!   [`Verdict::Exact`], [`Verdict::Allowed`] (with the footprint or rounding that explains
//!   it) or [`Verdict::Wrong`] (by how much, at which of the four values).
//! * [`cts_grid`]: the CTS's texture-gather test grid, generated as the CTS generates it.
//! * [`check_file`]: a `tld4 gather` cases file whose `result`s are the observed results
//!   (`tld4 check`).
//!
//! ```
//! use tld4_conformance::*;
//! use tld4_textures::*;
//! let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
//! let tex = Texture::from_fields(desc, &[1, 2, 3, 4]).unwrap();
//! let sampler = Sampler::default();
//! let mut checker = Checker::new(&tex, &sampler, Precision::default(), CtsPrecision::for_kind(TextureKind::Tex2D));
//! let q = Query { coords: [0.5, 0.5, 0.0, 0.0], component: 0, offset_mode: OffsetMode::None, offsets: [[0; 2]; 4], dref: None };
//! assert_eq!(checker.check(&q, [3, 4, 2, 1]).unwrap().verdict, Verdict::Exact);
//! assert!(matches!(checker.check(&q, [3, 4, 2, 9]).unwrap().verdict, Verdict::Wrong(_)));
//! ```

#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod bounds;
mod candidates;
pub mod cts_grid;
#[cfg(feature = "cases")]
mod file;
mod precision;
mod query;
mod verdict;

pub use candidates::{Anything, Bounds, Candidate, Candidates, Footprint};
#[cfg(feature = "cases")]
pub use file::{check_file, check_text, CaseReport, CheckError, QueryReport, Report, Summary};
pub use precision::CtsPrecision;
pub use query::Query;
pub use verdict::{Allowed, Checker, QueryVerdict, Verdict, Wrong};
