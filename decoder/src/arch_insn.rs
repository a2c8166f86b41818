//! Decode, encode, print and parse TLD4 for any architecture nvdisasm knows.
//!
//! A family's word is the base table's word ([`crate::FIELDS`]) with the family's rows
//! ([`crate::FAMILY_ROWS`]) applied over it: decoding clears the bits the rows take, decodes
//! the rest with the base table (its legality checks, bit 91 and the opex table, hold on
//! every family: docs/sources.md, TLD4 on every architecture), and reads the rows' own
//! values; encoding does the reverse. Nothing here writes a bit position: they all come from
//! the rows.

use core::fmt;

use crate::access::{Access, Location, OperandRole, UsedRegister};
use crate::arch::{Arch, Family};
use crate::error::{DecodeError, EncodeError};
use crate::fields::arch_rows::{self, BClear, Change, FamilyRow, ImmRole};
use crate::fields::{field, FieldSpec, Tld4};
use crate::scheduling::Scheduling;
use crate::text::Dialect;
use crate::values::{HandleForm, UReg};

/// A TLD4 of one architecture: the base table's fields, and the values of the family's own
/// rows (zero where the family has no such row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArchTld4 {
    /// The architecture the word was decoded for (and is printed and encoded for).
    pub arch: Arch,
    /// The form's opcode on the architecture (bits 11:0: 0xf63, 0xb63, ...). The base
    /// fields are read with the form's base form ([`crate::FormRow::modeled_as`], or the
    /// register form where bit 59 prints `.B`: [`Change::BFlag`]), held in `insn.form`.
    pub opcode: u16,
    /// The fields the family shares with the base table. A narrowed field (SM80's 6-bit URc)
    /// holds only its family's bits.
    pub insn: Tld4,
    /// The immediate printed after URc (`Change::ImmAfterUr`; SM75, SM80 families).
    pub imm8: u8,
    /// The second uniform register (`Change::SecondUr`; SM120 family). URZ where absent.
    pub ur2: UReg,
    /// `.UAI` (`Change::Uai`; SM120 family).
    pub uai: bool,
    /// Bit 59 of the pre-SM100 forms (`Change::BFlag`): `.B` printed.
    pub b_flag: bool,
    /// The immediates printed after Rb in place of URc (`Change::HandleImm`, by slot; 0xb63:
    /// bank and word offset of the constant-bank slot; 0xb65: three of unknown meaning).
    pub imms: [u16; 3],
}

/// Where a constant-bank form (0xb63) reads its texture handle: `c[bank][offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstantSlot {
    /// The constant bank.
    pub bank: u8,
    /// The byte offset in the bank (the instruction holds it in 4-byte words: Mesa's NAK).
    pub offset: u32,
}

fn spec_of(family: Family, opcode: u16, pred: impl Fn(&Change) -> bool) -> Option<FieldSpec> {
    arch_rows::row(family, opcode, pred).map(|r| r.spec)
}

/// The bits the base table requires set (bit 91, the base table's only `Required` field):
/// a family row that takes them hands the base decoder its required value.
const BASE_REQUIRED: u128 = field::bit_91.mask();

/// Whether the row takes its bits away from the base table (an added field or a required
/// value), rather than reinterpreting a base field's value.
fn takes_bits(r: &FamilyRow) -> bool {
    matches!(
        r.change,
        Change::ImmAfterUr
            | Change::SecondUr
            | Change::Uai
            | Change::Required { .. }
            | Change::BFlag { .. }
            | Change::HandleImm { .. }
    )
}

