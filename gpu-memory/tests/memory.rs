//! Texture headers, samplers, texel layouts and texel addresses of the memory-backed path.
//!
//! Descriptors are built here field by field (`word |= value << bit`) from clcd97tex.h's
//! names and bit numbers, independently of the crate's tables; the block-linear address is
//! checked against a second implementation written from the published formula (GOB bit
//! order table, block index arithmetic) and against hand-derived addresses.

use proptest::prelude::*;
use tld4_gpu_memory::descriptor::tic::{TEXHEAD_V2_BL, TEXHEAD_V2_PITCH};
use tld4_gpu_memory::descriptor::tsc::TEXSAMP;
use tld4_gpu_memory::descriptor::DescField;
use tld4_gpu_memory::*;
use tld4_textures::layout::Layout;
use tld4_textures::*;

/// `word |= value << bit` over the 256-bit entry (the test's fields never straddle words).
fn put(w: &mut [u32; 8], lo: u32, value: u64) {
    assert!(
        value << (lo % 32) <= u32::MAX as u64,
        "field at {lo} straddles a word"
    );
    w[(lo / 32) as usize] |= (value << (lo % 32)) as u32;
}

// clcd97tex.h, TEXHEAD_V2_BL / TEXHEAD_V2_PITCH (low bit of each field)
const ADDRESS_BITS31TO9: u32 = 9;
const ADDRESS_BITS31TO5: u32 = 5;
const ADDRESS_BITS56TO32: u32 = 32;
const PITCH_BITS21TO5: u32 = 64;
const GOBS_PER_BLOCK_HEIGHT: u32 = 67;
const LOD_ISO_QUALITY_PITCH: u32 = 83;
const DEPTH_TEXTURE: u32 = 91;
const X_SOURCE: u32 = 96;
const Y_SOURCE: u32 = 99;
const Z_SOURCE: u32 = 102;
const W_SOURCE: u32 = 105;
const DATA_TYPE: u32 = 108;
const COMPONENTS: u32 = 112;
const HEADER_VERSION: u32 = 124;
const WIDTH_MINUS_ONE: u32 = 128;
const NORMALIZED_COORDS: u32 = 145;
const S_R_G_B_CONVERSION: u32 = 149;
const TEXTURE_TYPE: u32 = 150;
const BORDER_SOURCE: u32 = 156;
const HEIGHT_MINUS_ONE: u32 = 160;
const DEPTH_MINUS_ONE: u32 = 177;
const TRILIN_OPT: u32 = 193;
const MAX_ANISOTROPY: u32 = 219;

fn bl_array_header(address: u64) -> [u32; 8] {
    let mut w = [0u32; 8];
    put(&mut w, ADDRESS_BITS31TO9, (address & 0xffff_ffff) >> 9);
    put(&mut w, ADDRESS_BITS56TO32, address >> 32);
    put(&mut w, GOBS_PER_BLOCK_HEIGHT, 4); // SIXTEEN_GOBS
    put(&mut w, X_SOURCE, 4); // IN_B
    put(&mut w, Y_SOURCE, 3); // IN_G
    put(&mut w, Z_SOURCE, 2); // IN_R
    put(&mut w, W_SOURCE, 7); // IN_ONE_FLOAT
    put(&mut w, DATA_TYPE, 0); // UNORM
    put(&mut w, COMPONENTS, 0x08); // A8B8G8R8
    put(&mut w, HEADER_VERSION, 3); // SELECT_BLOCKLINEAR_V2
    put(&mut w, WIDTH_MINUS_ONE, 99);
    put(&mut w, NORMALIZED_COORDS, 1);
    put(&mut w, TEXTURE_TYPE, 5); // TWO_D_ARRAY
    put(&mut w, BORDER_SOURCE, 1); // BORDER_COLOR
    put(&mut w, HEIGHT_MINUS_ONE, 49);
    put(&mut w, DEPTH_MINUS_ONE, 6);
    put(&mut w, TRILIN_OPT, 0x15);
    put(&mut w, MAX_ANISOTROPY, 5);
    w
}

#[test]
fn a_block_linear_header_built_field_by_field_decodes() {
    let address = 0x12_3456_7a00;
    let w = bl_array_header(address);
    let h = TextureHeader::decode(&w).unwrap();
    assert_eq!(
        h.layout,
        HeaderLayout::BlockLinear {
            gobs_per_block_height_log2: 4
        }
    );
    assert_eq!(h.address, address);
    assert_eq!(h.kind, TextureKind::Tex2DArray);
    assert_eq!(h.format, Format::Rgba8Unorm);
    assert_eq!((h.width, h.height, h.depth), (100, 50, 7));
    assert_eq!(
        h.swizzle,
        Swizzle([Source::B, Source::G, Source::R, Source::One])
    );
    assert!(h.normalized_coords && h.border_from_sampler && !h.depth_texture);
    assert_eq!(h.field("TRILIN_OPT"), Some(0x15));
    assert_eq!(h.field("MAX_ANISOTROPY"), Some(5));
    assert_eq!(h.encode().unwrap(), w);
}

