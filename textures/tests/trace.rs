//! The trace behind `tld4 explain` against the gatherer: the same values, residency and
//! origins on random textures, samplers and queries, and one trace checked by hand.
//! (Here, not in trace.rs: a unit test reaching the kernels compiles them a second time into
//! the crate's unit-test binary, 21 of its 25 CPU-s.)

use crate::common;
use proptest::prelude::*;
use tld4_textures::trace::{trace, TexelSite};
use tld4_textures::{
    texel_origin, AddressMode, BorderColor, CompareOp, Format, GatherOp, GatherQuery, Gatherer,
    OffsetMode, Precision, Residency, Rounding, Sampler, Source, Swizzle, Texture, TextureKind,
};

/// A texture of any kind with random raw fields that fit the format.
fn texture(format: Format, kind: TextureKind, w: u32, h: u32, layers: u32, seed: u64) -> Texture {
    let mut state = seed | 1;
    let h = if kind.is_cube() { w } else { h };
    let layers = if kind.is_array() { layers } else { 1 };
    common::texture(kind, format, w, h, layers, |_, _, _| {
        let mut out = [0u32; 4];
        for (i, o) in out.iter_mut().enumerate().take(format.fields()) {
            // a reproducible spread of raw values
            let z = common::splitmix(&mut state);
            let bits = format.field_bits(i);
            let mut v = if bits >= 32 {
                z as u32
            } else {
                (z as u32) & ((1 << bits) - 1)
            };
            if bits == 32 && !format.is_integer() {
                // keep f32 fields finite and moderate
                v = ((z % 2001) as f32 / 1000.0 - 1.0).to_bits();
            }
            *o = v;
        }
        out
    })
}

fn source(k: u8) -> Source {
    Source::ALL[k as usize % 6]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn trace_values_equal_the_fast_path(
        format in 0..Format::ALL.len(),
        kind in 0..4usize,
        (w, h, layers) in (1..6u32, 1..6u32, 1..4u32),
        seed in any::<u64>(),
        modes in [0..5u8, 0..5u8],
        border in any::<[u32; 4]>(),
        compare in prop::option::of(0..8u8),
        seamless in any::<bool>(),
        swizzle in prop_oneof![2 => Just([0u8, 1, 2, 3]), 1 => [0..6u8, 0..6u8, 0..6u8, 0..6u8]],
        component in 0..4u8,
        offsets in 0..3u8,
        coords in [-1.5f32..2.5, -1.5f32..2.5, -1.5f32..2.5],
        snap in any::<bool>(),
        layer in 0..6u32,
        offs in [[-40i8..40, -40i8..40], [-40i8..40, -40i8..40], [-40i8..40, -40i8..40], [-40i8..40, -40i8..40]],
        dref in -0.5f32..1.5,
        precision in prop_oneof![
            3 => Just(Precision::default()),
            1 => Just(Precision::Exact),
            1 => (0..12u8, 0..3u8).prop_map(|(b, r)| Precision::Fixed {
                fraction_bits: b,
                rounding: [Rounding::NearestEven, Rounding::TowardZero, Rounding::Floor][r as usize],
            }),
        ],
        sparse in prop::option::of((1..4u32, any::<u64>())),
    ) {
        let format = Format::ALL[format];
        let kind = [TextureKind::Tex2D, TextureKind::Tex2DArray, TextureKind::Cube, TextureKind::CubeArray][kind];
        let mut tex = texture(format, kind, w, h, layers, seed)
            .with_swizzle(Swizzle(swizzle.map(source)));
        if let Some((tile, bits)) = sparse {
            let mut r = Residency::all_resident(tex.desc(), tile, tile).unwrap();
            let shape = r.map().shape().to_vec();
            let mut b = bits;
            for l in 0..shape[0] { for y in 0..shape[1] { for x in 0..shape[2] {
                r.set(l, x, y, b & 1 == 0 || b & 2 == 0).unwrap();
                b = b.rotate_right(1);
            }}}
            tex = tex.with_residency(r).unwrap();
        }
        let sampler = Sampler {
            address_u: AddressMode::from_vulkan(modes[0] as u32).unwrap(),
            address_v: AddressMode::from_vulkan(modes[1] as u32).unwrap(),
            border: BorderColor { words: border },
            compare: compare.and_then(|c| CompareOp::from_vulkan(c as u32)),
            seamless_cube: seamless,
            normalized_coords: true,
        };
        let op = GatherOp {
            dim: kind,
            component,
            offsets: if kind.is_cube() { OffsetMode::None } else {
                [OffsetMode::None, OffsetMode::Aoffi, OffsetMode::Ptp][offsets as usize]
            },
            compare: compare.is_some() && format.is_depth(),
        };
        // Snap coordinates to texel boundaries half of the time, where rounding decides.
        let snapc = |c: f32, n: u32| if snap { (c * n as f32 * 2.0).round() / (n as f32 * 2.0) } else { c };
        let q = GatherQuery {
            coords: [snapc(coords[0], w), snapc(coords[1], h), coords[2]],
            layer,
            offsets: offs,
            dref,
        };
        let g = match Gatherer::new(&tex, &sampler, &op, precision) {
            Ok(g) => g,
            Err(e) => {
                let t = trace(&tex, &sampler, &op, precision, &q);
                prop_assert_eq!(t.err().map(|e| e.to_string()), Some(e.to_string()));
                return Ok(());
            }
        };
        let fast = g.gather(&q);
        let t = trace(&tex, &sampler, &op, precision, &q).unwrap();
        prop_assert_eq!(t.values, fast.values, "{:#?}", t);
        prop_assert_eq!(t.resident, fast.resident);
        // The fixed-point value shown gives the origin used.
        for a in [t.u, t.v] {
            if let Some((n, bits, r)) = a.fixed {
                prop_assert_eq!(texel_origin(n as f64, bits, r, false), a.origin);
            }
        }
    }
}

