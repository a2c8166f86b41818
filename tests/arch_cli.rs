//! `tld4 disasm --arch` and `tld4 asm --arch` against the per-family golden corpora of
//! nvdisasm (`tests/golden/nvdisasm_arch_sm_80.tsv` and its siblings, one a family): the TLD4 lines print as nvdisasm
//! printed them, the refused words are refused, the text assembles back to words that print
//! the same, and `--binary` reads raw words as `nvdisasm -b SMxx` does.

use crate::common;
use common::{text, tld4_stdin};

const CORPORA: [(&str, &str); 4] = [
    ("sm_75", include_str!("golden/nvdisasm_arch_sm_75.tsv")),
    ("sm_90", include_str!("golden/nvdisasm_arch_sm_80.tsv")),
    ("sm_107f", include_str!("golden/nvdisasm_arch_sm_107.tsv")),
    ("sm_121a", include_str!("golden/nvdisasm_arch_sm_120.tsv")),
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The corpus's (word, nvdisasm's verdict) pairs, one in `step`.
fn sample(corpus: &str, step: usize) -> Vec<(&str, &str)> {
    corpus
        .lines()
        .filter(|l| !l.starts_with('#'))
        .step_by(step)
        .filter_map(|l| l.split_once('\t'))
        .collect()
}

fn is_tld4(v: &str) -> bool {
    !v.starts_with("error: ") && !v.starts_with("other: ")
}

/// Whether the family models the word's form: every TLD4 form of every family is modeled
/// now (the pre-SM100 forms 0x364, 0xb63 and 0xb65 included).
fn modeled(_arch: &str, _word: &str) -> bool {
    true
}

#[test]
fn disasm_arch_prints_each_familys_words_as_its_nvdisasm() {
    for (arch, corpus) in CORPORA {
        let words = sample(corpus, 7);
        let input: String = words.iter().map(|(w, _)| format!("{w}\n")).collect();
        let out = tld4_stdin(&["disasm", "--arch", arch], &input);
        let stdout = text(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), words.len(), "{arch}: one line a word");
        let mut tld4 = 0;
        for ((w, v), line) in words.iter().zip(&lines) {
            if is_tld4(v) && modeled(arch, w) {
                tld4 += 1;
                assert_eq!(collapse(line), *v, "{arch} {w}");
            } else {
                assert!(
                    line.starts_with(&format!("error: {w}: ")),
                    "{arch} {w}: {line}"
                );
                if is_tld4(v) {
                    assert!(line.contains("does not model"), "{arch} {w}: {line}");
                }
            }
        }
        assert_eq!(out.status.code(), Some(2), "{arch}: some words are refused");
        if arch != "sm_107f" {
            assert!(tld4 > 50, "{arch}: {tld4} TLD4 lines checked");
        }
    }
}

