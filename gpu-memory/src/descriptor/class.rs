//! Texture headers and samplers per GPU class: which of NVIDIA's published layouts a GPU's
//! 3-D class reads, and decoding and encoding of each into the texture unit's
//! [`TextureHeader`] and [`SamplerState`] (docs/sources.md, Descriptors per GPU class).
//!
//! NVIDIA/open-gpu-doc publishes the layouts per class in `classes/3d/clXX97tex.h`; its
//! README names each class's GPUs. What the headers print:
//!
//! - TURING_A, AMPERE_A, AMPERE_B and ADA_A print the same texture headers and samplers:
//!   one table, the V1 layout ([`super::tic_v1`]).
//! - HOPPER_A prints the V1 layout and the V2 one ([`super::tic`]), and its class has a
//!   `SET_TEXTURE_HEADER_VERSION` method that Ada's lacks; Mesa's NIL writes V2 headers for
//!   HOPPER_A and later, so V2 is HOPPER_A's default here and V1 can be chosen
//!   ([`ClassDescriptors::with_format`]).
//! - BLACKWELL_A and BLACKWELL_B print V2 only, identical to HOPPER_A's V2.
//! - Every class prints the same sampler (`TEXSAMP`), except that TURING_A to HOPPER_A name
//!   sampler bits 16:14 and 19:17 `RESERVED0A` and `RESERVED0B` where BLACKWELL_A and
//!   BLACKWELL_B name nothing (the project's `FONT_FILTER` row): one row replaced
//!   ([`TSC_OVERRIDES`]).

use std::sync::LazyLock;

use thiserror::Error;

use super::tic::{HeaderLayout, TextureHeader, TEXHEAD_V2_BL, TEXHEAD_V2_PITCH};
use super::tsc::{SamplerState, TEXSAMP};
use super::{field, tic_v1, DescField, DescriptorError};

/// A 3-D engine class whose texture header and sampler layouts the project restates
/// (NVIDIA/open-gpu-doc, classes/3d/README.txt; docs/sources.md, Descriptors per GPU class).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GpuClass {
    /// TURING_A (0xc597, clc597tex.h): tu102, tu104, tu106, tu116, tu117.
    TuringA,
    /// AMPERE_A (0xc697, clc697tex.h): ga100.
    AmpereA,
    /// AMPERE_B (0xc797, clc797tex.h): ga102, ga103, ga104, ga106, ga107, t234, t239.
    AmpereB,
    /// ADA_A (0xc997, clc997tex.h): ad102, ad103, ad104.
    AdaA,
    /// HOPPER_A (0xcb97, clcb97tex.h): gh100.
    HopperA,
    /// BLACKWELL_A (0xcd97, clcd97tex.h): gb100, gb102, gb10b, gb110, gb112.
    BlackwellA,
    /// BLACKWELL_B (0xce97, clce97tex.h): gb202, gb203, gb205, gb206, gb207, gb20b.
    BlackwellB,
}

/// A texture header layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeaderFormat {
    /// `TEXHEAD_BL` / `TEXHEAD_PITCH` (TURING_A to ADA_A, and HOPPER_A's older layout).
    V1,
    /// `TEXHEAD_V2_BL` / `TEXHEAD_V2_PITCH` (HOPPER_A, BLACKWELL_A, BLACKWELL_B).
    V2,
}

/// A class or architecture without restated descriptors.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClassError {
    /// A class NVIDIA publishes whose layouts this project has not restated.
    #[error("the texture header and sampler layouts of {class} ({header}) are not restated by tld4 (restated: TURING_A, AMPERE_A, AMPERE_B, ADA_A, HOPPER_A, BLACKWELL_A, BLACKWELL_B)")]
    NotRestated {
        /// The class's name (`VOLTA_A`).
        class: &'static str,
        /// Its texture header file in open-gpu-doc.
        header: &'static str,
    },
    /// A name or number that is no 3-D class of open-gpu-doc's README.
    #[error("no such 3-D class: {given} (known: TURING_A, AMPERE_A, AMPERE_B, ADA_A, HOPPER_A, BLACKWELL_A, BLACKWELL_B, and older ones not restated)")]
    Unknown {
        /// What was given.
        given: String,
    },
    /// An architecture no source ties to a class.
    #[error("no 3-D class is known for {arch}: {why}")]
    NoClassForArch {
        /// The architecture as given.
        arch: String,
        /// Why.
        why: &'static str,
    },
    /// A header layout the class does not have.
    #[error("{class} has no {format:?} texture header layout")]
    NoSuchFormat {
        /// The class's name.
        class: &'static str,
        /// The layout asked for.
        format: HeaderFormat,
    },
}

