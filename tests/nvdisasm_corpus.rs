//! Checks tld4-decoder offline against the golden corpus of nvdisasm's verdicts
//! (`tests/golden/`, written by `oracles/nvdisasm`; its header says how).
//!
//! For every word: the decoder accepts it exactly when nvdisasm printed a TLD4; the text is
//! nvdisasm's (runs of spaces collapsed in the listing corpus, exact in the `_single`
//! corpus of one-word files); `encode(decode(w)) == w`; parsing nvdisasm's text gives a word
//! that prints the same text; a refusal for the opex table names the same value. Finally
//! the committed opex table (decoder/src/opex.rs) is exactly what the corpus's TLD4 words
//! and opex refusals say.

use std::collections::BTreeSet;

use tld4_decoder::{decode, field, parse, DecodeError, HandleForm, LEGAL_OPEX_VALUES};

const CORPUS: &str = include_str!("golden/nvdisasm_sm100.tsv");
const SINGLE: &str = include_str!("golden/nvdisasm_sm100_single.tsv");

/// What nvdisasm said about a word.
#[derive(Clone, Copy, Debug)]
enum Expect<'a> {
    Tld4(&'a str),
    Error(&'a str),
    Other(&'a str),
}

struct Entry<'a> {
    line: usize,
    word: u128,
    expect: Expect<'a>,
}

fn entries(corpus: &str) -> Vec<Entry<'_>> {
    corpus
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let (hex, rest) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("corpus line {}: no tab: {l}", i + 1));
            assert_eq!(
                hex.len(),
                32,
                "corpus line {}: the word must be 32 hex digits: {l}",
                i + 1
            );
            let word = u128::from_str_radix(hex, 16)
                .unwrap_or_else(|e| panic!("corpus line {}: {e}: {l}", i + 1));
            let expect = if let Some(m) = rest.strip_prefix("error: ") {
                Expect::Error(m)
            } else if let Some(t) = rest.strip_prefix("other: ") {
                Expect::Other(t)
            } else {
                Expect::Tld4(rest)
            };
            Entry {
                line: i + 1,
                word,
                expect,
            }
        })
        .collect()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn same(a: &str, b: &str, exact: bool) -> bool {
    if exact {
        a == b
    } else {
        collapse(a) == collapse(b)
    }
}

/// The value nvdisasm names in "undefined value 0x.. for table 'TABLES_opex_0'", if any.
fn opex_refusal(msg: &str) -> Option<u8> {
    let (head, _) = msg.split_once(" for table 'TABLES_opex_0'")?;
    if !msg.starts_with("Opclass 'tld4_") {
        return None;
    }
    let hex = head.rsplit_once("undefined value 0x")?.1;
    u8::from_str_radix(hex, 16).ok()
}

/// Every way the decoder differs from nvdisasm on one corpus entry.
fn check(e: &Entry<'_>, exact: bool) -> Vec<String> {
    let mut out = Vec::new();
    let w = e.word;
    let mut fail = |what: String| out.push(format!("line {}: word {w:032x}: {what}", e.line));
    match (decode(w), e.expect) {
        (Ok(insn), Expect::Tld4(nv)) => {
            let ours = insn.text();
            if !same(&ours, nv, exact) {
                fail(format!("text differs: nvdisasm `{nv}`, ours `{ours}`"));
            }
            if insn.encode() != w {
                fail(format!("encode(decode(w)) = {:032x}", insn.encode()));
            }
            match parse(nv) {
                Err(err) => fail(format!("parsing nvdisasm's text `{nv}` fails: {err}")),
                Ok(p) => match decode(p.encode()) {
                    Err(err) => fail(format!(
                        "parse(`{nv}`) encodes to {:032x}, which decode refuses: {err}",
                        p.encode()
                    )),
                    Ok(d) if !same(&d.text(), nv, exact) => fail(format!(
                        "text -> bits -> text: `{nv}` -> {:032x} -> `{}`",
                        p.encode(),
                        d.text()
                    )),
                    Ok(_) => {}
                },
            }
        }
        (Ok(insn), Expect::Error(m)) => fail(format!(
            "decoder accepts `{}`, nvdisasm refuses it: {m}",
            insn.text()
        )),
        (Ok(insn), Expect::Other(t)) => fail(format!(
            "decoder accepts `{}`, nvdisasm prints another instruction: {t}",
            insn.text()
        )),
        (Err(err), Expect::Tld4(nv)) => {
            fail(format!("decoder refuses ({err}), nvdisasm prints `{nv}`"))
        }
        (Err(err), Expect::Error(m)) => match (&err, opex_refusal(m)) {
            (DecodeError::UndefinedOpex { opex, .. }, Some(v)) if *opex == v => {}
            (DecodeError::UndefinedOpex { .. }, _) | (_, Some(_)) => fail(format!(
                "refused for another reason: nvdisasm `{m}`, ours `{err}`"
            )),
            _ => {}
        },
        (Err(DecodeError::UndefinedOpex { .. }), Expect::Other(t)) => fail(format!(
            "decoder blames the opex table, nvdisasm prints another instruction: {t}"
        )),
        (Err(_), Expect::Other(_)) => {}
    }
    out
}

