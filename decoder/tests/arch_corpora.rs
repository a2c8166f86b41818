//! Checks the per-architecture decoder offline against the per-family golden corpora of
//! nvdisasm's verdicts (`tests/golden/nvdisasm_arch_sm_80.tsv` and its siblings, one a family, written by
//! `oracles/nvdisasm/arches.py`; the header says how).
//!
//! For every word and every architecture of the family (the family's members print alike:
//! `tests/golden/nvdisasm_arches.txt`): a modeled form decodes exactly when nvdisasm printed a
//! TLD4, to nvdisasm's text (spaces collapsed); `encode(decode(w)) == w`; parsing nvdisasm's
//! text gives a word that prints that text; a form that is TLD4 but not modeled says so; every
//! other opcode is refused as not TLD4 on the architecture.

use tld4_decoder::{decode_arch, field, parse_arch, Arch, DecodeError, Family};

const CORPORA: [(Family, &str); 5] = [
    (
        Family::Sm75,
        include_str!("../../tests/golden/nvdisasm_arch_sm_75.tsv"),
    ),
    (
        Family::Sm80,
        include_str!("../../tests/golden/nvdisasm_arch_sm_80.tsv"),
    ),
    (
        Family::Sm100,
        include_str!("../../tests/golden/nvdisasm_arch_sm_100.tsv"),
    ),
    (
        Family::Sm107,
        include_str!("../../tests/golden/nvdisasm_arch_sm_107.tsv"),
    ),
    (
        Family::Sm120,
        include_str!("../../tests/golden/nvdisasm_arch_sm_120.tsv"),
    ),
];

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Counts of one family's check.
#[derive(Default, Debug)]
struct Counts {
    words: usize,
    tld4: usize,
    not_modeled: usize,
    refused: usize,
}

fn check(arch: Arch, corpus: &str) -> (Counts, Vec<String>) {
    let mut c = Counts::default();
    let mut fails = Vec::new();
    for (i, line) in corpus.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (hex, verdict) = line.split_once('\t').expect("a tab");
        let word = u128::from_str_radix(hex, 16).expect("32 hex digits");
        c.words += 1;
        let is_tld4 = !verdict.starts_with("error: ") && !verdict.starts_with("other: ");
        let mut fail = |m: String| fails.push(format!("{arch} line {}: {hex}: {m}", i + 1));
        match decode_arch(arch, word) {
            Ok(insn) => {
                if !is_tld4 {
                    fail(format!("decoded as `{insn}`, nvdisasm: {verdict}"));
                    continue;
                }
                c.tld4 += 1;
                let text = insn.text();
                if collapse(&text) != verdict {
                    fail(format!("text `{text}`, nvdisasm `{verdict}`"));
                }
                if insn.encode() != word {
                    fail(format!("encode gives {:032x}", insn.encode()));
                }
                match parse_arch(arch, verdict) {
                    Ok(p) => match p.try_encode() {
                        Ok(w) => match decode_arch(arch, w) {
                            Ok(back) if collapse(&back.text()) == verdict => {}
                            Ok(back) => fail(format!("parsed text re-prints as `{back}`")),
                            Err(e) => fail(format!("parsed word refused: {e}")),
                        },
                        Err(e) => fail(format!("parsed instruction does not encode: {e}")),
                    },
                    Err(e) => fail(format!("parse: {e}")),
                }
            }
            Err(DecodeError::FormNotModeled { opcode, .. }) => {
                c.not_modeled += 1;
                if opcode != field::form.get(word) as u16 {
                    fail("not-modeled error names another opcode".into());
                }
            }
            Err(e @ DecodeError::NotTld4OnArch { .. }) => {
                c.refused += 1;
                if is_tld4 {
                    fail(format!("refused ({e}), nvdisasm: {verdict}"));
                }
            }
            Err(e) => {
                c.refused += 1;
                if is_tld4 {
                    fail(format!("refused ({e}), nvdisasm: {verdict}"));
                }
            }
        }
    }
    (c, fails)
}

#[test]
fn every_architecture_agrees_with_its_familys_corpus() {
    let mut all = Vec::new();
    for (family, corpus) in CORPORA {
        for arch in family.archs() {
            let (c, fails) = check(arch, corpus);
            assert!(c.words >= 4096, "{arch}: the corpus holds every opcode");
            if family != Family::Sm107 {
                assert!(c.tld4 > 500, "{arch}: {c:?}");
            } else {
                assert_eq!(c.tld4 + c.not_modeled, 0, "{arch}: {c:?}");
            }
            all.extend(fails.into_iter().take(20));
        }
    }
    assert!(
        all.is_empty(),
        "{} disagreements:\n{}",
        all.len(),
        all.join("\n")
    );
}

#[test]
fn sm100_family_decodes_as_the_base_decoder() {
    let corpus = CORPORA[2].1;
    for line in corpus.lines().filter(|l| !l.starts_with('#')) {
        let word = u128::from_str_radix(&line[..32], 16).unwrap();
        for arch in Family::Sm100.archs() {
            let a = decode_arch(arch, word).map(|i| i.insn);
            let b = tld4_decoder::decode(word);
            assert_eq!(a.is_ok(), b.is_ok(), "{arch} {line}");
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_eq!(a, b);
            }
        }
    }
}
