//! Cube maps: face selection and its ties, seamless edges (every face and edge, checked
//! against the reference's geometric projection and against hand-worked cases), corners for
//! float, depth-compare and integer formats, non-seamless addressing, cube-array layers.

use crate::common;
use common::*;
use tld4_reference as reference;
use tld4_textures::*;

/// id of texel (x, y) of storage layer l (= cube * 6 + face).
fn id(l: u32, x: u32, y: u32) -> u32 {
    1000 * l + 10 * y + x + 1
}

fn ids(kind: TextureKind, n: u32, cubes: u32) -> Texture {
    texture(kind, Format::R32Uint, n, n, cubes, |l, x, y| {
        [id(l, x, y), 0, 0, 0]
    })
}

fn cube_op() -> GatherOp {
    GatherOp::new(TextureKind::Cube, 0)
}

/// The direction whose projection on `face` is (s, t), scaled by `m`.
fn direction(face: u32, s: f32, t: f32, m: f32) -> [f32; 3] {
    let (sc, tc) = (2.0 * s - 1.0, 2.0 * t - 1.0);
    let d = match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    };
    d.map(|v| v * m)
}

#[test]
fn face_selection_and_projection() {
    // +X: sc = -z, tc = -y
    let (f, s, t) = cube::project(1.0, 0.2, 0.3);
    assert_eq!(f, 0);
    assert!((s - 0.35).abs() < 1e-7 && (t - 0.4).abs() < 1e-7, "{s} {t}");
    // -X: sc = z, tc = -y
    let (f, s, t) = cube::project(-2.0, 1.0, 1.0);
    assert_eq!((f, s, t), (1, 0.75, 0.25));
    // +Y: sc = x, tc = z
    let (f, s, t) = cube::project(0.5, 1.0, -0.5);
    assert_eq!((f, s, t), (2, 0.75, 0.25));
    // -Y: sc = x, tc = -z
    let (f, s, t) = cube::project(0.5, -1.0, -0.5);
    assert_eq!((f, s, t), (3, 0.75, 0.75));
    // +Z: sc = x, tc = -y
    let (f, s, t) = cube::project(-0.5, -0.5, 1.0);
    assert_eq!((f, s, t), (4, 0.25, 0.75));
    // -Z: sc = -x, tc = -y
    let (f, s, t) = cube::project(-0.5, 0.5, -4.0);
    assert_eq!((f, s, t), (5, 0.5625, 0.4375));
}

#[test]
fn major_axis_ties_go_z_then_y_then_x() {
    assert_eq!(cube::project(1.0, 1.0, 1.0).0, 4);
    assert_eq!(cube::project(1.0, -1.0, -1.0).0, 5);
    assert_eq!(cube::project(1.0, 1.0, 0.5).0, 2);
    assert_eq!(cube::project(-1.0, -1.0, 0.0).0, 3);
    assert_eq!(cube::project(1.0, 0.0, 1.0).0, 4);
    assert_eq!(cube::project(-1.0, 0.5, 0.5).0, 1);
}

#[test]
fn gather_inside_a_face() {
    let tex = ids(TextureKind::Cube, 4, 1);
    for face in 0..6 {
        // s = 0.375, t = 0.625: u = 1.5, v = 2.5 -> i0 = 1, j0 = 2
        let [x, y, z] = direction(face, 0.375, 0.625, 3.0);
        let r = gather(
            &tex,
            &Sampler::default(),
            &cube_op(),
            &GatherQuery::at_cube(x, y, z),
        );
        assert_eq!(
            r.values,
            [
                id(face, 1, 3),
                id(face, 2, 3),
                id(face, 2, 2),
                id(face, 1, 2)
            ],
            "face {face}"
        );
    }
}

