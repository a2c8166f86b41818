//! What a TLD4 reads and writes, found from the instruction alone, without executing it.
//!
//! A timing model needs this before it runs the instruction: which registers the
//! scoreboard must wait on, which it must reserve. [`Tld4::operand_vectors`] lists each
//! operand vector (first register and length) and [`Tld4::used_registers`] lists every
//! register, uniform register and predicate, one entry each, in a fixed-size array (no
//! allocation; iced-x86's `InstructionInfo::used_registers()` style). RZ, URZ and PT are left
//! out: they read constants and swallow writes.
//!
//! Sources: the operand layouts ([`crate::RaLayout`], [`crate::RbLayout`]) are ptxas output
//! and NAK's register-handle convention (docs/sources.md, What ptxas emits; NAK conventions); the
//! destination counts follow the write-mask rule (docs/sources.md, NAK conventions) and the
//! F16 packing decision (docs/sources.md, Decisions); the predicate destination is ptxas
//! output (docs/sources.md, What ptxas emits).

use crate::fields::Tld4;
use crate::values::*;

/// The number of registers written at Rd and at Rd2 for a write mask.
///
/// 32-bit output: the enabled components fill Rd, Rd+1, then Rd2, Rd2+1 (docs/sources.md,
/// NAK conventions). F16 output (`f16 = true`): two halves a register, so one register at Rd
/// for one or two components and one more at Rd2 for three or four (docs/sources.md,
/// Decisions: the F16 packing is the best evidence, unmeasured). Only the mask's low four
/// bits count (a [`WriteMask`] holds nothing else after decoding), so no count can exceed
/// four and nothing wraps.
///
/// ```
/// use tld4_decoder::{destination_counts, WriteMask};
/// assert_eq!(destination_counts(WriteMask(0b0111), false), (2, 1));
/// assert_eq!(destination_counts(WriteMask(0b0111), true), (1, 1));
/// assert_eq!(destination_counts(WriteMask(0), false), (0, 0));
/// ```
pub const fn destination_counts(mask: WriteMask, f16: bool) -> (u8, u8) {
    // `count` reads the low four bits only: at most 4.
    let n = mask.count() as u8;
    if f16 {
        ((n > 0) as u8, (n > 2) as u8)
    } else if n > 2 {
        (2, n - 2)
    } else {
        (n, 0)
    }
}

/// Which operand of the instruction a register belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OperandRole {
    /// The guard predicate (`@P3`).
    Guard,
    /// Ra, the coordinate vector (\[layer\], u, v or x, y, z).
    Ra,
    /// Rb, the vector of \[handle\], \[offsets\], \[depth reference\].
    Rb,
    /// The uniform register holding the texture handle (form 0xf63).
    Handle,
    /// Rd, the destination of the first one or two results.
    Rd,
    /// Rd2, the destination of the remaining results.
    Rd2,
    /// The predicate destination (set when the footprint is not resident).
    PredDst,
    /// A uniform register operand of the SM120 family whose meaning is unknown: the second
    /// uniform register (bits 55:48; index 1), or URc of the 0xf64 form (index 0)
    /// (docs/sources.md, TLD4 on every architecture).
    SecondUr,
}

impl OperandRole {
    /// A short name: `guard`, `Ra`, `Rb`, `handle`, `Rd`, `Rd2`, `pred_dst`.
    pub const fn name(self) -> &'static str {
        match self {
            OperandRole::Guard => "guard",
            OperandRole::Ra => "Ra",
            OperandRole::Rb => "Rb",
            OperandRole::Handle => "handle",
            OperandRole::Rd => "Rd",
            OperandRole::Rd2 => "Rd2",
            OperandRole::PredDst => "pred_dst",
            OperandRole::SecondUr => "ur2",
        }
    }
}

/// A register of one of the three files TLD4 touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A per-lane general register R0..R254.
    Reg(u8),
    /// A uniform register UR0..UR254.
    UReg(u8),
    /// A per-lane predicate P0..P6.
    Pred(u8),
}

impl core::fmt::Display for Location {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Location::Reg(r) => write!(f, "R{r}"),
            Location::UReg(u) => write!(f, "UR{u}"),
            Location::Pred(p) => write!(f, "P{p}"),
        }
    }
}

