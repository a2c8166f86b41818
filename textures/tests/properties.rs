//! The fast path against the f64 reference over random textures, samplers and coordinates.
//!
//! With the default precision model the two must agree bit for bit away from texel
//! boundaries (where only the precision model decides); with `Precision::Exact` everywhere.
//! Seamless cube corners of non-integer results may differ by rounding (lavapipe's f32
//! arithmetic against the exact mean): within 4 ulp of the gathered values' magnitude there.

use crate::common;
use common::*;
use proptest::prelude::*;
use tld4_reference as reference;
use tld4_textures::*;

/// Everything a random case needs, as plain numbers.
#[derive(Debug, Clone)]
struct Params {
    format: usize,
    kind: usize,
    w: u32,
    h: u32,
    layers: u32,
    seed: u64,
    modes: [u8; 2],
    border: [u32; 4],
    compare: Option<u8>,
    seamless: bool,
    swizzle: [u8; 4],
    component: u8,
    offsets: u8,
}

fn params() -> impl Strategy<Value = Params> {
    (
        (
            0..Format::ALL.len(),
            0..4usize,
            1..7u32,
            1..7u32,
            1..4u32,
            any::<u64>(),
        ),
        (
            [0..5u8, 0..5u8],
            prop_oneof![
                Just([0u32; 4]),
                Just([1.0f32.to_bits(); 4]),
                Just([1, 1, 1, 1]),
                any::<[u32; 4]>(),
                (-2.0f32..2.0, -2.0f32..2.0).prop_map(|(a, b)| [
                    a.to_bits(),
                    b.to_bits(),
                    0x3f00_0000,
                    7
                ])
            ],
            prop::option::of(0..8u8),
            any::<bool>(),
            prop_oneof![3 => Just([0u8, 1, 2, 3]), 1 => [0..6u8, 0..6u8, 0..6u8, 0..6u8]],
            0..4u8,
            0..3u8,
        ),
    )
        .prop_map(
            |(
                (format, kind, w, h, layers, seed),
                (modes, border, compare, seamless, swizzle, component, offsets),
            )| {
                Params {
                    format,
                    kind,
                    w,
                    h,
                    layers,
                    seed,
                    modes,
                    border,
                    compare,
                    seamless,
                    swizzle,
                    component,
                    offsets,
                }
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
    let h = if kind.is_cube() { p.w } else { p.h };
    let layers = if kind.is_array() { p.layers } else { 1 };
    let mut state = p.seed;
    let tex = texture(kind, format, p.w, h, layers, |_, _, _| {
        std::array::from_fn(|i| {
            let r = splitmix(&mut state) as u32;
            if i < format.fields() && format.field_bits(i) < 32 {
                r & ((1 << format.field_bits(i)) - 1)
            } else if format.field_bits(i.min(format.fields() - 1)) == 32 && r.is_multiple_of(4) {
                // often a tame float
                ((r >> 8) as f32 / 1e6).to_bits()
            } else {
                r
            }
        })
    });
    let tex = tex.with_swizzle(Swizzle(p.swizzle.map(|i| Source::ALL[i as usize])));
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

/// A coordinate on an axis of `size` texels, away from texel boundaries: u = m + f with
/// f in [0.05, 0.45] or [0.55, 0.95]; returns (coordinate, i0).
fn away(m: i64, f: f64, size: u32) -> (f64, i64) {
    let f = if f < 0.5 {
        0.05 + f * 0.8
    } else {
        0.55 + (f - 0.5) * 0.8
    };
    let u = m as f64 + f;
    (u / size as f64, if f < 0.5 { m - 1 } else { m })
}

fn cube_direction(face: u32, s: f64, t: f64, scale: f64) -> [f32; 3] {
    let (sc, tc) = (2.0 * s - 1.0, 2.0 * t - 1.0);
    let d = match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    };
    d.map(|v| (v * scale) as f32)
}

/// Equal bits, or both NaN (float results); at a seamless cube corner (`scale` = the largest
/// magnitude among the gathered values) within 4 f32 ulps of that magnitude, since the two
/// sums round differently and may cancel.
fn same(a: u32, b: u32, float: bool, corner_scale: Option<f32>) -> bool {
    if a == b {
        return true;
    }
    if !float {
        return false;
    }
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    if x.is_nan() && y.is_nan() {
        return true;
    }
    match corner_scale {
        Some(m) if x.is_finite() && y.is_finite() => {
            ((x as f64) - (y as f64)).abs() <= m as f64 * 2f64.powi(-21)
        }
        Some(_) => {
            x.is_nan() == y.is_nan()
                && (x.is_finite() == y.is_finite())
                && (x.is_nan() || !x.is_finite())
        }
        None => false,
    }
}

fn magnitude(r: &GatherResult) -> f32 {
    r.as_f32()
        .iter()
        .filter(|v| v.is_finite())
        .fold(f32::MIN_POSITIVE, |m, v| m.max(v.abs()))
}

#[derive(Debug, Clone)]
struct Lane {
    m: [i64; 2],
    f: [f64; 2],
    face: u32,
    scale: f64,
    layer: u32,
    offsets: [[i8; 2]; 4],
    dref: f32,
}

fn lane() -> impl Strategy<Value = Lane> {
    (
        [-20..20i64, -20..20i64],
        [0.0..1.0f64, 0.0..1.0f64],
        0..6u32,
        0.25..8.0f64,
        0..6u32,
        any::<[[i8; 2]; 4]>(),
        prop_oneof![-0.25..1.25f32, Just(0.5f32), Just(1.0)],
    )
        .prop_map(|(m, f, face, scale, layer, offsets, dref)| Lane {
            m,
            f,
            face,
            scale,
            layer,
            offsets,
            dref,
        })
}

/// The lane's query, and the corner index if the footprint has one on a seamless cube.
fn query(case: &Case, l: &Lane) -> (GatherQuery, Option<usize>) {
    let w = case.tex.width();
    let h = case.tex.height();
    let mut q = GatherQuery {
        layer: l.layer,
        offsets: l.offsets,
        dref: l.dref,
        ..GatherQuery::default()
    };
    if case.tex.kind().is_cube() {
        // keep the face coordinate inside (0, 1): m in 0..size
        let mi = l.m[0].rem_euclid(w as i64);
        let mj = l.m[1].rem_euclid(w as i64);
        let (s, i0) = away(mi, l.f[0], w);
        let (t, j0) = away(mj, l.f[1], w);
        q.coords = cube_direction(l.face, s, t, l.scale);
        let n = w as i64;
        let off = |c: i64| c < 0 || c >= n;
        let corner = [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)]
            .iter()
            .position(|&(i, j)| off(i) && off(j));
        (q, corner.filter(|_| case.sampler.seamless_cube))
    } else {
        let (s, _) = away(l.m[0], l.f[0], w);
        let (t, _) = away(l.m[1], l.f[1], h);
        q.coords = [s as f32, t as f32, 0.0];
        (q, None)
    }
}

fn float_result(case: &Case) -> bool {
    case.op.compare || !case.tex.format().is_integer()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn fast_path_matches_reference_away_from_boundaries(p in params(), lanes in prop::collection::vec(lane(), 8)) {
        let case = build(&p);
        let g = Gatherer::new(&case.tex, &case.sampler, &case.op, Precision::default()).unwrap();
        for l in &lanes {
            let (q, corner) = query(&case, l);
            let fast = g.gather(&q);
            let slow = reference::gather(&case.tex, &case.sampler, &case.op, &q).unwrap();
            prop_assert_eq!(fast.resident, slow.resident);
            for k in 0..4 {
                let tol = (corner == Some(k)).then(|| magnitude(&slow));
                prop_assert!(
                    same(fast.values[k], slow.values[k], float_result(&case), tol),
                    "texel {}: fast {:?} reference {:?} query {:?} texture {:?} sampler {:?} op {:?}",
                    k, fast, slow, q, case.tex.desc(), case.sampler, case.op
                );
            }
        }
    }

    #[test]
    fn exact_precision_matches_reference_everywhere(
        p in params(),
        coords in prop::collection::vec(([-3.0f32..3.0, -3.0f32..3.0, -3.0f32..3.0], 0..8i64, 0..8i64, any::<bool>()), 8),
    ) {
        let case = build(&p);
        let g = Gatherer::new(&case.tex, &case.sampler, &case.op, Precision::Exact).unwrap();
        let (w, h) = (case.tex.width(), case.tex.height());
        for (c, mi, mj, on_boundary) in coords {
            let mut q = GatherQuery { coords: c, dref: 0.5, ..GatherQuery::default() };
            if on_boundary && !case.tex.kind().is_cube() {
                // exactly on texel centres, where u - 0.5 is an integer
                q.coords[0] = ((mi as f32) + 0.5) / w as f32;
                q.coords[1] = ((mj as f32) + 0.5) / h as f32;
            }
            let fast = g.gather(&q);
            let slow = reference::gather(&case.tex, &case.sampler, &case.op, &q).unwrap();
            prop_assert_eq!(fast.resident, slow.resident);
            let cube = case.tex.kind().is_cube() && case.sampler.seamless_cube;
            for k in 0..4 {
                // a seamless cube corner may be any of the four; allow the rounding there
                let tol = cube.then(|| magnitude(&slow));
                prop_assert!(
                    same(fast.values[k], slow.values[k], float_result(&case), tol),
                    "texel {}: fast {:?} reference {:?} query {:?} texture {:?}", k, fast, slow, q, case.tex.desc()
                );
            }
        }
    }

    #[test]
    fn gather_many_equals_gather_lane_by_lane(p in params(), lanes in prop::collection::vec(lane(), 1..40)) {
        let case = build(&p);
        let g = Gatherer::new(&case.tex, &case.sampler, &case.op, Precision::default()).unwrap();
        let qs: Vec<GatherQuery> = lanes.iter().map(|l| query(&case, l).0).collect();
        let mut out = vec![GatherResult::default(); qs.len()];
        g.gather_many(&qs, &mut out);
        for (q, r) in qs.iter().zip(&out) {
            prop_assert_eq!(*r, g.gather(q));
        }
    }

    #[test]
    fn gathers_never_panic_on_any_bits(p in params(), raw in prop::collection::vec(any::<[u32; 3]>(), 8), layer in any::<u32>()) {
        let case = build(&p);
        let g = Gatherer::new(&case.tex, &case.sampler, &case.op, Precision::default()).unwrap();
        for r in raw {
            let q = GatherQuery { coords: r.map(f32::from_bits), layer, ..GatherQuery::default() };
            let a = g.gather(&q);
            if !a.resident {
                prop_assert_eq!(a.values, [0; 4]);
            }
        }
    }
}
