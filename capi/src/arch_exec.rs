//! Executing an architecture's TLD4 for a warp (tld4-emu's `ArchExec`), with the constant
//! memory the constant-bank form (SM75 to SM90a, 0xb63: the texture handle is the 32-bit
//! constant at `c[bank][4 * offset]`, docs/sources.md, TLD4 on every architecture) reads,
//! supplied by the embedder as flat entries and/or a callback (`tld4_constants`); against
//! owned pools or textures in GPU memory, whose descriptors are read as the architecture's
//! GPU class reads them (docs/sources.md, Descriptors per GPU class).

use std::cell::Cell;
use std::ffi::{c_void, CStr};

use tld4_emu::decoder::{Arch, Location};
use tld4_emu::gpu_memory::{ClassDescriptors, GpuClass, MemoryPool};
use tld4_emu::{
    ArchExec, ArchExecError, ConstantBank, ExecConfig, NoConstants, RegisterFile, TexturePool,
    WarpState,
};

use crate::arch::{arch_of, tld4_arch_insn};
use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::exec::{tld4_exec_config, tld4_exec_report};
use crate::insn::tld4_word;
use crate::memory::{tld4_memory, CMemory, Lives};
use crate::pool::tld4_pool;
use crate::ptr::{in_mut, in_ref, in_slice, out, out_opt};
use crate::regfile::{tld4_regfile, tld4_warp_flat, Callbacks, Flat};

/// The name of `TLD4_FAULT_NO_CONSTANT` (tld4-emu's `ArchExecError::kind_name`; a test
/// checks they agree).
pub(crate) const NO_CONSTANT_NAME: &CStr = c"no_constant";

/// One 32-bit constant: the little-endian word at byte `offset` of constant bank `bank`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_constant {
    /// The constant bank (0..31: the 0xb63 form's bank field has 5 bits).
    pub bank: u8,
    /// The byte offset in the bank, a multiple of 4.
    pub offset: u32,
    /// The word there.
    pub value: u32,
}

/// The embedder's constant memory, as a constant-bank TLD4 reads it: `count` entries at
/// `entries` (NULL only with `count` 0), looked up first, then the callback `read` (if not
/// NULL), which writes the word at byte `offset` of bank `bank` to `*value` and returns
/// true, or returns false when the simulator holds nothing there. A read neither finds is
/// the fault `TLD4_FAULT_NO_CONSTANT`. Two entries for one slot with different values are
/// `TLD4_ERR_INVALID_ARGUMENT` when that slot is read. The callback must return normally (no
/// C++ exception, no longjmp through tld4). A NULL `tld4_constants *` holds nothing.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_constants {
    /// The flat entries.
    pub entries: *const tld4_constant,
    /// How many entries.
    pub count: usize,
    /// Passed to `read`.
    pub user: *mut c_void,
    /// Reads the word at `c[bank][offset]`, or returns false.
    pub read: Option<
        unsafe extern "C" fn(user: *mut c_void, bank: u8, offset: u32, value: *mut u32) -> bool,
    >,
}

/// A `tld4_constants`, checked, as a [`ConstantBank`]; a conflict found while reading is
/// kept and reported after the execution.
pub(crate) struct CConstants<'a> {
    entries: &'a [tld4_constant],
    user: *mut c_void,
    read: Option<unsafe extern "C" fn(*mut c_void, u8, u32, *mut u32) -> bool>,
    conflict: Cell<Option<(usize, usize)>>,
}

impl<'a> CConstants<'a> {
    /// No constants.
    fn none() -> Self {
        CConstants {
            entries: &[],
            user: std::ptr::null_mut(),
            read: None,
            conflict: Cell::new(None),
        }
    }

    /// Checks `c` (NULL: no constants): each entry's offset a multiple of 4.
    ///
    /// # Safety
    /// `c` is NULL or valid, its `entries` `count` valid elements nothing writes while `'a`
    /// lasts.
    pub(crate) unsafe fn new(c: *const tld4_constants) -> Result<Self, Error> {
        // SAFETY: the caller's guarantee on `c`.
        let Some(c) = (unsafe { c.as_ref() }) else {
            return Ok(Self::none());
        };
        // SAFETY: the caller's guarantee on `entries`.
        let entries = unsafe { in_slice(c.entries, c.count, "constants.entries") }?;
        if let Some((i, e)) = entries.iter().enumerate().find(|(_, e)| e.offset % 4 != 0) {
            return Err(Error::Invalid(format!(
                "constants.entries[{i}].offset = {:#x}: not a multiple of 4 (an entry is an aligned 32-bit word)",
                e.offset
            )));
        }
        Ok(CConstants {
            entries,
            user: c.user,
            read: c.read,
            conflict: Cell::new(None),
        })
    }