#[test]
fn a_pitch_header_built_field_by_field_decodes() {
    let address = 0x4_0000_0020;
    let mut w = [0u32; 8];
    put(&mut w, ADDRESS_BITS31TO5, (address & 0xffff_ffff) >> 5);
    put(&mut w, ADDRESS_BITS56TO32, address >> 32);
    put(&mut w, PITCH_BITS21TO5, 416 >> 5);
    put(&mut w, LOD_ISO_QUALITY_PITCH, 1);
    put(&mut w, DEPTH_TEXTURE, 1);
    for (at, v) in [(X_SOURCE, 2), (Y_SOURCE, 3), (Z_SOURCE, 4), (W_SOURCE, 5)] {
        put(&mut w, at, v);
    }
    put(&mut w, DATA_TYPE, 2); // FLOAT
    put(&mut w, COMPONENTS, 0x04); // R32_G32
    put(&mut w, HEADER_VERSION, 2); // SELECT_PITCH_V2
    put(&mut w, WIDTH_MINUS_ONE, 49);
    put(&mut w, NORMALIZED_COORDS, 1);
    put(&mut w, TEXTURE_TYPE, 1); // TWO_D
    put(&mut w, BORDER_SOURCE, 1);
    put(&mut w, HEIGHT_MINUS_ONE, 2);
    let h = TextureHeader::decode(&w).unwrap();
    assert_eq!(h.layout, HeaderLayout::Pitch { pitch: 416 });
    assert_eq!(h.address, address);
    assert_eq!((h.kind, h.format), (TextureKind::Tex2D, Format::Rg32Float));
    assert_eq!((h.width, h.height, h.depth), (50, 3, 1));
    assert_eq!(h.swizzle, Swizzle::IDENTITY);
    assert!(h.depth_texture);
    assert_eq!(h.field("LOD_ISO_QUALITY"), Some(1));
    assert_eq!(h.encode().unwrap(), w);
    // texel (x, y) at address + y * pitch + x * 8
    assert_eq!(
        tld4_gpu_memory::layout_of(&h).texel_address(0, 7, 2),
        address + 2 * 416 + 7 * 8
    );
}

#[test]
fn an_srgb_header_is_rgba8_srgb_and_depth_formats_map() {
    let mut w = bl_array_header(0x2000);
    put(&mut w, S_R_G_B_CONVERSION, 1);
    assert_eq!(TextureHeader::decode(&w).unwrap().format, Format::Rgba8Srgb);
    // ZF32 FLOAT, S8Z24 UNORM (depth in bits 23:0)
    for (comps, dt, f) in [
        (0x2f, 2, Format::D32Float),
        (0x2b, 0, Format::D24UnormS8Uint),
    ] {
        let mut w = bl_array_header(0x2000);
        w[3] &= !(0x7f << 16 | 0xf << 12);
        put(&mut w, COMPONENTS, comps);
        put(&mut w, DATA_TYPE, dt);
        assert_eq!(TextureHeader::decode(&w).unwrap().format, f);
    }
}

#[test]
fn a_sampler_built_field_by_field_decodes() {
    let mut w = [0u32; 8];
    put(&mut w, 0, 5); // ADDRESS_U MIRROR_ONCE_CLAMP_TO_EDGE
    put(&mut w, 3, 3); // ADDRESS_V BORDER
    put(&mut w, 6, 4); // ADDRESS_P CLAMP_OGL (a 2-D gather ignores p)
    put(&mut w, 9, 1); // DEPTH_COMPARE
    put(&mut w, 10, 6); // DEPTH_COMPARE_FUNC ZC_GEQUAL
    put(&mut w, 14, 0x3f); // NVK's font filter bits, unnamed in clcd97tex.h
    put(&mut w, 32, 2); // MAG_FILTER MAG_LINEAR
    put(&mut w, 36, 2); // MIN_FILTER MIN_LINEAR
    put(&mut w, 38, 1); // MIP_FILTER MIP_NONE
    put(&mut w, 40, 2); // CUBEMAP_INTERFACE_FILTERING AUTO_SPAN_SEAM
    w[4] = 0x3f80_0000; // BORDER_COLOR_R
    w[6] = 0x3e80_0000; // BORDER_COLOR_B
    w[7] = 7; // BORDER_COLOR_A
    let st = SamplerState::decode(&w);
    assert_eq!(st.filters, [2, 2, 1]);
    assert_eq!(st.field("FONT_FILTER"), Some(0x3f));
    assert_eq!(
        st.sampler().unwrap(),
        Sampler {
            address_u: AddressMode::MirrorClampToEdge,
            address_v: AddressMode::ClampToBorder,
            border: BorderColor {
                words: [0x3f80_0000, 0, 0x3e80_0000, 7]
            },
            compare: Some(CompareOp::GreaterOrEqual),
            seamless_cube: true,
            normalized_coords: true,
        }
    );
    assert_eq!(st.encode(), w);
    // USE_WRAP: not seamless
    let mut w2 = w;
    w2[1] &= !(3 << 8);
    assert!(!SamplerState::decode(&w2).sampler().unwrap().seamless_cube);
}

fn covers_256_bits(table: &[DescField]) {
    let mut seen = [false; 256];
    for f in table {
        assert!(
            f.width() <= 32 && f.lo % 32 + f.width() as u16 <= 64,
            "{}",
            f.name
        );
        for b in f.lo..=f.hi {
            assert!(!seen[b as usize], "{} overlaps at bit {b}", f.name);
            seen[b as usize] = true;
        }
    }
    let missing: Vec<usize> = (0..256).filter(|&b| !seen[b]).collect();
    assert!(missing.is_empty(), "bits not in the table: {missing:?}");
}

#[test]
fn each_table_names_every_bit_once() {
    covers_256_bits(TEXHEAD_V2_BL);
    covers_256_bits(TEXHEAD_V2_PITCH);
    covers_256_bits(TEXSAMP);
}

#[test]
fn the_format_table_names_every_format_once() {
    let table = descriptor::tic::FORMATS;
    for f in Format::ALL {
        assert_eq!(table.iter().filter(|r| r.0 == f).count(), 1, "{f:?}");
    }
    for (i, a) in table.iter().enumerate() {
        for b in &table[i + 1..] {
            assert!((a.1, a.2, a.3) != (b.1, b.2, b.3), "{a:?} and {b:?}");
        }
    }
}

