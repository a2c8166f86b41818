//! Samplers: address modes, border colour, depth compare, seamless cube edges.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// Address (wrap) mode of one axis, in Vulkan's numbering (VkSamplerAddressMode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[repr(u8)]
pub enum AddressMode {
    /// Wrap: i mod size.
    #[cfg_attr(feature = "serde", serde(alias = "wrap"))]
    Repeat = 0,
    /// Mirror: (size - 1) - mirror((i mod 2size) - size).
    #[cfg_attr(feature = "serde", serde(alias = "mirror"))]
    MirroredRepeat = 1,
    /// clamp(i, 0, size - 1).
    ClampToEdge = 2,
    /// Texels outside the texture read the border colour.
    ClampToBorder = 3,
    /// Mirror once, then clamp to edge: clamp(mirror(i), 0, size - 1).
    #[cfg_attr(feature = "serde", serde(alias = "mirror_once"))]
    MirrorClampToEdge = 4,
}

impl AddressMode {
    /// Every address mode, in Vulkan's numbering (VkSamplerAddressMode).
    pub const ALL: [AddressMode; 5] = [
        AddressMode::Repeat,
        AddressMode::MirroredRepeat,
        AddressMode::ClampToEdge,
        AddressMode::ClampToBorder,
        AddressMode::MirrorClampToEdge,
    ];

    /// From Vulkan's numbering.
    pub fn from_vulkan(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
}

/// Depth compare function, in Vulkan's numbering (VkCompareOp), which NVIDIA's sampler uses
/// (docs/sources.md, NAK conventions). The comparison is `dref OP texel` (Vulkan: reference OP test).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[repr(u8)]
#[allow(missing_docs)]
pub enum CompareOp {
    Never = 0,
    Less = 1,
    Equal = 2,
    LessOrEqual = 3,
    Greater = 4,
    NotEqual = 5,
    GreaterOrEqual = 6,
    Always = 7,
}

impl CompareOp {
    /// Every compare function, in Vulkan's numbering (VkCompareOp).
    pub const ALL: [CompareOp; 8] = [
        CompareOp::Never,
        CompareOp::Less,
        CompareOp::Equal,
        CompareOp::LessOrEqual,
        CompareOp::Greater,
        CompareOp::NotEqual,
        CompareOp::GreaterOrEqual,
        CompareOp::Always,
    ];

    /// From Vulkan's numbering.
    pub fn from_vulkan(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }

    /// `reference OP test` with IEEE comparisons: ordered, except NOT_EQUAL, true on NaN
    /// (Vulkan "Depth Compare Operation"; lavapipe follows the same D3D10 rule).
    #[inline(always)]
    pub fn holds(self, reference: f32, test: f32) -> bool {
        use CompareOp::*;
        match self {
            Never => false,
            Less => reference < test,
            Equal => reference == test,
            LessOrEqual => reference <= test,
            Greater => reference > test,
            NotEqual => reference != test,
            GreaterOrEqual => reference >= test,
            Always => true,
        }
    }
}

/// A border colour as four raw 32-bit words (R, G, B, A), as NVIDIA's sampler holds it.
///
/// The format decides how the words are read: as f32 bits for float, normalized and depth
/// formats, as raw integers for UINT/SINT formats. They are not swizzled, and components the
/// format lacks read (0, 0, 1) as Vulkan's rule for such formats gives (docs/sources.md, Decisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct BorderColor {
    /// R, G, B, A words.
    pub words: [u32; 4],
}

impl BorderColor {
    /// (0.0, 0.0, 0.0, 0.0).
    pub const FLOAT_TRANSPARENT_BLACK: BorderColor = BorderColor::from_f32([0.0, 0.0, 0.0, 0.0]);
    /// (0.0, 0.0, 0.0, 1.0).
    pub const FLOAT_OPAQUE_BLACK: BorderColor = BorderColor::from_f32([0.0, 0.0, 0.0, 1.0]);
    /// (1.0, 1.0, 1.0, 1.0).
    pub const FLOAT_OPAQUE_WHITE: BorderColor = BorderColor::from_f32([1.0, 1.0, 1.0, 1.0]);
    /// (0, 0, 0, 0).
    pub const INT_TRANSPARENT_BLACK: BorderColor = BorderColor {
        words: [0, 0, 0, 0],
    };
    /// (0, 0, 0, 1).
    pub const INT_OPAQUE_BLACK: BorderColor = BorderColor {
        words: [0, 0, 0, 1],
    };
    /// (1, 1, 1, 1).
    pub const INT_OPAQUE_WHITE: BorderColor = BorderColor {
        words: [1, 1, 1, 1],
    };

    /// From four floats.
    pub const fn from_f32(c: [f32; 4]) -> Self {
        BorderColor {
            words: [
                c[0].to_bits(),
                c[1].to_bits(),
                c[2].to_bits(),
                c[3].to_bits(),
            ],
        }
    }

    /// From four signed integers (stored as their 32-bit two's complement).
    pub const fn from_i32(c: [i32; 4]) -> Self {
        BorderColor {
            words: [c[0] as u32, c[1] as u32, c[2] as u32, c[3] as u32],
        }
    }
}

/// A sampler: what the sampler pool entry says about addressing, border and compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sampler {
    /// Address mode of s (x).
    pub address_u: AddressMode,
    /// Address mode of t (y).
    pub address_v: AddressMode,
    /// Border colour words.
    pub border: BorderColor,
    /// Depth compare function, or None when compare is off.
    pub compare: Option<CompareOp>,
    /// Seamless cube edges (NVIDIA's "cube map interface filtering"; Vulkan's default). When
    /// false, cube faces are addressed one by one with the address modes
    /// (VK_EXT_non_seamless_cube_map).
    pub seamless_cube: bool,
    /// Normalized coordinates (0..1 across the texture: u = s * width), or unnormalized ones
    /// in texels (u = s, no division by the size; CUDA's `normalizedCoords = 0`, Vulkan's
    /// `unnormalizedCoordinates`). In GPU memory: the texture header's NORMALIZED_COORDS and
    /// the sampler's FLOAT_COORD_NORMALIZATION together
    /// (docs/sources.md, Unnormalized coordinates).
    pub normalized_coords: bool,
}

impl Default for Sampler {
    /// Clamp to edge on both axes, float transparent black, compare off, seamless,
    /// normalized coordinates.
    fn default() -> Self {
        Sampler {
            address_u: AddressMode::ClampToEdge,
            address_v: AddressMode::ClampToEdge,
            border: BorderColor::FLOAT_TRANSPARENT_BLACK,
            compare: None,
            seamless_cube: true,
            normalized_coords: true,
        }
    }
}

impl Sampler {
    /// The same address mode on both axes, other settings default.
    pub fn with_address(mode: AddressMode) -> Self {
        Sampler {
            address_u: mode,
            address_v: mode,
            ..Sampler::default()
        }
    }

    /// The scale of the coordinates to texels on an axis of `size` texels: `size` for
    /// normalized coordinates, 1 for unnormalized ones, whose u = s * 1.0 is exact
    /// (docs/sources.md, Unnormalized coordinates).
    #[inline]
    pub fn coordinate_scale(&self, size: u32) -> u32 {
        if self.normalized_coords {
            size
        } else {
            1
        }
    }
}
