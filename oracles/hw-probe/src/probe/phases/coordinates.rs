//! Phases about coordinates: sub-texel precision (subtexel), address modes and borders
//! (address), offsets AOFFI and PTP (offsets).

use serde_json::{json, Value};

use crate::cuda;
use crate::probe::context::{runs_json, Ctx};
use crate::probe::queries::{f, nq, nq2, rq, splitmix};
use crate::probe::texture::{index_texture, Kind};

/// Run-length encoding of a sweep: (first coordinate bits, last coordinate bits, result).
fn rle(coords: &[u32], res: &[[u32; 5]]) -> Vec<(u32, u32, [u32; 5])> {
    let mut out: Vec<(u32, u32, [u32; 5])> = Vec::new();
    for (c, r) in coords.iter().zip(res) {
        match out.last_mut() {
            Some(last) if last.2 == *r => last.1 = *c,
            _ => out.push((*c, *c, *r)),
        }
    }
    out
}

/// Coordinates around `centre` in steps of `stride` ulps, `n` steps each side (positive floats:
/// the bit pattern orders them).
fn ulp_sweep(centre: f32, n: u32, stride: u32) -> Vec<u32> {
    let c = centre.to_bits();
    (0..=2 * n).map(|k| c - n * stride + k * stride).collect()
}

pub(crate) fn phase_subtexel(cx: &mut Ctx) -> Result<Value, String> {
    // (w, h, axis, k list, normalized, filter): the i0 (or j0) transition from k-1 to k lies
    // near u*w - 0.5 = k (Vulkan's texel selection, i0 = floor(u*w - 0.5)).
    let p = cuda::FILTER_POINT;
    let l = cuda::FILTER_LINEAR;
    let sweeps: Vec<(usize, usize, char, Vec<usize>, bool, u32)> = vec![
        (16, 16, 'u', vec![1, 4, 8, 12, 15], true, p),
        (16, 16, 'v', vec![4, 8], true, p),
        (16, 16, 'u', vec![8], true, l),
        (16, 16, 'u', vec![4, 8], false, p),
        (4096, 4, 'u', vec![1, 1000, 2048, 4095], true, p),
        (65536, 2, 'u', vec![1, 30000, 65535], true, p),
        (3, 3, 'u', vec![1, 2], true, p),
        (1000, 2, 'u', vec![1, 500, 999], true, p),
    ];
    let mut out = Vec::new();
    for (w, h, axis, ks, normalized, filter) in sweeps {
        let mut t = index_texture(&format!("idx{w}x{h}"), Kind::D2, w, h, 1);
        t.filter = filter;
        if !normalized {
            t.flags &= !cuda::TRSF_NORMALIZED_COORDINATES;
        }
        let tex = cx.texture(&t)?;
        for &k in &ks {
            let size = if axis == 'u' { w } else { h };
            let scale = if normalized { size as f64 } else { 1.0 };
            let centre = ((k as f64 + 0.5) / scale) as f32;
            // A window of +-4/256 texel, at most 65536 steps each side.
            let window = 4.0 / 256.0 / scale;
            let ulp = (f32::from_bits(centre.to_bits() + 1) - centre) as f64;
            let steps = (window / ulp).ceil() as u32;
            let stride = steps.div_ceil(65536).max(1);
            let n = steps / stride;
            let coords = ulp_sweep(centre, n, stride);
            // The other coordinate at a texel centre + 1/4 texel, away from its own boundary.
            let other = if normalized {
                ((if axis == 'u' { h } else { w }) as f32 / 2.0 + 0.25)
                    / (if axis == 'u' { h } else { w }) as f32
            } else {
                (if axis == 'u' { h } else { w }) as f32 / 2.0 + 0.25
            };
            let qs: Vec<[u32; 7]> = coords
                .iter()
                .map(|&c| {
                    if axis == 'u' {
                        nq([c, f(other), 0, 0], (0, 0), 0.0)
                    } else {
                        nq([f(other), c, 0, 0], (0, 0), 0.0)
                    }
                })
                .collect();
            let res = cx.nat("nat_2d_r", &tex, &qs)?;
            out.push(json!({
                "texture": t.name, "w": w, "h": h, "axis": axis.to_string(), "k": k,
                "normalized": normalized, "filter": filter,
                "other_coordinate_bits": f(other), "centre_bits": centre.to_bits(),
                "stride_ulps": stride, "steps_each_side": n,
                "runs": rle(&coords, &res),
            }));
        }
        cx.drop_texture(tex)?;
    }
    Ok(json!({ "kernel": "nat_2d_r", "sass": cx.sass_of("nat_2d_r"), "sweeps": out }))
}

