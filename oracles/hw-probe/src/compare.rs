//! The device's results compared lane by lane with tld4's model (tld4-textures' gather, the
//! project's NVIDIA model with its default sub-texel precision): every `nat_*` run on an index
//! texture, both ends of every run of every sub-texel sweep, and every code of the UNORM/SNORM/
//! HALF/integer conversion tables, normalized or unnormalized coordinates. What cannot be
//! compared is listed with the reason (patched variants, CUDA's compare-less depth sampler,
//! textures tld4 cannot rebuild from the record), never silently dropped.

use serde::Serialize;
use serde_json::Value;
use tld4_textures::{
    AddressMode, BorderColor, Format, GatherOp, GatherQuery, Gatherer, OffsetMode, Precision,
    Sampler, Texture, TextureDesc, TextureKind,
};

use crate::cuda;
use crate::ptx::{nat_kernels, Geom};

/// Most differing lanes kept per run (the count is always whole).
pub const KEEP_DIFFS: usize = 8;

/// One lane where the GPU and tld4 differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaneDiff {
    /// Index of the query in its run (for a sweep: the coordinate's bits).
    pub lane: u64,
    /// The query record (`nat_*`: c0..c3, offset x, offset y, dref; sweep: the coordinate).
    pub query: Vec<u32>,
    /// What the GPU returned: d0..d3 and the resident flag (1 = resident).
    pub gpu: Vec<u32>,
    /// What tld4 returns for it, in the same order.
    pub tld4: Vec<u32>,
}

/// A run compared with tld4.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunComparison {
    /// The phase.
    pub phase: String,
    /// The kernel (`nat_2d_r`), or `sweep` for a sub-texel sweep, or `table` for a conversion.
    pub kernel: String,
    /// The texture's name in the run (for a table: the format's).
    pub texture: String,
    /// Lanes compared.
    pub lanes: usize,
    /// Lanes equal bit for bit.
    pub equal: usize,
    /// The first [`KEEP_DIFFS`] differing lanes.
    pub first_differences: Vec<LaneDiff>,
}

/// A run not compared, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The phase.
    pub phase: String,
    /// The kernel.
    pub kernel: String,
    /// The texture.
    pub texture: String,
    /// Why tld4 was not asked.
    pub why: String,
}

/// Everything compared.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// Compared runs, in phase order.
    pub runs: Vec<RunComparison>,
    /// Runs left out, with the reason.
    pub skipped: Vec<Skipped>,
}

impl Comparison {
    /// (lanes, equal) over the runs of `phase`.
    pub fn totals(&self, phase: &str) -> (usize, usize) {
        self.runs
            .iter()
            .filter(|r| r.phase == phase)
            .fold((0, 0), |(l, e), r| (l + r.lanes, e + r.equal))
    }
}

fn u(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|x| u32::try_from(x).ok())
}

fn words(v: &Value) -> Option<Vec<u32>> {
    v.as_array()?.iter().map(u).collect()
}

