//! Every way a cubin reference in a scenario can miss: each error names its JSON path
//! (`instruction.cubin`, `instruction.kernel`, `instruction.offset`) and says what is there.

use std::path::Path;

use tld4_cubin::{Cubin, ErrorKind, SM100};
use tld4_scenario::cubin_ref::{CubinRef, CubinRefError};
use tld4_scenario::ScenarioError;

use super::{cuda_dir, root, scenario_text, text, tld4};

const REF: &str = r#"{"cubin": "gather.sm100.cubin", "kernel": "gather_quad", "offset": "0x0310"}"#;

/// The example scenario with its instruction replaced by `instruction` (JSON text), loaded
/// with the cubins found relative to `dir`.
fn load_with(instruction: &str, dir: &Path) -> Result<tld4_scenario::Scenario, ScenarioError> {
    let doc = scenario_text();
    assert!(doc.contains(REF), "the example names its TLD4 as {REF}");
    tld4_scenario::load_in(&doc.replace(REF, instruction), dir)
}

/// The error of loading the example with `instruction`, checked to be at `path`.
fn error_at(instruction: &str, path: &str) -> String {
    let e = load_with(instruction, &cuda_dir())
        .map(|_| ())
        .expect_err(instruction);
    assert_eq!(e.path, path, "{instruction}: {e}");
    e.message
}

#[test]
fn an_offset_without_a_tld4_says_what_is_there_and_where_the_tld4s_are() {
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "kernel": "gather_quad", "offset": "0x0300"}"#,
        "instruction.offset",
    );
    // 0x0300 holds UMOV UR5, URZ (nvdisasm -c); the decoder names its opcode bits.
    assert!(
        m.starts_with("no TLD4 at 0x0300 in kernel gather_quad (another instruction is there: opcode bits 11:0 = 0x"),
        "{m}"
    );
    assert!(m.ends_with("; its TLD4s are at 0x0310"), "{m}");
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "kernel": "gather_quad", "offset": "0x0318"}"#,
        "instruction.offset",
    );
    assert_eq!(m, "no TLD4 at 0x0318 in kernel gather_quad (not a multiple of 16: instructions are 16 bytes); its TLD4s are at 0x0310");
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "kernel": "gather_row_green", "offset": 65536}"#,
        "instruction.offset",
    );
    assert!(
        m.starts_with(
            "no TLD4 at 0x10000 in kernel gather_row_green (past the end of its code, 0x"
        ),
        "{m}"
    );
    assert!(m.ends_with("its TLD4s are at 0x01b0"), "{m}");
}

#[test]
fn offsets_are_0x_hex_strings_or_non_negative_integers() {
    for (offset, why) in [
        (r#""310""#, "offset `310`: expected 0x and hex digits"),
        (r#""0x""#, "offset `0x`: expected 0x and 1 to 16 hex digits"),
        (
            r#""0x03g0""#,
            "offset `0x03g0`: expected 0x and 1 to 16 hex digits",
        ),
        (
            r#""0x00000000000000310""#,
            "expected 0x and 1 to 16 hex digits",
        ),
        ("-16", "-16: expected \"0x...\""),
        ("784.0", "784.0: expected \"0x...\""),
        ("null", "null: expected \"0x...\""),
        ("[784]", "[784]: expected \"0x...\""),
    ] {
        let m = error_at(
            &format!(
                r#"{{"cubin": "gather.sm100.cubin", "kernel": "gather_quad", "offset": {offset}}}"#
            ),
            "instruction.offset",
        );
        assert!(m.contains(why), "{offset}: {m}");
    }
}

#[test]
fn a_missing_kernel_lists_the_kernels() {
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "kernel": "gather", "offset": "0x0310"}"#,
        "instruction.kernel",
    );
    assert_eq!(
        m,
        "no kernel gather; kernels: gather_row_green, gather_quad"
    );
    // The host object: the kernels of its embedded cubin.
    let m = error_at(
        r#"{"cubin": "gather.o", "kernel": "main", "offset": "0x0310"}"#,
        "instruction.kernel",
    );
    assert_eq!(m, "no kernel main; kernels: gather_row_green, gather_quad");
}

