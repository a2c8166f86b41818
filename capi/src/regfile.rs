//! The two ways to hand the executor a warp's registers: flat arrays, or a table of
//! callbacks over the simulator's own storage; both checked here into tld4-emu
//! `RegisterFile`s, for the owned-pool and the memory-form executions alike.

use std::ffi::c_void;

use tld4_emu::{copy_lanes, RegisterFile, WARP_SIZE};

use crate::error::Error;
use crate::ptr::{in_slice, in_slice_mut};

/// A warp's registers as flat arrays, for `tld4_exec_run_flat`.
///
/// Register `r` of lane `l` is `regs[r * reg_stride + l * lane_stride]`, for `r` below
/// `num_regs` and `l` below 32. Register-major (`uint32_t regs[num_regs][32]`):
/// `reg_stride = 32, lane_stride = 1`; lane-major (`uint32_t regs[32][num_regs]`):
/// `reg_stride = 1, lane_stride = num_regs`. `regs` must hold
/// `(num_regs - 1) * reg_stride + 31 * lane_stride + 1` elements, and the strides must keep
/// registers apart (`reg_stride >= 32 * lane_stride` or
/// `lane_stride >= num_regs * reg_stride`). RZ (255) is never read or written: it reads 0.
/// `regs`, `preds` and `uregs` must not overlap each other or the struct.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_warp_flat {
    /// The general registers (read and written).
    pub regs: *mut u32,
    /// Registers a thread has, R0..R(num_regs - 1) (at most 255; more is
    /// `TLD4_ERR_INVALID_ARGUMENT`): an operand at or past it faults with
    /// `TLD4_FAULT_REGISTER_OUT_OF_RANGE`.
    pub num_regs: u32,
    /// Elements from register r to register r + 1 of a lane.
    pub reg_stride: usize,
    /// Elements from lane l to lane l + 1 of a register.
    pub lane_stride: usize,
    /// The warp's predicates P0..P6, seven words the caller keeps (`uint32_t preds[7]`, its own
    /// storage, not copied in or out): bit l of `preds[p]` is Pp of lane l (read, and written
    /// by a predicate destination). Required (NULL is `TLD4_ERR_NULL_POINTER`).
    pub preds: *mut u32,
    /// The uniform registers UR0..UR(num_uregs - 1) (read only; URZ reads 0).
    pub uregs: *const u32,
    /// How many `uregs` holds: an instruction reading a uniform register past it is
    /// `TLD4_ERR_INVALID_ARGUMENT`.
    pub num_uregs: u32,
    /// Bit l set: lane l is active.
    pub active_mask: u32,
}

/// A register file of callbacks over the simulator's own storage, for
/// `tld4_exec_run_callbacks`. Every function pointer is required. The executor calls them
/// only as tld4-emu's `RegisterFile` contract says: `lane` below 32 and active, `r` below
/// `regs_per_thread` and below 255, `p` below 7, `u` below 255; every source of every
/// executing lane is read before the first write, and a fault writes nothing. The callbacks
/// must return normally (no C++ exception, no longjmp through tld4).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_regfile {
    /// Passed to every callback.
    pub user: *mut c_void,
    /// Register `r` of `lane`.
    pub reg: Option<unsafe extern "C" fn(user: *mut c_void, lane: u32, r: u32) -> u32>,
    /// Writes register `r` of `lane`.
    pub set_reg: Option<unsafe extern "C" fn(user: *mut c_void, lane: u32, r: u32, value: u32)>,
    /// Predicate `p` (P0..P6) of `lane`.
    pub pred: Option<unsafe extern "C" fn(user: *mut c_void, lane: u32, p: u32) -> bool>,
    /// Writes predicate `p` (P0..P6) of `lane`.
    pub set_pred: Option<unsafe extern "C" fn(user: *mut c_void, lane: u32, p: u32, value: bool)>,
    /// Uniform register `u` (UR0..UR254).
    pub ureg: Option<unsafe extern "C" fn(user: *mut c_void, u: u32) -> u32>,
    /// Bit l set: lane l is active.
    pub active_mask: u32,
    /// Registers a thread has (values above 255 act as 255).
    pub regs_per_thread: u32,
}

/// A flat warp, checked.
pub(crate) struct Flat<'a> {
    regs: &'a mut [u32],
    reg_stride: usize,
    lane_stride: usize,
    preds: &'a mut [u32; 7],
    uregs: &'a [u32],
    active: u32,
    nregs: u16,
}

