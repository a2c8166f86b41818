//! The software texture unit that the TLD4 emulator executes against.
//!
//! Given a texture header, a sampler and one lane's gather arguments, it returns the four
//! values NVIDIA's texture unit returns for a 2x2 gather (TLD4): which texels, in which order,
//! converted how. It knows nothing of instruction encodings.
//!
//! * [`Texture`]: kind (2D, 2D array, cube, cube array), size, [`Format`], component
//!   [`Swizzle`], texels in an `ndarray`, optional sparse [`Residency`].
//! * [`Sampler`]: [`AddressMode`] per axis, [`BorderColor`] words, depth [`CompareOp`],
//!   seamless cube edges.
//! * [`TexturePool`] and [`Handle`]: header index in bits 0-19, sampler index in bits 20-31.
//! * [`Gatherer`]: the fast path. Build one per warp (or per distinct handle) with
//!   [`Gatherer::new`] or [`TexturePool::gatherer`], which does every check, then call
//!   [`Gatherer::gather`] per lane: no allocation, no failure.
//! * [`SiteGatherer`]: the same gather over any [`TexelSource`] read texel by texel, each
//!   read fallible, with the byte address of every texel on request.
//! * [`trace`](mod@trace): one lane's gather step by step, for `tld4 explain`.
//!
//! Elsewhere: textures in GPU memory (descriptors, memory, pools) are the `tld4-gpu-memory`
//! crate; the f64 reference gather written from the Vulkan formulas is `tld4-reference`;
//! the JSON model of `tld4 gather CASES.json` is `tld4-gather-cases`. Cargo feature `serde`
//! (off by default) derives serde on the public value types for them.
//!
//! Sources: the Vulkan specification (texel selection, wrapping, conversions, cube maps,
//! depth compare), docs/sources.md (what NVIDIA's tools and Mesa's NAK show, what
//! lavapipe does, and the project's decisions where no source speaks), and named guesses.
//! Unmeasured on NVIDIA hardware: the sub-texel tie rule ([`Precision`]; rounding to nearest at
//! 8 bits was measured by a third party, docs/sources.md, Sub-texel model), cube-corner
//! gathers ([`cube_corner_value`]), and whether UNORM conversion is correctly rounded.
//!
//! ```
//! use tld4_textures::*;
//! // A 4x4 RGBA8 texture whose red channel is 10 * x + y.
//! let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::Rgba8Unorm, width: 4, height: 4, layers: 1 };
//! let tex = Texture::from_fn(desc, |_, x, y| [10 * x + y, 0, 0, 255]).unwrap();
//! let mut pool = TexturePool::new();
//! let t = pool.add_texture(tex)?;
//! let s = pool.add_sampler(Sampler::with_address(AddressMode::ClampToEdge))?;
//! let handle = Handle::new(t, s).unwrap();
//! // Once per warp:
//! let g = pool.gatherer(handle, &GatherOp::new(TextureKind::Tex2D, 0), Precision::default()).unwrap();
//! // Per lane: u = 0.5 * 4 = 2, so i0 = floor(2 - 0.5) = 1; likewise j0 = 1.
//! let r = g.gather(&GatherQuery::at(0.5, 0.5));
//! let expect = [12.0f32, 22.0, 21.0, 11.0].map(|c| c / 255.0); // (1,2), (2,2), (2,1), (1,1)
//! assert_eq!(r.as_f32(), expect);
//! # Ok::<(), Error>(())
//! ```
//!
//! # Performance
//!
//! Build one [`Gatherer`] per warp (per distinct handle), then gather all of the warp's lanes
//! with [`Gatherer::gather_many`]: the format, kind, address modes and compare are dispatched
//! once and the lane loop is monomorphized; [`Gatherer::gather`] does the same dispatch for
//! every call. `cargo run --release -p tld4-textures --example gather_bench` measures it.
//!
//! # Decisions (each unmeasured on NVIDIA hardware, each in one place)
//!
//! * Sub-texel precision: [`Precision::default`], 8 fractional bits, round to nearest even.
//! * NaN coordinates read as 0; coordinates are clamped to +-2^50 fixed-point units.
//! * Cube projection in f64 with a true division; a zero major axis counts as positive.
//! * Cube corners: [`cube_corner_value`] (lavapipe's float arithmetic; integer formats copy
//!   the texel in the same column).
//! * Border colours: raw words read by the format, unswizzled, (0, 0, 1) for missing
//!   components ([`border_value`]); with depth compare the border's first word is the depth.
//! * With depth compare the swizzle is not applied and the component is ignored; compare on
//!   a non-depth format is [`NotModeled`].
//! * Offsets are read as 6-bit signed values; the array layer is clamped to layers - 1.

#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod cube;
mod error;
mod format;
mod gather;
pub mod lane;
pub mod layout;
mod memory_error;
mod op;
mod placement;
mod pool;
mod sampler;
#[allow(unsafe_code)]
mod simd;
mod stages;
mod texture;
pub mod trace;

pub use error::{Error, InvalidInput, NotModeled};

mod sites;
mod source;
mod storage;
pub use format::{
    shared_exp, small_float, snorm, srgb_to_linear, unorm, Class, Format, SmallFloatWidth,
    StorageWidth, ValueKind,
};
pub use gather::{
    DetachedGatherer, FoundTexels, Gatherer, KernelTexels, LaneQueries, LaneResults, TexelWatcher,
    LANES,
};
pub use lane::{LaneAddress, Probe, Site};
pub use memory_error::MemoryError;
pub use op::{
    GatherOp, GatherQuery, GatherResult, OffsetMode, Precision, Rounding, MAX_FRACTION_BITS,
};
pub use pool::{Handle, TexturePool};
pub use sampler::{AddressMode, BorderColor, CompareOp, Sampler};
pub use simd::loads::{
    detected_texel_loads, set_texel_loads, texel_loads, texel_loads_env_error, with_texel_loads,
    TexelLoads,
};
pub use simd::sectors::TexelSectors;
pub use simd::{
    avx2_available, detected_simd_level, run_at, set_simd_level, simd_env_error, simd_level,
    AtLevel, SimdLevel,
};
pub use sites::{LaneMemoryError, LaneTexels, SiteGatherer, TexelAddress};
pub use source::{Shape, TexelSource};
pub use stages::{
    array_layer, border_value, clamp_dref, cube_corner_value, depth_compare, float_layer,
    float_layers, footprint, texel_origin, wrap, FOOTPRINT_LIMIT, MAX_WRAP_SIZE,
};
pub use storage::TexelData;
pub use texture::MAX_TEXTURE_BYTES;
pub use texture::{Residency, Source, Swizzle, Texture, TextureDesc, TextureKind, MAX_SIZE};
