//! Texel formats and their conversion to the values a gather returns.
//!
//! Conversions follow the Vulkan specification, "Fixed-Point Data Conversions",
//! "Floating-Point Formats" (16-bit, unsigned 11- and 10-bit floats), "Shared
//! Exponent Formats" (RGB9E5) and the sRGB EOTF of the Khronos Data Format
//! specification; every result is the correctly rounded f32 (FACTS.md: whether
//! NVIDIA rounds the same is open; lavapipe is only within 1 ulp for 8-bit
//! normalized formats).

use std::sync::OnceLock;

#[cfg(feature = "json")]
use serde::{Deserialize, Serialize};

/// A texel format. The serde names are the snake_case names used by `tld4 gather`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "json", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "json", serde(rename_all = "snake_case"))]
#[allow(missing_docs)]
pub enum Format {
    R8Unorm,
    R8Snorm,
    R8Uint,
    R8Sint,
    Rg8Unorm,
    Rg8Snorm,
    Rg8Uint,
    Rg8Sint,
    Rgba8Unorm,
    Rgba8Snorm,
    Rgba8Uint,
    Rgba8Sint,
    Rgba8Srgb,
    R16Unorm,
    R16Snorm,
    R16Float,
    R16Uint,
    R16Sint,
    Rg16Unorm,
    Rg16Snorm,
    Rg16Float,
    Rg16Uint,
    Rg16Sint,
    Rgba16Unorm,
    Rgba16Snorm,
    Rgba16Float,
    Rgba16Uint,
    Rgba16Sint,
    R32Float,
    R32Uint,
    R32Sint,
    Rg32Float,
    Rg32Uint,
    Rg32Sint,
    Rgba32Float,
    Rgba32Uint,
    Rgba32Sint,
    /// Vulkan A2B10G10R10_UNORM_PACK32: R in bits 0-9, G 10-19, B 20-29, A 30-31.
    Rgb10a2Unorm,
    /// Vulkan B10G11R11_UFLOAT_PACK32: R (11 bits) in 0-10, G (11) in 11-21, B (10) in 22-31.
    R11g11b10Float,
    /// Vulkan E5B9G9R9_UFLOAT_PACK32: R, G, B mantissas in 0-8, 9-17, 18-26, exponent in 27-31.
    #[cfg_attr(
        feature = "json",
        serde(alias = "rgb9e5_float", alias = "e5b9g9r9_ufloat")
    )]
    Rgb9e5,
    D16Unorm,
    D32Float,
    /// Depth in the low 24 bits, stencil in the high 8 (only depth is sampled).
    #[cfg_attr(feature = "json", serde(alias = "d24_unorm_s8"))]
    D24UnormS8Uint,
}

/// How a component's raw bits are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Unsigned normalized: c / (2^bits - 1).
    Unorm,
    /// Signed normalized: max(c / (2^(bits-1) - 1), -1).
    Snorm,
    /// Unsigned integer, returned raw.
    Uint,
    /// Signed integer, returned sign-extended to 32 bits.
    Sint,
    /// IEEE binary16 or binary32 (by width), or the unsigned 11/10-bit floats.
    Float,
    /// 8-bit sRGB colour (alpha is linear UNORM).
    Srgb,
    /// RGB9E5 mantissa with the shared exponent.
    SharedExp,
}

/// What kind of numbers a format delivers, which decides how results print and compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// f32 from a float format: compared exactly.
    Float,
    /// f32 from a normalized (UNORM, SNORM, sRGB) format: compared within 1 ulp.
    Normalized,
    /// Raw unsigned 32-bit integer.
    Uint,
    /// Raw 32-bit integer, sign-extended.
    Sint,
}

/// The element type a texture's ndarray storage uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StorageWidth {
    /// One `u8` per component.
    U8,
    /// One `u16` per component.
    U16,
    /// One `u32` per component (32-bit formats), or one packed `u32` per texel.
    U32,
}

use Format::*;

impl Format {
    /// Every format, for tests and listings.
    pub const ALL: [Format; 43] = [
        R8Unorm,
        R8Snorm,
        R8Uint,
        R8Sint,
        Rg8Unorm,
        Rg8Snorm,
        Rg8Uint,
        Rg8Sint,
        Rgba8Unorm,
        Rgba8Snorm,
        Rgba8Uint,
        Rgba8Sint,
        Rgba8Srgb,
        R16Unorm,
        R16Snorm,
        R16Float,
        R16Uint,
        R16Sint,
        Rg16Unorm,
        Rg16Snorm,
        Rg16Float,
        Rg16Uint,
        Rg16Sint,
        Rgba16Unorm,
        Rgba16Snorm,
        Rgba16Float,
        Rgba16Uint,
        Rgba16Sint,
        R32Float,
        R32Uint,
        R32Sint,
        Rg32Float,
        Rg32Uint,
        Rg32Sint,
        Rgba32Float,
        Rgba32Uint,
        Rgba32Sint,
        Rgb10a2Unorm,
        R11g11b10Float,
        Rgb9e5,
        D16Unorm,
        D32Float,
        D24UnormS8Uint,
    ];