/// How the instruction touches a register.
///
/// For a scoreboard: every `Read` and `CondRead` is a source dependency (wait for pending
/// writes); every `CondWrite` is a destination to reserve. "Cond" says which lanes: the lanes
/// that execute, that is, active lanes whose guard predicate holds. A lane that does not
/// execute neither reads its sources nor changes its destinations; a warp fault writes
/// nothing at all (decision of the executor, docs/sources.md, Decisions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Access {
    /// Read by every active lane (the guard predicate).
    Read,
    /// Read only for the lanes that execute (Ra, Rb; the uniform handle, read once for the
    /// warp when any lane executes).
    CondRead,
    /// Written only by the lanes that execute (Rd, Rd2, the predicate destination).
    CondWrite,
}

impl Access {
    /// True for [`Access::Read`] and [`Access::CondRead`].
    pub const fn is_read(self) -> bool {
        matches!(self, Access::Read | Access::CondRead)
    }
    /// True for [`Access::CondWrite`].
    pub const fn is_write(self) -> bool {
        matches!(self, Access::CondWrite)
    }
}

/// One register the instruction reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UsedRegister {
    /// The register.
    pub location: Location,
    /// How it is touched.
    pub access: Access,
    /// The operand it belongs to.
    pub role: OperandRole,
    /// Its position in the operand vector (0 for the first register; 0 for single operands).
    pub index: u8,
}

/// An operand vector of general registers: `count` consecutive registers from `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandVector {
    /// Ra, Rb, Rd or Rd2.
    pub role: OperandRole,
    /// The first register (255 only for an illegal encoding: Ra or a needed Rb at `???255`).
    pub first: u8,
    /// How many registers it spans (1..=4).
    pub count: u8,
    /// Read or written.
    pub access: Access,
}

impl OperandVector {
    /// The last register it spans, which may lie past R254 (such an instruction faults with
    /// `register_out_of_range` when executed).
    pub const fn last(&self) -> u16 {
        self.first as u16 + self.count as u16 - 1
    }
}

/// The general-register operand vectors: up to four (Ra, Rb, Rd, Rd2), in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandVectors {
    items: [OperandVector; 4],
    len: u8,
}

impl core::ops::Deref for OperandVectors {
    type Target = [OperandVector];
    fn deref(&self) -> &[OperandVector] {
        &self.items[..self.len as usize]
    }
}

/// The most registers one TLD4 can touch: guard, 4 Ra, 4 Rb, the handle, 2 Rd, 2 Rd2 and
/// the predicate destination.
pub const MAX_USED_REGISTERS: usize = 15;

/// Every register the instruction reads or writes, without allocation; dereferences to a
/// slice. Order: guard, Ra, Rb, handle, Rd, Rd2, predicate destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UsedRegisters {
    items: [UsedRegister; MAX_USED_REGISTERS],
    len: u8,
}

impl core::ops::Deref for UsedRegisters {
    type Target = [UsedRegister];
    fn deref(&self) -> &[UsedRegister] {
        &self.items[..self.len as usize]
    }
}

impl UsedRegisters {
    /// True when general register `r` is read (by every active lane or by the executing
    /// ones), as a source of the instruction.
    ///
    /// ```
    /// use tld4_decoder::parse;
    /// let used = parse("TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;")?.used_registers();
    /// let read: Vec<u8> = (18..27).filter(|&r| used.reads_reg(r)).collect();
    /// assert_eq!(read, [20, 21, 22, 23, 24]);
    /// assert!(!used.reads_reg(8), "R8 is written, not read");
    /// # Ok::<(), tld4_decoder::ParseError>(())
    /// ```
    pub fn reads_reg(&self, r: u8) -> bool {
        self.iter()
            .any(|u| u.location == Location::Reg(r) && u.access != Access::CondWrite)
    }

    fn push(&mut self, location: Location, access: Access, role: OperandRole, index: u8) {
        self.items[self.len as usize] = UsedRegister {
            location,
            access,
            role,
            index,
        };
        self.len += 1;
    }
}

impl Tld4 {
    /// The number of registers written at Rd and at Rd2 (see [`destination_counts`]).
    pub const fn destination_counts(&self) -> (u8, u8) {
        destination_counts(
            self.write_mask,
            matches!(self.f16_mode, F16Mode::Rn | F16Mode::Rz),
        )
    }

