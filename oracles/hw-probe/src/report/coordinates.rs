//! The analyses of coordinates: sub-texel precision (subtexel), address modes (address),
//! offsets (offsets).

use serde_json::{json, Value};

use super::reading::{find, fmt_texel, run_views, section, texel_of, u, Section, VULKAN_SLOTS};

pub(crate) fn subtexel(ph: &Value) -> Section {
    let mut s = section(
        "Sub-texel precision and rounding of texel selection (phase subtexel) - open question 3",
    );
    let mut out = Vec::new();
    s.lines.push("For each sweep: where the smaller texel index of the footprint turns from k-1 to k, as d = (x*size - 0.5 - k) * 256 (x the coordinate; d in 1/256 texel). Candidate rules: floor of an exact x*size - 0.5 puts the turn at d = 0; rounding x*size - 0.5 to 8 fractional bits (nearest) puts it at d = -0.5; truncating to 8 bits also at d = 0.".into());
    s.lines.push(
        "| texture | axis | k | normalized | filter | turns | last before (d) | first after (d) |"
            .into(),
    );
    s.lines.push("|---|---|---|---|---|---|---|---|".into());
    for sw in ph["data"]["sweeps"].as_array().into_iter().flatten() {
        let (w, h) = (u(&sw["w"]), u(&sw["h"]));
        let axis = sw["axis"].as_str().unwrap_or("u");
        let k = u(&sw["k"]) as i64;
        let normalized = sw["normalized"].as_bool().unwrap_or(true);
        let size = if axis == "u" { w } else { h } as f64;
        let scale = if normalized { size } else { 1.0 };
        let runs: Vec<(u32, u32, Vec<u32>)> = sw["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    u(&r[0]),
                    u(&r[1]),
                    r[2].as_array()
                        .map(|x| x.iter().map(u).collect())
                        .unwrap_or_default(),
                )
            })
            .collect();
        let idx_of = |res: &[u32]| -> Option<i64> {
            res[..4]
                .iter()
                .filter_map(|&b| texel_of(b, w, h))
                .map(|(_, i, j)| if axis == "u" { i as i64 } else { j as i64 })
                .min()
        };
        let d_of = |bits: u32| (f32::from_bits(bits) as f64 * scale - 0.5 - k as f64) * 256.0;
        let mut turns = Vec::new();
        for p in runs.windows(2) {
            if idx_of(&p[0].2) != idx_of(&p[1].2) {
                turns.push(json!({ "from": idx_of(&p[0].2), "to": idx_of(&p[1].2), "last_before_bits": p[0].1, "first_after_bits": p[1].0,
                                   "d_last_before": d_of(p[0].1), "d_first_after": d_of(p[1].0) }));
            }
        }
        let (lb, fa) = turns
            .first()
            .map(|t| {
                (
                    format!("{:.6}", t["d_last_before"].as_f64().unwrap_or(f64::NAN)),
                    format!("{:.6}", t["d_first_after"].as_f64().unwrap_or(f64::NAN)),
                )
            })
            .unwrap_or(("-".into(), "-".into()));
        s.lines.push(format!(
            "| {} | {axis} | {k} | {normalized} | {} | {} | {lb} | {fa} |",
            sw["texture"].as_str().unwrap_or(""),
            sw["filter"],
            turns.len()
        ));
        out.push(json!({ "texture": sw["texture"], "axis": axis, "k": k, "normalized": normalized, "filter": sw["filter"],
                         "stride_ulps": sw["stride_ulps"], "turns": turns }));
    }
    s.summary = json!(out);
    s
}

/// The texel index along one axis under an address mode (Vulkan's wrap, clamp-to-edge,
/// mirrored repeat, clamp-to-border; CUDA's modes map to these: cuda.h names them alike).
fn wrap(i: i64, n: i64, mode: &str) -> Option<i64> {
    match mode {
        "wrap" => Some(i.rem_euclid(n)),
        "clamp" => Some(i.clamp(0, n - 1)),
        "mirror" => {
            let m = i.rem_euclid(2 * n);
            Some(if m >= n { 2 * n - 1 - m } else { m })
        }
        _ => (0..n).contains(&i).then_some(i),
    }
}