/// The classes open-gpu-doc's README lists before TURING_A (name, class number, texture
/// header file): known, not restated.
pub const NOT_RESTATED: &[(&str, u32, &str)] = &[
    ("FERMI_A", 0x9097, "cl9097tex.h"),
    ("FERMI_B", 0x9197, "cl9097tex.h"),
    ("FERMI_C", 0x9297, "cl9297tex.h"),
    ("KEPLER_A", 0xa097, "cla097tex.h"),
    ("KEPLER_B", 0xa197, "cla197tex.h"),
    ("KEPLER_C", 0xa297, "cla297tex.h"),
    ("MAXWELL_A", 0xb097, "clb097tex.h"),
    ("MAXWELL_B", 0xb197, "clb197tex.h"),
    ("PASCAL_A", 0xc097, "clc097tex.h"),
    ("PASCAL_B", 0xc197, "clc197tex.h"),
    ("VOLTA_A", 0xc397, "clc397tex.h"),
];

/// Which class an SM architecture's GPUs use, with the evidence (docs/sources.md,
/// Descriptors per GPU class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchClass {
    /// The SM number (`90` for sm_90, sm_90a).
    pub sm: u32,
    /// The class.
    pub class: GpuClass,
    /// Why: the GPUs of that SM and the README's class for them.
    pub evidence: &'static str,
}

/// The SM architectures and their classes. The GPU of each SM is CUDA's (compute
/// capability tables); the class of each GPU is open-gpu-doc's README. The `a` and `f`
/// variants take their SM's class.
pub const ARCH_CLASSES: &[ArchClass] = &[
    ArchClass {
        sm: 75,
        class: GpuClass::TuringA,
        evidence: "Turing (TU10x, TU11x): README, TURING_A",
    },
    ArchClass {
        sm: 80,
        class: GpuClass::AmpereA,
        evidence: "A100 (GA100): README, AMPERE_A",
    },
    ArchClass {
        sm: 86,
        class: GpuClass::AmpereB,
        evidence: "GA10x: README, AMPERE_B (ga102..ga107)",
    },
    ArchClass {
        sm: 87,
        class: GpuClass::AmpereB,
        evidence: "Orin (T234): README, AMPERE_B (t234)",
    },
    ArchClass {
        sm: 89,
        class: GpuClass::AdaA,
        evidence: "Ada (AD10x): README, ADA_A",
    },
    ArchClass {
        sm: 90,
        class: GpuClass::HopperA,
        evidence: "Hopper (GH100): README, HOPPER_A",
    },
    ArchClass {
        sm: 100,
        class: GpuClass::BlackwellA,
        evidence: "B200 (GB100): README, BLACKWELL_A",
    },
    ArchClass {
        sm: 101,
        class: GpuClass::BlackwellA,
        evidence:
            "Thor before CUDA 13 (GB10B, a guess from the chip name): README, BLACKWELL_A (gb10b)",
    },
    ArchClass {
        sm: 103,
        class: GpuClass::BlackwellA,
        evidence: "B300 (GB110, a guess from the chip name): README, BLACKWELL_A (gb110, gb112)",
    },
    ArchClass {
        sm: 110,
        class: GpuClass::BlackwellA,
        evidence: "Thor (GB10B, a guess from the chip name): README, BLACKWELL_A (gb10b)",
    },
    ArchClass {
        sm: 120,
        class: GpuClass::BlackwellB,
        evidence: "RTX 50 (GB20x): README, BLACKWELL_B (gb202..gb207)",
    },
    ArchClass {
        sm: 121,
        class: GpuClass::BlackwellB,
        evidence: "DGX Spark (GB10, chip gb20b a guess): README, BLACKWELL_B (gb20b)",
    },
];

