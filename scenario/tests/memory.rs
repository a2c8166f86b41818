//! Scenarios whose textures are in GPU memory: the committed example, the builder and the
//! JSON loader agree, every malformed memory key is an error naming its JSON path, descriptor
//! faults carry the executor's fault kinds, texel addresses follow the layouts' formulas, and
//! owned scenarios converted to their memory form (both layouts) run exactly as before.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tld4_gpu_memory::LayoutChoice;
use tld4_scenario::{
    address_lines, load, load_in, run, to_memory_json, Lanes, Outcome, Scenario, BLOCK_LINEAR,
    PITCH,
};
use tld4_textures::Format;

use crate::common;

const EXAMPLE: &str = include_str!("../../examples/scenarios/memory_pitch_rgba8.json");
const OWNED: &str = include_str!("../../examples/scenarios/gather_green.json");

/// The example's texture header, sampler and texels (its three regions), as bytes.
fn example_regions() -> [(u64, Vec<u8>); 3] {
    let words = |w: [u32; 8]| w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    let mut texels = vec![0u8; 40];
    texels[..8].copy_from_slice(&[0x10, 0x20, 0x30, 0xff, 0x40, 0x50, 0x60, 0xff]);
    texels[32..].copy_from_slice(&[0x70, 0x80, 0x90, 0xff, 0xa0, 0xb0, 0xc0, 0xff]);
    [
        (
            0x1000,
            words([0x2000, 0, 1, 0x2008_0b1a, 0x1042_0001, 1, 0, 0]),
        ),
        (0x1200, words([0x10, 0x262, 0, 0, 0, 0, 0, 0])),
        (0x2000, texels),
    ]
}

#[test]
fn the_example_passes_with_the_values_worked_out_by_hand() {
    let s = load(EXAMPLE).expect("the example loads");
    let m = s.memory().expect("memory form");
    assert_eq!((m.header_pool, m.sampler_pool), (0x1000, 0x1200));
    let outcome = run(&s);
    assert_eq!(
        (outcome.passed, outcome.failed),
        (32, 0),
        "{:?}",
        outcome.lines
    );
    // Red codes 0x70, 0xa0, 0x40, 0x10 at (0,1), (1,1), (1,0), (0,0): lanes 0-15 gather at the
    // centre; lanes 16-31 at u = 1.0 wrap i1 = 2 to column 0 (u repeat).
    let run = s.execute().unwrap();
    for (lane, codes) in [
        (0, [0x70, 0xa0, 0x40, 0x10]),
        (16, [0xa0, 0x70, 0x10, 0x40]),
    ] {
        for (k, c) in codes.iter().enumerate() {
            let got = run.reg_f32(lane, 8 + k as u8);
            assert!(
                (got - *c as f32 / 255.0).abs() < 1e-6,
                "lane {lane} R{}",
                8 + k
            );
        }
    }
}

#[test]
fn the_builder_makes_the_example() {
    let mut b = Scenario::builder();
    for (at, bytes) in example_regions() {
        b.memory(at, bytes).unwrap();
    }
    b.texture_header_pool(0x1000).sampler_pool(0x1200);
    let h = b.handle("tex", 0, 0).unwrap();
    b.instruction("TLD4.R R10, R8, R20, UR4, 2D ;")
        .unwrap()
        .uniform(4, h)
        .unwrap()
        .reg(Lanes::ALL, 20, 0.5f32)
        .unwrap()
        .reg(Lanes::ALL, 21, 0.5f32)
        .unwrap()
        .reg(Lanes::range(16, 31).unwrap(), 20, 1.0f32)
        .unwrap();
    let built = b.build().unwrap();
    let json = load(EXAMPLE).unwrap();
    assert_eq!(built.memory(), json.memory());
    let (a, c) = (built.execute().unwrap(), json.execute().unwrap());
    for lane in 0..32 {
        for r in 8..12 {
            assert_eq!(a.reg(lane, r), c.reg(lane, r), "lane {lane} R{r}");
        }
    }
}

