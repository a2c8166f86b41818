//! The analyses of texel values: format conversions (unorm), components (components), F16
//! packing and rounding (f16), depth compare (dc).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::arithmetic::{f16_to_f32, f32_to_f16, ratio_to_f32, HalfRound};
use super::reading::{find, run_views, section, u, RunView, Section};
use crate::probe::SENTINELS;

pub(crate) fn unorm(ph: &Value) -> Section {
    let mut s = section("UNORM/SNORM -> float (phase unorm) - open question 5");
    let mut sum = serde_json::Map::new();
    let d = &ph["data"];
    normalized_tables(d, &mut s, &mut sum);
    half_table(d, &mut s, &mut sum);
    integer_tables(d, &mut s, &mut sum);
    s.summary = Value::Object(sum);
    s
}

/// UNORM/SNORM 8 and 16: each code against the correctly rounded c/max and against
/// c * (1/max) in f32.
fn normalized_tables(d: &Value, s: &mut Section, sum: &mut serde_json::Map<String, Value>) {
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
}

/// HALF: each non-NaN code exact, and what the NaN codes read as.
fn half_table(d: &Value, s: &mut Section, sum: &mut serde_json::Map<String, Value>) {
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
}

/// 8- and 16-bit integers read as integers: zero- or sign-extended.
fn integer_tables(d: &Value, s: &mut Section, sum: &mut serde_json::Map<String, Value>) {
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
}

pub(crate) fn components(ph: &Value) -> Section {
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

pub(crate) fn f16(ph: &Value) -> Section {
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
        f16_variant(r, base, &mut s, &mut sum);
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

/// One F16 variant: the layout of the halves in C0..C3 (by the slot each half converts), and
/// the rounding where the layout is plain.
fn f16_variant(
    r: &RunView,
    base: &RunView,
    s: &mut Section,
    sum: &mut serde_json::Map<String, Value>,
) {
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

pub(crate) fn dc(ph: &Value) -> Section {
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