#[test]
fn a_file_that_cannot_be_read_or_opened_is_an_error_of_the_cubin_key() {
    let m = error_at(
        r#"{"cubin": "missing.cubin", "kernel": "gather_quad", "offset": "0x0310"}"#,
        "instruction.cubin",
    );
    assert!(m.starts_with("cannot read "), "{m}");
    assert!(m.contains("examples/cuda/missing.cubin"), "{m}");
    // A text file.
    let m = error_at(
        r#"{"cubin": "gather.cu", "kernel": "gather_quad", "offset": "0x0310"}"#,
        "instruction.cubin",
    );
    assert!(
        m.contains("not a cubin, fat binary or host executable"),
        "{m}"
    );
    // Another family's TLD4: found and decoded with its own tables, not executed.
    let m = error_at(
        r#"{"cubin": "../../tests/cubins/one_gather.sm90.cubin", "kernel": "one_gather", "offset": "0x0090"}"#,
        "instruction.offset",
    );
    assert!(m.contains("is sm_90's `TLD4.G "), "{m}");
    assert!(m.contains("tld4 executes the sm_100 family's TLD4"), "{m}");
}

#[test]
fn another_architecture_is_not_modeled_damage_is_invalid_and_compression_is_read() {
    let at = |file: &str| CubinRef {
        file: file.into(),
        kernel: "one_gather".into(),
        offset: 0x90,
    };
    let e = at("tests/cubins/one_gather.sm90.cubin")
        .resolve(root())
        .unwrap_err();
    assert_eq!(
        (e.key(), e.kind()),
        ("offset", ErrorKind::NotModeled),
        "{e}"
    );
    // sm_103 is of the sm_100 family: its TLD4 resolves, with its own word.
    let sm103 = at("tests/cubins/one_gather.sm103.cubin")
        .resolve(root())
        .unwrap();
    assert_eq!(sm103.target.to_string(), "sm_103");
    // The zstd-compressed fat binary's sm_100 entry is decompressed: the same TLD4.
    let packed = at("tests/cubins/one_gather.zstd.fatbin")
        .resolve(root())
        .unwrap();
    let plain = at("tests/cubins/one_gather.fatbin")
        .resolve(root())
        .unwrap();
    assert_eq!((packed.word, packed.origin.entry), (plain.word, Some(2)));
    let e = at("tests/cubins/build.sh").resolve(root()).unwrap_err();
    assert_eq!((e.key(), e.kind()), ("cubin", ErrorKind::Invalid), "{e}");
    let e = at("tests/cubins/nothing-here").resolve(root()).unwrap_err();
    assert!(matches!(e, CubinRefError::Read { .. }), "{e}");
    // A directory, or a device that never ends, is refused before reading.
    for (file, what) in [
        ("tests/cubins", "a directory"),
        ("/dev/zero", "a character device"),
    ] {
        let e = at(file).resolve(root()).unwrap_err();
        assert!(matches!(e, CubinRefError::Read { .. }), "{e}");
        assert!(
            e.to_string()
                .ends_with(&format!(": it is {what}, not a regular file")),
            "{e}"
        );
    }
}

#[test]
fn the_object_has_exactly_the_three_keys_and_the_key_takes_a_string_or_an_object() {
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "kernel": "gather_quad", "offset": "0x0310", "entry": 1}"#,
        "instruction.entry",
    );
    assert_eq!(
        m,
        "unknown field `entry`, expected one of `cubin`, `kernel`, `offset`"
    );
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "offset": "0x0310"}"#,
        "instruction",
    );
    assert!(m.contains("missing field `kernel`"), "{m}");
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "cubin": "gather.o", "kernel": "gather_quad", "offset": "0x0310"}"#,
        "instruction",
    );
    assert!(m.contains("duplicate field `cubin`"), "{m}");
    let m = error_at(
        r#"{"cubin": "gather.sm100.cubin", "kernel": 7, "offset": "0x0310"}"#,
        "instruction.kernel",
    );
    assert!(m.contains("expected a string"), "{m}");
    for (value, found) in [
        ("42", "a number"),
        ("[]", "an array"),
        ("null", "null"),
        ("true", "a boolean"),
    ] {
        let m = error_at(value, "instruction");
        assert!(
            m.contains("expected nvdisasm's text or 32 hex digits (a string), or {\"cubin\""),
            "{m}"
        );
        assert!(m.ends_with(&format!("found {found}")), "{m}");
    }
    // The string forms are unchanged.
    let m = error_at(r#""TLD4.Q R1""#, "instruction");
    assert!(m.contains("column"), "{m}");
    let s = load_with(r#""TLD4.R R10, R8, R2, UR4, 2D ;""#, &cuda_dir()).unwrap();
    assert_eq!(s.insn.text(), "TLD4.R R10, R8, R2, UR4, 2D ;");
}

/// The example cubin's bytes, and where gather_quad's TLD4 starts in them.
fn cubin_and_tld4() -> (Vec<u8>, usize) {
    let bytes = std::fs::read(cuda_dir().join("gather.sm100.cubin")).unwrap();
    let at = Cubin::parse(&bytes, &[SM100])
        .unwrap()
        .kernel("gather_quad")
        .unwrap()
        .file_offset() as usize
        + 0x310;
    (bytes, at)
}

/// The example scenario naming `file` (absolute), as JSON text of the instruction object.
fn naming(file: &Path, kernel: &str, offset: &str) -> String {
    format!(
        r#"{{"cubin": {}, "kernel": "{kernel}", "offset": "{offset}"}}"#,
        serde_json::to_string(file.to_str().unwrap()).unwrap()
    )
}

#[test]
fn a_tld4_word_nvdisasm_refuses_is_named_with_the_decoders_reason() {
    let (mut bytes, at) = cubin_and_tld4();
    // Bit 91 (bit 27 of the high half, byte 8 + 3 of the word): clear, nvdisasm refuses the
    // word (docs/sources.md, Encoding).
    assert_ne!(bytes[at + 11] & 0x08, 0);
    bytes[at + 11] &= !0x08;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bit91.cubin");
    std::fs::write(&file, &bytes).unwrap();
    let e = load_with(&naming(&file, "gather_quad", "0x0310"), Path::new(""))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.path, "instruction.offset");
    assert!(
        e.message.starts_with(
            "gather_quad+0x0310: the word has TLD4's opcode, but nvdisasm refuses it: "
        ),
        "{e}"
    );
    assert!(e.message.contains("bit 91"), "{e}");
}

