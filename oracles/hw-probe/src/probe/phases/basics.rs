//! Phases info (device attributes, a smoke gather) and basics (the gather order at texel
//! centres; the raw-patched kernels against ptxas's own).

use serde_json::{json, Value};

use crate::cuda;
use crate::probe::context::{runs_json, Ctx, Run};
use crate::probe::queries::{f, nq, nq2, rq};
use crate::probe::texture::{index_texture, Kind};
use crate::probe::SENTINELS;
use crate::ptx::{RAW_Q_WORDS, RAW_R_WORDS};

pub(crate) fn phase_info(cx: &mut Ctx) -> Result<Value, String> {
    let c = &cx.cuda;
    let attrs = [
        ("compute_capability_major", cuda::ATTR_CC_MAJOR),
        ("compute_capability_minor", cuda::ATTR_CC_MINOR),
        ("multiprocessors", cuda::ATTR_MP_COUNT),
        ("sparse_cuda_array_supported", cuda::ATTR_SPARSE_ARRAY),
        ("max_texture2d_gather_width", cuda::ATTR_TEX2D_GATHER_WIDTH),
    ];
    let mut a = serde_json::Map::new();
    for (n, id) in attrs {
        a.insert(
            n.into(),
            c.attribute(id)
                .map(|v| json!(v))
                .unwrap_or_else(|e| json!(e.to_string())),
        );
    }
    let t = index_texture("idx4", Kind::D2, 4, 4, 1);
    let tex = cx.texture(&t)?;
    let run = cx.nat_run(
        "nat_2d_r",
        &tex,
        "idx4",
        &[nq2(0.5, 0.5), nq2(0.125, 0.125)],
    );
    cx.drop_texture(tex)?;
    Ok(json!({ "attributes": a, "smoke": run }))
}

pub(crate) fn phase_basics(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = index_texture("idx8", Kind::D2, 8, 8, 1);
    let tex = cx.texture(&t)?;
    let mut qs = Vec::new();
    for j in 0..8 {
        for i in 0..8 {
            // Texel centres and quarter points: u*8 - 0.5 = i + {0, 0.25}.
            qs.push(nq2((i as f32 + 0.5) / 8.0, (j as f32 + 0.75) / 8.0));
        }
    }
    for k in [
        "nat_2d_r",
        "nat_2d_g",
        "nat_2d_b",
        "nat_2d_a",
        "nat_2d_r_s32",
        "nat_2d_r_u32",
    ] {
        runs.push(cx.nat_run(k, &tex, "idx8", &qs));
    }
    // The same queries through raw registers, and PTX's AOFFI+DC against the raw copy of its word.
    let rqs: Vec<[u32; 8]> = qs
        .iter()
        .map(|q| rq([q[0], q[1], 0, 0], [0, 0, 0, 0]))
        .collect();
    runs.push(cx.raw_run("2d", &tex, "idx8", &rqs));
    let offs = [(0, 0), (1, 0), (0, 1), (-1, -1), (3, -2), (-8, 7)];
    let mut q2 = Vec::new();
    let mut r2 = Vec::new();
    for (n, q) in qs.iter().enumerate() {
        let o = offs[n % offs.len()];
        let dref = 0.5f32;
        q2.push(nq([q[0], q[1], 0, 0], o, dref));
        // ptxas packs the AOFFI register as x & 0x3f | (y << 8) & 0x3f00 (docs/sources.md).
        let packed = (o.0 as u32 & 0x3f) | ((o.1 as u32) << 8 & 0x3f00);
        r2.push(rq([q[0], q[1], 0, 0], [packed, f(dref), 0, 0]));
    }
    runs.push(cx.nat_run("nat_2d_r_aoffi_dc", &tex, "idx8", &q2));
    runs.push(cx.raw_run("same_2d_aoffi_dc", &tex, "idx8", &r2));
    // The unpatched raw kernel (a TLD4 that ptxas set up itself, from the first coordinate
    // a0 ^ (c0 & b3) with b3 = 0): Rb = {offset packed by ptxas from B[0], B[1]; dref B[2]}.
    let f_raw = cx
        .cuda
        .function(&cx.native, "raw")
        .map_err(|e| e.to_string())?;
    let mut q3 = Vec::new();
    for (n, q) in qs.iter().enumerate() {
        let o = offs[n % offs.len()];
        q3.extend_from_slice(&[q[0], q[1], 0, 0, o.0 as u32, o.1 as u32, f(0.5), 0]);
        q3.extend_from_slice(&SENTINELS);
    }
    let o3 = cx.launch(f_raw, &tex, &q3, qs.len(), RAW_R_WORDS);
    runs.push(Run {
        kernel: "raw (unpatched)".into(),
        sass: cx.sass_of("raw"),
        texture: "idx8".into(),
        queries: q3
            .chunks_exact(RAW_Q_WORDS)
            .map(|c| c[..8].to_vec())
            .collect(),
        // D, the TLD4's own destination here, then P: recorded as (P, D[0..4]).
        results: o3
            .as_ref()
            .map(|o| {
                o.chunks_exact(RAW_R_WORDS)
                    .map(|c| vec![c[4], c[0], c[1], c[2], c[3]])
                    .collect()
            })
            .unwrap_or_default(),
        echo_mismatches: None,
        error: o3.err(),
    });
    cx.drop_texture(tex)?;
    // Without the CUDA_ARRAY3D_TEXTURE_GATHER flag.
    let mut t2 = index_texture("idx8_nogatherflag", Kind::D2, 8, 8, 1);
    t2.gather_flag = false;
    let tex = cx.texture(&t2)?;
    runs.push(cx.nat_run("nat_2d_r", &tex, "idx8_nogatherflag", &qs));
    cx.drop_texture(tex)?;
    Ok(runs_json(runs))
}