fn check_all(corpus: &str, exact: bool) -> usize {
    let entries = entries(corpus);
    let failures: Vec<String> = entries.iter().flat_map(|e| check(e, exact)).collect();
    assert!(
        failures.is_empty(),
        "{} disagreements with nvdisasm's corpus, the first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    entries.len()
}

#[test]
fn corpus_is_as_documented() {
    let header: Vec<&str> = CORPUS.lines().take_while(|l| l.starts_with('#')).collect();
    let has = |s: &str| header.iter().any(|l| l.contains(s));
    assert!(
        has("nvdisasm")
            && has("command: ")
            && has("seed: ")
            && has("spacing: runs of spaces collapsed"),
        "{header:#?}"
    );
    assert!(
        SINGLE.lines().any(|l| l.starts_with("# spacing: exactly")),
        "the single corpus stores exact spacing"
    );
    let all = entries(CORPUS);
    let refused = all
        .iter()
        .filter(|e| !matches!(e.expect, Expect::Tld4(_)))
        .count();
    assert!(all.len() >= 20_000, "{} corpus words", all.len());
    assert!(refused >= 3_000, "{refused} refused corpus words");
    let words: BTreeSet<u128> = all.iter().map(|e| e.word).collect();
    assert_eq!(words.len(), all.len(), "no word appears twice");
    let single = entries(SINGLE);
    assert!(
        single
            .iter()
            .filter(|e| matches!(e.expect, Expect::Tld4(t) if t.contains("???")))
            .count()
            >= 100,
        "the one-word corpus holds at least 100 words printed with `???`"
    );
}

#[test]
fn decoder_agrees_with_every_corpus_word() {
    let n = check_all(CORPUS, false);
    assert!(n >= 20_000);
}

#[test]
fn decoder_agrees_exactly_with_one_word_files() {
    let n = check_all(SINGLE, true);
    assert!(n >= 100);
}

#[test]
fn opex_table_matches_the_corpus_refusals() {
    let table: BTreeSet<u8> = LEGAL_OPEX_VALUES.iter().copied().collect();
    assert_eq!(
        table.len(),
        LEGAL_OPEX_VALUES.len(),
        "the table lists each value once"
    );
    for form in HandleForm::ALL {
        let mut legal = BTreeSet::new();
        let mut refused = BTreeSet::new();
        for e in entries(CORPUS) {
            if field::form.get(e.word) != form.opcode() as u32 || field::bit_91.get(e.word) != 1 {
                continue;
            }
            let opex = (field::usched_info.get(e.word) | field::batch_t.get(e.word) << 5) as u8;
            match e.expect {
                Expect::Tld4(_) => {
                    legal.insert(opex);
                }
                Expect::Error(m) => {
                    let named = opex_refusal(m).unwrap_or_else(|| {
                        panic!(
                            "line {}: a {form:?} word with bit 91 set refused otherwise: {m}",
                            e.line
                        )
                    });
                    assert_eq!(
                        named, opex,
                        "line {}: nvdisasm names opex {named:#x}, the word holds {opex:#x}",
                        e.line
                    );
                    refused.insert(opex);
                }
                Expect::Other(t) => panic!(
                    "line {}: a {form:?} word printed as another instruction: {t}",
                    e.line
                ),
            }
        }
        assert!(
            legal.is_disjoint(&refused),
            "{form:?}: values both accepted and refused: {:?}",
            legal.intersection(&refused)
        );
        assert_eq!(
            legal.len() + refused.len(),
            256,
            "{form:?}: the corpus covers all 256 opex values"
        );
        assert_eq!(
            legal, table,
            "{form:?}: nvdisasm's legal opex values vs decoder/src/opex.rs"
        );
    }
}
