//! GPU memory as the caller holds it, for the memory form (textures whose headers, samplers
//! and texels are bytes at GPU addresses): a flat byte range at a base address, or a read
//! callback; and where each footprint texel was read.

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::ops::Range;

use tld4_emu::gpu_memory::memory::{read_mapped, read_spans, view32, view_mapped, view_words8};
use tld4_emu::gpu_memory::{CallbackMemory, Memory, RangesMemory, ReadBytes};
use tld4_emu::textures::layout::sector_of;
use tld4_emu::textures::{LaneTexels, MemoryError, TexelAddress};

use crate::error::Error;
use crate::memory_cache::{use_cache, CacheUse};
use crate::ptr::{in_ref, in_slice};
use crate::ranges::tld4_ranges;

/// The forms of `tld4_memory` (`tld4_memory::kind`). 0 is neither, so a
/// zero-initialized `tld4_memory` is an error, not an empty memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_memory_kind {
    /// `len` bytes at `bytes` are the GPU addresses `base .. base + len` (`base + len` may
    /// be 2^64: the range may hold the last byte); every other address is unmapped.
    TLD4_MEMORY_FLAT = 1,
    /// `read` fetches bytes, with `user`. tld4 asks for a texture's bytes whole (then reads
    /// them in place: up to 64 MiB for a binding or a batch of more than 32 queries; for a
    /// one-shot warp up to 16 KiB, or 128 KiB where it records texel addresses, and a
    /// larger texture by the 32-byte sectors its lanes' texels lie in: one read each 2 KiB
    /// block of it, from the first such sector to the last), else for whole aligned 32-byte
    /// sectors, keeping both for the call, or for the life of a binding; for the exact bytes
    /// only where a sector cannot be read.
    TLD4_MEMORY_CALLBACK = 2,
    /// `user` is a `tld4_ranges *` (`tld4_ranges_new`; `tld4_ranges_memory` makes such a
    /// `tld4_memory`): many ranges, checked once, read in place.
    TLD4_MEMORY_RANGES = 3,
    /// `user` is a `tld4_memory_cache *` (`tld4_memory_cache_new`; `tld4_memory_cache_memory`
    /// makes such a `tld4_memory`): a read callback whose textures and sectors are kept
    /// across calls until invalidated.
    TLD4_MEMORY_CACHE = 4,
}

/// GPU memory: a flat byte range (`kind = TLD4_MEMORY_FLAT`: `base`, `bytes`, `len`), a
/// read callback (`kind = TLD4_MEMORY_CALLBACK`: `user`, `read`) or many ranges (`kind =
/// TLD4_MEMORY_RANGES`: `user`, from `tld4_ranges_memory`) or a read callback kept across
/// calls (`kind = TLD4_MEMORY_CACHE`: `user`, from `tld4_memory_cache_memory`); the other
/// forms' fields are ignored. tld4 only reads it, and only during the call it is passed to.
///
/// `read(user, addr, dst, len)` fills `dst` with the `len` bytes at `addr` and returns 0, or
/// returns nonzero when some byte cannot be read (the value is reported in the error
/// message). `dst` is not cleared first (it may hold bytes of an earlier call's read): a
/// read that returns 0 writes all `len` bytes. It must return normally (no C++ exception, no
/// longjmp through tld4).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_memory {
    /// A `tld4_memory_kind` value.
    pub kind: u32,
    /// Flat: the GPU address of `bytes[0]`.
    pub base: u64,
    /// Flat: the bytes (NULL only with `len` 0).
    pub bytes: *const u8,
    /// Flat: how many bytes.
    pub len: usize,
    /// Callback: passed to `read`.
    pub user: *mut c_void,
    /// Callback: reads `len` bytes at `addr` into `dst`; 0 on success.
    pub read: Option<
        unsafe extern "C" fn(user: *mut c_void, addr: u64, dst: *mut u8, len: usize) -> c_int,
    >,
}

/// For how many warps a `tld4_memory` is read: what its read callback is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lives {
    /// One warp's (a one-shot call, a batch of up to 32 queries): a texture over 128 KiB by
    /// its sectors, over 16 KiB where the call records no texel addresses
    /// ([`CallbackMemory::for_one_warp`]; a one-shot call reads them in place,
    /// `DetachedTexture::gather_by_sectors`).
    OneWarp,
    /// Many warps' (a binding, a larger batch): textures whole, up to 64 MiB.
    ManyWarps,
}

