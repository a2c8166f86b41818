//! Scenarios with textures in GPU memory on the command line: `tld4 to-memory` turns every
//! committed scenario into its memory form, in both layouts, and `tld4 run` gives the same
//! results for both; `tld4 run --addresses` prints the texel addresses; `tld4 explain` shows
//! the descriptors and texel addresses; bad input is an error naming its place.

use std::path::{Path, PathBuf};

use crate::common;
use common::{text, tld4};

/// A fresh directory per call (tests run in parallel).
fn scratch() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tld4-memscen-cli-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const EXAMPLE: &str = "examples/scenarios/memory_pitch_rgba8.json";

/// Every committed scenario file, with whether it is valid: examples/scenarios, the explain
/// example, and the fuzzer's scenario seeds (its manifest gives each seed's verdict).
fn committed_scenarios() -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    for dir in ["examples/scenarios"] {
        for e in std::fs::read_dir(Path::new(ROOT).join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json") {
                out.push((p, true));
            }
        }
    }
    out.push((Path::new(ROOT).join("docs/explain-example.json"), true));
    let manifest =
        std::fs::read_to_string(Path::new(ROOT).join("fuzz/corpus/manifest.tsv")).unwrap();
    for line in manifest.lines() {
        let mut cols = line.split('\t');
        let (Some(file), Some(verdict)) = (cols.next(), cols.next()) else {
            continue;
        };
        if file.starts_with("scenario/") {
            out.push((
                Path::new(ROOT).join("fuzz/corpus").join(file),
                verdict == "accept",
            ));
        }
    }
    out.sort();
    out
}

/// `tld4 run`'s output with a fault line cut to its kind (messages name pools or addresses).
fn comparable(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|l| match l.strip_prefix("fault (") {
            Some(rest) => format!("fault ({}", &rest[..rest.find(')').unwrap_or(0)]),
            None => l.to_string(),
        })
        .collect()
}

