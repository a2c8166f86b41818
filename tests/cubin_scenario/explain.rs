//! `tld4 explain FILE:KERNEL:OFFSET`: the TLD4 at an offset of a kernel, explained as its
//! word would be; with the example scenario, one lane's path; every miss is an error (exit 2).

use tld4_cubin::{Cubin, SM100};

use super::{cuda_dir, root, text, tld4};

const QUAD: &str = "examples/cuda/gather.sm100.cubin:gather_quad:0x0310";

fn quad_word() -> String {
    let bytes = std::fs::read(cuda_dir().join("gather.sm100.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes, &[SM100]).unwrap();
    format!("{:032x}", cubin.tld4_at("gather_quad", 0x310).unwrap().word)
}

#[test]
fn a_cubin_reference_explains_the_same_as_its_word() {
    let by_word = tld4(&["explain", &quad_word()], root(), "");
    assert!(by_word.status.success());
    let want = text(&by_word.stdout);
    assert!(
        want.starts_with("instruction: TLD4.R R10, R8, R2, UR4, 2D ;"),
        "{want}"
    );
    // The same explanation, after one line saying where the word came from.
    for (spec, from) in [
        (
            QUAD,
            "from: examples/cuda/gather.sm100.cubin, kernel gather_quad, offset 0x0310 in its code section\n",
        ),
        (
            "examples/cuda/gather.o:gather_quad:0x310",
            "from: examples/cuda/gather.o#1 (sm_100), kernel gather_quad, offset 0x0310 in its code section\n",
        ),
    ] {
        let out = tld4(&["explain", spec], root(), "");
        assert!(out.status.success(), "{spec}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{from}{want}"), "{spec}");
    }
}

#[test]
fn with_the_example_scenario_a_lane_is_followed_and_checked() {
    let out = tld4(
        &[
            "explain",
            QUAD,
            "--scenario",
            "examples/cuda/gather.scenario.json",
            "--lane",
            "5",
        ],
        root(),
        "",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    // Lane 5 is thread (1, 1): its footprint is texels (1, 1)..(2, 2), w = texel (1, 1) = 5.
    assert!(stdout.contains("R2    = 0x3ec00000  u = 0.375"), "{stdout}");
    assert!(stdout.contains("R11   = 0x40a00000  w = 5.0"), "{stdout}");
    assert!(
        stdout.contains("check: the emulator (tld4 run) writes the same values in lane 5"),
        "{stdout}"
    );
}

#[test]
fn a_file_name_may_hold_colons() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a:b.cubin");
    std::fs::copy(cuda_dir().join("gather.sm100.cubin"), &file).unwrap();
    let spec = format!("{}:gather_quad:0x0310", file.display());
    let out = tld4(&["explain", &spec], root(), "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = format!(
        "from: {}, kernel gather_quad, offset 0x0310 in its code section\ninstruction: TLD4.R R10, R8, R2, UR4, 2D ;",
        file.display()
    );
    assert!(
        text(&out.stdout).starts_with(&want),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn every_miss_is_an_error_that_says_what_is_there() {
    for (spec, want) in [
        (
            "examples/cuda/gather.sm100.cubin:gather_quad:0x0300",
            "error: examples/cuda/gather.sm100.cubin:gather_quad:0x0300: no TLD4 at 0x0300 in kernel gather_quad (another instruction is there",
        ),
        (
            "examples/cuda/gather.sm100.cubin:gather:0x0310",
            "error: examples/cuda/gather.sm100.cubin:gather:0x0310: no kernel gather; kernels: gather_row_green, gather_quad",
        ),
        (
            "examples/cuda/gather.sm100.cubin:0x0310",
            "error: `examples/cuda/gather.sm100.cubin:0x0310`: expected FILE:KERNEL:OFFSET",
        ),
        (
            "examples/cuda/gather.sm100.cubin::0x0310",
            "the kernel is empty",
        ),
        (":gather_quad:0x0310", "the file is empty"),
        (
            "examples/cuda/gather.sm100.cubin:gather_quad:310",
            "offset `310`: expected 0x and hex digits",
        ),
        (
            "examples/cuda/missing.cubin:gather_quad:0x0310",
            "cannot read examples/cuda/missing.cubin",
        ),
        (
            "tests/cubins/one_gather.sm90.cubin:one_gather:0x0090",
            "is sm_90's `TLD4.G ",
        ),
    ] {
        let out = tld4(&["explain", spec], root(), "");
        assert_eq!(out.status.code(), Some(2), "{spec}");
        let err = text(&out.stderr);
        assert!(err.contains(want), "{spec}: {err}");
        assert!(out.stdout.is_empty(), "{spec}");
    }
}