/// A sampler row that some classes replace (docs/sources.md, Descriptors per GPU class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TscOverride {
    /// The classes whose header prints `rows` instead.
    pub classes: &'static [GpuClass],
    /// The row of the shared [`TEXSAMP`] replaced.
    pub replaces: &'static str,
    /// What those classes print there.
    pub rows: &'static [DescField],
}

/// The per-class differences of the sampler: clc597tex.h to clcb97tex.h name bits 16:14
/// and 19:17 of word 0 `RESERVED0A`, `RESERVED0B`; clcd97tex.h and clce97tex.h leave them
/// unnamed (the shared table's `FONT_FILTER`, NVK's name).
pub const TSC_OVERRIDES: &[TscOverride] = &[TscOverride {
    classes: &[
        GpuClass::TuringA,
        GpuClass::AmpereA,
        GpuClass::AmpereB,
        GpuClass::AdaA,
        GpuClass::HopperA,
    ],
    replaces: "FONT_FILTER",
    rows: &[
        DescField {
            name: "RESERVED0A",
            lo: 14,
            hi: 16,
            meaning: "reserved (NVK's font filter width)",
        },
        DescField {
            name: "RESERVED0B",
            lo: 17,
            hi: 19,
            meaning: "reserved (NVK's font filter height)",
        },
    ],
}];

static TSC_TABLES: LazyLock<Vec<Vec<DescField>>> = LazyLock::new(|| {
    GpuClass::ALL
        .iter()
        .map(|&c| {
            let mut t: Vec<DescField> = TEXSAMP.to_vec();
            for o in TSC_OVERRIDES.iter().filter(|o| o.classes.contains(&c)) {
                t.retain(|f| f.name != o.replaces);
                t.extend_from_slice(o.rows);
            }
            t.sort_by_key(|f| f.lo);
            t
        })
        .collect()
});

impl GpuClass {
    /// Every restated class, oldest first.
    pub const ALL: [GpuClass; 7] = [
        GpuClass::TuringA,
        GpuClass::AmpereA,
        GpuClass::AmpereB,
        GpuClass::AdaA,
        GpuClass::HopperA,
        GpuClass::BlackwellA,
        GpuClass::BlackwellB,
    ];