    /// The general-register operand vectors in order Ra, Rb, Rd, Rd2. Rb is left out when the
    /// form and modifiers read no Rb register; Rd or Rd2 when it is RZ (a discarded result)
    /// or receives no result. Ra is always listed, even at register 255 (an illegal encoding).
    ///
    /// ```
    /// use tld4_decoder::{parse, Access, OperandRole};
    /// let insn = parse("TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_2D ;")?;
    /// let v = insn.operand_vectors();
    /// assert_eq!(v.iter().map(|v| (v.role, v.first, v.count)).collect::<Vec<_>>(),
    ///     [(OperandRole::Ra, 20, 3), (OperandRole::Rb, 24, 1), (OperandRole::Rd, 8, 2), (OperandRole::Rd2, 10, 2)]);
    /// assert_eq!(v[2].access, Access::CondWrite);
    /// # Ok::<(), tld4_decoder::ParseError>(())
    /// ```
    pub const fn operand_vectors(&self) -> OperandVectors {
        let blank = OperandVector {
            role: OperandRole::Ra,
            first: 0,
            count: 0,
            access: Access::CondRead,
        };
        let mut v = OperandVectors {
            items: [blank; 4],
            len: 0,
        };
        v.items[0] = OperandVector {
            role: OperandRole::Ra,
            first: self.ra.0,
            count: self.ra_layout().len(),
            access: Access::CondRead,
        };
        v.len = 1;
        let rb = self.rb_layout().len();
        if rb > 0 {
            v.items[v.len as usize] = OperandVector {
                role: OperandRole::Rb,
                first: self.rb.0,
                count: rb,
                access: Access::CondRead,
            };
            v.len += 1;
        }
        let (nd, nd2) = self.destination_counts();
        if !self.rd.is_rz() && nd > 0 {
            v.items[v.len as usize] = OperandVector {
                role: OperandRole::Rd,
                first: self.rd.0,
                count: nd,
                access: Access::CondWrite,
            };
            v.len += 1;
        }
        if !self.rd2.is_rz() && nd2 > 0 {
            v.items[v.len as usize] = OperandVector {
                role: OperandRole::Rd2,
                first: self.rd2.0,
                count: nd2,
                access: Access::CondWrite,
            };
            v.len += 1;
        }
        v
    }

