//! `tld4 disasm --arch` and `tld4 asm --arch` against the per-family golden corpora of
//! nvdisasm (`tests/golden/nvdisasm_arch_sm_80.tsv` and its siblings, one a family): the TLD4 lines print as nvdisasm
//! printed them, the refused words are refused, the text assembles back to words that print
//! the same, and `--binary` reads raw words as `nvdisasm -b SMxx` does.

mod common;
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
