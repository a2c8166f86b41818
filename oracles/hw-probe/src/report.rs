//! Turns `hw_results.json` into golden data (`hw_sm_XY_<gpu>.json`, committed under tests/golden/) and a report that
//! says, for each open question (docs/sources.md, Open questions), what was measured.
//!
//! The analyses assume only what the probe's textures hold (every texel names itself) and
//! state each model they compare against; where a result fits no model they say so.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

use crate::probe::SENTINELS;

// ---------------------------------------------------------------------------------------------
// Exact arithmetic used by the models

/// The f32 nearest to num/den (ties to even), exactly (num < 2^40, 0 < den < 2^24).
pub fn ratio_to_f32(num: u64, den: u64) -> f32 {
    if num == 0 {
        return 0.0;
    }
    // Scale so that q = floor(num * 2^s / den) has 25 significant bits (24 + a rounding bit).
    let mut s: i32 = 0;
    let (n, d) = (num as u128, den as u128);
    while (n << s.max(0)) >> (-s).max(0) < d << 24 {
        s += 1;
    }
    while (n << s.max(0)) >> (-s).max(0) >= d << 25 {
        s -= 1;
    }
    let scaled_n = if s >= 0 { n << s } else { n };
    let scaled_d = if s >= 0 { d } else { d << (-s) };
    let q = scaled_n / scaled_d;
    let exact = scaled_n % scaled_d == 0;
    // q has 25 bits: drop one, round half to even (sticky from the remainder).
    let mut m = q >> 1;
    let half = q & 1 == 1;
    if half && (!exact || m & 1 == 1) {
        m += 1;
    }
    (m as f64 * 2f64.powi(1 - s)) as f32
}

/// binary16 rounding modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfRound {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
}

/// f32 -> binary16 bits in the given mode (IEEE 754; NaN -> quiet NaN with the top payload
/// bits kept, as the `half` crate does; the hardware's NaN is what the probe measures).
pub fn f32_to_f16(x: f32, mode: HalfRound) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return if man == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | (man >> 13) as u16
        };
    }
    // Value = 1.man * 2^(exp-127); half: normal exponents -14..15.
    let e = exp - 127;
    let full: u64 = if exp == 0 {
        man as u64
    } else {
        (man | 0x80_0000) as u64
    }; // * 2^(e_eff - 23)
    let e_eff = if exp == 0 { -126 } else { e };
    // Target: integer count of half ulps; half ulp = 2^(max(e_eff, -14) - 10).
    let ulp_exp = e_eff.max(-14) - 10;
    let shift = ulp_exp - (e_eff - 23); // right shift of `full`
    let (q, rem_nonzero, half_bit) = if shift <= 0 {
        (full << (-shift), false, false)
    } else if shift >= 64 {
        (0, full != 0, false)
    } else {
        let q = full >> shift;
        let rem = full & ((1u64 << shift) - 1);
        let halfv = 1u64 << (shift - 1);
        (q, rem != 0 && rem != halfv, rem >= halfv)
    };
    let mut q = q;
    if mode == HalfRound::Rn && half_bit && (rem_nonzero || q & 1 == 1) {
        q += 1;
    }
    // q counts ulps of 2^ulp_exp; encode.
    let bits: u64 = if ulp_exp == -24 {
        // Subnormal range or the smallest normal: q < 2^11 means value q * 2^-24.
        q
    } else {
        let be = (ulp_exp + 10 + 15) as u64; // biased exponent for q in [2^10, 2^11)
        if q >= 1 << 11 {
            ((be + 1) << 10) | ((q >> 1) & 0x3ff)
        } else {
            (be << 10) | (q & 0x3ff)
        }
    };
    if bits >= 0x7c00 {
        return sign
            | if mode == HalfRound::Rn {
                0x7c00
            } else {
                0x7bff
            };
    }
    sign | bits as u16
}

