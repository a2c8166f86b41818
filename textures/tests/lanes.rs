//! The lane-parallel pipeline at every [`SimdLevel`] against the per-lane reference
//! (`SimdLevel::Scalar`), bit for bit: random textures in every format and kind, every
//! address mode pair, border colour, compare function, swizzle, component, offset mode and
//! precision, with lanes that include NaN, infinities, signed zeros, texel boundaries and
//! huge coordinates; the golden lavapipe corpus; sparse textures; sub-ranges of lanes; and
//! the branch-free cube projection against `cube::project`.

use crate::common;
use common::*;
use proptest::prelude::*;
use std::collections::HashMap;
use tld4_gather_cases as cases;
use tld4_gpu_memory::*;
use tld4_textures::*;

/// The levels compared with the reference (Avx2 runs as Portable where the CPU lacks it,
/// which `SimdLevel::supported` makes explicit).
const FAST: [SimdLevel; 2] = [SimdLevel::Portable, SimdLevel::Avx2];

/// A coordinate drawn from values that exercise every branch of the pipeline.
fn coord(state: &mut u64, size: u32) -> f32 {
    let r = splitmix(state);
    match r % 16 {
        0 => f32::NAN,
        1 => [f32::INFINITY, f32::NEG_INFINITY][(r >> 8) as usize % 2],
        2 => [0.0, -0.0][(r >> 8) as usize % 2],
        3 => f32::from_bits((r >> 16) as u32),
        // a texel boundary or centre, exactly
        4 | 5 => ((r >> 8) % (4 * size as u64 + 8)) as f32 / (2 * size) as f32 - 0.5,
        6 => ((r >> 8) as u32 as f32 / u32::MAX as f32) * 200.0 - 100.0,
        // far outside the texture but within the 32-bit kernels' range: 2^8 .. 2^22, where
        // the planar kernel's f32 origins give way to f64 ones
        7 => {
            let sign = if r >> 63 == 1 { -1.0 } else { 1.0 };
            let scale = (8 + (r >> 40) % 15) as i32;
            sign * ((r >> 8) as u32 as f32 / u32::MAX as f32 + 1.0) * (scale as f32).exp2()
        }
        _ => ((r >> 8) as u32 as f32 / u32::MAX as f32) * 3.0 - 1.0,
    }
}

fn lane(state: &mut u64, size: u32) -> GatherQuery {
    let r = splitmix(state);
    let mut offsets = [[0i8; 2]; 4];
    for o in offsets.iter_mut().flatten() {
        *o = (splitmix(state) >> 3) as i8;
    }
    GatherQuery {
        coords: [coord(state, size), coord(state, size), coord(state, size)],
        layer: [0, 1, 2, 3, 7, u32::MAX, r as u32][(r >> 40) as usize % 7],
        offsets,
        dref: match r % 8 {
            0 => f32::NAN,
            1 => -0.5,
            2 => 1.5,
            _ => (r >> 16) as u16 as f32 / 65535.0,
        },
    }
}

#[derive(Debug, Clone)]
struct Params {
    format: usize,
    kind: usize,
    size: (u32, u32, u32),
    seed: u64,
    modes: [u8; 2],
    border: [u32; 4],
    compare: Option<u8>,
    seamless: bool,
    swizzle: [u8; 4],
    component: u8,
    offsets: u8,
    precision: Precision,
}

fn precision() -> impl Strategy<Value = Precision> {
    prop_oneof![
        3 => Just(Precision::default()),
        1 => Just(Precision::Exact),
        2 => (0..=20u8, 0..3u8).prop_map(|(bits, r)| Precision::Fixed {
            fraction_bits: bits,
            rounding: [Rounding::NearestEven, Rounding::TowardZero, Rounding::Floor][r as usize],
        }),
    ]
}

