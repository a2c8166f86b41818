//! Unnormalized coordinates (docs/sources.md, Unnormalized coordinates): u = s in texels,
//! i0 = floor(u - 0.5) after the sub-texel model, with no division by the size.
//! - Power-of-two sizes: s / size is exact in f32, so the unnormalized gather at s must be
//!   the normalized gather at s / size, bit for bit, at every level, in owned and in GPU
//!   memory forms.
//! - Other sizes: against the f64 reference (`tld4_reference`), exactly with
//!   `Precision::Exact` everywhere, and with the default 8-bit model on coordinates that are
//!   multiples of 2^-8 (which the fixed-point step leaves unchanged).
//! - The sub-texel model rounds the texel-space coordinate; the refused cases are typed.

use crate::common::*;
use tld4_gpu_memory::*;
use tld4_textures::*;

/// The clamping modes unnormalized coordinates are modeled with, as pairs.
const MODES: [[AddressMode; 2]; 3] = [
    [AddressMode::ClampToEdge, AddressMode::ClampToEdge],
    [AddressMode::ClampToBorder, AddressMode::ClampToBorder],
    [AddressMode::ClampToEdge, AddressMode::ClampToBorder],
];

fn sampler(modes: [AddressMode; 2], normalized: bool) -> Sampler {
    Sampler {
        address_u: modes[0],
        address_v: modes[1],
        border: BorderColor::from_i32([7, 8, 9, 10]),
        normalized_coords: normalized,
        ..Sampler::default()
    }
}

/// A texture whose texels name themselves (R32Uint: layer << 24 | y << 12 | x) or random
/// RGBA8 texels (the UNORM conversion path).
fn textures(kind: TextureKind, w: u32, h: u32, layers: u32, seed: u64) -> [Texture; 2] {
    let mut state = seed;
    [
        texture(kind, Format::R32Uint, w, h, layers, |l, x, y| {
            [l << 24 | y << 12 | x, 0, 0, 0]
        }),
        texture(kind, Format::Rgba8Unorm, w, h, layers, |_, _, _| {
            let r = splitmix(&mut state);
            [0, 8, 16, 24].map(|s| (r >> s) as u32 & 0xff)
        }),
    ]
}

/// A texel-space coordinate on an axis of `size` texels: texel boundaries and centres,
/// points within 2^-9 of a boundary (where the fixed-point model decides), random points in
/// and around the texture, and unless `tame`, far outside it, NaN and infinities; never
/// subnormal (so s / size stays exact for power-of-two sizes). (A warp with one wild lane
/// takes the kernels' f64 origins; a tame warp their f32 ones.)
fn texel_coord(state: &mut u64, size: u32, tame: bool) -> f32 {
    let r = splitmix(state);
    let span = (size + 6) as f32;
    let unit = ((r >> 8) as u32 as f32) / u32::MAX as f32;
    let pick = if tame { 1 + r % 11 } else { r % 12 };
    match pick {
        0 => [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][(r >> 40) as usize % 3],
        1 | 2 => ((r >> 8) % (2 * size as u64 + 12)) as f32 / 2.0 - 3.0,
        3 | 4 => {
            let k = ((r >> 8) % (size as u64 + 6)) as f32 - 3.0;
            let d = ((r >> 40) % 5) as f32 - 2.0; // -2 .. 2 units of 2^-10
            k + 0.5 + d * (-10.0f32).exp2()
        }
        5 if !tame => [1.0e6, -1.0e6, 3.0e7, -(2.0f32.powi(40))][(r >> 40) as usize % 4],
        6 => ((r >> 8) % (256 * (size as u64 + 6))) as f32 / 256.0 - 3.0,
        _ => unit * span - 3.0,
    }
}

/// Lanes in warps of 32: the first warp tame, the second not, and so on.
fn query(state: &mut u64, w: u32, h: u32, lane: usize) -> GatherQuery {
    let tame = (lane / 32).is_multiple_of(2);
    let r = splitmix(state);
    let mut offsets = [[0i8; 2]; 4];
    for o in offsets.iter_mut().flatten() {
        *o = ((splitmix(state) >> 3) % 9) as i8 - 4;
    }
    GatherQuery {
        coords: [
            texel_coord(state, w, tame),
            texel_coord(state, h, tame),
            0.0,
        ],
        layer: [0, 1, 2, 5, u32::MAX][(r >> 32) as usize % 5],
        offsets,
        dref: 0.0,
    }
}

