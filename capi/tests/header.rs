//! capi/include/tld4.h is what cbindgen makes of capi/src with capi/cbindgen.toml; this test
//! regenerates it and fails when the committed header differs (`TLD4_BLESS=1` rewrites it).

use std::path::PathBuf;

fn generate() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write(&mut out);
    String::from_utf8(out).expect("UTF-8 header")
}

#[test]
fn committed_header_is_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/tld4.h");
    let fresh = generate();
    if std::env::var_os("TLD4_BLESS").is_some() {
        std::fs::write(&path, &fresh).expect("write the header");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "capi/include/tld4.h is not current: run `TLD4_BLESS=1 cargo test -p tld4-capi --test c_abi header`"
    );
}

/// The C fault enum's names, in the header, are tld4-emu's stable names in upper case, in
/// the order of `FaultKind::ALL` (then `no_constant`, not a `FaultKind`).
#[test]
fn header_fault_names_are_the_stable_names() {
    let header = generate();
    let names: Vec<String> = header
        .lines()
        .filter_map(|l| l.trim().strip_prefix("TLD4_FAULT_"))
        .map(|l| {
            l.split([' ', ',', '='])
                .next()
                .unwrap_or("")
                .to_ascii_lowercase()
        })
        // `no_constant` is tld4-emu's `ArchExecError::NoConstant` (capi/tests/arch_exec.rs).
        .filter(|n| n != "none" && n != "other" && n != "no_constant")
        .collect();
    let stable: Vec<&str> = tld4_emu::FaultKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names, stable);
}
