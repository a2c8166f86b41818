//! The register storage an execution reads and writes: [`WarpState`], or a simulator's own.

use crate::warp::{copy_lanes, WarpState, WARP_SIZE};

/// A warp's registers, predicates and uniform registers, as [`crate::Tld4Exec::execute`]
/// reads and writes them. [`WarpState`] implements it; a simulator implements it over its
/// own arrays, so nothing is copied in or out.
///
/// The executor keeps to this contract, so an implementation needs no special cases:
/// * `lane` is below 32 ([`crate::WARP_SIZE`]) and its bit is set in [`active_mask`];
///   registers are touched only for lanes that execute, predicates only for active lanes;
/// * `r` is below `regs_per_thread()` and below 255: RZ is never read or written (the
///   executor reads it as 0 and drops writes to it itself), nor is a register past the file
///   (such an instruction faults first);
/// * `p` is below 7: PT is never read or written;
/// * `u` is below 255: URZ is never read (it reads 0);
/// * every source of every executing lane is read before the first write, and a fault
///   writes nothing.
///
/// [`active_mask`]: RegisterFile::active_mask
///
/// ```
/// use tld4_emu::RegisterFile;
///
/// /// A simulator's storage: registers [reg][lane], predicates as a bit per lane.
/// struct Sim { regs: Vec<u32>, preds: [u32; 7], uregs: [u32; 64], active: u32, nregs: u16 }
///
/// impl RegisterFile for Sim {
///     fn reg(&self, lane: usize, r: u8) -> u32 { self.regs[r as usize * 32 + lane] }
///     fn set_reg(&mut self, lane: usize, r: u8, v: u32) { self.regs[r as usize * 32 + lane] = v }
///     fn pred(&self, lane: usize, p: u8) -> bool { self.preds[p as usize] >> lane & 1 != 0 }
///     fn set_pred(&mut self, lane: usize, p: u8, v: bool) {
///         self.preds[p as usize] = self.preds[p as usize] & !(1 << lane) | (v as u32) << lane;
///     }
///     fn ureg(&self, u: u8) -> u32 { self.uregs.get(u as usize).copied().unwrap_or(0) }
///     fn active_mask(&self) -> u32 { self.active }
///     fn regs_per_thread(&self) -> u16 { self.nregs }
/// }
///
/// let mut sim = Sim { regs: vec![0; 32 * 32], preds: [0; 7], uregs: [0; 64], active: !0, nregs: 32 };
/// sim.set_reg(3, 7, 42);
/// assert_eq!(sim.reg(3, 7), 42);
/// ```
pub trait RegisterFile {
    /// Register `r` of `lane`.
    fn reg(&self, lane: usize, r: u8) -> u32;
    /// Writes register `r` of `lane`.
    fn set_reg(&mut self, lane: usize, r: u8, value: u32);
    /// Predicate `p` (P0..P6) of `lane`.
    fn pred(&self, lane: usize, p: u8) -> bool;
    /// Writes predicate `p` (P0..P6) of `lane`.
    fn set_pred(&mut self, lane: usize, p: u8, value: bool);
    /// Uniform register `u` (UR0..UR254).
    fn ureg(&self, u: u8) -> u32;
    /// Bit `l` set: lane `l` is active.
    fn active_mask(&self) -> u32;
    /// Registers a thread has (R0..R{n-1}); an operand at or above it faults. Values above
    /// 255 act as 255.
    fn regs_per_thread(&self) -> u16;

    /// Register `r` of every lane in `lanes` (bit `l` set: lane `l`) into `out[l]`; the
    /// other entries of `out` are left as they are. The default calls [`RegisterFile::reg`]
    /// lane by lane; storage that keeps a register's lanes together overrides it with a
    /// copy. The same contract as `reg` applies to each lane.
    #[inline(always)]
    fn reg_lanes(&self, r: u8, lanes: u32, out: &mut [u32; WARP_SIZE]) {
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            out[lane] = self.reg(lane, r);
        }
    }

    /// Register `r` of all 32 lanes in place, for storage that keeps a register's lanes
    /// together (register-major, as [`WarpState`]): the executor then reads the executing
    /// lanes' sources straight from it instead of copying them out with
    /// [`RegisterFile::reg_lanes`]. The default is None (no such view). Only lanes that
    /// execute are read from it; the same contract as `reg` applies to them.
    #[inline(always)]
    fn reg_row(&self, _r: u8) -> Option<&[u32; WARP_SIZE]> {
        None
    }

    /// Writes `values[l]` into register `r` of every lane `l` in `lanes`. The default calls
    /// [`RegisterFile::set_reg`] lane by lane, in lane order.
    #[inline(always)]
    fn set_reg_lanes(&mut self, r: u8, lanes: u32, values: &[u32; WARP_SIZE]) {
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            self.set_reg(lane, r, values[lane]);
        }
    }
}

impl RegisterFile for WarpState {
    #[inline(always)]
    fn reg(&self, lane: usize, r: u8) -> u32 {
        WarpState::reg(self, lane, r)
    }
    #[inline(always)]
    fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        WarpState::set_reg(self, lane, r, value)
    }
    #[inline(always)]
    fn pred(&self, lane: usize, p: u8) -> bool {
        WarpState::pred(self, lane, p)
    }
    #[inline(always)]
    fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        WarpState::set_pred(self, lane, p, value)
    }
    #[inline(always)]
    fn ureg(&self, u: u8) -> u32 {
        WarpState::ureg(self, u)
    }
    #[inline(always)]
    fn active_mask(&self) -> u32 {
        self.active_mask
    }
    #[inline(always)]
    fn regs_per_thread(&self) -> u16 {
        self.regs_per_thread
    }
    #[inline(always)]
    fn reg_row(&self, r: u8) -> Option<&[u32; WARP_SIZE]> {
        Some(WarpState::reg_lanes(self, r))
    }
    #[inline(always)]
    fn reg_lanes(&self, r: u8, lanes: u32, out: &mut [u32; WARP_SIZE]) {
        copy_lanes(out, lanes, WarpState::reg_lanes(self, r));
    }
    #[inline(always)]
    fn set_reg_lanes(&mut self, r: u8, lanes: u32, values: &[u32; WARP_SIZE]) {
        WarpState::set_reg_lanes(self, r, lanes, values)
    }
}
