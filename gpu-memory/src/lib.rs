//! Textures in GPU memory, as NVIDIA's texture unit finds them: the counterpart of Mesa's NIL
//! for the tld4 texture unit (`tld4-textures`), one concept per file.
//!
//! * [`memory`]: bytes at 64-bit addresses ([`Memory`], implemented by the simulator;
//!   [`FlatMemory`] and [`SparseMemory`] for tests and tools); [`ranges`]: many borrowed
//!   ranges read in place ([`RangesMemory`]); [`callback`]: memory behind a read function,
//!   asked for whole textures and 32-byte sectors ([`CallbackMemory`], C's read callback).
//! * [`descriptor`]: texture headers (TIC, [`TextureHeader`]) and samplers (TSC,
//!   [`SamplerState`]), 32 bytes each, restated once as bit tables from NVIDIA's class
//!   headers (docs/sources.md, Descriptors).
//! * [`layout`]: the pitch or block-linear [`Layout`](tld4_textures::layout::Layout) a header
//!   gives its texels ([`layout_of`]).
//! * [`texels`]: the texels a header describes as a [`TexelSource`](tld4_textures::TexelSource)
//!   read through [`Memory::read`] ([`MemoryTexels`]).
//! * [`pool`]: the header and sampler pools a handle indexes ([`MemoryPool`]): descriptors
//!   read and decoded once, texels read in place by the lane-parallel texture unit where the
//!   memory hands out a view, texel by texel otherwise, texel addresses on request.
//! * [`to_memory`](mod@to_memory): an owned texture and sampler written into memory as a driver would
//!   ([`to_memory()`], [`pool_image`]).
//!
//! The texture unit knows how texels are placed in bytes (its `layout` module) and reads
//! them through a [`TexelSource`](tld4_textures::TexelSource) or a byte slice; this crate
//! knows where they are and what the descriptors say. No serde.

#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod callback;
pub mod descriptor;
mod error;
mod hints;
pub mod layout;
mod mapped;
pub mod memory;
pub mod pool;
pub mod ranges;
pub mod staged;
pub mod texels;
pub mod to_memory;

pub use callback::{
    CallbackMemory, Kept, ReadBytes, ONE_WARP_MAX_VIEW, ONE_WARP_VIEW_OVER_SECTORS,
};
pub use descriptor::class::{ClassDescriptors, ClassError, GpuClass, HeaderFormat};
pub use descriptor::tic::{HeaderLayout, TextureHeader};
pub use descriptor::tsc::{HwAddressMode, SamplerState};
pub use descriptor::DescriptorError;
pub use error::MemTexError;
pub use layout::layout_of;
pub use memory::{FlatMemory, Memory, MemoryError, SparseMemory};
pub use pool::{DetachedTexture, MemoryPool, PreparedTexture};
pub use ranges::{Range, RangesError, RangesMemory};
pub use staged::MAX_STAGED;
pub use texels::MemoryTexels;
pub use to_memory::{pool_image, to_memory, LayoutChoice, MemoryForm, PoolImage};
