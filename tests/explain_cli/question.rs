//! `tld4 explain INSN --texture ...`: a question without a scenario file. The expected texels
//! come from the rules (the 8-bit fixed-point origin, the address modes, the offsets) and the
//! index pattern's values are decoded back to the texel they name.

use super::*;

/// The four results of `results (x, y, z, w) = (a, b, c, d) = ...`, as floats.
fn results(out: &str) -> [f32; 4] {
    let l = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("results (x, y, z, w) = ("))
        .unwrap_or_else(|| panic!("no results line in\n{out}"));
    let inner = &l[..l.find(')').unwrap()];
    let v: Vec<f32> = inner.split(", ").map(|x| x.parse().unwrap()).collect();
    [v[0], v[1], v[2], v[3]]
}

/// `tld4 explain ARGS...`, which must succeed; its standard output.
fn explain_ok(args: &[&str]) -> String {
    let mut all = vec!["explain"];
    all.extend_from_slice(args);
    let o = tld4(&all);
    assert!(o.status.success(), "{all:?}: {o:?}");
    stdout(&o)
}

/// The footprint (i, j) in gather order x, y, z, w = (i0, j1), (i1, j1), (i1, j0), (i0, j0)
/// (Vulkan "Texel Gathering") of (u, v) on a W x H texture, from the 8-bit fixed-point model,
/// moved by the offset (dx, dy).
fn footprint(u: f32, v: f32, w: u32, h: u32, d: (i64, i64)) -> [(i64, i64); 4] {
    let (_, _, _, i0) = fixed(u, w);
    let (_, _, _, j0) = fixed(v, h);
    let (i0, j0) = (i0 + d.0, j0 + d.1);
    [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)]
}

/// Vulkan's address modes on one axis (texel index n of a size s texture); None for the
/// border.
fn address(mode: &str, n: i64, s: i64) -> Option<i64> {
    match mode {
        "repeat" => Some(n.rem_euclid(s)),
        "clamp_to_edge" => Some(n.clamp(0, s - 1)),
        "clamp_to_border" => (0..s).contains(&n).then_some(n),
        "mirrored_repeat" => {
            let m = n.rem_euclid(2 * s);
            Some(if m < s { m } else { 2 * s - 1 - m })
        }
        _ => unreachable!(),
    }
}

#[test]
fn the_index_pattern_names_the_texels_of_the_footprint() {
    // Component R holds x, G holds y, A the texel number y*W + x.
    for (u, v) in [(0.5f32, 0.5f32), (0.3, 0.7), (0.126, 0.874), (0.9, 0.1)] {
        let coord = format!("{u},{v}");
        let fp = footprint(u, v, 4, 4, (0, 0));
        for (comp, decode) in [("R", 0usize), ("G", 1), ("A", 3)] {
            let out = explain_ok(&[
                &format!("TLD4.{comp} R8, R20, R24, UR4, 2D"),
                "--texture",
                "4x4",
                "--coord",
                &coord,
                "--pattern",
                "index",
            ]);
            let got = results(&out);
            for k in 0..4 {
                let (i, j) = fp[k];
                let (x, y) = (i.clamp(0, 3), j.clamp(0, 3));
                let want = [x, y, 0, 4 * y + x][decode];
                assert_eq!(got[k], want as f32, "{comp} at ({u}, {v}), {k}:\n{out}");
            }
        }
    }
}

#[test]
fn address_modes_and_the_aoffi_offset_move_the_footprint_by_the_rules() {
    for mode in [
        "repeat",
        "clamp_to_edge",
        "clamp_to_border",
        "mirrored_repeat",
    ] {
        for (off, d) in [("0,0", (0, 0)), ("1,-1", (1, -1)), ("-3,2", (-3, 2))] {
            let out = explain_ok(&[
                "TLD4.A.AOFFI R10, R8, R20, R24, UR4, 2D",
                "--texture",
                "4x4",
                "--coord",
                "0.0,0.0",
                "--address",
                mode,
                "--offset",
                off,
                "--border",
                "0.25,0.5,0.75,-7",
            ]);
            let got = results(&out);
            for (k, (i, j)) in footprint(0.0, 0.0, 4, 4, d).iter().enumerate() {
                let want = match (address(mode, *i, 4), address(mode, *j, 4)) {
                    (Some(x), Some(y)) => (4 * y + x) as f32,
                    _ => -7.0,
                };
                assert_eq!(got[k], want, "{mode} {off}, {k}:\n{out}");
            }
        }
    }
    // One axis each.
    let out = explain_ok(&[
        "TLD4.A R8, R20, R24, UR4, 2D",
        "--texture",
        "4x4",
        "--coord",
        "0,0",
        "--address",
        "repeat,clamp_to_edge",
    ]);
    // (i, j): x (-1, 0) -> (3, 0); y (0, 0); z (0, -1) -> (0, 0); w (-1, -1) -> (3, 0).
    assert_eq!(results(&out), [3.0, 0.0, 0.0, 3.0]);
}

