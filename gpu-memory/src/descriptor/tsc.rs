//! The SM100 sampler (TSC entry): clcd97tex.h's `TEXSAMP0..7`, one table, and the typed
//! [`SamplerState`] (docs/sources.md, Descriptors).

use super::tic::TextureHeader;
use super::{field, row, DescField, DescriptorError, Writer};
use tld4_textures::{AddressMode, BorderColor, CompareOp, Sampler};

const D: &str = "sampler";

macro_rules! table {
    ($($name:literal $word:literal [$hi:literal : $lo:literal] $meaning:literal;)*) => {
        &[$(DescField { name: $name, lo: $word * 32 + $lo, hi: $word * 32 + $hi, meaning: $meaning }),*]
    };
}

/// `NVCD97_TEXSAMP<word>_*` (clcd97tex.h, "Texture Sampler State"; docs/sources.md,
/// Descriptors), the per-word bit ranges restated over the 256-bit entry (word * 32 + bit).
/// `FONT_FILTER` (word 0 bits 19:14) is NVK's name for bits clcd97tex.h leaves unnamed; NVK
/// sets them, so they are accepted and kept (docs/sources.md, Descriptors).
pub const TEXSAMP: &[DescField] = table! {
    "ADDRESS_U" 0 [2:0] "address mode of u";
    "ADDRESS_V" 0 [5:3] "address mode of v";
    "ADDRESS_P" 0 [8:6] "address mode of p (r)";
    "DEPTH_COMPARE" 0 [9:9] "depth compare on";
    "DEPTH_COMPARE_FUNC" 0 [12:10] "depth compare function (ZC_NEVER .. ZC_ALWAYS)";
    "S_R_G_B_CONVERSION" 0 [13:13] "sRGB conversion of the border colour";
    "FONT_FILTER" 0 [19:14] "unnamed in clcd97tex.h; NVK's font filter width/height";
    "MAX_ANISOTROPY" 0 [22:20] "maximum anisotropy";
    "RESERVED0" 0 [30:23] "unnamed";
    "FORCED_INVALID" 0 [31:31] "the sampler is marked invalid";
    "MAG_FILTER" 1 [2:0] "magnification filter";
    "MIN_LOD_CLAMP_BEHAVIOR_FOR_NEAREST_MIP" 1 [3:3] "min LOD clamp behaviour for nearest mip";
    "MIN_FILTER" 1 [5:4] "minification filter";
    "MIP_FILTER" 1 [7:6] "mip filter";
    "CUBEMAP_INTERFACE_FILTERING" 1 [9:8] "cube edges: USE_WRAP, OVERRIDE_WRAP, AUTO_SPAN_SEAM, AUTO_CROSS_SEAM";
    "REDUCTION_FILTER" 1 [11:10] "reduction: none, minimum, maximum";
    "MIP_LOD_BIAS" 1 [24:12] "mip LOD bias";
    "FLOAT_COORD_NORMALIZATION" 1 [25:25] "force unnormalized coordinates";
    "TRILIN_OPT" 1 [30:26] "trilinear optimization";
    "RESERVED1" 1 [31:31] "unnamed";
    "MIN_LOD_CLAMP" 2 [11:0] "minimum LOD clamp";
    "MAX_LOD_CLAMP" 2 [23:12] "maximum LOD clamp";
    "S_R_G_B_BORDER_COLOR_R" 2 [31:24] "sRGB border colour R";
    "RESERVED12" 3 [11:0] "reserved";
    "S_R_G_B_BORDER_COLOR_G" 3 [19:12] "sRGB border colour G";
    "S_R_G_B_BORDER_COLOR_B" 3 [27:20] "sRGB border colour B";
    "RESERVED3" 3 [31:28] "unnamed";
    "BORDER_COLOR_R" 4 [31:0] "border colour R word";
    "BORDER_COLOR_G" 5 [31:0] "border colour G word";
    "BORDER_COLOR_B" 6 [31:0] "border colour B word";
    "BORDER_COLOR_A" 7 [31:0] "border colour A word";
};