/// A `tld4_memory`, checked, as a [`Memory`].
pub(crate) enum CMemory<'a> {
    /// The flat range.
    Flat { base: u64, bytes: &'a [u8] },
    /// The callback, asked for whole textures and sectors (kept while the `CMemory` lives).
    Callback(CallbackMemory<CRead>),
    /// Many ranges, checked when made.
    Ranges(&'a RangesMemory<'a>),
    /// A callback whose reads are kept across calls (counted as in use while this lives).
    Cache(CacheUse<'a>),
}

impl CMemory<'_> {
    /// Checks `m`'s kind and the fields of its form.
    ///
    /// # Safety
    /// With `TLD4_MEMORY_FLAT`, `m.bytes` is NULL or points to `m.len` bytes nothing writes
    /// while `'a` lasts; with `TLD4_MEMORY_CALLBACK`, `m.read` is safe to call with `m.user`;
    /// with `TLD4_MEMORY_RANGES`, `m.user` is NULL or a `tld4_ranges` alive while `'a` lasts;
    /// with `TLD4_MEMORY_CACHE`, `m.user` is NULL or a `tld4_memory_cache` alive while `'a`
    /// lasts and used by no other thread meanwhile.
    /// `lives` says for how many warps it is read (what a read callback is asked for).
    pub(crate) unsafe fn new<'a>(m: &tld4_memory, lives: Lives) -> Result<CMemory<'a>, Error> {
        match m.kind {
            k if k == tld4_memory_kind::TLD4_MEMORY_FLAT as u32 => {
                // SAFETY: the caller's guarantee on `bytes` and `len`.
                let bytes = unsafe { in_slice(m.bytes, m.len, "memory.bytes") }?;
                // The range may hold the last byte, 0xffffffffffffffff (base + len = 2^64).
                if m.base as u128 + m.len as u128 > 1u128 << 64 {
                    return Err(Error::Invalid(format!(
                        "memory: base {:#x} + len {:#x} passes 2^64",
                        m.base, m.len
                    )));
                }
                Ok(CMemory::Flat {
                    base: m.base,
                    bytes,
                })
            }
            k if k == tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32 => {
                let read = CRead::new(m.user, m.read.ok_or(Error::Null("memory.read"))?);
                Ok(CMemory::Callback(match lives {
                    Lives::OneWarp => CallbackMemory::for_one_warp(read),
                    Lives::ManyWarps => CallbackMemory::new(read),
                }))
            }
            k if k == tld4_memory_kind::TLD4_MEMORY_RANGES as u32 => {
                // SAFETY: the caller's guarantee: `user` is NULL or a live `tld4_ranges`.
                let r = unsafe { in_ref(m.user.cast::<tld4_ranges>(), "memory.user (ranges)") }?;
                Ok(CMemory::Ranges(&r.0))
            }
            k if k == tld4_memory_kind::TLD4_MEMORY_CACHE as u32 => {
                // SAFETY: the caller's guarantee: `user` is NULL or a live cache.
                Ok(CMemory::Cache(unsafe { use_cache(m.user.cast()) }?))
            }
            k => Err(Error::Invalid(format!(
                "memory.kind = {k}: expected TLD4_MEMORY_FLAT (1), TLD4_MEMORY_CALLBACK (2) \
                 TLD4_MEMORY_RANGES (3) or TLD4_MEMORY_CACHE (4)"
            ))),
        }
    }

    /// The last nonzero value the read callback returned, if any.
    pub(crate) fn callback_code(&self) -> Option<c_int> {
        let read = match self {
            CMemory::Callback(c) => c.reader(),
            CMemory::Cache(c) => c.memory().reader(),
            _ => return None,
        };
        Some(read.last.get()).filter(|&c| c != 0)
    }
}

