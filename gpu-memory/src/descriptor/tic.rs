//! The SM100 texture header (TIC entry): clcd97tex.h's `TEXHEAD_V2_BL` (block-linear) and
//! `TEXHEAD_V2_PITCH` (pitch-linear), one table each, and the typed [`TextureHeader`]
//! (docs/sources.md, Descriptors).

use super::{field, DescField, DescriptorError, Reader, Writer};
use tld4_textures::Format;
use tld4_textures::{Source, Swizzle, TextureDesc, TextureKind};

/// What a texture header's errors call it.
pub(super) const D: &str = "texture header";

/// `NVCD97_TEXHEAD_V2_BL_*` (clcd97tex.h, "Texture Header V2 Blocklinear"; docs/sources.md,
/// Descriptors): every field, bit range over the 256-bit header, meaning.
pub const TEXHEAD_V2_BL: &[DescField] = desc_fields! {
    "RESERVED0A" 3:0 "reserved";
    "GOB_DEPTH_OFFSET" 8:4 "first GOB slice of a 3-D view";
    "ADDRESS_BITS31TO9" 31:9 "texel address bits 31:9 (512-byte aligned)";
    "ADDRESS_BITS56TO32" 56:32 "texel address bits 56:32";
    "RESERVED1A" 63:57 "reserved";
    "GOBS_PER_BLOCK_WIDTH" 66:64 "log2 GOBs per block across (ONE_GOB only)";
    "GOBS_PER_BLOCK_HEIGHT" 69:67 "log2 GOBs per block down (ONE_GOB .. THIRTYTWO_GOBS)";
    "GOBS_PER_BLOCK_DEPTH" 72:70 "log2 GOBs per block in depth (3-D)";
    "RESERVED3Y" 73:73 "reserved";
    "TILE_WIDTH_IN_GOBS" 76:74 "log2 tile width in GOBs";
    "GOB3D" 77:77 "3-D GOBs";
    "RESERVED2Z" 79:78 "reserved";
    "LOD_ANISO_QUALITY2" 80:80 "anisotropic LOD quality 2";
    "LOD_ANISO_QUALITY" 81:81 "anisotropic LOD quality (low/high)";
    "LOD_ISO_QUALITY" 82:82 "isotropic LOD quality (low/high)";
    "ANISO_COARSE_SPREAD_MODIFIER" 84:83 "anisotropic coarse spread modifier";
    "ANISO_SPREAD_SCALE" 89:85 "anisotropic spread scale";
    "USE_HEADER_OPT_CONTROL" 90:90 "use the header's optimization controls";
    "DEPTH_TEXTURE" 91:91 "depth texture (NVK leaves it 0)";
    "MAX_MIP_LEVEL" 95:92 "last mip level of the image";
    "X_SOURCE" 98:96 "swizzle: source of result x";
    "Y_SOURCE" 101:99 "swizzle: source of result y";
    "Z_SOURCE" 104:102 "swizzle: source of result z";
    "W_SOURCE" 107:105 "swizzle: source of result w";
    "DATA_TYPE" 111:108 "component data type (UNORM, SNORM, FLOAT, UINT, SINT, ...)";
    "COMPONENTS" 118:112 "component sizes (A8B8G8R8, R32, ...)";
    "PACK_COMPONENTS" 119:119 "pack components";
    "RESERVED3A" 123:120 "reserved";
    "HEADER_VERSION" 127:124 "header version: pitch, block-linear, colour-key, 1-D buffers";
    "WIDTH_MINUS_ONE" 144:128 "width in texels - 1";
    "NORMALIZED_COORDS" 145:145 "coordinates are normalized";
    "ANISO_SPREAD_MAX_LOG2" 148:146 "log2 maximum anisotropic spread";
    "S_R_G_B_CONVERSION" 149:149 "sRGB to linear conversion of colour components";
    "TEXTURE_TYPE" 153:150 "1D, 2D, 3D, CUBEMAP, arrays, buffer, ...";
    "SECTOR_PROMOTION" 155:154 "L1 sector promotion";
    "BORDER_SOURCE" 156:156 "border colour source: texture or sampler colour";
    "RESERVED4A" 159:157 "reserved";
    "HEIGHT_MINUS_ONE" 176:160 "height in texels - 1";
    "DEPTH_MINUS_ONE" 191:177 "depth, or array size, - 1";
    "RESERVED6Y" 192:192 "reserved";
    "TRILIN_OPT" 197:193 "trilinear optimization";
    "MIP_LOD_BIAS" 210:198 "mip LOD bias";
    "ANISO_BIAS" 214:211 "anisotropic bias";
    "ANISO_FINE_SPREAD_FUNC" 216:215 "anisotropic fine spread function";
    "ANISO_COARSE_SPREAD_FUNC" 218:217 "anisotropic coarse spread function";
    "MAX_ANISOTROPY" 221:219 "maximum anisotropy";
    "ANISO_FINE_SPREAD_MODIFIER" 223:222 "anisotropic fine spread modifier";
    "RES_VIEW_MIN_MIP_LEVEL" 227:224 "first mip level of the view";
    "RES_VIEW_MAX_MIP_LEVEL" 231:228 "last mip level of the view";
    "MULTI_SAMPLE_COUNT" 235:232 "multisample mode";
    "MIN_LOD_CLAMP" 247:236 "minimum LOD clamp";
    "RESERVED7Y" 255:248 "reserved";
};

