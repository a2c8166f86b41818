//! The texture header layout of TURING_A, AMPERE_A, AMPERE_B and ADA_A, which HOPPER_A also
//! publishes beside its V2 layout: `TEXHEAD_BL` (block-linear) and `TEXHEAD_PITCH`
//! (pitch-linear) of clc597tex.h, clc697tex.h, clc797tex.h, clc997tex.h and clcb97tex.h
//! (NVIDIA/open-gpu-doc, classes/3d; docs/sources.md, Descriptors per GPU class).
//!
//! Words 0 to 5 are laid out otherwise than in V2 ([`super::tic::TEXHEAD_V2_BL`]); words 6
//! and 7 (bits 255:192) are V2's, row for row, so the tables here restate words 0 to 5 only
//! and take the rest from V2. A header of this layout is read by transcribing it, field by
//! field, into the V2 layout ([`to_v2`]) and decoding that; [`SPLITS`] lists the fields V1
//! splits in two, [`V1_DATA_TYPES`] and `BORDER_SIZE` the values it numbers otherwise.

use std::sync::LazyLock;

use super::tic::{components, header_version, D, FORMATS, TEXHEAD_V2_BL, TEXHEAD_V2_PITCH};
use super::{field, row, DescField, DescriptorError, Reader, Writer};

/// `TEXHEAD_BL_*` bits 191:0 (clc597tex.h, identical in clc697tex.h, clc797tex.h,
/// clc997tex.h and clcb97tex.h; docs/sources.md, Descriptors per GPU class).
pub const TEXHEAD_BL_WORDS_0_TO_5: &[DescField] = desc_fields! {
    "COMPONENTS" 6:0 "component sizes (A8B8G8R8, R32, ...)";
    "R_DATA_TYPE" 9:7 "data type of component R (NUM_SNORM 1 .. NUM_FLOAT 7)";
    "G_DATA_TYPE" 12:10 "data type of component G";
    "B_DATA_TYPE" 15:13 "data type of component B";
    "A_DATA_TYPE" 18:16 "data type of component A";
    "X_SOURCE" 21:19 "swizzle: source of result x";
    "Y_SOURCE" 24:22 "swizzle: source of result y";
    "Z_SOURCE" 27:25 "swizzle: source of result z";
    "W_SOURCE" 30:28 "swizzle: source of result w";
    "PACK_COMPONENTS" 31:31 "pack components";
    "RESERVED1Y" 36:32 "reserved";
    "GOB_DEPTH_OFFSET" 38:37 "first GOB slice of a 3-D view (2 bits)";
    "RESERVED1X" 40:39 "reserved";
    "ADDRESS_BITS31TO9" 63:41 "texel address bits 31:9 (512-byte aligned)";
    "ADDRESS_BITS48TO32" 80:64 "texel address bits 48:32";
    "RESERVED_ADDRESS" 84:81 "reserved";
    "HEADER_VERSION" 87:85 "header version: 1-D buffer, pitch, block-linear, colour-key";
    "RESERVED_HEADER_VERSION" 88:88 "reserved";
    "RESOURCE_VIEW_COHERENCY_HASH" 92:89 "resource view coherency hash (not kept)";
    "RESERVED2A" 95:93 "reserved";
    "GOBS_PER_BLOCK_WIDTH" 98:96 "log2 GOBs per block across (ONE_GOB only)";
    "GOBS_PER_BLOCK_HEIGHT" 101:99 "log2 GOBs per block down (ONE_GOB .. THIRTYTWO_GOBS)";
    "GOBS_PER_BLOCK_DEPTH" 104:102 "log2 GOBs per block in depth (3-D)";
    "RESERVED3Y" 105:105 "reserved";
    "TILE_WIDTH_IN_GOBS" 108:106 "log2 tile width in GOBs";
    "GOB3D" 109:109 "3-D GOBs";
    "RESERVED3Z" 111:110 "reserved";
    "LOD_ANISO_QUALITY2" 112:112 "anisotropic LOD quality 2";
    "LOD_ANISO_QUALITY" 113:113 "anisotropic LOD quality (low/high)";
    "LOD_ISO_QUALITY" 114:114 "isotropic LOD quality (low/high)";
    "ANISO_COARSE_SPREAD_MODIFIER" 116:115 "anisotropic coarse spread modifier";
    "ANISO_SPREAD_SCALE" 121:117 "anisotropic spread scale";
    "USE_HEADER_OPT_CONTROL" 122:122 "use the header's optimization controls";
    "DEPTH_TEXTURE" 123:123 "depth texture (NVK leaves it 0)";
    "MAX_MIP_LEVEL" 127:124 "last mip level of the image";
    "WIDTH_MINUS_ONE" 144:128 "width in texels - 1";
    "DEPTH_MINUS_ONE_BIT14" 145:145 "bit 14 of depth - 1";
    "HEIGHT_MINUS_ONE_BIT16" 146:146 "bit 16 of height - 1";
    "ANISO_SPREAD_MAX_LOG2" 149:147 "log2 maximum anisotropic spread";
    "S_R_G_B_CONVERSION" 150:150 "sRGB to linear conversion of colour components";
    "TEXTURE_TYPE" 154:151 "1D, 2D, 3D, CUBEMAP, arrays, buffer, ...";
    "SECTOR_PROMOTION" 156:155 "L1 sector promotion";
    "BORDER_SIZE" 159:157 "texture border size, or 7 (BORDER_SAMPLER_COLOR): the sampler's colour";
    "HEIGHT_MINUS_ONE" 175:160 "height in texels - 1, bits 15:0";
    "DEPTH_MINUS_ONE" 189:176 "depth, or array size, - 1, bits 13:0";
    "RESERVED5A" 190:190 "reserved";
    "NORMALIZED_COORDS" 191:191 "coordinates are normalized";
};

