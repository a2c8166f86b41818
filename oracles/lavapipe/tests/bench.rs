//! `tld4-lavapipe bench` with a tiny N: it runs, prints a line per row with both rates and
//! both ratios, the K-gather shader returns what the one-gather shader returns for the same
//! moved coordinates, and both sides compute the same gathers. Needs lavapipe and glslangValidator: without
//! them it prints `SKIPPED: ...` and passes, unless `CI=true` (as `.ci/run` sets after
//! installing them), where it fails.

use std::process::Command;

#[test]
fn bench_runs_both_sides_on_the_same_gathers() {
    let out = Command::new(env!("CARGO_BIN_EXE_tld4-lavapipe"))
        .args(["bench", "--n", "2048", "--rounds", "2"])
        .output()
        .expect("running tld4-lavapipe");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let missing = [
            "libvulkan",
            "no Vulkan device",
            "glslangValidator",
            "vkCreateInstance",
        ]
        .iter()
        .any(|m| stderr.contains(m));
        if missing && std::env::var("CI").as_deref() != Ok("true") {
            println!(
                "SKIPPED: bench_runs_both_sides_on_the_same_gathers because {}",
                stderr.trim()
            );
            return;
        }
        panic!("tld4-lavapipe bench failed: {stderr}\n{stdout}");
    }
    let rows: Vec<&str> = stdout.lines().filter(|l| l.contains(" tld4 ")).collect();
    assert_eq!(rows.len(), 3, "one line per row:\n{stdout}");
    let k = 16.0;
    for (row, name) in rows.iter().zip([
        "RGBA8 UNORM 2D, clamp to edge",
        "D32 FLOAT cube array, depth compare",
        "RGBA8 UNORM 2D, PTP",
    ]) {
        assert!(row.starts_with(name), "{row}");
        assert!(
            row.contains("M gathers/s") && row.contains("ns/gather"),
            "{row}"
        );
        assert!(row.contains("whole-dispatch tld4/lavapipe "), "{row}");
        assert!(row.contains("net tld4/lavapipe "), "{row}");
        assert!(row.contains("tld4 texture unit alone "), "{row}");
        assert!(row.contains("lavapipe net/texture unit "), "{row}");
        // The K-gather shader returns, invocation by invocation, the XOR of what the
        // one-gather shader returns for its K moved queries: every invocation matches.
        let same = field(row, "K-gather = one-gather ");
        assert_eq!(same, (2048.0, 2048.0), "{row}");
        // The same gathers on both sides: all but a few at ambiguous spots (texel boundaries,
        // cube edges) agree within 1 ulp.
        let (a, n) = field(row, "results agree ");
        assert_eq!(n, 2048.0 * k, "{row}");
        assert!(a / n > 0.97, "only {a} of {n} agree: {row}");
    }
    let lines: Vec<&str> = stdout.lines().collect();
    // both sides on one CPU by default (`--pin auto`)
    assert!(lines[0].contains("both sides pinned to CPU "), "{stdout}");
    assert!(
        lines[lines.len() - 4].starts_with("min texture-unit ratio vs lavapipe net: "),
        "{stdout}"
    );
    assert!(
        lines[lines.len() - 3].starts_with("min net ratio vs lavapipe: "),
        "{stdout}"
    );
    // `execute` a warp (the executor prepared on each call) beside the bound executor's ratio.
    assert!(
        lines[lines.len() - 2]
            .starts_with("min execute ratio vs lavapipe (Tld4Exec::execute a warp): "),
        "{stdout}"
    );
    let last = lines.last().copied().unwrap_or_default();
    assert!(last.starts_with("min ratio vs lavapipe: "), "{stdout}");
    let ratio: f64 = last["min ratio vs lavapipe: ".len()..]
        .parse()
        .expect("a whole-dispatch ratio: lavapipe's whole dispatch is always positive");
    assert!(ratio > 0.0, "{last}");
}

/// The `a/n` after `label` in a bench line.
fn field(row: &str, label: &str) -> (f64, f64) {
    let rest = row.split(label).nth(1).expect(label);
    let text = rest.split_whitespace().next().expect("a/n");
    let (a, n) = text.split_once('/').expect("a/n");
    (a.parse().expect("a"), n.parse().expect("n"))
}
