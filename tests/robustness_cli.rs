//! Bad input never hurts: every command, fed the inputs that used to abort, panic, or be
//! silently dropped, exits with the documented code (0 success, 1 check failed, 2 bad input)
//! and says why on standard error.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use crate::common;
use common::{text, tld4_stdin as tld4};

const EXAMPLE: &str = include_str!("../examples/scenarios/gather_green.json");

const CASES: &str = r#"{"cases": [{
  "texture": {"dim": "2d", "format": "r8_unorm", "width": 2, "height": 2, "texels": [0, 51, 102, 255]},
  "sampler": {"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"},
  "queries": [{"coord": [0.5, 0.5]}]
}]}"#;

/// Exit code 2, `want` on standard error, no panic.
fn bad_input(out: &Output, want: &str) {
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains(want), "expected `{want}` in {e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn huge_generated_textures_are_refused_before_allocating() {
    let big = 2_147_483_648u64;
    for (dim, format, layers) in [
        ("2d_array", "rgba8_unorm", 4),
        ("cube_array", "rgba8_unorm", 1),
        ("2d", "rgba32_float", 1),
    ] {
        let json = format!(
            r#"{{"textures": [{{"dim": "{dim}", "format": "{format}", "width": {big}, "height": {big}, "layers": {layers},
                "generate": {{"pattern": "gradient"}}}}], "samplers": [], "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;"}}"#
        );
        assert!(json.len() < 800);
        bad_input(
            &tld4(&["run", "-"], &json),
            "limited to 268435456 bytes of storage",
        );
    }
    // 8192 x 8192 x 8 R8 is 512 MiB of storage: over the documented 256 MiB.
    let json = r#"{"textures": [{"dim": "2d_array", "format": "r8_unorm", "width": 8192, "height": 8192, "layers": 8,
        "generate": {"pattern": "checker"}}], "samplers": [], "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;"}"#;
    bad_input(&tld4(&["run", "-"], json), "needs 536870912 bytes");
}