/// Decodes `word` as nvdisasm `-b <arch>` reads it.
///
/// For the SM100 family this is exactly [`crate::decode`]. Fails with
/// [`DecodeError::NotTld4OnArch`] for an opcode that is not TLD4 there,
/// [`DecodeError::FormNotModeled`] for a TLD4 form tld4 does not model (valid or not: the
/// word's other fields are not checked), [`DecodeError::RequiredBits`] where a family row's
/// bits must hold a value, and the base table's errors otherwise.
pub fn decode_arch(arch: Arch, word: u128) -> Result<ArchTld4, DecodeError> {
    let family = arch.family();
    let opcode = field::form.get(word) as u16;
    let form =
        arch_rows::form(family, opcode).ok_or(DecodeError::NotTld4OnArch { arch, opcode })?;
    let Some(mut base_form) = form.modeled_as else {
        return Err(DecodeError::FormNotModeled { arch, opcode });
    };
    let mut base = word;
    let mut b_flag = false;
    let mut imms = [0u16; 3];
    for r in arch_rows::form_rows(family, opcode).filter(|r| takes_bits(r)) {
        let raw = r.spec.get(word);
        match r.change {
            Change::Required { value } if raw != value => {
                return Err(DecodeError::RequiredBits {
                    arch,
                    bits: r.spec.bits(),
                    value,
                });
            }
            Change::BFlag { clear } => {
                b_flag = raw != 0;
                if b_flag {
                    base_form = HandleForm::Register;
                } else if clear == BClear::Refused {
                    return Err(DecodeError::RequiredBits {
                        arch,
                        bits: r.spec.bits(),
                        value: 1,
                    });
                }
            }
            Change::HandleImm { slot, .. } => imms[slot as usize % 3] = raw as u16,
            _ => {}
        }
        base = (base & !r.spec.mask()) | (BASE_REQUIRED & r.spec.mask());
    }
    base = field::form.set(base, base_form.opcode() as u32);
    let insn = crate::decode(base)?;
    let get = |pred: fn(&Change) -> bool| spec_of(family, opcode, pred).map(|s| s.get(word));
    Ok(ArchTld4 {
        arch,
        opcode,
        insn,
        imm8: get(|c| matches!(c, Change::ImmAfterUr)).unwrap_or(0) as u8,
        ur2: UReg(get(|c| matches!(c, Change::SecondUr)).unwrap_or(0xff) as u8),
        uai: get(|c| matches!(c, Change::Uai)).unwrap_or(0) != 0,
        b_flag,
        imms,
    })
}

impl ArchTld4 {
    /// The SM100 instruction as an [`ArchTld4`] of `arch`'s SM100 family (`arch` must be of
    /// that family for the word to mean the same; other families re-read it).
    pub fn base(arch: Arch, insn: Tld4) -> Self {
        ArchTld4 {
            arch,
            opcode: insn.form.opcode(),
            insn,
            imm8: 0,
            ur2: UReg::URZ,
            uai: false,
            b_flag: false,
            imms: [0; 3],
        }
    }

    /// Whether the form prints URc and the second uniform register always, URZ included
    /// ([`crate::FormRow::both_urs`]: SM120's 0xf64).
    pub fn both_urs(&self) -> bool {
        self.form_row().is_some_and(|f| f.both_urs)
    }