    /// The conflict found while reading, if any.
    pub(crate) fn check(&self) -> Result<(), Error> {
        match self.conflict.get() {
            None => Ok(()),
            Some((i, j)) => {
                let (a, b) = (self.entries[i], self.entries[j]);
                Err(Error::Invalid(format!(
                    "constants.entries[{i}] and [{j}] both give c[{:#x}][{:#x}], as {:#x} and {:#x}",
                    a.bank, a.offset, a.value, b.value
                )))
            }
        }
    }
}

impl ConstantBank for CConstants<'_> {
    fn read_u32(&self, bank: u8, offset: u32) -> Option<u32> {
        let mut found: Option<usize> = None;
        for (i, e) in self.entries.iter().enumerate() {
            if e.bank != bank || e.offset != offset {
                continue;
            }
            match found {
                None => found = Some(i),
                Some(f) if self.entries[f].value != e.value => {
                    self.conflict.set(Some((f, i)));
                    return None;
                }
                Some(_) => {}
            }
        }
        if let Some(i) = found {
            return Some(self.entries[i].value);
        }
        let read = self.read?;
        let mut value = 0u32;
        // SAFETY: the caller of the entry point guarantees the callback may be called with
        // `user` while the call lasts; `value` is a live local.
        unsafe { read(self.user, bank, offset, &mut value) }.then_some(value)
    }
}

/// An architecture's TLD4 checked and prepared for execution (opaque): decode once, execute
/// many times. Made by `tld4_arch_exec_new` or `tld4_arch_exec_from_word`, freed with
/// `tld4_arch_exec_free`; never changed by executing.
pub struct tld4_arch_exec {
    pub(crate) exec: ArchExec,
    /// The highest uniform register the instruction reads from the warp, if any.
    pub(crate) ureg: Option<u8>,
}

impl tld4_arch_exec {
    pub(crate) fn new(insn: &tld4_emu::decoder::ArchTld4, config: ExecConfig) -> Self {
        let ureg = insn
            .used_registers()
            .iter()
            .filter_map(|u| match u.location {
                Location::UReg(r) => Some(r),
                _ => None,
            })
            .max();
        tld4_arch_exec {
            exec: ArchExec::new(insn, config),
            ureg,
        }
    }

    fn arch(&self) -> Arch {
        self.exec.insn().arch
    }
}

/// The config behind `config` (NULL: the defaults).
///
/// # Safety
/// `config` NULL or valid.
unsafe fn config_of(config: *const tld4_exec_config) -> Result<ExecConfig, Error> {
    if config.is_null() {
        Ok(ExecConfig::default())
    } else {
        // SAFETY: not NULL; the caller guarantees it is valid.
        unsafe { in_ref(config, "config") }?.config()
    }
}

/// Stores a new boxed executor into `*out_ptr`.
///
/// # Safety
/// `out_ptr` NULL or valid for a write.
unsafe fn store(out_ptr: *mut *mut tld4_arch_exec, exec: tld4_arch_exec) -> Result<(), Error> {
    if out_ptr.is_null() {
        return Err(Error::Null("out"));
    }
    // SAFETY: not NULL; the caller guarantees it is valid for a write.
    unsafe { out(out_ptr, "out", Box::into_raw(Box::new(exec))) }
}

/// Prepares `insn` for execution (`*out`; free it with `tld4_arch_exec_free`); `config`
/// NULL means the defaults. As for `tld4_exec_new`, an illegal encoding, and a form whose
/// handle source is not modeled (0xb63 with `.B`, 0x364 with `.???0`), are raised by every
/// execution as warp faults, not here.
///
/// # Safety
/// `insn` is a live instruction; `config` NULL or valid; `out` valid for a write; `err`
/// NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_exec_new(
    insn: *const tld4_arch_insn,
    config: *const tld4_exec_config,
    out_ptr: *mut *mut tld4_arch_exec,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let config = config_of(config)?;
        store(out_ptr, tld4_arch_exec::new(&insn.0, config))
    })
}