/// The eight hardware address modes (clcd97tex.h `ADDRESS_U_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HwAddressMode {
    /// WRAP (0).
    Wrap = 0,
    /// MIRROR (1).
    Mirror = 1,
    /// CLAMP_TO_EDGE (2).
    ClampToEdge = 2,
    /// BORDER (3).
    Border = 3,
    /// CLAMP_OGL (4): OpenGL's GL_CLAMP.
    ClampOgl = 4,
    /// MIRROR_ONCE_CLAMP_TO_EDGE (5).
    MirrorOnceClampToEdge = 5,
    /// MIRROR_ONCE_BORDER (6).
    MirrorOnceBorder = 6,
    /// MIRROR_ONCE_CLAMP_OGL (7).
    MirrorOnceClampOgl = 7,
}

impl HwAddressMode {
    /// All eight, by value.
    pub const ALL: [HwAddressMode; 8] = [
        HwAddressMode::Wrap,
        HwAddressMode::Mirror,
        HwAddressMode::ClampToEdge,
        HwAddressMode::Border,
        HwAddressMode::ClampOgl,
        HwAddressMode::MirrorOnceClampToEdge,
        HwAddressMode::MirrorOnceBorder,
        HwAddressMode::MirrorOnceClampOgl,
    ];

    /// The texture unit's mode for it (Vulkan's equivalents, as NVK maps them: REPEAT,
    /// MIRRORED_REPEAT, CLAMP_TO_EDGE, CLAMP_TO_BORDER, MIRROR_CLAMP_TO_EDGE), or None where no
    /// source says what a gather does: CLAMP_OGL and MIRROR_ONCE_CLAMP_OGL (GL_CLAMP's
    /// half-border blend has no gather rule) and MIRROR_ONCE_BORDER (no Vulkan mode)
    /// (docs/sources.md, Decisions).
    pub fn modeled(self) -> Option<AddressMode> {
        match self {
            HwAddressMode::Wrap => Some(AddressMode::Repeat),
            HwAddressMode::Mirror => Some(AddressMode::MirroredRepeat),
            HwAddressMode::ClampToEdge => Some(AddressMode::ClampToEdge),
            HwAddressMode::Border => Some(AddressMode::ClampToBorder),
            HwAddressMode::MirrorOnceClampToEdge => Some(AddressMode::MirrorClampToEdge),
            HwAddressMode::ClampOgl
            | HwAddressMode::MirrorOnceBorder
            | HwAddressMode::MirrorOnceClampOgl => None,
        }
    }

    /// The hardware mode of a texture-unit mode (the inverse of [`HwAddressMode::modeled`]).
    pub fn of(mode: AddressMode) -> Self {
        match mode {
            AddressMode::Repeat => HwAddressMode::Wrap,
            AddressMode::MirroredRepeat => HwAddressMode::Mirror,
            AddressMode::ClampToEdge => HwAddressMode::ClampToEdge,
            AddressMode::ClampToBorder => HwAddressMode::Border,
            AddressMode::MirrorClampToEdge => HwAddressMode::MirrorOnceClampToEdge,
        }
    }
}

/// `CUBEMAP_INTERFACE_FILTERING` values (clcd97tex.h). NVK writes USE_WRAP for
/// VK_SAMPLER_CREATE_NON_SEAMLESS_CUBE_MAP_BIT_EXT and AUTO_SPAN_SEAM otherwise
/// (docs/sources.md, NAK conventions); OVERRIDE_WRAP and AUTO_CROSS_SEAM are not modeled.
pub mod cube_filtering {
    /// USE_WRAP: faces addressed one by one with the address modes.
    pub const USE_WRAP: u64 = 0;
    /// OVERRIDE_WRAP.
    pub const OVERRIDE_WRAP: u64 = 1;
    /// AUTO_SPAN_SEAM: seamless.
    pub const AUTO_SPAN_SEAM: u64 = 2;
    /// AUTO_CROSS_SEAM.
    pub const AUTO_CROSS_SEAM: u64 = 3;
}