impl Memory for CMemory<'_> {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemoryError> {
        match self {
            CMemory::Flat { base, bytes } => read_mapped(*base, bytes, addr, buf),
            CMemory::Callback(c) => c.read(addr, buf),
            CMemory::Ranges(r) => r.read(addr, buf),
            CMemory::Cache(c) => c.memory().read(addr, buf),
        }
    }

    fn read_spans_once(&self, base: u64, bytes: &mut [u8], spans: &[Range<usize>]) -> bool {
        match self {
            CMemory::Callback(c) => c.read_spans_once(base, bytes, spans),
            CMemory::Cache(c) => c.memory().read_spans_once(base, bytes, spans),
            _ => read_spans(base, bytes, spans, |at, dst| self.read(at, dst).is_ok()),
        }
    }

    /// Flat memory and ranges hand out views (texels are then read in place); a callback
    /// memory asks for the whole range, once, and keeps it (the memory is unchanged while
    /// the `CMemory` lives: one call, or a binding; a cache's until invalidated).
    fn view(&self, addr: u64, len: u64) -> Option<&[u8]> {
        match self {
            CMemory::Flat { base, bytes } => view_mapped(*base, bytes, addr, len),
            CMemory::Callback(c) => c.view(addr, len),
            CMemory::Ranges(r) => r.view(addr, len),
            CMemory::Cache(c) => c.memory().view(addr, len),
        }
    }

    /// [`CMemory::view`], a one-shot callback's only up to 16 KiB (a larger texture is then
    /// read by its sectors: [`Memory::view_for_one_warp`]).
    fn view_for_one_warp(&self, addr: u64, len: u64) -> Option<&[u8]> {
        match self {
            CMemory::Callback(c) => c.view_for_one_warp(addr, len),
            CMemory::Cache(c) => c.memory().view_for_one_warp(addr, len),
            _ => self.view(addr, len),
        }
    }

    /// A descriptor's 32 bytes: viewed where the memory holds them in place (flat, ranges),
    /// not copied; read through the callback otherwise, cached or not (its views fetch and
    /// keep whole textures).
    #[inline]
    fn read_words8(&self, addr: u64) -> Result<[u32; 8], MemoryError> {
        match self {
            CMemory::Flat { .. } => view_words8(self, addr),
            CMemory::Callback(c) => c.read_words8(addr),
            CMemory::Ranges(r) => r.read_words8(addr),
            CMemory::Cache(c) => c.memory().read_words8(addr),
        }
    }

    /// A descriptor's 32 bytes in place (compared there by one-shot calls): flat memory and
    /// ranges where they lie; a callback memory's as it keeps them once read.
    #[inline]
    fn descriptor_view(&self, addr: u64) -> Option<&[u8; 32]> {
        match self {
            CMemory::Flat { .. } => view32(self, addr),
            CMemory::Ranges(r) => r.descriptor_view(addr),
            CMemory::Callback(c) => c.descriptor_view(addr),
            CMemory::Cache(c) => c.memory().descriptor_view(addr),
        }
    }
}

/// C's read callback with its `user`, and the last nonzero value it returned.
pub(crate) struct CRead {
    user: *mut c_void,
    read: unsafe extern "C" fn(*mut c_void, u64, *mut u8, usize) -> c_int,
    last: Cell<c_int>,
}

impl CRead {
    /// `read` with `user`, no error yet.
    pub(crate) fn new(
        user: *mut c_void,
        read: unsafe extern "C" fn(*mut c_void, u64, *mut u8, usize) -> c_int,
    ) -> Self {
        CRead {
            user,
            read,
            last: Cell::new(0),
        }
    }

    /// Forgets the last nonzero return value.
    pub(crate) fn clear_code(&self) {
        self.last.set(0);
    }
}

impl ReadBytes for CRead {
    fn read_bytes(&self, addr: u64, dst: &mut [u8]) -> bool {
        // SAFETY: the caller of the entry point guarantees `read` may be called with `user`
        // (`CMemory::new`); `dst` is a live Rust buffer of `dst.len()` bytes.
        let code = unsafe { (self.read)(self.user, addr, dst.as_mut_ptr(), dst.len()) };
        if code != 0 {
            self.last.set(code);
        }
        code == 0
    }
}

/// Where one footprint texel was read (`tld4_texel_address::kind`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_texel_kind {
    /// Nothing recorded (the lane did not execute).
    TLD4_TEXEL_NONE = 0,
    /// A texel read from memory at `address`, `bytes` long.
    TLD4_TEXEL_MEMORY = 1,
    /// The border colour: no memory read.
    TLD4_TEXEL_BORDER = 2,
    /// A seamless cube footprint's corner: no memory read.
    TLD4_TEXEL_CORNER = 3,
}

