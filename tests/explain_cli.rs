//! `tld4 explain` through the binary: the text, line by line, with the numbers derived here
//! from the rules (Vulkan's texel selection, the 8-bit fixed-point model, the address modes,
//! ptxas's AOFFI packing), and the PNG read back, its pixels checked where the documented
//! layout puts the footprint and the sample point.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fixes: overlapping destinations, pictures that cannot be drawn or written, NaN sample
/// points, float layers, closed pipes.
#[path = "explain_cli/robustness.rs"]
mod robustness;

/// Questions without a scenario file: `--texture`, `--coord`, `--address`, ...
#[path = "explain_cli/question.rs"]
mod question;

/// `--scenario` without an instruction, and scenarios naming `arch` or `constants`.
#[path = "explain_cli/scenario_doc.rs"]
mod scenario_doc;

/// The picture's layout constants, from `explain/src/geometry.rs` (one place: the README's
/// and docs/teaching.md's numbers are these).
use tld4_explain::{AXIS_RGB, CAPTION, MARGIN, PANEL_TOP, RING, TITLE};
/// Texel size for textures up to 12 texels across.
const T: u32 = RING;
// A caption's glyphs (from y = TITLE + 2 + 1, 8 px) end inside the caption band.
const _: () = assert!(TITLE + 2 + 1 + 8 <= TITLE + CAPTION);
const FOOTPRINT: [u8; 3] = [255, 0, 255];
const SAMPLE: [u8; 3] = [0, 255, 255];
const BACKGROUND: [u8; 3] = [250, 250, 250];

use crate::common;
use common::tld4;

/// The pixels of a PNG file (the png crate's decoder, through tld4-explain's raster).
fn read_png(path: &Path) -> tld4_explain::raster::RgbImage {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tld4_explain::raster::RgbImage::decode_png(&bytes)
        .unwrap_or_else(|e| panic!("{}: not a PNG: {e}", path.display()))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh directory for this test's files.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tld4-explain-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Asserts that `out` holds `line` as a whole line.
#[track_caller]
fn has_line(out: &str, line: &str) {
    assert!(
        out.lines().any(|l| l == line),
        "missing line:\n{line}\n--- in ---\n{out}"
    );
}

/// The lines of `out` from the one starting with `start`, `n` of them.
fn block<'a>(out: &'a str, start: &str, n: usize) -> Vec<&'a str> {
    let lines: Vec<&str> = out.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting with {start:?} in\n{out}"));
    lines[i..(i + n).min(lines.len())].to_vec()
}