pub(crate) fn phase_address(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let coords = [
        -1.125f32, -0.6, -0.125, -0.01, 0.01, 0.125, 0.5, 0.99, 1.01, 1.125, 1.6, 2.125,
    ];
    let mut qs = Vec::new();
    for &v in &coords {
        for &u in &coords {
            qs.push(nq2(u, v));
        }
    }
    let border = [-1.5f32, -2.5, -3.5, -4.5];
    for (mode, name) in [
        (cuda::ADDR_WRAP, "wrap"),
        (cuda::ADDR_CLAMP, "clamp"),
        (cuda::ADDR_MIRROR, "mirror"),
        (cuda::ADDR_BORDER, "border"),
    ] {
        let mut t = index_texture(&format!("idx4_{name}"), Kind::D2, 4, 4, 1);
        t.addr = mode;
        t.border = border;
        let tex = cx.texture(&t)?;
        runs.push(cx.nat_run("nat_2d_r", &tex, &t.name, &qs));
        if mode == cuda::ADDR_BORDER {
            for k in ["nat_2d_g", "nat_2d_b", "nat_2d_a"] {
                runs.push(cx.nat_run(k, &tex, &t.name, &qs));
            }
        }
        cx.drop_texture(tex)?;
    }
    // Unnormalized coordinates (CUDA allows clamp and border only there).
    let xs = [-2.5f32, -0.5, 0.0, 0.25, 0.5, 1.75, 3.5, 4.0, 4.5, 6.0];
    let mut qu = Vec::new();
    for &y in &xs {
        for &x in &xs {
            qu.push(nq2(x, y));
        }
    }
    for (mode, name) in [(cuda::ADDR_CLAMP, "clamp"), (cuda::ADDR_BORDER, "border")] {
        let mut t = index_texture(&format!("idx4_unnorm_{name}"), Kind::D2, 4, 4, 1);
        t.addr = mode;
        t.border = border;
        t.flags &= !cuda::TRSF_NORMALIZED_COORDINATES;
        let tex = cx.texture(&t)?;
        runs.push(cx.nat_run("nat_2d_r", &tex, &t.name, &qu));
        cx.drop_texture(tex)?;
    }
    Ok(runs_json(runs))
}

pub(crate) fn phase_offsets(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = index_texture("idx64", Kind::D2, 64, 64, 1);
    let tex = cx.texture(&t)?;
    // Footprint at i0 = j0 = 31 (u*64 - 0.5 = 31.75).
    let c = f(32.25 / 64.0);
    let mut qn = Vec::new();
    for o in -40..=40 {
        qn.push(nq([c, c, 0, 0], (o, 0), 0.0));
        qn.push(nq([c, c, 0, 0], (0, o), 0.0));
    }
    for (x, y) in [(5, -7), (-32, 31), (31, -32), (63, 64), (-33, 100)] {
        qn.push(nq([c, c, 0, 0], (x, y), 0.0));
    }
    runs.push(cx.nat_run("nat_2d_r_aoffi", &tex, "idx64", &qn));
    // The AOFFI register written raw: every byte value of x and of y, and high bits.
    let mut qa = Vec::new();
    for b in 0..256u32 {
        qa.push(rq([c, c, 0, 0], [b, 0, 0, 0]));
        qa.push(rq([c, c, 0, 0], [b << 8, 0, 0, 0]));
    }
    for hi in [
        0x0001_0000u32,
        0x00ff_0000,
        0xff00_0000,
        0xffff_0000,
        0x8000_0000,
    ] {
        qa.push(rq([c, c, 0, 0], [hi | 3 | 5 << 8, 0, 0, 0]));
    }
    runs.push(cx.raw_run("2d_aoffi", &tex, "idx64", &qa));
    // PTP: each byte of the two registers alone, then random registers.
    let mut qp = Vec::new();
    for reg in 0..2 {
        for byte in 0..4 {
            for val in [1u32, 2, 31, 32, 63, 64, 127, 128, 255] {
                let mut bv = [0u32; 4];
                bv[reg] = val << (8 * byte);
                qp.push(rq([c, c, 0, 0], bv));
            }
        }
    }
    for r in splitmix(5, 256).chunks_exact(2) {
        qp.push(rq([c, c, 0, 0], [r[0] as u32, r[1] as u32, 0, 0]));
    }
    runs.push(cx.raw_run("2d_ptp", &tex, "idx64", &qp));
    let qpd: Vec<[u32; 8]> = qp
        .iter()
        .take(80)
        .map(|q| rq([q[0], q[1], 0, 0], [q[4], q[5], f(100.0), 0]))
        .collect();
    runs.push(cx.raw_run("2d_ptp_dc", &tex, "idx64", &qpd));
    cx.drop_texture(tex)?;
    let ta = index_texture("idx64x3layers", Kind::Layered, 64, 64, 3);
    let tex = cx.texture(&ta)?;
    let qal: Vec<[u32; 8]> = qp
        .iter()
        .take(72)
        .map(|q| rq([1, c, c, 0], [q[4], q[5], 0, 0]))
        .collect();
    runs.push(cx.raw_run("a2d_ptp", &tex, "idx64x3layers", &qal));
    cx.drop_texture(tex)?;
    Ok(runs_json(runs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_and_rle() {
        let s = ulp_sweep(0.5, 3, 2);
        assert_eq!(s.len(), 7);
        assert_eq!(s[3], 0.5f32.to_bits());
        assert_eq!(s[4] - s[3], 2);
        let r = rle(&[1, 2, 3, 4], &[[0; 5], [0; 5], [1, 0, 0, 0, 0], [0; 5]]);
        assert_eq!(
            r,
            vec![(1, 2, [0; 5]), (3, 3, [1, 0, 0, 0, 0]), (4, 4, [0; 5])]
        );
    }
}