/// `TEXHEAD_PITCH_*` bits 191:0 (clc597tex.h, identical in clc697tex.h, clc797tex.h,
/// clc997tex.h and clcb97tex.h; docs/sources.md, Descriptors per GPU class).
pub const TEXHEAD_PITCH_WORDS_0_TO_5: &[DescField] = desc_fields! {
    "COMPONENTS" 6:0 "component sizes (A8B8G8R8, R32, ...)";
    "R_DATA_TYPE" 9:7 "data type of component R (NUM_SNORM 1 .. NUM_FLOAT 7)";
    "G_DATA_TYPE" 12:10 "data type of component G";
    "B_DATA_TYPE" 15:13 "data type of component B";
    "A_DATA_TYPE" 18:16 "data type of component A";
    "X_SOURCE" 21:19 "swizzle: source of result x";
    "Y_SOURCE" 24:22 "swizzle: source of result y";
    "Z_SOURCE" 27:25 "swizzle: source of result z";
    "W_SOURCE" 30:28 "swizzle: source of result w";
    "PACK_COMPONENTS" 31:31 "pack components";
    "RESERVED1A" 36:32 "reserved";
    "ADDRESS_BITS31TO5" 63:37 "texel address bits 31:5 (32-byte aligned)";
    "ADDRESS_BITS48TO32" 80:64 "texel address bits 48:32";
    "RESERVED_ADDRESS" 84:81 "reserved";
    "HEADER_VERSION" 87:85 "header version: 1-D buffer, pitch, block-linear, colour-key";
    "RESERVED_HEADER_VERSION" 88:88 "reserved";
    "RESOURCE_VIEW_COHERENCY_HASH" 92:89 "resource view coherency hash (not kept)";
    "RESERVED2A" 95:93 "reserved";
    "PITCH_BITS20TO5" 111:96 "row pitch in bytes, bits 20:5";
    "LOD_ANISO_QUALITY2" 112:112 "anisotropic LOD quality 2";
    "LOD_ANISO_QUALITY" 113:113 "anisotropic LOD quality (low/high)";
    "LOD_ISO_QUALITY" 114:114 "isotropic LOD quality (low/high)";
    "ANISO_COARSE_SPREAD_MODIFIER" 116:115 "anisotropic coarse spread modifier";
    "ANISO_SPREAD_SCALE" 121:117 "anisotropic spread scale";
    "USE_HEADER_OPT_CONTROL" 122:122 "use the header's optimization controls (not kept: V2 pitch has none)";
    "DEPTH_TEXTURE" 123:123 "depth texture (NVK leaves it 0)";
    "MAX_MIP_LEVEL" 127:124 "last mip level of the image";
    "WIDTH_MINUS_ONE" 144:128 "width in texels - 1";
    "PITCH_BIT21" 145:145 "row pitch in bytes, bit 21";
    "HEIGHT_MINUS_ONE_BIT16" 146:146 "bit 16 of height - 1";
    "ANISO_SPREAD_MAX_LOG2" 149:147 "log2 maximum anisotropic spread";
    "S_R_G_B_CONVERSION" 150:150 "sRGB to linear conversion of colour components";
    "TEXTURE_TYPE" 154:151 "1D, 2D, 3D, CUBEMAP, arrays, buffer, ...";
    "SECTOR_PROMOTION" 156:155 "L1 sector promotion";
    "BORDER_SIZE" 159:157 "texture border size, or 7 (BORDER_SAMPLER_COLOR): the sampler's colour";
    "HEIGHT_MINUS_ONE" 175:160 "height in texels - 1, bits 15:0";
    "DEPTH_MINUS_ONE" 189:176 "depth, or array size, - 1, bits 13:0 (must be 0: a pitch header of the texture unit has no depth)";
    "RESERVED5A" 190:190 "reserved";
    "NORMALIZED_COORDS" 191:191 "coordinates are normalized";
};

