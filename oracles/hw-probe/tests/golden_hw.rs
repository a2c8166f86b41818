//! Every device run copied in as `hw_*.json` under `tests/golden/` must be a real measurement: not
//! synthetic, with the GPU, driver and date, an answer to every open question, and from this
//! probe's kernels (the sm_90 cubin's hash, or the portable PTX's for a JIT or ptxas run).

use std::io::Write;

use tld4_hw_probe::{kernels, probe, questions};

#[test]
fn committed_hardware_golden_files_are_measurements_of_this_probe() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("hw_") && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        // Past the test harness's capture, so the skip shows in a passing run.
        let _ = writeln!(
            std::io::stderr().lock(),
            "SKIPPED: committed_hardware_golden_files_are_measurements_of_this_probe because no tests/golden/hw_*.json is there yet (the probe has not run on a GPU)"
        );
        return;
    }
    let l = kernels::layout().unwrap();
    for path in files {
        let s = std::fs::read_to_string(&path).unwrap();
        let g: serde_json::Value = serde_json::from_str(&s).expect("hw_*.json parses");
        let at = path.display();
        assert_eq!(
            g["synthetic"], false,
            "{at}: synthetic data must never be committed as golden"
        );
        assert!(
            g["device"]["name"].as_str().is_some_and(|n| !n.is_empty()),
            "{at}"
        );
        assert!(
            g["device"]["driver_api_version"]
                .as_u64()
                .is_some_and(|v| v > 0),
            "{at}"
        );
        assert!(
            g["date_utc"].as_str().is_some_and(|d| d.len() == 20),
            "{at}"
        );
        match g["probe"]["source"].as_str() {
            Some("jit") | Some("cubin") => assert_eq!(
                g["probe"]["portable_ptx_fnv1a64"].as_str(),
                Some(probe::portable_ptx_hash().as_str()),
                "{at}: golden data from another portable PTX"
            ),
            _ => assert_eq!(
                g["probe"]["cubin_fnv1a64"].as_str(),
                Some(l.cubin_fnv1a64.as_str()),
                "{at}: golden data from another cubin"
            ),
        }
        let q = g["questions"]
            .as_array()
            .expect("an answer per open question");
        assert_eq!(q.len(), questions::QUESTIONS.len(), "{at}");
    }
}
