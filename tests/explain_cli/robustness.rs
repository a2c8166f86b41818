//! `tld4 explain` where its input is odd: overlapping destinations, lanes that do not
//! execute, picture paths that fail or collide, NaN sample points, float layer registers, a
//! closed pipe.

use super::*;

/// Texel (x, y) of `wrap_scenario`'s texture for footprint position (i, j): u clamps to the
/// border (99), v repeats.
fn wrap_texel(i: i64, j: i64) -> u32 {
    if !(0..4).contains(&i) {
        return 99;
    }
    (10 * j.rem_euclid(4) + i) as u32
}

/// Lane 0 of `wrap_scenario` without offsets: the footprint x, y, z, w = (i0, j1), (i1, j1),
/// (i1, j0), (i0, j0) (Vulkan "Texel Gathering"), from the fixed-point model.
fn wrap_lane0() -> [u32; 4] {
    let (_, _, _, i0) = fixed(0.8, 4);
    let (_, _, _, j0) = fixed(0.0625, 4);
    [
        wrap_texel(i0, j0 + 1),
        wrap_texel(i0 + 1, j0 + 1),
        wrap_texel(i0 + 1, j0),
        wrap_texel(i0, j0),
    ]
}

#[test]
fn overlapping_destinations_are_checked_as_the_write_order_leaves_them() {
    let d = temp_dir("overlap");
    let s = write(&d, "s.json", &wrap_scenario());
    let [x, _, z, w] = wrap_lane0();
    // Text order: Rd2, Rd. Writes land Rd, Rd+1, Rd2, Rd2+1; a later write wins.
    for (insn, last) in [
        (
            "TLD4.R R11, R10, R20, RZ, UR4, 2D",
            vec![(10, x), (11, z), (12, w)],
        ),
        ("TLD4.R R10, R10, R20, RZ, UR4, 2D", vec![(10, z), (11, w)]),
        (
            "TLD4.R R10, R9, R20, RZ, UR4, 2D",
            vec![(9, x), (10, z), (11, w)],
        ),
    ] {
        let o = tld4(&["explain", insn, "--scenario", s.to_str().unwrap()]);
        let out = stdout(&o);
        assert!(o.status.success(), "{insn}: {o:?}");
        assert!(!out.contains("MISMATCH"), "{insn}:\n{out}");
        let end: Vec<String> = last
            .iter()
            .map(|(r, v)| format!("R{r} = {v:#010x}"))
            .collect();
        has_line(
            &out,
            &format!(
                "  the destinations overlap: writes land in the order Rd, Rd+1, Rd2, Rd2+1 and a later write wins, so the registers end as {}",
                end.join(", ")
            ),
        );
        has_line(
            &out,
            "  check: the emulator (tld4 run) writes the same values in lane 0",
        );
    }
    // Disjoint destinations: no overlap line.
    let o = tld4(&[
        "explain",
        "TLD4.R R12, R10, R20, RZ, UR4, 2D",
        "--scenario",
        s.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert!(!stdout(&o).contains("destinations overlap"));
}

#[test]
fn a_picture_of_a_lane_that_does_not_execute_says_why() {
    let d = temp_dir("nopic");
    let s = write(&d, "s.json", &wrap_scenario());
    let s = s.to_str().unwrap();
    let png = d.join("x.png");
    let png = png.to_str().unwrap();
    let limited = write(
        &d,
        "limited.json",
        &wrap_scenario().replacen('{', "{\"config\": {\"regs_per_thread\": 16},", 1),
    );
    for (insn, scenario, lane, why) in [
        (
            "TLD4.R R10, R8, R20, RZ, UR4, 2D",
            s,
            "1",
            "no picture: lane 1 does not execute: it is inactive (bit 1 of the active mask 0xfffffffd is clear)",
        ),
        (
            "@P0 TLD4.R R10, R8, R20, RZ, UR4, 2D",
            s,
            "2",
            "no picture: lane 2 does not execute: guard @P0: P0 = false in this lane, so the guard is false",
        ),
        (
            "TLD4.R R10, R8, R20, RZ, UR4, INVALID2",
            s,
            "0",
            "no picture: lane 0 does not execute: the instruction faults before any lane runs (illegal instruction encoding",
        ),
        (
            "TLD4.R R10, R8, R20, RZ, UR4, 2D",
            limited.to_str().unwrap(),
            "0",
            "no picture: lane 0 does not execute: the instruction faults before any lane runs (",
        ),
    ] {
        let o = tld4(&[
            "explain",
            insn,
            "--scenario",
            scenario,
            "--lane",
            lane,
            "--png",
            png,
        ]);
        assert_eq!(o.status.code(), Some(2), "{insn}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(why), "{insn}: {err}");
        assert!(!err.contains("names no texture"), "{insn}: {err}");
        // The text comes first, whole.
        assert!(
            stdout(&o).contains(&format!("lane {lane} of {scenario}:")),
            "{o:?}"
        );
        assert!(!Path::new(png).exists());
    }
    // The register limit is the reason in the last case.
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, RZ, UR4, 2D",
        "--scenario",
        limited.to_str().unwrap(),
        "--png",
        png,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.to_lowercase().contains("register"), "{err}");
}

#[test]
fn a_failed_picture_write_keeps_the_text_and_leaves_no_file() {
    let d = temp_dir("badwrite");
    let s = write(&d, "s.json", &wrap_scenario());
    let missing = d.join("no-such-dir").join("x.png");
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, RZ, UR4, 2D",
        "--scenario",
        s.to_str().unwrap(),
        "--png",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let out = stdout(&o);
    has_line(
        &out,
        "  check: the emulator (tld4 run) writes the same values in lane 0",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(missing.to_str().unwrap()), "{err}");
    assert!(!missing.exists());
    // A write over an existing file replaces it whole and leaves no temporary file behind.
    let png = d.join("x.png");
    std::fs::write(&png, b"old").unwrap();
    let svg = d.join("x.svg");
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, RZ, UR4, 2D",
        "--scenario",
        s.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert!(read_png(&png).width() > 0);
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let mut names: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["s.json", "x.png", "x.svg"]);
}

#[test]
fn pictures_never_overwrite_the_scenario_or_each_other() {
    let d = temp_dir("clobber");
    let s = write(&d, "s.json", &wrap_scenario());
    let same = d.join("x.img");
    let dotted = d.join(".").join("s.json");
    for (flags, what) in [
        (
            vec![
                "--png",
                same.to_str().unwrap(),
                "--svg",
                same.to_str().unwrap(),
            ],
            "the same file",
        ),
        (vec!["--svg", s.to_str().unwrap()], "the scenario file"),
        (vec!["--png", s.to_str().unwrap()], "the scenario file"),
        (vec!["--png", dotted.to_str().unwrap()], "the scenario file"),
    ] {
        let mut args = vec![
            "explain",
            "TLD4.R R10, R8, R20, RZ, UR4, 2D",
            "--scenario",
            s.to_str().unwrap(),
        ];
        args.extend(&flags);
        let o = tld4(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(what) && err.contains("refusing"),
            "{flags:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&s).unwrap(), wrap_scenario());
        assert!(!same.exists());
    }
}

#[test]
fn a_nan_sample_point_is_not_drawn() {
    let d = temp_dir("nan");
    let s = write(
        &d,
        "s.json",
        &wrap_scenario().replace("\"R20\": 0.8", "\"R20\": \"nan\""),
    );
    let png = d.join("x.png");
    let svg = d.join("x.svg");
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, RZ, UR4, 2D",
        "--scenario",
        s.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("picture: no sample point drawn: u*W = NaN")),
        "{out}"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(!text.contains("NaN\""), "an SVG attribute holds NaN");
    // Only the key's disc remains.
    assert_eq!(text.matches("<circle").count(), 1, "{text}");
    let img = read_png(&png);
    for (x, y) in [(0, 0), (2, 2), (4, 1), (1, 4)] {
        assert_ne!(img.get_pixel(x, y).0, SAMPLE, "pixel ({x}, {y})");
    }
}

/// A 2x2 texture array of 3 layers, R8_UINT, texel value 100 * layer + 10 * y + x.
fn array_scenario(layer: &str) -> String {
    let texels: Vec<String> = (0..12)
        .map(|i| (100 * (i / 4) + 10 * (i % 4 / 2) + i % 2).to_string())
        .collect();
    format!(
        r#"{{
  "textures": [{{"dim": "2d_array", "format": "r8_uint", "width": 2, "height": 2, "layers": 3, "texels": [{}]}}],
  "samplers": [{{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"}}],
  "handles": {{"t": {{"texture": 0, "sampler": 0}}}},
  "instruction": "TLD4.R R10, R8, R20, RZ, UR4, ARRAY_2D ;",
  "uniform": {{"UR4": "t"}},
  "lanes": [{{"lanes": "all", "R20": {layer}, "R21": 0.5, "R22": 0.5}}]
}}"#,
        texels.join(", ")
    )
}

#[test]
fn a_float_in_a_layer_register_is_warned_about() {
    let d = temp_dir("layer");
    let explain = |layer: &str| {
        let s = write(&d, "s.json", &array_scenario(layer));
        let o = tld4(&[
            "explain",
            "TLD4.R R10, R8, R20, RZ, UR4, ARRAY_2D",
            "--scenario",
            s.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{o:?}");
        stdout(&o)
    };
    // 2.0 is 0x40000000: bits 15:0 select layer 0 (the register semantics), with a warning.
    let out = explain("2.0");
    has_line(&out, "    R20   = 0x40000000  layer: bits 15:0 = 0");
    has_line(
        &out,
        "    warning: R20 = 0x40000000 has bits 31:16 set, which the unit ignores (it reads layer 0 from bits 15:0; ptxas clamps a layer to 0..65535) - it is the bit pattern of the f32 2.0; the layer is an integer, not a float",
    );
    // The integer 2 selects layer 2, silently.
    let out = explain("2");
    has_line(&out, "    R20   = 0x00000002  layer: bits 15:0 = 2");
    assert!(!out.contains("warning:"), "{out}");
    // -1 has its high bits set too, but is no float.
    let out = explain("-1");
    let w = out
        .lines()
        .find(|l| l.starts_with("    warning: R20 = 0xffffffff has bits 31:16 set"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(!w.contains("f32"), "{w}");
}

#[test]
fn a_closed_pipe_is_an_error_not_a_panic() {
    use std::process::Stdio;
    for _ in 0..3 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tld4"))
            .args(["explain", "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before the command writes.
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{err}");
        assert_ne!(o.status.code(), Some(101), "{o:?}");
    }
}

#[test]
fn explain_prints_only_through_its_writer() {
    // Every line of text goes through `explain_to`'s `io::Write` (the CLI, src/explain.rs)
    // or into the engine's returned text (the tld4-explain crate, explain/src), so that an io
    // error is an error: no print! or println! in either.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("src/explain.rs")];
    for e in std::fs::read_dir(root.join("explain/src")).unwrap() {
        paths.push(e.unwrap().path());
    }
    for p in &paths {
        let text = std::fs::read_to_string(p).unwrap();
        for (n, line) in text.lines().enumerate() {
            assert!(
                !line.contains("println!(") && !line.contains("print!("),
                "{}:{}: {line}",
                p.display(),
                n + 1
            );
        }
    }
    assert!(paths.len() >= 6, "explain/src/ holds the engine's files");
}
