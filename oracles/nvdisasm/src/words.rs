//! The words the harness puts to nvdisasm, each with where it came from.

use std::collections::HashSet;
use std::fmt;

use tld4_decoder::{field, parse, FieldSpec, HandleForm, FIELDS, LEGAL_OPEX_VALUES};

use crate::rng::Rng;

/// How a word was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A fixed word: all zeros (which nvdisasm refuses without naming its address), all
    /// ones, bit 91 alone, the bare opcodes.
    Special,
    /// A base word itself.
    Base,
    /// A base word with one bit flipped.
    BitFlip,
    /// A base word with one field set to one of its values.
    FieldValue,
    /// A base word with one of the 256 opex values (usched_info | batch_t << 5).
    Opex,
    /// Random, each field biased toward values nvdisasm accepts.
    RandomBiased,
    /// A biased random word with a random 12-bit opcode.
    RandomOpcode,
    /// A biased random word with one to four random bits flipped.
    RandomNearby,
    /// 128 fully random bits.
    RandomFull,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Kind; 9] = [
        Kind::Special,
        Kind::Base,
        Kind::BitFlip,
        Kind::FieldValue,
        Kind::Opex,
        Kind::RandomBiased,
        Kind::RandomOpcode,
        Kind::RandomNearby,
        Kind::RandomFull,
    ];

    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Special => "fixed words (zero, ones, bare opcodes)",
            Kind::Base => "base words",
            Kind::BitFlip => "single-bit flips",
            Kind::FieldValue => "every value of every field",
            Kind::Opex => "all 256 opex values",
            Kind::RandomBiased => "random (fields biased toward legal)",
            Kind::RandomOpcode => "random with a random opcode",
            Kind::RandomNearby => "random legal-ish with 1-4 bits flipped",
            Kind::RandomFull => "random 128 bits",
        }
    }

    /// Whether the kind is made from the seed (not from the base words).
    pub fn is_random(self) -> bool {
        matches!(
            self,
            Kind::RandomBiased | Kind::RandomOpcode | Kind::RandomNearby | Kind::RandomFull
        )
    }
}

/// Where a word came from: the kind, the base word (and its form), and a parameter
/// (the bit, the field index and value, the opex value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// How the word was made.
    pub kind: Kind,
    /// The index into [`BASES`] (structured kinds).
    pub base: u8,
    /// The form of the base word (structured kinds).
    pub form: HandleForm,
    /// The field index into [`FIELDS`] (for [`Kind::FieldValue`]).
    pub field: u8,
    /// The bit, field value or opex value.
    pub param: u32,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = || {
            format!(
                "base `{}` in form {:#x}",
                BASES[self.base as usize].0,
                self.form.opcode()
            )
        };
        match self.kind {
            Kind::Special => write!(f, "fixed word {}", self.param),
            Kind::Base => write!(f, "{}", base()),
            Kind::BitFlip => write!(f, "bit {} flipped in {}", self.param, base()),
            Kind::FieldValue => {
                let spec = &FIELDS[self.field as usize];
                write!(
                    f,
                    "field {} [{}] = {:#x} in {}",
                    spec.name,
                    spec.bits(),
                    self.param,
                    base()
                )
            }
            Kind::Opex => write!(f, "opex {:#04x} in {}", self.param, base()),
            k => f.write_str(k.name()),
        }
    }
}

/// Makes a base word in a form.
pub type MakeBase = fn(HandleForm) -> u128;

/// The base words: a name and how to make the word in a form.
pub const BASES: [(&str, MakeBase); 3] = [
    ("ptxas", ptxas_base),
    ("varied", varied_base),
    ("maxed", maxed_base),
];

fn with_form(word: u128, form: HandleForm) -> u128 {
    field::form.set(word, form.opcode() as u32)
}

/// What ptxas emits for PTX `tld4.g.2d` with an offset (docs/sources.md), in the given form.
pub fn ptxas_base(form: HandleForm) -> u128 {
    let insn = parse("TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;").expect("the ptxas text parses");
    with_form(insn.encode(), form)
}

fn set_all(values: &[(FieldSpec, u32)], form: HandleForm) -> u128 {
    let mut w = 0u128;
    for (spec, raw) in values {
        w = spec.set(w, *raw);
    }
    with_form(w, form)
}