/// binary16 bits -> f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f32;
    match e {
        0 => sign * m * 2f32.powi(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        31 => {
            f32::from_bits(0x7fc0_0000 | ((h & 0x3ff) as u32) << 13 | ((h & 0x8000) as u32) << 16)
        }
        _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading results

fn u(v: &Value) -> u32 {
    v.as_u64().unwrap_or(0) as u32
}

fn rows(v: &Value) -> Vec<Vec<u32>> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    r.as_array()
                        .map(|x| x.iter().map(u).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One recorded run.
struct RunView {
    kernel: String,
    texture: String,
    sass: String,
    queries: Vec<Vec<u32>>,
    results: Vec<Vec<u32>>,
}

fn run_views(v: &Value) -> Vec<RunView> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|r| RunView {
                    kernel: r["kernel"].as_str().unwrap_or("").into(),
                    texture: r["texture"].as_str().unwrap_or("").into(),
                    sass: r["sass"].as_str().unwrap_or("").into(),
                    queries: rows(&r["queries"]),
                    results: rows(&r["results"]),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn find<'a>(runs: &'a [RunView], kernel: &str, texture: &str) -> Option<&'a RunView> {
    runs.iter()
        .find(|r| r.kernel == kernel && (texture.is_empty() || r.texture == texture))
}

/// A gathered value of an index texture (1 + i + w*j + w*h*l) as (l, i, j), or None.
fn texel_of(bits: u32, w: u32, h: u32) -> Option<(u32, u32, u32)> {
    let x = f32::from_bits(bits);
    if x.is_nan() || x < 1.0 || x.fract() != 0.0 {
        return None;
    }
    let k = x as u32 - 1;
    Some((k / (w * h), k % w, (k % (w * h)) / w))
}

fn fmt_texel(bits: u32, w: u32, h: u32) -> String {
    match texel_of(bits, w, h) {
        Some((0, i, j)) => format!("({i},{j})"),
        Some((l, i, j)) => format!("L{l}({i},{j})"),
        None => format!("{}", f32::from_bits(bits)),
    }
}

/// The four slots of a gather, Vulkan's order: (i0,j1), (i1,j1), (i1,j0), (i0,j0) (Vulkan spec,
/// "Texel Gathering"; docs/sources.md's emulator follows it).
pub const VULKAN_SLOTS: [(u32, u32); 4] = [(0, 1), (1, 1), (1, 0), (0, 0)];

struct Section {
    title: String,
    lines: Vec<String>,
    summary: Value,
}

fn section(title: &str) -> Section {
    Section {
        title: title.into(),
        lines: Vec::new(),
        summary: json!({}),
    }
}

// ---------------------------------------------------------------------------------------------
// Analyses

fn basics(ph: &Value) -> Section {
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
    let mut checks = serde_json::Map::new();
    let eq = |a: &str, b: &str, cols: usize| -> Option<(usize, usize)> {
        let (x, y) = (find(&runs, a, "")?, find(&runs, b, "")?);
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
        find(&runs, "nat_2d_r", "idx8"),
        find(&runs, "nat_2d_r", "idx8_nogatherflag"),
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
        if let (Some(a), Some(b)) = (find(&runs, "nat_2d_r", "idx8"), find(&runs, k, "idx8")) {
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
    s.summary = json!({ "slot_orders": orders, "patch_checks": checks });
    s
}

fn subtexel(ph: &Value) -> Section {
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

fn unorm(ph: &Value) -> Section {
    let mut s = section("UNORM/SNORM -> float (phase unorm) - open question 5");
    let mut sum = serde_json::Map::new();
    let d = &ph["data"];
    for (name, bits, signed) in [
        ("unorm8", 8u32, false),
        ("snorm8", 8, true),
        ("unorm16", 16, false),
        ("snorm16", 16, true),
    ] {
        let Some(hex) = d[name]["table_hex"].as_str() else {
            continue;
        };
        let table: Vec<u32> = hex
            .as_bytes()
            .chunks(8)
            .map(|c| u32::from_str_radix(std::str::from_utf8(c).unwrap_or("0"), 16).unwrap_or(0))
            .collect();
        let max = if signed {
            (1u64 << (bits - 1)) - 1
        } else {
            (1u64 << bits) - 1
        };
        let (mut cr, mut recip) = (0usize, 0usize);
        let mut mism = Vec::new();
        for (code, &got) in table.iter().enumerate() {
            let c: i64 = if signed {
                ((code as i64) << (64 - bits)) >> (64 - bits)
            } else {
                code as i64
            };
            // Correctly rounded c/max, clamped at -1 for SNORM (Vulkan's conversion formula).
            let want = if c < 0 {
                -ratio_to_f32((-c) as u64, max).min(1.0)
            } else {
                ratio_to_f32(c as u64, max)
            };
            let rec = c as f32 * (1.0f32 / max as f32);
            let rec = if rec < -1.0 { -1.0 } else { rec };
            if got == want.to_bits() {
                cr += 1;
            } else {
                // Every mismatch, compactly: [code, got bits, correctly rounded bits].
                mism.push(json!([c, got, want.to_bits()]));
            }
            if got == rec.to_bits() {
                recip += 1;
            }
        }
        s.lines.push(format!(
            "- {name}: {cr} of {} codes correctly rounded (c/{max}); {recip} equal c * (1/{max}) in f32. {}",
            table.len(),
            if mism.is_empty() { String::new() } else { format!("First mismatches (code -> got, correctly rounded): {}", mism.iter().take(6).map(|m| format!("{} -> {:#010x}, {:#010x}", m[0], u(&m[1]), u(&m[2]))).collect::<Vec<_>>().join("; ")) }
        ));
        sum.insert(name.into(), json!({ "codes": table.len(), "correctly_rounded": cr, "equal_to_reciprocal_multiply": recip, "mismatches": mism,
                                        "differing_components": d[name]["blocks_with_differing_components"] }));
    }
    if let Some(hex) = d["half"]["table_hex"].as_str() {
        let table: Vec<u32> = hex
            .as_bytes()
            .chunks(8)
            .map(|c| u32::from_str_radix(std::str::from_utf8(c).unwrap_or("0"), 16).unwrap_or(0))
            .collect();
        let (mut exact, mut nan_forms) = (0usize, BTreeMap::<String, usize>::new());
        for (h, &got) in table.iter().enumerate() {
            let want = f16_to_f32(h as u16);
            if want.is_nan() {
                *nan_forms.entry(format!("{got:#010x}")).or_default() += 1;
            } else if got == want.to_bits() {
                exact += 1;
            }
        }
        s.lines.push(format!(
            "- half: {exact} of {} non-NaN codes exact; NaN codes read as {nan_forms:?}",
            table.len() - nan_forms.values().sum::<usize>()
        ));
        sum.insert(
            "half".into(),
            json!({ "exact_non_nan": exact, "nan_results": nan_forms }),
        );
    }
    for (name, signed) in [
        ("uint8", false),
        ("sint8", true),
        ("uint16", false),
        ("sint16", true),
    ] {
        let Some(hex) = d[name]["table_hex"].as_str() else {
            continue;
        };
        let table: Vec<u32> = hex
            .as_bytes()
            .chunks(8)
            .map(|c| u32::from_str_radix(std::str::from_utf8(c).unwrap_or("0"), 16).unwrap_or(0))
            .collect();
        let bits = if name.ends_with('8') { 8 } else { 16 };
        let ok = table
            .iter()
            .enumerate()
            .filter(|(c, &g)| {
                g == if signed {
                    (((*c as i32) << (32 - bits)) >> (32 - bits)) as u32
                } else {
                    *c as u32
                }
            })
            .count();
        s.lines.push(format!(
            "- {name} read as integer: {ok} of {} codes {}-extended exactly.",
            table.len(),
            if signed { "sign" } else { "zero" }
        ));
        sum.insert(
            name.into(),
            json!({ "extended_exactly": ok, "codes": table.len() }),
        );
    }
    s.summary = Value::Object(sum);
    s
}

fn components(ph: &Value) -> Section {
    let mut s = section("Components of textures with fewer channels (phase components)");
    let mut sum = Vec::new();
    for r in run_views(&ph["data"]) {
        let vals: Vec<String> = r
            .results
            .first()
            .map(|x| {
                x[..4]
                    .iter()
                    .map(|&b| format!("{} ({b:#x})", f32::from_bits(b)))
                    .collect()
            })
            .unwrap_or_default();
        s.lines.push(format!(
            "- {} on {}: first query -> {}",
            r.kernel,
            r.texture,
            vals.join(", ")
        ));
        sum.push(json!({ "kernel": r.kernel, "texture": r.texture, "results": r.results }));
    }
    s.summary = json!(sum);
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

fn address(ph: &Value) -> Section {
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

fn offsets(ph: &Value) -> Section {
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

fn f16(ph: &Value) -> Section {
    let mut s = section("F16.RN / F16.RZ (phase f16) - open question 1");
    let d = &ph["data"];
    let runs = run_views(&d["runs"]);
    let mut sum = serde_json::Map::new();
    let Some(base) = find(&runs, "raw:2d", "f16vals") else {
        s.lines.push("no data".into());
        return s;
    };
    s.lines.push("For each variant: what each of Rd, Rd+1, Rd2, Rd2+1 (C0..C3) held after the TLD4, as `slot.half` (the f32 slot value of the same query's 32-bit gather, converted by the named rounding) or `untouched` (the sentinel survived). Halves: lo = bits 0-15.".into());
    for r in runs
        .iter()
        .filter(|r| r.kernel.starts_with("raw:f16") && r.texture == "f16vals")
    {
        let mode = if r.kernel.contains("rn") {
            HalfRound::Rn
        } else {
            HalfRound::Rz
        };
        let mut layouts: BTreeMap<String, usize> = BTreeMap::new();
        let mut rounding_ok = 0;
        let mut rounding_n = 0;
        let mut misses = Vec::new();
        for (qi, res) in r.results.iter().enumerate() {
            let slots = &base.results[qi][1..5];
            let mut desc = Vec::new();
            for reg in 0..4 {
                let v = res[1 + reg];
                if v == SENTINELS[reg] {
                    desc.push("untouched".to_string());
                    continue;
                }
                let mut halves = Vec::new();
                for (hn, hv) in [("lo", v as u16), ("hi", (v >> 16) as u16)] {
                    let hits: Vec<usize> = (0..4)
                        .filter(|&sl| f32_to_f16(f32::from_bits(slots[sl]), mode) == hv)
                        .collect();
                    halves.push(match hits.as_slice() {
                        [] if hv == 0 => format!("{hn}=0"),
                        [] => format!("{hn}=?"),
                        [one] => format!("{hn}=s{one}"),
                        many => format!(
                            "{hn}=s{}",
                            many.iter()
                                .map(|x| x.to_string())
                                .collect::<Vec<_>>()
                                .join("|s")
                        ),
                    });
                }
                desc.push(format!("C{reg}:{}", halves.join(",")));
            }
            *layouts.entry(desc.join(" ")).or_default() += 1;
            // Rounding check where the layout is plain: C0 = s0|s1, C1 = s2|s3 (mask 0xf only).
            if r.kernel.ends_with("_mf") {
                for (reg, sl) in [(0, 0), (0, 1), (1, 2), (1, 3)] {
                    let hv = if sl % 2 == 0 {
                        res[1 + reg] as u16
                    } else {
                        (res[1 + reg] >> 16) as u16
                    };
                    let x = f32::from_bits(slots[sl]);
                    let want = f32_to_f16(x, mode);
                    rounding_n += 1;
                    if hv == want || (x.is_nan() && hv & 0x7c00 == 0x7c00 && hv & 0x3ff != 0) {
                        rounding_ok += 1;
                    } else if misses.len() < 16 {
                        misses.push(json!({ "f32_bits": slots[sl], "got": hv, "ieee": want }));
                    }
                }
            }
        }
        let top: Vec<String> = {
            let mut v: Vec<(&String, &usize)> = layouts.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1));
            v.iter()
                .take(3)
                .map(|(k, n)| format!("`{k}` x{n}"))
                .collect()
        };
        s.lines.push(format!("- {}: {}{}", r.kernel, top.join("; "), if rounding_n > 0 { format!(" - under the plain layout, {rounding_ok} of {rounding_n} halves equal IEEE {mode:?} of the f32 value") } else { String::new() }));
        sum.insert(r.kernel.clone(), json!({ "layouts": layouts, "ieee_agree": rounding_ok, "of": rounding_n, "misses": misses }));
    }
    for r in runs.iter().filter(|r| r.texture == "unorm8_blocks") {
        let first: Vec<String> = r
            .results
            .iter()
            .take(4)
            .map(|x| format!("{:#010x}", x[1]))
            .collect();
        s.lines.push(format!(
            "- {} on UNORM8 codes 0..3: C0 = {}",
            r.kernel,
            first.join(", ")
        ));
        sum.insert(
            format!("{}_unorm8", r.kernel),
            json!(r.results.iter().map(|x| x[1]).collect::<Vec<_>>()),
        );
    }
    s.summary = Value::Object(sum);
    s
}

fn masks(ph: &Value) -> Section {
    let mut s = section("Write masks, Rd2 = RZ, eviction, NODEP (phase masks)");
    let runs = run_views(&ph["data"]);
    let mut sum = serde_json::Map::new();
    let base = find(&runs, "raw:2d", "").map(|r| r.results.clone());
    let name = |v: u32, reg: usize| -> String {
        if v == SENTINELS[reg] {
            return "-".into();
        }
        let x = f32::from_bits(v);
        if x >= 1.0 && x.fract() == 0.0 {
            let k = x as u32 - 1;
            return format!(
                "{}({},{})",
                ["R", "G", "B", "A"][(k / 100).min(3) as usize],
                (k % 100) % 4,
                (k % 100) / 4
            );
        }
        format!("{v:#x}")
    };
    for r in runs.iter().filter(|r| r.kernel.starts_with("raw:")) {
        let regs: Vec<String> = r.results[0][1..5]
            .iter()
            .enumerate()
            .map(|(i, &v)| name(v, i))
            .collect();
        // The slot each written register holds, by the 32-bit base gather of the same component.
        let same_as_base = base
            .as_ref()
            .map(|b| b.iter().zip(&r.results).filter(|(x, y)| x == y).count());
        s.lines.push(format!(
            "- {}: C0..C3 = {}{}",
            r.kernel,
            regs.join(" "),
            match (
                r.kernel.starts_with("raw:ev_") || r.kernel == "raw:nodep",
                same_as_base
            ) {
                (true, Some(n)) => format!(" (same as 2d in {n} of {} queries)", r.results.len()),
                _ => String::new(),
            }
        ));
        sum.insert(
            r.kernel.clone(),
            json!({ "sass": r.sass, "results": r.results }),
        );
    }
    s.summary = Value::Object(sum);
    s
}

fn pred(ph: &Value, results: &Value) -> Section {
    let mut s = section("Predicate destination (phase pred)");
    let d = &ph["data"];
    let if_set = u(&d["pred_stored_if_set"]);
    s.lines.push(format!(
        "The P word is written by `{}`: {} when the hardware predicate is set.",
        d["pred_store"].as_str().unwrap_or(""),
        if_set
    ));
    for n in d["notes"].as_array().into_iter().flatten() {
        s.lines
            .push(format!("- note: {}", n.as_str().unwrap_or("")));
    }
    let mut sum = Vec::new();
    for r in run_views(&d["runs"]) {
        let p: Vec<String> = r
            .results
            .iter()
            .map(|x| {
                if r.kernel.starts_with("raw:") {
                    format!(
                        "hw predicate {} , C = {:x?}",
                        if x[0] == if_set { "set" } else { "clear" },
                        &x[1..5]
                    )
                } else {
                    format!("PTX resident = {}, d = {:x?}", x[4], &x[..4])
                }
            })
            .collect();
        s.lines
            .push(format!("- {} on {}: {}", r.kernel, r.texture, p.join("; ")));
        sum.push(json!({ "kernel": r.kernel, "texture": r.texture, "results": r.results }));
    }
    let _ = results;
    s.summary = json!(sum);
    s
}

fn cube(ph: &Value) -> Section {
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

fn layers(ph: &Value) -> Section {
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

fn dc(ph: &Value) -> Section {
    let mut s = section("Depth compare with CUDA's sampler (phase dc)");
    let d = &ph["data"];
    let mut sum = serde_json::Map::new();
    for r in run_views(&d["runs"]) {
        let raw = r.kernel.starts_with("raw:");
        let vals: Vec<String> = r
            .queries
            .iter()
            .zip(&r.results)
            .map(|(q, res)| {
                let dref = if raw {
                    f32::from_bits(q[4])
                } else {
                    f32::from_bits(q[6])
                };
                let v = if raw { &res[1..5] } else { &res[..4] };
                format!(
                    "{dref}:[{}]",
                    v.iter()
                        .map(|&b| format!("{}", f32::from_bits(b)))
                        .collect::<Vec<_>>()
                        .join(",")
                )
            })
            .collect();
        s.lines.push(format!(
            "- {} on {}: {}",
            r.kernel,
            r.texture,
            vals.join(" ")
        ));
        sum.insert(format!("{}@{}", r.kernel, r.texture), json!(r.results));
    }
    s.summary = Value::Object(sum);
    s
}

/// Phase pitch: the texture over pitch-linear device memory against the memory-form model.
fn pitch(ph: &Value) -> Section {
    let mut s = section("Pitch-linear device memory (phase pitch)");
    let p = &ph["data"]["pitch2d"];
    if p.is_null() {
        let why = ph["data"]["error"].as_str().unwrap_or("no data");
        s.lines.push(format!("no result: {why}"));
        return s;
    }
    s.lines.push(format!(
        "A {}x{} R32F texture at device address {:#x}, pitch {} bytes (device pitch alignment {}), row padding {:#x}; tld4-textures' memory-form model (pitch-linear: address + y * pitch + x * 4) reads the same bytes.",
        p["width"], p["height"], p["device_address"].as_u64().unwrap_or(0), p["pitch"], p["device_pitch_alignment"], p["padding_sentinel"].as_u64().unwrap_or(0)
    ));
    let mut total_bad = 0;
    for c in p["checks"].as_array().into_iter().flatten() {
        let bad = c["mismatches"].as_array().map_or(0, |a| a.len());
        total_bad += bad;
        s.lines.push(format!(
            "- {}: {} queries, {} differ from the model{}",
            c["kernel"].as_str().unwrap_or("?"),
            c["queries"],
            bad,
            if c["ran"].as_bool() == Some(false) {
                " (the kernel did not run)"
            } else {
                ""
            }
        ));
    }
    s.lines.push(if total_bad == 0 {
        "The hardware reads pitch-linear texels where the model does, and never the padding. Block-linear CUDA arrays are opaque through CUDA's public API, so their layout is not checked here.".into()
    } else {
        "Some queries differ: see hw_results.json, phase pitch, for the model's and the hardware's values.".into()
    });
    s.summary = json!({ "mismatches": total_bad, "pitch": p["pitch"] });
    s
}

fn scr(ph: &Value) -> Section {
    let mut s = section(".SCR (phase scr) - open question 2");
    let d = &ph["data"];
    s.lines.push(format!(
        "`{}` against `{}`: {} of {} gathers differ.",
        d["sass_set"].as_str().unwrap_or(""),
        d["sass_clear"].as_str().unwrap_or(""),
        d["differing"],
        d["queries"]
    ));
    s.summary = json!({ "differing": d["differing"], "queries": d["queries"], "first_differences": d["first_differences"] });
    s
}

fn risky(phases: &Value) -> Section {
    let mut s = section("Risky variants (one process each)");
    let mut sum = serde_json::Map::new();
    for (name, ph) in phases
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(n, _)| n.starts_with("risky:"))
    {
        let d = &ph["data"];
        let line = match d["outcome"].as_str() {
            Some("completed") => format!("completed: P, C = {:?}", rows(&d["run"]["results"])),
            Some("error") => format!("error: {}", d["error"].as_str().unwrap_or("")),
            _ => format!("phase failed: {}", ph["error"]),
        };
        s.lines.push(format!("- {name}: {line}"));
        sum.insert(name.clone(), json!(line));
    }
    s.summary = Value::Object(sum);
    s
}

/// The golden data and the report from a results document.
pub fn report(results: &Value) -> (Value, String) {
    let synthetic = results["synthetic"].as_bool().unwrap_or(true);
    let phases = &results["phases"];
    let ph = |n: &str| phases.get(n).cloned().unwrap_or(Value::Null);
    let sections = vec![
        basics(&ph("basics")),
        subtexel(&ph("subtexel")),
        unorm(&ph("unorm")),
        f16(&ph("f16")),
        scr(&ph("scr")),
        cube(&ph("cube")),
        components(&ph("components")),
        address(&ph("address")),
        offsets(&ph("offsets")),
        masks(&ph("masks")),
        pred(&ph("pred"), results),
        layers(&ph("layers")),
        dc(&ph("dc")),
        pitch(&ph("pitch")),
        risky(phases),
    ];
    let mut md = String::new();
    if synthetic {
        md.push_str("# SYNTHETIC TEST INPUT - NOT A MEASUREMENT\n\nThis report was made from a hand-written sample that tests the report code. Nothing in it was measured on hardware.\n\n");
    }
    let dev = &results["device"];
    let _ = writeln!(
        md,
        "# TLD4 on {} (measured)\n\nGPU: {}, compute capability {}; driver API {}; {}; date (UTC) {}. Kernels: {} {} (cubin {}; portable PTX {}).\n",
        dev["name"].as_str().unwrap_or("?"),
        dev["name"].as_str().unwrap_or("?"),
        dev["compute_capability"].as_str().unwrap_or("?"),
        dev["driver_api_version"],
        dev["proc_driver_version"].as_str().unwrap_or(""),
        results["date_utc"].as_str().unwrap_or("?"),
        results["probe"]["source"].as_str().unwrap_or("sm90_cubin"),
        results["probe"]["ptxas"].as_str().unwrap_or(""),
        results["probe"]["cubin_fnv1a64"].as_str().unwrap_or("?"),
        results["probe"]["portable_ptx_fnv1a64"].as_str().unwrap_or("?"),
    );
    let cmp = crate::compare::compare_results(results);
    let answers = crate::questions::answers(results, &cmp);
    md.push_str(&crate::questions::markdown(&answers));
    md.push_str("These are measurements of the GPU above only; other architectures may differ. The sections after the comparison hold the details each phase measured against stated models.\n\n");
    md.push_str("## Phases run\n\n");
    for c in results["children"].as_array().into_iter().flatten() {
        let _ = writeln!(
            md,
            "- {}: {} ({:.1} s)",
            c["phase"].as_str().unwrap_or(""),
            c["outcome"].as_str().unwrap_or(""),
            c["seconds"].as_f64().unwrap_or(0.0)
        );
    }
    md.push('\n');
    let mut summary = serde_json::Map::new();
    for s in &sections {
        let _ = writeln!(md, "## {}\n", s.title);
        for l in &s.lines {
            md.push_str(l);
            md.push('\n');
        }
        md.push('\n');
        summary.insert(s.title.clone(), s.summary.clone());
    }
    md.push_str(&comparison_markdown(&cmp));
    let golden = json!({
        "schema": results["schema"],
        "questions": answers,
        "tld4_comparison": cmp,
        "forms": results["forms"],
        "synthetic": synthetic,
        "device": results["device"],
        "date_utc": results["date_utc"],
        "probe": results["probe"],
        "children": results["children"],
        "summary": summary,
        // The 8-bit tables whole; the 16-bit ones are in the summary as every mismatch against
        // the correctly rounded value (and whole in hw_results.json).
        "unorm8_tables": phases.get("unorm").map(|p| {
            let d = &p["data"];
            json!({ "unorm8": d["unorm8"], "snorm8": d["snorm8"], "uint8": d["uint8"], "sint8": d["sint8"] })
        }),
    });
    (golden, md)
}

/// The lane-by-lane comparison as a report section: every compared run, its differing lanes,
/// and what was left out with the reason (counted by reason).
fn comparison_markdown(cmp: &crate::compare::Comparison) -> String {
    let mut md = String::from("## Lane-by-lane comparison with tld4\n\n");
    let (lanes, equal) = cmp
        .runs
        .iter()
        .fold((0, 0), |(l, e), r| (l + r.lanes, e + r.equal));
    let _ = writeln!(
        md,
        "{equal} of {lanes} lanes equal tld4's bit for bit ({} differ) in {} runs; {} runs not compared.\n",
        lanes - equal,
        cmp.runs.len(),
        cmp.skipped.len()
    );
    md.push_str(
        "| phase | kernel | texture | lanes | equal | differ |\n|---|---|---|---|---|---|\n",
    );
    for r in &cmp.runs {
        let flag = if r.equal == r.lanes {
            "0".to_string()
        } else {
            format!("**{}**", r.lanes - r.equal)
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {flag} |",
            r.phase, r.kernel, r.texture, r.lanes, r.equal
        );
    }
    md.push('\n');
    for r in cmp.runs.iter().filter(|r| r.equal != r.lanes) {
        let _ = writeln!(
            md,
            "Differences in {} {} {} (first {}):\n",
            r.phase,
            r.kernel,
            r.texture,
            r.first_differences.len()
        );
        for d in &r.first_differences {
            let _ = writeln!(
                md,
                "- lane {}: query {:08x?}: GPU {:08x?}, tld4 {:08x?}",
                d.lane, d.query, d.gpu, d.tld4
            );
        }
        md.push('\n');
    }
    let mut why: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &cmp.skipped {
        *why.entry(s.why.as_str()).or_default() += 1;
    }
    if !why.is_empty() {
        md.push_str("Not compared:\n\n");
        for (w, n) in why {
            let _ = writeln!(md, "- {n} runs: {w}");
        }
        md.push('\n');
    }
    md
}

/// [`report`] on files.
pub fn report_files(results: &Path, golden: &Path, report_md: &Path) -> Result<(), String> {
    let s = std::fs::read_to_string(results).map_err(|e| format!("{}: {e}", results.display()))?;
    let v: Value = serde_json::from_str(&s).map_err(|e| format!("{}: {e}", results.display()))?;
    if v["schema"].as_u64() != Some(crate::probe::SCHEMA as u64) {
        return Err(format!(
            "{}: schema {} (want {})",
            results.display(),
            v["schema"],
            crate::probe::SCHEMA
        ));
    }
    let (g, md) = report(&v);
    std::fs::write(golden, serde_json::to_string_pretty(&g).unwrap() + "\n")
        .map_err(|e| e.to_string())?;
    std::fs::write(report_md, md).map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_is_correctly_rounded() {
        for c in 0..=255u64 {
            let r = ratio_to_f32(c, 255);
            // The exact value lies within half an ulp of r (checked in f64, exact enough here).
            let exact = c as f64 / 255.0;
            let ulp = if r == 0.0 {
                f64::MIN_POSITIVE
            } else {
                (f32::from_bits(r.to_bits() + 1) - r) as f64
            };
            assert!((r as f64 - exact).abs() <= ulp / 2.0, "{c}");
        }
        assert_eq!(ratio_to_f32(1, 2), 0.5);
        assert_eq!(ratio_to_f32(255, 255), 1.0);
        assert_eq!(ratio_to_f32(1, 3), 1.0f32 / 3.0);
        assert_eq!(ratio_to_f32(65534, 65535), (65534.0f64 / 65535.0) as f32);
    }

    #[test]
    fn f16_rn_matches_the_half_crate_and_rz_truncates() {
        for bits in (0..u32::MAX).step_by(99_991) {
            let x = f32::from_bits(bits);
            if x.is_nan() {
                continue;
            }
            assert_eq!(
                f32_to_f16(x, HalfRound::Rn),
                half::f16::from_f32(x).to_bits(),
                "{x:e}"
            );
            let z = f32_to_f16(x, HalfRound::Rz);
            let back = f16_to_f32(z);
            assert!(
                back.abs() <= x.abs(),
                "RZ moves away from zero: {x:e} -> {back:e}"
            );
        }
        assert_eq!(f32_to_f16(65520.0, HalfRound::Rn), 0x7c00);
        assert_eq!(f32_to_f16(65520.0, HalfRound::Rz), 0x7bff);
        assert_eq!(f32_to_f16(1.0 + 3.0 / 4096.0, HalfRound::Rz), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 / 4096.0, HalfRound::Rn), 0x3c01);
        assert_eq!(f32_to_f16(-(1.0 + 3.0 / 4096.0), HalfRound::Rz), 0xbc00);
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    }

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

#[cfg(test)]
mod pitch_section {
    use super::*;

    #[test]
    fn the_pitch_section_counts_mismatches_and_says_when_there_is_no_data() {
        let ph = json!({"data": {"pitch2d": {
        "width": 13, "height": 7, "device_address": 4096, "pitch": 128,
        "device_pitch_alignment": 32, "padding_sentinel": 0x7fc0_0bad_u32,
        "checks": [
            {"kernel": "nat_2d_r", "queries": 10, "mismatches": [3, 4], "ran": true},
            {"kernel": "nat_2d_g", "queries": 10, "mismatches": [], "ran": true}
        ]}}});
        let s = pitch(&ph);
        assert_eq!(s.summary["mismatches"], 2);
        assert!(s
            .lines
            .iter()
            .any(|l| l.contains("nat_2d_r: 10 queries, 2 differ")));
        assert!(s.lines.last().unwrap().contains("Some queries differ"));
        let none = pitch(&json!({"data": {"error": "cuTexObjectCreate: 1"}}));
        assert_eq!(
            none.lines,
            vec!["no result: cuTexObjectCreate: 1".to_string()]
        );
    }
}