/// Words 0 to 5 of `own`, then words 6 and 7 of the V2 table `v2` (docs/sources.md,
/// Descriptors per GPU class: bits 255:192 are the same rows in both layouts).
fn with_v2_tail(own: &[DescField], v2: &[DescField]) -> Vec<DescField> {
    own.iter()
        .chain(v2.iter().filter(|f| f.lo >= 192))
        .copied()
        .collect()
}

static BL: LazyLock<Vec<DescField>> =
    LazyLock::new(|| with_v2_tail(TEXHEAD_BL_WORDS_0_TO_5, TEXHEAD_V2_BL));
static PITCH: LazyLock<Vec<DescField>> =
    LazyLock::new(|| with_v2_tail(TEXHEAD_PITCH_WORDS_0_TO_5, TEXHEAD_V2_PITCH));

/// The whole `TEXHEAD_BL` table (words 0 to 5 restated here, 6 and 7 V2's).
pub fn texhead_bl() -> &'static [DescField] {
    &BL
}

/// The whole `TEXHEAD_PITCH` table (words 0 to 5 restated here, 6 and 7 V2's).
pub fn texhead_pitch() -> &'static [DescField] {
    &PITCH
}

/// A V2 field that this layout holds in parts, lowest part first (clc597tex.h against
/// clcd97tex.h; docs/sources.md, Descriptors per GPU class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// The V2 field.
    pub v2: &'static str,
    /// The parts, low bits first; a part missing from a table is not in that layout.
    pub v1: &'static [&'static str],
}

/// The fields V1 holds otherwise than V2, besides the renumbered ones below.
pub const SPLITS: &[Split] = &[
    Split {
        v2: "ADDRESS_BITS56TO32",
        v1: &["ADDRESS_BITS48TO32"],
    },
    Split {
        v2: "HEIGHT_MINUS_ONE",
        v1: &["HEIGHT_MINUS_ONE", "HEIGHT_MINUS_ONE_BIT16"],
    },
    Split {
        v2: "DEPTH_MINUS_ONE",
        v1: &["DEPTH_MINUS_ONE", "DEPTH_MINUS_ONE_BIT14"],
    },
    Split {
        v2: "PITCH_BITS21TO5",
        v1: &["PITCH_BITS20TO5", "PITCH_BIT21"],
    },
];

/// `R/G/B/A_DATA_TYPE` values (clc597tex.h `*_DATA_TYPE_NUM_*`) and the V2 `DATA_TYPE` each
/// is (clcd97tex.h `TEX_DATA_TYPE_*`); `None`: no V2 counterpart (not modeled). 0 is
/// undefined.
pub const V1_DATA_TYPES: &[(u64, &str, Option<u64>)] = &[
    (1, "NUM_SNORM", Some(1)),
    (2, "NUM_UNORM", Some(0)),
    (3, "NUM_SINT", Some(7)),
    (4, "NUM_UINT", Some(6)),
    (5, "NUM_SNORM_FORCE_FP16", None),
    (6, "NUM_UNORM_FORCE_FP16", None),
    (7, "NUM_FLOAT", Some(2)),
];

/// `BORDER_SIZE_BORDER_SAMPLER_COLOR` (clc597tex.h): the sampler's border colour, V2's
/// `BORDER_SOURCE_BORDER_COLOR` (1). 0 to 3 (`BORDER_SIZE_ONE` .. `_EIGHT`) are texture
/// borders.
pub const BORDER_SAMPLER_COLOR: u64 = 7;

/// V1 fields dropped in the transcription where the V2 layout has no such field: the
/// coherency hash (a cache hint) and the pitch layout's `USE_HEADER_OPT_CONTROL` (the
/// block-linear one is carried: V2's block-linear layout has it).
pub const DROPPED: &[&str] = &["RESOURCE_VIEW_COHERENCY_HASH", "USE_HEADER_OPT_CONTROL"];

