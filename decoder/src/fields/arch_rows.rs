//! The field table's per-family rows: which opcodes are TLD4 on each [`Family`], and where a
//! family's words differ from the base table ([`super::FIELDS`], measured on SM100).
//!
//! A family's layout is the base table with its rows applied over it, in order: the rows
//! are the only place a family's difference is written. Measured with nvdisasm 13.5 by
//! `oracles/nvdisasm/arches.py` (docs/sources.md, TLD4 on every architecture) and
//! checked by the per-family golden corpora (`tests/golden/nvdisasm_arch_sm_80.tsv` and its siblings).

use super::FieldEffect;
use super::FieldSpec;
use crate::arch::Family;
use crate::values::HandleForm;

/// One TLD4 form of a family: an opcode that nvdisasm prints as TLD4 on its architectures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormRow {
    /// The family.
    pub family: Family,
    /// The 12-bit opcode (bits 11:0).
    pub opcode: u16,
    /// The base table's form the words are read with, or `None` where the form is a TLD4 to
    /// nvdisasm that tld4 does not model (its words are "valid but not modeled").
    pub modeled_as: Option<HandleForm>,
    /// Whether the form prints URc and the second uniform register always (URZ included),
    /// whatever its base form prints (SM120's 0xf64).
    pub both_urs: bool,
    /// What the form is, as nvdisasm prints it.
    pub doc: &'static str,
}

/// Every TLD4 form of every family (docs/sources.md, TLD4 on every architecture: the
/// opcode scan).
pub const FORMS: &[FormRow] = &[
    FormRow { family: Family::Sm75, opcode: 0x364, modeled_as: Some(HandleForm::Register), both_urs: false,
        doc: "TLD4.<comp>.B: handle in the first Rb register, no uniform register (nvdisasm's opclass `tld4_b_noConst_`; Mesa's NAK: bindless); bit 91 clear, bit 59 set" },
    FormRow { family: Family::Sm75, opcode: 0xb63, modeled_as: Some(HandleForm::Uniform), both_urs: false,
        doc: "two immediates after Rb, `bank, offset / 4` of the constant-bank slot holding the texture handle (nvdisasm's opclass `tld4_`; the meaning by Mesa's NAK); bit 91 clear; bit 59 prints `.B` and makes Rb required" },
    FormRow { family: Family::Sm75, opcode: 0xb65, modeled_as: Some(HandleForm::Register), both_urs: false,
        doc: "three immediates after Rb (nvdisasm's opclass `tld4_b_tid_`; what they name is unknown); bit 91 clear, bit 59 set" },
    FormRow { family: Family::Sm75, opcode: 0xf63, modeled_as: Some(HandleForm::Uniform), both_urs: false,
        doc: "uniform-register handle URc (6 bits) and an 8-bit immediate" },
    FormRow { family: Family::Sm80, opcode: 0x364, modeled_as: Some(HandleForm::Register), both_urs: false,
        doc: "as on sm_75, but bit 59 clear prints `.???0` in place of `.B`" },
    FormRow { family: Family::Sm80, opcode: 0xb63, modeled_as: Some(HandleForm::Uniform), both_urs: false,
        doc: "as on sm_75" },
    FormRow { family: Family::Sm80, opcode: 0xb65, modeled_as: Some(HandleForm::Register), both_urs: false,
        doc: "as on sm_75, but bit 59 clear prints `.???0` in place of `.B`" },
    FormRow { family: Family::Sm80, opcode: 0xf63, modeled_as: Some(HandleForm::Uniform), both_urs: false,
        doc: "uniform-register handle URc (6 bits) and an 8-bit immediate" },
    FormRow { family: Family::Sm100, opcode: 0xd64, modeled_as: Some(HandleForm::Register), both_urs: false,
        doc: "handle in the first Rb register (.B)" },
    FormRow { family: Family::Sm100, opcode: 0xf63, modeled_as: Some(HandleForm::Uniform), both_urs: false,
        doc: "handle in the uniform register URc" },
    FormRow { family: Family::Sm120, opcode: 0xd64, modeled_as: Some(HandleForm::Register), both_urs: false,
        doc: "handle in the first Rb register (.B), a second uniform register printed unless URZ" },
    FormRow { family: Family::Sm120, opcode: 0xf63, modeled_as: Some(HandleForm::Uniform), both_urs: false,
        doc: "handle in URc, a second uniform register printed unless URZ" },
    FormRow { family: Family::Sm120, opcode: 0xf64, modeled_as: Some(HandleForm::Register), both_urs: true,
        doc: "nvdisasm's opclass `tld4_b_urc_`: read as 0xd64 (`.B`; Rb = 255 prints `???255`), and URc (47:40) and the second uniform register are both printed, URZ included (`UR4, URZ`)" },
];