/// `NVCD97_TEXHEAD_V2_PITCH_*` (clcd97tex.h, "Texture Header V2 Pitch"; docs/sources.md,
/// Descriptors). No depth: a pitch-linear header describes one 2-D image.
pub const TEXHEAD_V2_PITCH: &[DescField] = desc_fields! {
    "RESERVED0A" 3:0 "reserved";
    "RESERVED0X" 4:4 "reserved";
    "ADDRESS_BITS31TO5" 31:5 "texel address bits 31:5 (32-byte aligned)";
    "ADDRESS_BITS56TO32" 56:32 "texel address bits 56:32";
    "RESERVED1A" 63:57 "reserved";
    "PITCH_BITS21TO5" 80:64 "row pitch in bytes, bits 21:5";
    "LOD_ANISO_QUALITY2" 81:81 "anisotropic LOD quality 2";
    "LOD_ANISO_QUALITY" 82:82 "anisotropic LOD quality (low/high)";
    "LOD_ISO_QUALITY" 83:83 "isotropic LOD quality (low/high)";
    "ANISO_COARSE_SPREAD_MODIFIER" 85:84 "anisotropic coarse spread modifier";
    "ANISO_SPREAD_SCALE" 90:86 "anisotropic spread scale";
    "DEPTH_TEXTURE" 91:91 "depth texture (NVK leaves it 0)";
    "MAX_MIP_LEVEL" 95:92 "last mip level of the image";
    "X_SOURCE" 98:96 "swizzle: source of result x";
    "Y_SOURCE" 101:99 "swizzle: source of result y";
    "Z_SOURCE" 104:102 "swizzle: source of result z";
    "W_SOURCE" 107:105 "swizzle: source of result w";
    "DATA_TYPE" 111:108 "component data type (UNORM, SNORM, FLOAT, UINT, SINT, ...)";
    "COMPONENTS" 118:112 "component sizes (A8B8G8R8, R32, ...)";
    "PACK_COMPONENTS" 119:119 "pack components";
    "RESERVED3A" 123:120 "reserved";
    "HEADER_VERSION" 127:124 "header version: pitch, block-linear, colour-key, 1-D buffers";
    "WIDTH_MINUS_ONE" 144:128 "width in texels - 1";
    "NORMALIZED_COORDS" 145:145 "coordinates are normalized";
    "ANISO_SPREAD_MAX_LOG2" 148:146 "log2 maximum anisotropic spread";
    "S_R_G_B_CONVERSION" 149:149 "sRGB to linear conversion of colour components";
    "TEXTURE_TYPE" 153:150 "1D, 2D, 3D, CUBEMAP, arrays, buffer, ...";
    "SECTOR_PROMOTION" 155:154 "L1 sector promotion";
    "BORDER_SOURCE" 156:156 "border colour source: texture or sampler colour";
    "RESERVED4A" 159:157 "reserved";
    "HEIGHT_MINUS_ONE" 176:160 "height in texels - 1";
    "RESERVED5Y" 191:177 "reserved";
    "RESERVED6Y" 192:192 "reserved";
    "TRILIN_OPT" 197:193 "trilinear optimization";
    "MIP_LOD_BIAS" 210:198 "mip LOD bias";
    "ANISO_BIAS" 214:211 "anisotropic bias";
    "ANISO_FINE_SPREAD_FUNC" 216:215 "anisotropic fine spread function";
    "ANISO_COARSE_SPREAD_FUNC" 218:217 "anisotropic coarse spread function";
    "MAX_ANISOTROPY" 221:219 "maximum anisotropy";
    "ANISO_FINE_SPREAD_MODIFIER" 223:222 "anisotropic fine spread modifier";
    "RES_VIEW_MIN_MIP_LEVEL" 227:224 "first mip level of the view";
    "RES_VIEW_MAX_MIP_LEVEL" 231:228 "last mip level of the view";
    "MULTI_SAMPLE_COUNT" 235:232 "multisample mode";
    "MIN_LOD_CLAMP" 247:236 "minimum LOD clamp";
    "RESERVED7Y" 255:248 "reserved";
};

