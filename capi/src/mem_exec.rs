//! Executing a TLD4 for a warp over textures in GPU memory: tld4-emu's `execute_memory`
//! (each handle's 32-byte texture header and sampler read from the pools at the given
//! addresses, docs/sources.md, Descriptors; the texels read through the header's layout),
//! with the registers as flat arrays or callbacks, and optionally each lane's texel
//! addresses and sectors.

use tld4_emu::gpu_memory::MemoryPool;
use tld4_emu::textures::LaneTexels;
use tld4_emu::{RegisterFile, WARP_SIZE};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::exec::{tld4_exec, tld4_exec_report};
use crate::memory::{lane_record, tld4_lane_texels, tld4_memory, CMemory, Lives};
use crate::ptr::{in_ref, out_opt};
use crate::regfile::{tld4_regfile, tld4_warp_flat, Callbacks, Flat};

/// Runs `exec` over `rf` against the pools in `mem`; on success writes all 32 records of
/// `texels` (if not NULL) and returns the report; on an error writes nothing.
///
/// # Safety
/// `texels` is NULL or valid for 32 writes.
unsafe fn run_memory<R: RegisterFile>(
    exec: &tld4_exec,
    mem: &CMemory,
    header_pool: u64,
    sampler_pool: u64,
    rf: &mut R,
    texels: *mut tld4_lane_texels,
) -> Result<tld4_exec_report, Error> {
    let pool = MemoryPool::new(mem, header_pool, sampler_pool);
    // (the records only where asked for: 32 of them are 3 KiB to fill each call)
    let r = if texels.is_null() {
        exec.exec.execute_memory(rf, &pool, None)
    } else {
        let mut recorded = [LaneTexels::default(); WARP_SIZE];
        let r = exec.exec.execute_memory(rf, &pool, Some(&mut recorded));
        if r.is_ok() {
            for (lane, t) in recorded.iter().enumerate() {
                // SAFETY: not NULL, and valid for 32 writes (the caller's guarantee).
                unsafe { texels.add(lane).write(lane_record(t)) };
            }
        }
        r
    }
    .map_err(|e| Error::mem_exec(e, mem))?;
    Ok(tld4_exec_report {
        executed: r.executed,
        nonresident: r.nonresident,
    })
}

/// Executes the instruction for one warp held in flat arrays (see `tld4_warp_flat`), its
/// textures in GPU memory: `memory` (a flat byte range or a read callback, see
/// `tld4_memory`) holds the texture-header pool at `header_pool` and the sampler pool at
/// `sampler_pool` (32-byte entries, indexed by the handle's bits 19:0 and 31:20) and the
/// texels. Registers, predicates and `report` as for `tld4_exec_run_flat`.
///
/// `texels`, if not NULL, is the caller's array of 32 `tld4_lane_texels` records, entry `l`
/// for lane `l`; on success every entry is written: an executed lane's four texels in
/// gather order (memory address and size, or border, or cube corner) and the distinct
/// 32-byte sectors they fall in, and for a lane that did not execute all `TLD4_TEXEL_NONE`
/// and no sectors.
///
/// Errors (nothing written to registers, predicates or `texels`): `TLD4_ERR_WARP_FAULT`
/// with the fault and lane, as `tld4_exec_run_flat` (a descriptor value that is legal but
/// not modeled is the fault `TLD4_FAULT_NOT_MODELED`); `TLD4_ERR_DESCRIPTOR` for a header or
/// sampler value no hardware accepts, and `TLD4_ERR_MEMORY` for a read outside the flat
/// range or a nonzero return of the callback, both with the lane in `err.lane` and the
/// field, value or address in the message and in `err.detail`. Every one of them carries the
/// fault kind the warp raises in `err.fault` (an empty or unmapped texture-header slot:
/// `TLD4_FAULT_UNKNOWN_TEXTURE_HEADER`). Allocates nothing.
///
/// # Safety
/// `exec` live; `memory` valid as `tld4_memory` documents; `warp` as for
/// `tld4_exec_run_flat`; `texels` NULL or valid for 32 writes; `report`, `err` NULL or
/// valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_exec_run_flat_memory(
    exec: *const tld4_exec,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    warp: *const tld4_warp_flat,
    texels: *mut tld4_lane_texels,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let mem = CMemory::new(in_ref(memory, "memory")?, Lives::OneWarp)?;
        let mut flat = Flat::new(in_ref(warp, "warp")?, exec.ureg)?;
        let r = run_memory(exec, &mem, header_pool, sampler_pool, &mut flat, texels)?;
        out_opt(report, r);
        Ok(())
    })
}

/// As `tld4_exec_run_flat_memory`, with the registers read and written through the
/// caller's callbacks (see `tld4_regfile`; a NULL callback is `TLD4_ERR_NULL_POINTER`
/// naming it).
///
/// # Safety
/// `exec` live; `memory` valid as `tld4_memory` documents; `regfile` valid, its callbacks
/// safe to call with its `user` for the duration of the call; `texels` NULL or valid for 32
/// writes; `report`, `err` NULL or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_exec_run_callbacks_memory(
    exec: *const tld4_exec,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    regfile: *const tld4_regfile,
    texels: *mut tld4_lane_texels,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = in_ref(exec, "exec")?;
        let mem = CMemory::new(in_ref(memory, "memory")?, Lives::OneWarp)?;
        let mut cb = Callbacks::new(in_ref(regfile, "regfile")?)?;
        let r = run_memory(exec, &mem, header_pool, sampler_pool, &mut cb, texels)?;
        out_opt(report, r);
        Ok(())
    })
}