/// What a family row changes relative to the base table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The base field of this name keeps only the row's bits; the rest of its bits belong to
    /// the following rows. `unknown`: a value nvdisasm prints as `???n` instead of a register.
    Narrowed {
        /// The base field.
        field: &'static str,
        /// The raw value printed `???<value>` (the family's "zero register" of the field).
        unknown: Option<u8>,
    },
    /// An 8-bit immediate printed after the uniform register (`UR4, 0xfc`).
    ImmAfterUr,
    /// A second uniform register, printed after the first (after Rb in form 0xd64) unless it
    /// is URZ.
    SecondUr,
    /// The `.UAI` modifier, printed after the offset modifier.
    Uai,
    /// The bits must hold `value`: nvdisasm says "Unrecognized operation" otherwise.
    Required {
        /// The required raw value.
        value: u32,
    },
    /// Bit 59 of the pre-SM100 forms: set prints `.B`, and the word reads as the base
    /// table's register form (Rb required, register 255 printed `???255`); clear is
    /// `clear`.
    BFlag {
        /// What the bit clear means.
        clear: BClear,
    },
    /// An immediate printed after Rb in place of URc (`R24, 0x3, 0x3f04, 2D`), the `slot`th
    /// of the form's immediates.
    HandleImm {
        /// Its place among the form's immediates, from 0.
        slot: u8,
        /// What it names.
        role: ImmRole,
    },
    /// The base field `field`'s raw value `raw` prints as `name` (not as the base table's).
    Renamed {
        /// The base field.
        field: &'static str,
        /// The raw value.
        raw: u32,
        /// nvdisasm's spelling on the family.
        name: &'static str,
    },
}

/// What bit 59 clear means in a form with a [`Change::BFlag`] row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BClear {
    /// Nothing is printed and the word reads as the form's own base form
    /// ([`FormRow::modeled_as`]).
    Nothing,
    /// `.???0` is printed in place of `.B`; the word still reads as the register form.
    Unknown,
    /// nvdisasm refuses the word ("Unrecognized operation").
    Refused,
}

/// What a [`Change::HandleImm`] immediate names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmRole {
    /// The constant bank holding the texture handle (`c[bank][..]`; Mesa's NAK, 0xb63).
    ConstantBank,
    /// The handle's offset in that bank, in 4-byte words (`c[..][4 * offset]`; Mesa's NAK).
    ConstantWordOffset,
    /// Printed by nvdisasm, meaning unknown.
    Unknown,
}

/// One row: a family, the bits, and what they change. The rows of a family are applied over
/// the base table in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FamilyRow {
    /// The family.
    pub family: Family,
    /// The opcodes of the family's forms the row applies to; empty: every form.
    pub forms: &'static [u16],
    /// The bits, with the row's name and meaning (the base table's columns).
    pub spec: FieldSpec,
    /// What the bits do on the family.
    pub change: Change,
}

const fn spec(
    name: &'static str,
    hi: u8,
    lo: u8,
    doc: &'static str,
    effect: FieldEffect,
) -> FieldSpec {
    FieldSpec {
        name,
        lo,
        hi,
        source_name: "nvdisasm flips (tests/golden/nvdisasm_arches.txt)",
        doc,
        effect,
        effect_source: "measured (docs/sources.md, TLD4 on every architecture)",
    }
}