/// `HEADER_VERSION` values (clcd97tex.h `HEADER_VERSION_SELECT_*`).
pub mod header_version {
    /// `SELECT_PITCH_COLOR_KEY_V2`.
    pub const PITCH_COLOR_KEY: u64 = 1;
    /// `SELECT_PITCH_V2`.
    pub const PITCH: u64 = 2;
    /// `SELECT_BLOCKLINEAR_V2`.
    pub const BLOCKLINEAR: u64 = 3;
    /// `SELECT_BLOCKLINEAR_COLOR_KEY_V2`.
    pub const BLOCKLINEAR_COLOR_KEY: u64 = 4;
    /// `SELECT_ONE_D_RAW_TYPED`.
    pub const ONE_D_RAW_TYPED: u64 = 5;
    /// `SELECT_ONE_D_STRUCT_BUF`.
    pub const ONE_D_STRUCT_BUF: u64 = 6;
}

/// `TEXTURE_TYPE` values (clcd97tex.h `TEXTURE_TYPE_*`) and what the texture unit makes of
/// them: `Some(kind)` for the four kinds TLD4 gathers from, `None` for the others (not
/// modeled). TWO_D_NO_MIPMAP is a 2-D texture; only level 0 is ever read here.
pub const TEXTURE_TYPES: &[(u64, &str, Option<TextureKind>)] = &[
    (0x0, "ONE_D", None),
    (0x1, "TWO_D", Some(TextureKind::Tex2D)),
    (0x2, "THREE_D", None),
    (0x3, "CUBEMAP", Some(TextureKind::Cube)),
    (0x4, "ONE_D_ARRAY", None),
    (0x5, "TWO_D_ARRAY", Some(TextureKind::Tex2DArray)),
    (0x6, "ONE_D_BUFFER", None),
    (0x7, "TWO_D_NO_MIPMAP", Some(TextureKind::Tex2D)),
    (0x8, "CUBEMAP_ARRAY", Some(TextureKind::CubeArray)),
    (0xa, "HTEX_TWOD", None),
    (0xb, "HTEX_THREE_D", None),
    (0xe, "HTEX_TWOD_ARRAY", None),
];

