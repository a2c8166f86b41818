//! Once a device run has been copied in as `tests/golden/hw_h200.json`, it must be a real
//! measurement: not synthetic, with the GPU, driver and date, and from this probe's cubin.

use std::io::Write;

use tld4_hw_probe::kernels;

#[test]
fn committed_hardware_golden_is_a_measurement_of_this_probe() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/golden/hw_h200.json"
    );
    let Ok(s) = std::fs::read_to_string(path) else {
        // Past the test harness's capture, so the skip shows in a passing run.
        let _ = writeln!(
            std::io::stderr().lock(),
            "SKIPPED: committed_hardware_golden_is_a_measurement_of_this_probe because tests/golden/hw_h200.json is not there yet (the probe has not run on a GPU)"
        );
        return;
    };
    let g: serde_json::Value = serde_json::from_str(&s).expect("hw_h200.json parses");
    assert_eq!(
        g["synthetic"], false,
        "synthetic data must never be committed as golden"
    );
    assert!(g["device"]["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(g["device"]["driver_api_version"]
        .as_u64()
        .is_some_and(|v| v > 0));
    assert!(g["date_utc"].as_str().is_some_and(|d| d.len() == 20));
    let l = kernels::layout().unwrap();
    assert_eq!(
        g["probe"]["cubin_fnv1a64"].as_str(),
        Some(l.cubin_fnv1a64.as_str()),
        "golden data from another cubin"
    );
}