/// One decoded sampler. Every field is kept in `words`; the typed members are the ones the
/// gather uses (address modes, compare, border, cube filtering) and, for reference, the
/// filters and anisotropy a gather ignores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SamplerState {
    /// ADDRESS_U, ADDRESS_V, ADDRESS_P.
    pub address: [HwAddressMode; 3],
    /// DEPTH_COMPARE.
    pub depth_compare: bool,
    /// DEPTH_COMPARE_FUNC (ZC_NEVER .. ZC_ALWAYS are VkCompareOp's numbering).
    pub compare_func: CompareOp,
    /// CUBEMAP_INTERFACE_FILTERING raw value ([`cube_filtering`]).
    pub cube_filtering: u8,
    /// MAG_FILTER, MIN_FILTER, MIP_FILTER raw values (a gather ignores them).
    pub filters: [u8; 3],
    /// MAX_ANISOTROPY raw value (a gather ignores it).
    pub max_anisotropy: u8,
    /// FLOAT_COORD_NORMALIZATION: true for FORCE_UNNORMALIZED_COORDS (1), false for
    /// USE_HEADER_SETTING (0), where the texture header's NORMALIZED_COORDS decides
    /// (clcd97tex.h; docs/sources.md, Unnormalized coordinates).
    pub force_unnormalized_coords: bool,
    /// BORDER_COLOR_R..A words.
    pub border: BorderColor,
    /// The whole entry.
    pub words: [u32; 8],
}

fn not_modeled(field: &'static str, value: u64, why: &'static str) -> DescriptorError {
    DescriptorError::NotModeled {
        descriptor: D,
        field,
        value,
        why,
    }
}

impl SamplerState {
    /// The raw value of the field `name` (clcd97tex.h's name).
    pub fn field(&self, name: &str) -> Option<u64> {
        field(TEXSAMP, name).map(|f| f.get(&self.words))
    }

    /// Decode a sampler entry (every 3-bit address mode and compare function is defined, so
    /// decoding itself never fails; [`SamplerState::sampler`] refuses what is not modeled).
    pub fn decode(words: &[u32; 8]) -> Self {
        // (each field found in the table at compile time: `row`)
        let get = |f: DescField| f.get(words);
        let mode = |f| HwAddressMode::ALL[get(f) as usize & 7];
        SamplerState {
            address: [
                mode(const { row(TEXSAMP, "ADDRESS_U") }),
                mode(const { row(TEXSAMP, "ADDRESS_V") }),
                mode(const { row(TEXSAMP, "ADDRESS_P") }),
            ],
            depth_compare: get(const { row(TEXSAMP, "DEPTH_COMPARE") }) != 0,
            compare_func: CompareOp::ALL
                [get(const { row(TEXSAMP, "DEPTH_COMPARE_FUNC") }) as usize & 7],
            cube_filtering: get(const { row(TEXSAMP, "CUBEMAP_INTERFACE_FILTERING") }) as u8,
            filters: [
                get(const { row(TEXSAMP, "MAG_FILTER") }) as u8,
                get(const { row(TEXSAMP, "MIN_FILTER") }) as u8,
                get(const { row(TEXSAMP, "MIP_FILTER") }) as u8,
            ],
            max_anisotropy: get(const { row(TEXSAMP, "MAX_ANISOTROPY") }) as u8,
            force_unnormalized_coords: get(const { row(TEXSAMP, "FLOAT_COORD_NORMALIZATION") })
                != 0,
            border: BorderColor {
                words: [words[4], words[5], words[6], words[7]],
            },
            words: *words,
        }
    }

