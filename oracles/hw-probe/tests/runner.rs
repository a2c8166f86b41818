//! The runner without a GPU: it says plainly that there is no driver; and the report code on a
//! SYNTHETIC sample (hand-made below, labelled synthetic; nothing in it was measured).

use std::process::Command;

use serde_json::json;
use tld4_hw_probe::forms::cubin_forms;
use tld4_hw_probe::kernels;
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
    // Sub-texel sweep on 16 texels, k = 8: the footprint's smaller index turns 7 -> 8 exactly at
    // u = 8.5/16 (v = 8.75/16: j0 = 8).
    let at = (8.5f32 / 16.0).to_bits();
    let texel = |i: u32, j: u32| (1 + i + 16 * j) as f32;
    let before = [texel(7, 9), texel(8, 9), texel(8, 8), texel(7, 8)].map(f32::to_bits);
    let after = [texel(8, 9), texel(9, 9), texel(9, 8), texel(8, 8)].map(f32::to_bits);
    // Cube direction (1, 0, 0): face +x at s = t = 1/2 (Vulkan's face selection, sc = -z,
    // tc = -y), so u = v = 4 on the 8x8 face: footprint i0 = j0 = 3, texels (3,4) (4,4) (4,3)
    // (3,3) of layer 0 in Vulkan's gather order, i.e. 1 + i + 8j = 36, 37, 29, 28.
    let cube_centre: Vec<u32> = [36.0f32, 37.0, 29.0, 28.0]
        .iter()
        .map(|x| x.to_bits())
        .chain([1])
        .collect();
    let cube_spec = json!({ "name": "cube8_seamless", "kind": "cube", "w": 8, "h": 8, "layers": 6,
        "format": 32, "channels": 1, "addr": 1, "filter": 0, "flags": 2 | 64, "border": [0.0, 0.0, 0.0, 0.0],
        "content": "R32F index: texel (i, j) of layer l = 1 + i + w*j + w*h*l" });
    // The TLD4 words ptxas 11.8 wrote into the committed sm_90 cubin, standing in for a JIT's.
    let forms = serde_json::to_value(cubin_forms(kernels::CUBIN).unwrap()).unwrap();
    json!({
        "schema": 2,
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
                "other_coordinate_bits": (8.75f32 / 16.0).to_bits(),
                "runs": [ [at - 5, at - 1, [before[0], before[1], before[2], before[3], 1]], [at, at + 5, [after[0], after[1], after[2], after[3], 1]] ]
            } ] } },
            "scr": { "ok": true, "data": { "differing": 0, "queries": 10, "sass_set": "TLD4.SCR.R", "sass_clear": "TLD4.R", "first_differences": [] } },
            "cube": { "ok": true, "textures": [cube_spec], "data": { "runs": [
                { "kernel": "nat_cube_r", "texture": "cube8_seamless", "sass": "", "queries": [[1.0f32.to_bits(), 0, 0, 0, 0, 0, 0]], "results": [cube_centre] }
            ] } }
        },
        "forms": { "jit": { "ok": true, "forms": forms } }
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

#[test]
fn every_open_question_is_answered_and_disagreements_are_flagged() {
    let (golden, md) = report(&synthetic());
    let q = golden["questions"].as_array().unwrap();
    assert_eq!(q.len(), 9);
    let agrees = |n: usize| q[n - 1]["tld4_agrees"].clone();
    // 1: the F16.RN lanes hold tld4's packing of the 32-bit gather.
    assert_eq!(agrees(1), true);
    assert_eq!(q[0]["compared"], 2);
    // 2: .SCR changed nothing in 10 gathers, as tld4 models it; the forms are named.
    assert_eq!(agrees(2), true);
    assert!(q[1]["gpu_did"]
        .as_str()
        .unwrap()
        .contains("0xf63 x22 (.SCR on 0)"));
    // 3: the synthetic sweep turns exactly at u = 8.5/16, as exact arithmetic would; tld4
    // rounds u*16 to 8 fractional bits, so the lanes 5 and 1 ulp below the boundary are
    // already past it for tld4: a disagreement, which must be flagged.
    assert_eq!(agrees(3), false);
    assert_eq!(q[2]["compared"], 4);
    assert_eq!(q[2]["equal"], 2, "{}", golden["tld4_comparison"]);
    // 4: the cube's face centre agrees.
    assert_eq!(agrees(4), true);
    assert_eq!(q[3]["compared"], 1);
    // 5: codes 3 and 200 one ulp off the correctly rounded value tld4 returns.
    assert_eq!(agrees(5), false);
    assert_eq!(q[4]["compared"], 256);
    assert_eq!(q[4]["equal"], 254);
    // 6 and 7: not measurable by this probe; said so, with the reason.
    for n in [6, 7] {
        assert!(agrees(n).is_null());
        assert!(q[n - 1]["why_not"].as_str().unwrap().len() > 20);
    }
    // 8: every TLD4 word decoded.
    assert_eq!(agrees(8), true);
    assert_eq!(q[7]["compared"], 22);
    // 9: unnormalized coordinates: the synthetic run has no address phase; said so.
    assert!(agrees(9).is_null());
    assert!(
        q[8]["why_not"].as_str().unwrap().contains("address"),
        "{}",
        q[8]
    );
    assert!(
        md.contains("**DISAGREEMENT: tld4 differs from this GPU on question(s) 3, 5.**"),
        "{md}"
    );
    assert!(md.contains("| 3 | sub_texel | **NO** | 4 | 2 |"), "{md}");
    assert!(
        md.contains("- tld4 agrees: **NO, DISAGREES** (2 of 256 differ)"),
        "{md}"
    );
    assert!(
        md.contains("| cube | nat_cube_r | cube8_seamless | 1 | 1 | 0 |"),
        "{md}"
    );
    // The differing lanes are listed with both answers.
    let runs = golden["tld4_comparison"]["runs"].as_array().unwrap();
    let table = runs.iter().find(|r| r["texture"] == "unorm8").unwrap();
    let d = &table["first_differences"];
    assert_eq!(d[0]["lane"], 3);
    assert_eq!(d[1]["lane"], 200);
    assert_eq!(
        d[0]["gpu"][0].as_u64().unwrap(),
        d[0]["tld4"][0].as_u64().unwrap() + 1
    );
}

#[test]
fn a_run_that_agrees_everywhere_is_not_flagged() {
    let mut r = synthetic();
    // Drop the two synthetic phases built to disagree.
    r["phases"].as_object_mut().unwrap().remove("subtexel");
    r["phases"].as_object_mut().unwrap().remove("unorm");
    let (golden, md) = report(&r);
    assert!(
        md.contains("tld4 disagrees with this GPU on no question it measured."),
        "{md}"
    );
    let q = golden["questions"].as_array().unwrap();
    assert!(q[2]["tld4_agrees"].is_null());
    assert!(q[2]["why_not"]
        .as_str()
        .unwrap()
        .contains("phase subtexel did not run"));
}