#[test]
fn fields_operands_destinations_and_hints_of_the_ptxas_form() {
    let o = tld4(&["explain", "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;"]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    has_line(
        &out,
        "instruction: TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;",
    );
    // Field lines: name, bits, raw value, effect, meaning (bits per docs/sources.md's table).
    for l in [
        "  form                11:0    0xf63  operands  0xf63: TLD4, texture handle in a uniform register",
        "  rd                 23:16      0x8  writes    R8",
        "  ra                 31:24     0x14  reads     R20",
        "  rb                 39:32     0x18  reads     R24",
        "  ur                 47:40      0x4  reads     UR4",
        "  ignored_48_59      59:48     0xff  none      255",
        "  scr                   60      0x0  hint      clear",
        "  dimension          63:61      0x1  value     2D",
        "  rd2                71:64      0xa  writes    R10",
        "  write_mask         75:72      0xf  writes    0xf: RGBA",
        "  offset_mode        77:76      0x1  value     AOFFI",
        "  depth_compare         78      0x0  value     clear",
        "  component          88:87      0x1  value     G",
        "  bit_91                91      0x1  required  1 (required)",
    ] {
        has_line(&out, l);
    }
    // The word: ptxas's 0xff in bits 48-55, the fields above.
    let word: u128 = 0xf63
        | 7 << 12
        | 8 << 16
        | 20 << 24
        | 24 << 32
        | 4 << 40
        | 0xff << 48
        | 1 << 61
        | 10 << 64
        | 0xf << 72
        | 1 << 76
        | 1 << 84
        | 1 << 87
        | 7 << 81
        | 1 << 91;
    has_line(
        &out,
        &format!(
            "word: {word:032x} (high half first; nvdisasm -hex shows /* {:#018x} */ /* {:#018x} */)",
            word as u64,
            (word >> 64) as u64
        ),
    );
    // Operands (ptxas output: Ra = {u, v}; Rb = {offsets}; handle in UR).
    has_line(
        &out,
        "  Ra = R20 (2 registers): R20: u (f32), R21: v (f32) - normalized coordinates, 0..1 across the texture",
    );
    has_line(
        &out,
        "  Rb = R24 (1 register): R24: AOFFI offsets, x in bits 5:0, y in bits 13:8 (6-bit signed, -32..31)",
    );
    assert_eq!(
        block(&out, "destinations", 6)[1..],
        [
            "  R8 <- x (i0,j1)",
            "  R9 <- y (i1,j1)",
            "  R10 <- z (i1,j0)",
            "  R11 <- w (i0,j0)",
            "  predicate destination PT: the residency flag is discarded",
        ]
    );
    has_line(
        &out,
        "  offsets .AOFFI: one (dx, dy) moves the whole 2x2 footprint by whole texels",
    );
    has_line(
        &out,
        "  .SCR clear (ptxas 13.5 sets it in some kernels and leaves it clear in others; its effect is unknown and modeled as none)",
    );
    has_line(&out, "  .NODEP clear (a scheduling hint)");
    assert_eq!(block(&out, "faults the instruction", 2)[1], "  none");
}

#[test]
fn the_register_handle_form_with_layer_offsets_and_depth_reference() {
    // 0xd64: the handle is the first Rb register (NAK), then AOFFI, then the reference.
    let o = tld4(&[
        "explain",
        "TLD4.R.B.AOFFI.DC",
        "R10,",
        "R8,",
        "R20,",
        "R24,",
        "ARRAY_2D",
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    has_line(
        &out,
        "  Ra = R20 (3 registers): R20: layer (unsigned 16-bit integer, bits 15:0; clamped to the last layer), \
         R21: u (f32), R22: v (f32) - normalized coordinates, 0..1 across the texture",
    );
    has_line(
        &out,
        "  Rb = R24 (3 registers): R24: texture handle (per lane; header index bits 19:0, sampler index bits 31:20); \
         R25: AOFFI offsets, x in bits 5:0, y in bits 13:8 (6-bit signed, -32..31); R26: depth reference (f32)",
    );
    has_line(
        &out,
        "  handle: R24 (the first Rb register, one per lane; the UR field, UR0, is not used by form 0xd64)",
    );
    has_line(
        &out,
        "  component R: printed, but with .DC the texel's depth (first component) is compared instead",
    );
}

#[test]
fn f16_packing_and_a_partial_mask() {
    let o = tld4(&[
        "explain",
        "TLD4.B.F16.RZ P1, R10, R8, R20, RZ, UR4, CUBE, 0x7 ;",
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    has_line(
        &out,
        "  Ra = R20 (3 registers): R20: x (f32), R21: y (f32), R22: z (f32) - a direction; the unit projects it onto a face itself, so it need not be normalized",
    );
    has_line(
        &out,
        "  Rb = RZ: not read (this form has no handle, offsets or depth reference in Rb)",
    );
    // Three results, two halves a register: x | y into Rd, z | 0 into Rd2.
    assert_eq!(
        block(&out, "destinations", 4)[1..],
        [
            "  R8 <- x (i0,j1) in bits 15:0, y (i1,j1) in bits 31:16",
            "  R10 <- z (i1,j0) in bits 15:0, 0 in bits 31:16",
            "  P1 <- true when the footprint touched a non-resident tile (then every result is 0), else false",
        ]
    );
}

#[test]
fn invalid_values_and_rz_operands_explain_the_fault() {
    let o = tld4(&["explain", "TLD4.R R10, R8, R20, R24, UR4, INVALID4 ;"]);
    assert!(o.status.success());
    let out = stdout(&o);
    has_line(
        &out,
        "  dimension INVALID4: no such dimension (the instruction faults)",
    );
    has_line(
        &out,
        "  illegal instruction encoding: the dimension field holds INVALID4, which has no meaning",
    );
    let o = tld4(&["explain", "TLD4.R R10, R8, ???255, R24, UR4, 2D ;"]);
    has_line(
        &stdout(&o),
        "  illegal instruction encoding: Ra is register 255 (nvdisasm prints ???255): the coordinate vector cannot start at RZ",
    );
    let o = tld4(&["explain", "TLD4.R.B.DC R10, R8, R20, ???255, 2D ;"]);
    has_line(
        &stdout(&o),
        "  illegal instruction encoding: Rb is register 255 (RZ) but this form reads 2 Rb register(s) (handle, offsets, depth reference)",
    );
}

#[test]
fn undecodable_words_and_bad_text_are_errors() {
    // Bit 91 clear: nvdisasm's "Illegal instruction".
    let o = tld4(&["explain", "00000000000000000000000000000d64"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bit 91 is clear"), "{err}");
    assert!(o.stdout.is_empty());
    // Another opcode.
    let o = tld4(&["explain", "0x08000000000000000000000000000123"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not TLD4"));
    // Text: the column of the problem.
    let o = tld4(&["explain", "TLD4.Q R10, R8, R20, R24, UR4, 2D"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("column 6"));
    // --lane outside the warp.
    let d = temp_dir("lane");
    let s = write(&d, "s.json", &wrap_scenario());
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, R24, UR4, 2D",
        "--scenario",
        s.to_str().unwrap(),
        "--lane",
        "32",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("lanes 0..31"));
    // A malformed scenario names the JSON path.
    let bad = write(
        &d,
        "bad.json",
        &wrap_scenario().replace("\"R21\"", "\"R21x\""),
    );
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, R24, UR4, 2D",
        "--scenario",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("lanes[0].R21x"),
        "{o:?}"
    );
}

/// A 4x4 R8_UINT texture whose texel (x, y) holds 10 * y + x; u clamps to a border of 99,
/// v repeats. Lane 0: (u, v) = (0.8, 0.0625), AOFFI (+1, 0). Lane 1 is inactive; lane 2 has
/// P0 false; lane 3 sits where the fixed-point rounding decides j0; lane 4 names a texture
/// that does not exist (its own handle register, for the 0xd64 form).
fn wrap_scenario() -> String {
    let texels: Vec<String> = (0..16)
        .map(|i| (10 * (i / 4) + i % 4).to_string())
        .collect();
    format!(
        r#"{{
  "textures": [{{"dim": "2d", "format": "r8_uint", "width": 4, "height": 4, "texels": [{}]}}],
  "samplers": [{{"address_u": "clamp_to_border", "address_v": "repeat", "border": {{"int": [99, 0, 0, 1]}}}}],
  "handles": {{"ids": {{"texture": 0, "sampler": 0}}, "missing": {{"texture": 5, "sampler": 0}}}},
  "instruction": "TLD4.G R10, R8, R20, RZ, UR4, 2D ;",
  "uniform": {{"UR4": "ids"}},
  "active_mask": "0xfffffffd",
  "lanes": [
    {{"lanes": "all", "R20": 0.8, "R21": 0.0625, "R24": "0x00000001", "P0": true, "R30": "ids", "R31": 0.8, "R32": 0.0625, "R33": 1}},
    {{"lanes": "2", "P0": false}},
    {{"lanes": "3", "R20": 0.5, "R21": 0.37475}},
    {{"lanes": "4", "R30": "missing"}}
  ]
}}"#,
        texels.join(", ")
    )
}

/// The fixed-point model (8 fractional bits, round to nearest even): n = round(c * size *
/// 2^8), origin = floor(n / 2^8 - 0.5).
fn fixed(coord: f32, size: u32) -> (f64, i64, f64, i64) {
    let texels = coord as f64 * size as f64;
    let n = (texels * 256.0).round_ties_even() as i64;
    let q = n as f64 / 256.0;
    (texels, n, q, (q - 0.5).floor() as i64)
}

#[test]
fn a_lane_path_with_offset_wrap_and_border() {
    let d = temp_dir("path");
    let s = write(&d, "s.json", &wrap_scenario());
    let s = s.to_str().unwrap();
    // The command line's instruction replaces the scenario's TLD4.G.
    let o = tld4(&[
        "explain",
        "TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D",
        "--scenario",
        s,
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    has_line(
        &out,
        "instruction: TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D ;",
    );
    has_line(&out, &format!("lane 0 of {s}:"));
    has_line(
        &out,
        "  executes: active (bit 0 of the active mask 0xfffffffd), guard PT",
    );
    has_line(
        &out,
        "  handle: UR4 = 0x00000000: texture header 0 (bits 19:0), sampler 0 (bits 31:20)",
    );
    has_line(
        &out,
        "  texture 0: 2d r8_uint 4x4, swizzle identity (R, G, B, A)",
    );
    has_line(
        &out,
        "  sampler 0: address u clamp_to_border, v repeat, border words (0x63, 0x0, 0x0, 0x1), compare off",
    );
    has_line(
        &out,
        &format!("    R20   = {:#010x}  u = 0.8", 0.8f32.to_bits()),
    );
    has_line(&out, "    R21   = 0x3d800000  v = 0.0625");
    has_line(
        &out,
        "    R24   = 0x00000001  AOFFI: dx = 1 (bits 5:0 = 0x01), dy = 0 (bits 13:8 = 0x00)",
    );
    // u*W and v*H through the fixed point.
    let (ut, un, uq, i0) = fixed(0.8, 4);
    let (vt, vn, vq, j0) = fixed(0.0625, 4);
    assert_eq!((i0, j0), (2, -1));
    has_line(
        &out,
        &format!(
            "  u*W = {} * 4 = {ut}; fixed point (8 fractional bits, round to nearest even): {un} / 2^8 = {uq}; i0 = floor({uq} - 0.5) = {i0}",
            0.8f32 as f64
        ),
    );
    has_line(
        &out,
        &format!(
            "  v*H = 0.0625 * 4 = {vt}; fixed point (8 fractional bits, round to nearest even): {vn} / 2^8 = {vq}; j0 = floor({vq} - 0.5) = {j0}"
        ),
    );
    // AOFFI moves the footprint to i = 3..4; j = -1..0.
    has_line(
        &out,
        "  AOFFI offset (dx, dy) = (1, 0): the footprint starts at (3, -1)",
    );
    // x = (i0, j1) = (3, 0): texel 3; y = (4, 0) and z = (4, -1): column 4 is outside, border
    // 99; w = (3, -1): v repeats to row 3, texel 33.
    assert_eq!(
        block(&out, "  footprint in gather order", 5)[1..],
        [
            "    x (i0,j1) = (3, 0): texel (3, 0), raw (3) = (3) -> R = 3",
            "    y (i1,j1) = (4, 0): i = 4 is outside 0..3 and u is clamp_to_border: the border colour -> R = 99 (the border word, not swizzled)",
            "    z (i1,j0) = (4, -1): i = 4 is outside 0..3 and u is clamp_to_border: the border colour -> R = 99 (the border word, not swizzled)",
            "    w (i0,j0) = (3, -1): redirected by v repeat to texel (3, 3), raw (33) = (33) -> R = 33",
        ]
    );
    has_line(
        &out,
        "  results (x, y, z, w) = (3, 99, 99, 33) = (0x00000003, 0x00000063, 0x00000063, 0x00000021)",
    );
    assert_eq!(
        block(&out, "  writes:", 6)[1..],
        [
            "    R8    = 0x00000003  x = 3",
            "    R9    = 0x00000063  y = 99",
            "    R10   = 0x00000063  z = 99",
            "    R11   = 0x00000021  w = 33",
            "  check: the emulator (tld4 run) writes the same values in lane 0",
        ]
    );
}

#[test]
fn lanes_that_do_not_execute_and_rounding_that_decides() {
    let d = temp_dir("lanes");
    let s = write(&d, "s.json", &wrap_scenario());
    let s = s.to_str().unwrap();
    let run = |insn: &str, lane: &str| {
        let o = tld4(&["explain", insn, "--scenario", s, "--lane", lane]);
        assert!(o.status.success(), "{o:?}");
        stdout(&o)
    };
    let out = run("TLD4.R R10, R8, R20, RZ, UR4, 2D", "1");
    has_line(
        &out,
        "  does not execute: the lane is inactive (bit 1 of the active mask 0xfffffffd is clear); it reads and writes nothing",
    );
    let out = run("@P0 TLD4.R R10, R8, R20, RZ, UR4, 2D", "2");
    has_line(
        &out,
        "  does not execute: guard @P0: P0 = false in this lane, so the guard is false; it reads and writes nothing",
    );
    // Lane 3: v = 0.37475, v*H = 1.499: the fixed point rounds to 384 / 256 = 1.5, so
    // j0 = floor(1.5 - 0.5) = 1, while exact arithmetic gives floor(0.999) = 0.
    let out = run("@P0 TLD4.R R10, R8, R20, RZ, UR4, 2D", "3");
    let (vt, vn, vq, j0) = fixed(0.37475, 4);
    assert_eq!((vn, j0, (vt - 0.5).floor() as i64), (384, 1, 0));
    has_line(
        &out,
        &format!(
            "  v*H = {} * 4 = {vt}; fixed point (8 fractional bits, round to nearest even): 384 / 2^8 = {vq}; j0 = floor({vq} - 0.5) = 1",
            0.37475f32 as f64
        ),
    );
    has_line(
        &out,
        "    the rounding decided the texel: exact floor(v*H - 0.5) = 0, the fixed-point value gives j0 = 1",
    );
    // Lane 4 of the register-handle form names texture 5, which the scenario lacks.
    let out = run("TLD4.R.B R10, R8, R31, R30, 2D", "4");
    has_line(
        &out,
        "  handle: R30 = 0x00000005: texture header 5 (bits 19:0), sampler 0 (bits 31:20)",
    );
    let fault = out
        .lines()
        .find(|l| l.starts_with("  fault: lane 4:"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(fault.contains("5"), "{fault}");
    has_line(
        &out,
        "  the warp raises this exception: nothing is written in any lane",
    );
    // Lane 0 of the same form gathers, but lane 4 faults: nothing is written.
    let out = run("TLD4.R.B R10, R8, R31, R30, 2D", "0");
    assert!(
        out.lines()
            .any(|l| l.starts_with("  note: the warp faults in another lane (lane 4:")),
        "{out}"
    );
    has_line(&out, "  would write:");
    // An illegal encoding: no lane runs.
    let out = run("TLD4.R R10, R8, R20, RZ, UR4, INVALID2", "0");
    assert!(
        out.contains("  the instruction faults before any lane runs: illegal instruction encoding: the dimension field holds INVALID2"),
        "{out}"
    );
}

/// binary16 toward zero, for normal results: drop the low 13 mantissa bits.
fn f16_rz_normal(x: f32) -> u16 {
    let b = x.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "normal results only");
    ((b >> 16) & 0x8000) as u16 | (e as u16) << 10 | ((b >> 13) & 0x3ff) as u16
}

#[test]
fn f16_rounding_and_cube_faces() {
    let d = temp_dir("f16");
    // A G value where binary16 to nearest and toward zero differ.
    let c = (100..200u32)
        .find(|&c| {
            let g = c as f32 / 255.0;
            half::f16::from_f32(g).to_bits() != f16_rz_normal(g)
        })
        .expect("some byte rounds up to nearest");
    // A 1x1 cube map in RGBA8_UNORM, face f holding (20 + 40 f, c, 0, 255).
    let mut texels = Vec::new();
    for f in 0..6 {
        texels.extend([20 + 40 * f, c, 0, 255]);
    }
    let texels: Vec<String> = texels.iter().map(|v| v.to_string()).collect();
    let s = write(
        &d,
        "cube.json",
        &format!(
            r#"{{"textures": [{{"dim": "cube", "format": "rgba8_unorm", "width": 1, "height": 1, "texels": [{}]}}],
               "samplers": [{{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"}}], "handles": {{"c": {{"texture": 0, "sampler": 0}}}},
               "instruction": "TLD4.G R10, R8, R20, RZ, UR4, CUBE ;", "uniform": {{"UR4": "c"}},
               "lanes": [{{"lanes": "all", "R20": 1.0, "R21": 0.5, "R22": -0.25}}]}}"#,
            texels.join(", ")
        ),
    );
    let o = tld4(&[
        "explain",
        "TLD4.G.F16.RN R10, R8, R20, RZ, UR4, CUBE",
        "--scenario",
        s.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    // Major axis x = 1 (Vulkan's table): face +X, sc = -z = 0.25, tc = -y = -0.5;
    // s = (0.25 + 1) / 2 = 0.625, t = (-0.5 + 1) / 2 = 0.25.
    has_line(
        &out,
        "  direction (x, y, z) = (1.0, 0.5, -0.25): major axis x (|x| = 1 is the largest; ties go z, then y, then x)",
    );
    has_line(
        &out,
        "  face +X (0): sc = -z = 0.25, tc = -y = -0.5, |ma| = 1",
    );
    has_line(
        &out,
        "  face coordinates: s = (sc / |ma| + 1) / 2 = 0.625, t = (tc / |ma| + 1) / 2 = 0.25",
    );
    // G = c / 255 in every texel; binary16 to nearest and toward zero.
    let g = c as f32 / 255.0;
    let rn = half::f16::from_f32(g).to_bits();
    let rz = f16_rz_normal(g);
    has_line(
        &out,
        "  F16 rounding (f32 -> binary16 bits; F16.RN is used):",
    );
    let line = format!(
        "    x: {g:?} -> RN {rn:#06x} ({:?}), RZ {rz:#06x} ({:?}): the rounding mode matters",
        half::f16::from_bits(rn).to_f32(),
        half::f16::from_bits(rz).to_f32()
    );
    has_line(&out, &line);
    // Two halves a register, x low: Rd = R8 holds x | y, Rd2 = R10 holds z | w.
    for r in ["R8 ", "R10"] {
        has_line(
            &out,
            &format!(
                "    {r}   = {:#010x}  {} = halves {:?}, {:?}",
                (rn as u32) << 16 | rn as u32,
                if r == "R8 " { "x | y" } else { "z | w" },
                half::f16::from_bits(rn).to_f32(),
                half::f16::from_bits(rn).to_f32()
            ),
        );
    }
}

#[test]
fn the_png_shows_the_footprint_and_the_sample_point_where_the_geometry_puts_them() {
    let d = temp_dir("png");
    let s = write(&d, "s.json", &wrap_scenario());
    let png = d.join("fp.png");
    let svg = d.join("fp.svg");
    let o = tld4(&[
        "explain",
        "TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D",
        "--scenario",
        s.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    has_line(&stdout(&o), &format!("picture: {}", png.display()));
    let img = read_png(&png);
    let px = |x: u32, y: u32| img.get_pixel(x, y).0;
    // The texture's top-left corner.
    let (ox, oy) = (MARGIN, PANEL_TOP);
    // The corner of texel (i, j), which may lie in the ring of border texels (i or j = -1 or 4).
    let at = |i: i32, j: i32| {
        (
            (ox as i32 + i * T as i32) as u32,
            (oy as i32 + j * T as i32) as u32,
        )
    };
    // x = texel (3, 0), read where the footprint put it: a solid outline; its label sits in the
    // bottom-left corner, so the top edge's middle and the right edge's middle are outline.
    let (x3, y0) = at(3, 0);
    assert_eq!(px(x3 + T / 2, y0 + 1), FOOTPRINT);
    assert_eq!(px(x3 + T - 2, y0 + T / 2), FOOTPRINT);
    // Its inside shows the texel: grey ramp of R, 3 in 0..33: round(3 / 33 * 255) = 23.
    let g = (3.0f64 / 33.0 * 255.0).round() as u8;
    assert_eq!(px(x3 + 30, y0 + 10), [g, g, g]);
    // w = (3, -1) wrapped to texel (3, 3): dashed, 6 px on and 4 off from the corner.
    let (x3, y3) = at(3, 3);
    assert_eq!(px(x3 + 2, y3 + 1), FOOTPRINT);
    assert_eq!(
        px(x3 + 7, y3 + 1),
        [255, 255, 255],
        "texel 33 is white, between dashes"
    );
    // y = (4, 0) reads the border: drawn in the ring right of the texture, outlined, filled
    // with the border colour on the grey ramp (99 is past the ramp's 0..33: white) and hatched
    // in black over it.
    let (x4, y0) = at(4, 0);
    assert_eq!(px(x4 + T / 2, y0 + 1), FOOTPRINT);
    assert_eq!(px(x4 + 8, y0 + 8), [0, 0, 0], "a hatch line");
    assert_eq!(px(x4 + 8, y0 + 11), [255, 255, 255], "the border colour");
    // z = (4, -1): border too, above the ring's corner.
    let (x4, ym1) = at(4, -1);
    assert_eq!(px(x4 + 1, ym1 + T / 2), FOOTPRINT);
    // Between the caption (its glyphs end at y = TITLE + 2 + 1 + 8, in its band of CAPTION px)
    // and that ring texel only the u axis is drawn (its u = 1 tick and the axis' name, in the
    // axis colour): the border texel touches neither; the two rows above the ring are clear.
    for y in TITLE + 2 + 1 + 8..ym1 {
        for x in x4..x4 + T {
            let clear = y >= ym1 - 2;
            assert!(
                px(x, y) == BACKGROUND || (!clear && px(x, y) == AXIS_RGB),
                "({x}, {y}) between the caption and the ring: {:?}",
                px(x, y)
            );
        }
    }
    // The u = 1 tick at the texture's right edge, just above that ring texel (the ring, T px,
    // and 2).
    assert_eq!(px(x4, ym1 - 3), AXIS_RGB);
    // The sample point the unit uses: (u*W, v*H) = (3.2, 0.25) texels after the 8-bit
    // rounding, 819/256 and 64/256.
    let sx = ox as f64 + fixed(0.8, 4).2 * T as f64;
    let sy = oy as f64 + fixed(0.0625, 4).2 * T as f64;
    assert_eq!(px(sx.floor() as u32, sy.floor() as u32), SAMPLE);
    assert_eq!(px(sx.floor() as u32 + 3, sy.floor() as u32), SAMPLE);
    // A texel away from the footprint: texel (0, 2) = 20, grey round(20 / 33 * 255).
    let (x0, y2) = at(0, 2);
    let g = (20.0f64 / 33.0 * 255.0).round() as u8;
    assert_eq!(px(x0 + T / 2, y2 + T / 2), [g, g, g]);
    // The SVG: the same marks, one dashed (the wrapped w), the sample point.
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert_eq!(
        text.matches("stroke-dasharray=\"6 4\"").count(),
        2,
        "w and the key"
    );
    assert!(text.contains("fill=\"url(#hatch-black)\""));
    assert!(
        text.contains(&format!("<circle cx=\"{sx}\" cy=\"{sy}\"")),
        "{text}"
    );
}

#[test]
fn a_cube_picture_places_the_sampled_face_in_the_middle_of_its_unfolding() {
    let d = temp_dir("cube");
    let s = write(
        &d,
        "cube.json",
        r#"{"textures": [{"dim": "cube", "format": "r8_unorm", "width": 4, "height": 4, "generate": {"pattern": "checker", "cell": 1}}],
            "samplers": [{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"}], "handles": {"c": {"texture": 0, "sampler": 0}},
            "instruction": "TLD4.R R10, R8, R20, RZ, UR4, CUBE ;", "uniform": {"UR4": "c"},
            "lanes": [{"lanes": "all", "R20": 1.0, "R21": 0.0, "R22": 0.0}]}"#,
    );
    let png = d.join("cube.png");
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, RZ, UR4, CUBE",
        "--scenario",
        s.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let img = read_png(&png);
    // The sampled face, +X, sits in the middle of the 3x3 unfolding (its four neighbours
    // around it); direction (1, 0, 0) hits its centre (s, t) = (0.5, 0.5): texels 2, 2, so
    // the footprint is texels 1..2 in both axes.
    let face = (MARGIN + 4 * T, PANEL_TOP + 4 * T);
    let c = (face.0 + 2 * T, face.1 + 2 * T);
    assert_eq!(img.get_pixel(c.0, c.1).0, SAMPLE);
    // w = (i0, j0) = (1, 1): solid outline, label top-left; check its bottom edge.
    assert_eq!(
        img.get_pixel(face.0 + T + T / 2, face.1 + 2 * T - 2).0,
        FOOTPRINT
    );
    // y = (2, 2): label bottom-right; its top edge.
    assert_eq!(
        img.get_pixel(face.0 + 2 * T + T / 2, face.1 + 2 * T + 1).0,
        FOOTPRINT
    );
}

#[test]
fn the_readme_example_picture_is_what_the_command_draws() {
    // docs/explain-example.png is committed; the command must still draw it pixel for pixel.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = temp_dir("readme");
    let png = d.join("example.png");
    let svg = d.join("example.svg");
    let o = Command::new(env!("CARGO_BIN_EXE_tld4"))
        .current_dir(root)
        .args([
            "explain",
            "TLD4.R.F16.RN.AOFFI R10, R8, R20, R24, UR4, 2D",
            "--scenario",
            "docs/explain-example.json",
            "--png",
            png.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    // The README quotes these lines.
    has_line(
        &out,
        "    w (i0,j0) = (3, -1): redirected by v repeat to texel (3, 3), raw (255, 255, 0, 255) = (1.0, 1.0, 0.0, 1.0) -> R = 1.0",
    );
    has_line(&out, "    R8    = 0x34003c00  x | y = halves 1.0, 0.25");
    let drawn = read_png(&png);
    let committed = read_png(&root.join("docs/explain-example.png"));
    assert_eq!(drawn.dimensions(), committed.dimensions());
    assert!(
        drawn.pixels().eq(committed.pixels()),
        "docs/explain-example.png is stale: regenerate it with the command in docs/teaching.md"
    );
    // The SVG beside it, likewise (the same command with `--svg docs/explain-example.svg`).
    let committed_svg = std::fs::read_to_string(root.join("docs/explain-example.svg")).unwrap();
    assert!(
        std::fs::read_to_string(&svg).unwrap() == committed_svg,
        "docs/explain-example.svg is stale: regenerate it with the command in docs/teaching.md and --svg"
    );
}

#[test]
fn a_float_layer_is_converted_as_the_compiler_converts_it_and_said() {
    // GLSL's layer is a float; NAK gives floor(layer + 0.5) clamped to 0..65535 (docs/sources.md,
    // Decisions): 1.6 -> 2, -0.5 -> 0 (floor(0) = 0), 2.5 -> 3, then the unit clamps 3 to the
    // last of 3 layers, 2.
    for (layer, register, read) in [("1.6", 2, 2), ("-0.5", 0, 0), ("2.5", 3, 2)] {
        let o = tld4(&[
            "explain",
            "TLD4.B R10, R8, R20, R24, UR4, ARRAY_2D",
            "--texture",
            "4x4x3",
            "--coord",
            "0.5,0.5",
            "--layer",
            layer,
        ]);
        assert!(o.status.success(), "{layer}: {o:?}");
        let out = stdout(&o);
        assert!(
            out.contains(&format!("the layer register holds the integer {register}")),
            "{layer}\n{out}"
        );
        has_line(
            &out,
            &format!("    R20   = 0x{register:08x}  layer: bits 15:0 = {register}"),
        );
        // The index pattern's B is the storage layer read.
        assert!(
            out.contains(&format!(
                "results (x, y, z, w) = ({read}.0, {read}.0, {read}.0, {read}.0)"
            )),
            "{layer}\n{out}"
        );
    }
}

#[test]
fn unnormalized_coordinates_are_said_with_their_rule_and_its_standing() {
    // A 5 x 3 texture, coordinates in texels: u = 2.5 gives i0 = floor(2.5 - 0.5) = 2,
    // v = 1.25 gives j0 = 0 (no division by the size:
    // docs/sources.md, Unnormalized coordinates). The index pattern's R is x, G is y.
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, UR4, 2D",
        "--texture",
        "5x3",
        "--coord",
        "2.5,1.25",
        "--unnormalized",
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    has_line(
        &out,
        "  coordinate: (u, v) = (2.5, 1.25) in texels: unnormalized coordinates (the sampler's, or the texture header's NORMALIZED_COORDS clear), not scaled by the size",
    );
    assert!(
        out.contains("[unmeasured: unnormalized coordinates: u = s in texels (no scaling by the size), then the sub-texel model and floor(u - 0.5); docs/sources.md, Open questions]"),
        "{out}"
    );
    assert!(
        out.contains("  u = 2.5 texels (W = 5, not applied); fixed point (8 fractional bits, round to nearest even): 640 / 2^8 = 2.5; i0 = floor(2.5 - 0.5) = 2"),
        "{out}"
    );
    assert!(
        out.contains("  v = 1.25 texels (H = 3, not applied);"),
        "{out}"
    );
    // x, y, z, w = R of (i0, j1), (i1, j1), (i1, j0), (i0, j0) = x of (2, 1), (3, 1), (3, 0), (2, 0)
    assert!(
        out.contains("results (x, y, z, w) = (2.0, 3.0, 3.0, 2.0)"),
        "{out}"
    );
    // the picture's legend: the sample point in texels, not u*W
    let dir = temp_dir("unnormalized");
    let svg = dir.join("unnormalized.svg");
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, UR4, 2D",
        "--texture",
        "5x3",
        "--coord",
        "2.5,1.25",
        "--unnormalized",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.contains("sample point: u = 2.5, v = 1.25 (texels, unnormalized)"),
        "{picture}"
    );
    // normalized, the same numbers read the clamped edge
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, UR4, 2D",
        "--texture",
        "5x3",
        "--coord",
        "2.5,1.25",
    ]);
    let out = stdout(&o);
    assert!(!out.contains("unnormalized"), "{out}");
    assert!(
        out.contains("results (x, y, z, w) = (4.0, 4.0, 4.0, 4.0)"),
        "{out}"
    );
}

/// `--svg` and `--png` write into what the path is (docs/sources.md, Decisions), all in a
/// directory the test makes: a symbolic link is followed and stays a link; a FIFO with a
/// reader receives the picture and stays a FIFO; a FIFO without one is refused at once; a
/// character device (made here as root; skipped otherwise) is written, not replaced; a new
/// picture gets the umask's mode, not 0600.
#[cfg(unix)]
#[test]
fn pictures_are_written_into_what_the_path_is() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let d = temp_dir("picture-paths");
    let s = write(&d, "s.json", &wrap_scenario());
    let explain = |flag: &str, path: &Path| {
        tld4(&[
            "explain",
            "TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D",
            "--scenario",
            s.to_str().unwrap(),
            flag,
            path.to_str().unwrap(),
        ])
    };
    // A new file: 0666 less the umask (the test process's, inherited by the command).
    // SAFETY: umask only reads and sets this process's mask; it is set back at once.
    let umask = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    } as u32;
    let new = d.join("new.svg");
    let o = explain("--svg", &new);
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(&new).unwrap();
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{svg:.40}"
    );
    let mode = std::fs::metadata(&new).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !umask);
    // A symbolic link to a file: the file receives the picture, the link stays a link.
    let real = d.join("real.svg");
    std::fs::write(&real, "old").unwrap();
    let link = d.join("link.svg");
    std::os::unix::fs::symlink("real.svg", &link).unwrap();
    let o = explain("--svg", &link);
    assert!(o.status.success(), "{o:?}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), svg);
    // A FIFO with a reader: the reader gets the picture; the FIFO stays a FIFO.
    let fifo = d.join("pipe.png");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    // The reader's open may come after the command's: retry the refusal a bounded time.
    let mut got = None;
    for _ in 0..100 {
        let o = explain("--png", &fifo);
        if o.status.success() {
            got = Some(o);
            break;
        }
        assert!(
            common::text(&o.stderr).contains("no process reads"),
            "{o:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(got.is_some(), "the FIFO was never written");
    let png = reader.join().unwrap();
    assert!(
        png.starts_with(b"\x89PNG"),
        "{:?}",
        &png[..8.min(png.len())]
    );
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // A FIFO without a reader: refused at once, never waited on.
    let o = explain("--png", &fifo);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(
        common::text(&o.stderr).contains("no process reads"),
        "{o:?}"
    );
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // A directory: refused.
    let o = explain("--svg", &d);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        common::text(&o.stderr).contains("it is a directory"),
        "{o:?}"
    );
    // A character device like /dev/null, made in the test's directory (root only).
    let null = d.join("null.svg");
    let c = std::ffi::CString::new(null.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path in the test's own directory; makedev(1, 3) is null's number.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made == 0 {
        let o = explain("--svg", &null);
        assert!(o.status.success(), "{o:?}");
        assert!(std::fs::metadata(&null)
            .unwrap()
            .file_type()
            .is_char_device());
    } else {
        println!("skipped the character-device case: mknod needs root");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