impl RegisterFile for Flat<'_> {
    #[inline]
    fn reg(&self, lane: usize, r: u8) -> u32 {
        self.regs[r as usize * self.reg_stride + lane * self.lane_stride]
    }
    #[inline]
    fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        self.regs[r as usize * self.reg_stride + lane * self.lane_stride] = value;
    }
    #[inline]
    fn pred(&self, lane: usize, p: u8) -> bool {
        self.preds[p as usize] >> lane & 1 != 0
    }
    #[inline]
    fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        let w = &mut self.preds[p as usize];
        *w = *w & !(1 << lane) | (value as u32) << lane;
    }
    #[inline]
    fn ureg(&self, u: u8) -> u32 {
        // `run_flat` checked the instruction's uniform register against the array.
        self.uregs[u as usize]
    }
    fn active_mask(&self) -> u32 {
        self.active
    }
    fn regs_per_thread(&self) -> u16 {
        self.nregs
    }
    /// Register-major storage (`lane_stride` 1, as `uint32_t regs[R][32]`) keeps a register's
    /// 32 lanes together: the executor reads them in place and writes them as rows, not lane by lane
    /// (about 3,000 instructions a warp lane by lane for a TLD4's sources and results).
    #[inline]
    fn reg_row(&self, r: u8) -> Option<&[u32; WARP_SIZE]> {
        self.row_start(r)
            .and_then(|at| self.regs.get(at..at + WARP_SIZE))
            .and_then(|row| row.try_into().ok())
    }
    #[inline]
    fn set_reg_lanes(&mut self, r: u8, lanes: u32, values: &[u32; WARP_SIZE]) {
        let row = self
            .row_start(r)
            .and_then(|at| self.regs.get_mut(at..at + WARP_SIZE))
            .and_then(|row| <&mut [u32; WARP_SIZE]>::try_from(row).ok());
        match row {
            Some(row) => copy_lanes(row, lanes, values),
            None => {
                let mut m = lanes;
                while m != 0 {
                    let lane = m.trailing_zeros() as usize;
                    m &= m - 1;
                    self.set_reg(lane, r, values[lane]);
                }
            }
        }
    }
}

impl Flat<'_> {
    /// Where register `r`'s row starts, for register-major storage (`lane_stride` 1); None
    /// for any other layout.
    #[inline]
    fn row_start(&self, r: u8) -> Option<usize> {
        (self.lane_stride == 1).then(|| r as usize * self.reg_stride)
    }
}

/// Predicates a lane has: P0..P6, P7 being PT (docs/sources.md, Encoding).
const PREDICATES: usize = 7;

/// The most registers a thread has: R0..R254, register 255 being RZ (docs/sources.md, Encoding).
const MAX_REGS: u32 = 255;

/// The elements `regs` spans, after checking that `num_regs` is at most 255 and that the
/// strides keep registers apart; all in checked arithmetic (any stride, up to `SIZE_MAX`, is
/// an error, never an overflow).
fn flat_len(num_regs: u32, reg_stride: usize, lane_stride: usize) -> Result<usize, Error> {
    if num_regs > MAX_REGS {
        return Err(Error::Invalid(format!(
            "warp.num_regs = {num_regs}: a thread has at most {MAX_REGS} registers (R0..R254; R255 is RZ)"
        )));
    }
    if num_regs == 0 {
        return Ok(0);
    }
    let n = num_regs as usize;
    // `None` (an overflow) means the stride is larger than any product it is compared with.
    let at_least = |a: usize, b: Option<usize>| b.is_some_and(|b| a >= b);
    let apart = lane_stride > 0
        && reg_stride > 0
        && (at_least(reg_stride, WARP_SIZE.checked_mul(lane_stride))
            || at_least(lane_stride, n.checked_mul(reg_stride)));
    if !apart {
        return Err(Error::Invalid(format!(
            "warp.reg_stride = {reg_stride}, warp.lane_stride = {lane_stride}: registers of \
             different lanes would share elements (need reg_stride >= 32 * lane_stride, or \
             lane_stride >= num_regs * reg_stride, both above 0)"
        )));
    }
    (n - 1)
        .checked_mul(reg_stride)
        .and_then(|a| {
            (WARP_SIZE - 1)
                .checked_mul(lane_stride)
                .and_then(|b| a.checked_add(b))
        })
        .and_then(|a| a.checked_add(1))
        .ok_or_else(|| Error::Invalid("warp: the strides pass the address space".into()))
}

