//! The precision the CTS's gather tests grant, per texture kind
//! (docs/sources.md, Conformance verdicts): VK-GL-CTS `vktShaderRenderTextureGatherTests.cpp` (`TextureGatherInstance::
//! verify`) and GLES 3.1 `es31fTextureGatherTests.cpp` set the same values.

use tld4_textures::TextureKind;

use crate::bounds::fixed_error;

/// What a gather's verification allows: the CTS's `LookupPrecision` / `IntLookupPrecision`
/// (coordinate bits, sub-texel bits, colour threshold) and `TexComparePrecision` (reference
/// and result bits), as the gather tests fill them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CtsPrecision {
    /// Accurate mantissa bits of each coordinate before any transformation (s, t for 2D
    /// kinds; x, y, z for cubes).
    pub coord_bits: [u32; 3],
    /// Fractional bits of the unnormalized texel coordinates u, v (sub-texel precision).
    pub uvw_bits: [u32; 2],
    /// Accurate bits of the array layer coordinate (the third coordinate's bits for 2D arrays).
    pub layer_bits: u32,
    /// Fractional bits the depth-compare layer range adds (the third `uvwBits` of 2D arrays).
    pub layer_uvw_bits: u32,
    /// Accurate bits of normalized colour results: the threshold is [`fixed_error`] of them.
    pub color_bits: u32,
    /// Accurate bits of the depth reference.
    pub reference_bits: u32,
    /// Accurate bits of a depth-compare result (0.0 or 1.0).
    pub result_bits: u32,
}

impl CtsPrecision {
    /// The gather tests' parameters for `kind`: 2D: 20 coordinate bits, 7 sub-texel bits;
    /// 2D array: 20 and 7 for the layer too; cube: 10 coordinate bits, 6 sub-texel bits.
    /// Colour results: 7 bits (the tests render into RGBA8 and take one bit less); depth
    /// compare: 16 reference bits, 7 result bits. Cube arrays are not in the CTS's gather
    /// tests: this port gives them the cube's direction bits and the 2D array's layer bits
    /// (a decision, docs/sources.md, Conformance verdicts).
    pub fn for_kind(kind: TextureKind) -> Self {
        let (coord_bits, uvw_bits) = match kind {
            TextureKind::Tex2D | TextureKind::Tex2DArray => ([20, 20, 20], [7, 7]),
            TextureKind::Cube | TextureKind::CubeArray => ([10, 10, 10], [6, 6]),
        };
        CtsPrecision {
            coord_bits,
            uvw_bits,
            layer_bits: 20,
            layer_uvw_bits: 7,
            color_bits: 7,
            reference_bits: 16,
            result_bits: 7,
        }
    }

    /// The largest difference a normalized colour result may have from a texel's value
    /// (`computeFixedPointThreshold` of the colour bits).
    pub fn color_threshold(&self) -> f32 {
        fixed_error(self.color_bits)
    }
}
