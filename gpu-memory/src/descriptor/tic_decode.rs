//! Decoding an SM100 texture header ([`TextureHeader::decode`]). The fields the decoder reads
//! are found in each layout's table ([`TEXHEAD_V2_BL`], [`TEXHEAD_V2_PITCH`]) once, at
//! compile time ([`HeaderFields`], [`row`]): a decode reads each field at its bits with no
//! lookup by name, the tables stay the one place the bits are written, and a name missing
//! from a table fails the build.

use tld4_textures::{Format, Source, Swizzle, TextureKind};

use super::tic::{
    data_type, header_version, invalid, not_modeled, HeaderLayout, TextureHeader, FORMATS,
    SOURCE_FIELDS, TEXHEAD_V2_BL, TEXHEAD_V2_PITCH, TEXTURE_TYPES,
};
use super::{row, DescField, DescriptorError};

/// The fields the decoder reads, as one layout's table places them.
struct HeaderFields {
    texture_type: DescField,
    components: DescField,
    data_type: DescField,
    srgb: DescField,
    /// X_SOURCE .. W_SOURCE.
    sources: [DescField; 4],
    width: DescField,
    height: DescField,
    multi_sample: DescField,
    min_mip: DescField,
    max_mip: DescField,
    border_source: DescField,
    normalized_coords: DescField,
    depth_texture: DescField,
    address_high: DescField,
    layout: LayoutFields,
}

/// The fields of one layout alone.
// (constants only, never moved at run time: the variants' sizes do not matter)
#[allow(clippy::large_enum_variant)]
enum LayoutFields {
    /// `TEXHEAD_V2_PITCH`.
    Pitch {
        /// ADDRESS_BITS31TO5.
        address_low: DescField,
        /// PITCH_BITS21TO5.
        pitch: DescField,
    },
    /// `TEXHEAD_V2_BL`.
    BlockLinear {
        /// ADDRESS_BITS31TO9.
        address_low: DescField,
        /// DEPTH_MINUS_ONE.
        depth: DescField,
        /// GOBS_PER_BLOCK_HEIGHT.
        gobs_per_block_height: DescField,
        /// The fields that must be 0 for a 2-D block one GOB wide and deep, in the order
        /// their errors are raised.
        one_gob: [DescField; 5],
    },
}

impl HeaderFields {
    /// The fields in `table`, the pitch-linear one where `pitch` (evaluated in constants
    /// only: a name missing from the table fails the build).
    const fn of(table: &[DescField], pitch: bool) -> Self {
        let layout = if pitch {
            LayoutFields::Pitch {
                address_low: row(table, "ADDRESS_BITS31TO5"),
                pitch: row(table, "PITCH_BITS21TO5"),
            }
        } else {
            LayoutFields::BlockLinear {
                address_low: row(table, "ADDRESS_BITS31TO9"),
                depth: row(table, "DEPTH_MINUS_ONE"),
                gobs_per_block_height: row(table, "GOBS_PER_BLOCK_HEIGHT"),
                one_gob: [
                    row(table, "GOBS_PER_BLOCK_WIDTH"),
                    row(table, "GOBS_PER_BLOCK_DEPTH"),
                    row(table, "TILE_WIDTH_IN_GOBS"),
                    row(table, "GOB3D"),
                    row(table, "GOB_DEPTH_OFFSET"),
                ],
            }
        };
        HeaderFields {
            texture_type: row(table, "TEXTURE_TYPE"),
            components: row(table, "COMPONENTS"),
            data_type: row(table, "DATA_TYPE"),
            srgb: row(table, "S_R_G_B_CONVERSION"),
            sources: [
                row(table, SOURCE_FIELDS[0]),
                row(table, SOURCE_FIELDS[1]),
                row(table, SOURCE_FIELDS[2]),
                row(table, SOURCE_FIELDS[3]),
            ],
            width: row(table, "WIDTH_MINUS_ONE"),
            height: row(table, "HEIGHT_MINUS_ONE"),
            multi_sample: row(table, "MULTI_SAMPLE_COUNT"),
            min_mip: row(table, "RES_VIEW_MIN_MIP_LEVEL"),
            max_mip: row(table, "MAX_MIP_LEVEL"),
            border_source: row(table, "BORDER_SOURCE"),
            normalized_coords: row(table, "NORMALIZED_COORDS"),
            depth_texture: row(table, "DEPTH_TEXTURE"),
            address_high: row(table, "ADDRESS_BITS56TO32"),
            layout,
        }
    }

    fn is_pitch(&self) -> bool {
        matches!(self.layout, LayoutFields::Pitch { .. })
    }
}

/// HEADER_VERSION: at the same bits in every layout (read through the block-linear table).
const HEADER_VERSION: DescField = row(TEXHEAD_V2_BL, "HEADER_VERSION");

