//! Phases about arrays: cube maps and cube arrays (cube), 2D array layers (layers).

use serde_json::{json, Value};

use crate::cuda;
use crate::probe::context::Ctx;
use crate::probe::queries::{f, nq, rq};
use crate::probe::texture::{index_texture, Kind};

/// Directions for the cube tests: face centres, points near edges and corners, and ties.
pub fn cube_directions() -> Vec<[f32; 3]> {
    let mut v = Vec::new();
    for axis in 0..3 {
        for s in [1.0f32, -1.0] {
            let mut d = [0.3f32, -0.2, 0.1];
            d[axis] = s;
            v.push(d);
        }
    }
    for sx in [1.0f32, -1.0] {
        for sy in [1.0f32, -1.0] {
            for sz in [1.0f32, -1.0] {
                for delta in [0.0f32, 1.0 / 1024.0, 1.0 / 16.0, 0.125] {
                    let e = 1.0 - delta;
                    v.push([sx, sy * e, sz * e]);
                    v.push([sx * e, sy, sz * e]);
                    v.push([sx * e, sy * e, sz]);
                }
                // Near an edge, away from the corner.
                v.push([sx, sy * (1.0 - 1.0 / 64.0), sz * 0.3]);
                v.push([sx * 0.3, sy, sz * (1.0 - 1.0 / 64.0)]);
            }
        }
    }
    // Ties of the major axis.
    v.extend([
        [1.0, 1.0, 0.5],
        [0.5, 1.0, 1.0],
        [1.0, 0.5, 1.0],
        [1.0, 1.0, 1.0],
        [-1.0, -1.0, -1.0],
        [1.0, -1.0, 0.0],
    ]);
    v
}

pub(crate) fn phase_cube(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let dirs = cube_directions();
    for seamless in [true, false] {
        let name = if seamless { "cube8_seamless" } else { "cube8" };
        let mut t = index_texture(name, Kind::Cube, 8, 8, 6);
        if seamless {
            t.flags |= cuda::TRSF_SEAMLESS_CUBEMAP;
        }
        let tex = cx.texture(&t)?;
        let qn: Vec<[u32; 7]> = dirs
            .iter()
            .map(|d| nq([f(d[0]), f(d[1]), f(d[2]), 0], (0, 0), 0.0))
            .collect();
        runs.push(cx.nat_run("nat_cube_r", &tex, name, &qn));
        if seamless {
            runs.push(cx.nat_run("nat_cube_g", &tex, name, &qn));
            // Raw: the direction unnormalized, scaled by 1, 2, 1/2 and 1000 (ptxas divides by the
            // major axis first; the raw word shows what the unit does with other lengths).
            let mut qr = Vec::new();
            for s in [1.0f32, 2.0, 0.5, 1000.0] {
                for d in &dirs {
                    qr.push(rq([f(d[0] * s), f(d[1] * s), f(d[2] * s), 0], [0; 4]));
                }
            }
            runs.push(cx.raw_run("cube", &tex, name, &qr));
            runs.push(cx.raw_run("scr_cube", &tex, name, &qr));
        }
        cx.drop_texture(tex)?;
    }
    // Cube arrays: 3 cubes; layers in and out of range.
    let t = index_texture("cube8x3", Kind::CubeLayered, 8, 8, 18);
    let tex = cx.texture(&t)?;
    let some = &dirs[..6];
    let mut qn = Vec::new();
    let mut qr = Vec::new();
    for layer in [-1i32, 0, 1, 2, 3, 100, 65535, 65536] {
        for d in some {
            qn.push(nq([layer as u32, f(d[0]), f(d[1]), f(d[2])], (0, 0), 0.0));
            qr.push(rq([layer as u32, f(d[0]), f(d[1]), f(d[2])], [0; 4]));
        }
    }
    runs.push(cx.nat_run("nat_acube_r", &tex, "cube8x3", &qn));
    runs.push(cx.raw_run("acube", &tex, "cube8x3", &qr));
    cx.drop_texture(tex)?;
    Ok(json!({ "directions": dirs, "runs": runs }))
}

pub(crate) fn phase_layers(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = index_texture("idx8x4layers", Kind::Layered, 8, 8, 4);
    let tex = cx.texture(&t)?;
    let c = f(4.25 / 8.0);
    let ptx_layers: [i32; 12] = [
        i32::MIN,
        -70000,
        -1,
        0,
        1,
        2,
        3,
        4,
        5,
        65535,
        65536,
        i32::MAX,
    ];
    let qn: Vec<[u32; 7]> = ptx_layers
        .iter()
        .map(|&l| nq([l as u32, c, c, 0], (0, 0), 0.0))
        .collect();
    runs.push(cx.nat_run("nat_a2d_r", &tex, "idx8x4layers", &qn));
    let raw_layers: [u32; 18] = [
        0,
        1,
        2,
        3,
        4,
        5,
        0xffff,
        0x1_0000,
        0x1_0001,
        0x1_0003,
        0x1_ffff,
        0xffff_0001,
        0xffff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0x3f80_0000,
        0x4000_0000,
        0x0002_0002,
    ];
    let qr: Vec<[u32; 8]> = raw_layers
        .iter()
        .map(|&l| rq([l, c, c, 0], [0; 4]))
        .collect();
    runs.push(cx.raw_run("a2d", &tex, "idx8x4layers", &qr));
    let qo: Vec<[u32; 7]> = [0i32, 2, 5]
        .iter()
        .map(|&l| nq([l as u32, c, c, 0], (1, -1), 0.0))
        .collect();
    runs.push(cx.nat_run("nat_a2d_r_aoffi", &tex, "idx8x4layers", &qo));
    cx.drop_texture(tex)?;
    Ok(json!({ "ptx_layers": ptx_layers, "raw_layers": raw_layers, "runs": runs }))
}