/// One footprint texel's place in memory (16 bytes: kind, bytes, address).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_texel_address {
    /// What it is.
    pub kind: tld4_texel_kind,
    /// Bytes per texel (with `TLD4_TEXEL_MEMORY`; else 0).
    pub bytes: u32,
    /// The texel's first byte (with `TLD4_TEXEL_MEMORY`; else 0).
    pub address: u64,
}

/// One lane's memory traffic (the record of `tld4_exec_run_*_memory`'s `texels` array:
/// 104 bytes, 8-byte aligned; texels at offset 0, sectors at 64, num_sectors at 96, reserved
/// (always 0) at 100: no padding byte): the
/// four footprint texels in gather order x, y, z, w (the order of the results), and the
/// distinct 32-byte sectors they fall in, in first-use order.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct tld4_lane_texels {
    /// The texels, x, y, z, w.
    pub texels: [tld4_texel_address; 4],
    /// The sectors' addresses (multiples of 32); entries from `num_sectors` on are 0.
    pub sectors: [u64; 4],
    /// How many of `sectors` are set (0 to 4; 0 for a lane that did not execute).
    pub num_sectors: u32,
    /// Always 0: the record's last 4 bytes, explicit so that every byte of a record is
    /// written (a caller may compare records with `memcmp`).
    pub reserved: u32,
}

#[inline]
pub(crate) fn address(t: &TexelAddress) -> tld4_texel_address {
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

/// A lane's record from what the texture unit recorded: its texels, and the distinct sectors
/// they fall in ([`sector_of`], as [`LaneTexels::sectors`] gives them). A plain loop over the
/// four texels that keeps each new sector as it goes (an array `map` compiled to a call of
/// `try_map` a lane; through `LaneTexels::sectors` and its `Option`s it took about 190
/// instructions a lane, this about 100: docs/embedding.md).
#[inline]
pub(crate) fn lane_record(t: &LaneTexels) -> tld4_lane_texels {
    let mut rec = tld4_lane_texels {
        texels: [address(&TexelAddress::None); 4],
        sectors: [0; 4],
        num_sectors: 0,
        reserved: 0,
    };
    let mut n = 0;
    for (o, a) in rec.texels.iter_mut().zip(&t.texels) {
        *o = address(a);
        if let TexelAddress::Texel { address, .. } = *a {
            let s = sector_of(address);
            // (n <= the texels seen so far < 4)
            if !rec.sectors[..n].contains(&s) && n < 4 {
                rec.sectors[n] = s;
                n += 1;
            }
        }
    }
    rec.num_sectors = n as u32;
    rec
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lane of four texels drawn from border, corner, none and five addresses in four
    /// sectors (two in one): the record's sectors are `LaneTexels::sectors`', in order, and
    /// its texels each one's `address`.
    #[test]
    fn lane_records_keep_the_texture_units_sectors() {
        let choices: Vec<TexelAddress> = [
            TexelAddress::Border,
            TexelAddress::Corner,
            TexelAddress::None,
        ]
        .into_iter()
        .chain(
            [0x100, 0x11f, 0x120, 0x200, 0xffff_ffff_ffe0]
                .map(|address| TexelAddress::Texel { bytes: 4, address }),
        )
        .collect();
        let mut with_sectors = [0; 5];
        for code in 0..choices.len().pow(4) {
            let texels: [TexelAddress; 4] = std::array::from_fn(|i| {
                choices[code / choices.len().pow(i as u32) % choices.len()]
            });
            let lane = LaneTexels { texels };
            let rec = lane_record(&lane);
            let want: Vec<u64> = lane.sectors().into_iter().flatten().collect();
            assert_eq!(rec.num_sectors as usize, want.len(), "{texels:?}");
            assert_eq!(&rec.sectors[..want.len()], &want[..], "{texels:?}");
            assert!(
                rec.sectors[want.len()..].iter().all(|&s| s == 0),
                "{texels:?}"
            );
            for (got, t) in rec.texels.iter().zip(&texels) {
                assert_eq!(*got, address(t));
            }
            with_sectors[want.len()] += 1;
        }
        // every count of sectors, 0 to 4, occurs
        assert!(with_sectors.iter().all(|&n| n > 0), "{with_sectors:?}");
    }
}
