//! Footprint, address modes, border colours, offsets, swizzle, layers, depth compare, sparse
//! residency. Expected texels are worked out by hand from the Vulkan formulas (comments show
//! the arithmetic); textures hold integer ids so that every texel is identifiable.

use crate::common;
use common::*;
use tld4_textures::*;

/// id of texel (x, y) of storage layer l.
fn id(l: u32, x: u32, y: u32) -> u32 {
    10_000 * l + 100 * y + x + 10
}

fn ids(kind: TextureKind, w: u32, h: u32, layers: u32) -> Texture {
    texture(kind, Format::R32Uint, w, h, layers, |l, x, y| {
        [id(l, x, y), 0, 0, 0]
    })
}

fn op2d() -> GatherOp {
    GatherOp::new(TextureKind::Tex2D, 0)
}

/// The ids at (x0, j1), (x1, j1), (x1, j0), (x0, j0); None = border.
fn expect(xs: [Option<u32>; 2], ys: [Option<u32>; 2], border: u32) -> [u32; 4] {
    let v = |x: Option<u32>, y: Option<u32>| match (x, y) {
        (Some(x), Some(y)) => id(0, x, y),
        _ => border,
    };
    [
        v(xs[0], ys[1]),
        v(xs[1], ys[1]),
        v(xs[1], ys[0]),
        v(xs[0], ys[0]),
    ]
}

#[test]
fn footprint_and_result_order() {
    let tex = ids(TextureKind::Tex2D, 4, 4, 1);
    // s = 0.375: u = 1.5, i0 = floor(1.0) = 1; t = 0.625: v = 2.5, j0 = 2
    let r = gather(
        &tex,
        &Sampler::default(),
        &op2d(),
        &GatherQuery::at(0.375, 0.625),
    );
    assert_eq!(
        r.values,
        [id(0, 1, 3), id(0, 2, 3), id(0, 2, 2), id(0, 1, 2)]
    );
    // s = 0.3: u = 1.2, i0 = floor(0.7) = 0; t = 0.1: v = 0.4, j0 = -1 -> clamped to 0
    let r = gather(
        &tex,
        &Sampler::default(),
        &op2d(),
        &GatherQuery::at(0.3, 0.1),
    );
    assert_eq!(
        r.values,
        [id(0, 0, 0), id(0, 1, 0), id(0, 1, 0), id(0, 0, 0)]
    );
}

#[test]
fn each_address_mode_on_u() {
    use AddressMode::*;
    let tex = ids(TextureKind::Tex2D, 4, 4, 1);
    let b = 0; // float transparent black read as raw integer words
               // t = 0.5: v = 2, j0 = 1, j1 = 2 (clamp to edge on v)
    let ys = [Some(1), Some(2)];
    // (s, mode, x of i0, x of i1)
    let table = [
        // s = -0.375: u = -1.5, i0 = -2, i1 = -1
        (-0.375, Repeat, Some(2), Some(3)),
        (-0.375, MirroredRepeat, Some(1), Some(0)), // 3 - mirror((-2 mod 8) - 4) = 3 - 2 = 1
        (-0.375, ClampToEdge, Some(0), Some(0)),
        (-0.375, ClampToBorder, None, None),
        (-0.375, MirrorClampToEdge, Some(1), Some(0)), // mirror(-2) = 1, mirror(-1) = 0
        // s = 1.375: u = 5.5, i0 = 5, i1 = 6
        (1.375, Repeat, Some(1), Some(2)),
        (1.375, MirroredRepeat, Some(2), Some(1)), // 3 - mirror(5 - 4) = 2; 3 - mirror(6 - 4) = 1
        (1.375, ClampToEdge, Some(3), Some(3)),
        (1.375, ClampToBorder, None, None),
        (1.375, MirrorClampToEdge, Some(3), Some(3)),
        // s = 0: u = 0, i0 = -1, i1 = 0
        (0.0, Repeat, Some(3), Some(0)),
        (0.0, MirroredRepeat, Some(0), Some(0)),
        (0.0, ClampToEdge, Some(0), Some(0)),
        (0.0, ClampToBorder, None, Some(0)),
        (0.0, MirrorClampToEdge, Some(0), Some(0)),
        // s = -2.125: u = -8.5, i0 = -9, i1 = -8
        (-2.125, Repeat, Some(3), Some(0)),
        // -9 mod 8 = 7: 3 - mirror(7 - 4) = 0; -8 mod 8 = 0: 3 - mirror(-4) = 0
        (-2.125, MirroredRepeat, Some(0), Some(0)),
        (-2.125, MirrorClampToEdge, Some(3), Some(3)), // mirror(-9) = 8 -> 3, mirror(-8) = 7 -> 3
    ];
    for (s, mode, x0, x1) in table {
        let sampler = Sampler {
            address_u: mode,
            address_v: ClampToEdge,
            ..Sampler::default()
        };
        let r = gather(&tex, &sampler, &op2d(), &GatherQuery::at(s, 0.5));
        assert_eq!(r.values, expect([x0, x1], ys, b), "s = {s}, {mode:?}");
    }
}