/// The forms without a uniform register, on the SM75 and SM80 families.
const PRE100_FORMS: &[u16] = &[0x364, 0xb63, 0xb65];

/// Bit 91 must be clear in 0x364, 0xb63 and 0xb65 (set in every other TLD4).
const fn bit91_clear(family: Family) -> FamilyRow {
    FamilyRow {
        family,
        forms: PRE100_FORMS,
        spec: spec(
            "bit_91",
            91,
            91,
            "must be clear in these forms (set: Unrecognized operation)",
            FieldEffect::Required,
        ),
        change: Change::Required { value: 0 },
    }
}

/// Bit 59: `.B`, and what clear means.
const fn b_flag(family: Family, forms: &'static [u16], clear: BClear) -> FamilyRow {
    FamilyRow {
        family,
        forms,
        spec: spec(
            "b_flag",
            59,
            59,
            match clear {
                BClear::Nothing => "set prints `.B` (then Rb is required, RZ printed `???255`); clear prints nothing",
                BClear::Unknown => "set prints `.B`; clear prints `.???0`",
                BClear::Refused => "must be set (prints `.B`; clear: Unrecognized operation)",
            },
            FieldEffect::Operands,
        ),
        change: Change::BFlag { clear },
    }
}

/// 0xb63's first immediate: the constant bank of the texture handle.
const fn cbank(family: Family) -> FamilyRow {
    FamilyRow {
        family,
        forms: &[0xb63],
        spec: spec(
            "cbank",
            58,
            54,
            "the constant bank holding the texture handle, the first immediate after Rb (Mesa's NAK)",
            FieldEffect::Reads,
        ),
        change: Change::HandleImm {
            slot: 0,
            role: ImmRole::ConstantBank,
        },
    }
}

/// 0xb63's second immediate: the handle's offset in the bank, in words.
const fn cbank_offset(family: Family) -> FamilyRow {
    FamilyRow {
        family,
        forms: &[0xb63],
        spec: spec(
            "cbank_offset",
            53,
            40,
            "the handle's offset in the bank in 4-byte words, the second immediate (Mesa's NAK)",
            FieldEffect::Reads,
        ),
        change: Change::HandleImm {
            slot: 1,
            role: ImmRole::ConstantWordOffset,
        },
    }
}

/// 0xb65's immediates, in print order: bits 58:54, 45:40, 53:46.
const fn tid_imm(family: Family, slot: u8) -> FamilyRow {
    let (name, hi, lo, doc) = match slot {
        0 => (
            "tid_a",
            58,
            54,
            "the first immediate after Rb; meaning unknown",
        ),
        1 => ("tid_b", 45, 40, "the second immediate; meaning unknown"),
        _ => ("tid_c", 53, 46, "the third immediate; meaning unknown"),
    };
    FamilyRow {
        family,
        forms: &[0xb65],
        spec: spec(name, hi, lo, doc, FieldEffect::Operands),
        change: Change::HandleImm {
            slot,
            role: ImmRole::Unknown,
        },
    }
}