fn params() -> impl Strategy<Value = Params> {
    (
        (
            0..Format::ALL.len(),
            0..4usize,
            prop_oneof![
                (1..7u32, 1..7u32, 1..4u32),
                Just((8, 8, 2)),
                Just((13, 5, 3)),
                Just((32, 32, 1))
            ],
            any::<u64>(),
            [0..5u8, 0..5u8],
        ),
        (
            prop_oneof![
                Just([0u32; 4]),
                Just([1.0f32.to_bits(); 4]),
                any::<[u32; 4]>()
            ],
            prop::option::of(0..8u8),
            any::<bool>(),
            prop_oneof![3 => Just([0u8, 1, 2, 3]), 1 => [0..6u8, 0..6u8, 0..6u8, 0..6u8]],
            0..4u8,
            0..3u8,
            precision(),
        ),
    )
        .prop_map(
            |(
                (format, kind, size, seed, modes),
                (border, compare, seamless, swizzle, component, offsets, precision),
            )| Params {
                format,
                kind,
                size,
                seed,
                modes,
                border,
                compare,
                seamless,
                swizzle,
                component,
                offsets,
                precision,
            },
        )
}

struct Case {
    tex: Texture,
    sampler: Sampler,
    op: GatherOp,
}

fn build(p: &Params) -> Case {
    let format = Format::ALL[p.format];
    let kind = [
        TextureKind::Tex2D,
        TextureKind::Tex2DArray,
        TextureKind::Cube,
        TextureKind::CubeArray,
    ][p.kind];
    let (w, h, layers) = p.size;
    let h = if kind.is_cube() { w } else { h };
    let layers = if kind.is_array() { layers } else { 1 };
    let mut state = p.seed;
    let tex = texture(kind, format, w, h, layers, |_, _, _| {
        std::array::from_fn(|i| {
            let r = splitmix(&mut state) as u32;
            if i < format.fields() && format.field_bits(i) < 32 {
                r & ((1 << format.field_bits(i)) - 1)
            } else {
                r
            }
        })
    })
    .with_swizzle(Swizzle(p.swizzle.map(|i| Source::ALL[i as usize])));
    let (sampler, op) = SamplingChoice {
        modes: p.modes,
        border: p.border,
        compare: p.compare,
        seamless: p.seamless,
        component: p.component,
        offsets: p.offsets,
    }
    .build(kind, format);
    Case { tex, sampler, op }
}

/// Every fast level gives the reference's bits for `queries`, through `gather_many_at` and
/// through `gather_lane_range` over uneven sub-ranges.
fn assert_levels_agree(g: &Gatherer<'_>, queries: &[GatherQuery], what: &str) {
    for loads in TexelLoads::ALL {
        with_texel_loads(loads, || {
            assert_levels_agree_with(g, queries, &format!("{what}, {loads:?}"))
        });
    }
}