#[test]
fn each_address_mode_on_v() {
    use AddressMode::*;
    let tex = ids(TextureKind::Tex2D, 4, 4, 1);
    // s = 0.5: i0 = 1, i1 = 2; t = 1.375: v = 5.5, j0 = 5, j1 = 6
    let xs = [Some(1), Some(2)];
    let table = [
        (Repeat, [Some(1), Some(2)]),
        (MirroredRepeat, [Some(2), Some(1)]),
        (ClampToEdge, [Some(3), Some(3)]),
        (ClampToBorder, [None, None]),
        (MirrorClampToEdge, [Some(3), Some(3)]),
    ];
    for (mode, ys) in table {
        let sampler = Sampler {
            address_u: ClampToEdge,
            address_v: mode,
            border: BorderColor::INT_OPAQUE_WHITE,
            ..Sampler::default()
        };
        let r = gather(&tex, &sampler, &op2d(), &GatherQuery::at(0.5, 1.375));
        assert_eq!(r.values, expect(xs, ys, 1), "{mode:?}");
    }
}

#[test]
fn repeat_on_sizes_that_are_not_powers_of_two() {
    let tex = ids(TextureKind::Tex2D, 3, 5, 1);
    let sampler = Sampler::with_address(AddressMode::Repeat);
    // s = -0.375: u = -1.125, i0 = floor(-1.625) = -2 -> 1, i1 = -1 -> 2
    // t = 1.3: v = 6.5, j0 = 6 -> 1, j1 = 7 -> 2
    let r = gather(&tex, &sampler, &op2d(), &GatherQuery::at(-0.375, 1.3));
    assert_eq!(
        r.values,
        [id(0, 1, 2), id(0, 2, 2), id(0, 2, 1), id(0, 1, 1)]
    );
    // mirrored repeat, size 3: i = -2 -> -2 mod 6 = 4 -> 1 -> 2 - 1 = 1; i = -1 -> 5 -> 2 -> 0
    let sampler = Sampler::with_address(AddressMode::MirroredRepeat);
    let r = gather(&tex, &sampler, &op2d(), &GatherQuery::at(-0.375, 0.5));
    // v = 2.5: j0 = 2, j1 = 3
    assert_eq!(
        r.values,
        [id(0, 1, 3), id(0, 0, 3), id(0, 0, 2), id(0, 1, 2)]
    );
}

#[test]
fn each_named_border_color_float_format() {
    let tex = texture(
        TextureKind::Tex2D,
        Format::Rgba8Unorm,
        2,
        2,
        1,
        |_, _, _| [255, 255, 255, 255],
    );
    let cases = [
        (
            BorderColor::FLOAT_TRANSPARENT_BLACK,
            [0.0f32, 0.0, 0.0, 0.0],
        ),
        (BorderColor::FLOAT_OPAQUE_BLACK, [0.0, 0.0, 0.0, 1.0]),
        (BorderColor::FLOAT_OPAQUE_WHITE, [1.0, 1.0, 1.0, 1.0]),
        (
            BorderColor::from_f32([0.25, -0.5, 2.0, 0.125]),
            [0.25, -0.5, 2.0, 0.125],
        ),
    ];
    for (border, want) in cases {
        let sampler = Sampler {
            border,
            ..Sampler::with_address(AddressMode::ClampToBorder)
        };
        for c in 0..4u8 {
            // s = -1: every texel is outside
            let r = gather(
                &tex,
                &sampler,
                &GatherOp::new(TextureKind::Tex2D, c),
                &GatherQuery::at(-1.0, 0.5),
            );
            assert_eq!(
                r.as_f32(),
                [want[c as usize]; 4],
                "{border:?} component {c}"
            );
        }
    }
}

