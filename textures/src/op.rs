//! What one gather asks for, and what it gives back: the operation ([`GatherOp`], fixed for
//! a warp), one lane's query ([`GatherQuery`]) and result ([`GatherResult`]), the sub-texel
//! precision model ([`Precision`]) and the value rule a prepared gather resolves ([`Value`]).
//! Plain data, imported by every stage of the pipeline and importing none of them.

use crate::error::{Error, InvalidInput};
use crate::format::Decoder;
use crate::sampler::CompareOp;
use crate::texture::TextureKind;

/// Most fractional bits of the fixed-point model ([`Precision::Fixed`]).
pub const MAX_FRACTION_BITS: u32 = 20;

/// Which texel offsets a gather instruction carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OffsetMode {
    /// No offsets.
    #[default]
    None,
    /// One (dx, dy) for the whole footprint: `GatherQuery::offsets[0]`.
    Aoffi,
    /// Four per-texel offsets: `GatherQuery::offsets[0..4]`.
    Ptp,
}

/// What one gather instruction asks for, fixed for all its lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GatherOp {
    /// The dimension the instruction names; must equal the texture's kind.
    pub dim: TextureKind,
    /// Component to gather, 0..=3 (R, G, B, A after the swizzle); ignored with `compare`.
    pub component: u8,
    /// Texel offsets.
    pub offsets: OffsetMode,
    /// Depth compare (`.DC`).
    pub compare: bool,
}

impl GatherOp {
    /// A gather of `component` on a `dim` texture, no offsets, no compare.
    pub fn new(dim: TextureKind, component: u8) -> Self {
        GatherOp {
            dim,
            component,
            offsets: OffsetMode::None,
            compare: false,
        }
    }
}

/// How u = s * width becomes a fixed-point number before the footprint's floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Rounding {
    /// Round to nearest, ties to even.
    #[default]
    #[cfg_attr(feature = "serde", serde(alias = "nearest"))]
    NearestEven,
    /// Truncate toward zero.
    #[cfg_attr(feature = "serde", serde(alias = "truncate"))]
    TowardZero,
    /// Round toward negative infinity.
    Floor,
}

/// The sub-texel precision model of texel selection.
///
/// Default: 8 fractional bits, round to nearest even. Backing: the drivers (and lavapipe)
/// report `subTexelPrecisionBits = 8`; vkd3d-proton's `test_sampler_rounding`, run on NVIDIA
/// hardware by its authors, expects gathers to round to nearest at 8 bits (docs/sources.md,
/// Sub-texel model); the tie rule is unmeasured (docs/sources.md, Open questions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    /// u * 2^fraction_bits is rounded to an integer, then i0 = floor(u - 0.5) on that value.
    Fixed {
        /// Fractional bits, 0..=20.
        fraction_bits: u8,
        /// How the product is rounded.
        rounding: Rounding,
    },
    /// No quantization: i0 = floor(s * width - 0.5) computed exactly (as `reference` does).
    Exact,
}

impl Default for Precision {
    fn default() -> Self {
        Precision::Fixed {
            fraction_bits: 8,
            rounding: Rounding::NearestEven,
        }
    }
}

/// One lane's gather arguments.
///
/// ```
/// use tld4_textures::GatherQuery;
/// let q = GatherQuery::at(0.25, 0.5).with_layer(3).with_aoffi(-32, 31).with_dref(0.5);
/// assert_eq!(q.offsets[0], [-32, 31]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GatherQuery {
    /// (s, t) for 2D kinds (the third entry unused), (x, y, z) for cube kinds.
    pub coords: [f32; 3],
    /// Array layer (whole cube for a cube array) as the instruction receives it; clamped to
    /// layers - 1. Ignored by 2D and cube textures.
    pub layer: u32,
    /// Texel offsets (dx, dy): entry 0 for AOFFI, entries 0..4 for PTP. Each is read as a 6-bit
    /// signed value (the hardware reads 6 bits; docs/sources.md), so only -32..=31 are distinct.
    pub offsets: [[i8; 2]; 4],
    /// Depth reference, used with depth compare.
    pub dref: f32,
}

