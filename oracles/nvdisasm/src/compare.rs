//! Comparing the decoder with nvdisasm on one word.

use std::fmt;

use tld4_decoder::{decode, parse, DecodeError, HandleForm};

use crate::nvdisasm::{collapse, Verdict};

/// What a disagreement is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// The decoder accepts a word that nvdisasm refuses or prints as another instruction.
    DecoderAcceptsRefused,
    /// The decoder refuses a word that nvdisasm prints as a TLD4.
    DecoderRefusesTld4,
    /// Both call it a TLD4, with different text.
    Text,
    /// `encode(decode(w)) != w`.
    EncodeRoundTrip,
    /// Parsing nvdisasm's text fails, gives a refused word, or gives a word whose text differs.
    ParseRoundTrip,
    /// Both refuse the word, for different reasons (e.g. the decoder blames bit 91 and
    /// nvdisasm the opex table, or the opex values differ).
    RefusalReason,
    /// The legal opex values found live differ from the decoder's table.
    OpexTable,
    /// A word run alone got another verdict than in a listing (nvdisasm's context).
    AloneVsListing,
}

impl Category {
    /// Every category, in report order.
    pub const ALL: [Category; 8] = [
        Category::DecoderAcceptsRefused,
        Category::DecoderRefusesTld4,
        Category::Text,
        Category::EncodeRoundTrip,
        Category::ParseRoundTrip,
        Category::RefusalReason,
        Category::OpexTable,
        Category::AloneVsListing,
    ];

    /// The name printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Category::DecoderAcceptsRefused => {
                "legality: decoder accepts, nvdisasm does not print a TLD4"
            }
            Category::DecoderRefusesTld4 => "legality: decoder refuses, nvdisasm prints a TLD4",
            Category::Text => "text differs",
            Category::EncodeRoundTrip => "encode(decode(w)) != w",
            Category::ParseRoundTrip => "text -> bits -> text is not the identity",
            Category::RefusalReason => "refused for different reasons",
            Category::OpexTable => "opex table differs",
            Category::AloneVsListing => "word alone vs in a listing",
        }
    }
}

/// One disagreement, with everything needed to replay it.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// What it is about.
    pub category: Category,
    /// The word (hi << 64 | lo).
    pub word: u128,
    /// How the word was made.
    pub origin: String,
    /// nvdisasm's side.
    pub nvdisasm: String,
    /// The decoder's side.
    pub ours: String,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "DISAGREE [{}] {:032x} ({})",
            self.category.name(),
            self.word,
            self.origin
        )?;
        writeln!(f, "    nvdisasm: {}", self.nvdisasm)?;
        write!(f, "    ours:     {}", self.ours)
    }
}

/// How a word came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Both call it a TLD4 and everything matched.
    AgreeTld4,
    /// Both refuse it (nvdisasm refused it, printed another instruction, or printed nothing).
    AgreeRefused,
    /// At least one disagreement.
    Disagree,
}

/// The text as compared: exact (a one-word file) or with runs of spaces collapsed (a listing).
fn same_text(a: &str, b: &str, exact: bool) -> bool {
    if exact {
        a == b
    } else {
        collapse(a) == collapse(b)
    }
}

/// Whether `name` is nvdisasm's opclass for the form, as its error messages spell it:
/// `tld4_b_noConst_` / `tld4_urc_`, with `scr_` after `tld4_` when `.SCR` is set.
fn is_opclass(name: &str, form: HandleForm) -> bool {
    let suffix = match form {
        HandleForm::Register => "b_noConst_",
        HandleForm::Uniform => "urc_",
    };
    name.strip_prefix("tld4_")
        .is_some_and(|rest| rest == suffix || rest.strip_prefix("scr_") == Some(suffix))
}

