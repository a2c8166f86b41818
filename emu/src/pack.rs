//! Packing the gathered values into destination registers: the write mask, F16 output.
//!
//! Sources: the mask rule (enabled components packed in R, G, B, A order into Rd, Rd+1,
//! then Rd2, Rd2+1) is ptxas output and Mesa NAK (docs/sources.md). The F16 layout (two halves a
//! register, the lower component in the low 16 bits, the first pair into Rd and the second
//! into Rd2, an odd last half 0) is the best evidence (Maxwell's TLD4S), not a measurement;
//! it is kept in this module alone so that a hardware measurement changes one place.
//!
//! Internals of the executor, public for tools that explain a lane's writes (`tld4 explain`):
//! an embedder needs only [`destination_counts`] and [`OutputMode`], which the crate root
//! re-exports.

use half::f16;
use tld4_decoder::WriteMask;

/// How values are written (the instruction's F16 field, less its INVALID value).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// 32-bit results.
    #[default]
    F32,
    /// Binary16, rounded to nearest even (`.F16.RN`).
    F16Rn,
    /// Binary16, rounded toward zero (`.F16.RZ`).
    F16Rz,
}

/// NVIDIA's canonical binary16 NaN. Decision where no source speaks (docs/sources.md): every NaN
/// becomes 0x7fff.
pub const F16_NAN: u16 = 0x7fff;

/// Rounds to binary16, to nearest even (the `half` crate's conversion), NaN -> 0x7fff.
#[inline]
pub fn f16_rn(x: f32) -> u16 {
    if x.is_nan() {
        return F16_NAN;
    }
    f16::from_f32(x).to_bits()
}

/// Rounds to binary16 toward zero, NaN -> 0x7fff. The `half` crate rounds to nearest only,
/// so this takes its result and steps one unit toward zero where nearest went away from
/// zero; finite values never round to infinity toward zero (IEEE 754 roundTowardZero).
#[inline]
pub fn f16_rz(x: f32) -> u16 {
    if x.is_nan() {
        return F16_NAN;
    }
    let h = f16::from_f32(x);
    if x.is_infinite() {
        return h.to_bits();
    }
    let bits = h.to_bits();
    let sign = bits & 0x8000;
    let mag = bits & 0x7fff;
    if mag == 0x7c00 {
        // Finite x rounded to infinity: toward zero it is the largest finite half.
        return sign | 0x7bff;
    }
    // The widening f16 -> f32 conversion is exact.
    if h.to_f32().abs() > x.abs() {
        sign | (mag - 1)
    } else {
        bits
    }
}

/// No component: the half (or register) reads 0.
pub const NO_COMPONENT: u8 = 0xff;

/// Where each enabled component goes, decided once per instruction: up to four slots in
/// write order Rd, Rd+1, Rd2, Rd2+1 (docs/sources.md: overlapping pairs are written in that order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct WritePlan {
    /// (destination, components): `dest` is 0 for Rd, 1 for Rd+1, 2 for Rd2, 3 for Rd2+1;
    /// the components (0 = R .. 3 = A, or [`NO_COMPONENT`]) fill the register (32-bit
    /// output: the first only) or its low and high halves (F16 output).
    pub slots: [(u8, [u8; 2]); 4],
    /// How many of `slots` are used.
    pub len: u8,
    /// The output mode.
    pub mode: OutputMode,
}

/// The write plan of a write mask and output mode: the enabled components in R, G, B, A
/// order, into Rd, Rd+1, Rd2, Rd2+1 (32-bit), or two halves a register into Rd then Rd2
/// (F16; an odd last half is 0).
pub fn write_plan(mask: u8, mode: OutputMode) -> WritePlan {
    let mut enabled = [NO_COMPONENT; 4];
    let mut n = 0usize;
    for c in 0..4u8 {
        if mask >> c & 1 != 0 {
            enabled[n] = c;
            n += 1;
        }
    }
    let mut plan = WritePlan {
        mode,
        ..WritePlan::default()
    };
    let mut push = |dest: u8, comps: [u8; 2]| {
        plan.slots[plan.len as usize] = (dest, comps);
        plan.len += 1;
    };
    match mode {
        OutputMode::F32 => {
            for (k, &c) in enabled[..n].iter().enumerate() {
                push(k as u8, [c, NO_COMPONENT]);
            }
        }
        OutputMode::F16Rn | OutputMode::F16Rz => {
            if n > 0 {
                push(0, [enabled[0], enabled[1]]);
            }
            if n > 2 {
                push(2, [enabled[2], enabled[3]]);
            }
        }
    }
    plan
}