/// The texture an index-texture record describes, with the sampler CUDA's texture descriptor
/// names; `Err` says why tld4 cannot stand in for it.
fn model_of(spec: &Value) -> Result<(Texture, Sampler), String> {
    let content = spec["content"].as_str().unwrap_or("");
    if !content.starts_with("R32F index") || u(&spec["format"]) != Some(cuda::FMT_FLOAT) {
        return Err(format!(
            "texture content not rebuilt by the comparison: {content}"
        ));
    }
    let flags = u(&spec["flags"]).unwrap_or(0);
    let (w, h, layers) = (
        u(&spec["w"]).ok_or("no w")?,
        u(&spec["h"]).ok_or("no h")?,
        u(&spec["layers"]).unwrap_or(1).max(1),
    );
    let (kind, model_layers) = match spec["kind"].as_str() {
        Some("d2") => (TextureKind::Tex2D, 1),
        Some("layered") => (TextureKind::Tex2DArray, layers),
        Some("cube") => (TextureKind::Cube, 1),
        Some("cube_layered") => (TextureKind::CubeArray, layers / 6),
        k => return Err(format!("texture kind {k:?}")),
    };
    let desc = TextureDesc {
        kind,
        format: Format::R32Float,
        width: w,
        height: h,
        layers: model_layers,
    };
    // The probe's index texture: texel (i, j) of storage layer l = 1 + i + w*j + w*h*l
    // (probe::texture::index_texture).
    let tex = Texture::from_fn(desc, |l, x, y| {
        [((1 + x + w * y + w * h * l) as f32).to_bits(), 0, 0, 0]
    })
    .map_err(|e| e.to_string())?;
    // CUaddress_mode (cuda.h: CU_TR_ADDRESS_MODE_WRAP, _CLAMP, _MIRROR, _BORDER) -> the
    // Vulkan modes tld4 models, by their names: repeat, clamp to edge, mirrored repeat, clamp
    // to border. A guess to be checked by the run (phase address compares all four).
    let mode = match u(&spec["addr"]) {
        Some(cuda::ADDR_WRAP) => AddressMode::Repeat,
        Some(cuda::ADDR_CLAMP) => AddressMode::ClampToEdge,
        Some(cuda::ADDR_MIRROR) => AddressMode::MirroredRepeat,
        Some(cuda::ADDR_BORDER) => AddressMode::ClampToBorder,
        m => return Err(format!("address mode {m:?}")),
    };
    let border: Vec<f32> = spec["border"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(0.0) as f32).collect())
        .unwrap_or_default();
    let mut s = Sampler::with_address(mode);
    if let [r, g, b, a] = border[..] {
        s.border = BorderColor::from_f32([r, g, b, a]);
    }
    // CU_TRSF_SEAMLESS_CUBEMAP asks for seamless edges; without it CUDA addresses each face
    // alone (cuda.h).
    s.seamless_cube = flags & cuda::TRSF_SEAMLESS_CUBEMAP != 0;
    // CU_TRSF_NORMALIZED_COORDINATES clear: coordinates in texels (docs/sources.md,
    // Unnormalized coordinates).
    s.normalized_coords = flags & cuda::TRSF_NORMALIZED_COORDINATES != 0;
    Ok((tex, s))
}

/// The 6-bit signed value ptxas packs an AOFFI offset into (docs/sources.md, What ptxas emits).
fn offset6(v: u32) -> i8 {
    (((v & 0x3f) as i8) << 2) >> 2
}

/// tld4's answer to a `nat_*` query record: d0..d3 and the resident flag.
fn nat_query(g: &Gatherer<'_>, geom: Geom, q: &[u32]) -> Vec<u32> {
    let fl = |i: usize| f32::from_bits(q.get(i).copied().unwrap_or(0));
    let mut gq = match geom {
        Geom::D2 => GatherQuery::at(fl(0), fl(1)),
        Geom::A2d => GatherQuery::at(fl(1), fl(2)),
        Geom::Cube => GatherQuery::at_cube(fl(0), fl(1), fl(2)),
        Geom::Acube => GatherQuery::at_cube(fl(1), fl(2), fl(3)),
    };
    if matches!(geom, Geom::A2d | Geom::Acube) {
        gq.layer = q[0];
    }
    gq.offsets[0] = [
        offset6(q.get(4).copied().unwrap_or(0)),
        offset6(q.get(5).copied().unwrap_or(0)),
    ];
    let r = g.gather(&gq);
    let mut v = r.values.to_vec();
    v.push(r.resident as u32);
    v
}

fn textures_by_name<'a>(phase: &'a Value, name: &str) -> Vec<&'a Value> {
    phase["textures"]
        .as_array()
        .map(|a| a.iter().filter(|t| t["name"] == name).collect())
        .unwrap_or_default()
}

/// Every object in `v` shaped like a run (kernel, texture, queries, results).
fn runs_in<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("kernel") && m.contains_key("queries") && m.contains_key("results") {
                out.push(v);
            } else {
                m.values().for_each(|x| runs_in(x, out));
            }
        }
        Value::Array(a) => a.iter().for_each(|x| runs_in(x, out)),
        _ => {}
    }
}

