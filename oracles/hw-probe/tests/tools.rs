//! Checks that need NVIDIA's ptxas 11.8 and nvdisasm, found where the repository's scripts
//! install them under target/ (`oracles/nvdisasm/install.sh`, which `.ci/run` runs, and
//! `oracles/hw-probe/build-kernels.sh`) or where `$NVDISASM` / `$PTXAS_11_8` say.
//!
//! A missing tool skips the test with a `SKIPPED: <test> because <why>` line on stderr (written
//! past the test harness's capture, so it shows in a passing run); under CI (`CI=true`) a
//! missing tool fails the test instead.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use tld4_hw_probe::nvdisasm::{self, Tool};
use tld4_hw_probe::{kernels, layout, sm90};

/// The tool's path, or `None` after saying why the test skips; panics under CI.
fn tool(tool: Tool, test: &str) -> Option<PathBuf> {
    match nvdisasm::locate(tool) {
        Ok(p) => Some(p),
        Err(why) if nvdisasm::under_ci() => {
            panic!("{test}: {why} (CI is set: a missing tool is a failure, not a skip)")
        }
        Err(why) => {
            // Straight to the process's stderr: `eprintln!` in a test is captured and only
            // shown when the test fails.
            let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {test} because {why}");
            None
        }
    }
}

#[test]
fn ptxas_118_rebuilds_the_committed_cubin() {
    let Some(ptxas) = tool(Tool::Ptxas118, "ptxas_118_rebuilds_the_committed_cubin") else {
        return;
    };
    let out = std::env::temp_dir().join(format!("tld4-hw-probe-test-{}.cubin", std::process::id()));
    let st = Command::new(&ptxas)
        .args([
            "-arch=sm_90",
            concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/tld4_probe.ptx"),
            "-o",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let built = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(
        built,
        kernels::CUBIN,
        "ptxas 11.8 output differs from the committed cubin"
    );
}

#[test]
fn nvdisasm_listing_gives_the_committed_layout() {
    let Some(nv) = tool(
        Tool::Nvdisasm,
        "nvdisasm_listing_gives_the_committed_layout",
    ) else {
        return;
    };
    let cubin = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/tld4_probe.sm90.cubin");
    let listing = nvdisasm::listing(&nv, cubin.as_ref()).unwrap();
    let l = kernels::layout().unwrap();
    assert_eq!(
        layout::analyze(kernels::CUBIN, &listing, &l.ptxas).unwrap(),
        l
    );
}

#[test]
fn every_patched_cubin_disassembles_as_recorded() {
    let Some(nv) = tool(
        Tool::Nvdisasm,
        "every_patched_cubin_disassembles_as_recorded",
    ) else {
        return;
    };
    let l = kernels::layout().unwrap();
    let tsv = kernels::variants_tsv(kernels::CUBIN, &l, &nv).unwrap();
    assert_eq!(tsv, kernels::VARIANTS_TSV);
}

#[test]
fn sm90_reads_the_field_table_bits() {
    let Some(nv) = tool(Tool::Nvdisasm, "sm90_reads_the_field_table_bits") else {
        return;
    };
    let l = kernels::layout().unwrap();
    let bases: Vec<u128> = ["raw", "nat_cube_r_dc"]
        .iter()
        .map(|k| layout::parse_word(&kernels::kernel(&l, k).unwrap().tld4_word).unwrap())
        .collect();
    let words = sm90::words(&bases, 300, 7);
    let rep = sm90::verify(&nv, &words).unwrap();
    // The SM90 tables agree with nvdisasm -b SM90 on every word, the 0xd64 form included
    // (refused by both: SM90 has no register-handle TLD4).
    assert!(rep.disagreements.is_empty(), "{:#?}", rep.disagreements);
    let d64 = rep
        .checked
        .iter()
        .find(|c| c.0 == "form 0xd64")
        .map(|c| c.1);
    assert_eq!(d64, Some(bases.len()));
}
