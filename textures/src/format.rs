//! Texel formats and their conversion to the values a gather returns.
//!
//! Conversions follow the Vulkan specification, "Fixed-Point Data Conversions",
//! "Floating-Point Formats" (16-bit, unsigned 11- and 10-bit floats), "Shared
//! Exponent Formats" (RGB9E5) and the sRGB EOTF of the Khronos Data Format
//! specification; every result is the correctly rounded f32 (docs/sources.md: whether
//! NVIDIA rounds the same is open; lavapipe is only within 1 ulp for 8-bit
//! normalized formats).

use std::sync::OnceLock;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

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

impl StorageWidth {
    /// Bytes of one storage element.
    pub fn bytes(self) -> u32 {
        match self {
            StorageWidth::U8 => 1,
            StorageWidth::U16 => 2,
            StorageWidth::U32 => 4,
        }
    }
}

/// One raw field of a texel: its width, its position in the packed word (0 for plain
/// formats), and how it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Field {
    bits: u32,
    shift: u32,
    class: Class,
}

/// One row of the format table: everything the format functions answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FormatInfo {
    /// Components a sample delivers before the (0, 0, 0, 1) fill.
    components: usize,
    /// Raw fields per texel (the first `fields` entries of `field` are used).
    fields: usize,
    field: [Field; 4],
    /// One packed 32-bit word per texel (else one storage element per component).
    packed: bool,
    storage: StorageWidth,
    /// Storage elements per texel.
    words: usize,
    value_kind: ValueKind,
    depth: bool,
    unorm_depth: bool,
}

const NO_FIELD: Field = Field {
    bits: 0,
    shift: 0,
    class: Class::Uint,
};

/// A format with one whole storage element per component: `n` components of `bits` bits,
/// read as `class`.
const fn plain(n: usize, bits: u32, class: Class) -> FormatInfo {
    let f = Field {
        bits,
        shift: 0,
        class,
    };
    let mut field = [NO_FIELD; 4];
    let mut i = 0;
    while i < n {
        field[i] = f;
        i += 1;
    }
    FormatInfo {
        components: n,
        fields: n,
        field,
        packed: false,
        storage: match bits {
            8 => StorageWidth::U8,
            16 => StorageWidth::U16,
            _ => StorageWidth::U32,
        },
        words: n,
        value_kind: value_kind_of(class),
        depth: false,
        unorm_depth: false,
    }
}

/// A format packed into one 32-bit word: `components` components, then further raw fields
/// (the shared exponent, the stencil), each `(bits, shift, class)`.
const fn packed(components: usize, fields: &[(u32, u32, Class)]) -> FormatInfo {
    let mut field = [NO_FIELD; 4];
    let mut i = 0;
    while i < fields.len() {
        field[i] = Field {
            bits: fields[i].0,
            shift: fields[i].1,
            class: fields[i].2,
        };
        i += 1;
    }
    FormatInfo {
        components,
        fields: fields.len(),
        field,
        packed: true,
        storage: StorageWidth::U32,
        words: 1,
        value_kind: value_kind_of(field[0].class),
        depth: false,
        unorm_depth: false,
    }
}

/// `info` with its alpha (component 3) read as `class`: sRGB's linear alpha.
const fn alpha(mut info: FormatInfo, class: Class) -> FormatInfo {
    info.field[3].class = class;
    info
}

/// `info` as a depth format; `unorm` for the UNORM depths, whose dref is clamped to [0, 1]
/// (Vulkan, "Depth Compare Operation").
const fn depth(mut info: FormatInfo, unorm: bool) -> FormatInfo {
    info.depth = true;
    info.unorm_depth = unorm;
    info
}

/// What kind of numbers the class of a format's first component delivers.
const fn value_kind_of(class: Class) -> ValueKind {
    match class {
        Class::Uint => ValueKind::Uint,
        Class::Sint => ValueKind::Sint,
        Class::Unorm | Class::Snorm | Class::Srgb => ValueKind::Normalized,
        Class::Float | Class::SharedExp => ValueKind::Float,
    }
}