/// [`assert_levels_agree`] with the calling thread's texel loads.
fn assert_levels_agree_with(g: &Gatherer<'_>, queries: &[GatherQuery], what: &str) {
    let mut reference = vec![GatherResult::default(); queries.len()];
    g.gather_many_at(SimdLevel::Scalar, queries, &mut reference);
    for level in FAST {
        let mut got = vec![GatherResult::default(); queries.len()];
        g.gather_many_at(level, queries, &mut got);
        for (k, (a, b)) in reference.iter().zip(&got).enumerate() {
            assert_eq!(
                a, b,
                "{what}: lane {k} at {level:?}, query {:?}",
                queries[k]
            );
        }
        for chunk in queries.chunks(LANES) {
            let mut lanes = LaneQueries::new();
            for q in chunk {
                lanes.push(q).unwrap();
            }
            let mut out = LaneResults::new();
            // runs of 3, 5, 7, ... lanes, as handle groups of the register form are
            let mut start = 0;
            let mut step = 3;
            while start < chunk.len() {
                let end = (start + step).min(chunk.len());
                g.gather_lane_range(level, &lanes, start..end, &mut out)
                    .unwrap();
                start = end;
                step += 2;
            }
            for (k, q) in chunk.iter().enumerate() {
                let mut one = [GatherResult::default()];
                g.gather_many_at(SimdLevel::Scalar, std::slice::from_ref(q), &mut one);
                assert_eq!(
                    out.get(k),
                    Some(one[0]),
                    "{what}: range lane {k} at {level:?}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn lanes_levels_agree_on_random_cases(p in params(), lane_seed in any::<u64>()) {
        let c = build(&p);
        let Ok(g) = Gatherer::new(&c.tex, &c.sampler, &c.op, p.precision) else {
            return Ok(());
        };
        let mut state = lane_seed;
        let queries: Vec<GatherQuery> = (0..70).map(|_| lane(&mut state, p.size.0)).collect();
        assert_levels_agree(&g, &queries, &format!("{p:?}"));
    }
}

/// Seamless cubes and cube arrays of every storage width (bytes, halves, words, packed
/// words; with and without depth compare), sizes 1 to 9: directions on a grid over every
/// face whose footprints sit inside a face, cross each of its four edges, and take each of
/// its four corners (the kernels read faces with a one-texel apron; a corner footprint
/// goes to the per-lane path): every level gives the reference's bits.
#[test]
fn lanes_cube_footprints_across_every_edge_and_corner_agree() {
    let formats = [
        Format::Rgba8Unorm,
        Format::R16Unorm,
        Format::R32Float,
        Format::Rgb10a2Unorm,
        Format::D32Float,
        Format::D16Unorm,
    ];
    let mut ran = 0;
    for format in formats {
        for kind in [TextureKind::Cube, TextureKind::CubeArray] {
            for size in [1u32, 2, 3, 8, 9] {
                let layers = if kind.is_array() { 3 } else { 1 };
                let mut state = size as u64 * 97 + format as u64;
                let tex = texture(kind, format, size, size, layers, |_, _, _| {
                    std::array::from_fn(|i| {
                        let r = splitmix(&mut state) as u32;
                        let bits = format.field_bits(i.min(format.fields() - 1));
                        if bits < 32 {
                            r & ((1 << bits) - 1)
                        } else {
                            r
                        }
                    })
                });
                let (sampler, op) = SamplingChoice {
                    modes: [0, 0],
                    border: [0; 4],
                    compare: format.is_depth().then_some(3),
                    seamless: true,
                    component: 0,
                    offsets: 0,
                }
                .build(kind, format);
                let g = Gatherer::new(&tex, &sampler, &op, Precision::default()).unwrap();
                // minor coordinates from -1 to 1 in steps of a quarter texel, and just inside
                // and outside the face's edges
                let n = size as f32;
                let mut minor: Vec<f32> = (0..=(8 * size))
                    .map(|k| k as f32 / (4.0 * n) - 1.0)
                    .collect();
                minor.extend([-1.0 + 1e-6, 1.0 - 1e-6, -1.0 + 0.5 / n, 1.0 - 0.5 / n]);
                let mut queries = Vec::new();
                for axis in 0..3 {
                    for major in [1.0f32, -1.0] {
                        for &a in &minor {
                            for &b in &minor {
                                let mut c = [a, b, a];
                                c[axis] = major;
                                c[(axis + 1) % 3] = a;
                                c[(axis + 2) % 3] = b;
                                let r = splitmix(&mut state);
                                queries.push(GatherQuery {
                                    coords: c,
                                    layer: (r % 4) as u32,
                                    offsets: [[0; 2]; 4],
                                    dref: (r >> 20) as u16 as f32 / 65535.0,
                                });
                            }
                        }
                    }
                }
                assert_levels_agree(&g, &queries, &format!("{format:?} {kind:?} {size}"));
                ran += 1;
            }
        }
    }
    assert_eq!(ran, 6 * 2 * 5);
}

#[test]
fn lanes_levels_agree_on_every_format_kind_and_address_mode() {
    let mut state = 7u64;
    let mut ran = 0;
    for (f, format) in Format::ALL.iter().enumerate() {
        for kind in 0..4 {
            for mode in 0..5u8 {
                let p = Params {
                    format: f,
                    kind,
                    size: (5, 4, 2),
                    seed: f as u64 * 31 + kind as u64,
                    modes: [mode, (mode + 2) % 5],
                    border: [0x3f00_0000, 7, 0xbf80_0000, 1],
                    compare: format.is_depth().then_some(mode + 1),
                    seamless: mode % 2 == 0,
                    swizzle: [0, 1, 2, 3],
                    component: mode % 4,
                    offsets: mode % 3,
                    precision: Precision::default(),
                };
                let c = build(&p);
                let g = Gatherer::new(&c.tex, &c.sampler, &c.op, p.precision).unwrap();
                let queries: Vec<GatherQuery> = (0..40).map(|_| lane(&mut state, 5)).collect();
                assert_levels_agree(&g, &queries, &format!("{format:?} {p:?}"));
                ran += 1;
            }
        }
    }
    assert_eq!(ran, Format::ALL.len() * 4 * 5);
}

#[test]
fn lanes_levels_agree_on_the_golden_lavapipe_corpus() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/golden/lavapipe_gather.json"
    );
    let text = std::fs::read_to_string(path).expect("the golden corpus");
    let file = cases::parse(&text).expect("the corpus parses");
    let mut queries_run = 0;
    for (i, case) in file.cases.iter().enumerate() {
        let prepared = cases::prepare(case, i).expect("the case prepares");
        // the case's queries, grouped by the instruction they need
        let mut groups: HashMap<GatherOp, Vec<GatherQuery>> = HashMap::new();
        for (k, q) in case.queries.iter().enumerate() {
            let (op, lane) = cases::query(case, q, &format!("cases[{i}].queries[{k}]"))
                .expect("the query is valid");
            groups.entry(op).or_default().push(lane);
        }
        for (op, queries) in &groups {
            let g = Gatherer::new(&prepared.texture, &prepared.sampler, op, prepared.precision)
                .expect("the corpus holds modeled gathers");
            assert_levels_agree(&g, queries, &format!("cases[{i}]"));
            queries_run += queries.len();
        }
    }
    assert_eq!(queries_run, 24_000, "every query of the corpus ran");
}

#[test]
fn lanes_sparse_textures_agree() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2DArray,
        format: Format::Rgba8Unorm,
        width: 8,
        height: 8,
        layers: 2,
    };
    let mut state = 3u64;
    let tex = Texture::from_fn(desc, |_, _, _| {
        std::array::from_fn(|_| splitmix(&mut state) as u32 & 0xff)
    })
    .unwrap();
    let mut res = Residency::all_resident(&desc, 4, 4).unwrap();
    res.set(1, 1, 0, false).unwrap();
    res.set(0, 0, 1, false).unwrap();
    let tex = tex.with_residency(res).unwrap();
    let op = GatherOp::new(TextureKind::Tex2DArray, 1);
    let g = Gatherer::new(&tex, &Sampler::default(), &op, Precision::default()).unwrap();
    let queries: Vec<GatherQuery> = (0..64).map(|_| lane(&mut state, 8)).collect();
    assert_levels_agree(&g, &queries, "sparse");
    let mut out = vec![GatherResult::default(); queries.len()];
    g.gather_many_at(SimdLevel::Avx2, &queries, &mut out);
    assert!(
        out.iter().any(|r| !r.resident),
        "some footprint is not resident"
    );
    assert!(out.iter().any(|r| r.resident), "some footprint is resident");
}

