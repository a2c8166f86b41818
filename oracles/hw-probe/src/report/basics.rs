//! The analysis of phase basics: the gather order, and the patched kernels against ptxas's own.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::reading::{find, run_views, section, texel_of, RunView, Section};

pub(crate) fn basics(ph: &Value) -> Section {
    let mut s = section("Gather order and the patching itself (phase basics)");
    let runs = run_views(&ph["data"]);
    let Some(r) = find(&runs, "nat_2d_r", "idx8") else {
        s.lines.push("no data".into());
        return s;
    };
    // Queries at u*8 - 0.5 = i exactly (i0 = i) and v*8 - 0.5 = j + 0.25 (j0 = j): slots relative to (i0, j0).
    let mut orders: BTreeMap<String, usize> = BTreeMap::new();
    for (q, res) in r.queries.iter().zip(&r.results) {
        let i0 = (f32::from_bits(q[0]) * 8.0 - 0.5).floor() as i64;
        let j0 = (f32::from_bits(q[1]) * 8.0 - 0.5).floor() as i64;
        let slots: Vec<String> = res[..4]
            .iter()
            .map(|&b| match texel_of(b, 8, 8) {
                Some((_, i, j)) => format!("({:+},{:+})", i as i64 - i0, j as i64 - j0),
                None => "?".into(),
            })
            .collect();
        // Clamped footprints at the last row/column differ; count interior ones only.
        if i0 < 7 && j0 < 7 {
            *orders.entry(slots.join(" ")).or_default() += 1;
        }
    }
    s.lines.push(format!(
        "Slots (x, y, z, w) relative to (i0, j0), interior footprints: {orders:?}"
    ));
    s.lines
        .push("Vulkan's order would read `(+0,+1) (+1,+1) (+1,+0) (+0,+0)`.".into());
    let checks = patch_checks(&runs, &mut s);
    s.summary = json!({ "slot_orders": orders, "patch_checks": checks });
    s
}

/// The raw-patched kernels against PTX's (the same four words), the array without the gather
/// flag, and the s32/u32 kernels against the f32 one.
fn patch_checks(runs: &[RunView], s: &mut Section) -> serde_json::Map<String, Value> {
    let mut checks = serde_json::Map::new();
    let eq = |a: &str, b: &str, cols: usize| -> Option<(usize, usize)> {
        let (x, y) = (find(runs, a, "")?, find(runs, b, "")?);
        // A run that gave nothing (a patched variant off SM90) is not a comparison.
        if y.results.is_empty() {
            return None;
        }
        let same = x
            .results
            .iter()
            .zip(&y.results)
            .filter(|(p, q)| p[..cols] == q[1..1 + cols])
            .count();
        Some((same, x.results.len()))
    };
    for (a, b, what) in [
        (
            "nat_2d_r",
            "raw:2d",
            "raw `2d` (A = {u, v}) against PTX tld4.r.2d",
        ),
        (
            "nat_2d_r_aoffi_dc",
            "raw:same_2d_aoffi_dc",
            "raw copy of ptxas's AOFFI.DC word against PTX",
        ),
        (
            "nat_2d_r_aoffi_dc",
            "raw (unpatched)",
            "the unpatched raw kernel against PTX",
        ),
    ] {
        if let Some((same, n)) = eq(a, b, 4) {
            s.lines.push(format!(
                "- {what}: {same} of {n} queries give the same four words."
            ));
            checks.insert(b.into(), json!({ "same": same, "of": n }));
        }
    }
    if let (Some(a), Some(b)) = (
        find(runs, "nat_2d_r", "idx8"),
        find(runs, "nat_2d_r", "idx8_nogatherflag"),
    ) {
        let same = a
            .results
            .iter()
            .zip(&b.results)
            .filter(|(p, q)| p == q)
            .count();
        s.lines.push(format!(
            "- Without CUDA_ARRAY3D_TEXTURE_GATHER: {same} of {} queries unchanged.",
            a.results.len()
        ));
        checks.insert("no_gather_flag_same".into(), json!(same));
    }
    for k in ["nat_2d_r_s32", "nat_2d_r_u32"] {
        if let (Some(a), Some(b)) = (find(runs, "nat_2d_r", "idx8"), find(runs, k, "idx8")) {
            s.lines.push(format!(
                "- {k} (same word as f32, per ptxas): same results in {} of {} queries.",
                a.results
                    .iter()
                    .zip(&b.results)
                    .filter(|(p, q)| p == q)
                    .count(),
                a.results.len()
            ));
        }
    }
    checks
}
