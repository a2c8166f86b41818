//! The names and presets: every status's stable name, bytes per texel of every format, and
//! Vulkan's named border colours.

use std::ffi::CStr;

use tld4_capi::*;
use tld4_status::*;

fn name(status: i32) -> Option<String> {
    let p = tld4_status_name(status);
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string())
}

#[test]
fn every_status_has_its_stable_name() {
    // The header's enum names, lower case without TLD4_ERR_ / TLD4_: read from the header.
    let header = include_str!("../include/tld4.h");
    let mut seen = 0;
    for line in header.lines() {
        let Some(rest) = line.trim().strip_prefix("TLD4_") else {
            continue;
        };
        let Some((variant, value)) = rest.split_once(" = ") else {
            continue;
        };
        if !(variant == "OK" || variant.starts_with("ERR_")) {
            continue;
        }
        let value: i32 = value.trim_end_matches(',').parse().unwrap();
        let want = variant.trim_start_matches("ERR_").to_lowercase();
        assert_eq!(name(value).as_deref(), Some(want.as_str()), "{line}");
        seen += 1;
    }
    assert_eq!(seen, 14);
    assert_eq!(
        name(TLD4_ERR_ILLEGAL_ENCODING as i32).as_deref(),
        Some("illegal_encoding")
    );
    assert_eq!(name(14), None);
    assert_eq!(name(-1), None);
}

fn bytes(format: &str) -> Result<u32, tld4_status> {
    let c = std::ffi::CString::new(format).unwrap();
    let mut b = 0u32;
    let mut e = tld4_error::new();
    match unsafe { tld4_format_bytes_per_texel(c.as_ptr(), &mut b, &mut e) } {
        TLD4_OK => Ok(b),
        s => Err(s),
    }
}

#[test]
fn bytes_per_texel_of_formats() {
    for (f, want) in [
        ("rgba8_unorm", 4),
        ("r8_unorm", 1),
        ("rg8_unorm", 2),
        ("r16_float", 2),
        ("rgba16_float", 8),
        ("rgba32_float", 16),
        ("r32_float", 4),
        ("d32_float", 4),
    ] {
        assert_eq!(bytes(f), Ok(want), "{f}");
    }
    assert_eq!(bytes("rgba9_unorm"), Err(TLD4_ERR_INVALID_ARGUMENT));
    let mut b = 0u32;
    assert_eq!(
        unsafe { tld4_format_bytes_per_texel(std::ptr::null(), &mut b, std::ptr::null_mut()) },
        TLD4_ERR_NULL_POINTER
    );
}

#[test]
fn vulkan_border_presets() {
    let preset = |v: u32| -> Result<[u32; 4], tld4_status> {
        let mut w = [7u32; 4];
        let mut e = tld4_error::new();
        match unsafe { tld4_border_vulkan(v, &mut w, &mut e) } {
            TLD4_OK => Ok(w),
            s => Err(s),
        }
    };
    let one = 1.0f32.to_bits();
    // VkBorderColor: 0 FLOAT_TRANSPARENT_BLACK .. 5 INT_OPAQUE_WHITE.
    assert_eq!(preset(0), Ok([0, 0, 0, 0]));
    assert_eq!(preset(1), Ok([0, 0, 0, 0]));
    assert_eq!(preset(2), Ok([0, 0, 0, one]));
    assert_eq!(preset(3), Ok([0, 0, 0, 1]));
    assert_eq!(preset(4), Ok([one; 4]));
    assert_eq!(preset(5), Ok([1; 4]));
    assert_eq!(preset(6), Err(TLD4_ERR_INVALID_ARGUMENT));
}

/// An illegal encoding names its field in `detail.field`, with the raw value.
#[test]
fn illegal_encodings_name_their_field() {
    // TLD4.R R10, R8, R20, R24, UR4, 2D (explain's word), then with bit 91 clear and with
    // another opcode in bits 11:0.
    let good = tld4_word {
        lo: 0x20ff_0418_1408_7f63,
        hi: 0x0000_0000_081e_0f0a,
    };
    let field = |w: tld4_word| -> (tld4_status, Option<String>, u64) {
        let mut insn = std::ptr::null_mut();
        let mut e = tld4_error::new();
        let s = unsafe { tld4_decode(w, &mut insn, &mut e) };
        if !insn.is_null() {
            unsafe { tld4_insn_free(insn) };
        }
        let f = (!e.detail.field.is_null()).then(|| {
            unsafe { CStr::from_ptr(e.detail.field) }
                .to_str()
                .unwrap()
                .to_string()
        });
        (s, f, e.detail.value)
    };
    assert_eq!(field(good), (TLD4_OK, None, 0));
    let bit91 = tld4_word {
        hi: good.hi & !(1 << (91 - 64)),
        ..good
    };
    assert_eq!(
        field(bit91),
        (TLD4_ERR_ILLEGAL_ENCODING, Some("bit_91".into()), 0)
    );
    let other = tld4_word {
        lo: (good.lo & !0xfff) | 0x123,
        ..good
    };
    assert_eq!(
        field(other),
        (TLD4_ERR_ILLEGAL_ENCODING, Some("form".into()), 0x123)
    );
}

fn nvk(format: &str) -> [u32; 4] {
    let f = std::ffi::CString::new(format).unwrap();
    let mut s = [9u32; 4];
    let mut e = tld4_error::new();
    let st = unsafe { tld4_swizzle_nvk(f.as_ptr(), &mut s, &mut e) };
    assert_eq!(st, TLD4_OK, "{format}: {}", e.message());
    s
}