fn compare_lanes(
    phase: &str,
    kernel: &str,
    texture: &str,
    lanes: impl Iterator<Item = (u64, Vec<u32>, Vec<u32>, Vec<u32>)>,
) -> RunComparison {
    let mut rc = RunComparison {
        phase: phase.into(),
        kernel: kernel.into(),
        texture: texture.into(),
        lanes: 0,
        equal: 0,
        first_differences: Vec::new(),
    };
    for (lane, query, gpu, tld4) in lanes {
        rc.lanes += 1;
        if gpu == tld4 {
            rc.equal += 1;
        } else if rc.first_differences.len() < KEEP_DIFFS {
            rc.first_differences.push(LaneDiff {
                lane,
                query,
                gpu,
                tld4,
            });
        }
    }
    rc
}

fn compare_run(pname: &str, phase: &Value, run: &Value) -> Result<RunComparison, String> {
    let kernel = run["kernel"].as_str().unwrap_or("");
    let texture = run["texture"].as_str().unwrap_or("");
    if let Some(e) = run["error"].as_str() {
        return Err(format!("the run gave no results: {e}"));
    }
    let k = nat_kernels()
        .into_iter()
        .find(|k| k.name == kernel)
        .ok_or_else(|| {
            "not a nat_* kernel (patched variants are checked against their stated models only)"
                .to_string()
        })?;
    if k.dc {
        return Err("depth compare: CUDA's sampler has no compare function, so no tld4 model applies (see the dc section)".into());
    }
    let specs = textures_by_name(phase, texture);
    let spec = match specs[..] {
        [s] => s,
        [] => return Err("texture not recorded".into()),
        [s, ..] if specs.iter().all(|t| *t == s) => s,
        _ => return Err("several textures of that name in the phase".into()),
    };
    let (tex, sampler) = model_of(spec)?;
    let comp = "rgba".find(k.comp).unwrap_or(0) as u8;
    let mut op = GatherOp::new(tex.desc().kind, comp);
    if k.aoffi {
        op.offsets = OffsetMode::Aoffi;
    }
    let g = Gatherer::new(&tex, &sampler, &op, Precision::default()).map_err(|e| e.to_string())?;
    let qs: Vec<Vec<u32>> = run["queries"]
        .as_array()
        .map(|a| a.iter().filter_map(words).collect())
        .unwrap_or_default();
    let rs: Vec<Vec<u32>> = run["results"]
        .as_array()
        .map(|a| a.iter().filter_map(words).collect())
        .unwrap_or_default();
    if qs.len() != rs.len() {
        return Err(format!("{} queries, {} results", qs.len(), rs.len()));
    }
    Ok(compare_lanes(
        pname,
        kernel,
        texture,
        qs.into_iter().zip(rs).enumerate().map(|(i, (q, r))| {
            let t = nat_query(&g, k.geom, &q);
            (i as u64, q, r, t)
        }),
    ))
}

/// Both ends of every run of each sub-texel sweep (`phase subtexel`): the lanes on either side
/// of each change of footprint, where the sub-texel rule decides.
fn compare_sweeps(ph: &Value, cmp: &mut Comparison) {
    for sw in ph["data"]["sweeps"].as_array().into_iter().flatten() {
        let name = sw["texture"].as_str().unwrap_or("").to_string();
        let skip = |why: String| Skipped {
            phase: "subtexel".into(),
            kernel: "sweep".into(),
            texture: name.clone(),
            why,
        };
        let (Some(w), Some(h)) = (u(&sw["w"]), u(&sw["h"])) else {
            cmp.skipped.push(skip("no size".into()));
            continue;
        };
        let flags = if sw["normalized"] == true {
            cuda::TRSF_NORMALIZED_COORDINATES
        } else {
            0
        };
        let spec = serde_json::json!({ "content": "R32F index", "format": cuda::FMT_FLOAT,
            "flags": flags, "w": w, "h": h, "layers": 1, "kind": "d2",
            "addr": cuda::ADDR_CLAMP, "border": [0.0, 0.0, 0.0, 0.0] });
        let (tex, sampler) = match model_of(&spec) {
            Ok(m) => m,
            Err(e) => {
                cmp.skipped.push(skip(e));
                continue;
            }
        };
        let g = match Gatherer::new(
            &tex,
            &sampler,
            &GatherOp::new(TextureKind::Tex2D, 0),
            Precision::default(),
        ) {
            Ok(g) => g,
            Err(e) => {
                cmp.skipped.push(skip(e.to_string()));
                continue;
            }
        };
        let axis_u = sw["axis"] == "u";
        let other = u(&sw["other_coordinate_bits"]).unwrap_or(0);
        let mut lanes = Vec::new();
        for r in sw["runs"].as_array().into_iter().flatten() {
            let (Some(first), Some(last), Some(res)) = (u(&r[0]), u(&r[1]), words(&r[2])) else {
                continue;
            };
            for c in if first == last {
                vec![first]
            } else {
                vec![first, last]
            } {
                let q = if axis_u { [c, other] } else { [other, c] };
                let t = nat_query(&g, Geom::D2, &q);
                lanes.push((c as u64, vec![c], res.clone(), t));
            }
        }
        let label = format!(
            "{name} {} k={}",
            sw["axis"].as_str().unwrap_or("?"),
            sw["k"]
        );
        cmp.runs.push(compare_lanes(
            "subtexel",
            "sweep",
            &label,
            lanes.into_iter(),
        ));
    }
}