/// Compares the decoder with nvdisasm's `verdict` on `word`; `exact` compares spacing too.
pub fn check(
    word: u128,
    verdict: &Verdict,
    exact: bool,
    origin: &dyn fmt::Display,
    out: &mut Vec<Disagreement>,
) -> Outcome {
    let before = out.len();
    let mut disagree = |category, nvdisasm: String, ours: String| {
        out.push(Disagreement {
            category,
            word,
            origin: origin.to_string(),
            nvdisasm,
            ours,
        });
    };
    let decoded = decode(word);
    let agreed = match (&decoded, verdict) {
        (Ok(insn), Verdict::Tld4(nv)) => {
            let ours = insn.text();
            if !same_text(&ours, nv, exact) {
                disagree(Category::Text, nv.clone(), ours.clone());
            }
            let back = insn.encode();
            if back != word {
                disagree(
                    Category::EncodeRoundTrip,
                    format!("{word:032x}"),
                    format!("{back:032x}"),
                );
            }
            match parse(nv) {
                Err(e) => disagree(
                    Category::ParseRoundTrip,
                    nv.clone(),
                    format!("parse error: {e}"),
                ),
                Ok(p) => {
                    let w2 = p.encode();
                    match decode(w2) {
                        Err(e) => disagree(
                            Category::ParseRoundTrip,
                            nv.clone(),
                            format!("parse gives {w2:032x}, refused: {e}"),
                        ),
                        Ok(d2) if !same_text(&d2.text(), nv, exact) => disagree(
                            Category::ParseRoundTrip,
                            nv.clone(),
                            format!("parse gives {w2:032x}, which prints {}", d2.text()),
                        ),
                        Ok(_) => {}
                    }
                }
            }
            Outcome::AgreeTld4
        }
        (Ok(insn), v) => {
            disagree(Category::DecoderAcceptsRefused, v.describe(), insn.text());
            Outcome::Disagree
        }
        (Err(e), Verdict::Tld4(nv)) => {
            disagree(
                Category::DecoderRefusesTld4,
                nv.clone(),
                format!("error: {e}"),
            );
            Outcome::Disagree
        }
        (Err(e), v) => {
            let opex_refusal = |msg: &str| {
                msg.starts_with("Opclass 'tld4") && msg.contains("for table 'TABLES_opex_0'")
            };
            match (e, v) {
                (DecodeError::NotTld4 { .. }, _) => {}
                (DecodeError::Bit91Clear, Verdict::Refused(m)) if opex_refusal(m) => {
                    disagree(Category::RefusalReason, v.describe(), format!("error: {e}"))
                }
                (DecodeError::Bit91Clear, _) => {}
                (DecodeError::UndefinedOpex { opex, .. }, Verdict::Refused(m)) => {
                    let form = HandleForm::from_opcode(tld4_decoder::field::form.get(word) as u16);
                    let tail = format!("', undefined value {opex:#x} for table 'TABLES_opex_0'");
                    let ok = m
                        .strip_prefix("Opclass '")
                        .and_then(|r| r.strip_suffix(tail.as_str()))
                        .is_some_and(|name| form.is_some_and(|f| is_opclass(name, f)));
                    if !ok {
                        disagree(
                            Category::RefusalReason,
                            v.describe(),
                            format!(
                                "error: {e} (expected nvdisasm to say: Opclass 'tld4_...{tail})"
                            ),
                        );
                    }
                }
                (DecodeError::UndefinedOpex { .. }, _) => {
                    disagree(Category::RefusalReason, v.describe(), format!("error: {e}"))
                }
                // The architecture-taking decoder's own refusals (never from `decode`).
                (
                    DecodeError::NotTld4OnArch { .. }
                    | DecodeError::FormNotModeled { .. }
                    | DecodeError::RequiredBits { .. },
                    _,
                ) => {}
            }
            Outcome::AgreeRefused
        }
    };
    if out.len() > before {
        Outcome::Disagree
    } else {
        agreed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTXAS: u128 = 0x89e1f0a20ff04181c087f63;

    #[test]
    fn agreement_and_each_kind_of_disagreement() {
        let mut out = Vec::new();
        let text = "TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;";
        assert_eq!(
            check(PTXAS, &Verdict::Tld4(text.into()), true, &"t", &mut out),
            Outcome::AgreeTld4
        );
        assert!(out.is_empty(), "{out:?}");
        // Extra spaces only matter in exact mode.
        let spaced = "TLD4.G.AOFFI R10,  R8, R28, R24, UR4, 2D ;";
        assert_eq!(
            check(PTXAS, &Verdict::Tld4(spaced.into()), false, &"t", &mut out),
            Outcome::AgreeTld4
        );
        assert_eq!(
            check(PTXAS, &Verdict::Tld4(spaced.into()), true, &"t", &mut out),
            Outcome::Disagree
        );
        let cats: Vec<Category> = out.drain(..).map(|d| d.category).collect();
        assert_eq!(
            cats,
            [Category::Text, Category::ParseRoundTrip],
            "parsing the spaced text prints it with single spaces"
        );
        assert_eq!(
            check(
                PTXAS,
                &Verdict::Refused("Illegal instruction found".into()),
                false,
                &"t",
                &mut out
            ),
            Outcome::Disagree
        );
        assert_eq!(
            out.pop().map(|d| d.category),
            Some(Category::DecoderAcceptsRefused)
        );
        let no_opcode = PTXAS & !0xfff;
        assert_eq!(
            check(no_opcode, &Verdict::Silent, false, &"t", &mut out),
            Outcome::AgreeRefused
        );
        assert_eq!(
            check(
                no_opcode,
                &Verdict::Tld4(text.into()),
                false,
                &"t",
                &mut out
            ),
            Outcome::Disagree
        );
        assert_eq!(
            out.pop().map(|d| d.category),
            Some(Category::DecoderRefusesTld4)
        );
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn opex_refusals_must_name_the_same_value() {
        let mut out = Vec::new();
        let bad = PTXAS | (0x10u128 << 105);
        let msg = "Opclass 'tld4_urc_', undefined value 0x10 for table 'TABLES_opex_0'";
        assert_eq!(
            check(bad, &Verdict::Refused(msg.into()), false, &"t", &mut out),
            Outcome::AgreeRefused
        );
        let wrong = "Opclass 'tld4_urc_', undefined value 0x11 for table 'TABLES_opex_0'";
        assert_eq!(
            check(bad, &Verdict::Refused(wrong.into()), false, &"t", &mut out),
            Outcome::Disagree
        );
        assert_eq!(out.pop().map(|d| d.category), Some(Category::RefusalReason));
        let scr = "Opclass 'tld4_scr_urc_', undefined value 0x10 for table 'TABLES_opex_0'";
        assert_eq!(
            check(bad, &Verdict::Refused(scr.into()), false, &"t", &mut out),
            Outcome::AgreeRefused
        );
        let other_form =
            "Opclass 'tld4_b_noConst_', undefined value 0x10 for table 'TABLES_opex_0'";
        assert_eq!(
            check(
                bad,
                &Verdict::Refused(other_form.into()),
                false,
                &"t",
                &mut out
            ),
            Outcome::Disagree
        );
        assert!(out.drain(..).all(|d| d.category == Category::RefusalReason));
    }
}
