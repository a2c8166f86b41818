//! The sub-texel precision model at texel boundaries: what each setting picks, worked out by
//! hand. A 4-texel-wide R32_UINT texture holds x + 10 in texel x, so values[3] = i0 + 10 when
//! the footprint stays inside.

use crate::common;
use common::*;
use tld4_textures::*;

fn row() -> Texture {
    texture(TextureKind::Tex2D, Format::R32Uint, 4, 1, 1, |_, x, _| {
        [x + 10, 0, 0, 0]
    })
}

/// i0 mod 4 picked at u (s = u / 4, exact in f32 for the values used) under `p`.
fn i0(u: f64, p: Precision) -> i64 {
    let s = (u / 4.0) as f32;
    assert_eq!(s as f64 * 4.0, u, "u must be exact");
    let sampler = Sampler::with_address(AddressMode::Repeat);
    let tex = row();
    let g = Gatherer::new(&tex, &sampler, &GatherOp::new(TextureKind::Tex2D, 0), p).unwrap();
    let r = g.gather(&GatherQuery::at(s, 0.5));
    // under repeat, values[3] = (i0 mod 4) + 10 and values[2] the next texel
    assert_eq!((r.values[3] - 9) % 4, (r.values[2] - 10) % 4);
    r.values[3] as i64 - 10
}

fn fixed(bits: u8, rounding: Rounding) -> Precision {
    Precision::Fixed {
        fraction_bits: bits,
        rounding,
    }
}

const NEAR: Rounding = Rounding::NearestEven;
const ZERO: Rounding = Rounding::TowardZero;
const FLOOR: Rounding = Rounding::Floor;

#[test]
fn default_is_8_bits_round_to_nearest() {
    assert_eq!(Precision::default(), fixed(8, NEAR));
}

#[test]
fn just_below_a_texel_centre() {
    // u = 1.5 - 2^-10: exactly, u - 0.5 = 0.999.. so i0 = 0. With 8 bits, u * 256 = 383.75,
    // which rounds to 384 = 1.5 * 256, so i0 = floor(1.5 - 0.5) = 1; truncating gives 383, i0 = 0.
    let u = 1.5 - 2f64.powi(-10);
    assert_eq!(i0(u, Precision::Exact), 0);
    assert_eq!(i0(u, fixed(8, NEAR)), 1);
    assert_eq!(i0(u, fixed(8, ZERO)), 0);
    assert_eq!(i0(u, fixed(8, FLOOR)), 0);
    // with 12 bits the step is finer than the distance: u * 4096 = 6140 exactly, i0 = 0
    assert_eq!(i0(u, fixed(12, NEAR)), 0);
}

#[test]
fn at_and_just_above_a_texel_centre() {
    assert_eq!(i0(1.5, Precision::Exact), 1);
    assert_eq!(i0(1.5, fixed(8, NEAR)), 1);
    assert_eq!(i0(1.5, fixed(8, ZERO)), 1);
    let u = 1.5 + 2f64.powi(-10);
    for p in [
        Precision::Exact,
        fixed(8, NEAR),
        fixed(8, ZERO),
        fixed(8, FLOOR),
    ] {
        assert_eq!(i0(u, p), 1, "{p:?}");
    }
}

#[test]
fn ties_round_to_even() {
    // u = 1.5 - 2^-9: u * 256 = 383.5, a tie -> 384 (even): i0 = 1
    assert_eq!(i0(1.5 - 2f64.powi(-9), fixed(8, NEAR)), 1);
    // u = 1.5 - 3 * 2^-9: u * 256 = 382.5 -> 382 (even): i0 = 0
    assert_eq!(i0(1.5 - 3.0 * 2f64.powi(-9), fixed(8, NEAR)), 0);
}