/// Fields to overwrite: (low bit, width, value).
type Changes<'a> = &'a [(u32, u32, u64)];

/// (low bit, width, value) to overwrite, and the field the error must name.
fn refused(changes: &[(u32, u32, u64)]) -> DescriptorError {
    let mut w = bl_array_header(0x1_0000);
    for &(lo, width, v) in changes {
        w[(lo / 32) as usize] &= !((((1u64 << width) - 1) << (lo % 32)) as u32);
        put(&mut w, lo, v);
    }
    TextureHeader::decode(&w).unwrap_err()
}

fn named(e: &DescriptorError) -> (&'static str, bool) {
    match e {
        DescriptorError::Invalid { field, .. } => (field, false),
        DescriptorError::NotModeled { field, .. } => (field, true),
    }
}

#[test]
fn unmodeled_and_illegal_headers_are_typed_errors_naming_the_field() {
    let cases: &[(Changes, &str, bool)] = &[
        (&[(HEADER_VERSION, 4, 4)], "HEADER_VERSION", true), // BLOCKLINEAR_COLOR_KEY_V2
        (&[(HEADER_VERSION, 4, 1)], "HEADER_VERSION", true), // PITCH_COLOR_KEY_V2
        (&[(HEADER_VERSION, 4, 5)], "HEADER_VERSION", true), // ONE_D_RAW_TYPED
        (&[(HEADER_VERSION, 4, 0)], "HEADER_VERSION", false),
        (&[(TEXTURE_TYPE, 4, 2)], "TEXTURE_TYPE", true), // THREE_D
        (&[(TEXTURE_TYPE, 4, 0)], "TEXTURE_TYPE", true), // ONE_D
        (&[(TEXTURE_TYPE, 4, 9)], "TEXTURE_TYPE", false),
        (&[(COMPONENTS, 7, 0x24)], "COMPONENTS", true), // DXT1
        (&[(COMPONENTS, 7, 0x1d)], "COMPONENTS", true), // R8 block-linear: 1-byte texels
        (&[(COMPONENTS, 7, 0x3a)], "COMPONENTS", true), // Z16 block-linear: 2-byte texels
        (&[(DATA_TYPE, 4, 0xb)], "DATA_TYPE", false),
        (&[(DATA_TYPE, 4, 8)], "DATA_TYPE", true), // ZS
        (&[(X_SOURCE, 3, 1)], "X_SOURCE", false),
        (&[(W_SOURCE, 3, 6)], "W_SOURCE", true), // IN_ONE_INT on a UNORM format
        (
            &[(GOBS_PER_BLOCK_HEIGHT, 3, 6)],
            "GOBS_PER_BLOCK_HEIGHT",
            false,
        ),
        (&[(64, 3, 1)], "GOBS_PER_BLOCK_WIDTH", true),
        (&[(77, 1, 1)], "GOB3D", true),
        (&[(74, 3, 1)], "TILE_WIDTH_IN_GOBS", true),
        (&[(232, 4, 2)], "MULTI_SAMPLE_COUNT", true),
        (&[(224, 4, 1)], "RES_VIEW_MIN_MIP_LEVEL", true),
        (&[(92, 4, 3)], "MAX_MIP_LEVEL", true), // mipmapped array
        (&[(BORDER_SOURCE, 1, 0)], "BORDER_SOURCE", true),
        (&[(TEXTURE_TYPE, 4, 1)], "DEPTH_MINUS_ONE", false), // 2D with 7 layers
        // 2 x 131072: the height passes the model's 65536, and the error names it
        (&[(128, 17, 1), (160, 17, 131071)], "HEIGHT_MINUS_ONE", true),
        (&[(128, 17, 131071), (160, 17, 1)], "WIDTH_MINUS_ONE", true),
        (
            &[(S_R_G_B_CONVERSION, 1, 1), (DATA_TYPE, 4, 1)],
            "S_R_G_B_CONVERSION",
            true,
        ),
    ];
    for &(changes, field, not_modeled) in cases {
        let e = refused(changes);
        assert_eq!(named(&e), (field, not_modeled), "{changes:?}: {e}");
        assert!(e.to_string().contains(field), "{e}");
    }
    // NORMALIZED_COORDS clear is modeled: unnormalized coordinates (docs/sources.md,
    // Unnormalized coordinates), and encodes back
    let mut w = bl_array_header(0x1_0000);
    w[(NORMALIZED_COORDS / 32) as usize] &= !(1 << (NORMALIZED_COORDS % 32));
    let h = TextureHeader::decode(&w).unwrap();
    assert!(!h.normalized_coords);
    assert_eq!(h.encode().unwrap(), w);
    // a misaligned block-linear address cannot be encoded
    let mut h = TextureHeader::decode(&bl_array_header(0x1_0000)).unwrap();
    h.address += 32;
    assert_eq!(
        named(&h.encode().unwrap_err()),
        ("ADDRESS_BITS31TO9", false)
    );
}