/// The `TEXTURE_TYPE` a kind is encoded with (the first row of [`TEXTURE_TYPES`] naming it).
pub fn texture_type_of(kind: TextureKind) -> u64 {
    TEXTURE_TYPES
        .iter()
        .find(|t| t.2 == Some(kind))
        .map_or(1, |t| t.0)
}

/// The `TEXTURE_TYPE` a header of `kind` is encoded with: the one `w` already holds where it
/// names the same kind (TWO_D_NO_MIPMAP, which NVK writes for pitch textures, stays; NIL,
/// docs/sources.md, Descriptors), else [`texture_type_of`].
fn texture_type_for(kind: TextureKind, w: &Writer<'_>) -> u64 {
    let raw = Reader {
        table: w.table,
        words: &w.words,
    }
    .get("TEXTURE_TYPE");
    match TEXTURE_TYPES.iter().find(|t| t.0 == raw) {
        Some(&(v, _, Some(k))) if k == kind => v,
        _ => texture_type_of(kind),
    }
}

/// `DATA_TYPE` values (clcd97tex.h `DATA_TYPE_TEX_DATA_TYPE_*`).
pub mod data_type {
    /// UNORM.
    pub const UNORM: u64 = 0;
    /// SNORM.
    pub const SNORM: u64 = 1;
    /// FLOAT.
    pub const FLOAT: u64 = 2;
    /// UINT.
    pub const UINT: u64 = 6;
    /// SINT.
    pub const SINT: u64 = 7;
    /// Largest defined value (ZFS).
    pub const LAST: u64 = 0xa;
}

/// `COMPONENTS` values (clcd97tex.h `COMPONENTS_SIZES_*`) the formats use.
pub mod components {
    #![allow(missing_docs)]
    pub const R32_G32_B32_A32: u64 = 0x01;
    pub const R16_G16_B16_A16: u64 = 0x03;
    pub const R32_G32: u64 = 0x04;
    pub const A8B8G8R8: u64 = 0x08;
    pub const A2B10G10R10: u64 = 0x09;
    pub const R16_G16: u64 = 0x0c;
    pub const R32: u64 = 0x0f;
    pub const G8R8: u64 = 0x18;
    pub const R16: u64 = 0x1b;
    pub const R8: u64 = 0x1d;
    pub const E5B9G9R9_SHAREDEXP: u64 = 0x20;
    pub const BF10GF11RF11: u64 = 0x21;
    pub const S8Z24: u64 = 0x2b;
    pub const ZF32: u64 = 0x2f;
    pub const Z16: u64 = 0x3a;
}

