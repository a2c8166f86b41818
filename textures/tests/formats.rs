//! Each format's conversion, checked against independent oracles: exact rational rounding for
//! the normalized formats, hand-computed bit patterns (Vulkan formulas evaluated with 60-digit
//! decimals) for sRGB, and hand-derived values for the float encodings.

use crate::common;
use common::*;
use tld4_textures::*;

fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

#[test]
fn unorm8_every_code_is_correctly_rounded() {
    for c in 0..=255u32 {
        let want = rational_to_f32(c as i64, 255);
        assert_eq!(
            f(sample(Format::R8Unorm, [c, 0, 0, 0], 0)),
            want,
            "code {c}"
        );
        assert_eq!(
            f(sample(Format::Rgba8Unorm, [0, 0, c, 0], 2)),
            want,
            "code {c}"
        );
    }
}

#[test]
fn snorm8_every_code_is_correctly_rounded_and_clamped() {
    for c in 0..=255u32 {
        let v = c as i8 as i64;
        let want = if v == -128 {
            -1.0
        } else {
            rational_to_f32(v, 127)
        };
        assert_eq!(
            f(sample(Format::R8Snorm, [c, 0, 0, 0], 0)),
            want,
            "code {c}"
        );
        assert_eq!(
            f(sample(Format::Rg8Snorm, [0, c, 0, 0], 1)),
            want,
            "code {c}"
        );
    }
    assert_eq!(f(sample(Format::R8Snorm, [0x81, 0, 0, 0], 0)), -1.0);
    assert_eq!(f(sample(Format::R8Snorm, [0x80, 0, 0, 0], 0)), -1.0);
}

#[test]
fn unorm16_and_snorm16_are_correctly_rounded() {
    for c in (0..=65535u32)
        .step_by(7)
        .chain([1, 32767, 32768, 65534, 65535])
    {
        assert_eq!(
            f(sample(Format::R16Unorm, [c, 0, 0, 0], 0)),
            rational_to_f32(c as i64, 65535),
            "code {c}"
        );
        let v = c as u16 as i16 as i64;
        let want = if v == -32768 {
            -1.0
        } else {
            rational_to_f32(v, 32767)
        };
        assert_eq!(
            f(sample(Format::Rgba16Snorm, [0, 0, 0, c], 3)),
            want,
            "code {c}"
        );
    }
}

#[test]
fn d16_and_d24_depth_are_correctly_rounded() {
    for c in [0u32, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff] {
        assert_eq!(
            f(sample(Format::D16Unorm, [c, 0, 0, 0], 0)),
            rational_to_f32(c as i64, 65535)
        );
    }
    for c in (0..=0xffffffu32)
        .step_by(997)
        .chain([1, 3, 0x7fffff, 0x800000, 0xabcdef, 0xfffffe, 0xffffff])
    {
        // the stencil field must not leak into depth
        assert_eq!(
            f(sample(Format::D24UnormS8Uint, [c, 0xa5, 0, 0], 0)),
            rational_to_f32(c as i64, 0xffffff),
            "depth {c:#x}"
        );
    }
    // depth formats deliver (D, 0, 0, 1)
    assert_eq!(f(sample(Format::D24UnormS8Uint, [5, 0xff, 0, 0], 1)), 0.0);
    assert_eq!(
        f(sample(Format::D32Float, [0.25f32.to_bits(), 0, 0, 0], 3)),
        1.0
    );
    assert_eq!(
        f(sample(Format::D32Float, [0.25f32.to_bits(), 0, 0, 0], 0)),
        0.25
    );
}