#[test]
fn owned_textures_and_memory_are_exclusive_in_the_builder() {
    let mut b = Scenario::builder();
    b.memory(0x1000, vec![0; 32]).unwrap();
    b.texture_header_pool(0x1000).sampler_pool(0x1000);
    b.sampler(tld4_textures::Sampler::default()).unwrap();
    b.instruction("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap();
    let e = b.build().unwrap_err();
    assert!(e.message.contains("not both"), "{e}");
    let mut b = Scenario::builder();
    b.memory(0x1000, vec![0; 32])
        .unwrap()
        .texture_header_pool(0x1000);
    b.instruction("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap();
    let e = b.build().unwrap_err();
    assert_eq!(e.path, "sampler_pool", "{e}");
}

/// The example with `from` replaced by `to` fails at `path` with `why` in the message.
fn refused(from: &str, to: &str, path: &str, why: &str) {
    common::refused_in(EXAMPLE, from, to, path, why)
}

#[test]
fn malformed_memory_keys_name_their_json_path() {
    // bad hex: the region and the character offset
    refused(
        "\"hex\": \"10000000",
        "\"hex\": \"1000x000",
        "memory[1].hex",
        "character 4 (`x`)",
    );
    refused(
        "708090ff a0b0c0ff\"",
        "708090ff a0b0c0f\"",
        "memory[2].hex",
        "odd number",
    );
    refused(
        "708090ff a0b0c0ff\"",
        "708090ff a0b0c 0ff\"",
        "memory[2].hex",
        "a space splits the byte",
    );
    // addresses: "0x..." strings of 64 bits
    refused(
        "\"address\": \"0x1200\"",
        "\"address\": 4608",
        "memory[1].address",
        "\"0x\"",
    );
    refused(
        "\"address\": \"0x1200\"",
        "\"address\": \"1200\"",
        "memory[1].address",
        "\"0x\"",
    );
    refused(
        "\"address\": \"0x1200\"",
        "\"address\": \"0x10000000000000000\"",
        "memory[1].address",
        "1 to 16 hex digits",
    );
    refused(
        "\"address\": \"0x2000\"",
        "\"address\": \"0xffffffffffffffe0\"",
        "memory[2]",
        "end of the 64-bit address space",
    );
    refused(
        "\"sampler_pool\": \"0x1200\"",
        "\"sampler_pool\": \"0xq\"",
        "sampler_pool",
        "\"0x\"",
    );
    // overlapping regions: both named
    refused(
        "\"address\": \"0x2000\"",
        "\"address\": \"0x1010\"",
        "memory[2]",
        "overlap memory[0]",
    );
    // missing pieces
    refused(
        "\"sampler_pool\": \"0x1200\",",
        "",
        "sampler_pool",
        "missing `sampler_pool`",
    );
    refused(
        "\"texture_header_pool\": \"0x1000\",",
        "",
        "texture_header_pool",
        "missing",
    );
    refused(
        "\"hex\": \"10000000 62020000 00000000 00000000 00000000 00000000 00000000 00000000\"",
        "\"bytes\": 1",
        "memory[1].bytes",
        "unknown field",
    );
    refused(
        "\"hex\": \"10000000 62020000 00000000 00000000 00000000 00000000 00000000 00000000\"",
        "\"hex\": \"\"",
        "memory[1]",
        "empty region",
    );
    refused(
        "\"hex\": \"10000000 62020000 00000000 00000000 00000000 00000000 00000000 00000000\"",
        "\"hex\": \"00\", \"file\": \"x.bin\"",
        "memory[1]",
        "not both",
    );
    // the two forms together
    refused(
        "\"memory\": [",
        "\"textures\": [], \"memory\": [",
        "textures",
        "not both",
    );
    refused(
        "\"memory\": [",
        "\"samplers\": [], \"memory\": [",
        "samplers",
        "not both",
    );
    let no_memory = EXAMPLE.replacen("\"memory\": [", "\"unused\": [", 1);
    assert!(load(&no_memory)
        .unwrap_err()
        .message
        .contains("unknown field"));
    // an owned scenario without `samplers`
    let e = load(&OWNED.replacen(
        "\"samplers\": [{\"address_u\": \"clamp_to_edge\", \"address_v\": \"clamp_to_edge\"}],",
        "",
        1,
    ))
    .unwrap_err();
    assert_eq!(e.path, "samplers", "{e}");
}

#[test]
fn file_regions_are_read_relative_to_the_scenario_directory() {
    let dir = std::env::temp_dir().join(format!("tld4-memscen-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let [_, _, (_, texels)] = example_regions();
    std::fs::write(dir.join("sub/texels.bin"), &texels).unwrap();
    let from = "\"hex\": \"102030ff 405060ff 00000000 00000000 00000000 00000000 00000000 00000000 708090ff a0b0c0ff\"";
    assert!(EXAMPLE.contains(from));
    let text = EXAMPLE.replacen(from, "\"file\": \"sub/texels.bin\"", 1);
    let s = load_in(&text, &dir).expect("the file is found relative to the directory");
    assert_eq!(run(&s).lines, run(&load(EXAMPLE).unwrap()).lines);
    // a missing file names the JSON path and the file
    let e = load_in(&text, Path::new("/nonexistent-tld4-dir")).unwrap_err();
    assert_eq!(e.path, "memory[2].file");
    assert!(e.message.contains("sub/texels.bin"), "{e}");
    // a directory (or a device) is not a region file
    let dev = text.replacen("sub/texels.bin", "sub", 1);
    let e = load_in(&dev, &dir).unwrap_err();
    assert!(
        e.message.contains("not a regular file") || e.message.contains("directory"),
        "{e}"
    );
    // an empty file is an empty region
    std::fs::write(dir.join("sub/texels.bin"), b"").unwrap();
    let e = load_in(&text, &dir).unwrap_err();
    assert_eq!(e.path, "memory[2]", "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run`'s first fault line and the verdict, for a scenario that faults.
fn fault_of(text: &str) -> (String, Outcome) {
    let outcome = run(&load(text).expect("loads"));
    let line = outcome
        .lines
        .iter()
        .find(|l| l.starts_with("fault ("))
        .unwrap_or_else(|| panic!("no fault: {:?}", outcome.lines))
        .clone();
    (line, outcome)
}

#[test]
fn descriptor_faults_carry_the_executors_fault_kinds() {
    // a handle whose header lies in unmapped memory (header 1 at 0x1020)
    let (line, _) = fault_of(&EXAMPLE.replacen("\"texture\": 0", "\"texture\": 1", 1));
    assert!(
        line.starts_with("fault (unknown_texture_header): lane 0: handle 0x00000001"),
        "{line}"
    );
    assert!(line.contains("0x1020"), "{line}");
    // ... which expect.fault names
    let expected = EXAMPLE
        .replacen("\"texture\": 0", "\"texture\": 1", 1)
        .replacen(
            "\"expect\": {",
            "\"expect\": {\"fault\": \"unknown_texture_header\",",
            1,
        );
    let (_, outcome) = fault_of(&expected);
    assert_eq!(
        (outcome.passed, outcome.failed),
        (1, 0),
        "{:?}",
        outcome.lines
    );
    // a sampler in unmapped memory
    let (line, _) = fault_of(&EXAMPLE.replacen("\"sampler\": 0", "\"sampler\": 3", 1));
    assert!(
        line.starts_with("fault (unknown_sampler): lane 0: handle 0x00300000"),
        "{line}"
    );
    // DATA_TYPE 0xf names no data type: an invalid format
    let (line, _) = fault_of(&EXAMPLE.replacen("1a0b0820", "1afb0820", 1));
    assert!(
        line.starts_with("fault (invalid_texture): lane 0: handle 0x00000000"),
        "{line}"
    );
    assert!(line.contains("DATA_TYPE"), "{line}");
    // COMPONENTS 0x7f is a layout the texture unit does not model
    let (line, _) = fault_of(&EXAMPLE.replacen("1a0b0820", "1a0b7f20", 1));
    assert!(
        line.starts_with("fault (not_modeled)") && line.contains("COMPONENTS"),
        "{line}"
    );
    // ADDRESS_U CLAMP_OGL (4) is legal, but not modeled
    let (line, _) = fault_of(&EXAMPLE.replacen("\"hex\": \"10000000", "\"hex\": \"14000000", 1));
    assert!(
        line.starts_with("fault (not_modeled): not modeled (lane 0): handle 0x00000000: "),
        "{line}"
    );
    assert!(line.contains("ADDRESS_U"), "{line}");
    // a texel in unmapped memory: the texels end at 0x2028, so a row pitch of 64 puts row 1 at 0x2040
    let (line, _) = fault_of(&EXAMPLE.replacen("01000000 1a0b0820", "02000000 1a0b0820", 1));
    assert!(
        line.starts_with("fault (invalid_texture): lane 0: handle 0x00000000: reading the texel"),
        "{line}"
    );
}

#[test]
fn texel_addresses_follow_the_pitch_formula() {
    let s = load(EXAMPLE).unwrap();
    let lines = address_lines(&s).unwrap();
    // pitch-linear: texel (x, y) at 0x2000 + 32 * y + 4 * x; the sector is the address & !31
    let at = |x: u64, y: u64| 0x2000 + 32 * y + 4 * x;
    let want = |lane: usize, c: &str, x: u64, y: u64| {
        format!(
            "addr lane {lane} {c}: texel ({x}, {y}) layer 0 at {:#x} (4 bytes), sector {:#x}",
            at(x, y),
            at(x, y) & !31
        )
    };
    for (lane, cols) in [(0usize, [0u64, 1, 1, 0]), (16, [1, 0, 0, 1])] {
        let rows = [1u64, 1, 0, 0];
        let names = ["x (i0,j1)", "y (i1,j1)", "z (i1,j0)", "w (i0,j0)"];
        for k in 0..4 {
            let l = want(lane, names[k], cols[k], rows[k]);
            assert!(lines.contains(&l), "missing {l} in {lines:#?}");
        }
        let sectors = format!("addr lane {lane} sectors: 0x2020 0x2000");
        assert!(lines.contains(&sectors), "{sectors}");
    }
    // 32 lanes, 5 lines each, after the header line
    assert_eq!(lines.len(), 1 + 32 * 5);
    // owned textures have no addresses until converted
    let owned = load(OWNED).unwrap();
    assert!(address_lines(&owned).is_err());
    let converted = owned.to_memory_form(BLOCK_LINEAR, 0x10000).unwrap();
    let lines = address_lines(&converted).unwrap();
    // block-linear, one GOB: byte offset bits x0..x3 y0 y1 x4 y2 x5; 4-byte texels, y = 1 sets bit 4
    assert!(
        lines.iter().any(|l| l
            == "addr lane 0 x (i0,j1): texel (0, 1) layer 0 at 0x11010 (4 bytes), sector 0x11000"),
        "{lines:#?}"
    );
}

#[test]
fn borders_and_cube_corners_read_no_memory() {
    let border = r#"{"textures": [{"dim": "2d", "format": "r32_float", "width": 2, "height": 2, "texels": [1.0, 2.0, 3.0, 4.0]}],
      "samplers": [{"address_u": "clamp_to_border", "address_v": "clamp_to_border"}],
      "handles": {"t": {"texture": 0, "sampler": 0}}, "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;",
      "uniform": {"UR4": "t"}, "lanes": [{"lanes": "all", "R20": 0.0, "R21": 0.0}]}"#;
    let s = load(border).unwrap().to_memory_form(PITCH, 0x4000).unwrap();
    let lines = address_lines(&s).unwrap();
    // u = v = 0: i0 = j0 = -1; only (i1, j1) = (0, 0) is inside
    assert!(
        lines.contains(&"addr lane 3 x (i0,j1): border colour, no memory read".to_string()),
        "{lines:#?}"
    );
    assert!(lines
        .iter()
        .any(|l| l.starts_with("addr lane 3 y (i1,j1): texel (0, 0) layer 0 at ")));
    let cube = r#"{"textures": [{"dim": "cube", "format": "rgba32_float", "width": 2, "height": 2, "generate": {"pattern": "gradient"}}],
      "samplers": [{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"}],
      "handles": {"t": {"texture": 0, "sampler": 0}}, "instruction": "TLD4.R R10, R8, R20, UR4, CUBE ;",
      "uniform": {"UR4": "t"}, "lanes": [{"lanes": "all", "R20": 1.0, "R21": 1.0, "R22": 1.0}]}"#;
    let s = load(cube)
        .unwrap()
        .to_memory_form(BLOCK_LINEAR, 0x4000)
        .unwrap();
    let lines = address_lines(&s).unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("cube corner, no memory read")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("(cube 0 face +X)")),
        "{lines:#?}"
    );
}

/// The lines of `run`, a fault line cut to its kind (messages name owned pools or addresses).
fn comparable(o: &Outcome) -> Vec<String> {
    o.lines
        .iter()
        .map(|l| match l.strip_prefix("fault (") {
            Some(rest) => format!("fault ({}", &rest[..rest.find(')').unwrap_or(0)]),
            None => l.clone(),
        })
        .collect()
}

/// A random owned scenario of `format` and `dim` (2d, 2d_array, cube, cube_array).
fn random_scenario(rng: &mut ChaCha8Rng, format: Format, dim: &str) -> String {
    let modes = [
        "repeat",
        "mirrored_repeat",
        "clamp_to_edge",
        "clamp_to_border",
        "mirror_clamp_to_edge",
    ];
    let (w, h) = if dim.starts_with("cube") {
        let n = rng.gen_range(1..6);
        (n, n)
    } else {
        (rng.gen_range(1..9), rng.gen_range(1..9))
    };
    let layers = if dim.ends_with("array") {
        rng.gen_range(1..4)
    } else {
        1
    };
    let (insn_dim, coords) = match dim {
        "2d" => ("2D", 2),
        "2d_array" => ("ARRAY_2D", 3),
        "cube" => ("CUBE", 3),
        _ => ("ARRAY_CUBE", 4),
    };
    let comp = ["R", "G", "B", "A"][rng.gen_range(0..4)];
    let compare = format.is_depth() && rng.gen_bool(0.5);
    let aoffi = !dim.starts_with("cube") && !compare && rng.gen_bool(0.5);
    let mods = format!(
        "{comp}{}{}",
        if aoffi { ".AOFFI" } else { "" },
        if compare { ".DC" } else { "" }
    );
    let insn = if aoffi || compare {
        format!("TLD4.{mods} R10, R8, R20, R30, UR4, {insn_dim} ;")
    } else {
        format!("TLD4.{mods} R10, R8, R20, UR4, {insn_dim} ;")
    };
    let mut lanes = Vec::new();
    for lane in 0..32 {
        let mut e = format!("{{\"lanes\": \"{lane}\"");
        let mut r = 20;
        if dim.ends_with("array") {
            e.push_str(&format!(", \"R{r}\": {}", rng.gen_range(0..5)));
            r += 1;
        }
        for _ in 0..(coords - dim.ends_with("array") as usize) {
            e.push_str(&format!(", \"R{r}\": {:?}", rng.gen_range(-0.6f32..1.6)));
            r += 1;
        }
        if aoffi {
            e.push_str(&format!(", \"R30\": {}", rng.gen_range(0..0x4000u32)));
        }
        if compare {
            e.push_str(&format!(", \"R30\": {:?}", rng.gen_range(0.0f32..1.0)));
        }
        e.push('}');
        lanes.push(e);
    }
    let sampler = format!(
        "{{\"address_u\": \"{}\", \"address_v\": \"{}\", \"border\": {{\"words\": [{}, {}, {}, {}]}}{}, \"seamless_cube\": {}}}",
        modes[rng.gen_range(0..5)],
        modes[rng.gen_range(0..5)],
        rng.gen::<u32>(),
        rng.gen::<u32>(),
        rng.gen::<u32>(),
        rng.gen::<u32>(),
        if compare { ", \"compare\": \"less_or_equal\"" } else { "" },
        rng.gen_bool(0.7),
    );
    format!(
        r#"{{"textures": [{{"dim": "{dim}", "format": "{}", "width": {w}, "height": {h}, "layers": {layers}, "generate": {{"pattern": "random", "seed": {}}}}}],
  "samplers": [{sampler}],
  "handles": {{"t": {{"texture": 0, "sampler": 0}}}},
  "instruction": "{insn}", "uniform": {{"UR4": "t"}},
  "lanes": [{}]}}"#,
        format.name(),
        rng.gen::<u32>(),
        lanes.join(", ")
    )
}

#[test]
fn converted_scenarios_run_as_the_owned_ones_in_every_format_kind_and_layout() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x6d656d);
    let (mut same, mut refused, mut gathered) = (0, 0, 0);
    for format in Format::ALL {
        for dim in ["2d", "2d_array", "cube", "cube_array"] {
            let text = random_scenario(&mut rng, format, dim);
            let owned = load(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let want = comparable(&run(&owned));
            gathered += want.iter().all(|l| !l.starts_with("fault")) as usize;
            for layout in [PITCH, BLOCK_LINEAR] {
                let small = format.texel_bytes() < 4;
                let pitch_3d = matches!(layout, LayoutChoice::Pitch { .. }) && dim != "2d";
                match owned.to_memory_form(layout, 0x7_0000) {
                    Ok(m) => {
                        assert!(
                            !(pitch_3d || (small && layout == BLOCK_LINEAR)),
                            "{format:?} {dim} {layout:?} converted"
                        );
                        assert_eq!(
                            comparable(&run(&m)),
                            want,
                            "{format:?} {dim} {layout:?}\n{text}"
                        );
                        same += 1;
                    }
                    Err(e) => {
                        // only what the memory form cannot express, named
                        assert_eq!(e.path, "textures[0]", "{e}");
                        if pitch_3d {
                            assert!(e.message.contains("no pitch-linear form"), "{e}");
                        } else {
                            assert!(
                                small && layout == BLOCK_LINEAR,
                                "{format:?} {dim} {layout:?}: {e}"
                            );
                            assert!(e.message.contains("not modeled"), "{e}");
                        }
                        refused += 1;
                    }
                }
            }
        }
    }
    assert!(
        same > 150 && refused > 0,
        "{same} converted, {refused} refused"
    );
    // most scenarios gather (a fault would compare only its kind)
    assert!(
        gathered > 120,
        "{gathered} of {} gathered",
        Format::ALL.len() * 4
    );
}

#[test]
fn the_json_form_keeps_every_other_key_as_written() {
    let text = to_memory_json(OWNED, Path::new(""), PITCH, 0x10000).unwrap();
    for key in [
        "\"memory\"",
        "\"texture_header_pool\": \"0x10000\"",
        "\"sampler_pool\": \"0x10200\"",
    ] {
        assert!(text.contains(key), "{key} in {text}");
    }
    assert!(
        !text.contains("\"textures\"") && !text.contains("\"samplers\""),
        "{text}"
    );
    // the expectations and registers as written, in the file's order
    for kept in [
        "{\"lanes\": \"16-31\", \"R24\": \"0x0000003f\"}",
        "\"R11\": 0.039215688}",
        "\"tolerance\": {\"ulps\": 1}",
    ] {
        assert!(text.contains(kept), "{kept} in {text}");
    }
    let handles = text.find("\"handles\"").unwrap();
    assert!(
        text.find("\"memory\"").unwrap() < handles && handles < text.find("\"expect\"").unwrap()
    );
    let converted = load(&text).unwrap();
    let outcome = run(&converted);
    assert_eq!(
        (outcome.passed, outcome.failed),
        (32, 0),
        "{:?}",
        outcome.lines
    );
    assert_eq!(outcome.lines, run(&load(OWNED).unwrap()).lines);
    // a memory-form file is not converted again; residency has no memory form
    let e = to_memory_json(&text, Path::new(""), PITCH, 0x10000).unwrap_err();
    assert!(e.message.contains("already in memory form"), "{e}");
    let sparse = OWNED.replacen(
        "255, 205, 195, 255]}",
        "255, 205, 195, 255], \"residency\": {\"tile_width\": 1, \"tile_height\": 1, \"non_resident\": [[0, 1, 1]]}}",
        1,
    );
    let e = to_memory_json(&sparse, Path::new(""), BLOCK_LINEAR, 0x10000).unwrap_err();
    assert_eq!(e.path, "textures[0]", "{e}");
    assert!(e.message.contains("residency"), "{e}");
    // the base address: an image past 2^64 is refused
    let e = to_memory_json(OWNED, Path::new(""), PITCH, u64::MAX - 64).unwrap_err();
    assert!(e.message.contains("64-bit address space"), "{e}");
}

/// `tld4 run --addresses` prints what the executor recorded, the coordinates read back
/// through the header's layout: for random scenarios of every kind in block-linear memory,
/// every texel line names the texel the per-lane composition finds on the owned texture
/// (`SiteGatherer::sites`), borders and corners included.
#[test]
fn address_lines_name_the_texels_of_the_owned_footprint() {
    use tld4_emu::gather_op;
    use tld4_textures::{Handle, Site, SiteGatherer};
    let mut rng = ChaCha8Rng::seed_from_u64(0x616464);
    let mut texels = 0;
    for dim in ["2d", "2d_array", "cube", "cube_array"] {
        for _ in 0..6 {
            let text = random_scenario(&mut rng, Format::Rgba16Float, dim);
            let owned = load(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let Ok(mem) = owned.to_memory_form(BLOCK_LINEAR, 0x9_0000) else {
                continue;
            };
            let lines = address_lines(&mem).unwrap();
            let Ok(run) = owned.execute() else { continue };
            let op = gather_op(&owned.insn).unwrap();
            let pool = owned.pool().unwrap();
            let names = ["x (i0,j1)", "y (i1,j1)", "z (i1,j0)", "w (i0,j0)"];
            for lane in (0..32).filter(|&l| run.executed(l)) {
                let h = Handle(owned.exec.lane_handle(&owned.warp, lane));
                let (tex, smp) = pool.resolve(h).unwrap();
                let g = SiteGatherer::new(tex, smp, &op, owned.exec.config().precision).unwrap();
                let sites = g.sites(&owned.exec.lane_query(&owned.warp, lane));
                for (k, site) in sites.iter().enumerate() {
                    let prefix = format!("addr lane {lane} {}: ", names[k]);
                    let line = lines
                        .iter()
                        .find(|l| l.starts_with(&prefix))
                        .unwrap_or_else(|| panic!("no {prefix} in {lines:#?}"));
                    let what = &line[prefix.len()..];
                    match *site {
                        Site::Texel { layer, x, y } => {
                            let want = format!("texel ({x}, {y}) layer {layer}");
                            assert!(what.starts_with(&want), "{what} vs {want}\n{text}");
                            texels += 1;
                        }
                        Site::Border => assert_eq!(what, "border colour, no memory read"),
                        Site::Corner => assert_eq!(what, "cube corner, no memory read"),
                    }
                }
            }
        }
    }
    assert!(texels > 1000, "{texels}");
}

/// An owned scenario with unnormalized coordinates
/// (docs/sources.md, Unnormalized coordinates), its values worked out by hand: texel (x, y) of the 5 x 3 texture holds
/// 10 y + x; lanes 0-15 at (2.5, 1.5) texels: i0 = floor(2.5 - 0.5) = 2, j0 = 1, so (i0, j1),
/// (i1, j1), (i1, j0), (i0, j0) = 22, 23, 13, 12; lanes 16-31 at (1.0, 2.0): i0 = 0, j0 = 1:
/// 20, 21, 11, 10. Its memory form (both layouts) runs the same; the same sampler normalized
/// reads other texels.
#[test]
fn unnormalized_scenarios_run_by_hand_owned_and_in_memory() {
    let text = |normalized: bool| {
        format!(
            r#"{{"textures": [{{"dim": "2d", "format": "r32_uint", "width": 5, "height": 3,
  "texels": [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24]}}],
  "samplers": [{{"address_u": "clamp_to_edge", "address_v": "clamp_to_border", "normalized_coords": {normalized}}}],
  "handles": {{"t": {{"texture": 0, "sampler": 0}}}},
  "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;", "uniform": {{"UR4": "t"}},
  "lanes": [{{"lanes": "all", "R20": 2.5, "R21": 1.5}}, {{"lanes": "16-31", "R20": 1.0, "R21": 2.0}}],
  "expect": {{"lanes": [{{"lanes": "0-15", "R8": 22, "R9": 23, "R10": 13, "R11": 12}},
    {{"lanes": "16-31", "R8": 20, "R9": 21, "R10": 11, "R11": 10}}]}}}}"#
        )
    };
    let owned = load(&text(false)).unwrap();
    let outcome = run(&owned);
    assert_eq!(
        (outcome.passed, outcome.failed),
        (32, 0),
        "{:?}",
        outcome.lines
    );
    for layout in [PITCH, BLOCK_LINEAR] {
        let m = owned.to_memory_form(layout, 0x7_0000).unwrap();
        assert_eq!(comparable(&run(&m)), comparable(&outcome), "{layout:?}");
    }
    let normalized = run(&load(&text(true)).unwrap());
    assert_eq!(normalized.passed, 0, "{:?}", normalized.lines);
}