#[test]
fn fraction_bits_is_a_parameter() {
    // u = 1.5 - 2^-6: 4 bits -> 23.75 rounds to 24 = 1.5 * 16, i0 = 1; 8 bits -> 380 exactly, i0 = 0
    let u = 1.5 - 2f64.powi(-6);
    assert_eq!(i0(u, fixed(4, NEAR)), 1);
    assert_eq!(i0(u, fixed(8, NEAR)), 0);
    assert_eq!(i0(u, fixed(5, NEAR)), 1); // 47.5, a tie -> 48
    assert_eq!(i0(u, fixed(6, NEAR)), 0); // 95 exactly
                                          // 0 bits: u rounds to an integer n and i0 = n - 1
    assert_eq!(i0(1.25, fixed(0, NEAR)), 0); // n = 1
    assert_eq!(i0(1.75, fixed(0, NEAR)), 1); // n = 2; exact floor(1.25) = 1 too
    assert_eq!(i0(2.25, fixed(0, NEAR)), 1); // n = 2; exact floor(1.75) = 1
    assert_eq!(i0(2.5, fixed(0, NEAR)), 1); // tie -> 2
    assert_eq!(i0(2.5, Precision::Exact), 2);
    // more than 20 bits is refused
    let e = Gatherer::new(
        &row(),
        &Sampler::default(),
        &GatherOp::new(TextureKind::Tex2D, 0),
        fixed(21, NEAR),
    )
    .unwrap_err();
    assert_eq!(e, Error::Invalid(InvalidInput::Precision(21)));
}

#[test]
fn negative_coordinates() {
    // u = -0.5 - 2^-10: exactly floor(-1.0009..) = -2 -> texel 2 under repeat;
    // 8 bits: -128.25 -> -128 (nearest and toward zero) -> i0 = -1 -> texel 3; floor: -129 -> -2
    let u = -0.5 - 2f64.powi(-10);
    assert_eq!(i0(u, Precision::Exact), 2);
    assert_eq!(i0(u, fixed(8, NEAR)), 3);
    assert_eq!(i0(u, fixed(8, ZERO)), 3);
    assert_eq!(i0(u, fixed(8, FLOOR)), 2);
}

#[test]
fn texel_origin_directly() {
    // x_scaled = u * 2^bits
    assert_eq!(texel_origin(384.0, 8, NEAR, false), 1);
    assert_eq!(texel_origin(383.75, 8, NEAR, false), 1);
    assert_eq!(texel_origin(383.75, 8, ZERO, false), 0);
    assert_eq!(texel_origin(-128.25, 8, FLOOR, false), -2);
    assert_eq!(texel_origin(1.499, 0, NEAR, true), 0);
    assert_eq!(texel_origin(1.5, 0, NEAR, true), 1);
    // NaN reads as u = 0: i0 = floor(-0.5) = -1 in every mode
    assert_eq!(texel_origin(f64::NAN, 8, NEAR, false), -1);
    assert_eq!(texel_origin(f64::NAN, 8, FLOOR, false), -1);
    assert_eq!(texel_origin(f64::NAN, 0, NEAR, true), -1);
    // huge values are clamped rather than overflowing
    assert!(texel_origin(f64::INFINITY, 8, NEAR, false) > 1 << 40);
    assert!(texel_origin(f64::NEG_INFINITY, 8, NEAR, false) < -(1 << 40));
}

#[test]
fn extreme_coordinates_do_not_panic() {
    let tex = row();
    for mode in AddressMode::ALL {
        let g = Gatherer::new(
            &tex,
            &Sampler::with_address(mode),
            &GatherOp::new(TextureKind::Tex2D, 0),
            Precision::default(),
        )
        .unwrap();
        for s in [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN,
            1e30,
            -1e30,
            1e-40,
        ] {
            let r = g.gather(&GatherQuery::at(s, s));
            assert!(r.resident);
            if mode == AddressMode::ClampToEdge {
                assert!(r.values.iter().all(|v| (10..14).contains(v)), "{s}: {r:?}");
            }
        }
    }
    let cube = texture(TextureKind::Cube, Format::R8Uint, 2, 2, 1, |l, _, _| {
        [l, 0, 0, 0]
    });
    let g = Gatherer::new(
        &cube,
        &Sampler::default(),
        &GatherOp::new(TextureKind::Cube, 0),
        Precision::default(),
    )
    .unwrap();
    for v in [f32::NAN, 0.0, f32::INFINITY, -0.0] {
        let r = g.gather(&GatherQuery::at_cube(v, v, v));
        assert!(r.values.iter().all(|&x| x < 6));
    }
}