#[test]
fn unmodeled_samplers_are_typed_errors_naming_the_field() {
    let base = SamplerState::from_sampler(&Sampler::default()).words;
    let cases: &[(usize, u32, u32, &str)] = &[
        (0, 0, 4, "ADDRESS_U"), // CLAMP_OGL
        (0, 3, 6, "ADDRESS_V"), // MIRROR_ONCE_BORDER
        (0, 0, 7, "ADDRESS_U"), // MIRROR_ONCE_CLAMP_OGL
        (1, 8, 1, "CUBEMAP_INTERFACE_FILTERING"),
        (1, 8, 3, "CUBEMAP_INTERFACE_FILTERING"),
        (0, 31, 1, "FORCED_INVALID"),
        (1, 10, 1, "REDUCTION_FILTER"),
    ];
    for &(word, bit, v, field) in cases {
        let mut w = base;
        let width = if field.starts_with("ADDRESS") || field == "CUBEMAP_INTERFACE_FILTERING" {
            if field.starts_with("ADDRESS") {
                3
            } else {
                2
            }
        } else {
            1
        };
        w[word] &= !(((1u32 << width) - 1) << bit);
        w[word] |= v << bit;
        let e = SamplerState::decode(&w).sampler().unwrap_err();
        assert_eq!(named(&e), (field, true), "{e}");
    }
    // FLOAT_COORD_NORMALIZATION = FORCE_UNNORMALIZED_COORDS is modeled (docs/sources.md,
    // Unnormalized coordinates)
    let mut w = base;
    w[1] |= 1 << 25;
    let state = SamplerState::decode(&w);
    assert!(state.force_unnormalized_coords);
    assert!(!state.sampler().unwrap().normalized_coords);
    assert_eq!(state.encode(), w);
}

fn format_strategy(four_bytes_or_more: bool) -> impl Strategy<Value = Format> {
    let all: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|&f| !four_bytes_or_more || f.texel_bytes() >= 4)
        .collect();
    proptest::sample::select(all)
}