    /// The class's name as NVIDIA writes it (`TURING_A`).
    pub const fn name(self) -> &'static str {
        match self {
            GpuClass::TuringA => "TURING_A",
            GpuClass::AmpereA => "AMPERE_A",
            GpuClass::AmpereB => "AMPERE_B",
            GpuClass::AdaA => "ADA_A",
            GpuClass::HopperA => "HOPPER_A",
            GpuClass::BlackwellA => "BLACKWELL_A",
            GpuClass::BlackwellB => "BLACKWELL_B",
        }
    }

    /// The class number (`clXX97.h`: TURING_A is 0xc597).
    pub const fn id(self) -> u32 {
        match self {
            GpuClass::TuringA => 0xc597,
            GpuClass::AmpereA => 0xc697,
            GpuClass::AmpereB => 0xc797,
            GpuClass::AdaA => 0xc997,
            GpuClass::HopperA => 0xcb97,
            GpuClass::BlackwellA => 0xcd97,
            GpuClass::BlackwellB => 0xce97,
        }
    }

    /// The texture header file in open-gpu-doc's `classes/3d/`.
    pub const fn tex_header(self) -> &'static str {
        match self {
            GpuClass::TuringA => "clc597tex.h",
            GpuClass::AmpereA => "clc697tex.h",
            GpuClass::AmpereB => "clc797tex.h",
            GpuClass::AdaA => "clc997tex.h",
            GpuClass::HopperA => "clcb97tex.h",
            GpuClass::BlackwellA => "clcd97tex.h",
            GpuClass::BlackwellB => "clce97tex.h",
        }
    }

    /// The header layouts the class's file prints, the default (NIL's choice) first.
    pub const fn header_formats(self) -> &'static [HeaderFormat] {
        match self {
            GpuClass::TuringA | GpuClass::AmpereA | GpuClass::AmpereB | GpuClass::AdaA => {
                &[HeaderFormat::V1]
            }
            GpuClass::HopperA => &[HeaderFormat::V2, HeaderFormat::V1],
            GpuClass::BlackwellA | GpuClass::BlackwellB => &[HeaderFormat::V2],
        }
    }

    /// The class named `name` (`HOPPER_A`, any case), or a typed error: a known class whose
    /// layouts are not restated, or no class.
    pub fn from_name(name: &str) -> Result<GpuClass, ClassError> {
        let n = name.trim().to_ascii_uppercase();
        if let Some(c) = GpuClass::ALL.into_iter().find(|c| c.name() == n) {
            return Ok(c);
        }
        match NOT_RESTATED.iter().find(|r| r.0 == n) {
            Some(&(class, _, header)) => Err(ClassError::NotRestated { class, header }),
            None => Err(ClassError::Unknown {
                given: name.to_string(),
            }),
        }
    }

    /// The class numbered `id` (0xcb97), or a typed error as [`GpuClass::from_name`].
    pub fn from_id(id: u32) -> Result<GpuClass, ClassError> {
        if let Some(c) = GpuClass::ALL.into_iter().find(|c| c.id() == id) {
            return Ok(c);
        }
        match NOT_RESTATED.iter().find(|r| r.1 == id) {
            Some(&(class, _, header)) => Err(ClassError::NotRestated { class, header }),
            None => Err(ClassError::Unknown {
                given: format!("{id:#x}"),
            }),
        }
    }

    /// The class of an SM architecture named as ptxas or nvdisasm does (`sm_90a`,
    /// `SM100f`, `sm_75`): [`ARCH_CLASSES`]. sm_88 and sm_107 have none (no source names
    /// their GPUs).
    pub fn for_arch(arch: &str) -> Result<GpuClass, ClassError> {
        let lower = arch.trim().to_ascii_lowercase();
        let digits = lower
            .strip_prefix("sm_")
            .or_else(|| lower.strip_prefix("sm"))
            .map(|s| s.trim_end_matches(['a', 'f']))
            .and_then(|s| s.parse::<u32>().ok());
        let Some(sm) = digits else {
            return Err(ClassError::NoClassForArch {
                arch: arch.to_string(),
                why: "not an SM architecture name (sm_75 .. sm_121)",
            });
        };
        ARCH_CLASSES
            .iter()
            .find(|a| a.sm == sm)
            .map(|a| a.class)
            .ok_or(ClassError::NoClassForArch {
                arch: arch.to_string(),
                why: "neither CUDA's tables nor open-gpu-doc's README name its GPU's class",
            })
    }

    /// The class's sampler table: [`TEXSAMP`] with the class's [`TSC_OVERRIDES`].
    pub fn tsc_table(self) -> &'static [DescField] {
        &TSC_TABLES[self as usize]
    }
}

impl std::fmt::Display for GpuClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for GpuClass {
    type Err = ClassError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GpuClass::from_name(s)
    }
}

/// How a GPU of a class reads its descriptors: the class and the header layout in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClassDescriptors {
    /// The class.
    pub class: GpuClass,
    /// Its header layout in use.
    pub format: HeaderFormat,
}

impl Default for ClassDescriptors {
    /// BLACKWELL_A (SM100, the project's base architecture), V2.
    fn default() -> Self {
        ClassDescriptors::new(GpuClass::BlackwellA)
    }
}

impl ClassDescriptors {
    /// The class with its default header layout (the first of
    /// [`GpuClass::header_formats`]).
    pub const fn new(class: GpuClass) -> Self {
        ClassDescriptors {
            class,
            format: class.header_formats()[0],
        }
    }

    /// The class with another of its header layouts (HOPPER_A's V1), or
    /// [`ClassError::NoSuchFormat`].
    pub fn with_format(class: GpuClass, format: HeaderFormat) -> Result<Self, ClassError> {
        if class.header_formats().contains(&format) {
            Ok(ClassDescriptors { class, format })
        } else {
            Err(ClassError::NoSuchFormat {
                class: class.name(),
                format,
            })
        }
    }

