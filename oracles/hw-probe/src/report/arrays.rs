//! The analyses of arrays: cube maps (cube) and array layers (layers).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::reading::{run_views, section, texel_of, u, Section};

pub(crate) fn cube(ph: &Value) -> Section {
    let mut s = section("Cube maps (phase cube) - open question 4");
    let d = &ph["data"];
    let dirs: Vec<[f32; 3]> = d["directions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| [0, 1, 2].map(|i| a[i].as_f64().unwrap_or(0.0) as f32))
        .collect();
    let mut sum = Vec::new();
    s.lines.push(
        "Texels as F(i,j) with F the face (CUDA's layer order +x, -x, +y, -y, +z, -z = 0..5)."
            .into(),
    );
    for r in run_views(&d["runs"]) {
        let raw = r.kernel.starts_with("raw:");
        let (w, h) = (8, 8);
        let mut lines = Vec::new();
        let mut corner_faces: BTreeMap<usize, usize> = BTreeMap::new();
        for (qi, res) in r.results.iter().enumerate() {
            let vals = if raw { &res[1..5] } else { &res[..4] };
            let t: Vec<String> = vals
                .iter()
                .map(|&b| match texel_of(b, w, h) {
                    Some((l, i, j)) => format!(
                        "{}{}({i},{j})",
                        if l >= 6 {
                            format!("L{}:", l / 6)
                        } else {
                            String::new()
                        },
                        l % 6
                    ),
                    None => format!("{}", f32::from_bits(b)),
                })
                .collect();
            let faces: std::collections::BTreeSet<u32> = vals
                .iter()
                .filter_map(|&b| texel_of(b, w, h).map(|x| x.0))
                .collect();
            if r.texture.starts_with("cube8") && !r.texture.contains("x3") {
                let dir = dirs
                    .get(qi % dirs.len().max(1))
                    .copied()
                    .unwrap_or([0.0; 3]);
                let near_corner = dir.iter().filter(|c| c.abs() > 0.99).count() == 3;
                if near_corner {
                    *corner_faces.entry(faces.len()).or_default() += 1;
                }
                if qi < dirs.len() {
                    lines.push(format!("{:?} -> {}", dir, t.join(" ")));
                }
            } else {
                lines.push(format!("q{qi} -> {}", t.join(" ")));
            }
        }
        s.lines.push(format!("- {} on {}: corner queries (|x|,|y|,|z| > 0.99) by number of distinct faces in the footprint: {corner_faces:?}", r.kernel, r.texture));
        sum.push(json!({ "kernel": r.kernel, "texture": r.texture, "corner_face_counts": corner_faces, "texels": lines, "results": r.results }));
    }
    if let (Some(a), Some(b)) = (
        run_views(&d["runs"])
            .iter()
            .find(|r| r.kernel == "raw:cube")
            .map(|r| r.results.clone()),
        run_views(&d["runs"])
            .iter()
            .find(|r| r.kernel == "raw:scr_cube")
            .map(|r| r.results.clone()),
    ) {
        s.lines.push(format!(
            "- .SCR on cube gathers: {} of {} queries unchanged.",
            a.iter().zip(&b).filter(|(x, y)| x == y).count(),
            a.len()
        ));
    }
    if let Some(r) = run_views(&d["runs"])
        .iter()
        .find(|r| r.kernel == "raw:cube")
    {
        let n = dirs.len();
        if r.results.len() == 4 * n && n > 0 {
            let scales = ["x2", "x1/2", "x1000"];
            for (k, sname) in scales.iter().enumerate() {
                let same = (0..n)
                    .filter(|&i| r.results[i] == r.results[(k + 1) * n + i])
                    .count();
                s.lines.push(format!("- raw cube, direction scaled {sname}: {same} of {n} gathers equal the unscaled one."));
            }
        }
    }
    s.summary = json!(sum);
    s
}

pub(crate) fn layers(ph: &Value) -> Section {
    let mut s = section("Array layers (phase layers)");
    let d = &ph["data"];
    let mut sum = serde_json::Map::new();
    for r in run_views(&d["runs"]) {
        let raw = r.kernel.starts_with("raw:");
        let mut table = Vec::new();
        for (q, res) in r.queries.iter().zip(&r.results) {
            let v = if raw { res[1] } else { res[0] };
            let layer = texel_of(v, 8, 8).map(|x| x.0);
            table.push(json!([q[0], layer]));
        }
        s.lines.push(format!(
            "- {}: layer word -> layer used: {}",
            r.kernel,
            table
                .iter()
                .map(|t| format!("{:#x}->{}", u(&t[0]), t[1]))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        sum.insert(r.kernel.clone(), json!(table));
    }
    s.summary = Value::Object(sum);
    s
}