/// The one table from the texture unit's [`Format`]s to (COMPONENTS, DATA_TYPE,
/// S_R_G_B_CONVERSION). Component names list the most significant field first
/// (clcd97tex.h: A8B8G8R8 holds R in the lowest byte), matching Vulkan's packed formats;
/// D24_UNORM_S8_UINT (depth in bits 23:0) is S8Z24. Depth formats use UNORM / FLOAT data
/// types; the ZS / SZ / ZFS data types are not modeled (docs/sources.md, Decisions).
pub const FORMATS: &[(Format, u64, u64, bool)] = {
    use components::*;
    use data_type::*;
    use Format::*;
    &[
        (R8Unorm, R8, UNORM, false),
        (R8Snorm, R8, SNORM, false),
        (R8Uint, R8, UINT, false),
        (R8Sint, R8, SINT, false),
        (Rg8Unorm, G8R8, UNORM, false),
        (Rg8Snorm, G8R8, SNORM, false),
        (Rg8Uint, G8R8, UINT, false),
        (Rg8Sint, G8R8, SINT, false),
        (Rgba8Unorm, A8B8G8R8, UNORM, false),
        (Rgba8Snorm, A8B8G8R8, SNORM, false),
        (Rgba8Uint, A8B8G8R8, UINT, false),
        (Rgba8Sint, A8B8G8R8, SINT, false),
        (Rgba8Srgb, A8B8G8R8, UNORM, true),
        (R16Unorm, R16, UNORM, false),
        (R16Snorm, R16, SNORM, false),
        (R16Float, R16, FLOAT, false),
        (R16Uint, R16, UINT, false),
        (R16Sint, R16, SINT, false),
        (Rg16Unorm, R16_G16, UNORM, false),
        (Rg16Snorm, R16_G16, SNORM, false),
        (Rg16Float, R16_G16, FLOAT, false),
        (Rg16Uint, R16_G16, UINT, false),
        (Rg16Sint, R16_G16, SINT, false),
        (Rgba16Unorm, R16_G16_B16_A16, UNORM, false),
        (Rgba16Snorm, R16_G16_B16_A16, SNORM, false),
        (Rgba16Float, R16_G16_B16_A16, FLOAT, false),
        (Rgba16Uint, R16_G16_B16_A16, UINT, false),
        (Rgba16Sint, R16_G16_B16_A16, SINT, false),
        (R32Float, R32, FLOAT, false),
        (R32Uint, R32, UINT, false),
        (R32Sint, R32, SINT, false),
        (Rg32Float, R32_G32, FLOAT, false),
        (Rg32Uint, R32_G32, UINT, false),
        (Rg32Sint, R32_G32, SINT, false),
        (Rgba32Float, R32_G32_B32_A32, FLOAT, false),
        (Rgba32Uint, R32_G32_B32_A32, UINT, false),
        (Rgba32Sint, R32_G32_B32_A32, SINT, false),
        (Rgb10a2Unorm, A2B10G10R10, UNORM, false),
        (R11g11b10Float, BF10GF11RF11, FLOAT, false),
        (Rgb9e5, E5B9G9R9_SHAREDEXP, FLOAT, false),
        (D16Unorm, Z16, UNORM, false),
        (D32Float, ZF32, FLOAT, false),
        (D24UnormS8Uint, S8Z24, UNORM, false),
    ]
};

/// `X/Y/Z/W_SOURCE` values (clcd97tex.h `*_SOURCE_IN_*`): IN_ZERO 0, IN_R 2, IN_G 3, IN_B 4,
/// IN_A 5, IN_ONE_INT 6, IN_ONE_FLOAT 7 (1 is undefined).
pub const SOURCES: &[(u64, &str)] = &[
    (0, "IN_ZERO"),
    (2, "IN_R"),
    (3, "IN_G"),
    (4, "IN_B"),
    (5, "IN_A"),
    (6, "IN_ONE_INT"),
    (7, "IN_ONE_FLOAT"),
];

/// The swizzle's fields, result x to w (the same names in every header layout).
pub(super) const SOURCE_FIELDS: [&str; 4] = ["X_SOURCE", "Y_SOURCE", "Z_SOURCE", "W_SOURCE"];

/// How the header lays texels out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeaderLayout {
    /// `TEXHEAD_V2_PITCH`: row `y` starts `y * pitch` bytes after the address.
    Pitch {
        /// Row pitch in bytes (a multiple of 32).
        pitch: u32,
    },
    /// `TEXHEAD_V2_BL`: GOBs in blocks of `1 << gobs_per_block_height_log2` GOBs down.
    BlockLinear {
        /// `GOBS_PER_BLOCK_HEIGHT` as written in the header (before the hardware's clamp).
        gobs_per_block_height_log2: u8,
    },
}