const DATA_TYPE_FIELDS: [&str; 4] = ["R_DATA_TYPE", "G_DATA_TYPE", "B_DATA_TYPE", "A_DATA_TYPE"];
const NUM_UINT: u64 = 4;

/// The four V1 data types of a format with these components and V1 type `r`: NIL's format
/// table writes one type for every component except S8Z24's stencil (G: NUM_UINT)
/// (Mesa, src/nouveau/nil/nil_formats.csv; docs/sources.md, Descriptors per GPU class).
fn component_types(comps: u64, r: u64) -> [u64; 4] {
    let mut t = [r; 4];
    if comps == components::S8Z24 {
        t[1] = NUM_UINT;
    }
    t
}

/// How many components of a COMPONENTS layout carry a data type the gather reads: the
/// raw fields of the formats using it ([`Format::fields`](tld4_textures::Format::fields)); 4 for layouts no
/// modeled format uses (the V2 decoder refuses those).
fn typed_components(comps: u64) -> usize {
    FORMATS
        .iter()
        .find(|f| f.1 == comps)
        .map_or(4, |f| f.0.fields())
}

fn invalid(field: &'static str, value: u64, why: &'static str) -> DescriptorError {
    DescriptorError::Invalid {
        descriptor: D,
        field,
        value,
        why,
    }
}

fn not_modeled(field: &'static str, value: u64, why: &'static str) -> DescriptorError {
    DescriptorError::NotModeled {
        descriptor: D,
        field,
        value,
        why,
    }
}

fn is_reserved(name: &str) -> bool {
    name.starts_with("RESERVED")
}

/// Fields with their own rule in [`to_v2`] and [`from_v2`].
fn is_mapped(name: &str) -> bool {
    name == "HEADER_VERSION"
        || name == "BORDER_SIZE"
        || DATA_TYPE_FIELDS.contains(&name)
        || SPLITS.iter().any(|s| s.v1.contains(&name))
}

/// The two tables of a V1 `HEADER_VERSION`, or the error for a version the texture unit
/// does not gather from.
fn tables(version: u64) -> Result<(&'static [DescField], &'static [DescField]), DescriptorError> {
    match version {
        header_version::PITCH => Ok((texhead_pitch(), TEXHEAD_V2_PITCH)),
        header_version::BLOCKLINEAR => Ok((texhead_bl(), TEXHEAD_V2_BL)),
        _ => Err(unmodeled_version(version)),
    }
}

/// The error for a V1 `HEADER_VERSION` the texture unit does not gather from (not PITCH or
/// BLOCKLINEAR).
fn unmodeled_version(version: u64) -> DescriptorError {
    match version {
        0 => not_modeled("HEADER_VERSION", 0, "1-D buffer headers"),
        1 | 4 => not_modeled("HEADER_VERSION", version, "colour-key headers"),
        _ => invalid("HEADER_VERSION", version, "no such header version"),
    }
}

