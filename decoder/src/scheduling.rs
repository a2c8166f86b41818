//! The scheduling-control fields, as named, typed values under nvdisasm's names.
//!
//! The bit positions live in the field table (`decoder/src/fields.rs`); this module reads
//! the decoded [`Tld4`] members and says what each value is known to mean. Names: nvdisasm's
//! own (`usched_info`, `batch_t`, `dst_wr_sb`, `src_rel_sb`, `req_bit_set`, `pm_pred`); the
//! seed table's `r-bar`/`w-bar` labels are swapped relative to them (docs/sources.md,
//! Encoding). The executor changes no value for any of them: it runs one instruction at a
//! time, so scheduling cannot be observed there; a timing model reads them from here.

use crate::fields::Tld4;
use crate::opex::opex_value;

/// `usched_info`, bits 109:105: stall and yield control (docs/sources.md, Encoding).
///
/// Known: nvdisasm's name, and that it is the low five bits of nvdisasm's `opex` value,
/// some of whose combinations with [`BatchT`] nvdisasm refuses (docs/sources.md, Encoding).
/// Not known: how a value maps to stall cycles and the yield flag on SM100 (no public
/// source); the raw value is given, undivided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UschedInfo(pub u8);

/// `batch_t`, bits 124:122, overlapping the bits earlier tools call reuse flags
/// (docs/sources.md, Encoding).
///
/// Known: the high three bits of nvdisasm's `opex` value. Not known: what it batches (no
/// public source); the raw value is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchT(pub u8);

/// A scoreboard (dependency barrier) number, 3 bits: `dst_wr_sb` (bits 112:110) or
/// `src_rel_sb` (bits 115:113) (docs/sources.md, Encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scoreboard(pub u8);

impl Scoreboard {
    /// The scoreboard this value names, 0..=5, or None for 6 and 7.
    ///
    /// Guess, no public source for SM100: the wait mask [`WaitMask`] has six bits, so six
    /// scoreboards exist and the values 6 and 7 name none ("no scoreboard" in tools for
    /// earlier architectures) (docs/sources.md, Open questions).
    pub const fn slot(self) -> Option<u8> {
        if self.0 < 6 {
            Some(self.0)
        } else {
            None
        }
    }
}

/// `req_bit_set`, bits 121:116: the mask of scoreboards to wait on before issue; bit `k`
/// names scoreboard `k` (docs/sources.md, Encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WaitMask(pub u8);

impl WaitMask {
    /// Whether the instruction waits on scoreboard `k` (0..=5).
    pub const fn waits_on(self, k: u8) -> bool {
        k < 6 && self.0 >> k & 1 != 0
    }
}

/// `pm_pred`, bits 103:102: the performance-monitor predicate (docs/sources.md, Encoding).
///
/// Known: nvdisasm's name; it changes no printed text and no value. Not known: which
/// counters it selects (no public source); the raw value is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PmPred(pub u8);

/// The scheduling-control fields of one TLD4, typed.
///
/// ```
/// use tld4_decoder::{decode, field};
/// let word = tld4_decoder::assemble("TLD4.R R10, R8, R20, UR4, 2D ;")?;
/// let word = field::dst_wr_sb.set(field::req_bit_set.set(word, 0b100001), 2);
/// let s = decode(word)?.scheduling();
/// assert_eq!(s.dst_wr_sb.slot(), Some(2));
/// assert!(s.req_bit_set.waits_on(0) && s.req_bit_set.waits_on(5) && !s.req_bit_set.waits_on(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scheduling {
    /// Stall and yield control.
    pub usched_info: UschedInfo,
    /// The high bits of nvdisasm's `opex`.
    pub batch_t: BatchT,
    /// The scoreboard the result's write releases when the destinations are written
    /// (nvdisasm: destination write scoreboard).
    pub dst_wr_sb: Scoreboard,
    /// The scoreboard released when the sources have been read (nvdisasm: source release
    /// scoreboard).
    pub src_rel_sb: Scoreboard,
    /// The scoreboards to wait on before issue.
    pub req_bit_set: WaitMask,
    /// The performance-monitor predicate.
    pub pm_pred: PmPred,
}

impl Scheduling {
    /// nvdisasm's `opex` value: `usched_info | batch_t << 5` (docs/sources.md, Encoding).
    pub const fn opex(&self) -> u8 {
        opex_value(self.usched_info.0, self.batch_t.0)
    }
}

/// The scheduling fields whose values make nvdisasm print the closing `;` right after the
/// operands, with no space before it (`... 2D;` where every other value prints `... 2D ;`):
/// `opex` 0 (`usched_info` 0, `batch_t` 0), both scoreboards 7 and no wait. nvdisasm 13.5.37
/// `-b` SM75 ... SM121, every legal `opex` with each scoreboard pair and wait mask tried on
/// the TLD4 forms of each architecture, 2026-12-07 (docs/sources.md, Encoding); the other
/// bits (92-104, 125-127) change nothing. The parser gives a text without that space these
/// values, and one with it zeros.
pub(crate) const TIGHT_SEMICOLON: SchedulingBits = SchedulingBits {
    usched_info: 0,
    batch_t: 0,
    dst_wr_sb: 7,
    src_rel_sb: 7,
    req_bit_set: 0,
};