    /// The family rows that apply to this instruction's form, in order.
    pub fn rows(&self) -> impl Iterator<Item = &'static FamilyRow> {
        arch_rows::form_rows(self.arch.family(), self.opcode)
    }

    /// Where the constant-bank form reads its texture handle (0xb63: `c[bank][4 * offset]`,
    /// Mesa's NAK; docs/sources.md, TLD4 on every architecture), or `None` for a form that
    /// names no constant-bank slot. What else the form reads is [`ArchTld4::used_registers`].
    pub fn constant_slot(&self) -> Option<ConstantSlot> {
        let imm = |role: ImmRole| {
            self.rows().find_map(|r| match r.change {
                Change::HandleImm { slot, role: r } if r == role => {
                    Some(self.imms[slot as usize % 3])
                }
                _ => None,
            })
        };
        Some(ConstantSlot {
            bank: imm(ImmRole::ConstantBank)? as u8,
            offset: imm(ImmRole::ConstantWordOffset)? as u32 * 4,
        })
    }

    /// The 128-bit word, unchecked: the base table's word with the family's rows applied
    /// (values wider than their bits keep their low bits).
    pub fn encode(&self) -> u128 {
        let mut word = field::form.set(self.insn.encode(), self.opcode as u32);
        for r in self.rows() {
            let value = match r.change {
                Change::Narrowed { .. } | Change::Renamed { .. } => continue,
                Change::ImmAfterUr => self.imm8 as u32,
                Change::SecondUr => self.ur2.0 as u32,
                Change::Uai => self.uai as u32,
                Change::Required { value } => value,
                Change::BFlag { .. } => self.b_flag as u32,
                Change::HandleImm { slot, .. } => self.imms[slot as usize % 3] as u32,
            };
            word = r.spec.set(word, value);
        }
        word
    }

    /// The 128-bit word, checked: the base fields fit their bits ([`Tld4::try_encode`]), a
    /// narrowed field fits its family's bits, the form exists on the architecture, and
    /// nvdisasm `-b <arch>` accepts the word ([`decode_arch`]).
    pub fn try_encode(&self) -> Result<u128, EncodeError> {
        if self.form_row().is_none() {
            return Err(EncodeError::Illegal(DecodeError::NotTld4OnArch {
                arch: self.arch,
                opcode: self.opcode,
            }));
        }
        let base = self.insn.try_encode()?;
        for r in self.rows() {
            if let Change::HandleImm { slot, .. } = r.change {
                let v = self.imms[slot as usize % 3] as u32;
                if v >> r.spec.width() != 0 {
                    return Err(EncodeError::TooWide {
                        field: r.spec.name,
                        bits: r.spec.bits(),
                        width: r.spec.width(),
                        value: v,
                    });
                }
            }
            if let Change::Narrowed { field: name, .. } = r.change {
                let v = crate::fields::FIELDS
                    .iter()
                    .find(|f| f.name == name)
                    .map_or(0, |f| f.get(base));
                if v >> r.spec.width() != 0 {
                    return Err(EncodeError::TooWide {
                        field: r.spec.name,
                        bits: r.spec.bits(),
                        width: r.spec.width(),
                        value: v,
                    });
                }
            }
        }
        let word = self.encode();
        let back = decode_arch(self.arch, word)?;
        if back.insn.form != self.insn.form {
            // A form whose bit 59 decides the base form (0xb63): `.B` and the register
            // form go together.
            return Err(EncodeError::Illegal(DecodeError::FormNotModeled {
                arch: self.arch,
                opcode: self.opcode,
            }));
        }
        Ok(word)
    }

    /// Every register the instruction reads or writes on its architecture: the base table's
    /// list ([`Tld4::used_registers`]) with the family's rows applied.
    ///
    /// - A narrowed URc at the value the family prints `???<n>` (UR63 on the sm_75 and sm_80
    ///   families) is that family's zero uniform register and is not listed, as URZ is not
    ///   (docs/sources.md, SM90: 63 is SM90's URZ).
    /// - The SM120 family's second uniform register (index 1), and URc of the 0xf64 form
    ///   (index 0), are listed as reads (role [`OperandRole::SecondUr`]) unless URZ. A guess: nvdisasm prints it as an
    ///   operand, what the hardware does with it is unknown; listing it is the conservative
    ///   choice for a scoreboard (docs/sources.md, TLD4 on every architecture).
    ///
    /// The scheduling-control fields read the same bits on every family ([`ArchTld4::scheduling`]).
    pub fn used_registers(&self) -> Vec<UsedRegister> {
        let mut used: Vec<UsedRegister> = self.insn.used_registers().to_vec();
        for r in self.rows() {
            match r.change {
                Change::HandleImm { .. } => {
                    // The immediates replace URc: no uniform register is read.
                    used.retain(|u| u.role != OperandRole::Handle);
                }
                Change::Narrowed {
                    field: "ur",
                    unknown: Some(n),
                } if self.insn.form == HandleForm::Uniform && self.insn.ur.0 == n => {
                    used.retain(|u| u.role != OperandRole::Handle);
                }
                Change::SecondUr => {
                    let at = used
                        .iter()
                        .position(|u| u.access == Access::CondWrite)
                        .unwrap_or(used.len());
                    // 0xf64's URc (index 0), then the second uniform register (index 1).
                    let urc = Some(self.insn.ur).filter(|_| self.both_urs());
                    let extra = [urc, Some(self.ur2)];
                    for (k, ur) in extra.into_iter().enumerate().rev() {
                        if let Some(ur) = ur.filter(|u| !u.is_urz()) {
                            used.insert(
                                at,
                                UsedRegister {
                                    location: Location::UReg(ur.0),
                                    access: Access::CondRead,
                                    role: OperandRole::SecondUr,
                                    index: k as u8,
                                },
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        used
    }

    /// The scheduling-control fields: at the base table's bits on every family, with the
    /// same opex table (docs/sources.md, TLD4 on every architecture).
    pub const fn scheduling(&self) -> Scheduling {
        self.insn.scheduling()
    }

    /// The form row of this instruction's form on its family.
    fn form_row(&self) -> Option<&'static arch_rows::FormRow> {
        arch_rows::form(self.arch.family(), self.opcode)
    }

    /// The family's text differences for this instruction.
    fn dialect(&self) -> Dialect {
        let mut d = Dialect::BASE;
        d.both_urs = self.both_urs();
        for r in self.rows() {
            match r.change {
                Change::Narrowed { unknown, .. } => d.ur_unknown = unknown,
                Change::ImmAfterUr => d.imm_after_ur = Some(self.imm8),
                Change::SecondUr => d.second_ur = Some(self.ur2),
                Change::Uai => d.uai = self.uai,
                Change::Renamed { name, .. } => d.offset3 = Some(name),
                Change::Required { .. } => {}
                Change::BFlag { clear } => {
                    if !self.b_flag && clear == BClear::Unknown {
                        d.b_name = Some("???0");
                    }
                }
                Change::HandleImm { slot, .. } => {
                    d.imms[slot as usize % 3] = self.imms[slot as usize % 3];
                    d.imm_count = d.imm_count.max(slot + 1);
                }
            }
        }
        d
    }

    /// nvdisasm `-b <arch>`'s text of the instruction.
    pub fn write_text(&self, out: &mut impl fmt::Write) -> fmt::Result {
        self.insn.write_text_in(out, &self.dialect())
    }

    /// The text as a new string.
    pub fn text(&self) -> String {
        let mut s = String::with_capacity(72);
        let _ = self.write_text(&mut s);
        s
    }

    /// The text as nvdisasm lists it in a cubin's code (`nvdisasm` on an ELF file, not
    /// `-b <arch>` on raw words): the closing ` ;` whatever the scheduling fields hold
    /// ([`Tld4::write_listing_text`](crate::Tld4::write_listing_text)).
    pub fn listing_text(&self) -> String {
        let mut s = String::with_capacity(72);
        let d = Dialect {
            listing: true,
            ..self.dialect()
        };
        let _ = self.insn.write_text_in(&mut s, &d);
        s
    }
}

impl fmt::Display for ArchTld4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch_text::parse_arch;

    fn locations(insn: &ArchTld4) -> Vec<(Location, OperandRole)> {
        insn.used_registers()
            .iter()
            .map(|u| (u.location, u.role))
            .collect()
    }

    #[test]
    fn used_registers_follow_the_family_rows() {
        // SM90: UR4 is the handle; UR63 prints `???63` and is the family's zero register.
        let a = parse_arch(
            Arch::Sm90,
            "TLD4.G.AOFFI R10, R8, R28, R24, UR4, 0xfc, 2D ;",
        )
        .unwrap();
        assert!(locations(&a).contains(&(Location::UReg(4), OperandRole::Handle)));
        let z = parse_arch(
            Arch::Sm90,
            "TLD4.G.AOFFI R10, R8, R28, R24, ???63, 0xfc, 2D ;",
        )
        .unwrap();
        assert_eq!(z.insn.ur.0, 63);
        assert!(!locations(&z)
            .iter()
            .any(|(l, _)| matches!(l, Location::UReg(_))));
        // SM120: the second uniform register is listed after the handle, before the writes.
        let b = parse_arch(
            Arch::Sm120,
            "TLD4.G.AOFFI R10, R8, R28, R24, UR4, UR6, 2D ;",
        )
        .unwrap();
        let l = locations(&b);
        let h = l
            .iter()
            .position(|x| *x == (Location::UReg(4), OperandRole::Handle));
        let s = l
            .iter()
            .position(|x| *x == (Location::UReg(6), OperandRole::SecondUr));
        assert_eq!(s, h.map(|h| h + 1));
        // URZ as the second register: nothing more.
        let c = parse_arch(Arch::Sm120, "TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;").unwrap();
        assert_eq!(c.ur2, UReg::URZ);
        assert_eq!(c.used_registers().len(), b.used_registers().len() - 1);
        // SM100: exactly the base list.
        let d = ArchTld4::base(
            Arch::Sm100,
            crate::parse("TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;").unwrap(),
        );
        assert_eq!(d.used_registers(), d.insn.used_registers().to_vec());
        assert_eq!(d.scheduling(), d.insn.scheduling());
    }

    #[test]
    fn sm75_refuses_bit_59_and_sm107_has_no_tld4() {
        let w: u128 = 0x00000000_089e1f0a_20ff0418_1c087f63;
        assert!(decode_arch(Arch::Sm75, w).is_ok());
        assert!(matches!(
            decode_arch(Arch::Sm75, w | 1 << 59),
            Err(DecodeError::RequiredBits { value: 0, .. })
        ));
        assert!(decode_arch(Arch::Sm80, w | 1 << 59).is_ok());
        assert!(matches!(
            decode_arch(Arch::Sm107a, w),
            Err(DecodeError::NotTld4OnArch { opcode: 0xf63, .. })
        ));
        // 0x364 wants bit 91 clear (nvdisasm: "Unrecognized operation" otherwise).
        assert!(matches!(
            decode_arch(Arch::Sm90, w ^ 0xf63 ^ 0x364),
            Err(DecodeError::RequiredBits { value: 0, .. })
        ));
    }

    /// Texts nvdisasm 13.5 printed for these words (`-b SM80` and `-b SM75`; the first
    /// three are in tests/golden/nvdisasm_arch_sm_80.tsv).
    #[test]
    fn pre_sm100_forms_print_and_name_their_constant_slot() {
        let cases: [(Arch, u128, &str); 6] = [
            (
                Arch::Sm80,
                0x00000000009e1f0a_20ff04181c087364,
                "TLD4.G.???0.AOFFI R10, R8, R28, R24, 2D ;",
            ),
            (
                Arch::Sm80,
                0x00000000009e1f0a_20ff04181c087b63,
                "TLD4.G.AOFFI R10, R8, R28, R24, 0x3, 0x3f04, 2D ;",
            ),
            (
                Arch::Sm80,
                0x00000000009e1f0a_20ff04181c087b65,
                "TLD4.G.???0.AOFFI R10, R8, R28, R24, 0x3, 0x4, 0xfc, 2D ;",
            ),
            (
                Arch::Sm75,
                0x00000000009e1f0a_20ff04ff1c087b63,
                "TLD4.G.AOFFI R10, R8, R28, 0x3, 0x3f04, 2D ;",
            ),
            (
                Arch::Sm75,
                0x00000000009e1f0a_28ff04ff1c087b63,
                "TLD4.G.B.AOFFI R10, R8, R28, ???255, 0x3, 0x3f04, 2D ;",
            ),
            (
                Arch::Sm75,
                0x00000000009e1f0a_28ff04ff1c087b65,
                "TLD4.G.B.AOFFI R10, R8, R28, ???255, 0x3, 0x4, 0xfc, 2D ;",
            ),
        ];
        for (arch, w, text) in cases {
            let i = decode_arch(arch, w).unwrap();
            assert_eq!(i.text(), text);
            assert_eq!(i.encode(), w);
            let p = parse_arch(arch, text).unwrap();
            assert_eq!(p.text(), text);
            assert_eq!(p.opcode, i.opcode);
        }
        // 0xb63 names c[3][4 * 0x3f04] and reads no uniform register.
        let b63 = decode_arch(Arch::Sm90, 0x00000000009e1f0a_20ff04181c087b63).unwrap();
        assert_eq!(
            b63.constant_slot(),
            Some(ConstantSlot {
                bank: 3,
                offset: 0x3f04 * 4
            })
        );
        assert!(!b63
            .used_registers()
            .iter()
            .any(|u| matches!(u.location, Location::UReg(_))));
        // SM75 refuses 0x364 and 0xb65 with bit 59 clear; the other forms name no slot.
        assert!(decode_arch(Arch::Sm75, 0x00000000009e1f0a_20ff04181c087b65).is_err());
        let b65 = decode_arch(Arch::Sm80, 0x00000000009e1f0a_20ff04181c087b65).unwrap();
        assert_eq!(b65.constant_slot(), None);
        // An immediate too wide for its bits is refused by try_encode.
        let mut wide = b63;
        wide.imms[0] = 32;
        assert!(matches!(
            wide.try_encode(),
            Err(EncodeError::TooWide { .. })
        ));
    }
}
