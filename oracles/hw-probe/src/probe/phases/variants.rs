//! Phases made of the instruction's own fields, mostly through patched variants: write masks
//! and eviction (masks), the predicate destination (pred), `.SCR` (scr), and the risky
//! variants, one process each.

use serde_json::{json, Value};

use crate::cuda;
use crate::patch;
use crate::probe::context::{runs_json, Ctx};
use crate::probe::queries::{f, nq2, rq, splitmix};
use crate::probe::texture::{index_texture, rgba_index_texture, Kind, TexSpec};

pub(crate) fn phase_masks(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let t = rgba_index_texture();
    let tex = cx.texture(&t)?;
    let qs = [
        rq([f(0.5), f(0.5), 0, 0], [0; 4]),
        rq([f(0.25), f(0.75), 0, 0], [0; 4]),
    ];
    let names: Vec<String> = patch::variants()
        .into_iter()
        .filter(|v| {
            !v.risky
                && (v.name.starts_with("mask_")
                    || v.name.starts_with("rd2rz")
                    || v.name.starts_with("ev_")
                    || v.name == "nodep"
                    || v.name.starts_with("2d"))
                && !v.name.contains("ptp")
                && !v.name.contains("aoffi")
                && !v.name.contains("dc")
        })
        .map(|v| v.name)
        .collect();
    for n in names {
        runs.push(cx.raw_run(&n, &tex, "rgba32f", &qs));
    }
    cx.drop_texture(tex)?;
    Ok(runs_json(runs))
}

pub(crate) fn phase_pred(cx: &mut Ctx) -> Result<Value, String> {
    let mut runs = Vec::new();
    let qs = [nq2(0.5, 0.5), nq2(0.01, 0.99)];
    let rqs: Vec<[u32; 8]> = qs.iter().map(|q| rq([q[0], q[1], 0, 0], [0; 4])).collect();
    let mut notes = Vec::new();
    for sparse in [false, true] {
        let mut t = index_texture(
            if sparse {
                "sparse256_unmapped"
            } else {
                "dense256"
            },
            Kind::D2,
            256,
            256,
            1,
        );
        t.sparse = sparse;
        t.gather_flag = false;
        if sparse {
            t.content = "CUDA_ARRAY3D_SPARSE, no tile mapped".into();
        }
        let tex = match cx.texture(&t) {
            Ok(x) => x,
            Err(e) => {
                notes.push(e);
                continue;
            }
        };
        runs.push(cx.nat_run("nat_2d_r", &tex, &t.name, &qs));
        for v in ["2d", "pred_pt", "pred_p1"] {
            runs.push(cx.raw_run(v, &tex, &t.name, &rqs));
        }
        cx.drop_texture(tex)?;
    }
    Ok(
        json!({ "pred_store": cx.layout.as_ref().map(|l| l.raw.pred_store.clone()), "pred_stored_if_set": cx.layout.as_ref().map(|l| l.raw.pred_stored_if_set),
               "pred_stored_if_clear": cx.layout.as_ref().map(|l| l.raw.pred_stored_if_clear), "notes": notes, "runs": runs }),
    )
}

pub(crate) fn phase_scr(cx: &mut Ctx) -> Result<Value, String> {
    let t = index_texture("idx16", Kind::D2, 16, 16, 1);
    let tex = cx.texture(&t)?;
    // Random coordinates in [-0.25, 1.25), half of them within 2^-9 texel of a boundary.
    let r = splitmix(60, 4096);
    let qs: Vec<[u32; 8]> = r
        .chunks_exact(2)
        .enumerate()
        .map(|(i, p)| {
            let mut u = (p[0] >> 40) as f32 / (1u64 << 24) as f32 * 1.5 - 0.25;
            let mut v = (p[1] >> 40) as f32 / (1u64 << 24) as f32 * 1.5 - 0.25;
            if i % 2 == 0 {
                u = ((u * 16.0).round() + ((p[0] & 0xff) as f32 - 128.0) / 65536.0) / 16.0;
                v = ((v * 16.0).round() + ((p[1] & 0xff) as f32 - 128.0) / 65536.0) / 16.0;
            }
            rq([f(u), f(v), 0, 0], [0; 4])
        })
        .collect();
    let base = cx.raw("2d", &tex, &qs)?.0;
    let scr = cx.raw("scr", &tex, &qs)?.0;
    cx.drop_texture(tex)?;
    let diffs: Vec<Value> = qs
        .iter()
        .zip(base.iter().zip(&scr))
        .filter(|(_, (a, b))| a != b)
        .take(100)
        .map(|(q, (a, b))| json!({ "query": q, "scr_clear": a, "scr_set": b }))
        .collect();
    let ndiff = base.iter().zip(&scr).filter(|(a, b)| a != b).count();
    Ok(
        json!({ "texture": "idx16", "queries": qs.len(), "differing": ndiff, "first_differences": diffs,
               "sass_clear": cx.sass_of("raw:2d"), "sass_set": cx.sass_of("raw:scr") }),
    )
}

pub(crate) fn phase_risky(cx: &mut Ctx, variant: &str) -> Result<Value, String> {
    let (t, qs): (TexSpec, Vec<[u32; 8]>) = match variant {
        "risky_cube_aoffi" | "risky_cube_ptp" => (
            index_texture("cube8", Kind::Cube, 8, 8, 6),
            vec![rq(
                [f(1.0), f(0.3), f(-0.2), 0],
                [1 | 1 << 8, 0x0101_0101, 0, 0],
            )],
        ),
        "risky_f16rn_int" => {
            let mut t = index_texture("u8_int", Kind::D2, 4, 4, 1);
            t.format = cuda::FMT_U8;
            t.flags |= cuda::TRSF_READ_AS_INTEGER;
            t.data = (0..16).map(|x| x as u8 * 16 + 1).collect();
            (t, vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])])
        }
        "risky_2d_on_array" => (
            index_texture("idx8x4layers", Kind::Layered, 8, 8, 4),
            vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])],
        ),
        "risky_rd_odd_overlap" => (
            rgba_index_texture(),
            vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])],
        ),
        _ => (
            index_texture("idx4", Kind::D2, 4, 4, 1),
            vec![rq([f(0.5), f(0.5), 0, 0], [0; 4])],
        ),
    };
    let tex = cx.texture(&t)?;
    let run = cx.raw_run(variant, &tex, &t.name, &qs);
    let _ = cx.drop_texture(tex);
    Ok(match &run.error {
        None => json!({ "outcome": "completed", "run": run }),
        Some(e) => json!({ "outcome": "error", "error": e, "run": run }),
    })
}
