//! The warp's architectural state that TLD4 reads and writes.

/// Lanes in a warp.
pub const WARP_SIZE: usize = 32;

/// Copies `src[l]` into `dst[l]` for every lane `l` in `lanes` (bit `l` set), the others left
/// as they are: the masked row copy of a register file that keeps a register's lanes together
/// ([`WarpState`], and any [`RegisterFile`](crate::RegisterFile) with such rows).
#[inline(always)]
pub fn copy_lanes(dst: &mut [u32; WARP_SIZE], lanes: u32, src: &[u32; WARP_SIZE]) {
    if lanes == u32::MAX {
        *dst = *src;
        return;
    }
    for l in 0..WARP_SIZE {
        dst[l] = if lanes >> l & 1 != 0 { src[l] } else { dst[l] };
    }
}

/// The register number of RZ (reads 0, writes vanish).
pub const RZ: u8 = 255;

/// The register file, predicates and uniform registers of one warp.
///
/// Registers are stored register-major, as a SIMT register file is: 256 registers of 32
/// lanes each (one register of the whole warp is 128 contiguous bytes, which keeps the
/// executor's register reads and writes in few cache lines), register 255 being RZ, which
/// always reads 0: writes to it are dropped. Predicates P0..P6 are bits 0..6 of a byte a lane; P7
/// (PT) always reads true.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpState {
    regs: Box<[[u32; WARP_SIZE]; 256]>,
    preds: [u8; WARP_SIZE],
    uregs: [u32; 256],
    /// Bit `l` set: lane `l` is active.
    pub active_mask: u32,
    /// Registers a thread has (R0..R{n-1}); an operand at or above it faults. At most 255.
    pub regs_per_thread: u16,
}

impl Default for WarpState {
    fn default() -> Self {
        Self::new()
    }
}

impl WarpState {
    /// All registers and predicates zero, all 32 lanes active, 255 registers per thread.
    pub fn new() -> Self {
        Self {
            regs: Box::new([[0; WARP_SIZE]; 256]),
            preds: [0; WARP_SIZE],
            uregs: [0; 256],
            active_mask: u32::MAX,
            regs_per_thread: 255,
        }
    }

    /// Register `r` of lane `lane` (RZ reads 0). `lane` must be below 32.
    #[inline(always)]
    pub fn reg(&self, lane: usize, r: u8) -> u32 {
        self.regs[r as usize][lane]
    }

    /// Writes register `r` of lane `lane`; a write to RZ vanishes. `lane` must be below 32.
    #[inline(always)]
    pub fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        if r != RZ {
            self.regs[r as usize][lane] = value;
        }
    }

    /// Register `r` of lane `lane` as an f32.
    pub fn reg_f32(&self, lane: usize, r: u8) -> f32 {
        f32::from_bits(self.reg(lane, r))
    }

    /// Writes an f32 into register `r` of lane `lane`.
    pub fn set_reg_f32(&mut self, lane: usize, r: u8, value: f32) {
        self.set_reg(lane, r, value.to_bits())
    }

    /// All 256 register slots of a lane, copied out (slot 255 is RZ and reads 0).
    #[inline(always)]
    pub fn lane_regs(&self, lane: usize) -> [u32; 256] {
        std::array::from_fn(|r| self.regs[r][lane])
    }

    /// Writes `values[l]` into register `r` of every lane `l` in `lanes` (bit `l` set); a
    /// write to RZ vanishes.
    #[inline(always)]
    pub fn set_reg_lanes(&mut self, r: u8, lanes: u32, values: &[u32; WARP_SIZE]) {
        if r != RZ {
            copy_lanes(&mut self.regs[r as usize], lanes, values);
        }
    }

    /// Register `r` of every lane (RZ reads 0).
    #[inline(always)]
    pub fn reg_lanes(&self, r: u8) -> &[u32; WARP_SIZE] {
        &self.regs[r as usize]
    }

    /// Register `r` of every lane, to write in place (no copy through a staging array);
    /// None for RZ, whose writes vanish.
    ///
    /// ```
    /// use tld4_emu::WarpState;
    /// let mut warp = WarpState::new();
    /// if let Some(row) = warp.reg_lanes_mut(20) {
    ///     for (lane, v) in row.iter_mut().enumerate() {
    ///         *v = lane as u32 * 3;
    ///     }
    /// }
    /// assert_eq!(warp.reg(7, 20), 21);
    /// assert!(warp.reg_lanes_mut(255).is_none());
    /// # Ok::<(), ()>(())
    /// ```
    #[inline(always)]
    pub fn reg_lanes_mut(&mut self, r: u8) -> Option<&mut [u32; WARP_SIZE]> {
        (r != RZ).then(|| &mut self.regs[r as usize])
    }

    /// Predicate `p` of lane `lane`; P7 (PT) is always true.
    #[inline(always)]
    pub fn pred(&self, lane: usize, p: u8) -> bool {
        p >= 7 || self.preds[lane] >> p & 1 != 0
    }

    /// Writes predicate `p` of lane `lane`; a write to PT vanishes.
    #[inline(always)]
    pub fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        if p < 7 {
            let bit = 1u8 << p;
            self.preds[lane] = (self.preds[lane] & !bit) | if value { bit } else { 0 };
        }
    }

    /// Uniform register `u` (URZ, 255, reads 0).
    #[inline(always)]
    pub fn ureg(&self, u: u8) -> u32 {
        self.uregs[u as usize]
    }

    /// Writes uniform register `u`; a write to URZ vanishes.
    pub fn set_ureg(&mut self, u: u8, value: u32) {
        if u != RZ {
            self.uregs[u as usize] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_registers_read_zero_and_swallow_writes() {
        let mut w = WarpState::new();
        w.set_reg(3, RZ, 7);
        assert_eq!(w.reg(3, RZ), 0);
        w.set_reg(3, 254, 7);
        assert_eq!(w.reg(3, 254), 7);
        assert_eq!(w.reg(2, 254), 0);
        w.set_ureg(RZ, 9);
        assert_eq!(w.ureg(RZ), 0);
        w.set_pred(0, 7, false);
        assert!(w.pred(0, 7));
        w.set_pred(0, 6, true);
        assert!(w.pred(0, 6) && !w.pred(1, 6) && !w.pred(0, 5));
        w.set_pred(0, 6, false);
        assert!(!w.pred(0, 6));
    }
}