fn source_strategy() -> impl Strategy<Value = Source> {
    proptest::sample::select(Source::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn headers_round_trip(
        pitch in any::<bool>(),
        kind in proptest::sample::select(vec![TextureKind::Tex2D, TextureKind::Tex2DArray, TextureKind::Cube, TextureKind::CubeArray]),
        f4 in format_strategy(true),
        fany in format_strategy(false),
        w in 1u32..5000, h in 1u32..5000, depth in 1u32..2048,
        k in 0u8..6, addr in 0u64..(1 << 48), pad in 0u32..64,
        swz in proptest::array::uniform4(source_strategy()),
        kept in proptest::array::uniform4(any::<u32>()),
    ) {
        let (kind, format, layout, depth, h) = if pitch {
            let pitch = (w * fany.texel_bytes()).next_multiple_of(32) + 32 * pad;
            (TextureKind::Tex2D, fany, HeaderLayout::Pitch { pitch }, 1, h)
        } else {
            let depth = if kind.is_array() { depth } else { 1 };
            let h = if kind.is_cube() { w } else { h };
            (kind, f4, HeaderLayout::BlockLinear { gobs_per_block_height_log2: k }, depth, h)
        };
        let align = if pitch { 32 } else { 512 };
        let mut words = [0u32; 8];
        // fields without a typed member are kept as they are
        for (i, name) in ["TRILIN_OPT", "MIP_LOD_BIAS", "MAX_ANISOTROPY", "MIN_LOD_CLAMP"].into_iter().enumerate() {
            let table = if pitch { TEXHEAD_V2_PITCH } else { TEXHEAD_V2_BL };
            let fd = descriptor::field(table, name).unwrap();
            fd.set(&mut words, kept[i] as u64 & fd.max()).unwrap();
        }
        let header = TextureHeader {
            layout, address: addr / align * align, kind, format, width: w, height: h, depth,
            swizzle: Swizzle(swz), normalized_coords: true, depth_texture: kept[0] & 1 != 0,
            border_from_sampler: true, words,
        };
        let enc = header.encode().unwrap();
        let dec = TextureHeader::decode(&enc).unwrap();
        prop_assert_eq!(TextureHeader { words: enc, ..header }, dec);
        prop_assert_eq!(dec.encode().unwrap(), enc);
    }

    #[test]
    fn sampler_words_round_trip(words in proptest::array::uniform8(any::<u32>())) {
        prop_assert_eq!(SamplerState::decode(&words).encode(), words);
    }

    #[test]
    fn block_linear_addresses_follow_the_published_formula(
        w in 1u32..400, h in 1u32..300, bytes in proptest::sample::select(vec![4u32, 8, 16]),
        k in 0u8..6, fx in 0.0f64..1.0, fy in 0.0f64..1.0, layer in 0u32..3,
    ) {
        let format = match bytes { 4 => Format::R32Float, 8 => Format::Rg32Float, _ => Format::Rgba32Float };
        let header = TextureHeader {
            layout: HeaderLayout::BlockLinear { gobs_per_block_height_log2: k },
            address: 0x10_0000, kind: TextureKind::Tex2DArray, format, width: w, height: h, depth: 3,
            swizzle: Swizzle::IDENTITY, normalized_coords: true, depth_texture: false,
            border_from_sampler: true, words: [0; 8],
        };
        let header = TextureHeader::decode(&header.encode().unwrap()).unwrap();
        let lay = tld4_gpu_memory::layout_of(&header);
        let (x, y) = ((fx * w as f64) as u32, (fy * h as f64) as u32);
        let want = reference::offset(x as u64 * bytes as u64, y as u64, w as u64 * bytes as u64, h as u64, k, layer);
        prop_assert_eq!(lay.texel_address(layer, x, y), 0x10_0000 + want);
        prop_assert_eq!(lay.texel_address(layer, x, y) % bytes as u64, 0);
    }
}

/// A second block-linear implementation, from the published formula: GOB-column/row indices,
/// a block index in row-major order, the block-height clamp as "while the block is at least
/// twice the texture's height in GOBs, halve it", and the in-GOB offset from a table of bit
/// sources (x0 x1 x2 x3 y0 y1 x4 y2 x5, lowest first).
mod reference {
    const ORDER: [(bool, u32); 9] = [
        (true, 0),
        (true, 1),
        (true, 2),
        (true, 3),
        (false, 0),
        (false, 1),
        (true, 4),
        (false, 2),
        (true, 5),
    ];

    pub fn clamp(mut k: u8, height: u64) -> u8 {
        let gobs = height.div_ceil(8);
        while k > 0 && (1u64 << k) >= 2 * gobs {
            k -= 1;
        }
        k
    }

    pub fn offset(xb: u64, y: u64, width_bytes: u64, height: u64, k: u8, layer: u32) -> u64 {
        let k = clamp(k, height) as u32;
        let blocks_across = width_bytes.div_ceil(64);
        let (gx, gy) = (xb / 64, y / 8);
        let block = (gy >> k) * blocks_across + gx;
        let gob_in_block = gy & ((1 << k) - 1);
        let (bx, by) = (xb % 64, y % 8);
        let inner = ORDER.iter().enumerate().fold(0, |acc, (bit, &(is_x, i))| {
            let v = if is_x { bx } else { by };
            acc | ((v >> i) & 1) << bit
        });
        let blocks_down = height.div_ceil(8 << k);
        let layer_bytes = blocks_across * blocks_down * (512 << k);
        layer as u64 * layer_bytes + block * (512 << k) + gob_in_block * 512 + inner
    }
}

fn bl_rgba8(width: u32, height: u32, k: u8) -> Layout {
    let h = TextureHeader {
        layout: HeaderLayout::BlockLinear {
            gobs_per_block_height_log2: k,
        },
        address: 0,
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width,
        height,
        depth: 1,
        swizzle: Swizzle::IDENTITY,
        normalized_coords: true,
        depth_texture: false,
        border_from_sampler: true,
        words: [0; 8],
    };
    tld4_gpu_memory::layout_of(&TextureHeader::decode(&h.encode().unwrap()).unwrap())
}

#[test]
fn block_linear_addresses_at_gob_and_block_corners_by_hand() {
    // RGBA8, 64 texels = 256 bytes = 4 GOBs across, 2 GOBs per block (16 rows), 32 rows
    let lay = bl_rgba8(64, 32, 1);
    let at = |x, y| lay.texel_offset(0, x, y);
    assert_eq!(at(0, 0), 0);
    assert_eq!(at(1, 0), 4); // x bits 0-3
    assert_eq!(at(4, 0), 64); // x4 is offset bit 6
    assert_eq!(at(8, 0), 256); // x5 is offset bit 8
    assert_eq!(at(0, 1), 16); // y0 is bit 4
    assert_eq!(at(0, 2), 32); // y1 is bit 5
    assert_eq!(at(0, 4), 128); // y2 is bit 7
    assert_eq!(at(3, 7), 12 + 16 + 32 + 128);
    assert_eq!(at(16, 0), 1024); // next GOB across: one block (2 GOBs) further
    assert_eq!(at(0, 8), 512); // second GOB of the block
    assert_eq!(at(0, 16), 4096); // next row of blocks: 4 blocks of 1024 bytes
                                 // (63, 23): block column 3 (3072), block row 1 (4096), GOB 0, in-GOB (60, 7) = 12+64+256+176
    assert_eq!(at(63, 23), 3072 + 4096 + 508);
    // the hardware clamps 32 GOBs per block to 1 for an 8-row texture: the next GOB across is 512 on
    let short = bl_rgba8(64, 8, 5);
    assert_eq!(short.texel_offset(0, 16, 0), 512);
    assert_eq!(short.layer_stride, 2048);
}

fn rgba8(kind: TextureKind, w: u32, layers: u32) -> Texture {
    let desc = TextureDesc {
        kind,
        format: Format::Rgba8Unorm,
        width: w,
        height: w,
        layers,
    };
    Texture::from_fn(desc, |l, x, y| [x * 10 + l, y * 10 + l, l, 255]).unwrap()
}

#[test]
fn texel_addresses_mark_border_texels_and_sectors() {
    let tex = rgba8(TextureKind::Tex2D, 8, 1);
    let smp = Sampler::with_address(AddressMode::ClampToBorder);
    let layout = LayoutChoice::BlockLinear {
        gobs_per_block_height_log2: 0,
    };
    let img = pool_image(&[(&tex, &smp, layout)], 0x8000_0000).unwrap();
    let pool = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool);
    let g = pool
        .gatherer(
            Handle(0),
            &GatherOp::new(TextureKind::Tex2D, 0),
            Precision::default(),
        )
        .unwrap();
    let (header, _) = pool.resolve(Handle(0)).unwrap();
    let base = header.address;
    let mut t = LaneTexels::default();
    // u = v = 0: footprint (-1, 0), (0, 0), (0, -1), (-1, -1): one real texel
    let r = g
        .gather_with_addresses(&GatherQuery::at(0.0, 0.0), &mut t)
        .unwrap();
    assert_eq!(
        t.texels,
        [
            TexelAddress::Border,
            TexelAddress::Texel {
                address: base,
                bytes: 4
            },
            TexelAddress::Border,
            TexelAddress::Border
        ]
    );
    assert_eq!(t.sectors(), [Some(base), None, None, None]);
    assert_eq!(r.values[1], 0); // red of texel (0, 0) is 0
                                // an interior footprint, texels (3..4, 3..4): four texels, addresses as the layout says
    let lay = tld4_gpu_memory::layout_of(&header);
    let q = GatherQuery::at(0.5, 0.5);
    g.gather_with_addresses(&q, &mut t).unwrap();
    let want = [(3, 4), (4, 4), (4, 3), (3, 3)].map(|(x, y)| TexelAddress::Texel {
        address: lay.texel_address(0, x, y),
        bytes: 4,
    });
    assert_eq!(t.texels, want);
    // x 3 and 4 differ in bit x4 (offset bit 6), rows 3 and 4 in y2 (bit 7): four sectors
    let sectors = t.sectors();
    assert_eq!(sectors.iter().flatten().count(), 4);
    // plain gather and the addressed one agree
    assert_eq!(
        g.gather(&q).unwrap(),
        g.gather_with_addresses(&q, &mut t).unwrap()
    );
}

