//! `tld4 check`: conformance verdicts from the command line (src/check.rs; docs/cli.md,
//! `tld4 check`), on lavapipe's golden corpus and on small files.

use crate::common::TempFile;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tld4(args: &[&str], path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tld4"))
        .args(args)
        .arg(path)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A 2x2 R8 UNORM texture (texels 0, 51, 102, 255) and one gather at its centre with `result`.
fn one(result: &str) -> String {
    format!(
        r#"{{"cases": [{{
  "texture": {{"dim": "2d", "format": "r8_unorm", "width": 2, "height": 2, "texels": [0, 51, 102, 255]}},
  "sampler": {{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge", "border": "float_transparent_black", "compare": null}},
  "queries": [{{"coord": [0.5, 0.5], {result}}}]
}}]}}"#
    )
}

#[test]
fn lavapipes_corpus_has_no_wrong_query() {
    let golden =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/lavapipe_gather.json");
    let o = tld4(&["check"], &golden);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = stdout(&o);
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("checked 24000 queries: "), "{last}");
    assert!(last.ends_with(", 0 wrong"), "{last}");
    // --json: the same counts, machine-readable.
    let o = tld4(&["check", "--json"], &golden);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summary"]["queries"], 24000);
    assert_eq!(v["summary"]["wrong"], 0);
    assert_eq!(
        v["summary"]["exact"].as_u64().unwrap() + v["summary"]["allowed"].as_u64().unwrap(),
        24000
    );
}

#[test]
fn exact_allowed_and_wrong_results_and_their_exit_codes() {
    // tld4: (i0, j1), (i1, j1), (i1, j0), (i0, j0) = 102, 255, 51, 0.
    let exact = TempFile::new("exact", &one(r#""result": [0.4, 1.0, 0.2, 0.0]"#));
    let o = tld4(&["check"], &exact.0);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("1 exact, 0 allowed, 0 wrong"),
        "{}",
        stdout(&o)
    );
    // 1/255 off: within the CTS's 7-bit threshold.
    let allowed = TempFile::new("allowed", &one(r#""result": [0.4039, 1.0, 0.2, 0.0]"#));
    let o = tld4(&["check", "--allowed"], &allowed.0);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(
        text.contains("allowed cases[0].queries[0]: tld4's footprint"),
        "{text}"
    );
    assert!(text.contains("0 exact, 1 allowed, 0 wrong"), "{text}");
    // The texels swapped: wrong, exit 1, with the value and the distance.
    let wrong = TempFile::new("wrong", &one(r#""result": [0.2, 1.0, 0.4, 0.0]"#));
    let o = tld4(&["check"], &wrong.0);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.contains("wrong cases[0].queries[0]: value x (i0, j1)"),
        "{text}"
    );
    assert!(text.contains("0 exact, 0 allowed, 1 wrong"), "{text}");
}

#[test]
fn a_query_without_a_result_is_bad_input_with_its_path() {
    let f = TempFile::new("missing", &one(r#""component": 0"#));
    let o = tld4(&["check"], &f.0);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("cases[0].queries[0].result"), "{e}");
    let f = TempFile::new("short", &one(r#""result": [0.4, 1.0]"#));
    let e = String::from_utf8_lossy(&tld4(&["check"], &f.0).stderr).to_string();
    assert!(
        e.contains("cases[0].queries[0].result: a result has 4 values, got 2"),
        "{e}"
    );
}
