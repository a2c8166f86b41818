//! Phases about texel values and what the gather returns: format conversions (unorm),
//! components (components), F16 packing (f16) and depth compare (dc).

use serde_json::{json, Value};

use crate::cuda;
use crate::patch;
use crate::probe::context::{runs_json, Ctx};
use crate::probe::queries::{f, nq, nq2, rq, splitmix};
use crate::probe::texture::{block_texture, index_texture, Kind};

fn hex_words(v: &[u32]) -> String {
    v.iter().map(|x| format!("{x:08x}")).collect()
}

pub(crate) fn phase_unorm(cx: &mut Ctx) -> Result<Value, String> {
    let mut out = serde_json::Map::new();
    let cases: [(&str, u32, usize, usize, bool, &str); 9] = [
        ("unorm8", cuda::FMT_U8, 1, 256, false, "nat_2d_r"),
        ("snorm8", cuda::FMT_S8, 1, 256, false, "nat_2d_r"),
        ("uint8", cuda::FMT_U8, 1, 256, true, "nat_2d_r_u32"),
        ("sint8", cuda::FMT_S8, 1, 256, true, "nat_2d_r_s32"),
        ("unorm16", cuda::FMT_U16, 2, 65536, false, "nat_2d_r"),
        ("snorm16", cuda::FMT_S16, 2, 65536, false, "nat_2d_r"),
        ("half", cuda::FMT_HALF, 2, 65536, false, "nat_2d_r"),
        ("uint16", cuda::FMT_U16, 2, 65536, true, "nat_2d_r_u32"),
        ("sint16", cuda::FMT_S16, 2, 65536, true, "nat_2d_r_s32"),
    ];
    for (name, fmt, bytes, codes, int, kernel) in cases {
        let bw = if codes == 256 { 16 } else { 256 };
        let (mut t, qs) = block_texture(
            name,
            fmt,
            bytes,
            codes,
            bw,
            "2x2 blocks, block b (row-major) = code b",
        );
        if int {
            t.flags |= cuda::TRSF_READ_AS_INTEGER;
        }
        let tex = cx.texture(&t)?;
        let res = cx.nat(kernel, &tex, &qs)?;
        cx.drop_texture(tex)?;
        // Every block gathers four copies of one code: all four must agree.
        let disagree: Vec<usize> = res
            .iter()
            .enumerate()
            .filter(|(_, r)| !(r[0] == r[1] && r[1] == r[2] && r[2] == r[3]))
            .map(|(i, _)| i)
            .collect();
        let table: Vec<u32> = res.iter().map(|r| r[3]).collect();
        out.insert(
            name.into(),
            json!({ "kernel": kernel, "format": fmt, "read_as_integer": int, "codes": codes,
                    "table_hex": hex_words(&table), "blocks_with_differing_components": disagree }),
        );
    }
    Ok(Value::Object(out))
}

pub(crate) fn phase_components(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let qs = [nq2(0.5, 0.5), nq2(0.25, 0.75)];
    let kernels4 = ["nat_2d_r", "nat_2d_g", "nat_2d_b", "nat_2d_a"];
    for ch in [1u32, 2, 4] {
        let mut t = index_texture(&format!("f32x{ch}"), Kind::D2, 4, 4, 1);
        t.channels = ch;
        t.data.clear();
        for j in 0..4 {
            for i in 0..4 {
                for c in 0..ch as usize {
                    t.data
                        .extend_from_slice(&((1 + i + 4 * j + 100 * c) as f32).to_le_bytes());
                }
            }
        }
        t.content = "f32 channels: channel c of texel (i, j) = 1 + i + 4j + 100c".into();
        let tex = cx.texture(&t)?;
        for k in kernels4 {
            runs.push(cx.nat_run(k, &tex, &t.name, &qs));
        }
        cx.drop_texture(tex)?;
    }
    for (ch, int) in [(1u32, false), (4, false), (1, true), (2, true)] {
        let name = format!("u8x{ch}{}", if int { "_int" } else { "" });
        let mut t = index_texture(&name, Kind::D2, 4, 4, 1);
        t.format = cuda::FMT_U8;
        t.channels = ch;
        t.data = (0..16)
            .flat_map(|x| (0..ch).map(move |c| (x * 4 + c * 64 + 3) as u8))
            .collect();
        t.content = "u8 channels: channel c of texel x = i + 4j is 4x + 64c + 3".into();
        if int {
            t.flags |= cuda::TRSF_READ_AS_INTEGER;
        }
        let tex = cx.texture(&t)?;
        for k in kernels4 {
            runs.push(cx.nat_run(k, &tex, &name, &qs));
        }
        cx.drop_texture(tex)?;
    }
    Ok(runs_json(runs))
}

