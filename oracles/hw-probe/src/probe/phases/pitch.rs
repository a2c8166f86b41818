//! Phase pitch: a texture over pitch-linear device memory against the memory-form model.

use serde_json::{json, Value};

use crate::cuda::{self, TextureDesc};
use crate::probe::context::{runs_json, Ctx};
use crate::probe::queries::nq2;
use crate::probe::texture::Tex;

/// A texture over pitch-linear device memory the probe fills (CUDA's PITCH2D resource, rows
/// padded with a sentinel), gathered by TLD4 and compared with tld4-textures' memory-form
/// model reading the same bytes ([`crate::pitch_model`]).
pub(crate) fn phase_pitch(cx: &mut Ctx) -> Result<Value, String> {
    use crate::pitch_model as pm;
    let align = cx
        .cuda
        .attribute(cuda::ATTR_TEXTURE_PITCH_ALIGNMENT)
        .map_err(|e| e.to_string())?
        .max(32) as u32;
    let row_alignment = align.next_multiple_of(32).max(128);
    let (bytes, pitch) = pm::image(row_alignment)?;
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let dev = cx.cuda.upload(&words).map_err(|e| e.to_string())?;
    let desc = TextureDesc {
        address_mode: [cuda::ADDR_CLAMP; 3],
        filter_mode: cuda::FILTER_POINT,
        flags: cuda::TRSF_NORMALIZED_COORDINATES,
        ..Default::default()
    };
    let obj = cx.cuda.tex_object_pitch2d(
        dev,
        cuda::FMT_FLOAT,
        1,
        pm::W as usize,
        pm::H as usize,
        pitch as usize,
        &desc,
    );
    let obj = match obj {
        Ok(o) => o,
        Err(e) => {
            let _ = cx.cuda.free(dev);
            return Ok(json!({ "error": e.to_string(), "device_address": dev, "pitch": pitch }));
        }
    };
    let tex = Tex {
        obj,
        array_flags: 0,
        arr: None,
    };
    let qs = pm::queries();
    let nqs: Vec<[u32; 7]> = qs.iter().map(|&(u, v)| nq2(u, v)).collect();
    let mut runs = Vec::new();
    let mut checks = Vec::new();
    for (kernel, component) in [("nat_2d_r", 0u8), ("nat_2d_g", 1)] {
        let run = cx.nat_run(kernel, &tex, "pitch2d_idx13x7", &nqs);
        let model = pm::expected(&bytes, row_alignment, dev, component, &qs)?;
        let bad = pm::mismatches(&run.results, &model);
        checks.push(json!({
            "kernel": kernel,
            "queries": qs.len(),
            "model": model,
            "mismatches": bad,
            "ran": run.error.is_none(),
        }));
        runs.push(run);
    }
    cx.drop_texture(tex)?;
    let _ = cx.cuda.free(dev);
    let mut v = runs_json(runs);
    v["pitch2d"] = json!({
        "device_address": dev,
        "pitch": pitch,
        "row_alignment": row_alignment,
        "device_pitch_alignment": align,
        "width": pm::W,
        "height": pm::H,
        "padding_sentinel": pm::PAD,
        "checks": checks,
    });
    Ok(v)
}
