//! Typed errors: "invalid input" (the request is wrong) versus "not modeled"
//! (the request is valid, but the emulator does not know what NVIDIA's
//! hardware does with it). Nothing in this crate panics on bad input.

use thiserror::Error;

use crate::format::Format;
use crate::sampler::AddressMode;
use crate::texture::TextureKind;

/// Every error this crate returns.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum Error {
    /// The request is wrong: a bad index, a size that does not add up, a value out of range.
    #[error("invalid input: {0}")]
    Invalid(#[from] InvalidInput),
    /// The request is valid, but what the hardware does with it is unknown.
    #[error("not modeled: {0}")]
    NotModeled(#[from] NotModeled),
}

impl Error {
    /// True for [`Error::NotModeled`].
    pub fn is_not_modeled(&self) -> bool {
        matches!(self, Error::NotModeled(_))
    }
}

/// Input that no hardware would accept.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum InvalidInput {
    /// The handle's texture-header index (bits 0-19) names no header in the pool.
    #[error("texture header index {index} is not in the header pool ({len} slots{})", if *.empty_slot { ", that slot is empty" } else { "" })]
    BadHeaderIndex {
        /// The index taken from the handle.
        index: u32,
        /// Number of slots in the header pool.
        len: usize,
        /// True when the slot exists but holds no header.
        empty_slot: bool,
    },
    /// The handle's sampler index (bits 20-31) names no sampler in the pool.
    #[error("sampler index {index} is not in the sampler pool ({len} slots{})", if *.empty_slot { ", that slot is empty" } else { "" })]
    BadSamplerIndex {
        /// The index taken from the handle.
        index: u32,
        /// Number of slots in the sampler pool.
        len: usize,
        /// True when the slot exists but holds no sampler.
        empty_slot: bool,
    },
    /// A pool index past what a handle can hold.
    #[error("{what} index {index} does not fit in its handle field (max {max})")]
    IndexTooLarge {
        /// "texture header" or "sampler".
        what: &'static str,
        /// The index.
        index: u32,
        /// The largest index the field holds.
        max: u32,
    },
    /// A [`crate::LaneQueries`] holds at most a warp of lanes.
    #[error("a LaneQueries holds at most {max} lanes")]
    TooManyLanes {
        /// [`crate::LANES`].
        max: usize,
    },
    /// A lane range outside the lanes a [`crate::LaneQueries`] holds.
    #[error("lanes {start}..{end} are not within the {len} lanes held")]
    LaneRange {
        /// First lane of the range.
        start: usize,
        /// One past the last lane.
        end: usize,
        /// Lanes held.
        len: usize,
    },
    /// Width, height or layer count is zero or too large.
    #[error("bad texture size {width}x{height} with {layers} layer(s): {why}")]
    BadSize {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// Layers (whole cubes for a cube array).
        layers: u32,
        /// What is wrong.
        why: &'static str,
    },
    /// The texel data does not have the number of values the texture needs.
    #[error(
        "texel data has {got} values, a {kind:?} {format:?} texture of this size needs {expected}"
    )]
    TexelCount {
        /// Texture kind.
        kind: TextureKind,
        /// Texture format.
        format: Format,
        /// Values needed.
        expected: usize,
        /// Values given.
        got: usize,
    },
    /// A raw texel value does not fit in its field.
    #[error("texel value {index} ({value}) does not fit in the format's {bits}-bit field")]
    TexelRange {
        /// Position of the value in the flat texel list.
        index: usize,
        /// The value.
        value: i64,
        /// Width of the field.
        bits: u32,
    },
    /// Texel storage that does not fit the texture.
    #[error("texel storage: {0}")]
    Storage(String),
    /// A residency map whose shape does not match the texture.
    #[error("residency map: {0}")]
    Residency(String),
    /// A texel offset outside -32..=31.
    #[error("offset {0} is outside -32..=31")]
    OffsetRange(i64),
    /// A component outside 0..=3.
    #[error("component {0} is outside 0..=3")]
    Component(u32),
    /// Precision settings outside what the model supports.
    #[error("sub-texel precision of {0} fractional bits is outside 0..=20")]
    Precision(u32),
}

/// Valid input whose hardware behaviour is unknown (docs/sources.md, Decisions).
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum NotModeled {
    /// AOFFI or PTP offsets on a CUBE or ARRAY_CUBE gather.
    #[error("texel offsets on a {0:?} gather")]
    OffsetsOnCube(TextureKind),
    /// The texture's kind differs from the dimension the gather asks for.
    #[error("a {texture:?} texture gathered as {requested:?}")]
    KindMismatch {
        /// Kind of the texture in the header.
        texture: TextureKind,
        /// Dimension the gather asks for.
        requested: TextureKind,
    },
    /// Depth compare asked for with a sampler whose compare is off.
    #[error("depth compare requested, but the sampler's compare is off")]
    CompareOff,
    /// Depth compare asked for on a texture that is not a depth format.
    #[error("depth compare on the non-depth format {0:?}")]
    CompareOnColor(Format),
    /// Unnormalized coordinates with an address mode other than clamp to edge or clamp to
    /// border: CUDA and Vulkan allow only those two, and what the hardware does with the
    /// others is unmeasured (docs/sources.md, Unnormalized coordinates).
    #[error("unnormalized coordinates with the address mode {0:?} (only clamp to edge and clamp to border are modeled)")]
    UnnormalizedAddressMode(AddressMode),
    /// Unnormalized coordinates on a cube kind: no API allows them and the hardware's rule is
    /// unmeasured (docs/sources.md, Unnormalized coordinates).
    #[error("unnormalized coordinates on a {0:?} texture")]
    UnnormalizedCube(TextureKind),
    /// A coordinate times the texture size at or beyond +-2^52, where `reference::gather`'s
    /// f64 texel selection stops being exact (the fast path clamps instead).
    #[error("reference gather: coordinate * size = {0} is beyond +-2^52")]
    ReferenceRange(f64),
}
