//! Texture headers and samplers per GPU class (docs/sources.md, Descriptors per GPU class).
//!
//! The bit positions below are restated from NVIDIA/open-gpu-doc's `classes/3d/clXX97tex.h`
//! by hand (field, bit range), independently of the crate's tables; placements are checked
//! by reading raw bits of encoded words, not through the tables.

use proptest::prelude::*;
use tld4_gpu_memory::descriptor::class::{
    ClassDescriptors, ClassError, GpuClass, HeaderFormat, ARCH_CLASSES, TSC_OVERRIDES,
};
use tld4_gpu_memory::descriptor::tic::FORMATS;
use tld4_gpu_memory::descriptor::DescriptorError;
use tld4_gpu_memory::*;
use tld4_textures::*;

/// One published fact: in `files`, texture header (or sampler) group `group` has `field`
/// at bits `hi:lo` over the 256-bit entry (TEXSAMP's per-word ranges as word * 32 + bit).
struct Fact {
    classes: &'static [GpuClass],
    format: Option<HeaderFormat>,
    group: Group,
    field: &'static str,
    hi: u16,
    lo: u16,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Group {
    BlockLinear,
    Pitch,
    Sampler,
}

use GpuClass::*;
const V1_CLASSES: &[GpuClass] = &[TuringA, AmpereA, AmpereB, AdaA, HopperA];
const V2_CLASSES: &[GpuClass] = &[HopperA, BlackwellA, BlackwellB];
const ALL: &[GpuClass] = &GpuClass::ALL;
const PRE_BLACKWELL: &[GpuClass] = &[TuringA, AmpereA, AmpereB, AdaA, HopperA];
const BLACKWELL: &[GpuClass] = &[BlackwellA, BlackwellB];

macro_rules! facts {
    ($($classes:ident $fmt:ident $group:ident $field:literal $hi:literal : $lo:literal;)*) => {
        &[$(Fact { classes: $classes, format: fmt!($fmt), group: Group::$group, field: $field, hi: $hi, lo: $lo }),*]
    };
}
macro_rules! fmt {
    (V1) => {
        Some(HeaderFormat::V1)
    };
    (V2) => {
        Some(HeaderFormat::V2)
    };
    (any) => {
        None
    };
}

/// clc597tex.h (= clc697, clc797, clc997, and clcb97's non-V2 groups) and clcb97tex.h /
/// clcd97tex.h / clce97tex.h's V2 groups, as printed
/// (docs/sources.md, Descriptors per GPU class).
const FACTS: &[Fact] = facts! {
    V1_CLASSES V1 BlockLinear "COMPONENTS" 6:0;
    V1_CLASSES V1 BlockLinear "R_DATA_TYPE" 9:7;
    V1_CLASSES V1 BlockLinear "A_DATA_TYPE" 18:16;
    V1_CLASSES V1 BlockLinear "X_SOURCE" 21:19;
    V1_CLASSES V1 BlockLinear "W_SOURCE" 30:28;
    V1_CLASSES V1 BlockLinear "ADDRESS_BITS31TO9" 63:41;
    V1_CLASSES V1 BlockLinear "ADDRESS_BITS48TO32" 80:64;
    V1_CLASSES V1 BlockLinear "HEADER_VERSION" 87:85;
    V1_CLASSES V1 BlockLinear "GOBS_PER_BLOCK_HEIGHT" 101:99;
    V1_CLASSES V1 BlockLinear "WIDTH_MINUS_ONE" 144:128;
    V1_CLASSES V1 BlockLinear "DEPTH_MINUS_ONE_BIT14" 145:145;
    V1_CLASSES V1 BlockLinear "HEIGHT_MINUS_ONE_BIT16" 146:146;
    V1_CLASSES V1 BlockLinear "S_R_G_B_CONVERSION" 150:150;
    V1_CLASSES V1 BlockLinear "TEXTURE_TYPE" 154:151;
    V1_CLASSES V1 BlockLinear "BORDER_SIZE" 159:157;
    V1_CLASSES V1 BlockLinear "HEIGHT_MINUS_ONE" 175:160;
    V1_CLASSES V1 BlockLinear "DEPTH_MINUS_ONE" 189:176;
    V1_CLASSES V1 BlockLinear "NORMALIZED_COORDS" 191:191;
    V1_CLASSES V1 BlockLinear "MULTI_SAMPLE_COUNT" 235:232;
    V1_CLASSES V1 Pitch "ADDRESS_BITS31TO5" 63:37;
    V1_CLASSES V1 Pitch "PITCH_BITS20TO5" 111:96;
    V1_CLASSES V1 Pitch "PITCH_BIT21" 145:145;
    V1_CLASSES V1 Pitch "NORMALIZED_COORDS" 191:191;
    V1_CLASSES V1 Pitch "RES_VIEW_MIN_MIP_LEVEL" 227:224;
    V2_CLASSES V2 BlockLinear "ADDRESS_BITS31TO9" 31:9;
    V2_CLASSES V2 BlockLinear "ADDRESS_BITS56TO32" 56:32;
    V2_CLASSES V2 BlockLinear "GOBS_PER_BLOCK_HEIGHT" 69:67;
    V2_CLASSES V2 BlockLinear "DATA_TYPE" 111:108;
    V2_CLASSES V2 BlockLinear "COMPONENTS" 118:112;
    V2_CLASSES V2 BlockLinear "HEADER_VERSION" 127:124;
    V2_CLASSES V2 BlockLinear "NORMALIZED_COORDS" 145:145;
    V2_CLASSES V2 BlockLinear "BORDER_SOURCE" 156:156;
    V2_CLASSES V2 BlockLinear "HEIGHT_MINUS_ONE" 176:160;
    V2_CLASSES V2 BlockLinear "DEPTH_MINUS_ONE" 191:177;
    V2_CLASSES V2 Pitch "PITCH_BITS21TO5" 80:64;
    V2_CLASSES V2 Pitch "MULTI_SAMPLE_COUNT" 235:232;
    ALL any Sampler "ADDRESS_U" 2:0;
    ALL any Sampler "DEPTH_COMPARE_FUNC" 12:10;
    ALL any Sampler "MAX_ANISOTROPY" 22:20;
    ALL any Sampler "FORCED_INVALID" 31:31;
    ALL any Sampler "CUBEMAP_INTERFACE_FILTERING" 41:40;
    ALL any Sampler "REDUCTION_FILTER" 43:42;
    ALL any Sampler "BORDER_COLOR_A" 255:224;
    PRE_BLACKWELL any Sampler "RESERVED0A" 16:14;
    PRE_BLACKWELL any Sampler "RESERVED0B" 19:17;
};

fn layout_of(g: Group) -> HeaderLayout {
    match g {
        Group::Pitch => HeaderLayout::Pitch { pitch: 64 },
        _ => HeaderLayout::BlockLinear {
            gobs_per_block_height_log2: 0,
        },
    }
}

#[test]
fn every_class_prints_its_fields_at_the_published_bits() {
    let mut checked = 0;
    for f in FACTS {
        for &c in f.classes {
            for &fmt in c.header_formats() {
                if f.format.is_some_and(|want| want != fmt) {
                    continue;
                }
                let d = ClassDescriptors::with_format(c, fmt).unwrap();
                let table = match f.group {
                    Group::Sampler => d.tsc_table(),
                    g => d.tic_table(layout_of(g)),
                };
                let row = table
                    .iter()
                    .find(|r| r.name == f.field)
                    .unwrap_or_else(|| panic!("{c} {fmt:?} {:?}: no {}", f.group, f.field));
                assert_eq!((row.hi, row.lo), (f.hi, f.lo), "{c} {fmt:?} {}", f.field);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
    // Blackwell names nothing at sampler bits 19:14 (the shared table's FONT_FILTER row).
    for &c in BLACKWELL {
        let t = c.tsc_table();
        assert!(!t
            .iter()
            .any(|r| r.name == "RESERVED0A" || r.name == "RESERVED0B"));
        assert!(t
            .iter()
            .any(|r| r.name == "FONT_FILTER" && (r.hi, r.lo) == (19, 14)));
    }
}

#[test]
fn tables_cover_256_bits_without_overlap() {
    for c in GpuClass::ALL {
        for &fmt in c.header_formats() {
            let d = ClassDescriptors::with_format(c, fmt).unwrap();
            for table in [
                d.tic_table(layout_of(Group::BlockLinear)),
                d.tic_table(layout_of(Group::Pitch)),
                d.tsc_table(),
            ] {
                let mut seen = [false; 256];
                for r in table {
                    for b in r.lo..=r.hi {
                        assert!(!seen[b as usize], "{c} {fmt:?}: bit {b} twice ({})", r.name);
                        seen[b as usize] = true;
                    }
                }
                assert!(
                    seen.iter().all(|&s| s),
                    "{c} {fmt:?}: a bit without a field"
                );
            }
        }
    }
}

#[test]
fn overrides_name_classes_and_rows_that_exist() {
    for o in TSC_OVERRIDES {
        assert!(descriptor::tsc::TEXSAMP
            .iter()
            .any(|r| r.name == o.replaces));
        for c in GpuClass::ALL {
            let has = c.tsc_table().iter().any(|r| r.name == o.replaces);
            assert_eq!(has, !o.classes.contains(&c), "{c}");
        }
    }
}

/// The V1 transcription finds the fields its lists name in the tables once, when first used
/// (a name a layout lacks is a part that layout does not have): every name listed must be a
/// row of some table, or it would be silently read as absent.
#[test]
fn every_name_the_v1_transcription_lists_is_a_row() {
    use descriptor::tic::{TEXHEAD_V2_BL, TEXHEAD_V2_PITCH};
    use descriptor::tic_v1::{texhead_bl, texhead_pitch, DROPPED, SPLITS};
    let v1 = [texhead_bl(), texhead_pitch()];
    let v2 = [TEXHEAD_V2_BL, TEXHEAD_V2_PITCH];
    let in_any = |tables: &[&[descriptor::DescField]], name: &str| {
        tables.iter().any(|t| descriptor::field(t, name).is_some())
    };
    for s in SPLITS {
        assert!(in_any(&v2, s.v2), "{}", s.v2);
        for part in s.v1 {
            assert!(in_any(&v1, part), "{part}");
        }
    }
    for name in DROPPED {
        assert!(in_any(&v1, name), "{name}");
    }
}

/// Raw bits `hi:lo` of an entry, read without the crate's tables.
fn bits(w: &[u32; 8], hi: u32, lo: u32) -> u64 {
    let mut v = 0u64;
    for b in (lo..=hi).rev() {
        v = v << 1 | ((w[(b / 32) as usize] >> (b % 32)) & 1) as u64;
    }
    v
}

fn header(
    layout: HeaderLayout,
    kind: TextureKind,
    format: Format,
    w: u32,
    h: u32,
    d: u32,
) -> TextureHeader {
    TextureHeader {
        layout,
        address: 0x1_2345_6000,
        kind,
        format,
        width: w,
        height: h,
        depth: d,
        swizzle: Swizzle::IDENTITY,
        normalized_coords: true,
        depth_texture: false,
        border_from_sampler: true,
        words: [0; 8],
    }
}

#[test]
fn v1_classes_place_split_fields_where_clc597tex_h_says() {
    let bl = HeaderLayout::BlockLinear {
        gobs_per_block_height_log2: 2,
    };
    // height 0x12345 (height - 1 = 0x12344), depth 0x4322 layers (depth - 1 = 0x4321)
    let h = header(
        bl,
        TextureKind::Tex2DArray,
        Format::Rg16Sint,
        17,
        0x12345,
        0x4322,
    );
    for c in [TuringA, AmpereA, AmpereB, AdaA] {
        let w = ClassDescriptors::new(c).encode_tic(&h).unwrap();
        assert_eq!(bits(&w, 175, 160), 0x2344, "{c}: HEIGHT_MINUS_ONE");
        assert_eq!(bits(&w, 146, 146), 1, "{c}: HEIGHT_MINUS_ONE_BIT16");
        assert_eq!(bits(&w, 189, 176), 0x0321, "{c}: DEPTH_MINUS_ONE");
        assert_eq!(bits(&w, 145, 145), 1, "{c}: DEPTH_MINUS_ONE_BIT14");
        assert_eq!(bits(&w, 87, 85), 3, "{c}: HEADER_VERSION BLOCKLINEAR");
        assert_eq!(
            bits(&w, 63, 41),
            0x1_2345_6000 >> 9 & 0x7f_ffff,
            "{c}: ADDRESS_BITS31TO9"
        );
        assert_eq!(bits(&w, 80, 64), 1, "{c}: ADDRESS_BITS48TO32");
        assert_eq!(bits(&w, 101, 99), 2, "{c}: GOBS_PER_BLOCK_HEIGHT");
        // NUM_SINT (3) for every component; G16R16 is 0x0c
        for (hi, lo) in [(9, 7), (12, 10), (15, 13), (18, 16)] {
            assert_eq!(bits(&w, hi, lo), 3, "{c}: data type at {hi}:{lo}");
        }
        assert_eq!(bits(&w, 6, 0), 0x0c, "{c}: COMPONENTS");
        assert_eq!(bits(&w, 154, 151), 5, "{c}: TEXTURE_TYPE TWO_D_ARRAY");
        assert_eq!(
            bits(&w, 159, 157),
            7,
            "{c}: BORDER_SIZE BORDER_SAMPLER_COLOR"
        );
        assert_eq!(bits(&w, 191, 191), 1, "{c}: NORMALIZED_COORDS");
        // IN_R 2, IN_G 3, IN_B 4, IN_A 5
        for (k, lo) in [19u32, 22, 25, 28].into_iter().enumerate() {
            assert_eq!(bits(&w, lo + 2, lo), k as u64 + 2, "{c}: source {k}");
        }
    }
    // pitch 0x20_0040 bytes: bits 20:5 and bit 21
    let p = header(
        HeaderLayout::Pitch { pitch: 0x20_0040 },
        TextureKind::Tex2D,
        Format::R32Float,
        5,
        3,
        1,
    );
    let w = ClassDescriptors::new(TuringA).encode_tic(&p).unwrap();
    assert_eq!(bits(&w, 111, 96), 0x0002, "PITCH_BITS20TO5");
    assert_eq!(bits(&w, 145, 145), 1, "PITCH_BIT21");
    assert_eq!(bits(&w, 87, 85), 2, "HEADER_VERSION PITCH");
    assert_eq!(
        bits(&w, 63, 37),
        0x1_2345_6000 >> 5 & 0x7ff_ffff,
        "ADDRESS_BITS31TO5"
    );
    // the same header in V2 (HOPPER_A's default, BLACKWELL_A/B)
    for c in V2_CLASSES {
        let w = ClassDescriptors::new(*c).encode_tic(&p).unwrap();
        assert_eq!(bits(&w, 80, 64), 0x20_0040 >> 5, "{c}: PITCH_BITS21TO5");
        assert_eq!(bits(&w, 127, 124), 2, "{c}: HEADER_VERSION PITCH_V2");
    }
}

fn kinds_for(layout_is_pitch: bool) -> Vec<TextureKind> {
    if layout_is_pitch {
        vec![TextureKind::Tex2D]
    } else {
        vec![
            TextureKind::Tex2D,
            TextureKind::Tex2DArray,
            TextureKind::Cube,
            TextureKind::CubeArray,
        ]
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// For every class and layout: header -> words -> header gives the same typed header,
    /// and the words re-encode to themselves.
    #[test]
    fn every_class_round_trips_texture_headers(
        class in 0usize..7, alt in any::<bool>(), pitch in any::<bool>(), fi in 0usize..FORMATS.len(),
        ki in 0usize..4, w in 1u32..70_000, h in 1u32..70_000, d in 1u32..20_000, k in 0u8..6,
        addr in 0u64..(1 << 40), srgb_swz in 0usize..4,
    ) {
        let c = GpuClass::ALL[class];
        let fmts = c.header_formats();
        let fmt = fmts[usize::from(alt) % fmts.len()];
        let cd = ClassDescriptors::with_format(c, fmt).unwrap();
        let format = FORMATS[fi].0;
        let bpt = format.texel_bytes();
        prop_assume!(pitch || bpt >= 4);
        let kinds = kinds_for(pitch);
        let kind = kinds[ki % kinds.len()];
        let (w, h) = if kind.is_cube() { (w.min(h), w.min(h)) } else { (w, h) };
        let (w, h) = (w.min(65_536), h.min(65_536));
        let depth = if kind.is_array() { d } else { 1 };
        let layout = if pitch {
            HeaderLayout::Pitch { pitch: (w * bpt).next_multiple_of(32).min(0x3f_ffe0) }
        } else {
            HeaderLayout::BlockLinear { gobs_per_block_height_log2: k }
        };
        prop_assume!(match layout { HeaderLayout::Pitch { pitch } => pitch >= w * bpt, _ => true });
        let mut hd = header(layout, kind, format, w, h, depth);
        hd.address = addr & !511;
        hd.swizzle = [Swizzle::IDENTITY, Swizzle([Source::B, Source::G, Source::R, Source::One]),
            Swizzle([Source::R, Source::Zero, Source::Zero, Source::One]), Swizzle([Source::A; 4])][srgb_swz];
        let words = cd.encode_tic(&hd).unwrap();
        let back = cd.decode_tic(&words).unwrap();
        prop_assert_eq!(TextureHeader { words: back.words, ..hd }, back);
        prop_assert_eq!(cd.encode_tic(&back).unwrap(), words);
        // Every class's reading of the same texture is the same typed header.
        let v2 = ClassDescriptors::new(BlackwellA).decode_tic(&ClassDescriptors::new(BlackwellA).encode_tic(&hd).unwrap()).unwrap();
        prop_assert_eq!(TextureHeader { words: back.words, ..v2 }, back);
    }

    /// Any word a class reads, a valid header with random bits flipped included, decodes
    /// without panicking; what decodes re-encodes to words that decode to the same header.
    #[test]
    fn flipped_headers_decode_or_name_a_field(
        class in 0usize..7, pitch in any::<bool>(), flips in proptest::collection::vec(0u32..256, 0..4),
    ) {
        let c = GpuClass::ALL[class];
        for &fmt in c.header_formats() {
            let cd = ClassDescriptors::with_format(c, fmt).unwrap();
            let layout = if pitch { HeaderLayout::Pitch { pitch: 256 } } else { HeaderLayout::BlockLinear { gobs_per_block_height_log2: 1 } };
            let mut w = cd.encode_tic(&header(layout, TextureKind::Tex2D, Format::Rgba16Float, 20, 9, 1)).unwrap();
            for &b in &flips {
                w[(b / 32) as usize] ^= 1 << (b % 32);
            }
            if let Ok(h) = cd.decode_tic(&w) {
                let again = cd.encode_tic(&h).unwrap();
                let h2 = cd.decode_tic(&again).unwrap();
                prop_assert_eq!(TextureHeader { words: h2.words, ..h }, h2);
            }
        }
    }

    /// Samplers: words -> state -> words is exact in every class.
    #[test]
    fn every_class_round_trips_samplers(class in 0usize..7, words in proptest::array::uniform8(any::<u32>())) {
        let cd = ClassDescriptors::new(GpuClass::ALL[class]);
        prop_assert_eq!(cd.encode_tsc(&cd.decode_tsc(&words)), words);
        prop_assert_eq!(cd.tsc_field(&words, "ADDRESS_V"), Some(bits(&words, 5, 3)));
    }
}

#[test]
fn a_class_not_restated_is_a_typed_error_naming_it() {
    let e = GpuClass::from_name("VOLTA_A").unwrap_err();
    assert_eq!(
        e,
        ClassError::NotRestated {
            class: "VOLTA_A",
            header: "clc397tex.h"
        }
    );
    assert!(e.to_string().contains("VOLTA_A"));
    assert_eq!(
        GpuClass::from_id(0xb197).unwrap_err(),
        ClassError::NotRestated {
            class: "MAXWELL_B",
            header: "clb197tex.h"
        }
    );
    assert!(matches!(
        GpuClass::from_name("RUBIN_A"),
        Err(ClassError::Unknown { .. })
    ));
    assert!(matches!(
        GpuClass::from_id(0x1234),
        Err(ClassError::Unknown { .. })
    ));
    assert_eq!(GpuClass::from_name("hopper_a").unwrap(), HopperA);
    assert_eq!(GpuClass::from_id(0xce97).unwrap(), BlackwellB);
    assert!(matches!(
        ClassDescriptors::with_format(AdaA, HeaderFormat::V2),
        Err(ClassError::NoSuchFormat { class: "ADA_A", .. })
    ));
}

#[test]
fn architectures_map_to_the_readme_classes() {
    // (architecture, class) restated from docs/sources.md, Descriptors per GPU class
    let want = [
        ("sm_75", TuringA),
        ("sm_80", AmpereA),
        ("sm_86", AmpereB),
        ("sm_87", AmpereB),
        ("sm_89", AdaA),
        ("sm_90", HopperA),
        ("sm_90a", HopperA),
        ("SM90a", HopperA),
        ("sm_100", BlackwellA),
        ("sm_100a", BlackwellA),
        ("sm_100f", BlackwellA),
        ("sm_101", BlackwellA),
        ("sm_103f", BlackwellA),
        ("sm_110", BlackwellA),
        ("sm_120", BlackwellB),
        ("sm_121a", BlackwellB),
    ];
    for (arch, class) in want {
        assert_eq!(GpuClass::for_arch(arch).unwrap(), class, "{arch}");
    }
    for arch in ["sm_88", "sm_107", "sm_107a", "sm_70", "gfx90a"] {
        let e = GpuClass::for_arch(arch).unwrap_err();
        assert!(
            matches!(&e, ClassError::NoClassForArch { arch: a, .. } if a == arch),
            "{arch}"
        );
    }
    assert_eq!(ARCH_CLASSES.len(), 12);
}

fn v1_words() -> [u32; 8] {
    let h = header(
        HeaderLayout::BlockLinear {
            gobs_per_block_height_log2: 1,
        },
        TextureKind::Tex2D,
        Format::Rgba8Unorm,
        16,
        16,
        1,
    );
    ClassDescriptors::new(AdaA).encode_tic(&h).unwrap()
}

/// Set raw bits `hi:lo` (test-side, without the tables).
fn set(w: &mut [u32; 8], hi: u32, lo: u32, v: u64) {
    for b in lo..=hi {
        let bit = (v >> (b - lo)) & 1;
        let (i, s) = ((b / 32) as usize, b % 32);
        w[i] = (w[i] & !(1 << s)) | ((bit as u32) << s);
    }
}

fn expect(w: [u32; 8], field: &str, not_modeled: bool) {
    let e = ClassDescriptors::new(AmpereB).decode_tic(&w).unwrap_err();
    match e {
        DescriptorError::Invalid { field: f, .. } => {
            assert_eq!(f, field);
            assert!(!not_modeled, "{field}: invalid, expected not modeled");
        }
        DescriptorError::NotModeled { field: f, .. } => {
            assert_eq!(f, field);
            assert!(not_modeled, "{field}: not modeled, expected invalid");
        }
    }
}

#[test]
fn v1_headers_the_texture_unit_does_not_model_name_v1_fields() {
    let base = v1_words();
    assert!(ClassDescriptors::new(AmpereB).decode_tic(&base).is_ok());
    let cases: [(u32, u32, u64, &str, bool); 8] = [
        (159, 157, 0, "BORDER_SIZE", true), // BORDER_SIZE_ONE: a texture border
        (159, 157, 5, "BORDER_SIZE", false), // undefined
        (9, 7, 6, "R_DATA_TYPE", true),     // NUM_UNORM_FORCE_FP16
        (9, 7, 0, "R_DATA_TYPE", false),    // undefined
        (12, 10, 3, "G_DATA_TYPE", true),   // G typed SINT under UNORM R
        (87, 85, 0, "HEADER_VERSION", true), // SELECT_ONE_D_BUFFER
        (87, 85, 6, "HEADER_VERSION", false), // undefined
        (154, 151, 2, "TEXTURE_TYPE", true), // THREE_D
    ];
    for (hi, lo, v, field, nm) in cases {
        let mut w = base;
        set(&mut w, hi, lo, v);
        expect(w, field, nm);
    }
    // NORMALIZED_COORDS (V1 bit 191) clear is modeled: unnormalized coordinates
    // (docs/sources.md, Unnormalized coordinates), and encodes back at bit 191
    let mut w = base;
    set(&mut w, 191, 191, 0);
    let h = ClassDescriptors::new(AmpereB).decode_tic(&w).unwrap();
    assert!(!h.normalized_coords);
    assert_eq!(ClassDescriptors::new(AmpereB).encode_tic(&h).unwrap(), w);
    // An address at or above 2^49 does not fit TEXHEAD_BL's ADDRESS_BITS48TO32.
    let mut h = ClassDescriptors::new(AdaA).decode_tic(&base).unwrap();
    h.address = 1 << 49;
    let e = ClassDescriptors::new(AdaA).encode_tic(&h).unwrap_err();
    assert!(
        matches!(
            e,
            DescriptorError::Invalid {
                field: "ADDRESS_BITS48TO32",
                ..
            }
        ),
        "{e}"
    );
    assert!(ClassDescriptors::new(HopperA).encode_tic(&h).is_ok());
}

#[test]
fn v1_fields_without_a_typed_member_are_carried_or_dropped_as_documented() {
    let ada = ClassDescriptors::new(AdaA);
    // block-linear: USE_HEADER_OPT_CONTROL (bit 122) and MIN_LOD_CLAMP (247:236) are carried;
    // RESOURCE_VIEW_COHERENCY_HASH (92:89) is dropped.
    let mut w = v1_words();
    set(&mut w, 122, 122, 1);
    set(&mut w, 247, 236, 0x5a5);
    set(&mut w, 92, 89, 0xa);
    let h = ada.decode_tic(&w).unwrap();
    assert_eq!(h.field("USE_HEADER_OPT_CONTROL"), Some(1));
    let again = ada.encode_tic(&h).unwrap();
    assert_eq!(bits(&again, 122, 122), 1);
    assert_eq!(bits(&again, 247, 236), 0x5a5);
    assert_eq!(bits(&again, 92, 89), 0);
    // pitch: V2's pitch layout has no USE_HEADER_OPT_CONTROL: dropped; a depth is refused.
    let p = header(
        HeaderLayout::Pitch { pitch: 64 },
        TextureKind::Tex2D,
        Format::R32Float,
        4,
        4,
        1,
    );
    let mut w = ada.encode_tic(&p).unwrap();
    set(&mut w, 122, 122, 1);
    let again = ada.encode_tic(&ada.decode_tic(&w).unwrap()).unwrap();
    assert_eq!(bits(&again, 122, 122), 0);
    set(&mut w, 189, 176, 2);
    let e = ada.decode_tic(&w).unwrap_err();
    assert!(
        matches!(
            e,
            DescriptorError::NotModeled {
                field: "DEPTH_MINUS_ONE",
                value: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn hoppers_two_layouts_describe_the_same_texture() {
    let h = header(
        HeaderLayout::BlockLinear {
            gobs_per_block_height_log2: 3,
        },
        TextureKind::CubeArray,
        Format::D24UnormS8Uint,
        64,
        64,
        3,
    );
    let v1 = ClassDescriptors::with_format(HopperA, HeaderFormat::V1).unwrap();
    let v2 = ClassDescriptors::new(HopperA);
    assert_eq!(v2.format, HeaderFormat::V2);
    let (w1, w2) = (v1.encode_tic(&h).unwrap(), v2.encode_tic(&h).unwrap());
    assert_ne!(w1, w2);
    // S8Z24: R (depth) NUM_UNORM 2, G (stencil) NUM_UINT 4, as NIL's format table writes it
    assert_eq!([bits(&w1, 9, 7), bits(&w1, 12, 10)], [2, 4]);
    let (a, b) = (v1.decode_tic(&w1).unwrap(), v2.decode_tic(&w2).unwrap());
    assert_eq!(
        TextureHeader {
            words: b.words,
            ..a
        },
        b
    );
    assert_eq!(v1.tic_field(&w1, "BORDER_SIZE"), Some(7));
    assert_eq!(v2.tic_field(&w2, "BORDER_SOURCE"), Some(1));
}

#[test]
fn a_memory_pool_reads_descriptors_as_its_class_does() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 8,
        height: 8,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [x * 16, y * 16, x + y, 255]).unwrap();
    let smp = Sampler::with_address(AddressMode::Repeat);
    for layout in [
        LayoutChoice::Pitch { row_alignment: 64 },
        LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: 0,
        },
    ] {
        let img = pool_image(&[(&tex, &smp, layout)], 0x8000_0000).unwrap();
        let v2_pool = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool);
        let (hd, _) = v2_pool.resolve(Handle(0)).unwrap();
        // the same image with TURING_A's header in the header pool
        let turing = ClassDescriptors::new(TuringA);
        let v1 = turing.encode_tic(&hd).unwrap();
        let mut mem = SparseMemory::new();
        for (base, bytes) in img.memory.regions() {
            let bytes = if base == img.header_pool {
                v1.iter().flat_map(|w| w.to_le_bytes()).collect()
            } else {
                bytes.to_vec()
            };
            mem.map(base, bytes).unwrap();
        }
        let v1_pool =
            MemoryPool::new(&mem, img.header_pool, img.sampler_pool).with_descriptors(turing);
        let op = GatherOp::new(TextureKind::Tex2D, 1);
        for q in [GatherQuery::at(0.3, 0.7), GatherQuery::at(-0.1, 1.2)] {
            let a = v2_pool
                .gatherer(Handle(0), &op, Precision::default())
                .unwrap()
                .gather(&q)
                .unwrap();
            let b = v1_pool
                .gatherer(Handle(0), &op, Precision::default())
                .unwrap()
                .gather(&q)
                .unwrap();
            assert_eq!(a, b);
        }
        // Read as BLACKWELL_A, TURING_A's header is no texture the unit models.
        let wrong = MemoryPool::new(&mem, img.header_pool, img.sampler_pool);
        assert!(wrong.resolve(Handle(0)).is_err());
    }
}
