//! Executing a TLD4 for a warp: the prepared executor, and the two ways to hand it the
//! warp's registers (flat arrays, or a table of callbacks over the simulator's own storage).

use std::ffi::c_void;

use tld4_emu::textures::Rounding;
use tld4_emu::{ExecConfig, Location, Precision, RegisterFile, Tld4Exec, WARP_SIZE};

use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::insn::{tld4_insn, tld4_word};
use crate::pool::tld4_pool;
use crate::ptr::{in_mut, in_ref, in_slice, in_slice_mut, out, out_opt};

/// A TLD4 checked and prepared for execution (opaque): decode once, execute many times.
/// Made by `tld4_exec_new` or `tld4_exec_from_word`, freed with `tld4_exec_free`. It is
/// never changed by executing, so several threads may execute one at the same time.
pub struct tld4_exec {
    exec: Tld4Exec,
    /// The uniform register the instruction reads its handle from, if any.
    ureg: Option<u8>,
}

/// How the product u * width is rounded to fixed point (`tld4_exec_config::rounding`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_rounding {
    /// Round to nearest, ties to even.
    TLD4_ROUND_NEAREST_EVEN = 0,
    /// Truncate toward zero.
    TLD4_ROUND_TOWARD_ZERO = 1,
    /// Round toward negative infinity.
    TLD4_ROUND_FLOOR = 2,
}

/// Each C rounding and the texture unit's.
const ROUNDINGS: [(tld4_rounding, Rounding); 3] = [
    (
        tld4_rounding::TLD4_ROUND_NEAREST_EVEN,
        Rounding::NearestEven,
    ),
    (tld4_rounding::TLD4_ROUND_TOWARD_ZERO, Rounding::TowardZero),
    (tld4_rounding::TLD4_ROUND_FLOOR, Rounding::Floor),
];

/// The executor's settings where no source says what the hardware does (docs/sources.md,
/// Decisions); `tld4_exec_config_default` gives the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct tld4_exec_config {
    /// Fault when a 64-bit destination pair starts at an odd register (a guess; default
    /// off, as nvdisasm accepts odd registers).
    pub require_aligned_pairs: bool,
    /// No quantization of texel selection (i0 = floor(u * width - 0.5) exactly); when set,
    /// `fraction_bits` and `rounding` are ignored.
    pub exact_precision: bool,
    /// Sub-texel fractional bits (0..=20; default 8, a guess).
    pub fraction_bits: u8,
    /// A `tld4_rounding` value (default nearest even, a guess).
    pub rounding: u32,
}

impl tld4_exec_config {
    fn of(c: &ExecConfig) -> Self {
        let (exact, bits, rounding) = match c.precision {
            Precision::Exact => (true, 0, Rounding::NearestEven),
            Precision::Fixed {
                fraction_bits,
                rounding,
            } => (false, fraction_bits, rounding),
        };
        tld4_exec_config {
            require_aligned_pairs: c.require_aligned_pairs,
            exact_precision: exact,
            fraction_bits: bits,
            rounding: ROUNDINGS
                .iter()
                .find(|(_, r)| *r == rounding)
                .map_or(0, |(c, _)| *c as u32),
        }
    }

    /// The executor's config. An unknown rounding is invalid input here; too many
    /// fractional bits are kept and raised by every execution as the fault
    /// `TLD4_FAULT_INVALID_CONFIG` (tld4-emu's rule).
    pub(crate) fn config(&self) -> Result<ExecConfig, Error> {
        let rounding = ROUNDINGS
            .iter()
            .find(|(c, _)| *c as u32 == self.rounding)
            .map(|&(_, r)| r)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "config.rounding = {}: not a tld4_rounding (0..={})",
                    self.rounding,
                    ROUNDINGS.len() - 1
                ))
            })?;
        Ok(ExecConfig {
            require_aligned_pairs: self.require_aligned_pairs,
            precision: if self.exact_precision {
                Precision::Exact
            } else {
                Precision::Fixed {
                    fraction_bits: self.fraction_bits,
                    rounding,
                }
            },
        })
    }
}

/// What an execution did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct tld4_exec_report {
    /// Bit l set: lane l executed (active and its guard predicate true).
    pub executed: u32,
    /// Bit l set: lane l executed and its footprint touched a non-resident tile (it read
    /// zeros and set the predicate destination).
    pub nonresident: u32,
}

