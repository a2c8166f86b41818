//! The analyses of the instruction's own fields: write masks (masks), the predicate
//! destination (pred), `.SCR` (scr) and the risky variants.

use serde_json::{json, Value};

use super::reading::{find, rows, run_views, section, u, Section};
use crate::probe::SENTINELS;

pub(crate) fn masks(ph: &Value) -> Section {
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

pub(crate) fn pred(ph: &Value, results: &Value) -> Section {
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

pub(crate) fn scr(ph: &Value) -> Section {
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

pub(crate) fn risky(phases: &Value) -> Section {
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
