//! Each lane's texture handle, read from the warp's registers as an execution reads it, for
//! a simulator that looks up its own descriptors or models the texture requests before (or
//! without) executing: tld4-emu's `Tld4Exec::lane_handles` and `ArchExec::lane_handles`,
//! so the operand layout and the constant-bank form are not restated in C.

use tld4_emu::textures::Handle;
use tld4_emu::{ExecConfig, LaneHandles, RegisterFile, WARP_SIZE};

use crate::arch::tld4_arch_insn;
use crate::arch_exec::{arch_error, tld4_arch_exec, tld4_constants, CConstants};
use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::exec::tld4_exec;
use crate::insn::tld4_insn;
use crate::ptr::{in_ref, out};
use crate::regfile::{tld4_regfile, tld4_warp_flat, Callbacks, Flat};

/// The handle each lane of a warp reads (`tld4_insn_lane_handles` and the `_arch_`,
/// `_callbacks` variants), split as the texture unit splits it: header index in bits 0-19,
/// sampler index in bits 20-31 (`tld4_handle` packs them; NAK's convention,
/// docs/sources.md, NAK conventions).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_lane_handles {
    /// Bit l set: lane l executes (active, its guard predicate true); the arrays hold 0 for
    /// the other lanes.
    pub executed: u32,
    /// Lane l's 32-bit handle: the first Rb register (register-handle form), the uniform
    /// register (URZ: 0), or the constant at the form's slot (constant-bank form).
    pub handle: [u32; 32],
    /// Lane l's texture-header index (bits 0-19 of `handle`): the entry at
    /// `header_pool + 32 * header[l]`.
    pub header: [u32; 32],
    /// Lane l's sampler index (bits 20-31 of `handle`).
    pub sampler: [u32; 32],
}

impl tld4_lane_handles {
    fn of(h: &LaneHandles) -> Self {
        let split = |f: fn(Handle) -> u32| -> [u32; WARP_SIZE] {
            std::array::from_fn(|l| {
                if h.executed >> l & 1 != 0 {
                    f(Handle(h.handles[l]))
                } else {
                    0
                }
            })
        };
        tld4_lane_handles {
            executed: h.executed,
            handle: h.handles,
            header: split(Handle::header_index),
            sampler: split(Handle::sampler_index),
        }
    }
}

/// The handles of an SM100 instruction over a register file.
fn insn_handles<R: RegisterFile>(exec: &tld4_exec, rf: &R) -> Result<tld4_lane_handles, Error> {
    Ok(tld4_lane_handles::of(&exec.exec.lane_handles(rf)?))
}

/// The handles of an architecture's instruction over a register file; the constants'
/// conflict, if one was found, wins.
fn arch_handles<R: RegisterFile>(
    exec: &tld4_arch_exec,
    constants: &CConstants,
    rf: &R,
) -> Result<tld4_lane_handles, Error> {
    let h = exec.exec.lane_handles(rf, constants);
    constants.check()?;
    Ok(tld4_lane_handles::of(&h.map_err(|e| arch_error(e, None))?))
}

/// Each lane's handle of `insn` (SM100) in the warp `warp` (flat arrays, as
/// `tld4_exec_run_flat` takes them; nothing is written) into `*handles`, read as an
/// execution with the default settings reads it: the faults found before any lane is read
/// come first (`TLD4_ERR_WARP_FAULT`: an illegal encoding, a register out of range), then
/// the lanes that execute and each one's handle. No texture is read, so a handle naming no
/// texture is not an error here.
///
/// # Safety
/// `insn` live; `warp` valid as for `tld4_exec_run_flat`; `handles` valid for a write;
/// `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_lane_handles(
    insn: *const tld4_insn,
    warp: *const tld4_warp_flat,
    handles: *mut tld4_lane_handles,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = tld4_exec::new(&in_ref(insn, "insn")?.0, ExecConfig::default());
        let flat = Flat::new(in_ref(warp, "warp")?, exec.ureg)?;
        out(handles, "handles", insn_handles(&exec, &flat)?)
    })
}

/// As `tld4_insn_lane_handles`, the registers read through the caller's callbacks (see
/// `tld4_regfile`; only `reg`, `pred` and `ureg` are called, but every one is required).
///
/// # Safety
/// `insn` live; `regfile` valid, its callbacks safe to call with its `user` for the
/// duration of the call; `handles` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_insn_lane_handles_callbacks(
    insn: *const tld4_insn,
    regfile: *const tld4_regfile,
    handles: *mut tld4_lane_handles,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = tld4_exec::new(&in_ref(insn, "insn")?.0, ExecConfig::default());
        let cb = Callbacks::new(in_ref(regfile, "regfile")?)?;
        out(handles, "handles", insn_handles(&exec, &cb)?)
    })
}

/// Each lane's handle of an architecture's instruction (`tld4_decode_arch`) in the warp
/// `warp` into `*handles`, read as `tld4_arch_exec_run_flat` with the default settings reads
/// it: the constant-bank form (SM75 to SM90a) reads its handle from `constants` (NULL:
/// none) once for the warp; the faults come first as there (`TLD4_ERR_WARP_FAULT` for a
/// static fault, a form not modeled or a missing constant, `TLD4_FAULT_NO_CONSTANT`).
///
/// # Safety
/// `insn` live; `constants` NULL or valid as `tld4_constants` documents; `warp` valid as for
/// `tld4_exec_run_flat`; `handles` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_lane_handles(
    insn: *const tld4_arch_insn,
    constants: *const tld4_constants,
    warp: *const tld4_warp_flat,
    handles: *mut tld4_lane_handles,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = tld4_arch_exec::new(&in_ref(insn, "insn")?.0, ExecConfig::default());
        let constants = CConstants::new(constants)?;
        let flat = Flat::new(in_ref(warp, "warp")?, exec.ureg)?;
        out(handles, "handles", arch_handles(&exec, &constants, &flat)?)
    })
}

/// As `tld4_arch_insn_lane_handles`, the registers read through the caller's callbacks.
///
/// # Safety
/// `insn` live; `constants` NULL or valid; `regfile` valid, its callbacks safe to call with
/// its `user` for the duration of the call; `handles` valid for a write; `err` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_arch_insn_lane_handles_callbacks(
    insn: *const tld4_arch_insn,
    constants: *const tld4_constants,
    regfile: *const tld4_regfile,
    handles: *mut tld4_lane_handles,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = tld4_arch_exec::new(&in_ref(insn, "insn")?.0, ExecConfig::default());
        let constants = CConstants::new(constants)?;
        let cb = Callbacks::new(in_ref(regfile, "regfile")?)?;
        out(handles, "handles", arch_handles(&exec, &constants, &cb)?)
    })
}