#[test]
fn each_named_border_color_integer_format() {
    let tex = ids(TextureKind::Tex2D, 2, 2, 1);
    let tex4 = texture(
        TextureKind::Tex2D,
        Format::Rgba32Sint,
        2,
        2,
        1,
        |_, _, _| [5, 5, 5, 5],
    );
    let cases = [
        (BorderColor::INT_TRANSPARENT_BLACK, [0u32, 0, 0, 0]),
        (BorderColor::INT_OPAQUE_BLACK, [0, 0, 0, 1]),
        (BorderColor::INT_OPAQUE_WHITE, [1, 1, 1, 1]),
        (
            BorderColor::from_i32([-7, 9, 11, 13]),
            [(-7i32) as u32, 9, 11, 13],
        ),
    ];
    for (border, want) in cases {
        let sampler = Sampler {
            border,
            ..Sampler::with_address(AddressMode::ClampToBorder)
        };
        for c in 0..4u8 {
            let op = GatherOp::new(TextureKind::Tex2D, c);
            let q = GatherQuery::at(0.5, 3.0);
            assert_eq!(
                gather(&tex4, &sampler, &op, &q).values,
                [want[c as usize]; 4],
                "{border:?} {c}"
            );
            // R32_UINT has one component: G, B read 0 and A reads 1 whatever the border says
            let one_comp = [want[0], 0, 0, 1][c as usize];
            assert_eq!(
                gather(&tex, &sampler, &op, &q).values,
                [one_comp; 4],
                "{border:?} {c}"
            );
        }
    }
}

#[test]
fn border_is_component_count_aware_for_float_formats() {
    let sampler = Sampler {
        border: BorderColor::from_f32([0.5, 0.25, 0.75, 0.125]),
        ..Sampler::with_address(AddressMode::ClampToBorder)
    };
    let q = GatherQuery::at(-2.0, -2.0);
    for (format, want) in [
        (Format::R8Unorm, [0.5f32, 0.0, 0.0, 1.0]),
        (Format::Rg16Float, [0.5, 0.25, 0.0, 1.0]),
        (Format::R11g11b10Float, [0.5, 0.25, 0.75, 1.0]),
        (Format::Rgba32Float, [0.5, 0.25, 0.75, 0.125]),
        (Format::D16Unorm, [0.5, 0.0, 0.0, 1.0]),
    ] {
        let tex = texture(TextureKind::Tex2D, format, 2, 2, 1, |_, _, _| [0; 4]);
        for c in 0..4u8 {
            let r = gather(&tex, &sampler, &GatherOp::new(TextureKind::Tex2D, c), &q);
            assert_eq!(r.as_f32(), [want[c as usize]; 4], "{format:?} {c}");
        }
    }
}

#[test]
fn swizzle_applies_to_texels_not_to_the_border() {
    let tex = texture(TextureKind::Tex2D, Format::Rgba8Uint, 2, 1, 1, |_, x, _| {
        [1 + x, 10 + x, 20 + x, 30 + x]
    })
    .with_swizzle(Swizzle([Source::B, Source::One, Source::Zero, Source::R]));
    let sampler = Sampler {
        address_u: AddressMode::ClampToBorder,
        address_v: AddressMode::ClampToEdge,
        border: BorderColor::from_i32([100, 101, 102, 103]),
        ..Sampler::default()
    };
    // s = 0.125: u = 0.25, i0 = -1 (border), i1 = 0; t = 0.5: v = 0.5, j0 = -1 -> 0, j1 = 0
    let q = GatherQuery::at(0.125, 0.5);
    let g = |c| gather(&tex, &sampler, &GatherOp::new(TextureKind::Tex2D, c), &q).values;
    assert_eq!(g(0), [100, 20, 20, 100]); // B of texel 0 is 20; the border gives its R word
    assert_eq!(g(1), [101, 1, 1, 101]);
    assert_eq!(g(2), [102, 0, 0, 102]);
    assert_eq!(g(3), [103, 1, 1, 103]);
}