/// Runs `args` with standard output closed before the command writes anything.
fn with_closed_stdout(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tld4"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tld4");
    drop(child.stdout.take()); // the reader goes away at once
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let word = "00000000089e1f0a20ff041814087f63\n";
    let cases = CASES;
    for (args, stdin) in [
        (vec!["demo"], ""),
        (vec!["bench", "--runs", "1", "--scale", "0.001"], ""),
        (vec!["run", "-"], EXAMPLE),
        (
            vec!["explain", "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;"],
            "",
        ),
        (vec!["disasm"], word),
        (vec!["asm"], "TLD4.G R10, R8, R28, UR4, 2D ;\n"),
        (vec!["gather", "-"], cases),
    ] {
        let out = with_closed_stdout(&args, stdin);
        let e = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {e}");
        assert!(
            !e.contains("panicked") && !e.contains("error"),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn precision_beyond_20_fraction_bits_is_bad_input() {
    for bits in [21, 255] {
        let json = EXAMPLE.replacen(
            "\"textures\"",
            &format!("\"config\": {{\"precision\": {{\"fraction_bits\": {bits}}}}}, \"textures\""),
            1,
        );
        bad_input(
            &tld4(&["run", "-"], &json),
            "config.precision.fraction_bits",
        );
    }
}

#[test]
fn text_after_the_document_is_bad_input() {
    let cases = CASES;
    for tail in ["garbage", "{\"cases\": []}"] {
        let out = tld4(&["run", "-"], &format!("{EXAMPLE}\n{tail}"));
        bad_input(&out, "column");
        let out = tld4(&["gather", "-"], &format!("{cases}\n{tail}"));
        bad_input(&out, "column");
        assert!(text(&out.stderr).contains("line"));
    }
}

#[test]
fn bench_arguments_are_bounded() {
    for (flag, value) in [
        ("--scale", "inf"),
        ("--scale", "1e6"),
        ("--scale", "NaN"),
        ("--scale", "0"),
        ("--runs", "18446744073709551615"),
        ("--runs", "0"),
    ] {
        let out = tld4(&["bench", flag, value], "");
        bad_input(&out, value);
    }
    let out = tld4(&["bench", "--only", "nothing-like-this"], "");
    bad_input(&out, "execute: RGBA8 UNORM 2D, clamp to edge");
}

#[test]
fn bench_only_matches_the_printed_names() {
    let out = tld4(
        &[
            "bench", "--runs", "1", "--scale", "0.001", "--only", "execute",
        ],
        "",
    );
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // three owned workloads, four of them in GPU memory with their ratio to owned, and two
    // in the sparse memory forms
    assert_eq!(
        s.lines().filter(|l| l.starts_with("execute: ")).count(),
        9,
        "{s}"
    );
    for row in [
        "execute: RGBA8 UNORM 2D, clamp to edge, block-linear memory ",
        "execute: RGBA8 UNORM 2D, clamp to edge, block-linear memory + addresses ",
        "execute: RGBA8 UNORM 2D, clamp to edge, pitch memory ",
        "execute: D32 FLOAT cube array, depth compare, block-linear memory ",
    ] {
        let line = s
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("{row}: {s}"));
        assert!(line.contains("x owned bound alike"), "{line}");
    }
    for owned in [
        "RGBA8 UNORM 2D, clamp to edge",
        "D32 FLOAT cube array, depth compare",
    ] {
        sparse_memory_rows(&s, owned);
    }
    assert!(!s.contains("decode"), "{s}");
    assert!(s.contains("median of 1 run,"), "{s}");
    let out = tld4(
        &[
            "bench",
            "--runs",
            "1",
            "--scale",
            "0.001",
            "--only",
            "disassembly (text)",
        ],
        "",
    );
    assert_eq!(
        text(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("disassembly (text)"))
            .count(),
        1
    );
}

/// The sparse-memory row of `owned` in `tld4 bench`'s output: its title, then the seven
/// sides in order (flat, ranges, callback; bound once, one-shot; then the callback one-shot
/// through one memory kept across calls), each a rate; the ranges and
/// callback sides with their ratio to the flat side of their kind and their target, the
/// callback's with its read calls over the warps timed.
fn sparse_memory_rows(s: &str, owned: &str) {
    let title = format!("execute: {owned}, flat, ranges and callback memory (block-linear; ");
    let lines: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.starts_with(&title))
        .take(8)
        .collect();
    assert_eq!(lines.len(), 8, "{owned}: {s}");
    assert!(
        lines[0].contains(" ranges; thread CPU time"),
        "{}",
        lines[0]
    );
    let sides = [
        ("  flat memory, bound once ", None),
        ("  flat memory, one-shot ", None),
        ("  ranges memory, bound once ", Some("target 0.9")),
        ("  ranges memory, one-shot ", Some("target 0.9")),
        ("  callback memory, bound once ", Some("target 0.5")),
        ("  callback memory, one-shot ", Some("target 0.5")),
        ("  callback memory cached, one-shot ", Some("target 0.5")),
    ];
    for (line, (label, target)) in lines[1..].iter().zip(sides) {
        assert!(line.starts_with(label), "{line}");
        // the rate: a number before "M warps/s"
        let rate = line[label.len()..]
            .split_whitespace()
            .next()
            .and_then(|r| r.parse::<f64>().ok());
        assert!(rate.is_some_and(|r| r > 0.0), "{line}");
        assert_eq!(line.contains("x flat, runs "), target.is_some(), "{line}");
        if let Some(t) = target {
            assert!(line.contains(t), "{line}");
        }
        assert_eq!(
            line.contains(" calls in ") && line.ends_with(" warps)"),
            label.contains("callback"),
            "{line}"
        );
    }
}

#[test]
fn dash_reads_standard_input_everywhere() {
    let word = "00000000089e1f0a20ff041814087f63\n";
    let out = tld4(&["disasm", "-"], word);
    assert_eq!(
        text(&out.stdout),
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\n"
    );
    let out = tld4(&["asm", "-"], "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\n");
    assert_eq!(text(&out.stdout), word);
    let bin: Vec<u8> = 0x00000000089e1f0a20ff041814087f63u128
        .to_le_bytes()
        .to_vec();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tld4"))
        .args(["disasm", "--binary", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        text(&out.stdout),
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\n"
    );
    let out = tld4(&["run", "-"], EXAMPLE);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("32 passed, 0 failed"));
    let insn = "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;";
    let out = tld4(
        &["explain", insn, "--scenario", "-", "--lane", "3"],
        EXAMPLE,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("check:") && !s.contains("MISMATCH"), "{s}");
}

