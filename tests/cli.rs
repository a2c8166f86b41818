//! The command line, run as a user runs it.

use std::process::Output;

use crate::common;
use common::{text, tld4_stdin as tld4};

#[test]
fn demo_passes_every_row() {
    let out = tld4(&["demo"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("all rows passed"), "{stdout}");
    // Six seed variants and the modifier rows are all present.
    for v in [
        "TLD4_P_R_R_R_R_SNOWFLAKE_I",
        "TLD4_P_R_R_R_R_UR_ARRAY_D_I",
        "PTP",
        "F16.RZ",
        "DC, cube array",
    ] {
        assert!(stdout.contains(v), "missing {v}");
    }
    assert!(!stdout.contains("FAIL"));
}

#[test]
fn disasm_and_asm_round_trip_through_the_binary() {
    let src = "TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;\n@!P3 TLD4.SCR.A.B.F16.RZ.PTP.DC.EL.NODEP P2, R201, R200, R28, ???255, ARRAY_CUBE, 0x3 ;\n";
    let asm = tld4(&["asm"], src);
    assert!(asm.status.success(), "{}", text(&asm.stderr));
    let words = text(&asm.stdout);
    assert_eq!(words.lines().count(), 2);
    assert!(words.lines().all(|l| l.len() == 32));
    let dis = tld4(&["disasm"], &words);
    assert!(dis.status.success());
    let back = text(&dis.stdout);
    let mut lines = back.lines();
    assert_eq!(
        lines.next(),
        Some("TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;")
    );
    // nvdisasm's one-word spacing before the first ???255: one space more than `@!P3 `.
    assert_eq!(lines.next(), Some("@!P3 TLD4.SCR.A.B.F16.RZ.PTP.DC.EL.NODEP P2, R201, R200, R28,      ???255, ARRAY_CUBE, 0x3 ;"));
}

#[test]
fn disasm_reports_refused_words_and_bad_lines() {
    let out = tld4(
        &["disasm"],
        "# comment\n\n00000000089e1f0a20ff041814087f63\n0x1\nnonsense\n",
    );
    let s = text(&out.stdout);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines[0], "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;");
    // 0x1 is not zero-extended: a word is exactly 32 hex digits.
    assert!(
        lines[1].starts_with("error: line 4: `0x1` has 1 hex digits, the wrong length"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("error: line 5:"), "{}", lines[2]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "bad input lines give exit code 2"
    );
}

#[test]
fn disasm_reads_raw_binary_files_and_lists_fields() {
    let dir = std::env::temp_dir().join(format!("tld4-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.bin");
    let word = 0x00000000089e1f0a20ff041814087f63u128;
    std::fs::write(&path, word.to_le_bytes()).unwrap();
    let out = tld4(
        &["disasm", "--fields", "--binary", path.to_str().unwrap()],
        "",
    );
    let s = text(&out.stdout);
    assert!(out.status.success());
    assert!(
        s.starts_with("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\n"),
        "{s}"
    );
    assert!(
        s.contains("offset_mode") && s.contains("77:76") && s.contains("AOFFI"),
        "{s}"
    );
    assert!(s.contains("batch_t") && s.contains("124:122"), "{s}");
    std::fs::write(&path, [0u8; 15]).unwrap();
    let out = tld4(&["disasm", "--binary", path.to_str().unwrap()], "");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("16-byte"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn asm_errors_name_line_and_column() {
    let out = tld4(
        &["asm"],
        "TLD4.G R10, R8, R28, UR4, 2D ;\n\nTLD4.G R10, R8, R28, UR4, 5D ;\n",
    );
    assert_eq!(out.status.code(), Some(2), "bad input exits with 2");
    assert_eq!(
        text(&out.stdout).lines().count(),
        1,
        "the good line is still assembled"
    );
    let e = text(&out.stderr);
    assert!(e.contains("line 3, column 27"), "{e}");
    assert!(e.contains("dimension"), "{e}");
}

fn run_scenario(json: &str) -> Output {
    // A directory per call: tests run in parallel.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tld4-run-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.json");
    std::fs::write(&path, json).unwrap();
    tld4(&["run", path.to_str().unwrap()], "")
}

const EXAMPLE: &str = include_str!("../examples/scenarios/gather_green.json");

#[test]
fn run_passes_the_example_and_fails_a_wrong_expectation() {
    let ok = run_scenario(EXAMPLE);
    let s = text(&ok.stdout);
    assert!(ok.status.success(), "{s}");
    assert!(s.contains("32 passed, 0 failed"), "{s}");
    assert!(s.contains("lane  0:  R8 = 0x3ee0e0e1"), "{s}");
    let wrong = EXAMPLE.replace("\"R9\": 0.8039216", "\"R9\": 0.81");
    let bad = run_scenario(&wrong);
    let s = text(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{s}");
    assert!(s.contains("16 passed, 16 failed"), "{s}");
    assert!(s.contains("[FAIL: R9 = 0x3f4dcdce"), "{s}");
    assert!(s.contains("expect.lanes[0].R9"), "{s}");
}

#[test]
fn run_reports_and_checks_faults() {
    let faulting = EXAMPLE.replace(
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;",
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, INVALID4 ;",
    );
    let out = run_scenario(&faulting);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(s.contains("fault (illegal_encoding)"), "{s}");
    let expected = faulting.replace(
        "\"expect\": {",
        "\"expect\": {\"fault\": \"illegal_encoding\",",
    );
    let out = run_scenario(&expected);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn malformed_scenarios_name_the_json_path() {
    for (from, to, path) in [
        ("\"R21\": 0.5", "\"R21x\": 0.5", "lanes[0].R21x"),
        ("\"R21\": 0.5", "\"R21\": [1]", "lanes[0].R21"),
        ("\"16-31\", \"R24\"", "\"16-40\", \"R24\"", "lanes[1].lanes"),
        (
            "255, 205, 195, 255]",
            "255, 205, 195]",
            "textures[0].texels",
        ),
        (
            "\"address_u\": \"clamp_to_edge\"",
            "\"address_u\": \"clamp\"",
            "samplers[0].address_u",
        ),
        ("UR4, 2D ;\"", "UR4, 2Q ;\"", "instruction: column"),
        ("\"UR4\": \"albedo\"", "\"UR4\": \"nothing\"", "uniform.UR4"),
        (
            "\"tolerance\": {\"ulps\": 1}",
            "\"tolerance\": {\"ulp\": 1}",
            "expect.tolerance",
        ),
    ] {
        assert!(EXAMPLE.contains(from), "{from}");
        let out = run_scenario(&EXAMPLE.replacen(from, to, 1));
        let e = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {e}");
        assert!(e.contains(path), "{to}: expected {path} in {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
    let out = run_scenario("{not json");
    assert_eq!(out.status.code(), Some(2));
    // A huge generated texture is refused before anything is allocated.
    let huge = r#"{"textures": [{"dim": "2d_array", "format": "rgba32_float", "width": 65536, "height": 65536,
        "layers": 65536, "generate": {"pattern": "gradient"}}], "samplers": [], "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;"}"#;
    let out = run_scenario(huge);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("textures[0]") && e.contains("limited"), "{e}");
}

#[test]
fn generated_textures_and_register_handles() {
    let json = r#"{
      "textures": [{"dim": "2d_array", "format": "r8_uint", "width": 4, "height": 4, "layers": 2,
                    "generate": {"pattern": "checker", "cell": 2}},
                   {"dim": "2d", "format": "rgba32_float", "width": 3, "height": 3, "generate": {"pattern": "random", "seed": 7}}],
      "samplers": [{"address_u": "repeat", "address_v": "repeat"}],
      "handles": {"checker": {"texture": 0, "sampler": 0}},
      "instruction": "TLD4.R.B R10, R8, R20, R30, ARRAY_2D ;",
      "lanes": [{"lanes": "all", "R20": 1, "R21": 0.375, "R22": 0.375, "R30": "checker"}],
      "expect": {"lanes": [{"lanes": "all", "R8": 0, "R9": 255, "R10": 0, "R11": 255}]}
    }"#;
    // Layer 1 of a 2x2-cell checker: texel (x, y) is 255 where (x/2 + y/2 + 1) is odd.
    // u = v = 1.5: i0 = j0 = 1, so texels (1,2), (2,2), (2,1), (1,1): 0, 255, 0, 255.
    let out = run_scenario(json);
    assert!(out.status.success(), "{}", text(&out.stdout));
}