    /// The entry's words: `words` with the typed members written over it.
    pub fn encode(&self) -> [u32; 8] {
        let mut w = Writer {
            table: TEXSAMP,
            words: self.words,
            descriptor: D,
        };
        let values: [(&'static str, u64); 15] = [
            ("ADDRESS_U", self.address[0] as u64),
            ("ADDRESS_V", self.address[1] as u64),
            ("ADDRESS_P", self.address[2] as u64),
            ("DEPTH_COMPARE", self.depth_compare as u64),
            ("DEPTH_COMPARE_FUNC", self.compare_func as u64),
            (
                "CUBEMAP_INTERFACE_FILTERING",
                self.cube_filtering as u64 & 3,
            ),
            ("MAG_FILTER", self.filters[0] as u64 & 7),
            ("MIN_FILTER", self.filters[1] as u64 & 3),
            ("MIP_FILTER", self.filters[2] as u64 & 3),
            ("MAX_ANISOTROPY", self.max_anisotropy as u64 & 7),
            (
                "FLOAT_COORD_NORMALIZATION",
                self.force_unnormalized_coords as u64,
            ),
            ("BORDER_COLOR_R", self.border.words[0] as u64),
            ("BORDER_COLOR_G", self.border.words[1] as u64),
            ("BORDER_COLOR_B", self.border.words[2] as u64),
            ("BORDER_COLOR_A", self.border.words[3] as u64),
        ];
        for (name, v) in values {
            // every value is masked to its field above, so set cannot fail
            let _ = w.set(name, v);
        }
        w.words
    }

    /// The entry for a texture-unit [`Sampler`]: its address modes (P as U), compare, border
    /// words, cube filtering (NVK's USE_WRAP / AUTO_SPAN_SEAM), unnormalized coordinates as
    /// FORCE_UNNORMALIZED_COORDS (as NVK writes Vulkan's `unnormalizedCoordinates`, the
    /// header keeping NORMALIZED_COORDS set: docs/sources.md, Unnormalized coordinates), linear filters
    /// (MAG_LINEAR 2, MIN_LINEAR 2, MIP_NONE 1, which a gather ignores), everything else 0.
    pub fn from_sampler(s: &Sampler) -> Self {
        let state = SamplerState {
            address: [
                HwAddressMode::of(s.address_u),
                HwAddressMode::of(s.address_v),
                // P (Vulkan's addressModeW) as U: no 2D or cube gather reads it (a decision,
                // docs/sources.md, Decisions)
                HwAddressMode::of(s.address_u),
            ],
            depth_compare: s.compare.is_some(),
            compare_func: s.compare.unwrap_or(CompareOp::Never),
            cube_filtering: if s.seamless_cube {
                cube_filtering::AUTO_SPAN_SEAM as u8
            } else {
                cube_filtering::USE_WRAP as u8
            },
            filters: [2, 2, 1],
            max_anisotropy: 0,
            force_unnormalized_coords: !s.normalized_coords,
            border: s.border,
            words: [0; 8],
        };
        SamplerState {
            words: state.encode(),
            ..state
        }
    }

    /// The texture unit's [`Sampler`] for a texture of `header`: [`SamplerState::sampler`],
    /// its coordinates normalized only where the header's NORMALIZED_COORDS is set and this
    /// entry does not force unnormalized ones (FLOAT_COORD_NORMALIZATION:
    /// FORCE_UNNORMALIZED_COORDS overrides the header, USE_HEADER_SETTING takes it;
    /// clcd97tex.h, NIL; docs/sources.md, Unnormalized coordinates).
    pub fn sampler_for(&self, header: &TextureHeader) -> Result<Sampler, DescriptorError> {
        let s = self.sampler()?;
        Ok(Sampler {
            normalized_coords: s.normalized_coords && header.normalized_coords,
            ..s
        })
    }

    /// The texture unit's [`Sampler`] as this entry alone says it (coordinates unnormalized
    /// when it forces them, else normalized: the header may still make them unnormalized, see
    /// [`SamplerState::sampler_for`]), or a [`DescriptorError::NotModeled`] naming the field:
    /// an address mode without a gather rule ([`HwAddressMode::modeled`]), OVERRIDE_WRAP or
    /// AUTO_CROSS_SEAM cube filtering, a sampler marked FORCED_INVALID (what the unit returns
    /// then is unknown), a reduction filter (min/max reduction changes a filtered result, not
    /// a gather's; unmeasured, so refused).
    pub fn sampler(&self) -> Result<Sampler, DescriptorError> {
        let mode = |k: usize, name: &'static str| {
            self.address[k].modeled().ok_or(not_modeled(
                name,
                self.address[k] as u64,
                "no source gives this address mode's gather",
            ))
        };
        let address_u = mode(0, "ADDRESS_U")?;
        let address_v = mode(1, "ADDRESS_V")?;
        let seamless_cube = match self.cube_filtering as u64 {
            cube_filtering::USE_WRAP => false,
            cube_filtering::AUTO_SPAN_SEAM => true,
            v => {
                return Err(not_modeled(
                    "CUBEMAP_INTERFACE_FILTERING",
                    v,
                    "OVERRIDE_WRAP and AUTO_CROSS_SEAM",
                ))
            }
        };
        for f in const {
            [
                row(TEXSAMP, "FORCED_INVALID"),
                row(TEXSAMP, "REDUCTION_FILTER"),
            ]
        } {
            let v = f.get(&self.words);
            if v != 0 {
                return Err(not_modeled(f.name, v, "not modeled for gathers"));
            }
        }
        Ok(Sampler {
            address_u,
            address_v,
            border: self.border,
            compare: self.depth_compare.then_some(self.compare_func),
            seamless_cube,
            normalized_coords: !self.force_unnormalized_coords,
        })
    }
}