#[test]
fn a_name_two_code_sections_share_is_refused_with_both_names() {
    let (mut bytes, at) = cubin_and_tld4();
    let code = at - 0x310;
    // ELF64 header: e_shoff at 0x28, e_shentsize at 0x3a, e_shnum at 0x3c; a section header
    // holds sh_offset at 0x18 (System V gABI). Copy gather_quad's header over another one.
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes(b[o..o + 2].try_into().unwrap()) as usize;
    let (shoff, size, num) = (
        u64_at(&bytes, 0x28) as usize,
        u16_at(&bytes, 0x3a),
        u16_at(&bytes, 0x3c),
    );
    let text = (0..num)
        .find(|i| u64_at(&bytes, shoff + i * size + 0x18) as usize == code)
        .unwrap();
    let other = if text == num - 1 { num - 2 } else { num - 1 };
    let header = bytes[shoff + text * size..shoff + (text + 1) * size].to_vec();
    bytes[shoff + other * size..shoff + (other + 1) * size].copy_from_slice(&header);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("twice.cubin");
    std::fs::write(&file, &bytes).unwrap();
    let e = load_with(&naming(&file, "gather_quad", "0x0310"), Path::new(""))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.path, "instruction.kernel");
    assert!(
        e.message.ends_with(
            "2 code sections are named .text.gather_quad; name one as nvdisasm does: gather_quad, gather_quad__1"
        ),
        "{e}"
    );
    // The second copy, by the name nvdisasm gives it.
    let found = load_with(&naming(&file, "gather_quad__1", "0x0310"), Path::new("")).unwrap();
    let word = u128::from_le_bytes(bytes[at..at + 16].try_into().unwrap());
    assert_eq!(found.word, word);
}

#[test]
fn a_kernel_in_two_cubins_of_a_fat_binary_is_ambiguous() {
    // Two containers back to back (each at an 8-byte boundary), so two sm_100 entries.
    let one = std::fs::read(root().join("tests/cubins/one_gather.fatbin")).unwrap();
    let mut two = one.clone();
    two.resize(one.len().div_ceil(8) * 8, 0);
    two.extend_from_slice(&one);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.fatbin");
    std::fs::write(&file, &two).unwrap();
    let e = load_with(&naming(&file, "one_gather", "0x0090"), Path::new(""))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.path, "instruction.kernel");
    assert!(
        e.message.starts_with(
            "kernel one_gather is in 2 cubins of the file (entries #2 (sm_100), #4 (sm_100))"
        ),
        "{e}"
    );
    assert!(e.message.contains("cuobjdump -xelf all"), "{e}");
    // The single container resolves.
    let found = CubinRef {
        file: "tests/cubins/one_gather.fatbin".into(),
        kernel: "one_gather".into(),
        offset: 0x90,
    }
    .resolve(root())
    .unwrap();
    assert_eq!(found.insn.text(), "TLD4.G R6, R4, R4, UR4, 2D ;");
}

#[test]
fn tld4_run_reports_the_path_and_exits_2() {
    let doc = scenario_text().replace(r#""0x0310""#, r#""0x0300""#);
    let out = tld4(&["run", "-"], &cuda_dir(), &doc);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("instruction.offset: no TLD4 at 0x0300 in kernel gather_quad"),
        "{err}"
    );
    assert!(err.contains("its TLD4s are at 0x0310"), "{err}");
}
