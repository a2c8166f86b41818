//! `tld4-lavapipe bench` with a tiny N: it runs, prints a line per row with both rates and a
//! ratio, and both sides compute the same gathers. Needs lavapipe and glslangValidator: without
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
        assert!(row.contains("tld4/lavapipe "), "{row}");
        // The same queries on both sides: all but a few at ambiguous spots (texel boundaries,
        // cube edges) agree within 1 ulp.
        let agree = row.rsplit("results agree ").next().expect("agreement");
        let (a, n) = agree.trim().split_once('/').expect("a/n");
        let (a, n): (f64, f64) = (a.parse().expect("a"), n.parse().expect("n"));
        assert_eq!(n, 2048.0, "{row}");
        assert!(a / n > 0.97, "only {a} of {n} agree: {row}");
    }
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("min ratio vs lavapipe: "), "{stdout}");
}