    /// The texture header table of a layout in this class's format.
    pub fn tic_table(&self, layout: HeaderLayout) -> &'static [DescField] {
        match (self.format, layout) {
            (HeaderFormat::V1, HeaderLayout::Pitch { .. }) => tic_v1::texhead_pitch(),
            (HeaderFormat::V1, HeaderLayout::BlockLinear { .. }) => tic_v1::texhead_bl(),
            (HeaderFormat::V2, HeaderLayout::Pitch { .. }) => TEXHEAD_V2_PITCH,
            (HeaderFormat::V2, HeaderLayout::BlockLinear { .. }) => TEXHEAD_V2_BL,
        }
    }

    /// The sampler table ([`GpuClass::tsc_table`]).
    pub fn tsc_table(&self) -> &'static [DescField] {
        self.class.tsc_table()
    }

    /// Decode a texture header of this class. A V2 header is [`TextureHeader::decode`]; a
    /// V1 header is transcribed into V2 ([`tic_v1::to_v2`]) and decoded, so the result's
    /// `words` are its V2 transcription (readable by V2's names) and errors name V1's
    /// fields.
    pub fn decode_tic(&self, words: &[u32; 8]) -> Result<TextureHeader, DescriptorError> {
        match self.format {
            HeaderFormat::V2 => TextureHeader::decode(words),
            HeaderFormat::V1 => {
                let v2 = tic_v1::to_v2(words)?;
                TextureHeader::decode(&v2).map_err(rename_v1)
            }
        }
    }

    /// The header's words in this class's layout ([`TextureHeader::encode`], then for V1
    /// [`tic_v1::from_v2`]).
    pub fn encode_tic(&self, header: &TextureHeader) -> Result<[u32; 8], DescriptorError> {
        let v2 = header.encode()?;
        match self.format {
            HeaderFormat::V2 => Ok(v2),
            HeaderFormat::V1 => tic_v1::from_v2(&v2),
        }
    }

    /// The raw value of texture header field `name` of this class's layout in `words`, the
    /// layout chosen by the header's version (None for another version or name).
    pub fn tic_field(&self, words: &[u32; 8], name: &str) -> Option<u64> {
        let (bl, pitch) = match self.format {
            HeaderFormat::V1 => (tic_v1::texhead_bl(), tic_v1::texhead_pitch()),
            HeaderFormat::V2 => (TEXHEAD_V2_BL, TEXHEAD_V2_PITCH),
        };
        let version = field(bl, "HEADER_VERSION")?.get(words);
        let table = match version {
            super::tic::header_version::PITCH => pitch,
            super::tic::header_version::BLOCKLINEAR => bl,
            _ => return None,
        };
        field(table, name).map(|f| f.get(words))
    }

    /// Decode a sampler of this class: every class reads the typed fields at the same bits
    /// ([`SamplerState::decode`]; the classes differ only in the names of unused bits).
    pub fn decode_tsc(&self, words: &[u32; 8]) -> SamplerState {
        SamplerState::decode(words)
    }

    /// The sampler's words in this class's layout ([`SamplerState::encode`]).
    pub fn encode_tsc(&self, state: &SamplerState) -> [u32; 8] {
        state.encode()
    }

    /// The raw value of sampler field `name` of this class's table in `words`.
    pub fn tsc_field(&self, words: &[u32; 8], name: &str) -> Option<u64> {
        field(self.tsc_table(), name).map(|f| f.get(words))
    }
}

/// An error found in a V1 header's V2 transcription, naming V1's field.
fn rename_v1(e: DescriptorError) -> DescriptorError {
    match e {
        DescriptorError::Invalid {
            descriptor,
            field,
            value,
            why,
        } => DescriptorError::Invalid {
            descriptor,
            field: tic_v1::v1_name(field),
            value,
            why,
        },
        DescriptorError::NotModeled {
            descriptor,
            field,
            value,
            why,
        } => DescriptorError::NotModeled {
            descriptor,
            field: tic_v1::v1_name(field),
            value,
            why,
        },
    }
}