#[test]
fn aoffi_at_minus_32_and_31() {
    let tex = ids(TextureKind::Tex2D, 64, 64, 1);
    let sampler = Sampler::with_address(AddressMode::Repeat);
    let op = GatherOp {
        offsets: OffsetMode::Aoffi,
        ..op2d()
    };
    // s = t = 0.5: u = 32, i0 = 31; dx = -32: i = -1 -> 63, i + 1 = 0; dy = 31: j = 62, 63
    let r = gather(
        &tex,
        &sampler,
        &op,
        &GatherQuery::at(0.5, 0.5).with_aoffi(-32, 31),
    );
    assert_eq!(
        r.values,
        [id(0, 63, 63), id(0, 0, 63), id(0, 0, 62), id(0, 63, 62)]
    );
    // dx = 31, dy = -32: i = 62, 63; j = -1 -> 63, 0
    let r = gather(
        &tex,
        &sampler,
        &op,
        &GatherQuery::at(0.5, 0.5).with_aoffi(31, -32),
    );
    assert_eq!(
        r.values,
        [id(0, 62, 0), id(0, 63, 0), id(0, 63, 63), id(0, 62, 63)]
    );
    // offsets are 6-bit: 32 reads as -32, -33 as 31
    let a = gather(
        &tex,
        &sampler,
        &op,
        &GatherQuery::at(0.5, 0.5).with_aoffi(32, -33),
    );
    let b = gather(
        &tex,
        &sampler,
        &op,
        &GatherQuery::at(0.5, 0.5).with_aoffi(-32, 31),
    );
    assert_eq!(a, b);
    // without the AOFFI mode the offsets are ignored
    let plain = gather(
        &tex,
        &sampler,
        &op2d(),
        &GatherQuery::at(0.5, 0.5).with_aoffi(5, 5),
    );
    assert_eq!(
        plain.values,
        [id(0, 31, 32), id(0, 32, 32), id(0, 32, 31), id(0, 31, 31)]
    );
}

#[test]
fn ptp_offsets_place_each_texel_from_i0_j0() {
    let tex = ids(TextureKind::Tex2D, 64, 64, 1);
    let sampler = Sampler::with_address(AddressMode::ClampToEdge);
    let op = GatherOp {
        offsets: OffsetMode::Ptp,
        ..op2d()
    };
    // i0 = j0 = 31
    let std = [[0, 1], [1, 1], [1, 0], [0, 0]];
    let r = gather(
        &tex,
        &sampler,
        &op,
        &GatherQuery::at(0.5, 0.5).with_ptp(std),
    );
    assert_eq!(
        r,
        gather(&tex, &sampler, &op2d(), &GatherQuery::at(0.5, 0.5))
    );
    let r = gather(
        &tex,
        &sampler,
        &op,
        &GatherQuery::at(0.5, 0.5).with_ptp([[-32, -32], [31, 31], [5, -3], [-31, 30]]),
    );
    // (31-32, 31-32) -> clamp (0, 0); (62, 62); (36, 28); (0, 61)
    assert_eq!(
        r.values,
        [id(0, 0, 0), id(0, 62, 62), id(0, 36, 28), id(0, 0, 61)]
    );
}

#[test]
fn array_layer_is_clamped() {
    let tex = ids(TextureKind::Tex2DArray, 2, 2, 3);
    let op = GatherOp::new(TextureKind::Tex2DArray, 0);
    for (layer, want) in [
        (0u32, 0u32),
        (1, 1),
        (2, 2),
        (3, 2),
        (65535, 2),
        (u32::MAX, 2),
    ] {
        let r = gather(
            &tex,
            &Sampler::default(),
            &op,
            &GatherQuery::at(0.5, 0.5).with_layer(layer),
        );
        assert_eq!(r.values[3], id(want, 0, 0), "layer {layer}");
    }
    // a 2D texture ignores the layer
    let tex2 = ids(TextureKind::Tex2D, 2, 2, 1);
    let r = gather(
        &tex2,
        &Sampler::default(),
        &op2d(),
        &GatherQuery::at(0.5, 0.5).with_layer(9),
    );
    assert_eq!(r.values[3], id(0, 0, 0));
}