/// Every gather of `queries` at every level, and per lane.
fn gather_all(g: &Gatherer<'_>, queries: &[GatherQuery]) -> Vec<Vec<GatherResult>> {
    let mut all = Vec::new();
    for level in SimdLevel::ALL {
        let mut out = vec![GatherResult::default(); queries.len()];
        g.gather_many_at(level, queries, &mut out);
        all.push(out);
    }
    all.push(queries.iter().map(|q| g.gather(q)).collect());
    all
}

const PRECISIONS: [Precision; 4] = [
    Precision::Fixed {
        fraction_bits: 8,
        rounding: Rounding::NearestEven,
    },
    Precision::Exact,
    Precision::Fixed {
        fraction_bits: 4,
        rounding: Rounding::TowardZero,
    },
    Precision::Fixed {
        fraction_bits: 12,
        rounding: Rounding::Floor,
    },
];

fn ops(kind: TextureKind) -> [GatherOp; 3] {
    [OffsetMode::None, OffsetMode::Aoffi, OffsetMode::Ptp].map(|offsets| GatherOp {
        offsets,
        ..GatherOp::new(kind, 1)
    })
}

#[test]
fn unnormalized_equals_normalized_on_power_of_two_sizes() {
    let mut state = 0x5eed_0001;
    for (w, h) in [(1, 1), (2, 8), (16, 4), (64, 64), (256, 2), (1024, 32)] {
        for (kind, layers) in [(TextureKind::Tex2D, 1), (TextureKind::Tex2DArray, 3)] {
            for tex in textures(kind, w, h, layers, w as u64 * 31 + h as u64) {
                for modes in MODES {
                    for precision in PRECISIONS {
                        for op in ops(kind) {
                            let texel: Vec<GatherQuery> =
                                (0..70).map(|k| query(&mut state, w, h, k)).collect();
                            // s / size: exact (a power of two, no subnormal results)
                            let normalized: Vec<GatherQuery> = texel
                                .iter()
                                .map(|q| GatherQuery {
                                    coords: [q.coords[0] / w as f32, q.coords[1] / h as f32, 0.0],
                                    ..*q
                                })
                                .collect();
                            let u = Gatherer::new(&tex, &sampler(modes, false), &op, precision)
                                .unwrap();
                            let n =
                                Gatherer::new(&tex, &sampler(modes, true), &op, precision).unwrap();
                            let want = gather_all(&n, &normalized);
                            let got = gather_all(&u, &texel);
                            for (k, q) in texel.iter().enumerate() {
                                for (a, b) in want.iter().zip(&got) {
                                    assert_eq!(
                                        a[k], b[k],
                                        "{w}x{h} {kind:?} {:?} {modes:?} {precision:?} {op:?}: {q:?}",
                                        tex.format()
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn unnormalized_matches_the_reference_on_other_sizes() {
    let mut state = 0x5eed_0002;
    for (w, h) in [(3, 5), (7, 13), (100, 37), (1, 3), (255, 17), (1000, 6)] {
        for (kind, layers) in [(TextureKind::Tex2D, 1), (TextureKind::Tex2DArray, 2)] {
            for tex in textures(kind, w, h, layers, w as u64 * 7 + h as u64) {
                for modes in MODES {
                    let s = sampler(modes, false);
                    for op in ops(kind) {
                        let queries: Vec<GatherQuery> =
                            (0..70).map(|k| query(&mut state, w, h, k)).collect();
                        let exact = Gatherer::new(&tex, &s, &op, Precision::Exact).unwrap();
                        let fixed = Gatherer::new(&tex, &s, &op, Precision::default()).unwrap();
                        let exact_all = gather_all(&exact, &queries);
                        let fixed_all = gather_all(&fixed, &queries);
                        for (k, q) in queries.iter().enumerate() {
                            let Ok(want) = tld4_reference::gather(&tex, &s, &op, q) else {
                                // (beyond the reference's exact range: +-2^52)
                                assert!(q.coords.iter().any(|c| c.abs() > 1.0e15), "{q:?}");
                                continue;
                            };
                            let what = format!("{w}x{h} {kind:?} {modes:?} {op:?}: {q:?}");
                            for got in &exact_all {
                                assert_eq!(got[k], want, "exact, {what}");
                            }
                            // multiples of 2^-8 are fixed points of the 8-bit model
                            let on_grid = q.coords[..2]
                                .iter()
                                .all(|c| (c * 256.0).fract() == 0.0 && c.abs() < 1.0e6);
                            if on_grid {
                                for got in &fixed_all {
                                    assert_eq!(got[k], want, "8 bits, {what}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The texel (i0, j0) of a gather of the self-naming texture: the fourth value.
fn origin(r: GatherResult) -> (u32, u32) {
    (r.values[3] & 0xfff, r.values[3] >> 12 & 0xfff)
}

#[test]
fn the_sub_texel_model_rounds_the_texel_space_coordinate() {
    let [tex, _] = textures(TextureKind::Tex2D, 5, 3, 1, 0);
    let s = sampler(MODES[0], false);
    let op = GatherOp::new(TextureKind::Tex2D, 0);
    // u = 2.5 - 2^-10: exactly i0 = 1; 8 bits to nearest: n = 640, i0 = 2; toward zero:
    // n = 639, i0 = 1. v = 1.5 + 2^-10: j0 = 1 in every model.
    let q = GatherQuery::at(2.5 - (-10.0f32).exp2(), 1.5 + (-10.0f32).exp2());
    let cases = [
        (Precision::Exact, (1, 1)),
        (Precision::default(), (2, 1)),
        (
            Precision::Fixed {
                fraction_bits: 8,
                rounding: Rounding::TowardZero,
            },
            (1, 1),
        ),
        (
            Precision::Fixed {
                fraction_bits: 10,
                rounding: Rounding::NearestEven,
            },
            (1, 1),
        ),
    ];
    for (precision, want) in cases {
        let g = Gatherer::new(&tex, &s, &op, precision).unwrap();
        for got in gather_all(&g, &[q]) {
            assert_eq!(origin(got[0]), want, "{precision:?}");
        }
        // the trace shows the texel-space coordinate, scale 1
        let t = tld4_textures::trace::trace(&tex, &s, &op, precision, &q).unwrap();
        assert!(!t.normalized_coords);
        assert_eq!(
            (t.u.scale, t.u.size, t.u.texels),
            (1, 5, q.coords[0] as f64)
        );
        assert_eq!((t.u.origin, t.v.origin), (want.0 as i64, want.1 as i64));
        assert_eq!(t.values, g.gather(&q).values);
    }
    // the same point normalized on a 5-texel axis is u / 5, which f32 cannot hold exactly:
    // there the texel-space coordinate is what the unit resolves
    assert_ne!(((q.coords[0] / 5.0) as f64) * 5.0, q.coords[0] as f64);
}

#[test]
fn unnormalized_layers_are_layers() {
    let [tex, _] = textures(TextureKind::Tex2DArray, 4, 4, 3, 0);
    let op = GatherOp::new(TextureKind::Tex2DArray, 0);
    let g = Gatherer::new(&tex, &sampler(MODES[0], false), &op, Precision::default()).unwrap();
    for (given, used) in [(0, 0), (1, 1), (2, 2), (3, 2), (u32::MAX, 2)] {
        let r = g.gather(&GatherQuery::at(1.5, 2.5).with_layer(given));
        assert_eq!(r.values[3], used << 24 | 2 << 12 | 1, "layer {given}");
    }
}

#[test]
fn unnormalized_refusals_are_typed() {
    let op2 = GatherOp::new(TextureKind::Tex2D, 0);
    let [tex, _] = textures(TextureKind::Tex2D, 4, 4, 1, 0);
    for bad in [
        AddressMode::Repeat,
        AddressMode::MirroredRepeat,
        AddressMode::MirrorClampToEdge,
    ] {
        for modes in [
            [bad, AddressMode::ClampToEdge],
            [AddressMode::ClampToBorder, bad],
        ] {
            let s = sampler(modes, false);
            let want: Error = NotModeled::UnnormalizedAddressMode(bad).into();
            let e = Gatherer::new(&tex, &s, &op2, Precision::default()).unwrap_err();
            assert_eq!(e, want);
            let q = GatherQuery::at(1.0, 1.0);
            assert_eq!(tld4_reference::gather(&tex, &s, &op2, &q), Err(want));
            // normalized, the same modes are modeled
            assert!(Gatherer::new(&tex, &sampler(modes, true), &op2, Precision::default()).is_ok());
        }
    }
    for (kind, layers) in [(TextureKind::Cube, 1), (TextureKind::CubeArray, 2)] {
        let cube = texture(kind, Format::R32Uint, 4, 4, layers, |l, x, y| {
            [l + x + y, 0, 0, 0]
        });
        let op = GatherOp::new(kind, 0);
        let s = sampler(MODES[0], false);
        let want: Error = NotModeled::UnnormalizedCube(kind).into();
        assert_eq!(
            Gatherer::new(&cube, &s, &op, Precision::default()).unwrap_err(),
            want
        );
        let q = GatherQuery::at_cube(1.0, 0.5, 0.5);
        assert_eq!(tld4_reference::gather(&cube, &s, &op, &q), Err(want));
        assert!(Gatherer::new(&cube, &s, &op, Precision::default())
            .unwrap_err()
            .is_not_modeled());
    }
}

/// The memory forms: the header's NORMALIZED_COORDS clear with the sampler's
/// USE_HEADER_SETTING, or the sampler's FORCE_UNNORMALIZED_COORDS over a normalized header,
/// read by every GPU class (V1 and V2 headers), give the owned unnormalized gather; both set
/// the normalized one.
#[test]
fn unnormalized_memory_forms_match_owned() {
    let mut state = 0x5eed_0003;
    for (w, h, tex) in [(13, 6), (16, 8)]
        .into_iter()
        .flat_map(|(w, h)| textures(TextureKind::Tex2DArray, w, h, 2, 9).map(|t| (w, h, t)))
    {
        for modes in MODES {
            let op = GatherOp::new(TextureKind::Tex2DArray, 1);
            let queries: Vec<GatherQuery> = (0..40).map(|k| query(&mut state, w, h, k)).collect();
            let owned_u =
                Gatherer::new(&tex, &sampler(modes, false), &op, Precision::default()).unwrap();
            let owned_n =
                Gatherer::new(&tex, &sampler(modes, true), &op, Precision::default()).unwrap();
            let layout = LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: 1,
            };
            let at = 0x2_0000_0000u64;
            let form = to_memory(&tex, &sampler(modes, true), layout, at).unwrap();
            for class in GpuClass::ALL {
                for &format in class.header_formats() {
                    let d = ClassDescriptors::with_format(class, format).unwrap();
                    // (header bit, sampler forces unnormalized, normalized in effect)
                    for (header_bit, force, normalized) in [
                        (false, false, false),
                        (true, true, false),
                        (false, true, false),
                        (true, false, true),
                    ] {
                        let header = TextureHeader {
                            normalized_coords: header_bit,
                            ..form.header
                        };
                        let mut state = d.decode_tsc(&form.tsc);
                        state.force_unnormalized_coords = force;
                        let (headers, samplers) = (0x1000u64, 0x2000u64);
                        let mut memory = SparseMemory::new();
                        let words = |w: [u32; 8]| w.iter().flat_map(|x| x.to_le_bytes()).collect();
                        memory
                            .map(headers, words(d.encode_tic(&header).unwrap()))
                            .unwrap();
                        memory.map(samplers, words(d.encode_tsc(&state))).unwrap();
                        memory.map(at, form.bytes.clone()).unwrap();
                        let pool = MemoryPool::new(&memory, headers, samplers).with_descriptors(d);
                        let (_, resolved) = pool.resolve(Handle(0)).unwrap();
                        assert_eq!(resolved.normalized_coords, normalized);
                        let prepared = pool.prepare(Handle(0), &op, Precision::default()).unwrap();
                        let owned = if normalized { &owned_n } else { &owned_u };
                        let in_place = prepared.in_place.as_ref().unwrap();
                        for q in &queries {
                            let want = owned.gather(q);
                            let what = format!("{class:?} {format:?} {header_bit} {force}: {q:?}");
                            assert_eq!(prepared.per_read.gather(q).unwrap(), want, "{what}");
                            assert_eq!(in_place.gather(q), want, "{what}");
                        }
                    }
                }
            }
        }
    }
}

/// An owned unnormalized sampler goes to memory as NVK writes Vulkan's: the header's
/// NORMALIZED_COORDS set, the sampler's FLOAT_COORD_NORMALIZATION = FORCE_UNNORMALIZED_COORDS.
#[test]
fn unnormalized_owned_samplers_force_it_in_the_sampler_entry() {
    let [tex, _] = textures(TextureKind::Tex2D, 3, 3, 1, 0);
    let layout = LayoutChoice::Pitch { row_alignment: 32 };
    for normalized in [false, true] {
        let form = to_memory(&tex, &sampler(MODES[1], normalized), layout, 0x10000).unwrap();
        assert!(form.header.normalized_coords);
        let state = SamplerState::decode(&form.tsc);
        assert_eq!(state.force_unnormalized_coords, !normalized);
        assert_eq!(
            state.field("FLOAT_COORD_NORMALIZATION"),
            Some(!normalized as u64)
        );
        assert_eq!(state.sampler().unwrap().normalized_coords, normalized);
    }
}
