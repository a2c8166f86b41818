//! Texture headers and samplers in each GPU class's layout through the C ABI
//! (`tld4_arch_descriptors`, `tld4_tic_encode_arch` and the rest): each architecture names
//! the class tld4-gpu-memory's table gives it; headers round-trip in every class; V1 and V2
//! headers differ where NVIDIA's published layouts do
//! (docs/sources.md, Descriptors per GPU class); a texture written as a driver for a V1 GPU
//! writes it gathers through
//! `tld4_mem_gather_arch` as the owned texture does; errors name what is wrong.

use crate::common::cstr;

use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_emu::decoder::Arch;
use tld4_emu::gpu_memory::descriptor::tic_v1;
use tld4_emu::gpu_memory::{ClassDescriptors, GpuClass, HeaderFormat};
use tld4_emu::textures::{AddressMode, GatherQuery};
use tld4_emu::{Format, Precision, Sampler, Texture, TextureDesc, TextureKind};

use tld4_arch::*;
use tld4_status::*;

/// One architecture of each class restated.
const ONE_A_CLASS: [tld4_arch; 7] = [
    TLD4_ARCH_SM_75,
    TLD4_ARCH_SM_80,
    TLD4_ARCH_SM_86,
    TLD4_ARCH_SM_89,
    TLD4_ARCH_SM_90,
    TLD4_ARCH_SM_100,
    TLD4_ARCH_SM_120,
];

fn class_of(arch: u32) -> (tld4_status, tld4_arch_class, String) {
    let mut c = tld4_arch_class {
        class_id: 0,
        header_version: 0,
        name: [0; TLD4_CLASS_NAME_LEN],
    };
    let mut e = tld4_error::new();
    let st = unsafe { tld4_arch_descriptors(arch, &mut c, &mut e) };
    (st, c, e.message())
}

fn name_of(c: &tld4_arch_class) -> String {
    let bytes: Vec<u8> = c
        .name
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as u8)
        .collect();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn each_architecture_names_its_class_and_header_layout() {
    for arch in Arch::ALL {
        let n = cstr(arch.name());
        let mut value = 0u32;
        let st = unsafe { tld4_arch_from_name(n.as_ptr(), &mut value, null_mut()) };
        assert_eq!(st, TLD4_OK, "{}", arch.name());
        let (st, c, m) = class_of(value);
        match GpuClass::for_arch(arch.name()) {
            Ok(class) => {
                assert_eq!(st, TLD4_OK, "{}: {m}", arch.name());
                assert_eq!(c.class_id, class.id(), "{}", arch.name());
                assert_eq!(name_of(&c), class.name());
                let v = match ClassDescriptors::new(class).format {
                    HeaderFormat::V1 => 1,
                    HeaderFormat::V2 => 2,
                };
                assert_eq!(c.header_version, v, "{}", arch.name());
            }
            Err(_) => {
                assert_eq!(st, TLD4_ERR_NOT_MODELED, "{}", arch.name());
                assert!(m.contains(arch.name()), "{m}");
            }
        }
    }
    // The table of docs/sources.md, Descriptors per GPU class, for the two configurations
    // the GPGPU-Sim integration runs and the two layouts' first classes.
    for (arch, id, name, version) in [
        (TLD4_ARCH_SM_75, 0xc597, "TURING_A", 1),
        (TLD4_ARCH_SM_86, 0xc797, "AMPERE_B", 1),
        (TLD4_ARCH_SM_90, 0xcb97, "HOPPER_A", 2),
        (TLD4_ARCH_SM_100, 0xcd97, "BLACKWELL_A", 2),
    ] {
        let (st, c, _) = class_of(arch as u32);
        assert_eq!(st, TLD4_OK);
        assert_eq!(
            (c.class_id, name_of(&c).as_str(), c.header_version),
            (id, name, version)
        );
    }
}