#[test]
fn ptp_texel_addresses_follow_each_offset() {
    let tex = rgba8(TextureKind::Tex2D, 16, 1);
    let smp = Sampler::with_address(AddressMode::Repeat);
    let img = pool_image(
        &[(&tex, &smp, LayoutChoice::Pitch { row_alignment: 256 })],
        0x4000,
    )
    .unwrap();
    let pool = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool);
    let mut op = GatherOp::new(TextureKind::Tex2D, 1);
    op.offsets = OffsetMode::Ptp;
    let g = pool.gatherer(Handle(0), &op, Precision::default()).unwrap();
    let (header, _) = pool.resolve(Handle(0)).unwrap();
    // i0 = j0 = 7; offsets move texel k to (7 + dx, 7 + dy), wrapped by repeat
    let q = GatherQuery::at(0.5, 0.5).with_ptp([[-8, 0], [9, 1], [0, -7], [3, 3]]);
    let mut t = LaneTexels::default();
    let r = g.gather_with_addresses(&q, &mut t).unwrap();
    let pos = [(15, 7), (0, 8), (7, 0), (10, 10)];
    for (k, &(x, y)) in pos.iter().enumerate() {
        assert_eq!(
            t.texels[k],
            TexelAddress::Texel {
                address: header.address + y * 256 + x * 4,
                bytes: 4
            },
            "texel {k}"
        );
        assert_eq!(
            r.values[k],
            unorm(y as u32 * 10, 1.0 / 255.0).to_bits(),
            "texel {k}"
        );
    }
}

#[test]
fn cube_hops_resolve_to_the_neighbouring_face_and_corners_are_marked() {
    let tex = rgba8(TextureKind::Cube, 4, 1);
    let smp = Sampler::default();
    let img = pool_image(
        &[(
            &tex,
            &smp,
            LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: 2,
            },
        )],
        0x10000,
    )
    .unwrap();
    let pool = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool);
    let g = pool
        .gatherer(
            Handle(0),
            &GatherOp::new(TextureKind::Cube, 0),
            Precision::default(),
        )
        .unwrap();
    let lay = tld4_gpu_memory::layout_of(&pool.resolve(Handle(0)).unwrap().0);
    // near the +X face's (s, t) = (0, 0) corner: i0 = j0 = -1
    let q = GatherQuery::at_cube(1.0, 0.99, 0.99);
    let sites = g.sites(&q);
    let mut t = LaneTexels::default();
    g.gather_with_addresses(&q, &mut t).unwrap();
    assert_eq!(sites[3], Site::Corner);
    assert_eq!(t.texels[3], TexelAddress::Corner);
    assert_eq!(
        sites[1],
        Site::Texel {
            layer: 0,
            x: 0,
            y: 0
        }
    );
    for k in [0, 2] {
        let Site::Texel { layer, x, y } = sites[k] else {
            panic!("{k}: {:?}", sites[k])
        };
        assert_ne!(layer, 0, "texel {k} hops to another face");
        assert_eq!(
            t.texels[k],
            TexelAddress::Texel {
                address: lay.texel_address(layer, x, y),
                bytes: 4
            }
        );
        assert_eq!(
            lay.texel_address(layer, x, y) - lay.address,
            layer as u64 * lay.layer_stride + lay.texel_offset(0, x, y)
        );
    }
}