#[test]
fn ptp_offsets_layers_and_depth_compare_from_flags() {
    let offs = [(1, 0), (-1, 2), (0, -3), (2, 2)];
    let flat: Vec<String> = offs
        .iter()
        .flat_map(|(x, y)| [x.to_string(), y.to_string()])
        .collect();
    let out = explain_ok(&[
        "TLD4.A.PTP R10, R8, R20, R24, UR4, 2D",
        "--texture",
        "8x8",
        "--coord",
        "0.5,0.5",
        "--offsets",
        &flat.join(","),
    ]);
    // PTP: texel k is read at (i0 + dx_k, j0 + dy_k) (NAK's reading of the two registers).
    let (_, _, _, i0) = fixed(0.5, 8);
    let (_, _, _, j0) = fixed(0.5, 8);
    let got = results(&out);
    for k in 0..4 {
        let (i, j) = (i0 + offs[k].0, j0 + offs[k].1);
        assert_eq!(
            got[k],
            (8 * j.clamp(0, 7) + i.clamp(0, 7)) as f32,
            "{k}:\n{out}"
        );
    }
    // Layers: B holds the layer; a layer past the last is clamped to it.
    for (layer, want) in [("1", 1.0f32), ("2", 2.0), ("9", 2.0)] {
        let out = explain_ok(&[
            "TLD4.B R8, R20, R24, UR4, ARRAY_2D",
            "--texture",
            "4x4x3",
            "--coord",
            "0.5,0.5",
            "--layer",
            layer,
        ]);
        assert_eq!(results(&out), [want; 4], "layer {layer}:\n{out}");
    }
    // Depth compare on a D32 index texture: the depth is x; less_or_equal passes where dref <= x.
    let out = explain_ok(&[
        "TLD4.R.DC R10, R8, R20, R24, UR4, 2D",
        "--texture",
        "4x4",
        "--format",
        "d32_float",
        "--coord",
        "0.5,0.5",
        "--dref",
        "1.5",
    ]);
    let fp = footprint(0.5, 0.5, 4, 4, (0, 0));
    let want: Vec<f32> = fp
        .iter()
        .map(|&(i, _)| if 1.5 <= i as f32 { 1.0 } else { 0.0 })
        .collect();
    assert_eq!(results(&out).to_vec(), want, "{out}");
}

#[test]
fn an_rgba8_index_texture_holds_raw_indices() {
    let out = explain_ok(&[
        "TLD4.G R8, R20, R24, UR4, 2D",
        "--texture",
        "4x4",
        "--format",
        "rgba8_unorm",
        "--coord",
        "0.5,0.5",
    ]);
    let fp = footprint(0.5, 0.5, 4, 4, (0, 0));
    for (k, v) in results(&out).iter().enumerate() {
        assert_eq!((v * 255.0).round() as i64, fp[k].1, "{k}:\n{out}");
    }
}

#[test]
fn the_printed_scenario_explains_the_same_without_its_instruction() {
    let d = temp_dir("question");
    let insn = "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D";
    let flags = [
        "--texture",
        "5x3",
        "--coord",
        "0.31,0.77",
        "--address",
        "repeat",
        "--offset",
        "1,-1",
    ];
    let mut args = vec![insn];
    args.extend_from_slice(&flags);
    let direct = explain_ok(&args);
    args.push("--print-scenario");
    let doc = explain_ok(&args);
    let mut v: serde_json::Value = serde_json::from_str(&doc).unwrap();
    // The instruction is optional in a scenario given to explain.
    v.as_object_mut().unwrap().remove("instruction");
    let s = write(&d, "q.json", &v.to_string());
    let from_file = explain_ok(&[insn, "--scenario", s.to_str().unwrap()]);
    let name = format!("lane 0 of {}:", s.display());
    assert_eq!(
        from_file.replace(&name, "lane 0 of the command line's texture:"),
        direct
    );
    // And tld4 run agrees on the values (the explanation's own check line).
    has_line(
        &direct,
        "  check: the emulator (tld4 run) writes the same values in lane 0",
    );
}