/// Decodes `word` for `arch` and prepares it, as `tld4_decode_arch` then
/// `tld4_arch_exec_new`.
///
/// # Safety
/// `config` NULL or valid; `out` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_exec_from_word(
    arch: u32,
    word: tld4_word,
    config: *const tld4_exec_config,
    out_ptr: *mut *mut tld4_arch_exec,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = tld4_emu::decoder::decode_arch(arch_of(arch)?, word.get())?;
        let config = config_of(config)?;
        store(out_ptr, tld4_arch_exec::new(&insn, config))
    })
}

/// Frees an executor; NULL is ignored.
///
/// # Safety
/// `exec` is NULL or came from this library and was not freed before; no execution with it
/// is running.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_exec_free(exec: *mut tld4_arch_exec) {
    if !exec.is_null() {
        // SAFETY: made by `Box::into_raw` in `store`, not freed before.
        quiet((), || drop(unsafe { Box::from_raw(exec) }));
    }
}

/// The warp faults the instruction raises before looking at any lane, with
/// `regs_per_thread` registers (as `tld4_exec_check`: invalid config, illegal encoding,
/// out-of-range or misaligned register), then a form whose handle source is not modeled
/// (0xb65, 0xb63 with `.B`, 0x364 with `.???0`: `TLD4_FAULT_NOT_MODELED`):
/// `TLD4_ERR_WARP_FAULT` with the fault in `err`, or `TLD4_OK`. A missing constant is found
/// only when a warp executes (the constants are the run's).
///
/// # Safety
/// `exec` is live; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_exec_check(
    exec: *const tld4_arch_exec,
    regs_per_thread: u32,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        // A warp with no active lane: `ArchExec::execute` raises exactly these, and reads
        // neither registers, constants nor textures.
        let mut idle = WarpState::new();
        idle.active_mask = 0;
        idle.regs_per_thread = regs_per_thread.min(255) as u16;
        exec.exec
            .execute(&mut idle, &NoConstants, &TexturePool::new())
            .map(|_| ())
            .map_err(|e| arch_error(e, None))
    })
}

/// An `ArchExecError` as this crate's error: warp faults and memory errors as the base
/// executor's, a missing constant as `Error::Arch`.
pub(crate) fn arch_error(e: ArchExecError, mem: Option<&CMemory>) -> Error {
    match (e, mem) {
        (ArchExecError::Fault(f), _) => Error::Fault(f),
        (ArchExecError::Memory(m), Some(mem)) => Error::mem_exec(m, mem),
        (ArchExecError::Memory(m), None) => Error::MemExec {
            source: m,
            code: None,
        },
        (other, _) => Error::Arch(other),
    }
}

fn report(r: tld4_emu::ExecReport) -> tld4_exec_report {
    tld4_exec_report {
        executed: r.executed,
        nonresident: r.nonresident,
    }
}

/// Runs over an owned pool; the constants' conflict, if one was found, wins.
fn run_owned<R: RegisterFile>(
    exec: &tld4_arch_exec,
    constants: &CConstants,
    pool: &tld4_pool,
    rf: &mut R,
) -> Result<tld4_exec_report, Error> {
    let r = exec.exec.execute(rf, constants, &pool.0);
    constants.check()?;
    Ok(report(r.map_err(|e| arch_error(e, None))?))
}

/// Runs over textures in GPU memory, read as the architecture's GPU class reads them.
fn run_memory<R: RegisterFile>(
    exec: &tld4_arch_exec,
    constants: &CConstants,
    mem: &CMemory,
    header_pool: u64,
    sampler_pool: u64,
    rf: &mut R,
) -> Result<tld4_exec_report, Error> {
    let class = GpuClass::for_arch(exec.arch().name())?;
    let pool = MemoryPool::new(mem, header_pool, sampler_pool)
        .with_descriptors(ClassDescriptors::new(class));
    let r = exec.exec.execute_memory(rf, constants, &pool);
    constants.check()?;
    Ok(report(r.map_err(|e| arch_error(e, Some(mem)))?))
}

