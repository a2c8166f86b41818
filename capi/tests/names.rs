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
