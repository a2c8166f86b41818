//! `tld4_mem_gather`: the texture unit's gather from textures in GPU memory for given lane
//! queries, with the byte address of every footprint texel. The caller reads each lane's
//! coordinates, offsets and depth reference from its registers (the operand lists say which);
//! `tld4_exec_run_*_memory` runs the whole instruction for a warp instead.

use tld4_emu::gpu_memory::{ClassDescriptors, MemoryPool};
use tld4_emu::textures::{GatherQuery, LaneTexels};
use tld4_emu::{gather_op, ExecConfig, Handle, MemoryRead};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::exec::tld4_exec_config;
use crate::insn::tld4_insn;
use crate::memory::{address, tld4_memory, tld4_texel_address, CMemory, Lives};
use crate::ptr::{in_ref, in_slice};

/// One lane's gather arguments, as the instruction's registers hold them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct tld4_gather_query {
    /// (u, v) for 2D kinds (the third unused), (x, y, z) for cube kinds.
    pub coords: [f32; 3],
    /// Array layer (whole cube for a cube array); ignored by 2D and cube textures.
    pub layer: u32,
    /// Texel offsets (dx, dy): entry 0 for AOFFI, entries 0..4 for PTP (6-bit signed).
    pub offsets: [[i8; 2]; 4],
    /// Depth reference, with depth compare.
    pub dref: f32,
}

/// One lane's result: the four values in gather order (x, y, z, w), residency, and the
/// four texels' addresses in the same order.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_gather_result {
    /// The values' bits (f32, or raw integers for integer formats).
    pub values: [u32; 4],
    /// False when the footprint touched a non-resident tile.
    pub resident: bool,
    /// Where each value's texel was read.
    pub texels: [tld4_texel_address; 4],
}

/// Gathers `count` lanes for `insn` (its dimension, component, offsets and depth compare)
/// from the texture and sampler `handle` names in the pools at `header_pool` and
/// `sampler_pool` (32-byte entries, docs/sources.md, Descriptors), reading through `memory`;
/// `results[k]` is lane query `queries[k]`'s values and texel addresses. `config` NULL means
/// the defaults (only its precision counts). Errors: `TLD4_ERR_MEMORY` for a failed memory
/// read (naming the query, or the handle for a descriptor read, and the address),
/// `TLD4_ERR_DESCRIPTOR` for a texture header or sampler holding a value no hardware
/// accepts, `TLD4_ERR_NOT_MODELED` for a legal one the texture unit does not model,
/// `TLD4_ERR_INVALID_ARGUMENT` for a texture the texture unit refuses, `TLD4_ERR_WARP_FAULT`
/// (`TLD4_FAULT_ILLEGAL_ENCODING`) for an instruction that cannot execute. Nothing is written
/// to `results` on an error.
///
/// # Safety
/// `insn` live; `memory` valid as `tld4_memory` documents (its bytes, or a `read` safe to
/// call with its `user`); `config` NULL or valid; `queries` `count` elements; `results` valid
/// for `count` writes; `err` NULL or valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn tld4_mem_gather(
    insn: *const tld4_insn,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    handle: u32,
    config: *const tld4_exec_config,
    queries: *const tld4_gather_query,
    count: usize,
    results: *mut tld4_gather_result,
    err: *mut tld4_error,
) -> tld4_status {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        gather_with(
            ClassDescriptors::default(),
            insn,
            memory,
            header_pool,
            sampler_pool,
            handle,
            config,
            queries,
            count,
            results,
            err,
        )
    }
}

/// `tld4_mem_gather` with the texture headers and samplers read as `descriptors` lays them
/// out (`tld4_mem_gather` reads BLACKWELL_A's V2; `tld4_mem_gather_arch` an
/// architecture's class).
///
/// # Safety
/// As `tld4_mem_gather`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gather_with(
    descriptors: ClassDescriptors,
    insn: *const tld4_insn,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    handle: u32,
    config: *const tld4_exec_config,
    queries: *const tld4_gather_query,
    count: usize,
    results: *mut tld4_gather_result,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let m = in_ref(memory, "memory")?;
        let lives = if count <= tld4_emu::WARP_SIZE {
            Lives::OneWarp
        } else {
            Lives::ManyWarps
        };
        let mem = CMemory::new(m, lives)?;
        let config = if config.is_null() {
            ExecConfig::default()
        } else {
            in_ref(config, "config")?.config()?
        };
        let queries = in_slice(queries, count, "queries")?;
        if count > 0 && results.is_null() {
            return Err(Error::Null("results"));
        }
        if let Some(why) = tld4_emu::illegal_encoding(&insn.0) {
            return Err(tld4_emu::WarpFault::IllegalEncoding(why).into());
        }
        let op = gather_op(&insn.0).ok_or_else(|| Error::Invalid("insn: no dimension".into()))?;
        let pool = MemoryPool::new(&mem, header_pool, sampler_pool).with_descriptors(descriptors);
        let g = pool
            .gatherer(Handle(handle), &op, config.precision)
            .map_err(|e| Error::memory(format!("handle {handle:#010x}"), e, &mem))?;
        // Gather every lane first, so that an error writes nothing.
        let mut lanes = Vec::with_capacity(count);
        for (k, q) in queries.iter().enumerate() {
            let query = GatherQuery {
                coords: q.coords,
                layer: q.layer,
                offsets: q.offsets,
                dref: q.dref,
            };
            let mut texels = LaneTexels::default();
            let r = g.gather_with_addresses(&query, &mut texels).map_err(|e| {
                let texel = MemoryRead::texel_of(&g, &query, &e);
                Error::texel(format!("queries[{k}]: reading the {texel}"), e, texel, &mem)
            })?;
            lanes.push(tld4_gather_result {
                values: r.values,
                resident: r.resident,
                texels: texels.texels.each_ref().map(address),
            });
        }
        for (k, r) in lanes.into_iter().enumerate() {
            // SAFETY: `results` is not NULL (checked above for count > 0) and valid for
            // `count` writes (the caller's guarantee); `k < count`.
            results.add(k).write(r);
        }
        Ok(())
    })
}
