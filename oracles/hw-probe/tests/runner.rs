//! The runner without a GPU: it says plainly that there is no driver; and the report code on a
//! SYNTHETIC sample (hand-made below, labelled synthetic; nothing in it was measured).

use std::process::Command;

use serde_json::json;
use tld4_hw_probe::probe::SENTINELS;
use tld4_hw_probe::report::{f32_to_f16, ratio_to_f32, report, report_files, HalfRound};

const BIN: &str = env!("CARGO_BIN_EXE_tld4-hw-probe");

#[test]
fn no_libcuda_is_a_clear_failure() {
    let out = std::env::temp_dir().join(format!("tld4-hw-probe-nolib-{}", std::process::id()));
    let o = Command::new(BIN)
        .args(["run", "--out"])
        .arg(&out)
        .env("TLD4_LIBCUDA", "/nonexistent/libcuda.so.1")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no libcuda: the NVIDIA driver is not installed here"),
        "{err}"
    );
}

#[test]
fn phases_are_listed() {
    let o = Command::new(BIN).arg("phases").output().unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    for p in [
        "info", "subtexel", "unorm", "f16", "offsets", "pred", "cube", "layers", "scr",
    ] {
        assert!(s.lines().any(|l| l.starts_with(p)), "{p} missing from {s}");
    }
}

/// SYNTHETIC TEST INPUT: a results document shaped like `hw_results.json`, made up here.
fn synthetic() -> serde_json::Value {
    // UNORM8: correctly rounded c/255 except codes 3 and 200, one ulp up.
    let table: String = (0..256u64)
        .map(|c| {
            let b = ratio_to_f32(c, 255).to_bits() + (c == 3 || c == 200) as u32;
            format!("{b:08x}")
        })
        .collect();
    // F16: the 32-bit gather's four slots, and an F16.RN run packed two per register.
    let slots = [
        [1.0f32, 2.0, 0.5, -3.0],
        [1.0 + 3.0 / 4096.0, 65520.0, -0.0, 1e-8],
    ];
    let base: Vec<Vec<u32>> = slots
        .iter()
        .map(|s| {
            vec![
                1,
                s[0].to_bits(),
                s[1].to_bits(),
                s[2].to_bits(),
                s[3].to_bits(),
            ]
        })
        .collect();
    let h = |x: f32| f32_to_f16(x, HalfRound::Rn) as u32;
    let packed: Vec<Vec<u32>> = slots
        .iter()
        .map(|s| {
            vec![
                1,
                h(s[0]) | h(s[1]) << 16,
                h(s[2]) | h(s[3]) << 16,
                SENTINELS[2],
                SENTINELS[3],
            ]
        })
        .collect();
    // Sub-texel sweep on 16 texels, k = 8: the footprint's smaller index turns 7 -> 8 exactly at u = 8.5/16.
    let at = (8.5f32 / 16.0).to_bits();
    let texel = |i: u32, j: u32| (1 + i + 16 * j) as f32;
    let before = [texel(7, 9), texel(8, 9), texel(8, 8), texel(7, 8)].map(f32::to_bits);
    let after = [texel(8, 9), texel(9, 9), texel(9, 8), texel(8, 8)].map(f32::to_bits);
    json!({
        "schema": 1,
        "synthetic": true,
        "note": "SYNTHETIC TEST INPUT made by tests/runner.rs; not a measurement",
        "device": { "name": "SYNTHETIC (no device)", "driver_api_version": 0, "compute_capability": "0.0", "proc_driver_version": "" },
        "date_utc": "1970-01-01T00:00:00Z",
        "probe": { "ptxas": "synthetic", "cubin_fnv1a64": "0" },
        "children": [ { "phase": "unorm", "outcome": "ok", "seconds": 0.0 } ],
        "phases": {
            "unorm": { "ok": true, "data": { "unorm8": { "table_hex": table, "blocks_with_differing_components": [] } } },
            "f16": { "ok": true, "data": { "runs": [
                { "kernel": "raw:2d", "texture": "f16vals", "sass": "", "queries": [[0], [0]], "results": base },
                { "kernel": "raw:f16rn_mf", "texture": "f16vals", "sass": "", "queries": [[0], [0]], "results": packed }
            ] } },
            "subtexel": { "ok": true, "data": { "sweeps": [ {
                "texture": "idx16x16", "w": 16, "h": 16, "axis": "u", "k": 8, "normalized": true, "filter": 0, "stride_ulps": 1,
                "runs": [ [at - 5, at - 1, [before[0], before[1], before[2], before[3], 1]], [at, at + 5, [after[0], after[1], after[2], after[3], 1]] ]
            } ] } },
            "scr": { "ok": true, "data": { "differing": 0, "queries": 10, "sass_set": "TLD4.SCR.R", "sass_clear": "TLD4.R", "first_differences": [] } }
        }
    })
}

#[test]
fn report_on_synthetic_input_says_so_and_reads_it_right() {
    let (golden, md) = report(&synthetic());
    assert!(
        md.starts_with("# SYNTHETIC TEST INPUT - NOT A MEASUREMENT"),
        "{md}"
    );
    assert_eq!(golden["synthetic"], true);
    assert!(
        md.contains("unorm8: 254 of 256 codes correctly rounded (c/255)"),
        "{md}"
    );
    let u8sum =
        &golden["summary"]["UNORM/SNORM -> float (phase unorm) - open question 5"]["unorm8"];
    assert_eq!(u8sum["mismatches"][0][0], 3);
    assert_eq!(u8sum["mismatches"][1][0], 200);
    assert_eq!(
        u8sum["mismatches"][1][1].as_u64().unwrap(),
        u8sum["mismatches"][1][2].as_u64().unwrap() + 1
    );
    assert!(golden["unorm8_tables"]["unorm8"]["table_hex"]
        .as_str()
        .is_some_and(|t| t.len() == 256 * 8));
    assert!(
        md.contains("`C0:lo=s0,hi=s1 C1:lo=s2,hi=s3 untouched untouched` x2"),
        "{md}"
    );
    assert!(md.contains("8 of 8 halves equal IEEE Rn"), "{md}");
    // The turn lies between d = -2^-24 * 16 * 256 (last before) and d = 0 (first after).
    assert!(
        md.contains("| idx16x16 | u | 8 | true | 0 | 1 | -0.000244 | 0.000000 |"),
        "{md}"
    );
    assert!(
        md.contains("`TLD4.SCR.R` against `TLD4.R`: 0 of 10 gathers differ."),
        "{md}"
    );
}

#[test]
fn report_files_checks_the_schema_and_writes_both_files() {
    let dir = std::env::temp_dir().join(format!("tld4-hw-probe-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (r, g, m) = (dir.join("r.json"), dir.join("g.json"), dir.join("m.md"));
    std::fs::write(&r, synthetic().to_string()).unwrap();
    report_files(&r, &g, &m).unwrap();
    let gv: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&g).unwrap()).unwrap();
    assert_eq!(gv["synthetic"], true);
    assert!(std::fs::read_to_string(&m).unwrap().contains("SYNTHETIC"));
    let mut bad = synthetic();
    bad["schema"] = json!(99);
    std::fs::write(&r, bad.to_string()).unwrap();
    assert!(report_files(&r, &g, &m).unwrap_err().contains("schema 99"));
    let _ = std::fs::remove_dir_all(&dir);
}