#[test]
fn unmapped_texels_and_descriptors_are_typed_errors() {
    let tex = rgba8(TextureKind::Tex2D, 4, 1);
    let smp = Sampler::default();
    let form = to_memory(
        &tex,
        &smp,
        LayoutChoice::Pitch { row_alignment: 32 },
        0x10_0000,
    )
    .unwrap();
    // the descriptors are mapped, the texels are not
    let mut mem = SparseMemory::new();
    mem.map(
        0x1000,
        form.tic.iter().flat_map(|w| w.to_le_bytes()).collect(),
    )
    .unwrap();
    mem.map(
        0x2000,
        form.tsc.iter().flat_map(|w| w.to_le_bytes()).collect(),
    )
    .unwrap();
    let pool = MemoryPool::new(&mem, 0x1000, 0x2000);
    let g = pool
        .gatherer(
            Handle(0),
            &GatherOp::new(TextureKind::Tex2D, 0),
            Precision::default(),
        )
        .unwrap();
    let e = g.gather(&GatherQuery::at(0.0, 0.0)).unwrap_err();
    assert_eq!(
        e,
        MemoryError::Unmapped {
            addr: 0x10_0000,
            len: 1
        }
    );
    let mut out = [GatherResult::default(); 2];
    let lanes = [GatherQuery::at(0.0, 0.0); 2];
    assert_eq!(g.gather_many(&lanes, &mut out, None).unwrap_err().lane, 0);
    // header 1 is not mapped: the error names its address
    let e = pool
        .gatherer(
            Handle(1),
            &GatherOp::new(TextureKind::Tex2D, 0),
            Precision::default(),
        )
        .unwrap_err();
    assert_eq!(
        e,
        MemTexError::Memory(MemoryError::Unmapped {
            addr: 0x1020,
            len: 32
        })
    );
    assert!(!e.is_not_modeled());
    // a texture header pool at the top of the address space
    let pool = MemoryPool::new(&mem, u64::MAX - 16, 0x2000);
    let e = pool.header_words(0).unwrap_err();
    assert_eq!(
        e,
        MemoryError::EntryPastEnd {
            what: "texture header",
            pool: u64::MAX - 16,
            index: 0
        }
    );
    assert!(
        e.to_string().starts_with(
            "texture header 0: its 32 bytes at 0xffffffffffffffef..0x1000000000000000f"
        ),
        "{e}"
    );
    // an entry may end at 2^64 (then read: unmapped here), not one byte past it, whether
    // the pool's address or the index carries it there
    let past =
        |r: Result<[u32; 8], MemoryError>| matches!(r, Err(MemoryError::EntryPastEnd { .. }));
    assert!(!past(
        MemoryPool::new(&mem, u64::MAX - 31, 0).header_words(0)
    ));
    assert!(past(
        MemoryPool::new(&mem, u64::MAX - 30, 0).header_words(0)
    ));
    assert!(!past(
        MemoryPool::new(&mem, 0, u64::MAX - 63).sampler_words(1)
    ));
    assert!(past(
        MemoryPool::new(&mem, 0, u64::MAX - 63).sampler_words(2)
    ));
    assert!(past(
        MemoryPool::new(&mem, u64::MAX - 31, 0).header_words(u32::MAX)
    ));
    assert!(!past(MemoryPool::new(&mem, 0, 0).sampler_words(u32::MAX)));
    // overlapping regions are refused
    assert!(mem.map(0x1010, vec![0; 4]).is_err());
    // the texture unit's own checks come through unchanged
    let e = MemoryPool::new(&mem, 0x1000, 0x2000)
        .gatherer(
            Handle(0),
            &GatherOp::new(TextureKind::Cube, 0),
            Precision::default(),
        )
        .unwrap_err();
    assert!(e.is_not_modeled(), "{e}");
}

#[test]
fn what_the_memory_form_cannot_express_is_refused() {
    let cube = rgba8(TextureKind::Cube, 4, 1);
    let e = to_memory(
        &cube,
        &Sampler::default(),
        LayoutChoice::Pitch { row_alignment: 32 },
        0,
    )
    .unwrap_err();
    assert!(e.is_not_modeled(), "{e}");
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Unorm,
        width: 4,
        height: 4,
        layers: 1,
    };
    let r8 = Texture::from_fn(desc, |_, x, _| [x, 0, 0, 0]).unwrap();
    let e = to_memory(
        &r8,
        &Sampler::default(),
        LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: 0,
        },
        0,
    )
    .unwrap_err();
    assert!(
        e.is_not_modeled() && e.to_string().contains("COMPONENTS"),
        "{e}"
    );
    let sparse = r8
        .clone()
        .with_residency(Residency::all_resident(&desc, 2, 2).unwrap())
        .unwrap();
    assert!(to_memory(
        &sparse,
        &Sampler::default(),
        LayoutChoice::Pitch { row_alignment: 32 },
        0
    )
    .unwrap_err()
    .is_not_modeled());
    let e = to_memory(
        &r8,
        &Sampler::default(),
        LayoutChoice::Pitch { row_alignment: 32 },
        16,
    )
    .unwrap_err();
    assert!(!e.is_not_modeled(), "{e}");
}

#[test]
fn descriptor_fields_refuse_values_wider_than_the_field() {
    let f = descriptor::field(descriptor::tic::TEXHEAD_V2_BL, "GOBS_PER_BLOCK_HEIGHT").unwrap();
    let mut w = [0u32; 8];
    assert!(f.set(&mut w, 8).is_err());
    assert_eq!(w, [0; 8]);
    f.set(&mut w, 7).unwrap();
    assert_eq!(w[2], 7 << 3);
}

/// `tex` and `smp` as header and sampler 0 of a block-linear pool image (one GOB a block).
fn block_linear_image(tex: &Texture, smp: &Sampler) -> PoolImage {
    let layout = LayoutChoice::BlockLinear {
        gobs_per_block_height_log2: 0,
    };
    pool_image(&[(tex, smp, layout)], 0x8000_0000).unwrap()
}

/// `queries` as one chunk of lanes.
fn lane_queries(queries: &[GatherQuery]) -> LaneQueries {
    let mut lanes = LaneQueries::new();
    for q in queries {
        lanes.push(q).unwrap();
    }
    lanes
}

/// Lanes 0..LANES of `lanes` gathered in place at `level`, with their texel addresses.
fn gather_with_addresses(
    prepared: &PreparedTexture<'_>,
    level: SimdLevel,
    lanes: &LaneQueries,
) -> (LaneResults, [LaneTexels; LANES]) {
    let mut out = LaneResults::new();
    let mut texels = [LaneTexels::default(); LANES];
    prepared
        .gather_lanes_with_addresses(level, lanes, 0..LANES, &mut out, &mut texels)
        .expect("a pool image hands out views")
        .unwrap();
    (out, texels)
}