/// Headers the tests encode: block-linear and pitch, each kind, normalized or not.
fn headers(format: &std::ffi::CString) -> Vec<tld4_tic_desc> {
    let base = tld4_tic_desc {
        layout: tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR as u32,
        pitch: 0,
        gobs_per_block_height_log2: 1,
        address: 0x40_0200,
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: format.as_ptr(),
        width: 13,
        height: 7,
        depth: 1,
        swizzle: [2, 1, 0, 5],
        depth_texture: false,
        normalized_coords: true,
    };
    vec![
        base,
        tld4_tic_desc {
            normalized_coords: false,
            ..base
        },
        tld4_tic_desc {
            kind: tld4_texture_kind::TLD4_KIND_2D_ARRAY as u32,
            depth: 3,
            gobs_per_block_height_log2: 0,
            ..base
        },
        tld4_tic_desc {
            kind: tld4_texture_kind::TLD4_KIND_CUBE_ARRAY as u32,
            width: 16,
            height: 16,
            depth: 2,
            address: 0x1_2345_6600,
            ..base
        },
        tld4_tic_desc {
            layout: tld4_layout::TLD4_LAYOUT_PITCH as u32,
            pitch: 96,
            gobs_per_block_height_log2: 0,
            address: 0x8000_0020,
            swizzle: [0, 1, 2, 3],
            ..base
        },
    ]
}

fn encode(arch: u32, d: &tld4_tic_desc) -> (tld4_status, [u32; 8], String) {
    let mut w = [0u32; 8];
    let mut e = tld4_error::new();
    let st = unsafe { tld4_tic_encode_arch(arch, d, w.as_mut_ptr(), &mut e) };
    (st, w, e.message())
}

fn decode(arch: u32, w: &[u32; 8]) -> (tld4_status, tld4_tic_desc, String) {
    let mut d = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
    let mut e = tld4_error::new();
    let st = unsafe { tld4_tic_decode_arch(arch, w.as_ptr(), &mut d, &mut e) };
    (st, d, e.message())
}

/// The fields of a description, the format as its name.
fn fields(d: &tld4_tic_desc) -> String {
    let f = unsafe { std::ffi::CStr::from_ptr(d.format) }
        .to_str()
        .unwrap();
    format!(
        "{} {} {} {:#x} {} {f} {}x{}x{} {:?} {} {}",
        d.layout,
        d.pitch,
        d.gobs_per_block_height_log2,
        d.address,
        d.kind,
        d.width,
        d.height,
        d.depth,
        d.swizzle,
        d.depth_texture,
        d.normalized_coords
    )
}

#[test]
fn headers_and_samplers_round_trip_in_every_class() {
    for format in ["rgba8_unorm", "r32_float", "rg16_sint"] {
        let f = cstr(format);
        for arch in ONE_A_CLASS {
            for d in headers(&f) {
                let (st, w, m) = encode(arch as u32, &d);
                assert_eq!(st, TLD4_OK, "{arch:?} {}: {m}", fields(&d));
                let (st, back, m) = decode(arch as u32, &w);
                assert_eq!(st, TLD4_OK, "{arch:?}: {m}");
                assert_eq!(fields(&back), fields(&d), "{arch:?}");
            }
        }
    }
    let tsc = tld4_tsc_desc {
        address_u: 3,
        address_v: 1,
        address_p: 5,
        depth_compare: true,
        compare_func: 3,
        cube_filtering: 2,
        mag_filter: 1,
        min_filter: 1,
        mip_filter: 2,
        max_anisotropy: 0,
        border: [0x3f80_0000, 7, 0, 0xbf00_0000],
        force_unnormalized_coords: true,
    };
    let mut plain = [0u32; 8];
    assert_eq!(
        unsafe { tld4_tsc_encode(&tsc, plain.as_mut_ptr(), null_mut()) },
        TLD4_OK
    );
    for arch in ONE_A_CLASS {
        let mut w = [0u32; 8];
        let mut back = unsafe { std::mem::zeroed::<tld4_tsc_desc>() };
        unsafe {
            assert_eq!(
                tld4_tsc_encode_arch(arch as u32, &tsc, w.as_mut_ptr(), null_mut()),
                TLD4_OK
            );
            assert_eq!(
                tld4_tsc_decode_arch(arch as u32, w.as_ptr(), &mut back, null_mut()),
                TLD4_OK
            );
        }
        assert_eq!(back, tsc, "{arch:?}");
        // Every class places the sampler's typed fields at the same bits.
        assert_eq!(w, plain, "{arch:?}");
    }
}

