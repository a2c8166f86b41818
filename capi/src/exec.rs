//! Executing a TLD4 for a warp against owned texture pools: the prepared executor, its
//! settings, and the runs over flat register arrays or callbacks (`crate::regfile`).

use tld4_emu::textures::Rounding;
use tld4_emu::{ExecConfig, Location, Precision, RegisterFile, Tld4Exec};

use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::insn::{tld4_insn, tld4_word};
use crate::pool::tld4_pool;
use crate::ptr::{in_ref, out, out_opt};
use crate::regfile::{tld4_regfile, tld4_warp_flat, Callbacks, Flat};

/// A TLD4 checked and prepared for execution (opaque): decode once, execute many times.
/// Made by `tld4_exec_new` or `tld4_exec_from_word`, freed with `tld4_exec_free`. It is
/// never changed by executing, so several threads may execute one at the same time.
pub struct tld4_exec {
    pub(crate) exec: Tld4Exec,
    /// The uniform register the instruction reads its handle from, if any.
    pub(crate) ureg: Option<u8>,
}

impl tld4_exec {
    /// Prepares `insn`, noting the uniform register it reads its handle from.
    pub(crate) fn new(insn: &tld4_emu::Tld4, config: ExecConfig) -> Self {
        let ureg = insn.used_registers().iter().find_map(|u| match u.location {
            Location::UReg(r) => Some(r),
            _ => None,
        });
        tld4_exec {
            exec: Tld4Exec::new(insn, config),
            ureg,
        }
    }
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
    let exec = tld4_exec::new(insn, config);
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
/// `tld4_warp_flat`, `preds` seven words and `uregs` `num_uregs` elements, none overlapping
/// `warp` itself or another; `report`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_run_flat(
    exec: *const tld4_exec,
    pool: *const tld4_pool,
    warp: *const tld4_warp_flat,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let pool = in_ref(pool, "pool")?;
        let mut flat = Flat::new(in_ref(warp, "warp")?, exec.ureg)?;
        let r = run(exec, pool, &mut flat)?;
        out_opt(report, r);
        Ok(())
    })
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
        let mut cb = Callbacks::new(in_ref(regfile, "regfile")?)?;
        let r = run(exec, pool, &mut cb)?;
        out_opt(report, r);
        Ok(())
    })
}