/// Every field at a value other than zero and other than the default: guard @!P2, SCR,
/// ARRAY_2D, PTP, DC, F16.RN, LU, A, NODEP, mask 0xb, scheduling fields set, ignored bits set.
pub fn varied_base(handle_form: HandleForm) -> u128 {
    use field::*;
    set_all(
        &[
            (guard_pred, 2),
            (guard_negated, 1),
            (rd, 131),
            (ra, 28),
            (rb, 230),
            (ur, 97),
            (ignored_48_59, 0xa5a),
            (scr, 1),
            (dimension, 5),
            (rd2, 33),
            (write_mask, 0xb),
            (offset_mode, 2),
            (depth_compare, 1),
            (f16_mode, 1),
            (pred_dst, 1),
            (eviction, 3),
            (component, 3),
            (ignored_89, 1),
            (nodep, 1),
            (bit_91, 1),
            (ignored_92_101, 0x2d3),
            (pm_pred, 2),
            (ignored_104, 1),
            (usched_info, 0x0b),
            (dst_wr_sb, 5),
            (src_rel_sb, 3),
            (req_bit_set, 0x2a),
            (batch_t, 4),
            (ignored_125_127, 5),
        ],
        handle_form,
    )
}

/// Every bit set that may be set while the word stays legal: registers 254, predicates P6,
/// the largest legal opex value 0xbb.
pub fn maxed_base(form: HandleForm) -> u128 {
    let max = LEGAL_OPEX_VALUES.iter().copied().max().unwrap_or(0);
    let mut w = with_form(u128::MAX, form);
    for (spec, raw) in [
        (field::rd, 254),
        (field::ra, 254),
        (field::rb, 254),
        (field::ur, 254),
        (field::rd2, 254),
        (field::guard_pred, 6),
        (field::pred_dst, 6),
        (field::usched_info, max as u32 & 0x1f),
        (field::batch_t, max as u32 >> 5),
    ] {
        w = spec.set(w, raw);
    }
    w
}

/// `word` with nvdisasm's opex value `opex` (usched_info = the low 5 bits, batch_t the high 3).
pub fn with_opex(word: u128, opex: u8) -> u128 {
    field::batch_t.set(
        field::usched_info.set(word, opex as u32 & 0x1f),
        opex as u32 >> 5,
    )
}

/// The list of words with their origins, without repeats (a word keeps its first origin).
#[derive(Default)]
pub struct WordList {
    /// The words, in the order made.
    pub words: Vec<u128>,
    /// Their origins.
    pub origins: Vec<Origin>,
    seen: HashSet<u128>,
}

impl WordList {
    fn push(&mut self, word: u128, origin: Origin) {
        if self.seen.insert(word) {
            self.words.push(word);
            self.origins.push(origin);
        }
    }
}

/// The structured words: bases, every single-bit flip, every value of every field (so all
/// 4,096 opcodes), and all 256 opex values, on every base in both forms.
pub fn structured(list: &mut WordList) {
    let bit91 = 1u128 << 91;
    for (i, w) in [
        0,
        u128::MAX,
        bit91,
        0xd64,
        0xf63,
        bit91 | 0xd64,
        bit91 | 0xf63,
        u128::MAX >> 1,
        1,
    ]
    .into_iter()
    .enumerate()
    {
        list.push(
            w,
            Origin {
                kind: Kind::Special,
                base: 0,
                form: HandleForm::Uniform,
                field: 0,
                param: i as u32,
            },
        );
    }
    for (b, (_, make)) in BASES.iter().enumerate() {
        for form in HandleForm::ALL {
            let base = make(form);
            let o = |kind, field: usize, param: u32| Origin {
                kind,
                base: b as u8,
                form,
                field: field as u8,
                param,
            };
            list.push(base, o(Kind::Base, 0, 0));
            for bit in 0..128 {
                list.push(base ^ (1u128 << bit), o(Kind::BitFlip, 0, bit));
            }
            for opex in 0..=255u8 {
                list.push(with_opex(base, opex), o(Kind::Opex, 0, opex as u32));
            }
            for (i, spec) in FIELDS.iter().enumerate() {
                for v in 0..(1u32 << spec.width()) {
                    list.push(spec.set(base, v), o(Kind::FieldValue, i, v));
                }
            }
        }
    }
}