/// f32 values for the F16 tests: ties, values between halves, overflow, NaN, infinities,
/// subnormal halves, signed values, then random ones.
pub fn f16_test_values(n: usize) -> Vec<f32> {
    let h = |bits: u32| f32::from_bits(bits);
    let mut v: Vec<f32> = vec![
        1.0,
        -1.0,
        0.0,
        -0.0,
        0.5,
        2.0,
        65504.0,
        -65504.0,
        65519.0,
        65520.0,
        65536.0,
        1e6,
        -1e6,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        h(0x7fc0_1234),
        h(0xffc0_0000),
        h(0x7f80_0001),
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        1.0 + 1.0 / 4096.0,
        1.0 + 3.0 / 4096.0,
        -(1.0 + 3.0 / 4096.0),
        2f32.powi(-14),
        2f32.powi(-15),
        2f32.powi(-24),
        2f32.powi(-25),
        2f32.powi(-26),
        3.0 * 2f32.powi(-26),
        -2f32.powi(-24),
        1e-10,
        -1e-10,
        0.1,
        0.2,
        0.3,
        1.0 / 3.0,
        -1.0 / 3.0,
        1000.1,
        2049.0,
        4097.0,
    ];
    for (i, r) in splitmix(16, n).into_iter().enumerate() {
        if v.len() >= n {
            break;
        }
        let x = r as u32;
        // Exponents mostly in and around half precision's range.
        let e = 103 + (x >> 24) % 42;
        v.push(f32::from_bits((x & 0x807f_ffff) | e << 23) * if i % 7 == 0 { -1.0 } else { 1.0 });
    }
    v.truncate(n);
    v
}

pub(crate) fn phase_f16(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    // 32x32 texels: 256 blocks of 2x2 distinct values; one query per block centre.
    let vals = f16_test_values(1024);
    let mut t = index_texture("f16vals", Kind::D2, 32, 32, 1);
    t.data.clear();
    for j in 0..32usize {
        for i in 0..32usize {
            let b = (j / 2) * 16 + i / 2;
            let slot = (j % 2) * 2 + i % 2;
            t.data.extend_from_slice(&vals[b * 4 + slot].to_le_bytes());
        }
    }
    t.content = "R32F: block b = (j/2)*16 + i/2 holds f16_test_values(1024)[4b .. 4b+4], slot (j%2)*2 + i%2".into();
    let tex = cx.texture(&t)?;
    let qs: Vec<[u32; 8]> = (0..256)
        .map(|b| {
            rq(
                [
                    f(((b % 16) * 2 + 1) as f32 / 32.0),
                    f(((b / 16) * 2 + 1) as f32 / 32.0),
                    0,
                    0,
                ],
                [0; 4],
            )
        })
        .collect();
    runs.push(cx.raw_run("2d", &tex, "f16vals", &qs));
    for v in patch::variants()
        .iter()
        .filter(|v| v.name.starts_with("f16") && !v.risky)
    {
        let n = if v.mask == 0xf { 256 } else { 32 };
        runs.push(cx.raw_run(&v.name, &tex, "f16vals", &qs[..n]));
    }
    cx.drop_texture(tex)?;
    // UNORM8 codes straight to F16.
    let (tu, qu) = block_texture(
        "unorm8_blocks",
        cuda::FMT_U8,
        1,
        256,
        16,
        "2x2 blocks, block b = code b",
    );
    let tex = cx.texture(&tu)?;
    let qr: Vec<[u32; 8]> = qu.iter().map(|q| rq([q[0], q[1], 0, 0], [0; 4])).collect();
    runs.push(cx.raw_run("f16rn_mf", &tex, "unorm8_blocks", &qr));
    runs.push(cx.raw_run("f16rz_mf", &tex, "unorm8_blocks", &qr));
    cx.drop_texture(tex)?;
    Ok(
        json!({ "values_f32_bits": vals.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), "runs": runs }),
    )
}

pub(crate) fn phase_dc(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let mut drefs: Vec<f32> = vec![-1.0, 0.0];
    drefs.extend((0..17).map(|k| 0.05 + 0.1 * k as f32));
    drefs.extend([2.0, f32::INFINITY, f32::NAN]);
    for filter in [cuda::FILTER_POINT, cuda::FILTER_LINEAR] {
        let name = if filter == cuda::FILTER_POINT {
            "depth4_point"
        } else {
            "depth4_linear"
        };
        let mut t = index_texture(name, Kind::D2, 4, 4, 1);
        t.filter = filter;
        t.data = (0..16)
            .flat_map(|x| (0.1 * x as f32).to_le_bytes())
            .collect();
        t.content = "R32F: texel x = i + 4j holds 0.1 * x".into();
        let tex = cx.texture(&t)?;
        let qn: Vec<[u32; 7]> = drefs
            .iter()
            .map(|&d| nq([f(0.5), f(0.5), 0, 0], (0, 0), d))
            .collect();
        runs.push(cx.nat_run("nat_2d_r_dc", &tex, name, &qn));
        runs.push(cx.nat_run("nat_2d_r", &tex, name, &qn));
        let qr: Vec<[u32; 8]> = drefs
            .iter()
            .map(|&d| rq([f(0.5), f(0.5), 0, 0], [f(d), 0, 0, 0]))
            .collect();
        runs.push(cx.raw_run("2d_dc", &tex, name, &qr));
        cx.drop_texture(tex)?;
    }
    Ok(
        json!({ "drefs_f32_bits": drefs.iter().map(|d| d.to_bits()).collect::<Vec<_>>(), "runs": runs }),
    )
}