/// Every family row (docs/sources.md, TLD4 on every architecture: the bit flips).
pub const FAMILY_ROWS: &[FamilyRow] = &[
    // SM75: the SM80 rows, and bit 59 must be clear.
    FamilyRow {
        family: Family::Sm75,
        forms: &[0xf63],
        spec: spec(
            "ur",
            45,
            40,
            "URc: 6 bits; 63 prints `???63`",
            FieldEffect::Reads,
        ),
        change: Change::Narrowed {
            field: "ur",
            unknown: Some(63),
        },
    },
    FamilyRow {
        family: Family::Sm75,
        forms: &[0xf63],
        spec: spec(
            "imm8",
            53,
            46,
            "an 8-bit immediate printed after URc (ptxas 11.8 writes 0)",
            FieldEffect::Hint,
        ),
        change: Change::ImmAfterUr,
    },
    FamilyRow {
        family: Family::Sm75,
        forms: &[0xf63],
        spec: spec(
            "bit_59",
            59,
            59,
            "must be clear on sm_75 (Unrecognized operation)",
            FieldEffect::Required,
        ),
        change: Change::Required { value: 0 },
    },
    // SM80 to SM90a.
    FamilyRow {
        family: Family::Sm80,
        forms: &[0xf63],
        spec: spec(
            "ur",
            45,
            40,
            "URc: 6 bits; 63 prints `???63`",
            FieldEffect::Reads,
        ),
        change: Change::Narrowed {
            field: "ur",
            unknown: Some(63),
        },
    },
    FamilyRow {
        family: Family::Sm80,
        forms: &[0xf63],
        spec: spec(
            "imm8",
            53,
            46,
            "an 8-bit immediate printed after URc (ptxas 11.8 writes 0)",
            FieldEffect::Hint,
        ),
        change: Change::ImmAfterUr,
    },
    // SM75: the pre-SM100 forms (their bits, INVALID values and refusals in the report's
    // flips; legality by random words, docs/sources.md).
    bit91_clear(Family::Sm75),
    b_flag(Family::Sm75, &[0xb63], BClear::Nothing),
    b_flag(Family::Sm75, &[0x364, 0xb65], BClear::Refused),
    cbank(Family::Sm75),
    cbank_offset(Family::Sm75),
    tid_imm(Family::Sm75, 0),
    tid_imm(Family::Sm75, 1),
    tid_imm(Family::Sm75, 2),
    // SM80 to SM90a: as SM75, but bit 59 clear prints `.???0` in 0x364 and 0xb65.
    bit91_clear(Family::Sm80),
    b_flag(Family::Sm80, &[0xb63], BClear::Nothing),
    b_flag(Family::Sm80, &[0x364, 0xb65], BClear::Unknown),
    cbank(Family::Sm80),
    cbank_offset(Family::Sm80),
    tid_imm(Family::Sm80, 0),
    tid_imm(Family::Sm80, 1),
    tid_imm(Family::Sm80, 2),
    // SM120, SM121.
    FamilyRow {
        family: Family::Sm120,
        forms: &[],
        spec: spec(
            "ur2",
            55,
            48,
            "a second uniform register, printed unless URZ (ptxas writes 0xff)",
            FieldEffect::Reads,
        ),
        change: Change::SecondUr,
    },
    FamilyRow {
        family: Family::Sm120,
        forms: &[],
        spec: spec(
            "uai",
            58,
            58,
            "`.UAI`, printed after the offset modifier",
            FieldEffect::Value,
        ),
        change: Change::Uai,
    },
    FamilyRow {
        family: Family::Sm120,
        forms: &[],
        spec: spec(
            "offset_mode",
            77,
            76,
            "offset value 3 prints `UAOFFI` (SM100: `INVALID3`)",
            FieldEffect::Value,
        ),
        change: Change::Renamed {
            field: "offset_mode",
            raw: 3,
            name: "UAOFFI",
        },
    },
];

/// The family's forms.
pub fn forms(family: Family) -> impl Iterator<Item = &'static FormRow> {
    FORMS.iter().filter(move |f| f.family == family)
}

/// The form row of `opcode` on `family`, if nvdisasm prints the opcode as TLD4 there.
pub fn form(family: Family, opcode: u16) -> Option<&'static FormRow> {
    forms(family).find(|f| f.opcode == opcode)
}

/// The family's rows, in order.
pub fn rows(family: Family) -> impl Iterator<Item = &'static FamilyRow> {
    FAMILY_ROWS.iter().filter(move |r| r.family == family)
}

/// The family's rows that apply to the form `opcode`, in order.
pub fn form_rows(family: Family, opcode: u16) -> impl Iterator<Item = &'static FamilyRow> {
    rows(family).filter(move |r| r.forms.is_empty() || r.forms.contains(&opcode))
}