#[test]
fn srgb_matches_hand_computed_values() {
    // Vulkan sRGB EOTF evaluated with 60-digit decimals, then rounded to f32.
    let table = [
        (0u32, 0x0000_0000u32),
        (1, 0x399f_22b4),
        (10, 0x3b46_eb61),
        (11, 0x3b5b_518e),
        (50, 0x3d02_a56a),
        (128, 0x3e5d_0a89),
        (188, 0x3f00_bd2b),
        (200, 0x3f13_dc50),
        (254, 0x3f7d_b8de),
        (255, 0x3f80_0000),
    ];
    for (code, bits) in table {
        assert_eq!(
            sample(Format::Rgba8Srgb, [code, 0, 0, 0], 0),
            bits,
            "code {code}"
        );
        assert_eq!(
            sample(Format::Rgba8Srgb, [0, 0, code, 0], 2),
            bits,
            "code {code}"
        );
        assert_eq!(srgb_to_linear(code as u8).to_bits(), bits);
    }
    // alpha is linear
    assert_eq!(
        f(sample(Format::Rgba8Srgb, [0, 0, 0, 128], 3)),
        rational_to_f32(128, 255)
    );
}

#[test]
fn srgb_f64_evaluation_is_far_from_f32_rounding_boundaries() {
    // f64 pow is within a few f64 ulps; if the f64 value is far from every f32 midpoint,
    // rounding it to f32 gives the correctly rounded result.
    for code in 1..=255u8 {
        let c = code as f64 / 255.0;
        let l = if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        };
        let x = l as f32;
        let up = f32::from_bits(x.to_bits() + 1) as f64;
        let down = f32::from_bits(x.to_bits() - 1) as f64;
        let xm = x as f64;
        let margin = l * 1e-12;
        assert!((l - (xm + up) / 2.0).abs() > margin, "code {code}");
        assert!((l - (xm + down) / 2.0).abs() > margin, "code {code}");
    }
}

#[test]
fn half_floats() {
    let cases = [
        (0x3c00u32, 1.0f32),
        (0xc000, -2.0),
        (0x7bff, 65504.0),
        (0x0001, 5.960_464_5e-8),
        (0x0400, 6.103_515_6e-5),
        (0x3555, 0.333_251_95),
        (0x7c00, f32::INFINITY),
        (0xfc00, f32::NEG_INFINITY),
    ];
    for (h, want) in cases {
        assert_eq!(f(sample(Format::R16Float, [h, 0, 0, 0], 0)), want, "{h:#x}");
        assert_eq!(
            f(sample(Format::Rgba16Float, [0, h, 0, 0], 1)),
            want,
            "{h:#x}"
        );
        assert_eq!(
            f(sample(Format::Rg16Float, [0, h, 0, 0], 1)),
            want,
            "{h:#x}"
        );
    }
    assert_eq!(sample(Format::R16Float, [0x8000, 0, 0, 0], 0), 0x8000_0000);
    assert!(f(sample(Format::R16Float, [0x7e00, 0, 0, 0], 0)).is_nan());
}

#[test]
fn float32_bits_pass_through() {
    for bits in [
        0x3f80_0000u32,
        0xbf00_0000,
        0x0000_0001,
        0x7f80_0000,
        0x7fc0_1234,
        0x8000_0000,
    ] {
        assert_eq!(sample(Format::R32Float, [bits, 0, 0, 0], 0), bits);
        assert_eq!(sample(Format::Rg32Float, [0, bits, 0, 0], 1), bits);
        assert_eq!(sample(Format::Rgba32Float, [0, 0, 0, bits], 3), bits);
    }
}

