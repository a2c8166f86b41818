//! Turns `hw_results.json` into golden data (`hw_sm_XY_<gpu>.json`, committed under tests/golden/) and a report that
//! says, for each open question (docs/sources.md, Open questions), what was measured.
//!
//! The analyses assume only what the probe's textures hold (every texel names itself) and
//! state each model they compare against; where a result fits no model they say so.
//!
//! The parts: `arithmetic` (the exact conversions the models use), `reading` (the results read
//! as runs, and the section every analysis writes), one module of analyses per subject,
//! mirroring the probe's phases (`basics`, `coordinates`, `values`, `arrays`, `variants`,
//! `pitch`), and `comparison` (the lane-by-lane comparison with tld4 as a section).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

pub(crate) mod arithmetic;
mod arrays;
mod basics;
mod comparison;
mod coordinates;
mod pitch;
mod reading;
mod values;
mod variants;

pub use arithmetic::{f16_to_f32, f32_to_f16, ratio_to_f32, HalfRound};
pub use reading::VULKAN_SLOTS;

use arrays::{cube, layers};
use basics::basics;
use comparison::comparison_markdown;
use coordinates::{address, offsets, subtexel};
use pitch::pitch;
use values::{components, dc, f16, unorm};
use variants::{masks, pred, risky, scr};

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