/// tld4's conversion of one texel code of `format` (a 1x1 texture gathered).
fn convert(format: Format, code: u32) -> Option<u32> {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format,
        width: 1,
        height: 1,
        layers: 1,
    };
    let tex = Texture::from_fields(desc, &[code]).ok()?;
    let s = Sampler::default();
    let g = Gatherer::new(
        &tex,
        &s,
        &GatherOp::new(TextureKind::Tex2D, 0),
        Precision::default(),
    )
    .ok()?;
    Some(g.gather(&GatherQuery::at(0.5, 0.5)).values[0])
}

/// The conversion tables of phase unorm, code by code.
fn compare_tables(ph: &Value, cmp: &mut Comparison) {
    // The phase's table names -> tld4's formats (each a 1-channel format of that encoding).
    const TABLES: [(&str, Format); 9] = [
        ("unorm8", Format::R8Unorm),
        ("snorm8", Format::R8Snorm),
        ("uint8", Format::R8Uint),
        ("sint8", Format::R8Sint),
        ("unorm16", Format::R16Unorm),
        ("snorm16", Format::R16Snorm),
        ("half", Format::R16Float),
        ("uint16", Format::R16Uint),
        ("sint16", Format::R16Sint),
    ];
    for (name, format) in TABLES {
        let Some(hex) = ph["data"][name]["table_hex"].as_str() else {
            continue;
        };
        let lanes = hex
            .as_bytes()
            .chunks(8)
            .enumerate()
            .filter_map(|(code, c)| {
                let got = u32::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok()?;
                let want = convert(format, code as u32)?;
                Some((code as u64, vec![code as u32], vec![got], vec![want]))
            });
        cmp.runs.push(compare_lanes("unorm", "table", name, lanes));
    }
}