#[test]
fn integers_are_raw_and_sign_extended() {
    assert_eq!(sample(Format::R8Uint, [200, 0, 0, 0], 0), 200);
    assert_eq!(sample(Format::R8Sint, [0xfb, 0, 0, 0], 0), (-5i32) as u32);
    assert_eq!(sample(Format::Rg8Sint, [0, 0x7f, 0, 0], 1), 127);
    assert_eq!(
        sample(Format::Rgba8Sint, [0, 0, 0x80, 0], 2),
        (-128i32) as u32
    );
    assert_eq!(sample(Format::Rgba8Uint, [0, 0, 0, 255], 3), 255);
    assert_eq!(sample(Format::R16Uint, [65535, 0, 0, 0], 0), 65535);
    assert_eq!(
        sample(Format::R16Sint, [0x8000, 0, 0, 0], 0),
        (-32768i32) as u32
    );
    assert_eq!(sample(Format::Rgba16Uint, [0, 0, 40000, 0], 2), 40000);
    assert_eq!(
        sample(Format::R32Uint, [0xdead_beef, 0, 0, 0], 0),
        0xdead_beef
    );
    assert_eq!(
        sample(Format::R32Sint, [0xffff_fffe, 0, 0, 0], 0),
        0xffff_fffe
    );
    assert_eq!(sample(Format::Rgba32Sint, [0, 7, 0, 0], 1), 7);
    assert_eq!(sample(Format::Rg32Uint, [0, 9, 0, 0], 1), 9);
}

#[test]
fn missing_components_read_0_0_0_1() {
    // float-valued formats: 0.0, 0.0, 1.0
    for fmt in [
        Format::R8Unorm,
        Format::R16Float,
        Format::R32Float,
        Format::D16Unorm,
        Format::D32Float,
    ] {
        assert_eq!(sample(fmt, [0, 0, 0, 0], 1), 0, "{fmt:?}");
        assert_eq!(sample(fmt, [0, 0, 0, 0], 2), 0, "{fmt:?}");
        assert_eq!(f(sample(fmt, [0, 0, 0, 0], 3)), 1.0, "{fmt:?}");
    }
    assert_eq!(f(sample(Format::Rg8Snorm, [0, 0, 0, 0], 3)), 1.0);
    assert_eq!(f(sample(Format::R11g11b10Float, [0, 0, 0, 0], 3)), 1.0);
    assert_eq!(f(sample(Format::Rgb9e5, [0, 0, 0, 0], 3)), 1.0);
    // integer formats: integer 1
    assert_eq!(sample(Format::R8Uint, [3, 0, 0, 0], 3), 1);
    assert_eq!(sample(Format::Rg32Sint, [3, 4, 0, 0], 2), 0);
    assert_eq!(sample(Format::Rg32Sint, [3, 4, 0, 0], 3), 1);
}

#[test]
fn rgb10a2() {
    let t = [1023, 512, 1, 2];
    assert_eq!(f(sample(Format::Rgb10a2Unorm, t, 0)), 1.0);
    assert_eq!(
        f(sample(Format::Rgb10a2Unorm, t, 1)),
        rational_to_f32(512, 1023)
    );
    assert_eq!(
        f(sample(Format::Rgb10a2Unorm, t, 2)),
        rational_to_f32(1, 1023)
    );
    assert_eq!(f(sample(Format::Rgb10a2Unorm, t, 3)), 0.666_666_7);
    assert_eq!(
        f(sample(Format::Rgb10a2Unorm, [0, 0, 0, 1], 3)),
        0.333_333_34
    );
}