#[test]
fn lanes_queries_refuse_a_33rd_lane_and_bad_ranges() {
    let mut q = LaneQueries::new();
    for k in 0..LANES {
        assert_eq!(q.push(&GatherQuery::at(k as f32, 0.0)).unwrap(), k);
    }
    assert_eq!(
        q.push(&GatherQuery::default()).unwrap_err(),
        Error::Invalid(InvalidInput::TooManyLanes { max: LANES })
    );
    assert_eq!(q.get(31), Some(GatherQuery::at(31.0, 0.0)));
    assert_eq!(q.get(32), None);
    let tex = Texture::from_fields(
        TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::R8Uint,
            width: 1,
            height: 1,
            layers: 1,
        },
        &[9],
    )
    .unwrap();
    let g = Gatherer::new(
        &tex,
        &Sampler::default(),
        &GatherOp::new(TextureKind::Tex2D, 0),
        Precision::default(),
    )
    .unwrap();
    let mut out = LaneResults::new();
    q.clear();
    q.push(&GatherQuery::default()).unwrap();
    let e = g
        .gather_lane_range(SimdLevel::Portable, &q, 0..2, &mut out)
        .unwrap_err();
    assert_eq!(
        e,
        Error::Invalid(InvalidInput::LaneRange {
            start: 0,
            end: 2,
            len: 1
        })
    );
    assert_eq!(out.values[0][0], 0, "nothing written on an error");
    g.gather_lanes(&q, &mut out);
    assert_eq!(out.get(0).unwrap().values, [9; 4]);
}