#[test]
fn depth_compare_each_function() {
    // D32: texels 0.25 (x = 0) and 0.75 (x = 1), one row
    let tex = texture(TextureKind::Tex2D, Format::D32Float, 2, 1, 1, |_, x, _| {
        [if x == 0 { 0.25f32 } else { 0.75 }.to_bits(), 0, 0, 0]
    });
    let op = GatherOp {
        compare: true,
        component: 2, // ignored with compare
        ..op2d()
    };
    // footprint: i0 = 0, i1 = 1 at s = 0.5; order (0,j1) (1,j1) (1,j0) (0,j0) -> depths .25 .75 .75 .25
    let table = [
        (CompareOp::Never, [0.0f32, 0.0, 0.0, 0.0]),
        (CompareOp::Less, [0.0, 1.0, 1.0, 0.0]),  // 0.5 < d
        (CompareOp::Equal, [0.0, 0.0, 0.0, 0.0]), // 0.5 == d
        (CompareOp::LessOrEqual, [0.0, 1.0, 1.0, 0.0]), // 0.5 <= d
        (CompareOp::Greater, [1.0, 0.0, 0.0, 1.0]), // 0.5 > d
        (CompareOp::NotEqual, [1.0, 1.0, 1.0, 1.0]), // 0.5 != d
        (CompareOp::GreaterOrEqual, [1.0, 0.0, 0.0, 1.0]), // 0.5 >= d
        (CompareOp::Always, [1.0, 1.0, 1.0, 1.0]),
    ];
    for (cmp, want) in table {
        let sampler = Sampler {
            compare: Some(cmp),
            ..Sampler::default()
        };
        let r = gather(
            &tex,
            &sampler,
            &op,
            &GatherQuery::at(0.5, 0.5).with_dref(0.5),
        );
        assert_eq!(r.as_f32(), want, "{cmp:?}");
        assert_eq!(CompareOp::from_vulkan(cmp as u32), Some(cmp));
    }
    // equality at the texel's value
    let sampler = Sampler {
        compare: Some(CompareOp::Equal),
        ..Sampler::default()
    };
    let r = gather(
        &tex,
        &sampler,
        &op,
        &GatherQuery::at(0.5, 0.5).with_dref(0.25),
    );
    assert_eq!(r.as_f32(), [1.0, 0.0, 0.0, 1.0]);
    // without .DC no comparison happens, whatever the sampler says
    let r = gather(
        &tex,
        &sampler,
        &op2d(),
        &GatherQuery::at(0.5, 0.5).with_dref(0.25),
    );
    assert_eq!(r.as_f32(), [0.25, 0.75, 0.75, 0.25]);
}

#[test]
fn dref_is_clamped_for_unorm_depth_only() {
    let sampler = Sampler {
        compare: Some(CompareOp::GreaterOrEqual),
        ..Sampler::default()
    };
    let op = GatherOp {
        compare: true,
        ..op2d()
    };
    let q = |d| GatherQuery::at(0.5, 0.5).with_dref(d);
    // D16 texel 65535 = 1.0: dref 1.5 clamps to 1.0 and 1.0 >= 1.0; D32 texel 1.0 too
    let d16 = texture(TextureKind::Tex2D, Format::D16Unorm, 1, 1, 1, |_, _, _| {
        [65535, 0, 0, 0]
    });
    assert_eq!(gather(&d16, &sampler, &op, &q(1.5)).as_f32(), [1.0; 4]);
    let d24 = texture(
        TextureKind::Tex2D,
        Format::D24UnormS8Uint,
        1,
        1,
        1,
        |_, _, _| [0, 7, 0, 0],
    );
    // texel 0.0; dref -3 clamps to 0 and 0 >= 0 holds; unclamped it would fail
    let le = Sampler {
        compare: Some(CompareOp::LessOrEqual),
        ..Sampler::default()
    };
    assert_eq!(gather(&d24, &le, &op, &q(-3.0)).as_f32(), [1.0; 4]);
    let d32 = texture(TextureKind::Tex2D, Format::D32Float, 1, 1, 1, |_, _, _| {
        [1.0f32.to_bits(), 0, 0, 0]
    });
    // 1.5 <= 1.0 is false for float depth (no clamp)
    assert_eq!(gather(&d32, &le, &op, &q(1.5)).as_f32(), [0.0; 4]);
    // the border depth compares too
    let border = Sampler {
        border: BorderColor::from_f32([0.5, 0.0, 0.0, 0.0]),
        compare: Some(CompareOp::Less),
        ..Sampler::with_address(AddressMode::ClampToBorder)
    };
    let r = gather(
        &d32,
        &border,
        &op,
        &GatherQuery::at(5.0, 5.0).with_dref(0.25),
    );
    assert_eq!(r.as_f32(), [1.0; 4]);
    let r = gather(
        &d32,
        &border,
        &op,
        &GatherQuery::at(5.0, 5.0).with_dref(0.75),
    );
    assert_eq!(r.as_f32(), [0.0; 4]);
}