pub(crate) fn address(ph: &Value) -> Section {
    let mut s = section("Address modes and border colours (phase address)");
    let mut sum = Vec::new();
    for r in run_views(&ph["data"]) {
        let mode = r.texture.rsplit('_').next().unwrap_or("");
        let unnorm = r.texture.contains("unnorm");
        let comp = match r.kernel.as_str() {
            "nat_2d_g" => 1,
            "nat_2d_b" => 2,
            "nat_2d_a" => 3,
            _ => 0,
        };
        let border = [-1.5f32, -2.5, -3.5, -4.5][comp];
        let (mut agree, mut n) = (0, 0);
        let mut bad = Vec::new();
        for (q, res) in r.queries.iter().zip(&r.results) {
            let (x, y) = (f32::from_bits(q[0]) as f64, f32::from_bits(q[1]) as f64);
            let (x, y) = if unnorm {
                (x - 0.5, y - 0.5)
            } else {
                (x * 4.0 - 0.5, y * 4.0 - 0.5)
            };
            let (i0, j0) = (x.floor() as i64, y.floor() as i64);
            // Texel selection is ambiguous within 2^-8 texel of a boundary: skip those queries.
            if (x - x.round()).abs() < 1.0 / 256.0 || (y - y.round()).abs() < 1.0 / 256.0 {
                continue;
            }
            n += 1;
            let want: Vec<u32> = VULKAN_SLOTS
                .iter()
                .map(|&(di, dj)| {
                    match (wrap(i0 + di as i64, 4, mode), wrap(j0 + dj as i64, 4, mode)) {
                        (Some(i), Some(j)) => {
                            if comp == 0 {
                                (1.0 + i as f32 + 4.0 * j as f32).to_bits()
                            } else {
                                // A 1-channel texture's missing G, B, A read 0, 0, 1 (Vulkan's rule).
                                [0.0f32, 0.0, 1.0][comp - 1].to_bits()
                            }
                        }
                        _ => border.to_bits(),
                    }
                })
                .collect();
            if res[..4] == want[..] {
                agree += 1;
            } else if bad.len() < 8 {
                bad.push(format!(
                    "({:.3},{:.3}) -> [{}] want [{}]",
                    f32::from_bits(q[0]),
                    f32::from_bits(q[1]),
                    res[..4]
                        .iter()
                        .map(|&b| fmt_texel(b, 4, 4))
                        .collect::<Vec<_>>()
                        .join(" "),
                    want.iter()
                        .map(|&b| fmt_texel(b, 4, 4))
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
        }
        s.lines.push(format!("- {} on {}: {agree} of {n} unambiguous queries match Vulkan's rule with Vulkan's slot order{}", r.kernel, r.texture, if bad.is_empty() { ".".into() } else { format!("; e.g. {}", bad.join("; ")) }));
        sum.push(json!({ "kernel": r.kernel, "texture": r.texture, "agree": agree, "of": n, "examples": bad }));
    }
    s.summary = json!(sum);
    s
}

fn sext6(x: u32) -> i64 {
    (((x & 0x3f) as i64) << 58) >> 58
}

pub(crate) fn offsets(ph: &Value) -> Section {
    let mut s = section("Offsets: AOFFI and PTP (phase offsets)");
    let runs = run_views(&ph["data"]);
    let mut sum = serde_json::Map::new();
    let base = |res: &[u32], slot: usize, w: u32, h: u32| -> Option<(i64, i64)> {
        let (_, i, j) = texel_of(res[slot], w, h)?;
        let (di, dj) = VULKAN_SLOTS[slot];
        Some((i as i64 - 31 - di as i64, j as i64 - 31 - dj as i64))
    };
    if let Some(r) = find(&runs, "nat_2d_r_aoffi", "") {
        let mut ok = 0;
        for (q, res) in r.queries.iter().zip(&r.results) {
            let want = (sext6(q[4]), sext6(q[5]));
            if base(res, 3, 64, 64) == Some((want.0.clamp(-31, 32), want.1.clamp(-31, 32))) {
                ok += 1;
            }
        }
        s.lines.push(format!("- PTX AOFFI: {ok} of {} queries move (i0, j0) by the offsets' low 6 bits, sign-extended (ptxas masks to 6 bits).", r.queries.len()));
        sum.insert(
            "ptx_aoffi_6bit".into(),
            json!({ "agree": ok, "of": r.queries.len() }),
        );
    }
    if let Some(r) = find(&runs, "raw:2d_aoffi", "") {
        let (mut six, mut eight) = (0, 0);
        let mut table = Vec::new();
        for (q, res) in r.queries.iter().zip(&r.results) {
            let got = base(&res[1..], 3, 64, 64);
            let x = q[4];
            let m6 = (sext6(x).clamp(-31, 32), sext6(x >> 8).clamp(-31, 32));
            let m8 = (
                ((x & 0xff) as i8 as i64).clamp(-31, 32),
                (((x >> 8) & 0xff) as i8 as i64).clamp(-31, 32),
            );
            six += (got == Some(m6)) as usize;
            eight += (got == Some(m8)) as usize;
            table.push(json!([x, got]));
        }
        s.lines.push(format!("- Raw AOFFI register (every byte of x and y, high bits): {six} of {} fit 6-bit signed fields at bits 0-5 and 8-13, {eight} fit 8-bit signed bytes.", r.queries.len()));
        sum.insert("raw_aoffi".into(), json!({ "six_bit": six, "eight_bit": eight, "of": r.queries.len(), "register_to_offset": table }));
    }
    for k in ["raw:2d_ptp", "raw:2d_ptp_dc", "raw:a2d_ptp"] {
        let Some(r) = find(&runs, k, "") else {
            continue;
        };
        let (w, h) = (64, 64);
        // Model (GLSL textureGatherOffsets, NAK's byte order): slot s fetches (i0, j0) +
        // (sext6(byte 2s), sext6(byte 2s+1)) of {ptp0, ptp1}, clamped to the texture.
        let (mut own, mut i0j0) = (0, 0);
        let mut n = 0;
        let mut rows_out = Vec::new();
        for (q, res) in r.queries.iter().zip(&r.results) {
            let bytes: Vec<u32> = (0..8)
                .map(|b| (q[4 + b / 4] >> (8 * (b % 4))) & 0xff)
                .collect();
            let got: Vec<Option<(u32, u32)>> = (0..4)
                .map(|sl| texel_of(res[1 + sl], w, h).map(|(_, i, j)| (i, j)))
                .collect();
            let mut m_own = true;
            let mut m_i0j0 = true;
            for sl in 0..4 {
                let (ox, oy) = (sext6(bytes[2 * sl]), sext6(bytes[2 * sl + 1]));
                let (di, dj) = VULKAN_SLOTS[sl];
                let c = |v: i64| v.clamp(0, 63) as u32;
                m_own &= got[sl] == Some((c(31 + di as i64 + ox), c(31 + dj as i64 + oy)));
                m_i0j0 &= got[sl] == Some((c(31 + ox), c(31 + oy)));
            }
            n += 1;
            own += m_own as usize;
            i0j0 += m_i0j0 as usize;
            rows_out.push(json!([q[4], q[5], got]));
        }
        s.lines.push(format!("- {k}: of {n} queries, {i0j0} fit 'slot s = texel (i0, j0) of the footprint offset by bytes (2s, 2s+1)' (GLSL textureGatherOffsets), {own} fit 'slot s keeps its own footprint position, offset by bytes (2s, 2s+1)'."));
        sum.insert(k.into(), json!({ "fits_i0j0_model": i0j0, "fits_own_position_model": own, "of": n, "rows": rows_out }));
    }
    s.summary = Value::Object(sum);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_models() {
        assert_eq!(wrap(-1, 4, "wrap"), Some(3));
        assert_eq!(wrap(-1, 4, "mirror"), Some(0));
        assert_eq!(wrap(4, 4, "mirror"), Some(3));
        assert_eq!(wrap(5, 4, "clamp"), Some(3));
        assert_eq!(wrap(4, 4, "border"), None);
        assert_eq!(sext6(0x3f), -1);
        assert_eq!(sext6(0x20), -32);
        assert_eq!(sext6(0x40), 0);
    }
}