#[test]
fn lanes_queries_keep_every_field_of_every_lane_in_its_array() {
    let query = |k: usize| GatherQuery {
        coords: [k as f32 + 0.25, -(k as f32), k as f32 * 3.5],
        layer: 1000 + k as u32,
        offsets: std::array::from_fn(|t| [(k * 4 + t) as i8 - 64, -((k * 4 + t) as i8) + 31]),
        dref: k as f32 / 7.0,
    };
    let mut q = LaneQueries::new();
    for k in 0..LANES {
        q.push(&query(k)).unwrap();
    }
    for k in 0..LANES {
        assert_eq!(q.get(k), Some(query(k)), "lane {k}");
        let want = query(k);
        assert_eq!(q.coords[1][k], want.coords[1]);
        assert_eq!(q.layer[k], want.layer);
        assert_eq!(q.dref[k].to_bits(), want.dref.to_bits());
        for t in 0..4 {
            assert_eq!(
                [q.offsets[t][0][k], q.offsets[t][1][k]],
                want.offsets[t],
                "lane {k} offset {t}"
            );
        }
    }
    // filled a field at a time, then held with set_len: the same lanes
    let mut direct = LaneQueries::new();
    direct.coords = q.coords;
    direct.layer = q.layer;
    direct.offsets = q.offsets;
    direct.dref = q.dref;
    direct.set_len(LANES).unwrap();
    assert_eq!(direct, q);
    assert!(direct.set_len(LANES + 1).is_err());
}

/// Bits of a projection, for exact comparison (NaN payloads included).
fn bits(p: (u32, f64, f64)) -> (u32, u64, u64) {
    (p.0, p.1.to_bits(), p.2.to_bits())
}