/// Bits `hi..=lo` of a header's 256 bits.
fn bits(w: &[u32; 8], hi: u32, lo: u32) -> u64 {
    let mut v = 0u64;
    for b in (lo..=hi).rev() {
        v = v << 1 | u64::from(w[(b / 32) as usize] >> (b % 32) & 1);
    }
    v
}

#[test]
fn v1_and_v2_headers_differ_where_the_published_layouts_do() {
    let f = cstr("rgba8_unorm");
    for d in headers(&f) {
        let (st, v1, m) = encode(TLD4_ARCH_SM_75 as u32, &d);
        assert_eq!(st, TLD4_OK, "{m}");
        let (st, v2, m) = encode(TLD4_ARCH_SM_100 as u32, &d);
        assert_eq!(st, TLD4_OK, "{m}");
        // V2 is what tld4_tic_encode writes; V1 its transcription by tld4-gpu-memory.
        let mut plain = [0u32; 8];
        assert_eq!(
            unsafe { tld4_tic_encode(&d, plain.as_mut_ptr(), null_mut()) },
            TLD4_OK
        );
        assert_eq!(v2, plain);
        assert_eq!(v1, tic_v1::from_v2(&v2).unwrap());
        assert_ne!(v1, v2);
        // The same for every V1 class, and for every V2 class.
        for arch in [TLD4_ARCH_SM_80, TLD4_ARCH_SM_86, TLD4_ARCH_SM_89] {
            assert_eq!(encode(arch as u32, &d).1, v1, "{arch:?}");
        }
        for arch in [TLD4_ARCH_SM_90, TLD4_ARCH_SM_120] {
            assert_eq!(encode(arch as u32, &d).1, v2, "{arch:?}");
        }
        // docs/sources.md, Descriptors per GPU class: words 6 and 7 and WIDTH_MINUS_ONE
        // (144:128) are the same rows; NORMALIZED_COORDS is bit 191 in V1, 145 in V2;
        // HEADER_VERSION 87:85 in V1, 127:124 in V2; COMPONENTS 6:0 in V1, 118:112 in V2.
        assert_eq!(v1[6..], v2[6..]);
        assert_eq!(bits(&v1, 144, 128), bits(&v2, 144, 128));
        assert_eq!(bits(&v1, 144, 128), u64::from(d.width - 1));
        let n = u64::from(d.normalized_coords);
        assert_eq!((bits(&v1, 191, 191), bits(&v2, 145, 145)), (n, n));
        assert_eq!(bits(&v1, 87, 85), bits(&v2, 127, 124));
        assert_eq!(bits(&v1, 6, 0), bits(&v2, 118, 112));
        // Each class reads its own layout: V2 words are no valid V1 header of the same
        // texture, and the other way round.
        let (st, other, _) = decode(TLD4_ARCH_SM_75 as u32, &v2);
        assert!(
            st != TLD4_OK || fields(&other) != fields(&d),
            "V2 read as V1"
        );
        let (st, other, _) = decode(TLD4_ARCH_SM_100 as u32, &v1);
        assert!(
            st != TLD4_OK || fields(&other) != fields(&d),
            "V1 read as V2"
        );
    }
}

/// A 9 x 6 RGBA8 UNORM texture, texel (x, y) = (20 x + y, 9 y, x ^ y, 255 - x).
fn texel(x: u32, y: u32) -> [u32; 4] {
    [20 * x + y, 9 * y, x ^ y, 255 - x]
}

