//! The fuzz targets: what each one feeds to which crate, and the properties it asserts.
//!
//! A target takes raw bytes and returns a [`Verdict`]: the input was accepted (parsed, and
//! run where there is something to run) or refused with a typed error, whose message is
//! kept. A broken property is a panic (`assert!`), which the driver catches and reports as a
//! crash together with the input, as it does any other panic of the code under test.

use std::fmt;

use tld4_cubin::{visit, Cubin, SM100};
use tld4_decoder::{decode, parse, parse_half, parse_word, Tld4};
use tld4_gather_cases as cases;
use tld4_scenario as scenario;

/// One fuzz target (the corpus folder `fuzz/corpus/<name>/` holds its seeds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A word as text (`tld4_decoder::parse_word`, or nvdisasm `-hex`'s two halves), decoded,
    /// disassembled and parsed back.
    Word,
    /// nvdisasm's text (`tld4_decoder::parse`), encoded, decoded and printed back.
    Asm,
    /// A `tld4 gather` cases file (`tld4_gather_cases`), run and checked against its output.
    Cases,
    /// A `tld4 run` scenario (`tld4_scenario::load`), executed for its warp.
    Scenario,
    /// A cubin, fat binary or host object (`tld4_cubin::open`), every TLD4 listed and looked up.
    Cubin,
    /// A memory-form scenario made from the input's choices (`crate::memory_target`): an
    /// owned texture converted to memory, maybe damaged, run against the owned one.
    Memory,
    /// The C ABI's `extern "C"` functions with generated arguments (`crate::capi_target`).
    Capi,
    /// Bytes sent to `tld4 serve`'s connection handling as a client's request, in memory
    /// (`crate::http_target`).
    Http,
}

impl Target {
    /// Every target, in the order the driver runs them.
    pub const ALL: [Target; 8] = [
        Target::Word,
        Target::Asm,
        Target::Cases,
        Target::Scenario,
        Target::Cubin,
        Target::Memory,
        Target::Capi,
        Target::Http,
    ];