/// A warp's registers as flat arrays, for `tld4_exec_run_flat`.
///
/// Register `r` of lane `l` is `regs[r * reg_stride + l * lane_stride]`, for `r` below
/// `num_regs` and `l` below 32. Register-major (`uint32_t regs[num_regs][32]`):
/// `reg_stride = 32, lane_stride = 1`; lane-major (`uint32_t regs[32][num_regs]`):
/// `reg_stride = 1, lane_stride = num_regs`. `regs` must hold
/// `(num_regs - 1) * reg_stride + 31 * lane_stride + 1` elements, and the strides must keep
/// registers apart (`reg_stride >= 32 * lane_stride` or
/// `lane_stride >= num_regs * reg_stride`). RZ (255) is never read or written: it reads 0.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_warp_flat {
    /// The general registers (read and written).
    pub regs: *mut u32,
    /// Registers a thread has, R0..R(num_regs - 1) (at most 255): an operand at or past it
    /// faults with `TLD4_FAULT_REGISTER_OUT_OF_RANGE`.
    pub num_regs: u32,
    /// Elements from register r to register r + 1 of a lane.
    pub reg_stride: usize,
    /// Elements from lane l to lane l + 1 of a register.
    pub lane_stride: usize,
    /// Predicates P0..P6: bit l of `preds[p]` is Pp of lane l (read and written).
    pub preds: [u32; 7],
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

/// The default settings.
///
/// # Safety
/// `out` is valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_config_default(
    out_ptr: *mut tld4_exec_config,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        out(out_ptr, "out", tld4_exec_config::of(&ExecConfig::default()))
    })
}

/// Prepares `insn` for execution (`*out`; free it with `tld4_exec_free`); `config` NULL
/// means the defaults. An illegal encoding is not an error here: every execution raises it
/// as a warp fault (`tld4_exec_check` finds it at load time).
///
/// # Safety
/// `insn` is a live instruction; `config` NULL or valid; `out` valid for a write; `err`
/// NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_new(
    insn: *const tld4_insn,
    config: *const tld4_exec_config,
    out_ptr: *mut *mut tld4_exec,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        store_exec(out_ptr, config, &insn.0)
    })
}

/// Decodes `word` and prepares it, as `tld4_decode` then `tld4_exec_new`.
///
/// # Safety
/// `config` NULL or valid; `out` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_from_word(
    word: tld4_word,
    config: *const tld4_exec_config,
    out_ptr: *mut *mut tld4_exec,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = tld4_emu::decode(word.get())?;
        store_exec(out_ptr, config, &insn)
    })
}

/// Builds the executor and stores it into `*out`.
///
/// # Safety
/// `config` NULL or valid; `out_ptr` NULL or valid for a write.
unsafe fn store_exec(
    out_ptr: *mut *mut tld4_exec,
    config: *const tld4_exec_config,
    insn: &tld4_emu::Tld4,
) -> Result<(), Error> {
    if out_ptr.is_null() {
        return Err(Error::Null("out"));
    }
    let config = if config.is_null() {
        ExecConfig::default()
    } else {
        // SAFETY: not NULL; the caller guarantees it is valid.
        unsafe { in_ref(config, "config") }?.config()?
    };
    let ureg = insn.used_registers().iter().find_map(|u| match u.location {
        Location::UReg(r) => Some(r),
        _ => None,
    });
    let exec = tld4_exec {
        exec: Tld4Exec::new(insn, config),
        ureg,
    };
    // SAFETY: not NULL; the caller guarantees it is valid for a write.
    unsafe { out(out_ptr, "out", Box::into_raw(Box::new(exec))) }
}

/// Frees an executor; NULL is ignored.
///
/// # Safety
/// `exec` is NULL or came from this library and was not freed before; no execution with it
/// is running.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_free(exec: *mut tld4_exec) {
    if !exec.is_null() {
        // SAFETY: made by `Box::into_raw` in `store_exec`, not freed before.
        quiet((), || drop(unsafe { Box::from_raw(exec) }));
    }
}

/// The warp faults the instruction raises before looking at any lane, with
/// `regs_per_thread` registers (invalid config, illegal encoding, out-of-range register,
/// misaligned register): `TLD4_ERR_WARP_FAULT` with the fault in `err`, or `TLD4_OK`.
///
/// # Safety
/// `exec` is live; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_check(
    exec: *const tld4_exec,
    regs_per_thread: u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let n = regs_per_thread.min(255) as u16;
        Ok(exec.exec.check(n)?)
    })
}