#[test]
fn a_gather_through_a_v1_header_equals_the_owned_gather() {
    const HP: u64 = 0x1_0000;
    const SP: u64 = 0x1_0020;
    const TEXELS: u64 = 0x1_0200;
    let (w, h) = (9u32, 6u32);
    let fmt = cstr("rgba8_unorm");
    let desc = tld4_texture_desc {
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: fmt.as_ptr(),
        width: w,
        height: h,
        layers: 1,
    };
    let fields: Vec<u32> = (0..w * h).flat_map(|i| texel(i % w, i / w)).collect();
    let owned = Texture::from_fn(
        TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::Rgba8Unorm,
            width: w,
            height: h,
            layers: 1,
        },
        |_, x, y| texel(x, y),
    )
    .unwrap();
    let tsc = tld4_tsc_desc {
        address_u: tld4_tsc_address_mode::TLD4_TSC_CLAMP_TO_EDGE as u32,
        address_v: tld4_tsc_address_mode::TLD4_TSC_CLAMP_TO_EDGE as u32,
        address_p: tld4_tsc_address_mode::TLD4_TSC_CLAMP_TO_EDGE as u32,
        depth_compare: false,
        compare_func: 0,
        cube_filtering: 0,
        mag_filter: 0,
        min_filter: 0,
        mip_filter: 0,
        max_anisotropy: 0,
        border: [0; 4],
        force_unnormalized_coords: false,
    };
    let smp = Sampler::with_address(AddressMode::ClampToEdge);
    for arch in [TLD4_ARCH_SM_75, TLD4_ARCH_SM_86, TLD4_ARCH_SM_100] {
        // The driver's work: texels, then the header and sampler in the class's layout.
        let mut e = tld4_error::new();
        let mut needed = 0usize;
        let mut header = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
        let st = unsafe {
            tld4_texels_write(
                &desc,
                fields.as_ptr(),
                fields.len(),
                tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR as u32,
                0,
                TEXELS,
                null_mut(),
                0,
                &mut needed,
                null_mut(),
                &mut e,
            )
        };
        assert_eq!(st, TLD4_ERR_BUFFER_TOO_SMALL, "{}", e.message());
        let mut mem = vec![0u8; (TEXELS - HP) as usize + needed];
        let st = unsafe {
            tld4_texels_write(
                &desc,
                fields.as_ptr(),
                fields.len(),
                tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR as u32,
                0,
                TEXELS,
                mem[(TEXELS - HP) as usize..].as_mut_ptr(),
                needed,
                &mut needed,
                &mut header,
                &mut e,
            )
        };
        assert_eq!(st, TLD4_OK, "{}", e.message());
        let (st, tic, m) = encode(arch as u32, &header);
        assert_eq!(st, TLD4_OK, "{m}");
        let mut tscw = [0u32; 8];
        assert_eq!(
            unsafe { tld4_tsc_encode_arch(arch as u32, &tsc, tscw.as_mut_ptr(), null_mut()) },
            TLD4_OK
        );
        for (k, word) in tic.iter().chain(&tscw).enumerate() {
            mem[4 * k..4 * k + 4].copy_from_slice(&word.to_le_bytes());
        }
        let memory = tld4_memory {
            kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
            base: HP,
            bytes: mem.as_ptr(),
            len: mem.len(),
            user: null_mut(),
            read: None,
        };
        let queries: Vec<tld4_gather_query> = (0..32)
            .map(|l| tld4_gather_query {
                coords: [l as f32 / 29.0 - 0.05, (l % 7) as f32 / 6.5, 0.0],
                offsets: [[(l % 3) as i8 - 1, (l % 2) as i8], [0; 2], [0; 2], [0; 2]],
                ..Default::default()
            })
            .collect();
        for text in [
            "TLD4.R R10, R8, R20, UR4, 2D ;",
            "TLD4.A.AOFFI R10, R8, R20, R24, UR4, 2D ;",
        ] {
            let insn = crate::common::insn_of(text);
            let mut results = vec![unsafe { std::mem::zeroed::<tld4_gather_result>() }; 32];
            let st = unsafe {
                tld4_mem_gather_arch(
                    arch as u32,
                    insn,
                    &memory,
                    HP,
                    SP,
                    0,
                    null(),
                    queries.as_ptr(),
                    queries.len(),
                    results.as_mut_ptr(),
                    &mut e,
                )
            };
            assert_eq!(st, TLD4_OK, "{arch:?} {text}: {}", e.message());
            let op = tld4_emu::gather_op(&tld4_emu::decoder::parse(text).unwrap()).unwrap();
            let g =
                tld4_emu::textures::Gatherer::new(&owned, &smp, &op, Precision::default()).unwrap();
            for (q, r) in queries.iter().zip(&results) {
                let gq = GatherQuery {
                    coords: q.coords,
                    layer: 0,
                    offsets: q.offsets,
                    dref: 0.0,
                };
                assert_eq!(r.values, g.gather(&gq).values, "{arch:?} {text} {q:?}");
                assert!(r.resident);
            }
            // The V2 reader (tld4_mem_gather, BLACKWELL_A) refuses a V1 header.
            let st = unsafe {
                tld4_mem_gather(
                    insn,
                    &memory,
                    HP,
                    SP,
                    0,
                    null(),
                    queries.as_ptr(),
                    1,
                    results.as_mut_ptr(),
                    &mut e,
                )
            };
            if arch == TLD4_ARCH_SM_100 {
                assert_eq!(st, TLD4_OK, "{}", e.message());
            } else {
                assert_ne!(st, TLD4_OK, "a V1 header read as V2");
            }
            unsafe { tld4_insn_free(insn) };
        }
    }
}