    /// Every register, uniform register and predicate the instruction reads or writes (RZ,
    /// URZ and PT left out), one entry per register, in the order guard, Ra, Rb, handle, Rd,
    /// Rd2, predicate destination.
    ///
    /// Registers of a vector that would lie past R254 are left out: such an instruction
    /// faults (`register_out_of_range`) before it reads or writes anything;
    /// [`Tld4::operand_vectors`] still shows the whole span. When Rd's pair overlaps Rd2's, the
    /// shared register is listed under both (it is written twice, Rd's value first).
    /// The uniform handle is listed for form 0xf63 only (0xd64 reads its handle from Rb).
    ///
    /// ```
    /// use tld4_decoder::{parse, Access, Location};
    /// let insn = parse("@P1 TLD4.G.AOFFI P0, R10, R8, R20, R24, UR4, 2D ;")?;
    /// let used = insn.used_registers();
    /// let list: Vec<_> = used.iter().map(|u| (u.location, u.access)).collect();
    /// assert_eq!(list, [
    ///     (Location::Pred(1), Access::Read),
    ///     (Location::Reg(20), Access::CondRead), (Location::Reg(21), Access::CondRead),
    ///     (Location::Reg(24), Access::CondRead),
    ///     (Location::UReg(4), Access::CondRead),
    ///     (Location::Reg(8), Access::CondWrite), (Location::Reg(9), Access::CondWrite),
    ///     (Location::Reg(10), Access::CondWrite), (Location::Reg(11), Access::CondWrite),
    ///     (Location::Pred(0), Access::CondWrite),
    /// ]);
    /// # Ok::<(), tld4_decoder::ParseError>(())
    /// ```
    pub fn used_registers(&self) -> UsedRegisters {
        let blank = UsedRegister {
            location: Location::Reg(0),
            access: Access::Read,
            role: OperandRole::Guard,
            index: 0,
        };
        let mut used = UsedRegisters {
            items: [blank; MAX_USED_REGISTERS],
            len: 0,
        };
        if !self.guard_pred.is_pt() {
            used.push(
                Location::Pred(self.guard_pred.0),
                Access::Read,
                OperandRole::Guard,
                0,
            );
        }
        let vectors = self.operand_vectors();
        let push_vector = |used: &mut UsedRegisters, v: &OperandVector| {
            for k in 0..v.count {
                let r = v.first as u16 + k as u16;
                if r < Reg::RZ.0 as u16 {
                    used.push(Location::Reg(r as u8), v.access, v.role, k);
                }
            }
        };
        for v in vectors
            .iter()
            .filter(|v| matches!(v.role, OperandRole::Ra | OperandRole::Rb))
        {
            push_vector(&mut used, v);
        }
        if self.form == HandleForm::Uniform && !self.ur.is_urz() {
            used.push(
                Location::UReg(self.ur.0),
                Access::CondRead,
                OperandRole::Handle,
                0,
            );
        }
        for v in vectors
            .iter()
            .filter(|v| matches!(v.role, OperandRole::Rd | OperandRole::Rd2))
        {
            push_vector(&mut used, v);
        }
        if !self.pred_dst.is_pt() {
            used.push(
                Location::Pred(self.pred_dst.0),
                Access::CondWrite,
                OperandRole::PredDst,
                0,
            );
        }
        used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn counts_never_exceed_four_registers() {
        for raw in 0..=255u8 {
            let (a, b) = destination_counts(WriteMask(raw), false);
            assert_eq!(a as u32 + b as u32, (raw & 0xf).count_ones(), "{raw:#x}");
            assert!(a <= 2 && b <= 2);
            let (a, b) = destination_counts(WriteMask(raw), true);
            assert!(a <= 1 && b <= 1);
        }
        // A hand-made mask with bits above the field's four: only the low four count.
        assert_eq!(destination_counts(WriteMask(0xff), false), (2, 2));
        assert_eq!(destination_counts(WriteMask(0xf0), false), (0, 0));
    }

    #[test]
    fn rz_urz_pt_are_left_out_and_register_handle_form_reads_rb() {
        let insn = parse("TLD4.R.B RZ, R8, R20, R24, 2D, 0x3 ;").unwrap();
        let used = insn.used_registers();
        let regs: Vec<_> = used.iter().map(|u| (u.location, u.role)).collect();
        assert_eq!(
            regs,
            [
                (Location::Reg(20), OperandRole::Ra),
                (Location::Reg(21), OperandRole::Ra),
                (Location::Reg(24), OperandRole::Rb),
                (Location::Reg(8), OperandRole::Rd),
                (Location::Reg(9), OperandRole::Rd),
            ]
        );
    }

    #[test]
    fn f16_output_writes_one_register_per_pair() {
        let insn = parse("TLD4.R.F16.RN R10, R8, R20, UR4, 2D ;").unwrap();
        let w: Vec<_> = insn
            .used_registers()
            .iter()
            .filter(|u| u.access.is_write())
            .map(|u| u.location)
            .collect();
        assert_eq!(w, [Location::Reg(8), Location::Reg(10)]);
    }

    #[test]
    fn vectors_past_r254_are_cut_from_the_list_but_not_from_the_span() {
        let insn = parse("TLD4.R R10, R8, R254, UR4, ARRAY_CUBE ;").unwrap();
        let ra = insn.operand_vectors()[0];
        assert_eq!((ra.first, ra.count, ra.last()), (254, 4, 257));
        let ra_regs = insn
            .used_registers()
            .iter()
            .filter(|u| u.role == OperandRole::Ra)
            .count();
        assert_eq!(ra_regs, 1);
    }

    #[test]
    fn the_fullest_instruction_fits() {
        let insn = parse("@P2 TLD4.R.B.PTP.DC P1, R12, R8, R20, R24, ARRAY_CUBE ;").unwrap();
        let used = insn.used_registers();
        // guard + 4 Ra + 4 Rb (handle, 2 PTP, dref) + 4 destinations + pred dst.
        assert_eq!(used.len(), 14);
        assert!(used.len() <= MAX_USED_REGISTERS);
    }
}