#[test]
fn nvk_swizzles_fill_missing_components_and_gather_as_the_identity() {
    use crate::common::{
        driver_image, gather_warp_of, handle, texels_at, tic_words, tsc_of, Source, Texture,
        TEXELS_AT,
    };
    use tld4_swizzle::*;
    let (r, g, b, a) = (
        TLD4_SWIZZLE_R as u32,
        TLD4_SWIZZLE_G as u32,
        TLD4_SWIZZLE_B as u32,
        TLD4_SWIZZLE_A as u32,
    );
    let (zero, one) = (TLD4_SWIZZLE_ZERO as u32, TLD4_SWIZZLE_ONE as u32);
    assert_eq!(nvk("r8_unorm"), [r, zero, zero, one]);
    assert_eq!(nvk("rg16_float"), [r, g, zero, one]);
    assert_eq!(nvk("r32_uint"), [r, zero, zero, one]);
    assert_eq!(nvk("rgba8_unorm"), [r, g, b, a]);
    let f = std::ffi::CString::new("no_such_format").unwrap();
    let st = unsafe { tld4_swizzle_nvk(f.as_ptr(), &mut [0; 4], std::ptr::null_mut()) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    // An R8 texture's gathers of every component: the identity header and NVK's agree.
    let t = Texture::of("r8_unorm", 8, 8, (0..64).map(|i| i * 3 + 7).collect());
    let (bytes, hdr) = texels_at(&t, tld4_layout::TLD4_LAYOUT_PITCH, 32, TEXELS_AT);
    assert_eq!(hdr.swizzle, [r, g, b, a], "tld4_texels_write's identity");
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    unsafe { assert_eq!(tld4_sampler_default(&mut s, std::ptr::null_mut()), TLD4_OK) };
    let (_, sampler) = tsc_of(&s);
    let nvk_hdr = tld4_tic_desc {
        swizzle: nvk("r8_unorm"),
        ..hdr
    };
    let identity = driver_image(&bytes, &[(0, tic_words(&hdr).unwrap())], &[(0, sampler)]);
    let filled = driver_image(
        &bytes,
        &[(0, tic_words(&nvk_hdr).unwrap())],
        &[(0, sampler)],
    );
    assert_ne!(identity, filled, "the headers differ");
    let coords: [[f32; 2]; 32] = std::array::from_fn(|l| [l as f32 / 32.0, (l % 4) as f32 / 4.0]);
    for (c, want) in [
        ("R", None),
        ("G", Some(0)),
        ("B", Some(0)),
        ("A", Some(0x3f80_0000)),
    ] {
        let text = format!("TLD4.{c} R10, R8, R20, UR4, 2D ;");
        let x = gather_warp_of(&text, Source::Image(&identity), handle(0, 0), &coords);
        let y = gather_warp_of(&text, Source::Image(&filled), handle(0, 0), &coords);
        assert_eq!(x, y, "component {c}");
        if let Some(v) = want {
            assert_eq!(x, [[v; 4]; 32], "component {c}");
        }
    }
}

fn field_of(format: &str, field: u32, value: i64) -> Result<u32, String> {
    let f = std::ffi::CString::new(format).unwrap();
    let mut raw = 0u32;
    let mut e = tld4_error::new();
    match unsafe { tld4_field_from_int(f.as_ptr(), field, value, &mut raw, &mut e) } {
        TLD4_OK => Ok(raw),
        _ => Err(e.message()),
    }
}

#[test]
fn negative_snorm_and_sint_fields_are_their_twos_complement_in_the_field_width() {
    assert_eq!(field_of("rgba8_snorm", 0, -1), Ok(0xff));
    assert_eq!(field_of("rgba8_snorm", 3, -128), Ok(0x80));
    assert_eq!(field_of("rgba8_snorm", 1, 127), Ok(0x7f));
    assert_eq!(field_of("r16_sint", 0, -2), Ok(0xfffe));
    assert_eq!(field_of("r32_sint", 0, -1), Ok(0xffff_ffff));
    assert_eq!(field_of("rgba8_unorm", 0, 255), Ok(255));
    for (f, i, v, why) in [
        ("rgba8_snorm", 0, 128, "-128..=127"),
        ("rgba8_snorm", 0, -129, "-128..=127"),
        ("rgba8_unorm", 0, -1, "0..=255"),
        ("rgba8_unorm", 4, 0, "4 fields"),
    ] {
        let m = field_of(f, i, v).unwrap_err();
        assert!(m.contains(why), "{f} {i} {v}: {m}");
    }
    // The pool takes the field's pattern and refuses the 32-bit one.
    let fmt = std::ffi::CString::new("r8_snorm").unwrap();
    let desc = tld4_texture_desc {
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: fmt.as_ptr(),
        width: 1,
        height: 1,
        layers: 1,
    };
    let mut pool = std::ptr::null_mut();
    let mut e = tld4_error::new();
    unsafe {
        assert_eq!(tld4_pool_new(&mut pool, &mut e), TLD4_OK);
        let minus_one = field_of("r8_snorm", 0, -1).unwrap();
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &desc, &minus_one, 1, &mut e),
            TLD4_OK
        );
        let st = tld4_pool_set_texture(pool, 0, &desc, &u32::MAX, 1, &mut e);
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{}", e.message());
        tld4_pool_free(pool);
    }
}
