//! Unit-testing the TLD4 ptxas emitted: the scenario examples/cuda/gather.scenario.json names
//! its instruction by cubin, kernel and offset (`gather_quad` at 0x0310 of
//! examples/cuda/gather.sm100.cubin), sets the registers as the kernel's own code does for the
//! launch in gather.cu's main() (a 4x4 block: 16 active lanes, u and v in R2, R3, the texture
//! object's low word in UR4, UR5 = 0) and expects what the Vulkan gather formulas give. Run
//! through `tld4 run`, through `tld4_scenario::load_in`, and checked against
//! `tld4_textures::reference`, which is written apart from the emulator.

use std::path::{Path, PathBuf};
use std::process::Output;

use tld4_cubin::{Cubin, SM100};
use tld4_reference as reference;
use tld4_scenario::cubin_ref::CubinRef;
use tld4_scenario::{Expected, Loc, Scenario};
use tld4_textures::{GatherOp, GatherQuery, TextureKind};

use crate::common;
pub(crate) use common::text;

/// The error cases: every way a cubin reference can miss.
#[path = "cubin_scenario/errors.rs"]
mod errors;
/// `tld4 explain FILE:KERNEL:OFFSET`.
#[path = "cubin_scenario/explain.rs"]
mod explain;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cuda_dir() -> PathBuf {
    root().join("examples/cuda")
}

fn scenario_text() -> String {
    std::fs::read_to_string(cuda_dir().join("gather.scenario.json")).unwrap()
}

/// `tld4 ARGS...` run in `dir` with `stdin`.
pub(crate) fn tld4(args: &[&str], dir: &Path, stdin: &str) -> Output {
    common::tld4_in(args, Some(dir), stdin)
}

/// The texel gather.cu's main() stores at (x, y) of its 4x4 texture, clamped to the edge as
/// its cudaAddressModeClamp sampler does.
fn texel(x: i64, y: i64) -> f32 {
    (y.clamp(0, 3) * 4 + x.clamp(0, 3)) as f32
}