#[test]
fn errors_name_the_architecture_the_field_and_the_argument() {
    let f = cstr("rgba8_unorm");
    let d = headers(&f)[0];
    // No such tld4_arch value.
    let (st, _, m) = encode(751, &d);
    assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH);
    assert!(m.contains("751"), "{m}");
    let (st, _, m) = decode(751, &[0; 8]);
    assert_eq!(st, TLD4_ERR_UNKNOWN_ARCH, "{m}");
    // An architecture no source ties to a class.
    for arch in [TLD4_ARCH_SM_88, TLD4_ARCH_SM_107] {
        let (st, _, m) = encode(arch as u32, &d);
        assert_eq!(st, TLD4_ERR_NOT_MODELED, "{m}");
        assert!(m.contains("no 3-D class is known for sm_"), "{m}");
        let mut e = tld4_error::new();
        let insn = crate::common::insn_of("TLD4.R R10, R8, R20, UR4, 2D ;");
        let q = tld4_gather_query::default();
        let mut r = unsafe { std::mem::zeroed::<tld4_gather_result>() };
        let memory = tld4_memory {
            kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
            base: 0,
            bytes: null(),
            len: 0,
            user: null_mut(),
            read: None,
        };
        let st = unsafe {
            tld4_mem_gather_arch(
                arch as u32,
                insn,
                &memory,
                0,
                0,
                0,
                null(),
                &q,
                1,
                &mut r,
                &mut e,
            )
        };
        assert_eq!(st, TLD4_ERR_NOT_MODELED);
        assert!(e.message().contains("no 3-D class"), "{}", e.message());
        unsafe { tld4_insn_free(insn) };
    }
    // A V1 header holds addresses below 2^49 only; V2 takes it.
    let far = tld4_tic_desc {
        address: 1 << 50,
        ..d
    };
    let (st, _, m) = encode(TLD4_ARCH_SM_75 as u32, &far);
    assert_eq!(st, TLD4_ERR_DESCRIPTOR, "{m}");
    assert!(m.contains("2^49"), "{m}");
    assert_eq!(encode(TLD4_ARCH_SM_100 as u32, &far).0, TLD4_OK);
    // NULL arguments are named.
    let mut e = tld4_error::new();
    let st = unsafe { tld4_tic_encode_arch(TLD4_ARCH_SM_75 as u32, &d, null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(e.message().contains("words"), "{}", e.message());
    let st = unsafe { tld4_tic_decode_arch(TLD4_ARCH_SM_75 as u32, null(), null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    let st = unsafe { tld4_arch_descriptors(TLD4_ARCH_SM_75 as u32, null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(e.message().contains("class"), "{}", e.message());
}