/// The callbacks, checked non-NULL.
pub(crate) struct Callbacks {
    user: *mut c_void,
    reg: unsafe extern "C" fn(*mut c_void, u32, u32) -> u32,
    set_reg: unsafe extern "C" fn(*mut c_void, u32, u32, u32),
    pred: unsafe extern "C" fn(*mut c_void, u32, u32) -> bool,
    set_pred: unsafe extern "C" fn(*mut c_void, u32, u32, bool),
    ureg: unsafe extern "C" fn(*mut c_void, u32) -> u32,
    active: u32,
    nregs: u16,
}

// SAFETY (each method below): the caller of `tld4_exec_run_callbacks` guarantees that the
// callbacks may be called with `user` while the call lasts; the arguments keep to the
// documented contract (tld4-emu's `RegisterFile`).
impl RegisterFile for Callbacks {
    fn reg(&self, lane: usize, r: u8) -> u32 {
        // SAFETY: see the impl.
        unsafe { (self.reg)(self.user, lane as u32, r as u32) }
    }
    fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        // SAFETY: see the impl.
        unsafe { (self.set_reg)(self.user, lane as u32, r as u32, value) }
    }
    fn pred(&self, lane: usize, p: u8) -> bool {
        // SAFETY: see the impl.
        unsafe { (self.pred)(self.user, lane as u32, p as u32) }
    }
    fn set_pred(&mut self, lane: usize, p: u8, value: bool) {
        // SAFETY: see the impl.
        unsafe { (self.set_pred)(self.user, lane as u32, p as u32, value) }
    }
    fn ureg(&self, u: u8) -> u32 {
        // SAFETY: see the impl.
        unsafe { (self.ureg)(self.user, u as u32) }
    }
    fn active_mask(&self) -> u32 {
        self.active
    }
    fn regs_per_thread(&self) -> u16 {
        self.nregs
    }
}

impl<'a> Flat<'a> {
    /// Checks a flat warp for an instruction reading uniform register `ureg` (if any).
    ///
    /// # Safety
    /// `w.regs` spans the elements documented at `tld4_warp_flat`, `w.preds` holds seven
    /// words and `w.uregs` `w.num_uregs` elements, none overlapping `w` or another, and
    /// nothing else reads or writes them while `'a` lasts.
    pub(crate) unsafe fn new(w: &'a tld4_warp_flat, ureg: Option<u8>) -> Result<Self, Error> {
        let len = flat_len(w.num_regs, w.reg_stride, w.lane_stride)?;
        if let Some(u) = ureg {
            if u as u32 >= w.num_uregs {
                return Err(Error::Invalid(format!(
                    "warp.uregs: the instruction reads UR{u}, but warp.num_uregs = {}",
                    w.num_uregs
                )));
            }
        }
        Ok(Flat {
            // SAFETY: the caller's guarantee on `regs`.
            regs: unsafe { in_slice_mut(w.regs, len, "warp.regs") }?,
            reg_stride: w.reg_stride,
            lane_stride: w.lane_stride,
            // SAFETY: the caller's guarantee on `uregs`.
            uregs: unsafe { in_slice(w.uregs, w.num_uregs as usize, "warp.uregs") }?,
            // SAFETY: the caller's guarantee on `preds` (seven words).
            preds: unsafe { in_slice_mut(w.preds, PREDICATES, "warp.preds") }?
                .try_into()
                .map_err(|_| Error::Invalid("warp.preds: seven words".into()))?,
            active: w.active_mask,
            nregs: w.num_regs as u16,
        })
    }
}

impl Callbacks {
    /// The callbacks of `rf`, each required.
    pub(crate) fn new(rf: &tld4_regfile) -> Result<Self, Error> {
        Ok(Callbacks {
            user: rf.user,
            reg: rf.reg.ok_or(Error::Null("regfile.reg"))?,
            set_reg: rf.set_reg.ok_or(Error::Null("regfile.set_reg"))?,
            pred: rf.pred.ok_or(Error::Null("regfile.pred"))?,
            set_pred: rf.set_pred.ok_or(Error::Null("regfile.set_pred"))?,
            ureg: rf.ureg.ok_or(Error::Null("regfile.ureg"))?,
            active: rf.active_mask,
            nregs: rf.regs_per_thread.min(255) as u16,
        })
    }
}