#[test]
fn r11g11b10_unsigned_small_floats() {
    // 11-bit: 5-bit exponent (bias 15), 6-bit mantissa; 10-bit: 5-bit mantissa.
    let one11 = 15 << 6;
    let one10 = 15 << 5;
    assert_eq!(f(sample(Format::R11g11b10Float, [one11, 0, 0, 0], 0)), 1.0);
    assert_eq!(
        f(sample(Format::R11g11b10Float, [0, one11 | 32, 0, 0], 1)),
        1.5
    );
    assert_eq!(
        f(sample(Format::R11g11b10Float, [0, 0, one10 | 16, 0], 2)),
        1.5
    );
    // largest finite values: 2^15 * (1 + 63/64) and 2^15 * (1 + 31/32)
    assert_eq!(
        f(sample(Format::R11g11b10Float, [(30 << 6) | 63, 0, 0, 0], 0)),
        65024.0
    );
    assert_eq!(
        f(sample(Format::R11g11b10Float, [0, 0, (30 << 5) | 31, 0], 2)),
        64512.0
    );
    // denormals: m * 2^-14 / 64 and m * 2^-14 / 32
    assert_eq!(
        f(sample(Format::R11g11b10Float, [1, 0, 0, 0], 0)),
        2f32.powi(-20)
    );
    assert_eq!(
        f(sample(Format::R11g11b10Float, [0, 0, 3, 0], 2)),
        3.0 * 2f32.powi(-19)
    );
    assert_eq!(
        f(sample(Format::R11g11b10Float, [31 << 6, 0, 0, 0], 0)),
        f32::INFINITY
    );
    assert!(f(sample(Format::R11g11b10Float, [(31 << 6) | 1, 0, 0, 0], 0)).is_nan());
    assert_eq!(
        f(sample(Format::R11g11b10Float, [0, 0, 31 << 5, 0], 2)),
        f32::INFINITY
    );
}

#[test]
fn rgb9e5_shared_exponent() {
    // value = mantissa * 2^(exponent - 15 - 9)
    assert_eq!(f(sample(Format::Rgb9e5, [256, 0, 0, 15], 0)), 0.5);
    assert_eq!(f(sample(Format::Rgb9e5, [0, 3, 0, 16], 1)), 3.0 / 256.0);
    assert_eq!(f(sample(Format::Rgb9e5, [0, 0, 1, 0], 2)), 2f32.powi(-24));
    assert_eq!(f(sample(Format::Rgb9e5, [511, 0, 0, 31], 0)), 65408.0);
}

#[test]
fn every_format_has_consistent_tables() {
    for fmt in Format::ALL {
        assert!(fmt.components() >= 1 && fmt.components() <= 4, "{fmt:?}");
        assert!(fmt.fields() >= fmt.components(), "{fmt:?}");
        let total: u32 = (0..fmt.fields()).map(|i| fmt.field_bits(i)).sum();
        if fmt.is_packed() {
            assert_eq!(total, 32, "{fmt:?}");
        }
        // serde name round-trips
        let name = fmt.name();
        let back: Format = serde_json::from_value(serde_json::Value::String(name.clone())).unwrap();
        assert_eq!(back, fmt, "{name}");
        // a texel of all-ones fields gathers without error
        let fields = std::array::from_fn(|i| {
            if i < fmt.fields() {
                let b = fmt.field_bits(i);
                if b >= 32 {
                    0x3f80_0000
                } else {
                    (1u32 << b) - 1
                }
            } else {
                0
            }
        });
        for c in 0..4 {
            let _ = sample(fmt, fields, c);
        }
    }
    assert_eq!(
        serde_json::to_value(Format::D24UnormS8Uint).unwrap(),
        "d24_unorm_s8_uint"
    );
    assert_eq!(
        serde_json::to_value(Format::R11g11b10Float).unwrap(),
        "r11g11b10_float"
    );
    assert_eq!(
        serde_json::to_value(Format::Rgba8Srgb).unwrap(),
        "rgba8_srgb"
    );
}

#[test]
fn field_range_is_checked() {
    let desc = |format| TextureDesc {
        kind: TextureKind::Tex2D,
        format,
        width: 1,
        height: 1,
        layers: 1,
    };
    assert!(Texture::from_fields(desc(Format::R8Unorm), &[256]).is_err());
    assert!(Texture::from_fields(desc(Format::Rgb10a2Unorm), &[0, 0, 0, 4]).is_err());
    assert!(Texture::from_fields(desc(Format::Rgb10a2Unorm), &[1023, 1023, 1023, 3]).is_ok());
    let e = Texture::from_fields(desc(Format::Rgba8Unorm), &[1, 2, 3]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Invalid(InvalidInput::TexelCount {
                expected: 4,
                got: 3,
                ..
            })
        ),
        "{e}"
    );
}