/// The value of one planned register.
#[inline(always)]
pub fn planned_value(values: &[u32; 4], comps: [u8; 2], mode: OutputMode) -> u32 {
    let get = |c: u8| {
        if c == NO_COMPONENT {
            0
        } else {
            values[c as usize & 3]
        }
    };
    match mode {
        OutputMode::F32 => get(comps[0]),
        OutputMode::F16Rn | OutputMode::F16Rz => {
            let round = if mode == OutputMode::F16Rn {
                f16_rn
            } else {
                f16_rz
            };
            let half = |c: u8| {
                if c == NO_COMPONENT {
                    0
                } else {
                    round(f32::from_bits(get(c))) as u32
                }
            };
            half(comps[0]) | half(comps[1]) << 16
        }
    }
}

/// The registers an instruction writes: up to four (register offset, value) writes in order
/// Rd, Rd+1, Rd2, Rd2+1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Writes {
    /// (destination, value); `dest` is 0 for Rd, 1 for Rd+1, 2 for Rd2, 3 for Rd2+1.
    pub slots: [(u8, u32); 4],
    /// How many of `slots` are used.
    pub len: u8,
}

/// Packs `values` (in R, G, B, A order) by the write mask and output mode ([`write_plan`]).
pub fn pack(values: [u32; 4], mask: u8, mode: OutputMode) -> Writes {
    let plan = write_plan(mask, mode);
    let mut w = Writes {
        len: plan.len,
        ..Writes::default()
    };
    for (k, &(dest, comps)) in plan.slots[..plan.len as usize].iter().enumerate() {
        w.slots[k] = (dest, planned_value(&values, comps, mode));
    }
    w
}

/// The number of registers written at Rd and at Rd2 for a write mask and output mode: the
/// decoder's rule ([`tld4_decoder::destination_counts`], the one place it is written). The
/// mask type holds four components at most, so no count can wrap.
pub const fn destination_counts(mask: WriteMask, mode: OutputMode) -> (u8, u8) {
    tld4_decoder::destination_counts(mask, mode.is_f16())
}

