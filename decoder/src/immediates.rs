//! The immediate operands of every TLD4 form, from the field table: each one's field (its
//! bits, and with them its range, are written once, in [`crate::FIELDS`] or the family rows
//! [`crate::FAMILY_ROWS`]) and where the typed instruction holds it. The parsers range-check
//! every immediate against its field here, so no immediate is ever cut to fit its bits.

use crate::arch::Family;
use crate::arch_insn::ArchTld4;
use crate::error::ParseError;
use crate::fields::arch_rows::{self, Change};
use crate::fields::{field, FieldSpec};
use crate::values::WriteMask;

/// Where an [`ArchTld4`] holds an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImmediateSlot {
    /// The `n`th immediate printed after Rb in place of URc ([`Change::HandleImm`]).
    Handle(u8),
    /// The immediate printed after URc ([`Change::ImmAfterUr`]).
    AfterUr,
    /// The write mask, the last operand (the base table's `write_mask`).
    WriteMask,
}

/// One immediate operand of a form: its field and where it is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Immediate {
    /// The field: its name, its bits and so its width.
    pub spec: FieldSpec,
    /// Where [`ArchTld4`] holds it.
    pub slot: ImmediateSlot,
}

impl Immediate {
    /// The largest value the field holds.
    pub const fn max(&self) -> u32 {
        ((1u64 << self.spec.width()) - 1) as u32
    }

    /// `value` if the field holds it, else the error at 1-based `column` naming the field,
    /// its bits and its range.
    pub fn check(&self, value: u64, column: usize) -> Result<u32, ParseError> {
        if value <= self.max() as u64 {
            return Ok(value as u32);
        }
        Err(ParseError {
            column,
            expected: format!(
                "the {} immediate `{}` (bits {}, {} bits: 0x0..{:#x})",
                match self.slot {
                    ImmediateSlot::WriteMask => "write-mask",
                    _ => "form's",
                },
                self.spec.name,
                self.spec.bits(),
                self.spec.width(),
                self.max()
            ),
            found: format!("{value:#x}"),
        })
    }
}

/// The immediates of the form `opcode` on `family`, in the order nvdisasm prints them: the
/// handle immediates by slot, the immediate after URc, the write mask.
pub fn immediates(family: Family, opcode: u16) -> Vec<Immediate> {
    let mut out: Vec<Immediate> = arch_rows::form_rows(family, opcode)
        .filter_map(|r| match r.change {
            Change::HandleImm { slot, .. } => Some(Immediate {
                spec: r.spec,
                slot: ImmediateSlot::Handle(slot),
            }),
            Change::ImmAfterUr => Some(Immediate {
                spec: r.spec,
                slot: ImmediateSlot::AfterUr,
            }),
            _ => None,
        })
        .collect();
    out.sort_by_key(|i| match i.slot {
        ImmediateSlot::Handle(n) => n,
        ImmediateSlot::AfterUr => 3,
        ImmediateSlot::WriteMask => 4,
    });
    out.push(Immediate {
        spec: field::write_mask,
        slot: ImmediateSlot::WriteMask,
    });
    out
}

/// A number as nvdisasm prints immediates (`0x` and hex digits), at any size (so that a
/// value too wide for its field is reported as such, not as a malformed number).
pub(crate) fn parse_hex(s: &str) -> Option<u64> {
    let digits = s.strip_prefix("0x")?;
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

impl ArchTld4 {
    /// The immediate held at `slot`.
    pub fn immediate(&self, slot: ImmediateSlot) -> u32 {
        match slot {
            ImmediateSlot::Handle(n) => self.imms[n as usize % 3] as u32,
            ImmediateSlot::AfterUr => self.imm8 as u32,
            ImmediateSlot::WriteMask => self.insn.write_mask.0 as u32,
        }
    }

    /// Sets the immediate at `slot` (unchecked: [`Immediate::check`] the value first; the
    /// word keeps the field's low bits).
    pub fn set_immediate(&mut self, slot: ImmediateSlot, value: u32) {
        match slot {
            ImmediateSlot::Handle(n) => self.imms[n as usize % 3] = value as u16,
            ImmediateSlot::AfterUr => self.imm8 = value as u8,
            ImmediateSlot::WriteMask => self.insn.write_mask = WriteMask(value as u8),
        }
    }
}
