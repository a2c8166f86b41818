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

/// Builds the portable PTX (`kernels/tld4_probe.portable.ptx`) with `ptxas -arch=<arch>` and
/// reads the cubin's TLD4 words with tld4-decoder: one TLD4 a kernel, every one decoded for
/// the cubin's architecture. Returns the forms found and the kernels whose TLD4 has no `.SCR`.
fn build_portable(
    ptxas: &std::path::Path,
    arch: &str,
    ptx: &std::path::Path,
) -> (Vec<String>, Vec<String>) {
    let out = std::env::temp_dir().join(format!(
        "tld4-hw-probe-portable-{}-{arch}.cubin",
        std::process::id()
    ));
    let o = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{arch}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let f = tld4_hw_probe::forms::cubin_forms(&bytes).unwrap();
    assert_eq!(f.arch.replace('_', ""), arch.replace('_', ""), "{arch}");
    let kernels = tld4_hw_probe::ptx::nat_kernels().len() + 1;
    assert_eq!(f.kernels, kernels, "{arch}");
    assert_eq!(f.tld4.len(), kernels, "{arch}: one TLD4 a kernel");
    for t in &f.tld4 {
        assert!(t.decoded, "{arch} {}: {} {}", t.kernel, t.word, t.text);
        assert!(t.text.starts_with("TLD4"), "{arch}: {}", t.text);
    }
    let mut forms: Vec<String> = f.tld4.iter().map(|t| t.form.clone()).collect();
    forms.sort();
    forms.dedup();
    let no_scr = f
        .tld4
        .iter()
        .filter(|t| t.scr == Some(false))
        .map(|t| t.kernel.clone())
        .collect();
    (forms, no_scr)
}

const PORTABLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/kernels/tld4_probe.portable.ptx"
);

#[test]
fn ptxas_135_builds_the_portable_ptx_for_every_architecture() {
    let Some(ptxas) = tool(
        Tool::Ptxas135,
        "ptxas_135_builds_the_portable_ptx_for_every_architecture",
    ) else {
        return;
    };
    let ptx = std::path::Path::new(PORTABLE);
    // Every architecture ptxas 13.5 builds for, from sm_75 to sm_121 (it has no sm_101).
    for arch in [
        "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103",
        "sm_110", "sm_120", "sm_121",
    ] {
        // What ptxas 13.5 emits (docs/sources.md, What ptxas emits): up to sm_89 the
        // constant-bank form 0xb63 with .SCR on every TLD4 but the depth-compared cube array's;
        // from sm_90 on the uniform-register form 0xf63 and no .SCR.
        let (forms, no_scr) = build_portable(&ptxas, arch, ptx);
        let old = ["sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89"].contains(&arch);
        assert_eq!(forms, [if old { "0xb63" } else { "0xf63" }], "{arch}");
        if old {
            assert_eq!(no_scr, ["nat_acube_r_dc"], "{arch}");
        } else {
            assert_eq!(
                no_scr.len(),
                tld4_hw_probe::ptx::nat_kernels().len() + 1,
                "{arch}"
            );
        }
    }
    // The oldest PTX ISA the file could name is 7.1: ptxas refuses the predicate under 7.0.
    let text = std::fs::read_to_string(ptx).unwrap();
    assert!(text.contains("\n.version 7.1\n.target sm_75\n"));
    let old = std::env::temp_dir().join(format!("tld4-hw-probe-v70-{}.ptx", std::process::id()));
    std::fs::write(&old, text.replace(".version 7.1", ".version 7.0")).unwrap();
    let o = Command::new(&ptxas)
        .args(["-arch=sm_75", "-o", "/dev/null"])
        .arg(&old)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&old);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("requires PTX ISA .version 7.1"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn ptxas_118_builds_the_portable_ptx_up_to_sm90() {
    let Some(ptxas) = tool(
        Tool::Ptxas118,
        "ptxas_118_builds_the_portable_ptx_up_to_sm90",
    ) else {
        return;
    };
    for arch in ["sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90"] {
        build_portable(&ptxas, arch, std::path::Path::new(PORTABLE));
    }
}