#[test]
fn asm_arch_round_trips_nvdisasm_text() {
    for (arch, corpus) in CORPORA.into_iter().filter(|(a, _)| *a != "sm_107f") {
        let tld4: Vec<(&str, &str)> = sample(corpus, 3)
            .into_iter()
            .filter(|(w, v)| is_tld4(v) && modeled(arch, w))
            .collect();
        let input: String = tld4.iter().map(|(_, v)| format!("{v}\n")).collect();
        let out = tld4_stdin(&["asm", "--arch", arch], &input);
        assert_eq!(out.status.code(), Some(0), "{arch}: {}", text(&out.stderr));
        let words = text(&out.stdout);
        let back = tld4_stdin(&["disasm", "--arch", arch], &words);
        assert_eq!(
            back.status.code(),
            Some(0),
            "{arch}: {}",
            text(&back.stdout)
        );
        for ((_, v), line) in tld4.iter().zip(text(&back.stdout).lines()) {
            assert_eq!(collapse(line), *v, "{arch}");
        }
    }
    // SM100's text is not SM90's: the immediate after URc is required there.
    let out = tld4_stdin(
        &["asm", "--arch", "sm_90"],
        "TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;\n",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn binary_input_with_arch_reads_raw_words() {
    let dir = std::env::temp_dir().join(format!("tld4-arch-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("words.bin");
    let word: u128 = 0x00000000_081e9f0a_20ff0418_14087f63;
    let mut bytes = (word as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(&((word >> 64) as u64).to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let path = file.to_str().unwrap();
    // The word of docs/sources.md, TLD4 on every architecture, as each family prints it.
    for (arch, want) in [
        (
            "SM90",
            "TLD4.R.F16.RN.AOFFI R10, R8, R20, R24, UR4, 0xfc, 2D ;",
        ),
        ("sm_100", "TLD4.R.F16.RN.AOFFI R10, R8, R20, R24, UR4, 2D ;"),
        (
            "sm_120f",
            "TLD4.R.F16.RN.AOFFI R10, R8, R20, R24, UR4, 2D ;",
        ),
    ] {
        let out = tld4_stdin(&["disasm", "--arch", arch, "--binary", path], "");
        assert_eq!(text(&out.stdout).trim(), want, "{arch}");
    }
    let out = tld4_stdin(&["disasm", "--arch", "sm_70", "--binary", path], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown architecture `sm_70`"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tld4 explain --arch` reads the architecture's text: SM90's constant-bank form is named
/// with its word and form, then explained as the base table reads it; with a scenario it is
/// refused (its handle is in constant memory).
#[test]
fn explain_takes_the_architecture() {
    let t = "TLD4.G.AOFFI R10, R8, R20, R24, 0x3, 0x10, 2D ;";
    let out = common::tld4(&["explain", "--arch", "sm_90", t]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    assert!(o.starts_with(&format!("sm_90: {t} (word ")), "{o}");
    assert!(o.contains("form 0xb63"), "{o}");
    // The same text is no SM100 TLD4.
    let out = common::tld4(&["explain", t]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let out = common::tld4(&["explain", "--arch", "sm_70", t]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("sm_70"));
}

/// `tld4 run` runs scenarios naming `arch` (the library's `load_arch`): the committed
/// constant-bank scenario gathers as the SM100 uniform form of the same texture, names the
/// architecture's GPU class, and textures in memory are read in that class's header layout
/// (docs/sources.md, Descriptors per GPU class); `--addresses` lists the texels its executor
/// read.
#[test]
fn run_executes_arch_scenarios() {
    use serde_json::{json, Value};
    use tld4_gpu_memory::{ClassDescriptors, GpuClass};
    let dir = std::env::temp_dir().join(format!("tld4-arch-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let committed = format!("{root}/scenario/tests/arch/constant_bank_sm90.json");
    let run = |path: &str, extra: &[&str]| {
        let mut args = vec!["run", path];
        args.extend_from_slice(extra);
        common::tld4(&args)
    };
    let lanes = |o: &str| -> Vec<String> {
        o.lines()
            .filter(|l| l.starts_with("lane "))
            .map(str::to_string)
            .collect()
    };
    let out = run(&committed, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    let head: Vec<&str> = o.lines().take(2).collect();
    assert_eq!(
        head,
        [
            "instruction (sm_90): TLD4.G.AOFFI R10, R8, R20, R24, 0x3, 0x10, 2D ;  (00000000009e1f0a20c0101814087b63)",
            "GPU class: HOPPER_A (clcb97tex.h, texture headers V2)",
        ]
    );
    // The same texture and coordinates, SM100's uniform form, through the plain reader.
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&committed).unwrap()).unwrap();
    let mut plain = doc.clone();
    let p = plain.as_object_mut().unwrap();
    p.remove("arch");
    p.remove("constants");
    p.insert(
        "instruction".into(),
        json!("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;"),
    );
    p.insert("uniform".into(), json!({"UR4": "albedo"}));
    let plain_path = dir.join("plain.json");
    std::fs::write(&plain_path, plain.to_string()).unwrap();
    let want = run(plain_path.to_str().unwrap(), &[]);
    assert!(want.status.success(), "{}", text(&want.stderr));
    let got = lanes(&o);
    assert_eq!(got.len(), 32);
    assert_eq!(got, lanes(&text(&want.stdout)));
    assert_ne!(got[0]["lane  0:".len()..], got[16]["lane 16:".len()..]);
    // Without its constants the warp faults with no_constant.
    let mut bare = doc.clone();
    bare.as_object_mut().unwrap().remove("constants");
    let bare_path = dir.join("bare.json");
    std::fs::write(&bare_path, bare.to_string()).unwrap();
    let o = text(&run(bare_path.to_str().unwrap(), &[]).stdout);
    assert!(
        o.contains("fault (no_constant): no constant at c[0x3][0x40]"),
        "{o}"
    );
    // --addresses through the architecture's executor: the constant-bank handle's texels,
    // where the SM100 uniform form of the same texture reads them.
    let addr = |o: &str| -> Vec<String> {
        o.lines()
            .filter(|l| l.starts_with("addr") && !l.starts_with("addresses of"))
            .map(str::to_string)
            .collect()
    };
    let out = run(&committed, &["--addresses"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    assert!(
        o.contains("(headers in BLACKWELL_A's layout, read so)"),
        "{o}"
    );
    let got = addr(&o);
    assert_eq!(got.len(), 1 + 32 * 5, "{o}");
    assert_eq!(
        got,
        addr(&text(
            &run(plain_path.to_str().unwrap(), &["--addresses"]).stdout
        ))
    );
    assert_eq!(lanes(&o), lanes(&text(&want.stdout)));
    let o = text(&run(bare_path.to_str().unwrap(), &["--addresses"]).stdout);
    assert!(
        o.contains("addr none: the warp faults (no_constant): no constant at c[0x3][0x40]"),
        "{o}"
    );

    // Textures in memory: the committed pitch example (a V2 header, expectations included),
    // run as sm_89 (ADA_A reads V1 headers) with its header rewritten in the V1 layout.
    let example = format!("{root}/examples/scenarios/memory_pitch_rgba8.json");
    let mut mem: Value = serde_json::from_str(&std::fs::read_to_string(&example).unwrap()).unwrap();
    mem["arch"] = json!("sm_89");
    mem["instruction"] = json!("TLD4.R R10, R8, R20, UR4, 0x0, 2D ;");
    let v2_path = dir.join("ada_v2_header.json");
    std::fs::write(&v2_path, mem.to_string()).unwrap();
    let region = mem["memory"]
        .as_array()
        .unwrap()
        .iter()
        .position(|r| r["address"] == mem["texture_header_pool"])
        .unwrap();
    let hex = mem["memory"][region]["hex"].as_str().unwrap().to_string();
    let bytes: Vec<u8> = hex
        .split_whitespace()
        .flat_map(|g| {
            (0..g.len())
                .step_by(2)
                .map(move |i| u8::from_str_radix(&g[i..i + 2], 16).unwrap())
        })
        .collect();
    let words: [u32; 8] =
        std::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()));
    let header = ClassDescriptors::default().decode_tic(&words).unwrap();
    let v1 = ClassDescriptors::new(GpuClass::AdaA)
        .encode_tic(&header)
        .unwrap();
    assert_ne!(v1, words);
    let v1_hex: Vec<String> = v1
        .iter()
        .map(|w| w.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect())
        .collect();
    mem["memory"][region]["hex"] = json!(v1_hex.join(" "));
    let v1_path = dir.join("ada_v1_header.json");
    std::fs::write(&v1_path, mem.to_string()).unwrap();
    let out = run(v1_path.to_str().unwrap(), &[]);
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}{}", text(&out.stderr));
    assert!(
        o.contains("GPU class: ADA_A (clc997tex.h, texture headers V1)"),
        "{o}"
    );
    assert!(o.contains("32 passed, 0 failed"), "{o}");
    // Its addresses: the V1 header read in ADA_A's layout names the texels the SM100
    // example's V2 header names.
    let o = text(&run(v1_path.to_str().unwrap(), &["--addresses"]).stdout);
    let base = text(&run(&example, &["--addresses"]).stdout);
    assert!(addr(&o).len() > 32, "{o}");
    assert!(o.contains("at 0x"), "{o}");
    assert_eq!(addr(&o), addr(&base));
    // The V2 header read as ADA_A's is no texture: a fault, and the expectations fail.
    let out = run(v2_path.to_str().unwrap(), &[]);
    let o = text(&out.stdout);
    assert!(!out.status.success());
    assert!(o.contains("fault ("), "{o}");
    // sm_88 names no class: its textures in memory cannot be read.
    mem["arch"] = json!("sm_88");
    let p88 = dir.join("sm88.json");
    std::fs::write(&p88, mem.to_string()).unwrap();
    let out = run(p88.to_str().unwrap(), &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no 3-D class is known for sm_88"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