#[test]
fn every_committed_scenario_runs_the_same_in_its_memory_form_in_both_layouts() {
    let files = committed_scenarios();
    assert!(files.len() >= 30, "{} scenario files", files.len());
    let (mut converted, mut refused_input, mut no_form, mut already) = (0, 0, 0, 0);
    for (path, valid) in &files {
        let p = path.to_str().unwrap();
        let original = tld4(&["run", p]);
        let dir = scratch();
        for layout in ["pitch", "block-linear"] {
            let conv = tld4(&["to-memory", "--layout", layout, "--base", "0x40000", p]);
            if !valid {
                // invalid input stays invalid, with the same error, and nothing is printed
                assert_eq!(original.status.code(), Some(2), "{p}");
                assert_eq!(conv.status.code(), Some(2), "{p} {layout}");
                assert!(conv.stdout.is_empty(), "{p}");
                assert_eq!(text(&conv.stderr), text(&original.stderr), "{p} {layout}");
                refused_input += 1;
                continue;
            }
            let in_memory = std::fs::read_to_string(path)
                .unwrap()
                .contains("\"texture_header_pool\"");
            if in_memory {
                // a memory-form file is its own memory form: refused, and it runs
                assert!(text(&conv.stderr).contains("already in memory form"), "{p}");
                assert!(original.status.success(), "{p}");
                already += 1;
                continue;
            }
            if conv.status.code() == Some(2) {
                // only what the memory form cannot express, named
                let e = text(&conv.stderr);
                assert!(
                    e.contains("textures[") && e.contains("no "),
                    "{p} {layout}: {e}"
                );
                no_form += 1;
                continue;
            }
            assert!(
                conv.status.success(),
                "{p} {layout}: {}",
                text(&conv.stderr)
            );
            let mem = dir.join(format!("{layout}.json"));
            std::fs::write(&mem, &conv.stdout).unwrap();
            let run = tld4(&["run", mem.to_str().unwrap()]);
            assert_eq!(run.status.code(), original.status.code(), "{p} {layout}");
            assert_eq!(
                comparable(&text(&run.stdout)),
                comparable(&text(&original.stdout)),
                "{p} {layout}"
            );
            assert!(text(&conv.stdout).contains("\"texture_header_pool\": \"0x40000\""));
            converted += 1;
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    // every valid file converted in at least one layout; each file got a verdict
    let valid = files.iter().filter(|f| f.1).count();
    assert!(
        converted >= valid - already / 2,
        "{converted} conversions of {valid} valid files"
    );
    assert!(already >= 2, "the memory-form example is among the files");
    assert_eq!(
        converted + refused_input + no_form + already,
        2 * files.len()
    );
}

#[test]
fn the_example_passes_and_prints_its_texel_addresses() {
    let out = tld4(&["run", "--addresses", &format!("{ROOT}/{EXAMPLE}")]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{s}");
    assert!(s.contains("32 passed, 0 failed"), "{s}");
    // pitch-linear, pitch 32, texels at 0x2000: (x, y) at 0x2000 + 32 y + 4 x
    for line in [
        "addr lane 0 x (i0,j1): texel (0, 1) layer 0 at 0x2020 (4 bytes), sector 0x2020",
        "addr lane 0 y (i1,j1): texel (1, 1) layer 0 at 0x2024 (4 bytes), sector 0x2020",
        "addr lane 0 z (i1,j0): texel (1, 0) layer 0 at 0x2004 (4 bytes), sector 0x2000",
        "addr lane 0 w (i0,j0): texel (0, 0) layer 0 at 0x2000 (4 bytes), sector 0x2000",
        "addr lane 0 sectors: 0x2020 0x2000",
        "addr lane 31 y (i1,j1): texel (0, 1) layer 0 at 0x2020 (4 bytes), sector 0x2020",
    ] {
        assert!(s.lines().any(|l| l == line), "missing {line} in {s}");
    }
    assert_eq!(
        s.lines().filter(|l| l.starts_with("addr lane ")).count(),
        32 * 5
    );
    // the lane lines come first, unchanged
    let plain = text(&tld4(&["run", &format!("{ROOT}/{EXAMPLE}")]).stdout);
    assert!(s.starts_with(&plain), "{s}");
}

#[test]
fn owned_scenarios_print_the_addresses_of_their_memory_form() {
    let p = format!("{ROOT}/examples/scenarios/gather_green.json");
    let out = tld4(&[
        "run",
        "--addresses",
        "--layout",
        "pitch",
        "--base",
        "0x100000",
        &p,
    ]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{s}");
    assert!(
        s.contains("owned textures laid out pitch from 0x100000"),
        "{s}"
    );
    // header pool 0x100000 (1 header), sampler pool at the next 512 bytes, texels at the next
    // 4 KiB: 0x101000; pitch 32 (2 RGBA8 texels padded to 32 bytes)
    assert!(
        s.contains("texture header pool 0x100000, sampler pool 0x100200"),
        "{s}"
    );
    assert!(s.lines().any(|l| l == "addr lane 0 x (i0,j1): texel (0, 1) layer 0 at 0x101020 (4 bytes), sector 0x101020"), "{s}");
    // lanes 16-31: AOFFI (-1, 0) from i0 = 0 puts i = -1 on the clamped edge column 0
    assert!(s.lines().any(|l| l == "addr lane 16 x (i0,j1): texel (0, 1) layer 0 at 0x101020 (4 bytes), sector 0x101020"), "{s}");
    for bad in [["--layout", "tiled"], ["--base", "4096"]] {
        let out = tld4(&["run", "--addresses", bad[0], bad[1], &p]);
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains(bad[0]), "{}", text(&out.stderr));
    }
}

#[test]
fn to_memory_refuses_what_it_cannot_convert() {
    let out = tld4(&["to-memory", &format!("{ROOT}/{EXAMPLE}")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("already in memory form"),
        "{}",
        text(&out.stderr)
    );
    let dir = scratch();
    let array = dir.join("array.json");
    std::fs::write(&array, r#"{"textures": [{"dim": "2d_array", "format": "rgba8_unorm", "width": 2, "height": 2, "layers": 2, "generate": {"pattern": "gradient"}}],
      "samplers": [{"address_u": "repeat", "address_v": "repeat"}], "instruction": "TLD4.R R10, R8, R20, UR4, ARRAY_2D ;"}"#).unwrap();
    let out = tld4(&["to-memory", "--layout", "pitch", array.to_str().unwrap()]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("textures[0]") && e.contains("2d_array texture has no pitch-linear form"),
        "{e}"
    );
    let out = tld4(&["to-memory", array.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memory_faults_name_the_lane_and_handle_in_run() {
    let dir = scratch();
    let example = std::fs::read_to_string(format!("{ROOT}/{EXAMPLE}")).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        example.replacen("\"texture\": 0", "\"texture\": 9", 1),
    )
    .unwrap();
    let out = tld4(&["run", bad.to_str().unwrap()]);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{s}");
    assert!(s.contains("fault (unknown_texture_header): lane 0: handle 0x00000009: reading the texture header: 32 byte(s) at 0x1120: not mapped"), "{s}");
    let out = tld4(&["run", "--addresses", bad.to_str().unwrap()]);
    assert!(text(&out.stdout).contains("addr none: the warp faults (unknown_texture_header)"));
    // bad hex names the region and the character
    std::fs::write(
        &bad,
        example.replacen("\"hex\": \"102030ff", "\"hex\": \"1020z0ff", 1),
    )
    .unwrap();
    let out = tld4(&["run", bad.to_str().unwrap()]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("memory[2].hex: character 4 (`z`)"), "{e}");
    // a file region is read relative to the scenario's directory
    std::fs::write(
        dir.join("texels.bin"),
        [0x10u8, 0x20, 0x30, 0xff, 0x40, 0x50, 0x60, 0xff]
            .iter()
            .chain([0u8; 24].iter())
            .chain([0x70u8, 0x80, 0x90, 0xff, 0xa0, 0xb0, 0xc0, 0xff].iter())
            .copied()
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let hex = "\"hex\": \"102030ff 405060ff 00000000 00000000 00000000 00000000 00000000 00000000 708090ff a0b0c0ff\"";
    assert!(example.contains(hex));
    std::fs::write(&bad, example.replacen(hex, "\"file\": \"texels.bin\"", 1)).unwrap();
    let out = tld4(&["run", bad.to_str().unwrap()]);
    assert!(
        text(&out.stdout).contains("32 passed, 0 failed"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_file(dir.join("texels.bin")).unwrap();
    let out = tld4(&["run", bad.to_str().unwrap()]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("memory[2].file: cannot read `texels.bin`"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explain_shows_the_descriptors_and_texel_addresses() {
    let out = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, UR4, 2D",
        "--scenario",
        &format!("{ROOT}/{EXAMPLE}"),
        "--lane",
        "16",
    ]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{s}{}", text(&out.stderr));
    for want in [
        "texture header 0 at 0x1000 (TEXHEAD_V2_PITCH; words 0x00002000 0x00000000 0x00000001 0x20080b1a 0x10420001 0x00000001 0x00000000 0x00000000):",
        "ADDRESS_BITS31TO5",
        "PITCH_BITS21TO5",
        "HEADER_VERSION",
        "sampler 0 at 0x1200 (TEXSAMP;",
        "ADDRESS_V",
        "texels: pitch-linear, row y at y * 32 bytes; texel (0, 0) at 0x2000, 4 bytes a texel",
        "    x (i0,j1): texel (1, 1) layer 0 at 0x2024 (4 bytes), sector 0x2020",
        "    y (i1,j1): texel (0, 1) layer 0 at 0x2020 (4 bytes), sector 0x2020",
        "    z (i1,j0): texel (0, 0) layer 0 at 0x2000 (4 bytes), sector 0x2000",
        "    w (i0,j0): texel (1, 0) layer 0 at 0x2004 (4 bytes), sector 0x2000",
        "check: the emulator (tld4 run) writes the same values in lane 16",
    ] {
        assert!(s.contains(want), "missing {want} in {s}");
    }
    // fields that are 0 are not listed (ADDRESS_U is WRAP, 0)
    assert!(!s.contains("    ADDRESS_U "), "{s}");
    // a picture of the texture read out of memory
    let dir = scratch();
    let svg = dir.join("m.svg");
    let out = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, UR4, 2D",
        "--scenario",
        &format!("{ROOT}/{EXAMPLE}"),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    // a header in unmapped memory is explained, not a panic
    let example = std::fs::read_to_string(format!("{ROOT}/{EXAMPLE}")).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        example.replacen("\"texture\": 0", "\"texture\": 2", 1),
    )
    .unwrap();
    let out = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, UR4, 2D",
        "--scenario",
        bad.to_str().unwrap(),
    ]);
    let s = text(&out.stdout);
    assert!(
        s.contains("texture header 2 at 0x1040 cannot be read"),
        "{s}"
    );
    assert!(
        s.contains("fault: lane 0: handle 0x00000002: reading the texture header"),
        "{s}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `hex` of a memory region: the little-endian bytes of each word, a word a group.
fn hex_words(words: &[u32]) -> String {
    let w: Vec<String> = words
        .iter()
        .map(|w| w.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    w.join(" ")
}

/// The example's header made 16384 x 16384 RGBA8 pitch-linear at 0x1_0000_0000 (1 GiB of
/// texels), with `mapped` regions of texels (address, words) beside its pools.
fn huge_texture_scenario(mapped: &[(u64, [u32; 2])]) -> String {
    use tld4_gpu_memory::{HeaderLayout, TextureHeader};
    let example = std::fs::read_to_string(format!("{ROOT}/{EXAMPLE}")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&example).unwrap();
    let words = |hex: &str| -> [u32; 8] {
        let w: Vec<u32> = hex
            .split(' ')
            .map(|g| u32::from_le_bytes(u32::from_str_radix(g, 16).unwrap().to_be_bytes()))
            .collect();
        w.try_into().unwrap()
    };
    let mut header =
        TextureHeader::decode(&words(v["memory"][0]["hex"].as_str().unwrap())).unwrap();
    header.width = 16384;
    header.height = 16384;
    header.layout = HeaderLayout::Pitch { pitch: 65536 };
    header.address = 0x1_0000_0000;
    let tic = header.encode().unwrap();
    let mut memory = vec![
        serde_json::json!({"address": "0x1000", "hex": hex_words(&tic)}),
        v["memory"][1].clone(),
    ];
    for (address, w) in mapped {
        memory.push(serde_json::json!({"address": format!("{address:#x}"), "hex": hex_words(w)}));
    }
    let texel = |r: u32| r as f32 / 255.0;
    serde_json::json!({
        "memory": memory,
        "texture_header_pool": "0x1000",
        "sampler_pool": "0x1200",
        "handles": {"tex": {"texture": 0, "sampler": 0}},
        "instruction": "TLD4.R R10, R8, R20, UR4, 2D ;",
        "uniform": {"UR4": "tex"},
        "lanes": [{"lanes": "all", "R20": 0.5, "R21": 0.5}],
        "expect": {
            "lanes": [{"lanes": "all", "R8": texel(0x30), "R9": texel(0x40), "R10": texel(0x20), "R11": texel(0x10)}],
            "tolerance": {"ulps": 1}
        }
    })
    .to_string()
}

/// A 1 GiB memory texture of which only the lane's footprint is mapped: `run` and `explain`
/// read only those four texels (nothing is copied out of memory, whatever the size), and
/// explain gives the footprint, the results and the check; with the footprint unmapped too,
/// both name the fault (nothing aborts).
#[test]
fn explain_reads_only_the_lanes_texels_of_a_huge_memory_texture() {
    let dir = scratch();
    // (0.5, 0.5) on 16384 x 16384: i0 = j0 = 8191; rows 8191 and 8192, texels 8191 and 8192
    let row = |y: u64| 0x1_0000_0000u64 + y * 65536 + 8191 * 4;
    let path = dir.join("huge.json");
    std::fs::write(
        &path,
        huge_texture_scenario(&[(row(8191), [0x10, 0x20]), (row(8192), [0x30, 0x40])]),
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let run = tld4(&["run", p]);
    assert!(
        run.status.success(),
        "{}{}",
        text(&run.stdout),
        text(&run.stderr)
    );
    let out = tld4(&["explain", "TLD4.R R10, R8, R20, UR4, 2D", "--scenario", p]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{s}{}", text(&out.stderr));
    for want in [
        "texture 0: 2d rgba8_unorm 16384x16384",
        "    x (i0,j1) = (8191, 8192): texel (8191, 8192), raw (48, 0, 0, 0)",
        "    w (i0,j0) = (8191, 8191): texel (8191, 8191), raw (16, 0, 0, 0)",
        "check: the emulator (tld4 run) writes the same values in lane 0",
    ] {
        assert!(s.contains(want), "missing {want} in {s}");
    }
    // nothing of the footprint mapped: a fault, named, and no abort
    std::fs::write(&path, huge_texture_scenario(&[])).unwrap();
    let run = tld4(&["run", p]);
    let out = tld4(&["explain", "TLD4.R R10, R8, R20, UR4, 2D", "--scenario", p]);
    let s = text(&out.stdout);
    assert!(
        text(&run.stdout).contains("reading the texel"),
        "{}",
        text(&run.stdout)
    );
    assert!(
        s.contains("fault: lane 0: handle 0x00000000: reading the texel"),
        "{s}"
    );
    assert_ne!(out.status.code(), None, "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}