/// Executes the instruction for one warp held in flat arrays (see `tld4_warp_flat`) against
/// `pool`, reading constant memory from `constants` (NULL: none). Results, `report` and
/// faults as for `tld4_exec_run_flat`; in addition, a constant-bank TLD4 (0xb63) whose
/// constant neither the entries nor the callback hold is `TLD4_ERR_WARP_FAULT` with the
/// fault `TLD4_FAULT_NO_CONSTANT` (lane -1: the constant is read once for the warp; the
/// bank and byte offset in `err.detail`, `read = TLD4_READ_CONSTANT`), and nothing is
/// written. The constant is read only when some lane executes, after the faults found
/// before looking at any lane.
///
/// # Safety
/// `exec`, `pool` live; `constants` NULL or valid as `tld4_constants` documents; `warp` as
/// for `tld4_exec_run_flat`; `report`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_exec_run_flat(
    exec: *const tld4_arch_exec,
    constants: *const tld4_constants,
    pool: *const tld4_pool,
    warp: *mut tld4_warp_flat,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let pool = in_ref(pool, "pool")?;
        let constants = CConstants::new(constants)?;
        let mut flat = Flat::new(in_mut(warp, "warp")?, exec.ureg)?;
        let r = run_owned(exec, &constants, pool, &mut flat)?;
        out_opt(report, r);
        Ok(())
    })
}

/// As `tld4_arch_exec_run_flat`, with the registers read and written through the caller's
/// callbacks (see `tld4_regfile`).
///
/// # Safety
/// `exec`, `pool` live; `constants` NULL or valid as `tld4_constants` documents; `regfile`
/// valid, its callbacks safe to call with its `user` for the duration of the call;
/// `report`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_exec_run_callbacks(
    exec: *const tld4_arch_exec,
    constants: *const tld4_constants,
    pool: *const tld4_pool,
    regfile: *const tld4_regfile,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let pool = in_ref(pool, "pool")?;
        let constants = CConstants::new(constants)?;
        let mut cb = Callbacks::new(in_ref(regfile, "regfile")?)?;
        let r = run_owned(exec, &constants, pool, &mut cb)?;
        out_opt(report, r);
        Ok(())
    })
}

/// Executes the instruction for one warp held in flat arrays, its textures in GPU memory
/// (`memory`, `header_pool`, `sampler_pool` as for `tld4_exec_run_flat_memory`), reading
/// the texture headers and samplers as the architecture's GPU class does (tld4-gpu-memory's
/// `GpuClass::for_arch`: TURING_A to ADA_A headers in the V1 layout, HOPPER_A onwards V2).
/// An architecture with no known class (sm_88, sm_107) is `TLD4_ERR_NOT_MODELED` naming it.
/// Errors otherwise as `tld4_exec_run_flat_memory` and `tld4_arch_exec_run_flat` (a missing
/// constant: `TLD4_FAULT_NO_CONSTANT`).
///
/// # Safety
/// `exec` live; `constants` NULL or valid as `tld4_constants` documents; `memory` valid as
/// `tld4_memory` documents; `warp` as for `tld4_exec_run_flat`; `report`, `err` NULL or
/// valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_arch_exec_run_flat_memory(
    exec: *const tld4_arch_exec,
    constants: *const tld4_constants,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    warp: *mut tld4_warp_flat,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let constants = CConstants::new(constants)?;
        let mem = CMemory::new(in_ref(memory, "memory")?, Lives::OneWarp)?;
        let mut flat = Flat::new(in_mut(warp, "warp")?, exec.ureg)?;
        let r = run_memory(exec, &constants, &mem, header_pool, sampler_pool, &mut flat)?;
        out_opt(report, r);
        Ok(())
    })
}

/// As `tld4_arch_exec_run_flat_memory`, with the registers read and written through the
/// caller's callbacks (see `tld4_regfile`).
///
/// # Safety
/// `exec` live; `constants` NULL or valid as `tld4_constants` documents; `memory` valid as
/// `tld4_memory` documents; `regfile` valid, its callbacks safe to call with its `user` for
/// the duration of the call; `report`, `err` NULL or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_arch_exec_run_callbacks_memory(
    exec: *const tld4_arch_exec,
    constants: *const tld4_constants,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    regfile: *const tld4_regfile,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let constants = CConstants::new(constants)?;
        let mem = CMemory::new(in_ref(memory, "memory")?, Lives::OneWarp)?;
        let mut cb = Callbacks::new(in_ref(regfile, "regfile")?)?;
        let r = run_memory(exec, &constants, &mem, header_pool, sampler_pool, &mut cb)?;
        out_opt(report, r);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_no_constant_name_is_tld4_emus() {
        let e = ArchExecError::NoConstant { bank: 0, offset: 0 };
        assert_eq!(NO_CONSTANT_NAME.to_str().unwrap(), e.kind_name());
    }
}