/// The name a V2 field has in V1 (for errors found while decoding the transcription).
pub fn v1_name(v2: &'static str) -> &'static str {
    match v2 {
        "DATA_TYPE" => "R_DATA_TYPE",
        "BORDER_SOURCE" => "BORDER_SIZE",
        _ => SPLITS.iter().find(|s| s.v2 == v2).map_or(v2, |s| s.v1[0]),
    }
}

/// How a V1 header of one layout is transcribed into V2 ([`to_v2`]): every field found in
/// the two tables once, so a transcription reads and writes each at its bits with no lookup
/// by name: the names [`to_v2`] reads itself at compile time ([`Named`]), the rest (which
/// the tables and [`SPLITS`] list) when the layout's transcription is first used.
struct Transcription {
    named: Named,
    /// [`SPLITS`] as this layout holds them, in order (a split none of whose parts this
    /// layout has is left out).
    splits: Vec<SplitFields>,
    /// The other V1 fields, in table order (reserved and mapped ones left out).
    copies: Vec<CopyField>,
}

/// The fields [`to_v2`] reads by name, found in one layout's tables at compile time
/// ([`row`]: a name missing from a table fails the build).
struct Named {
    /// V1's COMPONENTS, R..A_DATA_TYPE and BORDER_SIZE.
    components: DescField,
    data_types: [DescField; 4],
    border_size: DescField,
    /// V2's HEADER_VERSION, DATA_TYPE and BORDER_SOURCE.
    version_v2: DescField,
    data_type_v2: DescField,
    border_source_v2: DescField,
}

impl Named {
    /// The fields in V1's words 0 to 5 `v1_own` and V2's table `v2` (in constants only).
    const fn of(v1_own: &[DescField], v2: &[DescField]) -> Self {
        Named {
            components: row(v1_own, "COMPONENTS"),
            data_types: [
                row(v1_own, DATA_TYPE_FIELDS[0]),
                row(v1_own, DATA_TYPE_FIELDS[1]),
                row(v1_own, DATA_TYPE_FIELDS[2]),
                row(v1_own, DATA_TYPE_FIELDS[3]),
            ],
            border_size: row(v1_own, "BORDER_SIZE"),
            version_v2: row(v2, "HEADER_VERSION"),
            data_type_v2: row(v2, "DATA_TYPE"),
            border_source_v2: row(v2, "BORDER_SOURCE"),
        }
    }
}

/// A [`Split`] in one layout: the V1 parts it has (low bits first) and the V2 field.
struct SplitFields {
    parts: Vec<DescField>,
    /// V2's field; None where V2's layout has none (then the parts must be 0).
    v2: Option<DescField>,
}

/// A V1 field carried as it is: into V2's field of the same name, or, where V2 has none,
/// required to be 0 unless [`DROPPED`].
struct CopyField {
    v1: DescField,
    v2: Option<DescField>,
    dropped: bool,
}

impl Transcription {
    /// The transcription of V1 table `v1` into V2 table `v2`.
    fn new(v1: &'static [DescField], named: Named, v2: &'static [DescField]) -> Self {
        let splits = SPLITS
            .iter()
            .filter_map(|s| {
                let parts: Vec<DescField> =
                    s.v1.iter().filter_map(|p| field(v1, p).copied()).collect();
                (!parts.is_empty()).then(|| SplitFields {
                    parts,
                    v2: field(v2, s.v2).copied(),
                })
            })
            .collect();
        let copies = v1
            .iter()
            .filter(|f| !is_reserved(f.name) && !is_mapped(f.name))
            .map(|f| CopyField {
                v1: *f,
                v2: field(v2, f.name).copied(),
                dropped: DROPPED.contains(&f.name),
            })
            .collect();
        Transcription {
            named,
            splits,
            copies,
        }
    }
}

static TO_V2_BL: LazyLock<Transcription> = LazyLock::new(|| {
    Transcription::new(
        texhead_bl(),
        const { Named::of(TEXHEAD_BL_WORDS_0_TO_5, TEXHEAD_V2_BL) },
        TEXHEAD_V2_BL,
    )
});
static TO_V2_PITCH: LazyLock<Transcription> = LazyLock::new(|| {
    Transcription::new(
        texhead_pitch(),
        const { Named::of(TEXHEAD_PITCH_WORDS_0_TO_5, TEXHEAD_V2_PITCH) },
        TEXHEAD_V2_PITCH,
    )
});

/// V1's HEADER_VERSION (the same bits in both layouts).
const VERSION_V1: DescField = row(TEXHEAD_BL_WORDS_0_TO_5, "HEADER_VERSION");

/// Set `f` of `out` to `value`, or the error a [`Writer`] raises (naming the field).
fn put(out: &mut [u32; 8], f: DescField, value: u64) -> Result<(), DescriptorError> {
    f.set(out, value).map_err(|_| DescriptorError::Invalid {
        descriptor: D,
        field: f.name,
        value,
        why: "does not fit in the field",
    })
}

/// A V1 header transcribed into the V2 layout: the same texture, field by field (reserved
/// fields and [`DROPPED`] ones are not carried). Errors name V1's fields: a version, data
/// type or border the texture unit does not model, a component typed otherwise than R, a
/// field without a V2 counterpart that is not 0.
pub fn to_v2(words: &[u32; 8]) -> Result<[u32; 8], DescriptorError> {
    let version = VERSION_V1.get(words);
    let t: &Transcription = match version {
        header_version::PITCH => &TO_V2_PITCH,
        header_version::BLOCKLINEAR => &TO_V2_BL,
        _ => return Err(unmodeled_version(version)),
    };
    let n = &t.named;
    let mut out = [0u32; 8];
    put(&mut out, n.version_v2, version)?;
    // Data types: R's selects the V2 type; the other typed components must agree.
    let comps = n.components.get(words);
    let [r_type, ..] = n.data_types;
    let rt = r_type.get(words);
    let dt = match V1_DATA_TYPES.iter().find(|x| x.0 == rt) {
        None => return Err(invalid(r_type.name, rt, "no such data type")),
        Some((_, _, None)) => return Err(not_modeled(r_type.name, rt, "FORCE_FP16 data types")),
        Some((_, _, Some(v))) => *v,
    };
    let want = component_types(comps, rt);
    for (k, f) in n
        .data_types
        .iter()
        .enumerate()
        .take(typed_components(comps))
    {
        let v = f.get(words);
        if v != want[k] {
            return Err(not_modeled(
                f.name,
                v,
                "a component typed otherwise than the format's (NIL's types: one for all, S8Z24's stencil UINT)",
            ));
        }
    }
    put(&mut out, n.data_type_v2, dt)?;
    let border = n.border_size.get(words);
    match border {
        BORDER_SAMPLER_COLOR => put(&mut out, n.border_source_v2, 1)?,
        0..=3 => {
            return Err(not_modeled(
                n.border_size.name,
                border,
                "texture borders: only the sampler's border colour is modeled",
            ))
        }
        _ => return Err(invalid(n.border_size.name, border, "no such border size")),
    }
    for s in &t.splits {
        let mut value = 0u64;
        let mut shift = 0;
        for f in &s.parts {
            value |= f.get(words) << shift;
            shift += f.width();
        }
        let Some(first) = s.parts.first().map(|f| f.name) else {
            continue;
        };
        match s.v2 {
            Some(f2) => f2
                .set(&mut out, value)
                .map_err(|_| invalid(first, value, "does not fit in V2"))?,
            None if value != 0 => {
                return Err(not_modeled(
                    first,
                    value,
                    "the texture unit's header of this layout has no such field",
                ))
            }
            None => {}
        }
    }
    for c in &t.copies {
        let v = c.v1.get(words);
        match c.v2 {
            Some(f2) => put(&mut out, f2, v)?,
            None if v == 0 || c.dropped => {}
            None => {
                return Err(not_modeled(
                    c.v1.name,
                    v,
                    "a field the texture unit's header does not have",
                ))
            }
        }
    }
    Ok(out)
}

/// A V2 header (as [`super::tic::TextureHeader::encode`] writes it) in the V1 layout. Errors
/// name V1's fields: a value past its V1 field (an address at or above 2^49, a 3-D GOB
/// offset past 3), a data type or border V1 cannot say.
pub fn from_v2(v2words: &[u32; 8]) -> Result<[u32; 8], DescriptorError> {
    let version = Reader {
        table: TEXHEAD_V2_BL,
        words: v2words,
    }
    .get("HEADER_VERSION");
    let (v1, v2) = tables(version)?;
    let r = Reader {
        table: v2,
        words: v2words,
    };
    let mut out = Writer {
        table: v1,
        words: [0; 8],
        descriptor: D,
    };
    out.set("HEADER_VERSION", version)?;
    let comps = r.get("COMPONENTS");
    let dt = r.get("DATA_TYPE");
    let rt = V1_DATA_TYPES
        .iter()
        .find(|t| t.2 == Some(dt))
        .map(|t| t.0)
        .ok_or(not_modeled(
            "R_DATA_TYPE",
            dt,
            "a V2 data type V1 has no number for",
        ))?;
    for (name, t) in DATA_TYPE_FIELDS.into_iter().zip(component_types(comps, rt)) {
        out.set(name, t)?;
    }
    if r.get("BORDER_SOURCE") != 1 {
        return Err(not_modeled(
            "BORDER_SIZE",
            0,
            "BORDER_TEXTURE: only the sampler's border colour is modeled",
        ));
    }
    out.set("BORDER_SIZE", BORDER_SAMPLER_COLOR)?;
    for s in SPLITS {
        let Some(f2) = field(v2, s.v2) else { continue };
        let mut value = f2.get(v2words);
        let mut last = None;
        for part in s.v1 {
            if let Some(f) = field(v1, part) {
                out.set(f.name, value & f.max())?;
                value >>= f.width();
                last = Some(f.name);
            }
        }
        if let (Some(name), true) = (last, value != 0) {
            return Err(invalid(
                name,
                f2.get(v2words),
                "does not fit in this class's header (V1 addresses end at 2^49)",
            ));
        }
    }
    for f in v1 {
        if is_reserved(f.name) || is_mapped(f.name) {
            continue;
        }
        if let Some(f2) = field(v2, f.name) {
            out.set(f.name, f2.get(v2words))?;
        }
    }
    Ok(out.words)
}