/// Raw values of the scheduling fields that nvdisasm's text can show (by its closing).
pub(crate) struct SchedulingBits {
    pub(crate) usched_info: u8,
    pub(crate) batch_t: u8,
    pub(crate) dst_wr_sb: u8,
    pub(crate) src_rel_sb: u8,
    pub(crate) req_bit_set: u8,
}

impl SchedulingBits {
    /// The values the parser gives a text: [`TIGHT_SEMICOLON`]'s where it closes with `;`
    /// alone (`tight`), else all zero (the text shows no other scheduling).
    pub(crate) const fn parsed(tight: bool) -> SchedulingBits {
        if tight {
            TIGHT_SEMICOLON
        } else {
            SchedulingBits {
                usched_info: 0,
                batch_t: 0,
                dst_wr_sb: 0,
                src_rel_sb: 0,
                req_bit_set: 0,
            }
        }
    }
}

impl Tld4 {
    /// Whether nvdisasm prints this word's closing `;` with no space before it
    /// ([`TIGHT_SEMICOLON`]).
    #[inline(always)]
    pub(crate) fn tight_semicolon(&self) -> bool {
        let t = &TIGHT_SEMICOLON;
        (self.usched_info ^ t.usched_info)
            | (self.batch_t ^ t.batch_t)
            | (self.dst_wr_sb ^ t.dst_wr_sb)
            | (self.src_rel_sb ^ t.src_rel_sb)
            | (self.req_bit_set ^ t.req_bit_set)
            == 0
    }

    /// The scheduling-control fields, typed.
    pub const fn scheduling(&self) -> Scheduling {
        Scheduling {
            usched_info: UschedInfo(self.usched_info),
            batch_t: BatchT(self.batch_t),
            dst_wr_sb: Scoreboard(self.dst_wr_sb),
            src_rel_sb: Scoreboard(self.src_rel_sb),
            req_bit_set: WaitMask(self.req_bit_set),
            pm_pred: PmPred(self.pm_pred),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{decode, field, parse};

    #[test]
    fn each_member_reads_its_own_field() {
        let base = parse("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap().encode();
        let w = field::src_rel_sb.set(base, 5);
        let w = field::dst_wr_sb.set(w, 3);
        let w = field::pm_pred.set(w, 2);
        let w = field::req_bit_set.set(w, 0b010010);
        let s = decode(w).unwrap().scheduling();
        assert_eq!((s.src_rel_sb.0, s.dst_wr_sb.0, s.pm_pred.0), (5, 3, 2));
        assert_eq!(s.src_rel_sb.slot(), Some(5));
        assert!(s.req_bit_set.waits_on(1) && s.req_bit_set.waits_on(4));
        assert!(!s.req_bit_set.waits_on(0) && !s.req_bit_set.waits_on(6));
        let none = decode(field::dst_wr_sb.set(base, 7)).unwrap().scheduling();
        assert_eq!(none.dst_wr_sb.slot(), None);
        let d = decode(base).unwrap();
        assert_eq!(d.scheduling().opex(), d.opex());
    }

    /// nvdisasm closes the text with `;` and no space for opex 0, both scoreboards 7 and no
    /// wait, and only then (tests/golden/nvdisasm_arch_*.tsv hold such words, measured); the
    /// parser reads each closing back into the word that prints it, on every family.
    #[test]
    fn the_semicolon_follows_the_operands_for_one_scheduling_only() {
        use crate::{decode_arch, parse_arch, Arch};
        let base = parse("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap().encode();
        let tight = [
            (field::usched_info, 0),
            (field::batch_t, 0),
            (field::dst_wr_sb, 7),
            (field::src_rel_sb, 7),
            (field::req_bit_set, 0),
        ]
        .iter()
        .fold(base, |w, (f, v)| f.set(w, *v));
        assert_eq!(
            decode(tight).unwrap().text(),
            "TLD4.R R10, R8, R20, UR4, 2D;"
        );
        let p = parse("TLD4.R R10, R8, R20, UR4, 2D;").unwrap();
        assert_eq!(p.encode(), tight);
        let p = parse("TLD4.R R10, R8, R20, UR4, 2D ;").unwrap();
        assert_eq!(p.encode(), base);
        // each field moved off its value alone gives the space back
        let moved = [
            field::usched_info.set(tight, 1),
            field::batch_t.set(field::usched_info.set(tight, 1), 1),
            field::dst_wr_sb.set(tight, 6),
            field::src_rel_sb.set(tight, 0),
            field::req_bit_set.set(tight, 0x20),
        ];
        for w in moved {
            assert_eq!(decode(w).unwrap().text(), "TLD4.R R10, R8, R20, UR4, 2D ;");
        }
        // the other architectures' forms follow the same rule
        for arch in [Arch::Sm75, Arch::Sm86, Arch::Sm120] {
            let w = decode_arch(arch, tight).unwrap();
            let text = w.text();
            assert!(text.ends_with("2D;"), "{arch}: {text}");
            assert_eq!(parse_arch(arch, &text).unwrap().encode(), tight, "{arch}");
            let spaced = decode_arch(arch, base).unwrap().text();
            assert!(spaced.ends_with("2D ;"), "{arch}: {spaced}");
            assert_eq!(parse_arch(arch, &spaced).unwrap().encode(), base, "{arch}");
        }
    }
}