/// Compares a whole `hw_results.json` with tld4.
pub fn compare_results(results: &Value) -> Comparison {
    let mut cmp = Comparison::default();
    let Some(phases) = results["phases"].as_object() else {
        return cmp;
    };
    for (pname, ph) in phases {
        match pname.as_str() {
            "subtexel" => compare_sweeps(ph, &mut cmp),
            "unorm" => compare_tables(ph, &mut cmp),
            _ => {}
        }
        let mut runs = Vec::new();
        runs_in(&ph["data"], &mut runs);
        for run in runs {
            match compare_run(pname, ph, run) {
                Ok(rc) => cmp.runs.push(rc),
                Err(why) => cmp.skipped.push(Skipped {
                    phase: pname.clone(),
                    kernel: run["kernel"].as_str().unwrap_or("").into(),
                    texture: run["texture"].as_str().unwrap_or("").into(),
                    why,
                }),
            }
        }
    }
    cmp
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aoffi_offsets_are_six_bit_signed() {
        assert_eq!(offset6(0), 0);
        assert_eq!(offset6(31), 31);
        assert_eq!(offset6(32), -32);
        assert_eq!(offset6(-1i32 as u32), -1);
        assert_eq!(offset6(-8i32 as u32), -8);
    }

    fn spec(flags: u32) -> Value {
        json!({ "name": "idx4", "kind": "d2", "w": 4, "h": 4, "layers": 1, "format": cuda::FMT_FLOAT,
            "channels": 1, "addr": cuda::ADDR_CLAMP, "filter": 0, "flags": flags,
            "border": [0.0, 0.0, 0.0, 0.0], "content": "R32F index: texel (i, j) of layer l = 1 + i + w*j + w*h*l" })
    }

    /// A results document with one phase holding `runs` on the 4x4 index texture.
    fn doc(flags: u32, runs: Value) -> Value {
        json!({ "phases": { "basics": { "ok": true, "textures": [spec(flags)], "data": runs } } })
    }

    #[test]
    fn a_2d_run_is_compared_lane_by_lane_and_a_wrong_lane_is_caught() {
        let f = |x: f32| x.to_bits();
        // (0.375, 0.375): u = v = 1.5 on 4 texels, footprint i0 = j0 = 1, texels (1,2) (2,2)
        // (2,1) (1,1) in Vulkan's gather order: 1 + i + 4j = 10, 11, 7, 6. With AOFFI (1, -1):
        // i0 = 2, j0 = 0: (2,1) (3,1) (3,0) (2,0) = 7, 8, 4, 3.
        let right = [10.0f32, 11.0, 7.0, 6.0].map(f);
        let offs = [7.0f32, 8.0, 4.0, 3.0].map(f);
        let q = |o: (i32, i32)| json!([f(0.375), f(0.375), 0, 0, o.0 as u32, o.1 as u32, 0]);
        let runs = json!([
            { "kernel": "nat_2d_r", "texture": "idx4", "queries": [q((0, 0)), q((0, 0))],
              "results": [[right[0], right[1], right[2], right[3], 1], [right[0], right[1], right[2], right[3] ^ 1, 1]] },
            { "kernel": "nat_2d_r_aoffi", "texture": "idx4", "queries": [q((1, -1))],
              "results": [[offs[0], offs[1], offs[2], offs[3], 1]] },
            { "kernel": "raw:2d", "texture": "idx4", "queries": [], "results": [] },
            { "kernel": "nat_2d_r_dc", "texture": "idx4", "queries": [], "results": [] }
        ]);
        let c = compare_results(&doc(cuda::TRSF_NORMALIZED_COORDINATES, runs));
        assert_eq!(c.runs.len(), 2);
        assert_eq!((c.runs[0].lanes, c.runs[0].equal), (2, 1));
        let d = &c.runs[0].first_differences[0];
        assert_eq!(d.lane, 1);
        assert_eq!(d.gpu[3], right[3] ^ 1);
        assert_eq!(d.tld4[3], right[3]);
        assert_eq!((c.runs[1].lanes, c.runs[1].equal), (1, 1));
        assert_eq!(c.totals("basics"), (3, 2));
        // The patched variant and the depth compare are listed as not compared, with why.
        assert_eq!(c.skipped.len(), 2);
        assert!(c.skipped[0].why.contains("patched variants"));
        assert!(c.skipped[1].why.contains("no compare function"));
    }

    #[test]
    fn unnormalized_coordinates_are_compared_and_unknown_textures_are_not() {
        let f = |x: f32| x.to_bits();
        // In texels, (1.5, 1.5) is the footprint of the normalized test's (0.375, 0.375):
        // texels (1,2) (2,2) (2,1) (1,1) = 10, 11, 7, 6.
        let right = [10.0f32, 11.0, 7.0, 6.0].map(f);
        let runs = json!([{ "kernel": "nat_2d_r", "texture": "idx4", "queries": [[f(1.5), f(1.5), 0, 0, 0, 0, 0]],
                            "results": [[right[0], right[1], right[2], right[3], 1]] },
                          { "kernel": "nat_2d_r", "texture": "nope", "queries": [], "results": [] }]);
        let c = compare_results(&doc(0, runs));
        assert_eq!((c.runs[0].lanes, c.runs[0].equal), (1, 1));
        assert_eq!(c.skipped.len(), 1);
        assert_eq!(c.skipped[0].why, "texture not recorded");
    }
}