/// A whole chunk of 32 lanes gathered in place with texel addresses (the watcher's
/// whole-chunk path) reports, at each lane-parallel level, each lane's four addresses as the
/// per-read path's footprint gives them: interior and edge lanes, with border texels
/// (clamp to border) and without (clamp to edge), for a one-element texel (RGBA8, a 32-bit
/// word) and for the third element of a four-element one (RGBA32: the kernel's index is the
/// element's, three past the texel's first).
#[test]
fn whole_chunk_texel_addresses_equal_the_per_read_footprint() {
    let rgba32 = {
        let desc = TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::Rgba32Uint,
            width: 16,
            height: 16,
            layers: 1,
        };
        Texture::from_fn(desc, |_, x, y| [x, y, x * y, 7]).unwrap()
    };
    let textures = [(rgba8(TextureKind::Tex2D, 16, 1), 0), (rgba32, 2)];
    for ((tex, component), mode) in textures
        .iter()
        .flat_map(|t| [AddressMode::ClampToEdge, AddressMode::ClampToBorder].map(move |m| (t, m)))
    {
        let op = GatherOp::new(TextureKind::Tex2D, *component);
        let smp = Sampler::with_address(mode);
        let img = block_linear_image(tex, &smp);
        let pool = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool);
        let prepared = pool.prepare(Handle(0), &op, Precision::default()).unwrap();
        let queries: Vec<GatherQuery> = (0..LANES)
            .map(|k| GatherQuery::at(k as f32 / 31.0, 1.0 - k as f32 / 45.0))
            .collect();
        let lanes = lane_queries(&queries);
        for level in [SimdLevel::Portable, SimdLevel::Avx2] {
            let (out, texels) = gather_with_addresses(&prepared, level, &lanes);
            let mut borders = 0;
            for (k, q) in queries.iter().enumerate() {
                let want = prepared.per_read.addresses(q);
                assert_eq!(
                    texels[k],
                    want,
                    "{:?} {mode:?} at {level:?}, lane {k}",
                    tex.format()
                );
                assert_eq!(out.get(k).unwrap(), prepared.per_read.gather(q).unwrap());
                borders += want
                    .texels
                    .iter()
                    .filter(|t| **t == TexelAddress::Border)
                    .count();
            }
            // the lanes at u = 0 and u = 1 reach past the edge
            assert_eq!(borders > 0, mode == AddressMode::ClampToBorder, "{mode:?}");
        }
    }
}

/// Cube faces read in place (textures in memory have no apron): lanes whose footprint
/// crosses one face edge, on every face and every side of it, and lanes at a face's corner,
/// gather what the per-read path gathers, and record the texel addresses it reads, at both
/// lane-parallel levels: for a one-element texel under depth compare (D32, a cube array) and
/// for the second element of a four-element one (RGBA8 UNORM is one word; RGBA32 four).
#[test]
fn in_place_cube_lanes_across_an_edge_read_what_the_per_read_path_reads() {
    let cube = |kind, format, layers, texel: fn(u32, u32, u32) -> [u32; 4]| {
        let desc = TextureDesc {
            kind,
            format,
            width: 8,
            height: 8,
            layers,
        };
        Texture::from_fn(desc, texel).unwrap()
    };
    let depth = |l: u32, x: u32, y: u32| [((l * 64 + y * 8 + x) as f32 / 768.0).to_bits(), 0, 0, 0];
    let words = |l: u32, x: u32, y: u32| [l, x * 100 + y, y, 7];
    let cases = [
        (
            cube(TextureKind::CubeArray, Format::D32Float, 2, depth),
            true,
            0,
        ),
        (
            cube(TextureKind::Cube, Format::Rgba32Uint, 1, words),
            false,
            1,
        ),
    ];
    // a footprint crosses an edge of an 8-texel face where a minor coordinate over the
    // major one is beyond +-0.875 (its origin is then -1 or 7); both beyond: a corner
    let direction = |k: usize| {
        let major = k % 3;
        let sign = if (k / 3).is_multiple_of(2) { 1.0 } else { -1.0 };
        let side = if (k / 6).is_multiple_of(2) {
            0.95
        } else {
            -0.95
        };
        let along = if k >= 28 {
            -side
        } else {
            (k as f32 / 32.0 - 0.5) * 0.6
        };
        let mut c = [0f32; 3];
        c[major] = sign;
        let (first, second) = ((major + 1) % 3, (major + 2) % 3);
        if (k / 12).is_multiple_of(2) {
            (c[first], c[second]) = (side, along);
        } else {
            (c[first], c[second]) = (along, side);
        }
        c
    };
    for (tex, compare, component) in &cases {
        let kind = tex.kind();
        let op = GatherOp {
            compare: *compare,
            ..GatherOp::new(kind, *component)
        };
        let smp = Sampler {
            compare: compare.then_some(CompareOp::LessOrEqual),
            ..Sampler::default()
        };
        let img = block_linear_image(tex, &smp);
        let pool = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool);
        let prepared = pool.prepare(Handle(0), &op, Precision::default()).unwrap();
        let queries: Vec<GatherQuery> = (0..LANES)
            .map(|k| GatherQuery {
                coords: direction(k),
                layer: k as u32 % 2,
                dref: k as f32 / 40.0,
                ..GatherQuery::default()
            })
            .collect();
        let lanes = lane_queries(&queries);
        for level in [SimdLevel::Portable, SimdLevel::Avx2] {
            let (out, texels) = gather_with_addresses(&prepared, level, &lanes);
            let mut unwatched = LaneResults::new();
            let in_place = prepared
                .in_place
                .as_ref()
                .expect("a pool image hands out views");
            in_place
                .gather_lane_range(level, &lanes, 0..LANES, &mut unwatched)
                .unwrap();
            for (k, q) in queries.iter().enumerate() {
                let at = format!("{kind:?} at {level:?}, lane {k}, {q:?}");
                let want = prepared.per_read.gather(q).unwrap();
                assert_eq!(out.get(k).unwrap(), want, "{at}");
                assert_eq!(unwatched.get(k).unwrap(), want, "{at}");
                assert_eq!(texels[k], prepared.per_read.addresses(q), "{at}");
            }
        }
    }
}