/// One decoded texture header, for the four kinds TLD4 gathers from.
///
/// The typed fields are what the texture unit uses; `words` keeps the whole entry, so every
/// other field is kept and readable by name ([`TextureHeader::field`]), and
/// [`TextureHeader::encode`] writes the typed fields over `words`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureHeader {
    /// Pitch or block-linear.
    pub layout: HeaderLayout,
    /// Byte address of texel (0, 0) of layer 0.
    pub address: u64,
    /// Texture kind (from TEXTURE_TYPE).
    pub kind: TextureKind,
    /// Texel format (from COMPONENTS, DATA_TYPE and S_R_G_B_CONVERSION, [`FORMATS`]).
    pub format: Format,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// DEPTH_MINUS_ONE + 1: array layers (2-D arrays) or whole cubes (cube kinds; 1 for a
    /// cube). Always 1 for pitch headers, which have no depth field. Counting cubes rather
    /// than faces for cube kinds is a guess after nouveau's driver, unchecked against NVK
    /// (docs/sources.md, Open questions).
    pub depth: u32,
    /// X/Y/Z/W_SOURCE.
    pub swizzle: Swizzle,
    /// NORMALIZED_COORDS: coordinates normalized (u = s * width) or, clear, in texels
    /// (u = s), unless the sampler forces unnormalized ones
    /// ([`SamplerState::sampler_for`](super::tsc::SamplerState::sampler_for);
    /// docs/sources.md, Unnormalized coordinates).
    pub normalized_coords: bool,
    /// DEPTH_TEXTURE (kept; NVK leaves it 0 even for depth formats, so depth compare does
    /// not depend on it: docs/sources.md, Descriptors).
    pub depth_texture: bool,
    /// BORDER_SOURCE: true for BORDER_COLOR (the sampler's border colour). Reading
    /// BORDER_COLOR as "the sampler's colour" and refusing BORDER_TEXTURE is a guess from the
    /// value names alone (docs/sources.md, Open questions).
    pub border_from_sampler: bool,
    /// The whole entry.
    pub words: [u32; 8],
}

/// Decode error helpers.
pub(super) fn invalid(field: &'static str, value: u64, why: &'static str) -> DescriptorError {
    DescriptorError::Invalid {
        descriptor: D,
        field,
        value,
        why,
    }
}

pub(super) fn not_modeled(field: &'static str, value: u64, why: &'static str) -> DescriptorError {
    DescriptorError::NotModeled {
        descriptor: D,
        field,
        value,
        why,
    }
}

/// The block height the hardware uses at level 0: the header's, clamped to less than twice
/// the texture's height in GOBs ("done by the hardware at each LOD": NIL `Tiling::clamp`;
/// docs/sources.md, Block-linear layout).
pub fn clamped_block_height_log2(header_log2: u8, height: u32) -> u8 {
    let gobs = height.div_ceil(8).max(1);
    let ceil_log2 = 32 - (gobs - 1).leading_zeros();
    header_log2.min(ceil_log2 as u8)
}

