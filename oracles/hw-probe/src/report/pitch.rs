//! The analysis of phase pitch: pitch-linear device memory against the memory-form model.

use serde_json::{json, Value};

use super::reading::{section, Section};

/// Phase pitch: the texture over pitch-linear device memory against the memory-form model.
pub(crate) fn pitch(ph: &Value) -> Section {
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

#[cfg(test)]
mod tests {
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