/// A random word whose fields lean toward what nvdisasm accepts: a TLD4 opcode, bit 91
/// set, a legal opex value, RZ/PT/full mask often; every other bit uniformly random.
pub fn biased(rng: &mut Rng) -> u128 {
    let mut w = 0u128;
    for spec in FIELDS {
        let width = spec.width();
        let raw = match spec.name {
            "form" => {
                if rng.chance(0.97) {
                    [0xd64, 0xf63][rng.below(2)]
                } else {
                    rng.bits(12)
                }
            }
            "bit_91" => rng.chance(0.97) as u32,
            "rd" | "ra" | "rb" | "rd2" | "ur" => {
                if rng.chance(0.1) {
                    255
                } else if rng.chance(0.1) {
                    rng.bits(3)
                } else {
                    rng.bits(8)
                }
            }
            "guard_pred" | "pred_dst" => {
                if rng.chance(0.4) {
                    7
                } else {
                    rng.bits(3)
                }
            }
            "write_mask" => {
                if rng.chance(0.4) {
                    0xf
                } else {
                    rng.bits(4)
                }
            }
            "ignored_48_59" if rng.chance(0.5) => 0xff,
            n if n.starts_with("ignored") && rng.chance(0.5) => 0,
            _ => rng.bits(width),
        };
        w = spec.set(w, raw);
    }
    let opex = if rng.chance(0.85) {
        LEGAL_OPEX_VALUES[rng.below(LEGAL_OPEX_VALUES.len())]
    } else {
        rng.bits(8) as u8
    };
    with_opex(w, opex)
}

/// `n` random words from `seed`: 70% biased, 10% biased with a random opcode, 10% biased
/// with 1-4 bits flipped, 10% fully random.
pub fn random(list: &mut WordList, rng: &mut Rng, n: usize) {
    let o = |kind| Origin {
        kind,
        base: 0,
        form: HandleForm::Uniform,
        field: 0,
        param: 0,
    };
    let target = list.words.len() + n;
    let mut attempts = 0usize;
    while list.words.len() < target && attempts < 20 * n + 100 {
        attempts += 1;
        let roll = rng.below(10);
        let (word, kind) = match roll {
            0 => (rng.next_u128(), Kind::RandomFull),
            1 => (
                field::form.set(biased(rng), rng.bits(12)),
                Kind::RandomOpcode,
            ),
            2 => {
                let mut w = biased(rng);
                for _ in 0..1 + rng.below(4) {
                    w ^= 1u128 << rng.below(128);
                }
                (w, Kind::RandomNearby)
            }
            _ => (biased(rng), Kind::RandomBiased),
        };
        list.push(word, o(kind));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tld4_decoder::decode;

    #[test]
    fn bases_are_legal_tld4_in_both_forms() {
        for (name, make) in BASES {
            for form in HandleForm::ALL {
                let w = make(form);
                let insn =
                    decode(w).unwrap_or_else(|e| panic!("base {name} {form:?} {w:032x}: {e}"));
                assert_eq!(insn.form, form);
                assert_eq!(insn.encode(), w);
            }
        }
        assert_eq!(
            decode(ptxas_base(HandleForm::Uniform))
                .map(|i| i.text())
                .as_deref(),
            Ok("TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;")
        );
    }

    #[test]
    fn structured_words_cover_flips_fields_and_opex() {
        let mut list = WordList::default();
        structured(&mut list);
        let count = |k| list.origins.iter().filter(|o| o.kind == k).count();
        assert!(
            count(Kind::BitFlip) >= 128 * 2,
            "flips: {}",
            count(Kind::BitFlip)
        );
        assert!(count(Kind::Opex) >= 256, "opex: {}", count(Kind::Opex));
        let opcodes: HashSet<u32> = list.words.iter().map(|&w| field::form.get(w)).collect();
        assert_eq!(opcodes.len(), 4096, "every opcode value appears");
        let s: HashSet<u128> = list.words.iter().copied().collect();
        assert_eq!(s.len(), list.words.len(), "no repeats");
    }

    #[test]
    fn biased_words_are_mostly_legal() {
        let mut rng = Rng::new(3);
        let legal = (0..1000)
            .filter(|_| decode(biased(&mut rng)).is_ok())
            .count();
        assert!(
            (700..=950).contains(&legal),
            "{legal} of 1000 biased words decode"
        );
    }
}