#[test]
fn a_hand_checked_trace() {
    // 4x4 R8_UINT, texel (x, y) = 10 * y + x, clamp to border (border 99), AOFFI (+1, 0).
    let tex = common::texture(TextureKind::Tex2D, Format::R8Uint, 4, 4, 1, |_, x, y| {
        [10 * y + x, 0, 0, 0]
    });
    let sampler = Sampler {
        border: BorderColor::from_i32([99, 0, 0, 1]),
        ..Sampler::with_address(AddressMode::ClampToBorder)
    };
    let mut op = GatherOp::new(TextureKind::Tex2D, 0);
    op.offsets = OffsetMode::Aoffi;
    // u*W = 0.874 * 4 = 3.496: fixed point round(3.496 * 256) = 895 -> 895/256 = 3.49609375,
    // floor(3.49609375 - 0.5) = 2; exactly floor(2.996) = 2 as well.
    // v*H = 0.3752 * 4 = 1.5008 -> 384.2 -> 384 / 256 = 1.5: floor(1.0) = 1; exact floor(1.0008) = 1.
    let q = GatherQuery::at(0.874, 0.3752).with_aoffi(1, 0);
    let t = trace(&tex, &sampler, &op, Precision::default(), &q).unwrap();
    assert_eq!(t.u.fixed.map(|f| f.0), Some(895));
    assert_eq!((t.u.origin, t.v.origin), (2, 1));
    assert!(!t.u.rounding_decided());
    // i = 3, 4 after the offset: column 4 is outside, so y and z read the border.
    let pos: Vec<_> = t.texels.iter().map(|t| t.position).collect();
    assert_eq!(pos, [(3, 2), (4, 2), (4, 1), (3, 1)]);
    assert_eq!(t.texels[1].site, TexelSite::Border);
    assert_eq!(t.texels[0].offset, Some((1, 0)));
    assert_eq!(t.values, [23, 99, 99, 13]);
    // v*H = 0.37475 * 4 = 1.499 -> 383.744 -> 384: the rounding decides j0 = 1 (exact: 0).
    let t = trace(
        &tex,
        &sampler,
        &op,
        Precision::default(),
        &GatherQuery::at(0.874, 0.37475),
    )
    .unwrap();
    assert_eq!((t.v.exact_origin, t.v.origin), (0, 1));
    assert!(t.v.rounding_decided());
}