/// Declares the formats, one row each: the variant (with its doc and serde attributes) and
/// its [`FormatInfo`]. Generates [`Format`], [`Format::ALL`] and the table `TABLE` that the
/// format functions index.
macro_rules! formats {
    ( $( $(#[$attr:meta])* $variant:ident => $info:expr; )* ) => {
        /// A texel format. The serde names are the snake_case names used by `tld4 gather`.
        ///
        /// The formats and their layouts are the rows of one table in `format.rs`; every
        /// property below is read from it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
        #[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
        #[non_exhaustive]
        pub enum Format {
            $( $(#[$attr])* $variant, )*
        }

        /// The format table, in [`Format`]'s order.
        const TABLE: &[FormatInfo] = &[ $( $info, )* ];

        impl Format {
            /// Every format, for tests and listings.
            pub const ALL: [Format; TABLE.len()] = [ $( Format::$variant, )* ];
        }
    };
}

use Class::*;

formats! {
    /// 8-bit UNORM red.
    R8Unorm => plain(1, 8, Unorm);
    /// 8-bit SNORM red.
    R8Snorm => plain(1, 8, Snorm);
    /// 8-bit unsigned integer red.
    R8Uint => plain(1, 8, Uint);
    /// 8-bit signed integer red.
    R8Sint => plain(1, 8, Sint);
    /// 8-bit UNORM red, green.
    Rg8Unorm => plain(2, 8, Unorm);
    /// 8-bit SNORM red, green.
    Rg8Snorm => plain(2, 8, Snorm);
    /// 8-bit unsigned integer red, green.
    Rg8Uint => plain(2, 8, Uint);
    /// 8-bit signed integer red, green.
    Rg8Sint => plain(2, 8, Sint);
    /// 8-bit UNORM RGBA.
    Rgba8Unorm => plain(4, 8, Unorm);
    /// 8-bit SNORM RGBA.
    Rgba8Snorm => plain(4, 8, Snorm);
    /// 8-bit unsigned integer RGBA.
    Rgba8Uint => plain(4, 8, Uint);
    /// 8-bit signed integer RGBA.
    Rgba8Sint => plain(4, 8, Sint);
    /// 8-bit sRGB RGB with linear UNORM alpha.
    Rgba8Srgb => alpha(plain(4, 8, Srgb), Unorm);
    /// 16-bit UNORM red.
    R16Unorm => plain(1, 16, Unorm);
    /// 16-bit SNORM red.
    R16Snorm => plain(1, 16, Snorm);
    /// binary16 red.
    R16Float => plain(1, 16, Float);
    /// 16-bit unsigned integer red.
    R16Uint => plain(1, 16, Uint);
    /// 16-bit signed integer red.
    R16Sint => plain(1, 16, Sint);
    /// 16-bit UNORM red, green.
    Rg16Unorm => plain(2, 16, Unorm);
    /// 16-bit SNORM red, green.
    Rg16Snorm => plain(2, 16, Snorm);
    /// binary16 red, green.
    Rg16Float => plain(2, 16, Float);
    /// 16-bit unsigned integer red, green.
    Rg16Uint => plain(2, 16, Uint);
    /// 16-bit signed integer red, green.
    Rg16Sint => plain(2, 16, Sint);
    /// 16-bit UNORM RGBA.
    Rgba16Unorm => plain(4, 16, Unorm);
    /// 16-bit SNORM RGBA.
    Rgba16Snorm => plain(4, 16, Snorm);
    /// binary16 RGBA.
    Rgba16Float => plain(4, 16, Float);
    /// 16-bit unsigned integer RGBA.
    Rgba16Uint => plain(4, 16, Uint);
    /// 16-bit signed integer RGBA.
    Rgba16Sint => plain(4, 16, Sint);
    /// binary32 red.
    R32Float => plain(1, 32, Float);
    /// 32-bit unsigned integer red.
    R32Uint => plain(1, 32, Uint);
    /// 32-bit signed integer red.
    R32Sint => plain(1, 32, Sint);
    /// binary32 red, green.
    Rg32Float => plain(2, 32, Float);
    /// 32-bit unsigned integer red, green.
    Rg32Uint => plain(2, 32, Uint);
    /// 32-bit signed integer red, green.
    Rg32Sint => plain(2, 32, Sint);
    /// binary32 RGBA.
    Rgba32Float => plain(4, 32, Float);
    /// 32-bit unsigned integer RGBA.
    Rgba32Uint => plain(4, 32, Uint);
    /// 32-bit signed integer RGBA.
    Rgba32Sint => plain(4, 32, Sint);
    /// Vulkan A2B10G10R10_UNORM_PACK32: R in bits 0-9, G 10-19, B 20-29, A 30-31.
    Rgb10a2Unorm => packed(4, &[(10, 0, Unorm), (10, 10, Unorm), (10, 20, Unorm), (2, 30, Unorm)]);
    /// Vulkan B10G11R11_UFLOAT_PACK32: R (11 bits) in 0-10, G (11) in 11-21, B (10) in 22-31.
    R11g11b10Float => packed(3, &[(11, 0, Float), (11, 11, Float), (10, 22, Float)]);
    /// Vulkan E5B9G9R9_UFLOAT_PACK32: R, G, B mantissas in 0-8, 9-17, 18-26, exponent in 27-31.
    #[cfg_attr(feature = "serde", serde(alias = "rgb9e5_float", alias = "e5b9g9r9_ufloat"))]
    Rgb9e5 => packed(3, &[(9, 0, SharedExp), (9, 9, SharedExp), (9, 18, SharedExp), (5, 27, SharedExp)]);
    /// 16-bit UNORM depth.
    D16Unorm => depth(plain(1, 16, Unorm), true);
    /// binary32 depth.
    D32Float => depth(plain(1, 32, Float), false);
    /// Depth in the low 24 bits, stencil in the high 8 (only depth is sampled).
    #[cfg_attr(feature = "serde", serde(alias = "d24_unorm_s8"))]
    D24UnormS8Uint => depth(packed(1, &[(24, 0, Unorm), (8, 24, Unorm)]), true);
}

// The table's widths are what the conversions accept: every field 1..=32 bits inside its
// 32-bit word, SNORM fields at least 2 bits, and at least one field for each component.
const _: () = {
    let mut f = 0;
    while f < TABLE.len() {
        let info = &TABLE[f];
        assert!(info.components >= 1 && info.components <= info.fields && info.fields <= 4);
        let mut i = 0;
        while i < info.fields {
            let x = info.field[i];
            assert!(x.bits >= 1 && x.bits <= 32 && x.shift + x.bits <= 32);
            assert!(!matches!(x.class, Class::Snorm) || x.bits >= 2);
            i += 1;
        }
        f += 1;
    }
};

impl Format {
    /// The format's row of the table.
    #[inline(always)]
    fn info(self) -> &'static FormatInfo {
        &TABLE[self as usize]
    }

    /// Raw field `i`, or the last one for `i` at or past [`Format::fields`].
    #[inline(always)]
    fn field(self, i: usize) -> Field {
        let info = self.info();
        info.field[i.min(info.fields - 1)]
    }

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

    /// Components a sample delivers before the (0, 0, 0, 1) fill: 1 for depth formats.
    pub fn components(self) -> usize {
        self.info().components
    }

    /// Raw fields per texel in the texel data (`tld4 gather`'s `texels`, [`crate::Texture::from_fields`]).
    ///
    /// Equal to [`Format::components`] except RGB9E5 (r, g, b mantissas, then the exponent)
    /// and D24S8 (depth, then stencil).
    pub fn fields(self) -> usize {
        self.info().fields
    }

    /// Bit width of raw field `i` (< [`Format::fields`]; a larger `i` reads the last field).
    pub fn field_bits(self, i: usize) -> u32 {
        self.field(i).bits
    }

    /// Bit position of raw field `i` inside the packed word, for the packed formats (a larger
    /// `i` than [`Format::fields`] reads the last field).
    pub(crate) fn field_shift(self, i: usize) -> Option<u32> {
        self.is_packed().then(|| self.field(i).shift)
    }

    /// A texel's raw fields (unused entries 0) from its storage elements as read: the one
    /// packed word's bit fields for packed formats, else one field per element.
    pub fn raw_fields_of(self, elements: &[u32; 4]) -> [u32; 4] {
        let mut out = [0u32; 4];
        for (i, o) in out.iter_mut().enumerate().take(self.fields()) {
            *o = match self.field_shift(i) {
                Some(shift) => (elements[0] >> shift) & ((1u64 << self.field_bits(i)) - 1) as u32,
                None => elements[i],
            };
        }
        out
    }

    /// True for the formats stored as one packed 32-bit word per texel.
    pub fn is_packed(self) -> bool {
        self.info().packed
    }

    /// How component `i` (< [`Format::components`]) is read (a larger `i` than
    /// [`Format::fields`] reads the last field).
    pub fn class(self, i: usize) -> Class {
        self.field(i).class
    }

    /// True when raw field `i` holds a two's-complement signed value.
    pub fn field_is_signed(self, i: usize) -> bool {
        i < self.components() && matches!(self.class(i), Class::Snorm | Class::Sint)
    }

    /// Storage element type.
    pub fn storage(self) -> StorageWidth {
        self.info().storage
    }

    /// Storage elements per texel: the component count, or 1 for packed formats.
    pub fn words(self) -> usize {
        self.info().words
    }

    /// Bytes per texel: storage elements times their width (packed formats: 4).
    pub fn texel_bytes(self) -> u32 {
        self.storage().bytes() * self.words() as u32
    }

    /// D16, D32 and D24S8.
    pub fn is_depth(self) -> bool {
        self.info().depth
    }

    /// Depth formats stored as UNORM, for which dref is clamped to [0, 1] (Vulkan, "Depth Compare Operation").
    pub fn is_unorm_depth(self) -> bool {
        self.info().unorm_depth
    }

    /// UINT and SINT formats, whose gathers return raw integers.
    pub fn is_integer(self) -> bool {
        matches!(self.value_kind(), ValueKind::Uint | ValueKind::Sint)
    }

    /// What kind of numbers a gather on this format returns (without depth compare).
    pub fn value_kind(self) -> ValueKind {
        self.info().value_kind
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
        let field = self.field(i);
        let shift = if self.is_packed() { field.shift } else { 0 };
        let bits = field.bits;
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        let kind = match field.class {
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
                11 => DecodeKind::SmallFloat {
                    width: SmallFloatWidth::Bits11,
                },
                _ => DecodeKind::SmallFloat {
                    width: SmallFloatWidth::Bits10,
                },
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
    /// 1 / (2^(bits-1) - 1) in f64; `bits` is 2..=32 (the table is checked at compile time).
    Snorm {
        bits: u32,
        inv: f64,
    },
    Uint,
    /// `bits` is 1..=32 (the table is checked at compile time).
    Sint {
        bits: u32,
    },
    F16,
    F32,
    SmallFloat {
        width: SmallFloatWidth,
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
            DecodeKind::Snorm { bits, inv } => snorm_field(v, bits, inv).to_bits(),
            DecodeKind::Uint | DecodeKind::F32 => v,
            DecodeKind::Sint { bits } => sign_extend(v, bits) as u32,
            DecodeKind::F16 => half::f16::from_bits(v as u16).to_f32().to_bits(),
            DecodeKind::SmallFloat { width } => small_float_field(v, width).to_bits(),
            DecodeKind::Srgb(table) => table[(v & 0xff) as usize].to_bits(),
            DecodeKind::SharedExp => shared_exp_field(v, word >> 27).to_bits(),
        }
    }
}

/// Sign-extend the low `bits` bits of `v`. Precondition: 1 <= `bits` <= 32 (every caller
/// passes a width from the format table, which is checked at compile time; a debug build
/// asserts it).
#[inline(always)]
pub(crate) fn sign_extend(v: u32, bits: u32) -> i32 {
    debug_assert!((1..=32).contains(&bits), "sign_extend: {bits} bits");
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
/// would be correctly rounded too, but costs several times more.) No input wraps: any `c` and
/// `inv` give their f64 product rounded to f32.
#[inline(always)]
pub fn unorm(c: u32, inv: f64) -> f32 {
    (c as f64 * inv) as f32
}

/// SNORM -> float, max(c / (2^(b-1) - 1), -1) (Vulkan, same section), correctly rounded as
/// for [`unorm`]; `v` holds the `bits`-bit two's-complement code in its low bits (higher bits
/// are ignored), `inv` = 1 / (2^(bits-1) - 1).
///
/// # Panics
///
/// When `bits` is outside 2..=32: a 1-bit SNORM has no positive code, and no field is wider
/// than its 32-bit word.
#[inline]
pub fn snorm(v: u32, bits: u32, inv: f64) -> f32 {
    assert!(
        (2..=32).contains(&bits),
        "snorm: a SNORM field has 2..=32 bits, not {bits}"
    );
    snorm_field(v, bits, inv)
}

/// [`snorm`] for a width from the format table (2..=32, checked at compile time).
#[inline(always)]
fn snorm_field(v: u32, bits: u32, inv: f64) -> f32 {
    ((sign_extend(v, bits) as f64 * inv) as f32).max(-1.0)
}

/// The two unsigned small floats of Vulkan's packed formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SmallFloatWidth {
    /// 11 bits: 5-bit exponent, 6-bit mantissa (R and G of B10G11R11).
    Bits11,
    /// 10 bits: 5-bit exponent, 5-bit mantissa (B of B10G11R11).
    Bits10,
}

impl SmallFloatWidth {
    /// The mantissa's width in bits.
    pub const fn mantissa_bits(self) -> u32 {
        match self {
            SmallFloatWidth::Bits11 => 6,
            SmallFloatWidth::Bits10 => 5,
        }
    }
    /// The whole value's width in bits (a 5-bit exponent and the mantissa).
    pub const fn bits(self) -> u32 {
        5 + self.mantissa_bits()
    }
}

/// Unsigned 11-bit (6-bit mantissa) or 10-bit (5-bit mantissa) float -> f32, exact
/// (Vulkan "Unsigned 11-Bit / 10-Bit Floating-Point Numbers"). NaN becomes f32's default quiet NaN.
///
/// # Panics
///
/// When `v` has bits set at or above `width.bits()`: it is not an 11- or 10-bit value.
#[inline]
pub fn small_float(v: u32, width: SmallFloatWidth) -> f32 {
    assert!(
        v >> width.bits() == 0,
        "small_float: {v:#x} does not fit {} bits",
        width.bits()
    );
    small_float_field(v, width)
}

/// [`small_float`] for a value already masked to its width.
#[inline(always)]
fn small_float_field(v: u32, width: SmallFloatWidth) -> f32 {
    let mantissa_bits = width.mantissa_bits();
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
///
/// # Panics
///
/// When `mantissa` does not fit 9 bits or `exponent` does not fit 5 bits.
#[inline]
pub fn shared_exp(mantissa: u32, exponent: u32) -> f32 {
    assert!(
        mantissa < 1 << 9 && exponent < 1 << 5,
        "shared_exp: mantissa {mantissa:#x} must fit 9 bits and exponent {exponent:#x} 5 bits"
    );
    shared_exp_field(mantissa, exponent)
}

/// [`shared_exp`] for fields extracted from the packed word (9 and 5 bits).
#[inline(always)]
fn shared_exp_field(mantissa: u32, exponent: u32) -> f32 {
    mantissa as f32 * pow2(exponent as i32 - 24)
}

/// 2^e, exact. Precondition: -126 <= e <= 127, which every caller's field widths guarantee
/// (small floats: -20..=15; shared exponent: -24..=7); a debug build asserts it.
#[inline(always)]
fn pow2(e: i32) -> f32 {
    debug_assert!((-126..=127).contains(&e), "pow2: 2^{e} is not a normal f32");
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