#[test]
fn disasm_keeps_one_line_per_word_and_exits_2_on_refused_words() {
    // A word nvdisasm refuses (opcode 0x001): its line says so, stderr too, exit 2.
    let out = tld4(&["disasm"], "00000000089e1f0a20ff041814087f63\n00000000089e1f0a20ff041814080001\n00000000089e1f0a20ff041814087f63\n");
    let s = text(&out.stdout);
    assert_eq!(s.lines().count(), 3, "{s}");
    assert!(
        s.lines()
            .nth(1)
            .unwrap()
            .starts_with("error: 00000000089e1f0a20ff041814080001:"),
        "{s}"
    );
    bad_input(&out, "refuses 1 word");
}

#[test]
fn listings_without_hex_and_malformed_halves_are_named() {
    let out = tld4(
        &["disasm"],
        "/*0000*/ TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\n",
    );
    assert!(text(&out.stdout).contains("-hex"), "{}", text(&out.stdout));
    bad_input(&out, "not words");
    let out = tld4(
        &["disasm"],
        "/* 0x20ff041814087f6 */\n/* 0x00000000089e1f0a */\n",
    );
    let s = text(&out.stdout);
    assert!(
        s.starts_with("error: line 1: `0x20ff041814087f6` has 15 hex digits"),
        "{s}"
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_command_reads_words_alike() {
    // 24 digits: a wrong length everywhere, not zero-extended or taken for text.
    let short = "0x081e9f0a20ff041814087f63";
    let out = tld4(&["disasm"], &format!("{short}\n"));
    assert!(
        text(&out.stdout).contains("wrong length"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(out.status.code(), Some(2));
    bad_input(&tld4(&["explain", short], ""), "wrong length");
    let json = EXAMPLE.replacen(
        "\"TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\"",
        &format!("\"{short}\""),
        1,
    );
    bad_input(&tld4(&["run", "-"], &json), "wrong length");
    // Upper-case 0X and digits are the same word everywhere.
    let up = "0X00000000089E1F0A20FF041814087F63";
    let out = tld4(&["disasm"], &format!("{up}\n"));
    assert_eq!(
        text(&out.stdout),
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\n"
    );
    let json = EXAMPLE.replacen(
        "\"TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;\"",
        &format!("\"{up}\""),
        1,
    );
    assert!(tld4(&["run", "-"], &json).status.success());
}

#[test]
fn a_float_in_a_layer_register_is_warned_about() {
    let json = r#"{"textures": [{"dim": "2d_array", "format": "r8_uint", "width": 2, "height": 2, "layers": 3, "generate": {"pattern": "gradient"}}],
        "samplers": [{"address_u": "repeat", "address_v": "repeat"}],
        "handles": {"t": {"texture": 0, "sampler": 0}},
        "instruction": "TLD4.R R10, R8, R20, UR4, ARRAY_2D ;", "uniform": {"UR4": "t"},
        "lanes": [{"lanes": "all", "R20": 2.0, "R21": 0.5, "R22": 0.5}]}"#;
    let out = tld4(&["run", "-"], json);
    assert!(out.status.success());
    let e = text(&out.stderr);
    assert!(
        e.contains("warning: R20 (the layer register) = 0x40000000 in lanes 0-31"),
        "{e}"
    );
    let out = tld4(&["run", "-"], &json.replace("\"R20\": 2.0", "\"R20\": 2"));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn gather_reads_decimals_exactly_and_prints_back_what_it_read() {
    let cases = r#"{"cases": [{"texture": {"dim": "2d", "format": "r32_float", "width": 1, "height": 1, "texels": [0.30000000000000004]},
        "sampler": {"address_u": "repeat", "address_v": "repeat"}, "queries": [{"coord": [0.5, 0.5]}]}]}"#;
    let out = tld4(&["gather", "-"], cases);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(s.contains("\"texels\": [0.30000000000000004]"), "{s}");
    let bad = cases.replace("0.30000000000000004", "1e39");
    bad_input(&tld4(&["gather", "-"], &bad), "cases[0].texture.texels[0]");
}

/// A control character in a file name (or a kernel name) reaches standard error escaped,
/// never raw: a terminal would act on an escape sequence.
#[test]
fn control_characters_in_names_are_escaped_on_standard_error() {
    let name = "no-such\u{1b}[2J-file\u{7}.cubin";
    for cmd in [&["scan", name][..], &["disasm", name][..]] {
        let out = tld4(cmd, "");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
        assert!(
            !err.contains('\u{1b}') && !err.contains('\u{7}'),
            "{cmd:?}: {err:?}"
        );
        assert!(
            err.contains("no-such\\u{1b}[2J-file\\u{7}.cubin"),
            "{cmd:?}: {err:?}"
        );
    }
}