    /// The target's name: its corpus folder and its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Target::Word => "word",
            Target::Asm => "asm",
            Target::Cases => "cases",
            Target::Scenario => "scenario",
            Target::Cubin => "cubin",
            Target::Memory => "memory",
            Target::Capi => "capi",
            Target::Http => "http",
        }
    }

    /// The target of a name, if there is one.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether the target reads text (mutated with tokens and numbers) or binary data.
    pub fn is_text(self) -> bool {
        !matches!(self, Target::Cubin | Target::Memory | Target::Capi)
    }

    /// Runs one input, asserting the target's properties (a broken one panics).
    pub fn run(self, input: &[u8]) -> Verdict {
        match self {
            Target::Word => word(&String::from_utf8_lossy(input)),
            Target::Asm => asm(&String::from_utf8_lossy(input)),
            Target::Cases => cases_file(&String::from_utf8_lossy(input)),
            Target::Scenario => scenario_file(&String::from_utf8_lossy(input)),
            Target::Cubin => cubin(input),
            Target::Memory => crate::memory_target::memory_scenario(input),
            Target::Capi => crate::capi_target::capi(input),
            Target::Http => crate::http_target::http(input),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a target made of an input that did not crash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Parsed (and run, where the target runs something).
    Accepted,
    /// Refused with a typed error; its message.
    Refused(String),
}

impl Verdict {
    /// Whether the input was refused.
    pub fn is_refused(&self) -> bool {
        matches!(self, Verdict::Refused(_))
    }
}

/// A refusal, asserting that the error says something (an empty message names nothing).
pub(crate) fn refused(e: impl fmt::Display) -> Verdict {
    let message = e.to_string();
    assert!(!message.trim().is_empty(), "an error with an empty message");
    Verdict::Refused(message)
}

/// The word of nvdisasm `-hex`'s two halves, low half first (`/* 0x... */ /* 0x... */`), when
/// the text is two such tokens; `None` when it is not two tokens.
fn halves(text: &str) -> Option<Result<u128, tld4_decoder::WordError>> {
    let cleaned = text.replace("/*", " ").replace("*/", " ");
    let tokens: Vec<&str> = cleaned.split_whitespace().collect();
    let [lo, hi] = tokens[..] else { return None };
    Some(parse_half(lo).and_then(|lo| Ok((parse_half(hi)? as u128) << 64 | lo as u128)))
}

/// Word text: one 32-digit word, or two `-hex` halves. A word that decodes must encode back
/// to itself, and its text must parse to an instruction with the same text and the same word
/// text again (the fields the text does not show take the parser's defaults).
fn word(text: &str) -> Verdict {
    let parsed = match halves(text) {
        Some(r) => r,
        None => parse_word(text),
    };
    let w = match parsed {
        Ok(w) => w,
        Err(e) => return refused(e),
    };
    match decode(w) {
        Ok(insn) => {
            assert_eq!(insn.encode(), w, "decode then encode changed the word");
            text_round_trip(&insn);
            Verdict::Accepted
        }
        Err(e) => refused(e),
    }
}

/// The disassembly of `insn` parses back to an instruction with the same text, whose checked
/// encoding decodes to that text again.
pub fn text_round_trip(insn: &Tld4) {
    let text = insn.text();
    let back = parse(&text).unwrap_or_else(|e| panic!("{text:?} does not parse back: {e}"));
    assert_eq!(back.text(), text, "the parsed text prints differently");
    let w = back
        .try_encode()
        .unwrap_or_else(|e| panic!("{text:?} parses to an instruction that does not encode: {e}"));
    let again = decode(w).unwrap_or_else(|e| panic!("{text:?}: its word {w:032x} fails: {e}"));
    assert_eq!(again.text(), text, "the re-encoded word prints differently");
}

/// Assembly text: what parses must encode to a word nvdisasm accepts and print back alike.
fn asm(text: &str) -> Verdict {
    match parse(text) {
        Ok(insn) => {
            let w = insn.encode();
            let back = decode(w).unwrap_or_else(|e| {
                panic!("{text:?} parses, but its word {w:032x} does not decode: {e}")
            });
            assert_eq!(
                back, insn,
                "the parsed instruction does not survive its word"
            );
            text_round_trip(&insn);
            Verdict::Accepted
        }
        Err(e) => refused(e),
    }
}

/// A cases file: `run` it; its output (the file with every result) must parse again, and
/// `check` on it must compare every query and find no mismatch.
fn cases_file(text: &str) -> Verdict {
    let out = match cases::run(text) {
        Ok(out) => out,
        Err(e) => return refused(e),
    };
    let queries: usize = cases::parse(&out)
        .unwrap_or_else(|e| panic!("the output of run does not parse: {e}"))
        .cases
        .iter()
        .map(|c| c.queries.len())
        .sum();
    let report = cases::check(&out).unwrap_or_else(|e| panic!("check fails on run's output: {e}"));
    assert_eq!(report.checked, queries, "check skipped queries");
    assert!(
        report.mismatches.is_empty(),
        "run's own results mismatch: {:?}",
        report.mismatches
    );
    Verdict::Accepted
}

/// A scenario: `load`, then run it twice (each run on a copy of the warp): the same report.
fn scenario_file(text: &str) -> Verdict {
    let s = match scenario::load(text) {
        Ok(s) => s,
        Err(e) => return refused(e),
    };
    let _ = scenario::warnings(&s);
    let first = scenario::run(&s);
    let second = scenario::run(&s);
    assert_eq!(first.lines, second.lines, "two runs of one scenario differ");
    assert!(
        !first.lines.is_empty(),
        "a run without a single report line"
    );
    Verdict::Accepted
}

/// A cubin, fat binary, host object or archive: every TLD4 listed must be the word at its
/// offset, be found again by `tld4_at` (unless its kernel's name is shared: then refused as
/// ambiguous), and carry the decoder's verdict on that word.
fn cubin(data: &[u8]) -> Verdict {
    let mut first_err = None;
    let visited = visit(data, &[SM100], |image| match image {
        Ok(image) => check_cubin(&image.cubin),
        Err(e) => {
            first_err.get_or_insert(e.to_string());
        }
    });
    match (visited, first_err) {
        (Err(e), _) => refused(e),
        (Ok(_), Some(e)) => refused(e),
        (Ok(_), None) => Verdict::Accepted,
    }
}

fn check_cubin(c: &Cubin) {
    for site in c.tld4s() {
        let k = match c.kernel(site.kernel) {
            Ok(k) => k,
            Err(tld4_cubin::LookupError::Ambiguous { candidates, .. }) => {
                assert!(
                    candidates.len() > 1,
                    "ambiguous with fewer than two candidates"
                );
                continue;
            }
            Err(e) => panic!("a TLD4 in kernel {} that is not listed: {e}", site.kernel),
        };
        assert_eq!(k.word_at(site.offset), Some(site.word), "word_at differs");
        assert_eq!(
            site.decoded,
            tld4_decoder::decode_arch(c.tables(), site.word),
            "the site's decoding differs"
        );
        // A listed word with an encoding nvdisasm refuses is a lookup error with the
        // decoder's reason; a legal one is found again.
        match (c.tld4_at(site.kernel, site.offset), &site.decoded) {
            (Ok(again), Ok(_)) => {
                assert_eq!(again.word, site.word, "tld4_at found another word")
            }
            (
                Err(
                    tld4_cubin::LookupError::IllegalTld4 { source, .. }
                    | tld4_cubin::LookupError::FormNotModeled { source, .. },
                ),
                Err(e),
            ) => {
                assert_eq!(&source, e, "tld4_at gives another reason")
            }
            (got, listed) => panic!(
                "tld4_at({}, {:#x}) = {got:?}, but the listing says {listed:?}",
                site.kernel, site.offset
            ),
        }
        if let Ok(insn) = &site.decoded {
            text_round_trip(&insn.insn);
        }
    }
}
