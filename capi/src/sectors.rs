//! A warp's memory traffic as a cache model wants it: the 32 lanes' texel records merged
//! into the warp's distinct 32-byte sectors (about 60 lane-sector references of a typical
//! warp become about 9 requests).

use std::ptr::addr_of;

use tld4_emu::WARP_SIZE;

use crate::error::Error;
use crate::memory::{tld4_lane_texels, tld4_texel_kind};
use crate::ptr::out_array;

/// The most distinct sectors one warp's texels fall in (32 lanes, 4 texels each).
pub const TLD4_MAX_WARP_SECTORS: usize = 128;

/// Bytes of a sector: the sectors of `tld4_lane_texels::sectors` (tld4-textures' `sector_of`,
/// the L1/L2 sector of NVIDIA's memory hierarchy; a model's unit, not measured here).
const SECTOR_BYTES: u64 = 32;

/// One distinct 32-byte sector of a warp (`tld4_warp_sectors`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_warp_sector {
    /// The sector's address (a multiple of 32).
    pub address: u64,
    /// Bit l set: lane l read a texel in it.
    pub lanes: u32,
    /// How many texel reads (of all lanes) fall in it.
    pub texels: u32,
}

/// The texel kind as the raw value C stored (read as an integer: a value from C is never
/// read as a Rust enum).
///
/// # Safety
/// `t` points to a readable `tld4_lane_texels`.
unsafe fn kind_at(t: *const tld4_lane_texels, k: usize) -> u32 {
    // SAFETY: the caller's guarantee; the field is a C enum, 4 bytes.
    unsafe { addr_of!((*t).texels[k].kind).cast::<u32>().read() }
}

/// The warp's distinct sectors, in first-use order (lane 0's texels x, y, z, w first).
///
/// # Safety
/// `texels` points to 32 readable records.
unsafe fn merge(texels: *const tld4_lane_texels) -> Vec<tld4_warp_sector> {
    let mut out: Vec<tld4_warp_sector> = Vec::with_capacity(16);
    // neighbouring texels mostly share a sector: the last one found is tried first
    let mut last = 0;
    for lane in 0..WARP_SIZE {
        // SAFETY: the caller's guarantee of 32 records.
        let t = unsafe { texels.add(lane) };
        for k in 0..4 {
            // SAFETY: `t` is readable.
            if unsafe { kind_at(t, k) } != tld4_texel_kind::TLD4_TEXEL_MEMORY as u32 {
                continue;
            }
            // SAFETY: `t` is readable.
            let address = unsafe { addr_of!((*t).texels[k].address).read() };
            let sector = address & !(SECTOR_BYTES - 1);
            let at = if out.get(last).is_some_and(|s| s.address == sector) {
                Some(last)
            } else {
                out.iter().position(|s| s.address == sector)
            };
            match at {
                Some(k) => {
                    out[k].lanes |= 1 << lane;
                    out[k].texels += 1;
                    last = k;
                }
                None => {
                    last = out.len();
                    out.push(tld4_warp_sector {
                        address: sector,
                        lanes: 1 << lane,
                        texels: 1,
                    });
                }
            }
        }
    }
    out
}

/// Merges one warp's 32 lane records (`texels`, as `tld4_exec_run_*_memory` and
/// `tld4_bound_run_*` write them, entry `l` for lane `l`) into the warp's distinct 32-byte
/// sectors, in first-use order (lane 0's texels x, y, z, w, then lane 1's, ...): what a
/// simulator feeds its cache as the warp's requests. Texels of kind `TLD4_TEXEL_MEMORY`
/// count; borders, cube corners and lanes that did not execute (`TLD4_TEXEL_NONE`) read no
/// memory. The sectors go to `sectors` (room for `cap`; `TLD4_MAX_WARP_SECTORS` always
/// suffices; too small is `TLD4_ERR_BUFFER_TOO_SMALL`, nothing written); `count`, if not
/// NULL, receives how many there are in every case. Allocates once per call.
///
/// # Safety
/// `texels` valid for 32 reads (records written by tld4, or zeroed); `sectors` NULL or valid
/// for `cap` writes; `count`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_warp_sectors(
    texels: *const tld4_lane_texels,
    sectors: *mut tld4_warp_sector,
    cap: usize,
    count: *mut usize,
    err: *mut crate::error::tld4_error,
) -> crate::error::tld4_status {
    crate::error::entry!(err, {
        if texels.is_null() {
            return Err(Error::Null("texels"));
        }
        // SAFETY: the caller's guarantee of 32 records.
        let merged = merge(texels);
        out_array(sectors, cap, count, "sectors", &merged)
    })
}