// The public conversion functions refuse what they cannot convert: each precondition panics
// with its reason instead of wrapping.

#[test]
#[should_panic(expected = "a SNORM field has 2..=32 bits, not 0")]
fn snorm_of_zero_bits_is_refused() {
    snorm(0, 0, 1.0);
}

#[test]
#[should_panic(expected = "a SNORM field has 2..=32 bits, not 33")]
fn snorm_of_33_bits_is_refused() {
    snorm(0, 33, 1.0);
}

#[test]
#[should_panic(expected = "a SNORM field has 2..=32 bits, not 1")]
fn snorm_of_one_bit_is_refused() {
    snorm(1, 1, 1.0);
}

#[test]
fn snorm_at_the_width_limits() {
    // 2 bits: codes -2, -1, 0, 1 over 2^1 - 1 = 1, clamped at -1.
    let inv2 = 1.0;
    let got: Vec<f32> = [2u32, 3, 0, 1].iter().map(|&c| snorm(c, 2, inv2)).collect();
    assert_eq!(got, [-1.0, -1.0, 0.0, 1.0]);
    // 32 bits: i32::MIN clamps to -1, i32::MAX is 1.
    let inv32 = 1.0 / i32::MAX as f64;
    assert_eq!(snorm(i32::MAX as u32, 32, inv32), 1.0);
    assert_eq!(snorm(i32::MIN as u32, 32, inv32), -1.0);
}

#[test]
#[should_panic(expected = "does not fit 11 bits")]
fn small_float_wider_than_11_bits_is_refused() {
    small_float(1 << 11, SmallFloatWidth::Bits11);
}

#[test]
#[should_panic(expected = "does not fit 10 bits")]
fn small_float_wider_than_10_bits_is_refused() {
    small_float(0x7ff, SmallFloatWidth::Bits10);
}

#[test]
fn small_float_at_the_width_limits() {
    // All ones: exponent 31, mantissa nonzero: NaN; exponent 31, mantissa 0: infinity.
    assert!(small_float(0x7ff, SmallFloatWidth::Bits11).is_nan());
    assert!(small_float(0x3ff, SmallFloatWidth::Bits10).is_nan());
    assert_eq!(small_float(31 << 6, SmallFloatWidth::Bits11), f32::INFINITY);
    // The smallest subnormals: 2^-14 * 2^-6 and 2^-14 * 2^-5.
    assert_eq!(small_float(1, SmallFloatWidth::Bits11), 2f32.powi(-20));
    assert_eq!(small_float(1, SmallFloatWidth::Bits10), 2f32.powi(-19));
}

#[test]
#[should_panic(expected = "exponent 0x80000000 5 bits")]
fn shared_exp_with_a_huge_exponent_is_refused() {
    shared_exp(1, 1 << 31);
}

#[test]
#[should_panic(expected = "mantissa 0x200 must fit 9 bits")]
fn shared_exp_with_a_wide_mantissa_is_refused() {
    shared_exp(1 << 9, 0);
}

#[test]
fn shared_exp_at_the_limits() {
    // 511 * 2^(31 - 24) and 1 * 2^(0 - 24).
    assert_eq!(shared_exp(511, 31), 511.0 * 128.0);
    assert_eq!(shared_exp(1, 0), 2f32.powi(-24));
}

#[test]
fn every_format_has_a_distinct_name_that_reads_back() {
    let mut names = std::collections::HashSet::new();
    for fmt in Format::ALL {
        let name = fmt.name();
        assert!(!name.is_empty(), "{fmt:?}");
        assert!(names.insert(name.clone()), "{name} twice");
        let back: Format = serde_json::from_value(serde_json::Value::String(name)).unwrap();
        assert_eq!(back, fmt);
        // Components never outnumber the fields that hold them.
        assert!((1..=fmt.fields()).contains(&fmt.components()), "{fmt:?}");
    }
    assert_eq!(Format::ALL.len(), 43);
}