impl GatherQuery {
    /// A query at (s, t).
    pub fn at(s: f32, t: f32) -> Self {
        GatherQuery {
            coords: [s, t, 0.0],
            ..Self::default()
        }
    }

    /// A query at cube direction (x, y, z).
    pub fn at_cube(x: f32, y: f32, z: f32) -> Self {
        GatherQuery {
            coords: [x, y, z],
            ..Self::default()
        }
    }

    /// With array layer `layer`.
    pub fn with_layer(mut self, layer: u32) -> Self {
        self.layer = layer;
        self
    }

    /// With AOFFI offset (dx, dy).
    pub fn with_aoffi(mut self, dx: i8, dy: i8) -> Self {
        self.offsets[0] = [dx, dy];
        self
    }

    /// With PTP offsets.
    pub fn with_ptp(mut self, offsets: [[i8; 2]; 4]) -> Self {
        self.offsets = offsets;
        self
    }

    /// With depth reference `dref`.
    pub fn with_dref(mut self, dref: f32) -> Self {
        self.dref = dref;
        self
    }
}

/// The four gathered values, in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
///
/// Each is an f32 bit pattern for float, normalized and depth formats (and for every depth
/// compare), or the raw 32-bit integer for UINT and SINT formats (SINT sign-extended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GatherResult {
    /// The four values' bits.
    pub values: [u32; 4],
    /// False when the footprint touched a non-resident sparse tile (then all values are 0).
    pub resident: bool,
}

impl GatherResult {
    /// The values read as f32.
    pub fn as_f32(&self) -> [f32; 4] {
        self.values.map(f32::from_bits)
    }

    /// The values read as i32.
    pub fn as_i32(&self) -> [i32; 4] {
        self.values.map(|v| v as i32)
    }
}

/// Which value a real (non-border) texel yields, resolved once per prepared gather.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value {
    /// Read storage element `element` of the texel and convert it.
    Fetch { element: usize, decoder: Decoder },
    /// A constant (swizzle ZERO/ONE, or a component the format lacks).
    Const(u32),
    /// Compare the depth component with dref.
    Compare {
        op: CompareOp,
        decoder: Decoder,
        clamp_dref: bool,
    },
}

impl Precision {
    /// The most fractional bits [`Precision::Fixed`] takes: [`MAX_FRACTION_BITS`], the limit
    /// checked where a [`Gatherer`](crate::Gatherer) is built (the test `precision_limit_is_the_gatherers`
    /// checks both agree for every value).
    pub const MAX_FRACTION_BITS: u8 = MAX_FRACTION_BITS as u8;

    /// Checks the setting without building a gatherer: more than
    /// [`Precision::MAX_FRACTION_BITS`] fractional bits is [`InvalidInput::Precision`].
    pub fn validate(self) -> Result<(), Error> {
        match self {
            Precision::Fixed { fraction_bits, .. } if fraction_bits > Self::MAX_FRACTION_BITS => {
                Err(InvalidInput::Precision(fraction_bits as u32).into())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod precision_tests {
    use super::*;
    use crate::format::Format;
    use crate::gather::Gatherer;
    use crate::sampler::Sampler;
    use crate::texture::{Texture, TextureDesc};

    #[test]
    fn precision_limit_is_the_gatherers() {
        let desc = TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::R8Uint,
            width: 1,
            height: 1,
            layers: 1,
        };
        let tex = Texture::from_fields(desc, &[1]).unwrap();
        let op = GatherOp::new(TextureKind::Tex2D, 0);
        for bits in 0..=u8::MAX {
            let p = Precision::Fixed {
                fraction_bits: bits,
                rounding: Rounding::NearestEven,
            };
            let built = Gatherer::new(&tex, &Sampler::default(), &op, p).map(|_| ());
            assert_eq!(p.validate(), built, "{bits} bits");
            assert_eq!(p.validate().is_ok(), bits <= Precision::MAX_FRACTION_BITS);
        }
        assert_eq!(Precision::Exact.validate(), Ok(()));
    }
}