#[test]
fn wrong_flags_are_errors_that_name_the_flag() {
    for (insn, flags, says) in [
        (
            "TLD4.R R8, R20, R24, UR4, 2D",
            vec!["--offset", "1,1"],
            "--offset",
        ),
        (
            "TLD4.R R8, R20, R24, UR4, 2D",
            vec!["--layer", "1"],
            "--layer",
        ),
        (
            "TLD4.R R8, R20, R24, UR4, 2D",
            vec!["--dref", "1"],
            "--dref",
        ),
        (
            "TLD4.R R8, R20, R24, UR4, 2D",
            vec!["--coord", "1"],
            "--coord",
        ),
        (
            "TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D",
            vec!["--offset", "40,0"],
            "-32..31",
        ),
        (
            "TLD4.R R8, R20, R24, UR4, 2D",
            vec!["--pattern", "stripes"],
            "--pattern",
        ),
        (
            "TLD4.R R8, R20, R24, UR4, CUBE",
            vec!["--texture", "4x2"],
            "square",
        ),
        (
            "TLD4.R R8, R20, R24, UR4, 2D",
            vec!["--texture", "4x4x2"],
            "no layers",
        ),
    ] {
        let mut args = vec!["explain", insn];
        if !flags.contains(&"--texture") {
            args.extend(["--texture", "4x4"]);
        }
        args.extend(flags.iter().copied());
        let o = tld4(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        let e = common::text(&o.stderr);
        assert!(e.contains(says), "{args:?}: {e}");
    }
}

#[test]
fn pictures_carry_the_tags_of_what_they_rest_on() {
    let d = temp_dir("question-svg");
    let svg = d.join("p.svg");
    explain_ok(&[
        "TLD4.A R10, R8, R20, R24, UR4, 2D",
        "--texture",
        "4x4",
        "--coord",
        "0.02,0.5",
        "--address",
        "clamp_to_border",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    // The sub-texel rounding placed the footprint; the border colour filled two texels.
    assert!(text.contains("measured: 8-bit sub-texel rounding (Sub-texel model)"));
    assert!(text.contains("model decision: border words, unswizzled (Decisions)"));
    assert!(text.contains("redirected"));
    // Exact precision: no fixed point, so no sub-texel tag.
    explain_ok(&[
        "TLD4.A R10, R8, R20, R24, UR4, 2D",
        "--texture",
        "4x4",
        "--coord",
        "0.5,0.5",
        "--precision",
        "exact",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(!text.contains("sub-texel"), "{text}");
}

/// The TLD4s ptxas emitted for the committed PTX kernels (tests/cubins/kernels/*.ptx, listed
/// by nvdisasm in tests/cubins/*.sass): explain's PTX form for each is one of the `tld4`
/// shapes of that kernel file (component, dimension, an offset vector, a depth reference).
#[test]
fn the_bridge_names_the_ptx_that_ptxas_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for name in ["gather_2d", "gather_layers"] {
        let sass =
            std::fs::read_to_string(root.join(format!("tests/cubins/{name}.sm100.sass"))).unwrap();
        let ptx =
            std::fs::read_to_string(root.join(format!("tests/cubins/kernels/{name}.ptx"))).unwrap();
        // The shapes in the PTX: "tld4.g.a2d" plus whether an offset vector and a dref follow.
        let shapes: Vec<(String, bool, bool)> = ptx
            .lines()
            .filter_map(|l| {
                let at = l.find("tld4.")?;
                let t = &l[at..];
                let head: String = t.split('.').take(3).collect::<Vec<_>>().join(".");
                let after = &t[t.find("}]").map_or(t.len(), |k| k + 2)..];
                Some((head, after.contains('{'), after.contains("%f")))
            })
            .collect();
        let lines: Vec<&str> = sass.lines().collect();
        for (k, l) in lines.iter().enumerate() {
            if !l.contains(" TLD4") {
                continue;
            }
            let half = |s: &str| {
                let a = s.rfind("/* 0x").unwrap() + 5;
                s[a..a + 16].to_string()
            };
            let word = format!("{}{}", half(lines[k + 1]), half(l));
            let out = explain_ok(&[&word]);
            let p = out
                .lines()
                .find_map(|x| x.strip_prefix("  PTX:    "))
                .unwrap_or_else(|| panic!("no PTX line:\n{out}"));
            let head: String = p.split('.').take(3).collect::<Vec<_>>().join(".");
            let after = &p[p.find("}]").unwrap() + 2..];
            let shape = (head, after.contains("{dx, dy}"), after.contains("dref"));
            assert!(shapes.contains(&shape), "{l}: {p} is not among {shapes:?}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} TLD4s checked");
}