/// The row of form `opcode` on `family` that changes `change`'s kind, if it has one.
pub fn row(
    family: Family,
    opcode: u16,
    pred: impl Fn(&Change) -> bool,
) -> Option<&'static FamilyRow> {
    form_rows(family, opcode).find(|r| pred(&r.change))
}

/// How many immediates form `opcode` prints after Rb ([`Change::HandleImm`] rows).
pub fn imm_count(family: Family, opcode: u16) -> usize {
    form_rows(family, opcode)
        .filter(|r| matches!(r.change, Change::HandleImm { .. }))
        .count()
}

/// The family's fields as a Markdown section: its forms, then its rows over the base table.
pub fn family_markdown(family: Family) -> String {
    let archs: Vec<&str> = family.archs().map(|a| a.name()).collect();
    let mut s = format!(
        "## {}\n\nArchitectures: {}.\n\n",
        family.name(),
        archs.join(", ")
    );
    let forms: Vec<_> = forms(family).collect();
    if forms.is_empty() {
        s.push_str("nvdisasm 13.5 prints no opcode as TLD4 on these architectures (no texture instruction at all).\n");
        return s;
    }
    s.push_str("| opcode | modeled | form |\n|---|---|---|\n");
    for f in &forms {
        let m = match f.modeled_as {
            Some(HandleForm::Register) if f.both_urs => {
                "yes (base table, register handle, both uniform registers printed)"
            }
            Some(HandleForm::Register) => "yes (base table, register form)",
            Some(HandleForm::Uniform) => "yes (base table, uniform form)",
            None => "no: valid, not modeled",
        };
        s.push_str(&format!("| {:#05x} | {} | {} |\n", f.opcode, m, f.doc));
    }
    let rows: Vec<_> = rows(family).collect();
    if rows.is_empty() {
        s.push_str("\nEvery field as in the base table.\n");
    } else {
        s.push_str("\nRows over the base table (every other field as there):\n\n| bits | field | effect | meaning | forms |\n|---|---|---|---|---|\n");
        for r in rows {
            let forms = if r.forms.is_empty() {
                "all".to_string()
            } else {
                r.forms
                    .iter()
                    .map(|o| format!("{o:#05x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            s.push_str(&format!(
                "| {} | `{}` | {} | {} | {} |\n",
                r.spec.bits(),
                r.spec.name,
                r.spec.effect.name(),
                r.spec.doc,
                forms
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_family_has_the_base_forms_and_no_rows() {
        let ops: Vec<u16> = forms(Family::Sm100).map(|f| f.opcode).collect();
        assert_eq!(ops, [0xd64, 0xf63]);
        for f in forms(Family::Sm100) {
            assert_eq!(f.modeled_as.map(HandleForm::opcode), Some(f.opcode));
            assert!(!f.both_urs);
        }
        // A family's modeled forms are told apart by (base form, both_urs, immediates).
        for fam in Family::ALL {
            let keys: Vec<_> = forms(fam)
                .filter_map(|f| {
                    f.modeled_as
                        .map(|m| (m, f.both_urs, imm_count(fam, f.opcode)))
                })
                .collect();
            let mut dedup = keys.clone();
            dedup.sort();
            dedup.dedup();
            assert_eq!(keys.len(), dedup.len(), "{fam}");
        }
        assert_eq!(rows(Family::Sm100).count(), 0);
        assert_eq!(forms(Family::Sm107).count(), 0);
    }

    #[test]
    fn narrowed_and_renamed_rows_name_base_fields_inside_their_bits() {
        for r in FAMILY_ROWS {
            let base = match r.change {
                Change::Narrowed { field, .. } | Change::Renamed { field, .. } => field,
                _ => continue,
            };
            let b = super::super::FIELDS
                .iter()
                .find(|f| f.name == base)
                .expect("a base field");
            assert!(b.lo <= r.spec.lo && r.spec.hi <= b.hi, "{}", r.spec.name);
        }
    }
}