#[test]
fn sparse_tiles() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2DArray,
        format: Format::R32Uint,
        width: 8,
        height: 8,
        layers: 2,
    };
    let mut map = Residency::all_resident(&desc, 4, 4).unwrap();
    map.set(0, 1, 0, false).unwrap(); // layer 0, texels x 4..8, y 0..4
    map.set(1, 0, 1, false).unwrap(); // layer 1, texels x 0..4, y 4..8
    assert!(map.set(2, 0, 0, false).is_err());
    let tex = Texture::from_fn(desc, |l, x, y| [id(l, x, y), 0, 0, 0])
        .unwrap()
        .with_residency(map)
        .unwrap();
    let op = GatherOp::new(TextureKind::Tex2DArray, 0);
    let s = Sampler::default();
    // footprint x 1..2, y 1..2 of layer 0: resident
    let r = gather(&tex, &s, &op, &GatherQuery::at(0.25, 0.25));
    assert!(r.resident);
    assert_eq!(r.values[3], id(0, 1, 1));
    // footprint x 3..4 touches tile (1, 0): zeros and not resident
    let r = gather(&tex, &s, &op, &GatherQuery::at(0.5, 0.25));
    assert_eq!(
        r,
        GatherResult {
            values: [0; 4],
            resident: false
        }
    );
    // the same footprint on layer 1 is resident
    let r = gather(&tex, &s, &op, &GatherQuery::at(0.5, 0.25).with_layer(1));
    assert!(r.resident);
    assert_eq!(r.values[3], id(1, 3, 1));
    // layer 1: footprint y 3..4 touches tile (0, 1)
    let r = gather(&tex, &s, &op, &GatherQuery::at(0.25, 0.5).with_layer(1));
    assert!(!r.resident);
    // border texels touch no tile: footprint x -1..0 on layer 0 with clamp to border
    let border = Sampler::with_address(AddressMode::ClampToBorder);
    let r = gather(&tex, &border, &op, &GatherQuery::at(0.0, 0.0));
    assert!(r.resident);
    assert_eq!(r.values, [0, id(0, 0, 0), 0, 0]);
    // a wrong map shape is refused
    let small = Residency::all_resident(&TextureDesc { width: 4, ..desc }, 4, 4).unwrap();
    assert!(tex.clone().with_residency(small).is_err());
}

#[test]
fn sparse_tile_size_is_configurable() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R8Uint,
        width: 6,
        height: 3,
        layers: 1,
    };
    // 3x3 tiles: two tiles across, one down; tile x = 1 covers texels 3..6
    let mut map = Residency::all_resident(&desc, 3, 3).unwrap();
    assert_eq!(map.map().shape(), &[1, 1, 2]);
    map.set(0, 1, 0, false).unwrap();
    let tex = Texture::from_fn(desc, |_, x, _| [x, 0, 0, 0])
        .unwrap()
        .with_residency(map)
        .unwrap();
    let op = GatherOp::new(TextureKind::Tex2D, 0);
    // u = 2.5 (s = 2.5/6): i0 = 2, i1 = 3 -> touches tile 1
    let r = gather(
        &tex,
        &Sampler::default(),
        &op,
        &GatherQuery::at(2.5 / 6.0, 0.5),
    );
    assert!(!r.resident);
    // u = 2.4: i0 = 1, i1 = 2 -> tile 0 only
    let r = gather(
        &tex,
        &Sampler::default(),
        &op,
        &GatherQuery::at(2.4 / 6.0, 0.5),
    );
    assert!(r.resident);
    assert_eq!(r.values, [1, 2, 2, 1]);
}