    /// The snake_case name used by `tld4 gather`: the variant's name with `_` before each
    /// capital after the first, lowercased (serde's `rename_all = "snake_case"` rule, which
    /// the JSON names use; a test checks they agree), so no JSON crate is needed.
    pub fn name(self) -> String {
        let mut out = String::new();
        for (i, c) in format!("{self:?}").chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    /// For the plain (one field per component) formats: (components, bits, class).
    fn plain(self) -> Option<(u32, u32, Class)> {
        use Class::*;
        Some(match self {
            R8Unorm => (1, 8, Unorm),
            R8Snorm => (1, 8, Snorm),
            R8Uint => (1, 8, Uint),
            R8Sint => (1, 8, Sint),
            Rg8Unorm => (2, 8, Unorm),
            Rg8Snorm => (2, 8, Snorm),
            Rg8Uint => (2, 8, Uint),
            Rg8Sint => (2, 8, Sint),
            Rgba8Unorm => (4, 8, Unorm),
            Rgba8Snorm => (4, 8, Snorm),
            Rgba8Uint => (4, 8, Uint),
            Rgba8Sint => (4, 8, Sint),
            Rgba8Srgb => (4, 8, Srgb),
            R16Unorm => (1, 16, Unorm),
            R16Snorm => (1, 16, Snorm),
            R16Float => (1, 16, Float),
            R16Uint => (1, 16, Uint),
            R16Sint => (1, 16, Sint),
            Rg16Unorm => (2, 16, Unorm),
            Rg16Snorm => (2, 16, Snorm),
            Rg16Float => (2, 16, Float),
            Rg16Uint => (2, 16, Uint),
            Rg16Sint => (2, 16, Sint),
            Rgba16Unorm => (4, 16, Unorm),
            Rgba16Snorm => (4, 16, Snorm),
            Rgba16Float => (4, 16, Float),
            Rgba16Uint => (4, 16, Uint),
            Rgba16Sint => (4, 16, Sint),
            R32Float => (1, 32, Float),
            R32Uint => (1, 32, Uint),
            R32Sint => (1, 32, Sint),
            Rg32Float => (2, 32, Float),
            Rg32Uint => (2, 32, Uint),
            Rg32Sint => (2, 32, Sint),
            Rgba32Float => (4, 32, Float),
            Rgba32Uint => (4, 32, Uint),
            Rgba32Sint => (4, 32, Sint),
            D16Unorm => (1, 16, Unorm),
            D32Float => (1, 32, Float),
            Rgb10a2Unorm | R11g11b10Float | Rgb9e5 | D24UnormS8Uint => return None,
        })
    }

    /// Components a sample delivers before the (0, 0, 0, 1) fill: 1 for depth formats.
    pub fn components(self) -> usize {
        match self {
            Rgb10a2Unorm => 4,
            R11g11b10Float | Rgb9e5 => 3,
            D24UnormS8Uint => 1,
            f => f.plain().map_or(0, |p| p.0 as usize),
        }
    }

    /// Raw fields per texel in the texel data (`tld4 gather`'s `texels`, [`crate::Texture::from_fields`]).
    ///
    /// Equal to [`Format::components`] except RGB9E5 (r, g, b mantissas, then the exponent)
    /// and D24S8 (depth, then stencil).
    pub fn fields(self) -> usize {
        match self {
            Rgb9e5 => 4,
            D24UnormS8Uint => 2,
            f => f.components(),
        }
    }

    /// Bit width of raw field `i` (< [`Format::fields`]).
    pub fn field_bits(self, i: usize) -> u32 {
        match self {
            Rgb10a2Unorm => [10, 10, 10, 2][i.min(3)],
            R11g11b10Float => [11, 11, 10][i.min(2)],
            Rgb9e5 => [9, 9, 9, 5][i.min(3)],
            D24UnormS8Uint => [24, 8][i.min(1)],
            f => f.plain().map_or(32, |p| p.1),
        }
    }

    /// Bit position of raw field `i` inside the packed word, for the packed formats.
    pub(crate) fn field_shift(self, i: usize) -> Option<u32> {
        match self {
            Rgb10a2Unorm => Some([0, 10, 20, 30][i.min(3)]),
            R11g11b10Float => Some([0, 11, 22][i.min(2)]),
            Rgb9e5 => Some([0, 9, 18, 27][i.min(3)]),
            D24UnormS8Uint => Some([0, 24][i.min(1)]),
            _ => None,
        }
    }

    /// True for the formats stored as one packed 32-bit word per texel.
    pub fn is_packed(self) -> bool {
        self.plain().is_none()
    }

    /// How component `i` (< [`Format::components`]) is read.
    pub fn class(self, i: usize) -> Class {
        match self {
            Rgb10a2Unorm | D24UnormS8Uint => Class::Unorm,
            R11g11b10Float => Class::Float,
            Rgb9e5 => Class::SharedExp,
            Rgba8Srgb if i == 3 => Class::Unorm,
            f => f.plain().map_or(Class::Float, |p| p.2),
        }
    }

    /// True when raw field `i` holds a two's-complement signed value.
    pub fn field_is_signed(self, i: usize) -> bool {
        i < self.components() && matches!(self.class(i), Class::Snorm | Class::Sint)
    }

    /// Storage element type.
    pub fn storage(self) -> StorageWidth {
        match self.plain() {
            Some((_, 8, _)) => StorageWidth::U8,
            Some((_, 16, _)) => StorageWidth::U16,
            _ => StorageWidth::U32,
        }
    }

    /// Storage elements per texel: the component count, or 1 for packed formats.
    pub fn words(self) -> usize {
        self.plain().map_or(1, |p| p.0 as usize)
    }

    /// D16, D32 and D24S8.
    pub fn is_depth(self) -> bool {
        matches!(self, D16Unorm | D32Float | D24UnormS8Uint)
    }

    /// Depth formats stored as UNORM, for which dref is clamped to [0, 1] (Vulkan, "Depth Compare Operation").
    pub fn is_unorm_depth(self) -> bool {
        matches!(self, D16Unorm | D24UnormS8Uint)
    }

    /// UINT and SINT formats, whose gathers return raw integers.
    pub fn is_integer(self) -> bool {
        matches!(self.value_kind(), ValueKind::Uint | ValueKind::Sint)
    }

    /// What kind of numbers a gather on this format returns (without depth compare).
    pub fn value_kind(self) -> ValueKind {
        match self.class(0) {
            Class::Uint => ValueKind::Uint,
            Class::Sint => ValueKind::Sint,
            Class::Unorm | Class::Snorm | Class::Srgb => ValueKind::Normalized,
            Class::Float | Class::SharedExp => ValueKind::Float,
        }
    }

    /// The bits of "one" in this format's result domain: 1.0f32, or integer 1.
    pub fn one(self) -> u32 {
        if self.is_integer() {
            1
        } else {
            1.0f32.to_bits()
        }
    }

    /// Decoder of component `i` (< [`Format::components`]) from its storage element.
    pub(crate) fn decoder(self, i: usize) -> Decoder {
        let shift = self.field_shift(i).unwrap_or(0);
        let bits = self.field_bits(i);
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        let kind = match self.class(i) {
            Class::Unorm => DecodeKind::Unorm(1.0 / mask as f64),
            Class::Snorm => DecodeKind::Snorm {
                bits,
                inv: 1.0 / ((1u32 << (bits - 1)) - 1) as f64,
            },
            Class::Uint => DecodeKind::Uint,
            Class::Sint => DecodeKind::Sint { bits },
            Class::Float => match bits {
                16 => DecodeKind::F16,
                32 => DecodeKind::F32,
                11 => DecodeKind::SmallFloat { mantissa_bits: 6 },
                _ => DecodeKind::SmallFloat { mantissa_bits: 5 },
            },
            Class::Srgb => DecodeKind::Srgb(srgb_table()),
            Class::SharedExp => DecodeKind::SharedExp,
        };
        Decoder { shift, mask, kind }
    }
}

/// Reads one component from a storage element: extract the field, then convert.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Decoder {
    pub(crate) shift: u32,
    pub(crate) mask: u32,
    pub(crate) kind: DecodeKind,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum DecodeKind {
    /// 1 / (2^bits - 1) in f64.
    Unorm(f64),
    /// 1 / (2^(bits-1) - 1) in f64.
    Snorm {
        bits: u32,
        inv: f64,
    },
    Uint,
    Sint {
        bits: u32,
    },
    F16,
    F32,
    SmallFloat {
        mantissa_bits: u32,
    },
    Srgb(&'static [f32; 256]),
    SharedExp,
}

impl Decoder {
    /// Convert one storage element to the result bits (f32 bits, or the raw integer).
    #[inline(always)]
    pub(crate) fn decode(&self, word: u32) -> u32 {
        let v = (word >> self.shift) & self.mask;
        match self.kind {
            DecodeKind::Unorm(inv) => unorm(v, inv).to_bits(),
            DecodeKind::Snorm { bits, inv } => snorm(v, bits, inv).to_bits(),
            DecodeKind::Uint | DecodeKind::F32 => v,
            DecodeKind::Sint { bits } => sign_extend(v, bits) as u32,
            DecodeKind::F16 => half::f16::from_bits(v as u16).to_f32().to_bits(),
            DecodeKind::SmallFloat { mantissa_bits } => small_float(v, mantissa_bits).to_bits(),
            DecodeKind::Srgb(table) => table[(v & 0xff) as usize].to_bits(),
            DecodeKind::SharedExp => shared_exp(v, word >> 27).to_bits(),
        }
    }
}

/// Sign-extend the low `bits` bits of `v`.
#[inline(always)]
pub(crate) fn sign_extend(v: u32, bits: u32) -> i32 {
    let sh = 32 - bits;
    ((v << sh) as i32) >> sh
}

/// UNORM -> float, c / (2^b - 1) (Vulkan "Conversion from Normalized Fixed-Point to
/// Floating-Point"), correctly rounded to f32, given `inv` = 1 / (2^b - 1) rounded to f64.
///
/// c * inv in f64 is within 2^-52 (relative) of c / (2^b - 1), and rounding that to f32 is
/// correct: c / (2^b - 1) is a binary fraction repeating with period b <= 24, so it never lies
/// within 2^-52 of an f32 rounding boundary (that would take 27 equal bits in a row, hence a
/// constant expansion, hence c = 0 or c = 2^b - 1, both exact). Tests check every 8- and
/// 16-bit code and a sample of 24-bit ones against exact rational rounding. (An f32 division
/// would be correctly rounded too, but costs several times more.)
#[inline(always)]
pub fn unorm(c: u32, inv: f64) -> f32 {
    (c as f64 * inv) as f32
}

/// SNORM -> float, max(c / (2^(b-1) - 1), -1) (Vulkan, same section), correctly rounded as
/// for [`unorm`]; `inv` = 1 / (2^(b-1) - 1).
#[inline(always)]
pub fn snorm(v: u32, bits: u32, inv: f64) -> f32 {
    ((sign_extend(v, bits) as f64 * inv) as f32).max(-1.0)
}

/// Unsigned 11-bit (6-bit mantissa) or 10-bit (5-bit mantissa) float -> f32, exact
/// (Vulkan "Unsigned 11-Bit / 10-Bit Floating-Point Numbers"). NaN becomes f32's default quiet NaN.
#[inline]
pub fn small_float(v: u32, mantissa_bits: u32) -> f32 {
    let e = v >> mantissa_bits;
    let m = v & ((1 << mantissa_bits) - 1);
    match e {
        0 => m as f32 * pow2(-14 - mantissa_bits as i32),
        31 if m == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => ((1 << mantissa_bits) + m) as f32 * pow2(e as i32 - 15 - mantissa_bits as i32),
    }
}

/// RGB9E5 component -> f32: mantissa * 2^(exponent - 15 - 9), exact (Vulkan "Shared Exponent Formats").
#[inline]
pub fn shared_exp(mantissa: u32, exponent: u32) -> f32 {
    mantissa as f32 * pow2(exponent as i32 - 24)
}

/// 2^e for -126 <= e <= 127, exact.
#[inline(always)]
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The sRGB EOTF of the Khronos Data Format specification (Vulkan "sRGB to linear"),
/// c/12.92 for c <= 0.04045, else ((c + 0.055)/1.055)^2.4, evaluated in f64 and rounded
/// once to f32 (a test checks that no entry lies near enough an f32 rounding boundary
/// for the f64 error to matter).
pub fn srgb_to_linear(code: u8) -> f32 {
    let c = code as f64 / 255.0;
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    l as f32
}

/// The 256 sRGB decodings, computed once.
pub(crate) fn srgb_table() -> &'static [f32; 256] {
    static TABLE: OnceLock<[f32; 256]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|i| srgb_to_linear(i as u8)))
}
