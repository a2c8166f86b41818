//! Hostile scenarios on the command line: a FIFO as a memory region file, region files
//! outside the scenario's directory with `--confine`, and `to-memory` bases whose image
//! would pass 2^64 or whose texels would lie at or above 2^57. Each is exit 2 with the
//! place named, never a hang.

use std::path::PathBuf;
use std::process::Output;

use crate::common;
use common::{text, tld4};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const EXAMPLE: &str = "examples/scenarios/memory_pitch_rgba8.json";
const OWNED: &str = "examples/scenarios/gather_green.json";
const TEXELS: &str = "\"hex\": \"102030ff 405060ff 00000000 00000000 00000000 00000000 00000000 00000000 708090ff a0b0c0ff\"";

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tld4-bad-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Exit 2, with `want` in standard error.
fn bad_input(out: &Output, want: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(want), "expected `{want}` in: {err}");
}

/// The memory example with its texel region read from `file`, written to `dir`.
fn scenario_with_file(dir: &std::path::Path, file: &str) -> String {
    let example = std::fs::read_to_string(PathBuf::from(ROOT).join(EXAMPLE)).unwrap();
    assert!(example.contains(TEXELS));
    let text = example.replacen(TEXELS, &format!("\"file\": \"{file}\""), 1);
    let path = dir.join("scenario.json");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The example's texel bytes.
fn texel_bytes() -> Vec<u8> {
    let mut t = vec![0u8; 40];
    t[..8].copy_from_slice(&[0x10, 0x20, 0x30, 0xff, 0x40, 0x50, 0x60, 0xff]);
    t[32..].copy_from_slice(&[0x70, 0x80, 0x90, 0xff, 0xa0, 0xb0, 0xc0, 0xff]);
    t
}

#[cfg(unix)]
#[test]
fn a_fifo_region_file_is_exit_2_not_a_hang() {
    let dir = scratch("fifo");
    let fifo = dir.join("texels.bin");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let scenario = scenario_with_file(&dir, "texels.bin");
    // no writer ever opens the FIFO: reading it would block forever
    let out = tld4(&["run", &scenario]);
    bad_input(&out, "memory[2].file: cannot read `texels.bin`");
    bad_input(&out, "not a regular file");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn confine_refuses_region_files_outside_the_scenario_directory() {
    let root = scratch("confine");
    let dir = root.join("s");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(root.join("outside.bin"), texel_bytes()).unwrap();
    std::fs::write(dir.join("inside.bin"), texel_bytes()).unwrap();
    let scenario = scenario_with_file(&dir, "../outside.bin");
    // without --confine the file outside is read, and its bytes are gathered
    let out = tld4(&["run", &scenario]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("pass"), "{}", text(&out.stdout));
    let out = tld4(&["run", "--confine", &scenario]);
    bad_input(
        &out,
        "memory[2].file: `../outside.bin` is outside the scenario's directory",
    );
    // explain --confine: the same rule
    let insn = "TLD4.R R10, R8, R20, UR4, 2D";
    let out = tld4(&["explain", insn, "--scenario", &scenario, "--confine"]);
    bad_input(
        &out,
        "memory[2].file: `../outside.bin` is outside the scenario's directory",
    );
    let out = tld4(&["explain", insn, "--scenario", &scenario]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let scenario = scenario_with_file(&dir, "inside.bin");
    let out = tld4(&["run", "--confine", &scenario]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = tld4(&["explain", insn, "--scenario", &scenario, "--confine"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn to_memory_bases_too_high_say_why() {
    let owned = PathBuf::from(ROOT).join(OWNED).display().to_string();
    let out = tld4(&["to-memory", "--base", "0x200000000000000", &owned]);
    bad_input(&out, "texels must lie below 2^57");
    let out = tld4(&["to-memory", "--base", "0xfffffffffffffe00", &owned]);
    bad_input(&out, "passes the end of the 64-bit address space");
    let out = tld4(&["run", "--addresses", "--base", "0x1fffffffffff000", &owned]);
    bad_input(&out, "texels must lie below 2^57");
}

/// Every input read whole goes through one reader: a FIFO (here; `/dev/zero` alike) as a
/// scenario, a gather cases file, assembler or disassembler input is refused before it is
/// opened, never read until memory runs out or blocked on.
#[cfg(unix)]
#[test]
fn special_files_as_whole_inputs_are_refused_not_read() {
    let dir = scratch("whole-inputs");
    let fifo = dir.join("input");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let f = fifo.to_str().unwrap();
    for args in [
        vec!["run", f],
        vec!["gather", f],
        vec!["asm", f],
        vec!["disasm", f],
        vec!["explain", "--scenario", f, "TLD4.R R0, R2, R4, UR4, 2D"],
    ] {
        let out = tld4(&args);
        let err = text(&out.stderr);
        assert!(
            err.contains("it is a FIFO, not a regular file"),
            "{args:?}: {err}"
        );
        assert_ne!(out.status.code(), Some(0), "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `tld4 scan -` reads standard input (docs/cli.md): the same rows as the file, under `-`.
#[test]
fn scan_reads_standard_input_for_a_dash() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let path = PathBuf::from(ROOT).join("tests/cubins/gather_2d.sm100.cubin");
    let by_name = tld4(&["scan", path.to_str().unwrap()]);
    assert_eq!(by_name.status.code(), Some(0), "{}", text(&by_name.stderr));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tld4"))
        .args(["scan", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let want = text(&by_name.stdout).replace(path.to_str().unwrap(), "-");
    assert!(!want.is_empty());
    assert_eq!(text(&out.stdout), want);
}
