//! Gathers from textures in GPU memory: a memory-read callback, the texture-header pool and
//! sampler pool addresses, and the byte address of every footprint texel per lane.
//!
//! This is the texture unit's gather (tld4-textures' `MemoryPool` and `SiteGatherer`), not a
//! warp execution: tld4-emu's executor runs against owned texture pools only, so the caller
//! reads each lane's coordinates, offsets and depth reference from its registers (the
//! operand lists say which) and passes them as queries.

use std::ffi::c_void;

use tld4_emu::textures::{GatherQuery, LaneTexels, Memory, MemoryError, MemoryPool, TexelAddress};
use tld4_emu::{gather_op, ExecConfig, Handle};

use crate::error::{entry, tld4_error, tld4_status, Error};
use crate::exec::tld4_exec_config;
use crate::insn::tld4_insn;
use crate::ptr::{in_ref, in_slice};

/// GPU memory as the caller holds it: `read` fills `buf` with the `len` bytes at `addr` and
/// returns true, or returns false when some byte is not mapped. It must return normally.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_memory {
    /// Passed to `read`.
    pub user: *mut c_void,
    /// Reads `len` bytes at `addr` into `buf`.
    pub read: Option<
        unsafe extern "C" fn(user: *mut c_void, addr: u64, buf: *mut u8, len: usize) -> bool,
    >,
}

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

/// Where one footprint texel was read (`tld4_texel_address::kind`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_texel_kind {
    /// Nothing recorded.
    TLD4_TEXEL_NONE = 0,
    /// A texel read from memory at `address`, `bytes` long.
    TLD4_TEXEL_MEMORY = 1,
    /// The border colour: no memory read.
    TLD4_TEXEL_BORDER = 2,
    /// A seamless cube footprint's corner: no memory read.
    TLD4_TEXEL_CORNER = 3,
}

/// One footprint texel's place in memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_texel_address {
    /// What it is.
    pub kind: tld4_texel_kind,
    /// Bytes per texel (with `TLD4_TEXEL_MEMORY`).
    pub bytes: u32,
    /// The texel's first byte (with `TLD4_TEXEL_MEMORY`).
    pub address: u64,
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

/// The callback as a [`Memory`].
struct CallbackMemory {
    user: *mut c_void,
    read: unsafe extern "C" fn(*mut c_void, u64, *mut u8, usize) -> bool,
}

impl Memory for CallbackMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        // SAFETY: the caller of `tld4_mem_gather` guarantees `read` may be called with
        // `user`; `buf` is a live Rust buffer of `buf.len()` bytes.
        if unsafe { (self.read)(self.user, addr, buf.as_mut_ptr(), buf.len()) } {
            Ok(())
        } else {
            Err(MemoryError::Unmapped {
                addr,
                len: buf.len(),
            })
        }
    }
}

fn address(t: &TexelAddress) -> tld4_texel_address {
    use tld4_texel_kind::*;
    let (kind, bytes, address) = match *t {
        TexelAddress::Texel { address, bytes } => (TLD4_TEXEL_MEMORY, bytes, address),
        TexelAddress::Border => (TLD4_TEXEL_BORDER, 0, 0),
        TexelAddress::Corner => (TLD4_TEXEL_CORNER, 0, 0),
        TexelAddress::None => (TLD4_TEXEL_NONE, 0, 0),
    };
    tld4_texel_address {
        kind,
        bytes,
        address,
    }
}

/// Gathers `count` lanes for `insn` (its dimension, component, offsets and depth compare)
/// from the texture and sampler `handle` names in the pools at `header_pool` and
/// `sampler_pool` (32-byte entries, docs/sources.md, Descriptors), reading through `memory`;
/// `results[k]` is lane query `queries[k]`'s values and texel addresses. `config` NULL means
/// the defaults (only its precision counts). Errors: `TLD4_ERR_INVALID_ARGUMENT` for a
/// failed memory read (naming the query and address) or a descriptor or texture the texture
/// unit refuses, `TLD4_ERR_NOT_MODELED` for one it does not model, `TLD4_ERR_WARP_FAULT`
/// (`TLD4_FAULT_ILLEGAL_ENCODING`) for an instruction that cannot execute. Nothing is written
/// to `results` on an error.
///
/// # Safety
/// `insn` live; `memory` valid with a `read` safe to call with its `user`; `config` NULL or
/// valid; `queries` `count` elements; `results` valid for `count` writes; `err` NULL or valid.
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
    entry!(err, {
        let insn = in_ref(insn, "insn")?;
        let m = in_ref(memory, "memory")?;
        let mem = CallbackMemory {
            user: m.user,
            read: m.read.ok_or(Error::Null("memory.read"))?,
        };
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
        let pool = MemoryPool::new(&mem, header_pool, sampler_pool);
        let g = pool
            .gatherer(Handle(handle), &op, config.precision)
            .map_err(|e| Error::Memory(format!("handle {handle:#010x}"), e))?;
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
            let r = g
                .gather_with_addresses(&query, &mut texels)
                .map_err(|e| Error::Memory(format!("queries[{k}]"), e.into()))?;
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
