//! The `tld4 gather` example of the README (`examples/gather/`): the command prints exactly
//! the committed output, `--check` passes on that output, and a few of its results agree with
//! values worked out by hand from the texels (Vulkan "Texel Gathering": results in the order
//! (i0, j1), (i1, j1), (i1, j0), (i0, j0)).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/gather")
        .join(name)
}

fn tld4(args: &[&str], file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tld4"))
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn gather_prints_the_committed_output_byte_for_byte() {
    let o = tld4(&["gather"], &example("cases.json"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let committed = std::fs::read(example("cases.out.json")).unwrap();
    assert!(
        o.stdout == committed,
        "`tld4 gather examples/gather/cases.json` differs from examples/gather/cases.out.json \
         (regenerate it with `cargo run --release -- gather examples/gather/cases.json > \
         examples/gather/cases.out.json` if the change is intended):\n{}",
        text(&o.stdout)
    );
}

#[test]
fn check_passes_on_the_committed_output() {
    let o = tld4(&["gather", "--check"], &example("cases.out.json"));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert_eq!(text(&o.stdout), "checked 13 queries: 0 mismatches\n");
}

#[test]
fn check_fails_on_the_input_which_has_no_results() {
    let o = tld4(&["gather", "--check"], &example("cases.json"));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).ends_with("checked 13 queries: 13 mismatches\n"),
        "{}",
        text(&o.stdout)
    );
}

/// The result of `cases[case].queries[query]` in the committed output, as f32.
fn result(v: &serde_json::Value, case: usize, query: usize) -> Vec<f32> {
    v["cases"][case]["queries"][query]["result"]
        .as_array()
        .unwrap_or_else(|| panic!("cases[{case}].queries[{query}] has no result"))
        .iter()
        .map(|n| match n.as_str() {
            Some("NaN") => f32::NAN,
            Some(s) => panic!("unexpected {s}"),
            None => n.as_f64().unwrap() as f32,
        })
        .collect()
}

#[test]
fn the_committed_results_agree_with_hand_worked_gathers() {
    let s = std::fs::read_to_string(example("cases.out.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    let u = |c: f32| c / 255.0;
    // Case 0, 2x2 RGBA8 at the centre: u*W = 1, so i0 = 0, i1 = 1 (j likewise). Red of the
    // texels (x, y): (0,0) 0, (1,0) 51, (0,1) 102, (1,1) 255.
    assert_eq!(result(&v, 0, 0), [u(102.0), u(255.0), u(51.0), u(0.0)]);
    // The same with AOFFI (1, 0) on green: i0 = 1, i1 = 2 clamps to 1; green (1,1) 205, (1,0) 61.
    assert_eq!(result(&v, 0, 1), [u(205.0), u(205.0), u(61.0), u(61.0)]);
    // Case 1, 4x2 R32F, repeat in u: s = 0 gives i0 = floor(0 - 0.5) = -1, which wraps to 3;
    // t = 0.5 gives j0 = 0, j1 = 1. Row 0: 1 2 3 4; row 1: -0.5 0.25 inf NaN.
    let r = result(&v, 1, 0);
    assert!(r[0].is_nan(), "{r:?}");
    assert_eq!(r[1..], [-0.5, 1.0, 4.0]);
    // PTP: texel k at (i0 + dx_k, j0 + dy_k) with (i0, j0) = (1, 0); the last one, (3, -1),
    // mirrors to row 0.
    assert_eq!(result(&v, 1, 1), [2.0, 3.0, -0.5, 4.0]);
    // Case 3, depth compare less_or_equal with dref 0.5 on depths (0,0) 0.1, (1,0) 0.4,
    // (0,1) 0.6, (1,1) 0.9: 0.5 <= 0.6, 0.5 <= 0.9, not 0.4, not 0.1.
    assert_eq!(result(&v, 3, 0), [1.0, 1.0, 0.0, 0.0]);
    // Case 4, a 2D array of r8_uint: layer 7.0 clamps to the last layer, 1, whose texels are 30, 40.
    assert_eq!(
        v["cases"][4]["queries"][1]["result"],
        serde_json::json!([30, 40, 40, 30])
    );
}