/// [`TextureHeader::decode`]: the layout HEADER_VERSION selects, decoded with its fields.
pub(super) fn decode(words: &[u32; 8]) -> Result<TextureHeader, DescriptorError> {
    let version = HEADER_VERSION.get(words);
    match version {
        header_version::PITCH => decode_as::<true>(words),
        header_version::BLOCKLINEAR => decode_as::<false>(words),
        header_version::PITCH_COLOR_KEY | header_version::BLOCKLINEAR_COLOR_KEY => Err(
            not_modeled(HEADER_VERSION.name, version, "colour-key headers"),
        ),
        header_version::ONE_D_RAW_TYPED | header_version::ONE_D_STRUCT_BUF => Err(not_modeled(
            HEADER_VERSION.name,
            version,
            "1-D buffer headers",
        )),
        _ => Err(invalid(
            HEADER_VERSION.name,
            version,
            "no such header version",
        )),
    }
}

/// A header of the pitch-linear layout (`PITCH`) or the block-linear one, compiled for each
/// (its fields' bits constants: each field read in a few instructions).
fn decode_as<const PITCH: bool>(words: &[u32; 8]) -> Result<TextureHeader, DescriptorError> {
    let f = const {
        &if PITCH {
            HeaderFields::of(TEXHEAD_V2_PITCH, true)
        } else {
            HeaderFields::of(TEXHEAD_V2_BL, false)
        }
    };
    let kind = decode_kind(f, words)?;
    let format = decode_format(f, words)?;
    let swizzle = decode_swizzle(f, words, format)?;
    let (width, height, depth) = decode_size(f, words, kind)?;
    check_modeled(f, words, kind)?;
    let border_from_sampler = f.border_source.get(words) == 1;
    if !border_from_sampler {
        return Err(not_modeled(
            f.border_source.name,
            0,
            "BORDER_TEXTURE: only the sampler's border colour is modeled",
        ));
    }
    let layout = decode_layout(f, words, width, format)?;
    let address = f.address_high.get(words) << 32
        | match f.layout {
            LayoutFields::Pitch { address_low, .. } => address_low.get(words) << 5,
            LayoutFields::BlockLinear { address_low, .. } => address_low.get(words) << 9,
        };
    Ok(TextureHeader {
        layout,
        address,
        kind,
        format,
        width,
        height,
        depth,
        swizzle,
        normalized_coords: f.normalized_coords.get(words) != 0,
        depth_texture: f.depth_texture.get(words) != 0,
        border_from_sampler,
        words: *words,
    })
}

/// TEXTURE_TYPE: the modeled kinds (2D, 2D array, cube, cube array).
#[inline(always)]
fn decode_kind(f: &HeaderFields, words: &[u32; 8]) -> Result<TextureKind, DescriptorError> {
    let name = f.texture_type.name;
    let tt = f.texture_type.get(words);
    match TEXTURE_TYPES.iter().find(|t| t.0 == tt) {
        None => Err(invalid(name, tt, "no such texture type")),
        Some((_, _, None)) => Err(not_modeled(
            name,
            tt,
            "only 2D, 2D arrays, cubes and cube arrays are modeled",
        )),
        Some((_, _, Some(k))) => Ok(*k),
    }
}

/// COMPONENTS, DATA_TYPE and S_R_G_B_CONVERSION: the format ([`FORMATS`]); the error names
/// the field that makes the combination unmodeled.
#[inline(always)]
fn decode_format(f: &HeaderFields, words: &[u32; 8]) -> Result<Format, DescriptorError> {
    let comps = f.components.get(words);
    let dt = f.data_type.get(words);
    let srgb = f.srgb.get(words) != 0;
    if dt > data_type::LAST {
        return Err(invalid(f.data_type.name, dt, "no such data type"));
    }
    FORMATS
        .iter()
        .find(|x| x.1 == comps && x.2 == dt && x.3 == srgb)
        .map(|x| x.0)
        .ok_or_else(|| {
            if FORMATS.iter().any(|x| x.1 == comps && x.2 == dt) {
                not_modeled(
                    f.srgb.name,
                    srgb as u64,
                    "sRGB is modeled for A8B8G8R8 UNORM only",
                )
            } else if FORMATS.iter().any(|x| x.1 == comps) {
                not_modeled(
                    f.data_type.name,
                    dt,
                    "this data type with these components is not modeled",
                )
            } else {
                not_modeled(
                    f.components.name,
                    comps,
                    "compressed or other component layouts are not modeled",
                )
            }
        })
}

/// X_SOURCE .. W_SOURCE: the component swizzle (the ONE of the format's class only).
#[inline(always)]
fn decode_swizzle(
    f: &HeaderFields,
    words: &[u32; 8],
    format: Format,
) -> Result<Swizzle, DescriptorError> {
    let mut swz = [Source::R; 4];
    for (s, field) in swz.iter_mut().zip(&f.sources) {
        let v = field.get(words);
        *s = match v {
            0 => Source::Zero,
            2 => Source::R,
            3 => Source::G,
            4 => Source::B,
            5 => Source::A,
            6 if format.is_integer() => Source::One,
            7 if !format.is_integer() => Source::One,
            6 | 7 => {
                return Err(not_modeled(
                    field.name,
                    v,
                    "an integer one on a float format, or a float one on an integer format",
                ))
            }
            _ => return Err(invalid(field.name, v, "no such source")),
        };
    }
    Ok(Swizzle(swz))
}