#[test]
fn seamless_edge_hand_worked() {
    let tex = ids(TextureKind::Cube, 2, 1);
    // On +X, s = 0.05 (u = 0.1, i0 = -1), t = 0.5 (v = 1, j0 = 0). +X's s = 0 edge is at
    // z = +1, which +Z holds at its s = 1 edge, same rows: (-1, j) -> (+Z, 1, j).
    let [x, y, z] = direction(0, 0.05, 0.5, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    assert_eq!(
        r.values,
        [id(4, 1, 1), id(0, 0, 1), id(0, 0, 0), id(4, 1, 0)]
    );
    // On +Y, t = 0.95 (v = 1.9, j1 = 2 off the t = 1 edge, at z = +1): +Z's top row (t = 0),
    // same columns: (i, 2) -> (+Z, i, 0).
    let [x, y, z] = direction(2, 0.5, 0.95, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    assert_eq!(
        r.values,
        [id(4, 0, 0), id(4, 1, 0), id(2, 1, 1), id(2, 0, 1)]
    );
    // On +X, t = 0.05 (j0 = -1, the t = 0 edge at y = +1): +Y's s = 1 column, rows flipped:
    // (i, -1) -> (+Y, 1, 1 - i).
    let [x, y, z] = direction(0, 0.5, 0.05, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    assert_eq!(
        r.values,
        [id(0, 0, 0), id(0, 1, 0), id(2, 1, 0), id(2, 1, 1)]
    );
}

#[test]
fn seamless_edges_agree_with_geometry_for_every_face_and_edge() {
    // The fast path's hand-made edge table against the reference's projection of texel
    // centres, for several sizes, every face, every edge, every texel along it.
    for n in 1..=5u32 {
        let tex = ids(TextureKind::Cube, n, 1);
        let nf = n as f32;
        for face in 0..6 {
            for k in 0..n {
                let along = (k as f32 + 0.75) / nf; // v = k + 0.75: j0 = k, away from boundaries
                let near = 0.2 / nf; // u = 0.2: the footprint starts at -1
                let far = 1.0 - near;
                for (s, t) in [(near, along), (far, along), (along, near), (along, far)] {
                    let [x, y, z] = direction(face, s, t, 1.0);
                    let q = GatherQuery::at_cube(x, y, z);
                    let fast = gather(&tex, &Sampler::default(), &cube_op(), &q);
                    let slow =
                        reference::gather(&tex, &Sampler::default(), &cube_op(), &q).unwrap();
                    assert_eq!(fast, slow, "n {n} face {face} k {k} s {s} t {t}");
                }
            }
        }
    }
}

#[test]
fn seamless_texel_maps_every_edge_texel_to_its_geometric_neighbour() {
    // Independent check of cube::seamless_texel: continue the texel centre past the edge,
    // project the direction, and find the texel that holds it.
    for n in 1..=4i64 {
        for face in 0..6u32 {
            for k in 0..n {
                for (i, j) in [(-1, k), (n, k), (k, -1), (k, n)] {
                    let (s, t) = ((i as f32 + 0.5) / n as f32, (j as f32 + 0.5) / n as f32);
                    let [x, y, z] = direction(face, s, t, 1.0);
                    let (f2, s2, t2) = cube::project(x, y, z);
                    let want = (
                        f2,
                        ((s2 * n as f64) as i64).min(n - 1),
                        ((t2 * n as f64) as i64).min(n - 1),
                    );
                    assert_eq!(
                        cube::seamless_texel(face, i, j, n),
                        Some(want),
                        "n {n} face {face} ({i}, {j})"
                    );
                }
            }
            assert_eq!(cube::seamless_texel(face, -1, -1, n), None);
            assert_eq!(cube::seamless_texel(face, n, -1, n), None);
        }
    }
}

#[test]
fn seamless_texel_reads_only_the_side_of_an_off_face_coordinate() {
    for n in 1..=5i64 {
        for face in 0..6u32 {
            for i in -8..n + 8 {
                for j in -8..n + 8 {
                    assert_eq!(
                        cube::seamless_texel(face, i, j, n),
                        cube::seamless_texel(face, i.clamp(-1, n), j.clamp(-1, n), n),
                        "n {n} face {face} ({i}, {j})"
                    );
                }
            }
        }
    }
}

/// A float cube whose texels are distinct: value = face * 8 + y * 2 + x + 1 (2x2 faces).
fn float_cube() -> Texture {
    texture(TextureKind::Cube, Format::R32Float, 2, 2, 1, |l, x, y| {
        [((l * 8 + y * 2 + x + 1) as f32).to_bits(), 0, 0, 0]
    })
}

#[test]
fn corner_of_a_float_cube_averages_the_other_three() {
    let tex = float_cube();
    // +X at s = t = 0.05: i0 = j0 = -1. (i0, j0) is the corner at direction (1, 1, 1).
    // (i0, j1) = (-1, 0) -> +Z (1, 0) = 4*8 + 0 + 1 + 1 = 34; (i1, j1) = (0, 0) on +X = 1;
    // (i1, j0) = (0, -1) -> +Y (1, 1) = 16 + 2 + 1 + 1 = 20.
    let [x, y, z] = direction(0, 0.05, 0.05, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    let v = r.as_f32();
    assert_eq!(&v[..3], &[34.0, 1.0, 20.0]);
    // lavapipe's arithmetic: ((0 + 20) + (34 + 1)) * (1/3 in f32)
    assert_eq!(v[3], 55.0f32 * (1.0f32 / 3.0));
    assert!(ulp_distance(v[3], 55.0 / 3.0) <= 1);
    // the reference takes the exact mean
    let slow = reference::gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    )
    .unwrap();
    assert_eq!(slow.as_f32()[3], (55.0f64 / 3.0) as f32);
    // the opposite corner of -Z: s = t = 0.95 -> i1 = j1 = 2, corner is (i1, j1), result 1
    let [x, y, z] = direction(5, 0.95, 0.95, 2.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    let v = r.as_f32();
    let others = v[0] + v[2] + v[3];
    assert!(ulp_distance(v[1], others / 3.0) <= 2, "{v:?}");
}

fn ulp_distance(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

#[test]
fn corner_with_depth_compare_compares_then_averages() {
    // D32 cube; +X (0, 0) = 0.2, +Z (1, 0) = 0.6, +Y (1, 1) = 0.9, everything else 0.5.
    let tex = texture(TextureKind::Cube, Format::D32Float, 2, 2, 1, |l, x, y| {
        let d = match (l, x, y) {
            (0, 0, 0) => 0.2f32,
            (4, 1, 0) => 0.6,
            (2, 1, 1) => 0.9,
            _ => 0.5,
        };
        [d.to_bits(), 0, 0, 0]
    });
    let op = GatherOp {
        compare: true,
        ..cube_op()
    };
    let sampler = Sampler {
        compare: Some(CompareOp::Less),
        ..Sampler::default()
    };
    let [x, y, z] = direction(0, 0.05, 0.05, 1.0);
    let at = |dref: f32| {
        gather(
            &tex,
            &sampler,
            &op,
            &GatherQuery::at_cube(x, y, z).with_dref(dref),
        )
    };
    // order: +Z(1,0)=0.6, +X(0,0)=0.2, +Y(1,1)=0.9, corner
    assert_eq!(at(0.1).values, [1.0f32, 1.0, 1.0, 1.0].map(f32::to_bits));
    assert_eq!(at(0.3).values[..3], [1.0f32, 0.0, 1.0].map(f32::to_bits));
    assert_eq!(at(0.3).values[3], 0x3f2a_aaab); // 2/3
    assert_eq!(at(0.7).values[3], 0x3eaa_aaab); // 1/3
    assert_eq!(at(0.95).values[3], 0); // 0
}

#[test]
fn corner_of_an_integer_cube_copies_the_texel_in_the_same_column() {
    let tex = ids(TextureKind::Cube, 2, 1);
    // +X corner at (i0, j0): copies (i0, j1) = (-1, 0) -> +Z (1, 0)
    let [x, y, z] = direction(0, 0.05, 0.05, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    assert_eq!(
        r.values,
        [id(4, 1, 0), id(0, 0, 0), id(2, 1, 1), id(4, 1, 0)]
    );
    // +X corner at (i1, j1) (s = t = 0.95): copies (i1, j0) = (2, 1) -> -Z (0, 1)
    let [x, y, z] = direction(0, 0.95, 0.95, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    assert_eq!(r.values[2], id(5, 0, 1));
    assert_eq!(r.values[1], r.values[2]);
}

#[test]
fn non_seamless_cube_uses_the_address_modes_on_the_face() {
    let tex = ids(TextureKind::Cube, 2, 1);
    let [x, y, z] = direction(0, 0.05, 0.5, 1.0);
    let q = GatherQuery::at_cube(x, y, z);
    let clamp = Sampler {
        seamless_cube: false,
        ..Sampler::default()
    };
    assert_eq!(
        gather(&tex, &clamp, &cube_op(), &q).values,
        [id(0, 0, 1), id(0, 0, 1), id(0, 0, 0), id(0, 0, 0)]
    );
    let repeat = Sampler {
        seamless_cube: false,
        ..Sampler::with_address(AddressMode::Repeat)
    };
    assert_eq!(
        gather(&tex, &repeat, &cube_op(), &q).values,
        [id(0, 1, 1), id(0, 0, 1), id(0, 0, 0), id(0, 1, 0)]
    );
    // seamless ignores the address modes
    let seamless_border = Sampler::with_address(AddressMode::ClampToBorder);
    assert_eq!(
        gather(&tex, &seamless_border, &cube_op(), &q),
        gather(&tex, &Sampler::default(), &cube_op(), &q)
    );
}

#[test]
fn cube_array_layers_count_whole_cubes_and_clamp() {
    let tex = ids(TextureKind::CubeArray, 2, 3);
    let op = GatherOp::new(TextureKind::CubeArray, 0);
    // -Y face (3), centre
    let [x, y, z] = direction(3, 0.5, 0.5, 1.0);
    for (layer, cube) in [(0u32, 0u32), (1, 1), (2, 2), (3, 2), (65535, 2)] {
        let r = gather(
            &tex,
            &Sampler::default(),
            &op,
            &GatherQuery::at_cube(x, y, z).with_layer(layer),
        );
        assert_eq!(r.values[3], id(cube * 6 + 3, 0, 0), "layer {layer}");
    }
    // seamless edges stay inside the cube: +X edge of cube 1 reads cube 1's +Z
    let [x, y, z] = direction(0, 0.05, 0.5, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &op,
        &GatherQuery::at_cube(x, y, z).with_layer(1),
    );
    assert_eq!(r.values[0], id(6 + 4, 1, 1));
}

#[test]
fn unnormalized_directions_project_the_same() {
    let tex = ids(TextureKind::Cube, 4, 1);
    for m in [0.001f32, 0.5, 1.0, 7.0, 1e6] {
        let [x, y, z] = direction(2, 0.3, 0.7, m);
        let r = gather(
            &tex,
            &Sampler::default(),
            &cube_op(),
            &GatherQuery::at_cube(x, y, z),
        );
        // u = 1.2 -> i0 = 0; v = 2.8 -> j0 = 2
        assert_eq!(r.values[3], id(2, 0, 2), "scale {m}");
    }
}

#[test]
fn cube_residency_is_per_face() {
    let desc = TextureDesc {
        kind: TextureKind::Cube,
        format: Format::R32Uint,
        width: 2,
        height: 2,
        layers: 1,
    };
    let mut map = Residency::all_resident(&desc, 2, 2).unwrap();
    map.set(4, 0, 0, false).unwrap(); // +Z
    let tex = Texture::from_fn(desc, |l, x, y| [id(l, x, y), 0, 0, 0])
        .unwrap()
        .with_residency(map)
        .unwrap();
    let centre = direction(0, 0.5, 0.5, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(centre[0], centre[1], centre[2]),
    );
    assert!(r.resident);
    // the +X footprint that crosses onto +Z is not resident
    let [x, y, z] = direction(0, 0.05, 0.5, 1.0);
    let r = gather(
        &tex,
        &Sampler::default(),
        &cube_op(),
        &GatherQuery::at_cube(x, y, z),
    );
    assert_eq!(
        r,
        GatherResult {
            values: [0; 4],
            resident: false
        }
    );
}

#[test]
fn offsets_on_cube_are_not_modeled() {
    let tex = ids(TextureKind::Cube, 2, 1);
    for offsets in [OffsetMode::Aoffi, OffsetMode::Ptp] {
        let op = GatherOp {
            offsets,
            ..cube_op()
        };
        let e = Gatherer::new(&tex, &Sampler::default(), &op, Precision::default()).unwrap_err();
        assert_eq!(
            e,
            Error::NotModeled(NotModeled::OffsetsOnCube(TextureKind::Cube))
        );
        assert!(e.is_not_modeled());
        assert!(
            reference::gather(&tex, &Sampler::default(), &op, &GatherQuery::default()).is_err()
        );
    }
}

/// A NaN direction can select a face its coordinates lie off ((1.5, NaN, 3): every
/// comparison with NaN fails, so +X is chosen and s = -0.5), and the footprint then takes
/// two corners. The fast path (every level), the per-read path and the reference agree: the
/// last corner is filled from the other three texels, the other reads 0. (The fast path
/// filled the first one until the in-place memory tests compared it with the per-read path.)
#[test]
fn two_corner_footprints_fill_the_last_corner_as_the_reference_does() {
    for n in [1u32, 4] {
        let tex = texture(TextureKind::Cube, Format::Rgba8Unorm, n, n, 1, |l, x, y| {
            [(40 * l + 7 * y + 3 * x + 11) & 255, 0, 0, 255]
        });
        let (sampler, op) = (Sampler::default(), cube_op());
        let q = GatherQuery::at_cube(1.4951756, f32::NAN, 3.0);
        let sites = SiteGatherer::new(&tex, &sampler, &op, Precision::Exact).unwrap();
        let corners = sites
            .sites(&q)
            .iter()
            .filter(|s| **s == Site::Corner)
            .count();
        assert_eq!(corners, 2, "size {n}");
        let per_read = sites.gather(&q).unwrap();
        assert_eq!(per_read.values[2], 0, "size {n}: the first corner reads 0");
        assert_ne!(per_read.values[3], 0, "size {n}: the last corner is filled");
        if n == 1 {
            // (on a 1x1 face the reference's geometric hops read the same texels; it averages
            // the corner in f64: within one unit in the last place. On larger faces a
            // footprint this far off its face hops elsewhere in the reference)
            let r = reference::gather(&tex, &sampler, &op, &q).unwrap();
            assert_eq!(per_read.values[..3], r.values[..3], "size {n}: per read");
            assert!(
                r.values[3].abs_diff(per_read.values[3]) <= 1,
                "{per_read:?} {r:?}"
            );
        }
        let want = per_read;
        let g = Gatherer::new(&tex, &sampler, &op, Precision::Exact).unwrap();
        for level in [SimdLevel::Scalar, SimdLevel::Portable, SimdLevel::Avx2] {
            let qs = [q; 32];
            let mut out = [GatherResult::default(); 32];
            g.gather_many_at(level, &qs, &mut out);
            assert!(
                out.iter().all(|r| *r == want),
                "size {n} at {level:?}: {:?}",
                out[0]
            );
        }
    }
}