impl TextureHeader {
    /// The table of this header's version.
    pub fn table(&self) -> &'static [DescField] {
        match self.layout {
            HeaderLayout::Pitch { .. } => TEXHEAD_V2_PITCH,
            HeaderLayout::BlockLinear { .. } => TEXHEAD_V2_BL,
        }
    }

    /// The raw value of the field `name` (clcd97tex.h's name) of this header's table.
    pub fn field(&self, name: &str) -> Option<u64> {
        field(self.table(), name).map(|f| f.get(&self.words))
    }

    /// The texture's kind, format and size, as an owned texture describes them (depth as
    /// layers: whole cubes for cube kinds).
    pub fn desc(&self) -> TextureDesc {
        TextureDesc {
            kind: self.kind,
            format: self.format,
            width: self.width,
            height: self.height,
            layers: self.depth,
        }
    }

    /// Bytes per texel.
    pub fn texel_bytes(&self) -> u32 {
        self.format.texel_bytes()
    }

    /// Decode a header. Errors name the field and value: [`DescriptorError::Invalid`] for
    /// values clcd97tex.h does not define or sizes that do not add up,
    /// [`DescriptorError::NotModeled`] for legal headers the texture unit does not model
    /// (colour-key and 1-D buffer versions, other texture types, compressed or other
    /// component layouts, multisampling, block-linear 1- and
    /// 2-byte texels, mip views, 3-D GOBs and tiles).
    pub fn decode(words: &[u32; 8]) -> Result<Self, DescriptorError> {
        super::tic_decode::decode(words)
    }

    /// The header's eight words: `words` with every typed field written over it (so
    /// `decode(&h.encode()?) == h` for a header that decodes, and fields without a typed
    /// member keep their raw values). Errors name the field that does not fit (an address
    /// not aligned as the version requires, a size past its field).
    pub fn encode(&self) -> Result<[u32; 8], DescriptorError> {
        let table = self.table();
        let mut w = Writer {
            table,
            words: self.words,
            descriptor: D,
        };
        let (version, addr_lo, align) = match self.layout {
            HeaderLayout::Pitch { .. } => (header_version::PITCH, "ADDRESS_BITS31TO5", 5),
            HeaderLayout::BlockLinear { .. } => {
                (header_version::BLOCKLINEAR, "ADDRESS_BITS31TO9", 9)
            }
        };
        if self.address & ((1 << align) - 1) != 0 {
            return Err(invalid(
                addr_lo,
                self.address,
                "the address is not aligned as this header version requires",
            ));
        }
        // The address fields hold bits 56:0 (ADDRESS_BITS56TO32 is the highest: clcd97tex.h,
        // docs/sources.md, Descriptors).
        if self.address >> 57 != 0 {
            return Err(invalid(
                "ADDRESS_BITS56TO32",
                self.address,
                "texels must lie below 2^57 (0x200000000000000): the header's address fields hold 57 bits",
            ));
        }
        w.set("HEADER_VERSION", version)?;
        w.set(addr_lo, (self.address & 0xffff_ffff) >> align)?;
        w.set("ADDRESS_BITS56TO32", self.address >> 32)?;
        match self.layout {
            HeaderLayout::Pitch { pitch } => {
                if pitch % 32 != 0 {
                    return Err(invalid(
                        "PITCH_BITS21TO5",
                        pitch as u64,
                        "the pitch is not a multiple of 32",
                    ));
                }
                w.set("PITCH_BITS21TO5", pitch as u64 >> 5)?;
            }
            HeaderLayout::BlockLinear {
                gobs_per_block_height_log2,
            } => {
                w.set("GOBS_PER_BLOCK_HEIGHT", gobs_per_block_height_log2 as u64)?;
                w.set("DEPTH_MINUS_ONE", self.depth.saturating_sub(1) as u64)?;
            }
        }
        w.set("TEXTURE_TYPE", texture_type_for(self.kind, &w))?;
        let &(_, comps, dt, srgb) = FORMATS.iter().find(|f| f.0 == self.format).ok_or(invalid(
            "COMPONENTS",
            0,
            "format missing from the table",
        ))?;
        w.set("COMPONENTS", comps)?;
        w.set("DATA_TYPE", dt)?;
        w.set("S_R_G_B_CONVERSION", srgb as u64)?;
        let one = if self.format.is_integer() { 6 } else { 7 };
        for (k, name) in SOURCE_FIELDS.into_iter().enumerate() {
            let v = match self.swizzle.0[k] {
                Source::Zero => 0,
                Source::R => 2,
                Source::G => 3,
                Source::B => 4,
                Source::A => 5,
                Source::One => one,
            };
            w.set(name, v)?;
        }
        w.set("WIDTH_MINUS_ONE", self.width.saturating_sub(1) as u64)?;
        w.set("HEIGHT_MINUS_ONE", self.height.saturating_sub(1) as u64)?;
        w.set("NORMALIZED_COORDS", self.normalized_coords as u64)?;
        w.set("DEPTH_TEXTURE", self.depth_texture as u64)?;
        w.set("BORDER_SOURCE", self.border_from_sampler as u64)?;
        Ok(w.words)
    }
}
