//! Checks that need NVIDIA's ptxas and nvdisasm (installed by build-kernels.sh into target/);
//! each skips, saying so, where they are missing (e.g. in CI).

use std::path::PathBuf;
use std::process::Command;

use tld4_hw_probe::{kernels, layout, nvdisasm, sm90};

fn nv() -> Option<PathBuf> {
    let p = nvdisasm::find_nvdisasm();
    if p.is_none() {
        eprintln!("SKIPPED: no nvdisasm (run tests/hw-probe/build-kernels.sh to install it)");
    }
    p
}

#[test]
fn ptxas_118_rebuilds_the_committed_cubin() {
    let ptxas = PathBuf::from(nvdisasm::DEFAULT_CU118_BIN).join("ptxas");
    if !ptxas.exists() {
        eprintln!("SKIPPED: no ptxas 11.8 at {}", ptxas.display());
        return;
    }
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
    let Some(nv) = nv() else { return };
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
    let Some(nv) = nv() else { return };
    let l = kernels::layout().unwrap();
    let tsv = kernels::variants_tsv(kernels::CUBIN, &l, &nv).unwrap();
    assert_eq!(tsv, kernels::VARIANTS_TSV);
}

#[test]
fn sm90_reads_the_field_table_bits() {
    let Some(nv) = nv() else { return };
    let l = kernels::layout().unwrap();
    let bases: Vec<u128> = ["raw", "nat_cube_r_dc"]
        .iter()
        .map(|k| layout::parse_word(&kernels::kernel(&l, k).unwrap().tld4_word).unwrap())
        .collect();
    let words = sm90::words(&bases, 300, 7);
    let rep = sm90::verify(&nv, &words).unwrap();
    let other: Vec<_> = rep
        .disagreements
        .iter()
        .filter(|d| !sm90::is_d64_form(d))
        .collect();
    assert!(other.is_empty(), "{other:#?}");
    // The 0xd64 form is refused on SM90 for each base.
    assert_eq!(rep.disagreements.len(), bases.len());
}