#[test]
fn select_projection_is_bit_identical_on_special_values() {
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::MAX,
        -f32::MAX,
        0.999_999_94,
        1.000_000_1,
    ];
    let mut n = 0;
    for &x in &specials {
        for &y in &specials {
            for &z in &specials {
                assert_eq!(
                    bits(cube::project_select(x, y, z)),
                    bits(cube::project(x, y, z)),
                    "({x}, {y}, {z})"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, specials.len().pow(3));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn select_projection_is_bit_identical(x in any::<u32>(), y in any::<u32>(), z in any::<u32>(), tie in 0..4u8) {
        let (x, y, z) = (f32::from_bits(x), f32::from_bits(y), f32::from_bits(z));
        // ties of magnitude, which decide the face
        let (x, y, z) = match tie {
            1 => (x, -x, z),
            2 => (x, y, y),
            3 => (z, y, -z),
            _ => (x, y, z),
        };
        prop_assert_eq!(bits(cube::project_select(x, y, z)), bits(cube::project(x, y, z)));
    }
}

/// A memory that hands out no view: the texture unit must read texel by texel.
struct NoView<'m>(&'m SparseMemory);

impl Memory for NoView<'_> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        self.0.read(addr, buf)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Textures in GPU memory read in place (block-linear at every block height, and
    /// pitch-linear at several row alignments for 2D) give, at every level, the owned
    /// texture's bits and the per-read path's, lane for lane; without a view there is no
    /// in-place gatherer and the per-read path still agrees.
    #[test]
    fn lanes_in_place_memory_agrees_with_owned_and_per_read(
        p in params(),
        lane_seed in any::<u64>(),
        k in 0..6u8,
        pitch in any::<bool>(),
        align in 0..3u32,
    ) {
        let c = build(&p);
        let Ok(owned) = Gatherer::new(&c.tex, &c.sampler, &c.op, p.precision) else {
            return Ok(());
        };
        let layout = if pitch && c.tex.kind() == TextureKind::Tex2D {
            LayoutChoice::Pitch { row_alignment: 32 << align }
        } else {
            LayoutChoice::BlockLinear { gobs_per_block_height_log2: k }
        };
        // (what the memory form cannot express, block-linear 1- and 2-byte texels, is
        // refused by the conversion and not gathered here)
        let Ok(image) = pool_image(&[(&c.tex, &c.sampler, layout)], 0x7_0000_0000) else {
            return Ok(());
        };
        let pool = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
        let prepared = pool.prepare(Handle(0), &c.op, p.precision).unwrap();
        let in_place = prepared.in_place.as_ref().expect("a pool image hands out views");
        let mut state = lane_seed;
        let queries: Vec<GatherQuery> = (0..70).map(|_| lane(&mut state, p.size.0)).collect();
        let mut want = vec![GatherResult::default(); queries.len()];
        owned.gather_many_at(SimdLevel::Scalar, &queries, &mut want);
        for (q, a) in queries.iter().zip(&want) {
            let b = prepared.per_read.gather(q).unwrap();
            prop_assert_eq!(a, &b, "per read, {:?}: {:?}", layout, q);
        }
        for level in [SimdLevel::Scalar, SimdLevel::Portable, SimdLevel::Avx2] {
            for loads in TexelLoads::ALL {
                let mut got = vec![GatherResult::default(); queries.len()];
                with_texel_loads(loads, || in_place.gather_many_at(level, &queries, &mut got));
                for (q, (a, b)) in queries.iter().zip(want.iter().zip(&got)) {
                    prop_assert_eq!(a, b, "{:?} at {:?}, {:?}: {:?}", layout, level, loads, q);
                }
            }
        }
        // the texel addresses the kernels report are the per-read path's footprint's
        for level in [SimdLevel::Scalar, SimdLevel::Portable, SimdLevel::Avx2] {
            for chunk in queries.chunks(LANES) {
                let mut lanes = LaneQueries::new();
                for q in chunk {
                    lanes.push(q).unwrap();
                }
                let mut out = LaneResults::new();
                let mut texels = [LaneTexels::default(); LANES];
                prepared
                    .gather_lanes_with_addresses(level, &lanes, 0..chunk.len(), &mut out, &mut texels)
                    .expect("in place")
                    .unwrap();
                for (k, q) in chunk.iter().enumerate() {
                    prop_assert_eq!(texels[k], prepared.per_read.addresses(q), "{:?} at {:?}: {:?}", layout, level, q);
                    prop_assert_eq!(out.get(k).unwrap(), prepared.per_read.gather(q).unwrap());
                }
            }
        }
        let no_view = NoView(&image.memory);
        let pool = MemoryPool::new(&no_view, image.header_pool, image.sampler_pool);
        let prepared = pool.prepare(Handle(0), &c.op, p.precision).unwrap();
        prop_assert!(prepared.in_place.is_none());
        for (q, a) in queries.iter().zip(&want).take(16) {
            prop_assert_eq!(&prepared.per_read.gather(q).unwrap(), a);
        }
    }
}