/// WIDTH, HEIGHT and DEPTH (minus one): checked against the kind and the layout.
#[inline(always)]
fn decode_size(
    f: &HeaderFields,
    words: &[u32; 8],
    kind: TextureKind,
) -> Result<(u32, u32, u32), DescriptorError> {
    let width = f.width.get(words) as u32 + 1;
    let height = f.height.get(words) as u32 + 1;
    let depth = match f.layout {
        LayoutFields::Pitch { .. } => 1,
        LayoutFields::BlockLinear { depth, .. } => depth.get(words) as u32 + 1,
    };
    if f.is_pitch() && kind != TextureKind::Tex2D {
        return Err(not_modeled(
            f.texture_type.name,
            f.texture_type.get(words),
            "a pitch-linear header has no depth: only 2D is modeled",
        ));
    }
    if let LayoutFields::BlockLinear { depth: field, .. } = f.layout {
        if !kind.is_array() && depth != 1 {
            return Err(invalid(
                field.name,
                depth as u64 - 1,
                "2D and cube headers have depth 1 (one cube)",
            ));
        }
    }
    if kind.is_cube() && width != height {
        return Err(invalid(
            f.height.name,
            height as u64 - 1,
            "cube faces must be square",
        ));
    }
    // The model's size limit, tld4_textures::MAX_SIZE (docs/scenarios.md, Sizes), named on
    // the axis that passes it.
    if width > tld4_textures::MAX_SIZE {
        return Err(not_modeled(
            f.width.name,
            width as u64 - 1,
            "widths above 65536 texels (the model's limit, docs/scenarios.md, Sizes) are not modeled",
        ));
    }
    if height > tld4_textures::MAX_SIZE {
        return Err(not_modeled(
            f.height.name,
            height as u64 - 1,
            "heights above 65536 texels (the model's limit, docs/scenarios.md, Sizes) are not modeled",
        ));
    }
    Ok((width, height, depth))
}

/// Legal settings the texture unit does not model: multisampling, mip views, layers of a
/// mipmapped image.
#[inline(always)]
fn check_modeled(
    f: &HeaderFields,
    words: &[u32; 8],
    kind: TextureKind,
) -> Result<(), DescriptorError> {
    let ms = f.multi_sample.get(words);
    if ms != 0 {
        return Err(not_modeled(
            f.multi_sample.name,
            ms,
            "multisampled textures",
        ));
    }
    let min_mip = f.min_mip.get(words);
    if min_mip != 0 {
        return Err(not_modeled(
            f.min_mip.name,
            min_mip,
            "views that start above level 0",
        ));
    }
    let max_mip = f.max_mip.get(words);
    if max_mip != 0 && (kind.is_array() || kind.is_cube()) {
        return Err(not_modeled(
            f.max_mip.name,
            max_mip,
            "layers of a mipmapped image (the layer stride includes the mip tail)",
        ));
    }
    Ok(())
}

/// The pitch (at least a row of texels) or the block shape (2-D blocks one GOB wide and
/// deep, 4-byte texels or wider).
#[inline(always)]
fn decode_layout(
    f: &HeaderFields,
    words: &[u32; 8],
    width: u32,
    format: Format,
) -> Result<HeaderLayout, DescriptorError> {
    match &f.layout {
        LayoutFields::Pitch { pitch, .. } => {
            let bytes = (pitch.get(words) << 5) as u32;
            let min_pitch = width as u64 * format.texel_bytes() as u64;
            if (bytes as u64) < min_pitch {
                return Err(invalid(
                    pitch.name,
                    bytes as u64 >> 5,
                    "the pitch is less than a row of texels",
                ));
            }
            Ok(HeaderLayout::Pitch { pitch: bytes })
        }
        LayoutFields::BlockLinear {
            gobs_per_block_height,
            one_gob,
            ..
        } => {
            for field in one_gob {
                let v = field.get(words);
                if v != 0 {
                    return Err(not_modeled(
                        field.name,
                        v,
                        "only 2-D blocks one GOB wide and deep are modeled",
                    ));
                }
            }
            let h = gobs_per_block_height.get(words);
            if h > 5 {
                return Err(invalid(
                    gobs_per_block_height.name,
                    h,
                    "no such block height",
                ));
            }
            if format.texel_bytes() < 4 {
                return Err(not_modeled(
                    f.components.name,
                    f.components.get(words),
                    "block-linear 1- and 2-byte texels have Blackwell GOB layouts of their own",
                ));
            }
            Ok(HeaderLayout::BlockLinear {
                gobs_per_block_height_log2: h as u8,
            })
        }
    }
}