/// A flat warp, checked.
struct Flat<'a> {
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
}

/// The elements `regs` spans, after checking that the strides keep registers apart.
fn flat_len(num_regs: u32, reg_stride: usize, lane_stride: usize) -> Result<usize, Error> {
    if num_regs == 0 {
        return Ok(0);
    }
    let n = num_regs as usize;
    let apart = lane_stride > 0
        && reg_stride > 0
        && (reg_stride >= WARP_SIZE * lane_stride || lane_stride >= n * reg_stride);
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

/// Runs the executor over any register file; a warp fault becomes the error.
fn run<R: RegisterFile>(
    exec: &tld4_exec,
    pool: &tld4_pool,
    rf: &mut R,
) -> Result<tld4_exec_report, Error> {
    let r = exec.exec.execute(rf, &pool.0)?;
    Ok(tld4_exec_report {
        executed: r.executed,
        nonresident: r.nonresident,
    })
}

/// Executes the instruction for one warp held in flat arrays (see `tld4_warp_flat`),
/// against `pool`. On success the executing lanes' destinations and predicate destination
/// are written and `report`, if not NULL, says which lanes executed. On a warp fault
/// (`TLD4_ERR_WARP_FAULT`, kind and lane in `err`) nothing is written. A uniform register
/// past `num_uregs` is checked first (the caller's input before the program's fault,
/// docs/sources.md, Decisions). Allocates nothing.
///
/// # Safety
/// `exec`, `pool` live; `warp` valid, its `regs` spanning the elements documented at
/// `tld4_warp_flat` and `uregs` `num_uregs` elements, neither overlapping `warp` itself or
/// each other; `report`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_run_flat(
    exec: *const tld4_exec,
    pool: *const tld4_pool,
    warp: *mut tld4_warp_flat,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let pool = in_ref(pool, "pool")?;
        let w = in_mut(warp, "warp")?;
        let len = flat_len(w.num_regs, w.reg_stride, w.lane_stride)?;
        if let Some(u) = exec.ureg {
            if u as u32 >= w.num_uregs {
                return Err(Error::Invalid(format!(
                    "warp.uregs: the instruction reads UR{u}, but warp.num_uregs = {}",
                    w.num_uregs
                )));
            }
        }
        let mut flat = Flat {
            regs: in_slice_mut(w.regs, len, "warp.regs")?,
            reg_stride: w.reg_stride,
            lane_stride: w.lane_stride,
            uregs: in_slice(w.uregs, w.num_uregs as usize, "warp.uregs")?,
            preds: &mut w.preds,
            active: w.active_mask,
            nregs: w.num_regs.min(255) as u16,
        };
        let r = run(exec, pool, &mut flat)?;
        out_opt(report, r);
        Ok(())
    })
}

/// The callbacks, checked non-NULL.
struct Callbacks {
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

/// Executes the instruction for one warp whose registers the caller's callbacks read and
/// write (see `tld4_regfile`), against `pool`; results, report and faults as for
/// `tld4_exec_run_flat`. A NULL callback is `TLD4_ERR_NULL_POINTER` naming it.
///
/// # Safety
/// `exec`, `pool` live; `regfile` valid, its callbacks safe to call with its `user` for the
/// duration of the call; `report`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_run_callbacks(
    exec: *const tld4_exec,
    pool: *const tld4_pool,
    regfile: *const tld4_regfile,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let pool = in_ref(pool, "pool")?;
        let rf = in_ref(regfile, "regfile")?;
        let mut cb = Callbacks {
            user: rf.user,
            reg: rf.reg.ok_or(Error::Null("regfile.reg"))?,
            set_reg: rf.set_reg.ok_or(Error::Null("regfile.set_reg"))?,
            pred: rf.pred.ok_or(Error::Null("regfile.pred"))?,
            set_pred: rf.set_pred.ok_or(Error::Null("regfile.set_pred"))?,
            ureg: rf.ureg.ok_or(Error::Null("regfile.ureg"))?,
            active: rf.active_mask,
            nregs: rf.regs_per_thread.min(255) as u16,
        };
        let r = run(exec, pool, &mut cb)?;
        out_opt(report, r);
        Ok(())
    })
}
