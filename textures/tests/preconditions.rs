//! Library preconditions: each public function either refuses a bad value with an error or
//! asserts its documented precondition; none wraps silently.

use std::panic::catch_unwind;

use tld4_reference as reference;
use tld4_textures::*;

fn panics(f: impl FnOnce() + std::panic::UnwindSafe) -> bool {
    catch_unwind(f).is_err()
}

#[test]
fn wrap_asserts_a_size_of_at_least_one() {
    for mode in AddressMode::ALL {
        assert!(
            panics(move || {
                wrap(5, 0, mode);
            }),
            "{mode:?}"
        );
        assert!(
            panics(move || {
                wrap(5, -3, mode);
            }),
            "{mode:?}"
        );
        assert!(
            panics(move || {
                wrap(5, MAX_WRAP_SIZE + 1, mode);
            }),
            "{mode:?}"
        );
        // the extremes of the domain do not overflow
        for i in [i64::MIN, i64::MAX, 0] {
            if let Some(x) = wrap(i, MAX_WRAP_SIZE, mode) {
                assert!((0..MAX_WRAP_SIZE).contains(&x), "{mode:?} {i}: {x}");
            }
        }
    }
    assert_eq!(wrap(-1, 1, AddressMode::Repeat), Some(0));
}

#[test]
fn cube_corner_value_asserts_a_footprint_position() {
    assert!(panics(|| {
        cube_corner_value(&[0; 4], 4, false);
    }));
    assert!(panics(|| {
        cube_corner_value(&[0; 4], 4, true);
    }));
    let third = (3.0f32 * (1.0 / 3.0)).to_bits();
    assert_eq!(cube_corner_value(&[1.0f32.to_bits(); 4], 3, false), third);
}

#[test]
fn texel_origin_asserts_at_most_twenty_fraction_bits() {
    assert!(panics(|| {
        texel_origin(1.0, 64, Rounding::NearestEven, false);
    }));
    assert!(panics(|| {
        texel_origin(1.0, 21, Rounding::Floor, false);
    }));
    // 20 bits: u = 1.0 -> i0 = floor(1 - 0.5) = 0; huge and NaN inputs are clamped
    assert_eq!(
        texel_origin((1u64 << 20) as f64, 20, Rounding::NearestEven, false),
        0
    );
    assert!(texel_origin(f64::INFINITY, 20, Rounding::TowardZero, false) > 0);
    assert_eq!(texel_origin(f64::NAN, 0, Rounding::Floor, false), -1);
}

#[test]
fn footprint_asserts_an_origin_it_can_offset() {
    let offs = [[31, -32]; 4];
    for mode in [OffsetMode::None, OffsetMode::Aoffi, OffsetMode::Ptp] {
        assert!(panics(move || {
            footprint(i64::MAX, 0, mode, &offs);
        }));
        assert!(panics(move || {
            footprint(0, i64::MIN, mode, &offs);
        }));
        let p = footprint(FOOTPRINT_LIMIT, -FOOTPRINT_LIMIT, mode, &offs);
        assert!(p.iter().all(|&(i, j)| i > 0 && j < 0));
    }
}

#[test]
fn the_reference_refuses_coordinates_beyond_its_exact_range() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Uint,
        width: 4,
        height: 4,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [x + 4 * y, 0, 0, 0]).unwrap();
    let op = GatherOp::new(TextureKind::Tex2D, 0);
    let smp = Sampler::with_address(AddressMode::Repeat);
    for s in [1e30f32, -1e30, f32::INFINITY, 2f32.powi(50)] {
        let e = reference::gather(&tex, &smp, &op, &GatherQuery::at(s, 0.5)).unwrap_err();
        assert!(
            matches!(e, Error::NotModeled(NotModeled::ReferenceRange(_))),
            "{s}: {e}"
        );
    }
    // 2^40 * 4 = 2^42 is inside: i0 = 2^42 - 1 wraps to 3 under repeat
    let r = reference::gather(&tex, &smp, &op, &GatherQuery::at(2f32.powi(40), 0.5)).unwrap();
    assert_eq!(r.values[3], 3 + 4);
}

#[test]
fn texture_sizes_are_bounded_before_anything_is_allocated() {
    // 65536 x 65536 would overflow a u32 texel count; 4 GiB is past MAX_TEXTURE_BYTES
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Uint,
        width: 65536,
        height: 65536,
        layers: 1,
    };
    assert!(desc.bytes() > MAX_TEXTURE_BYTES);
    let mut calls = 0u64;
    let e = Texture::from_fn(desc, |_, _, _| {
        calls += 1;
        [0; 4]
    })
    .unwrap_err();
    assert!(
        matches!(e, Error::Invalid(InvalidInput::BadSize { .. })),
        "{e}"
    );
    assert_eq!(calls, 0);
    let cube_array = TextureDesc {
        kind: TextureKind::CubeArray,
        format: Format::Rgba32Float,
        width: 65536,
        height: 65536,
        layers: 65536,
    };
    assert_eq!(cube_array.bytes(), 6 * 65536u64.pow(3) * 16);
    assert!(Texture::from_fields(cube_array, &[]).is_err());
    // the residency map of such a texture is refused too, and so are zero sizes
    assert!(Residency::all_resident(&cube_array, 1, 1).is_err());
    let zero = TextureDesc { width: 0, ..desc };
    assert!(Residency::all_resident(&zero, 1, 1).is_err());
    // just under the limit is accepted
    let ok = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Uint,
        width: 64,
        height: 64,
        layers: 1,
    };
    assert!(Residency::all_resident(&ok, 1, 1).is_ok());
}