impl OutputMode {
    /// True for the binary16 modes.
    pub const fn is_f16(self) -> bool {
        matches!(self, OutputMode::F16Rn | OutputMode::F16Rz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rz_rounds_toward_zero() {
        // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: RN goes to even (1.0), RZ to 1.0.
        assert_eq!(f16_rz(1.0 + 2f32.powi(-11)), 0x3c00);
        // 1 + 3*2^-12 is nearer 1 + 2^-10: RN rounds up, RZ down.
        let x = 1.0 + 3.0 * 2f32.powi(-12);
        assert_eq!(f16_rn(x), 0x3c01);
        assert_eq!(f16_rz(x), 0x3c00);
        assert_eq!(f16_rz(-x), 0xbc00);
        assert_eq!(f16_rn(-x), 0xbc01);
        // Overflow: RN gives infinity, RZ the largest finite half.
        assert_eq!(f16_rn(70000.0), 0x7c00);
        assert_eq!(f16_rz(70000.0), 0x7bff);
        assert_eq!(f16_rz(-70000.0), 0xfbff);
        assert_eq!(f16_rz(f32::INFINITY), 0x7c00);
        assert_eq!(f16_rz(f32::NAN), F16_NAN);
        assert_eq!(f16_rn(-f32::NAN), F16_NAN);
        // Subnormals: 1.5 * 2^-24 truncates to 2^-24 (0x0001); RN gives 2 * 2^-24.
        assert_eq!(f16_rz(1.5 * 2f32.powi(-24)), 0x0001);
        assert_eq!(f16_rn(1.5 * 2f32.powi(-24)), 0x0002);
        assert_eq!(f16_rz(2f32.powi(-26)), 0x0000);
        assert_eq!(f16_rz(0.0), 0);
        assert_eq!(f16_rz(-0.0), 0x8000);
        // Exactly representable values are unchanged.
        assert_eq!(f16_rz(0.5), 0x3800);
    }

    #[test]
    fn rz_agrees_with_exhaustive_truncation_on_a_sweep() {
        // Compare with an independent f64 truncation for many f32 values.
        let mut x = 1e-9f32;
        while x < 1e6 {
            for v in [x, -x] {
                let h = f16_rz(v);
                let back = f16::from_bits(h).to_f64();
                let next = f16::from_bits((h & 0x7fff) + 1).to_f64().copysign(v as f64);
                assert!(back.abs() <= (v as f64).abs(), "{v}: {back}");
                assert!(
                    ((h & 0x7fff) == 0x7bff) || next.abs() > (v as f64).abs(),
                    "{v}: {h:#x} is not the largest below"
                );
            }
            x *= 1.0001;
        }
    }

    #[test]
    fn mask_packs_enabled_components_in_order() {
        let v = [10, 11, 12, 13];
        let w = pack(v, 0b1010, OutputMode::F32);
        assert_eq!(&w.slots[..w.len as usize], &[(0, 11), (1, 13)]);
        let w = pack(v, 0b0111, OutputMode::F32);
        assert_eq!(&w.slots[..w.len as usize], &[(0, 10), (1, 11), (2, 12)]);
        let w = pack(v, 0, OutputMode::F32);
        assert_eq!(w.len, 0);
    }

    #[test]
    fn f16_packs_two_halves_a_register_low_first() {
        let v = [1.0f32, 2.0, 3.0, 0.5].map(f32::to_bits);
        let w = pack(v, 0xf, OutputMode::F16Rn);
        assert_eq!(
            &w.slots[..w.len as usize],
            &[(0, 0x4000_3c00), (2, 0x3800_4200)]
        );
        let w = pack(v, 0b0111, OutputMode::F16Rz);
        assert_eq!(
            &w.slots[..w.len as usize],
            &[(0, 0x4000_3c00), (2, 0x0000_4200)]
        );
        let w = pack(v, 0b1000, OutputMode::F16Rn);
        assert_eq!(&w.slots[..w.len as usize], &[(0, 0x3800)]);
        assert_eq!(
            destination_counts(WriteMask(0b0111), OutputMode::F32),
            (2, 1)
        );
        assert_eq!(
            destination_counts(WriteMask(0b1101), OutputMode::F16Rz),
            (1, 1)
        );
        assert_eq!(
            destination_counts(WriteMask(0b0011), OutputMode::F16Rn),
            (1, 0)
        );
    }
}

#[cfg(test)]
mod count_tests {
    use super::*;

    /// Regression: a count of 256 components once wrapped to 0 through `n as u8`; the mask
    /// type cannot say more than four now, and every mask agrees with its write plan.
    #[test]
    fn counts_match_the_write_plan_for_every_mask_byte() {
        for raw in 0..=u8::MAX {
            for mode in [OutputMode::F32, OutputMode::F16Rn, OutputMode::F16Rz] {
                let (rd, rd2) = destination_counts(WriteMask(raw), mode);
                let plan = write_plan(raw, mode);
                let at_rd = plan.slots[..plan.len as usize]
                    .iter()
                    .filter(|s| s.0 < 2)
                    .count();
                assert_eq!(
                    (rd as usize, rd2 as usize),
                    (at_rd, plan.len as usize - at_rd),
                    "{raw:#x} {mode:?}"
                );
            }
        }
        assert_eq!(destination_counts(WriteMask(0xff), OutputMode::F32), (2, 2));
    }
}