#[test]
fn the_scenario_names_the_tld4_ptxas_emitted_for_gather_quad() {
    let s = tld4_scenario::load_in(&scenario_text(), &cuda_dir()).unwrap();
    // The same word as the cubin holds at gather_quad + 0x0310 (tld4-cubin's own lookup).
    let bytes = std::fs::read(cuda_dir().join("gather.sm100.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes, &[SM100]).unwrap();
    let site = cubin.tld4_at("gather_quad", 0x310).unwrap();
    assert_eq!(s.word, site.word);
    assert_eq!(s.insn.text(), "TLD4.R R10, R8, R2, UR4, 2D ;");
}

#[test]
fn each_active_lane_gathers_its_2x2_footprint_and_the_idle_lanes_keep_their_registers() {
    let s = tld4_scenario::load_in(&scenario_text(), &cuda_dir()).unwrap();
    let run = s.execute().unwrap();
    assert_eq!(run.report.executed, 0x0000_ffff);
    let (rd, rd2) = (s.insn.rd.0, s.insn.rd2.0);
    for lane in 0..16 {
        let (x, y) = ((lane % 4) as i64, (lane / 4) as i64);
        // At the texel centre ((x + 0.5) / 4, (y + 0.5) / 4) the footprint is (x, y) to
        // (x + 1, y + 1); gather order (i0,j1), (i1,j1), (i1,j0), (i0,j0) (Vulkan, "Texel
        // Gathering"), x and y into Rd's pair, z and w into Rd2's.
        let want = [
            texel(x, y + 1),
            texel(x + 1, y + 1),
            texel(x + 1, y),
            texel(x, y),
        ];
        let got = [
            run.reg_f32(lane, rd),
            run.reg_f32(lane, rd + 1),
            run.reg_f32(lane, rd2),
            run.reg_f32(lane, rd2 + 1),
        ];
        assert_eq!(got, want, "lane {lane}");
    }
    for lane in 16..32 {
        for r in [rd, rd + 1, rd2, rd2 + 1] {
            assert_eq!(run.reg(lane, r), 0xdead_beef, "lane {lane} R{r}");
        }
    }
}

/// The file's expectations are the Vulkan-formula reference's results for each lane's
/// coordinates: checked against `tld4_textures::reference`, not against the emulator.
#[test]
fn the_files_expectations_are_the_reference_gathers() {
    let s = tld4_scenario::load_in(&scenario_text(), &cuda_dir()).unwrap();
    let handle = tld4_textures::Handle(s.warp.ureg(s.insn.ur.0));
    let pool = s.pool().expect("the example has owned textures");
    let texture = pool.texture(handle.header_index()).unwrap();
    let sampler = pool.sampler(handle.sampler_index()).unwrap();
    let op = GatherOp::new(TextureKind::Tex2D, s.insn.component as u8);
    let (rd, rd2) = (s.insn.rd.0, s.insn.rd2.0);
    let mut checked = 0;
    for lane in 0..16 {
        let ra = s.insn.ra.0;
        let q = GatherQuery::at(s.warp.reg_f32(lane, ra), s.warp.reg_f32(lane, ra + 1));
        let r = reference::gather(texture, sampler, &op, &q).unwrap();
        for (k, reg) in [rd, rd + 1, rd2, rd2 + 1].into_iter().enumerate() {
            let check = s.expect[lane]
                .iter()
                .find(|c| c.loc == Loc::Reg(reg))
                .unwrap_or_else(|| panic!("lane {lane}: no expectation for R{reg}"));
            assert_eq!(
                check.value,
                Expected::Float(r.as_f32()[k]),
                "lane {lane} R{reg}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 64);
}

#[test]
fn tld4_run_passes_every_lane_from_any_directory() {
    let path = cuda_dir().join("gather.scenario.json");
    // The cubin is found beside the scenario, wherever tld4 runs.
    for dir in [root().to_path_buf(), std::env::temp_dir()] {
        let out = tld4(&["run", path.to_str().unwrap()], &dir, "");
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
        assert!(stdout.contains("32 passed, 0 failed"), "{stdout}");
        assert!(stdout.contains("lane 16:  (not executed)"), "{stdout}");
    }
    // Relative to the repository root, as the README shows it.
    let out = tld4(&["run", "examples/cuda/gather.scenario.json"], root(), "");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_scenario_on_standard_input_finds_the_cubin_from_the_current_directory() {
    let out = tld4(&["run", "-"], &cuda_dir(), &scenario_text());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("32 passed, 0 failed"));
    let out = tld4(&["run", "-"], root(), &scenario_text());
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("instruction.cubin: cannot read gather.sm100.cubin"),
        "{err}"
    );
}

#[test]
fn a_wrong_expectation_fails_the_run() {
    // Lane 5's w is texel (1, 1) = 5; expecting 6 must fail, so the check can fail.
    let doc = scenario_text().replace(
        r#"{"lanes": 5, "R8": 9.0, "R9": 10.0, "R10": 6.0, "R11": 5.0}"#,
        r#"{"lanes": 5, "R8": 9.0, "R9": 10.0, "R10": 6.0, "R11": 6.0}"#,
    );
    assert_ne!(doc, scenario_text());
    let out = tld4(&["run", "-"], &cuda_dir(), &doc);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("31 passed, 1 failed"));
}

#[test]
fn the_offset_may_be_a_json_integer_and_the_file_a_host_object_or_fat_binary() {
    let base = tld4_scenario::load_in(&scenario_text(), &cuda_dir()).unwrap();
    let swap = |from: &str, to: &str| {
        let doc = scenario_text().replace(from, to);
        assert_ne!(doc, scenario_text());
        tld4_scenario::load_in(&doc, &cuda_dir()).unwrap()
    };
    assert_eq!(
        swap(r#""offset": "0x0310""#, r#""offset": 784"#).word,
        base.word
    );
    assert_eq!(
        swap(r#""offset": "0x0310""#, r#""offset": "0X310""#).word,
        base.word
    );
    let from_object = swap(r#""cubin": "gather.sm100.cubin""#, r#""cubin": "gather.o""#);
    assert_eq!(from_object.word, base.word);
    assert_eq!(
        from_object.execute().unwrap().warp,
        base.execute().unwrap().warp
    );
    // An absolute path is used as it is.
    let abs = cuda_dir().join("gather.sm100.cubin");
    let doc = scenario_text().replace(
        r#""cubin": "gather.sm100.cubin""#,
        &format!(
            r#""cubin": {}"#,
            serde_json::to_string(abs.to_str().unwrap()).unwrap()
        ),
    );
    assert_eq!(
        tld4_scenario::load_in(&doc, Path::new("/")).unwrap().word,
        base.word
    );
    // A fat binary: its sm_100 cubin is ELF entry 2, as cuobjdump numbers them (`tld4 scan`
    // prints one_gather.fatbin#2).
    let r = CubinRef {
        file: "tests/cubins/one_gather.fatbin".into(),
        kernel: "one_gather".into(),
        offset: 0x90,
    };
    let found = r.resolve(root()).unwrap();
    assert_eq!(found.insn.text(), "TLD4.G R6, R4, R4, UR4, 2D ;");
    assert_eq!(found.origin.entry, Some(2));
    assert_eq!(found.target.to_string(), "sm_100");
}

#[test]
fn the_builder_takes_the_tld4_from_a_parsed_cubin() {
    let bytes = std::fs::read(cuda_dir().join("gather.sm100.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes, &[SM100]).unwrap();
    let from_json = tld4_scenario::load_in(&scenario_text(), &cuda_dir()).unwrap();
    let mut b = Scenario::builder();
    b.instruction_from_cubin(&cubin, "gather_quad", 0x310)
        .unwrap();
    assert_eq!(b.build().unwrap().word, from_json.word);
    // gather_row_green: the green component, v = 0.5 (R7 = 0x3f000000 in its code).
    let mut b = Scenario::builder();
    b.instruction_from_cubin(&cubin, "gather_row_green", 0x1b0)
        .unwrap();
    assert_eq!(
        b.build().unwrap().insn.text(),
        "TLD4.G R10, R8, R6, UR4, 2D ;"
    );
    let mut b = Scenario::builder();
    let e = b
        .instruction_from_cubin(&cubin, "gather_quad", 0x300)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.path, "instruction_from_cubin");
    assert!(
        e.message
            .contains("no TLD4 at 0x0300 in kernel gather_quad"),
        "{e}"
    );
    assert!(e.message.contains("its TLD4s are at 0x0310"), "{e}");
    let e = b
        .instruction_from_cubin(&cubin, "gather", 0x310)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        e.message,
        "no kernel gather; kernels: gather_row_green, gather_quad"
    );
}
