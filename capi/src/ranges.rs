//! GPU memory made of many ranges, as a simulator holds its sparse memory (descriptors,
//! texels and everything else at addresses spread over the address space): the ranges are
//! checked once (`tld4_ranges_new`), and a texture that lies in one range is read in place,
//! as from one flat range.

use tld4_emu::gpu_memory::{Range, RangesMemory};

use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::memory::{tld4_memory, tld4_memory_kind};
use crate::ptr::{in_slice, out};

/// One range of GPU memory: `len` bytes at `bytes` are the GPU addresses `address ..
/// address + len` (`address + len` may be 2^64).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_memory_range {
    /// The GPU address of `bytes[0]`.
    pub address: u64,
    /// How many bytes.
    pub len: usize,
    /// The bytes (NULL only with `len` 0).
    pub bytes: *const u8,
}

/// Ranges of GPU memory, checked (opaque; `tld4_ranges_new`, freed with `tld4_ranges_free`).
/// It borrows the ranges' bytes: they must stay alive and unchanged until it is freed.
pub struct tld4_ranges(pub(crate) RangesMemory<'static>);

/// Checks `count` ranges (sorted by address, none overlapping the one before, none past
/// 2^64; an error names the offending range's index) and keeps them (`*out`; free with
/// `tld4_ranges_free`); `tld4_ranges_memory` makes the `tld4_memory` that reads them.
///
/// # Safety
/// `ranges` is NULL (with `count` 0) or points to `count` ranges, each `bytes` NULL (with
/// `len` 0) or pointing to `len` bytes that stay alive and unchanged until the object is
/// freed; `out` is valid for a write of a pointer; `err` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_ranges_new(
    ranges: *const tld4_memory_range,
    count: usize,
    out_ptr: *mut *mut tld4_ranges,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        if out_ptr.is_null() {
            return Err(Error::Null("out"));
        }
        // (the caller's guarantee on `ranges` and `count`)
        let list = in_slice(ranges, count, "ranges")?;
        let mut kept = Vec::with_capacity(list.len());
        for (k, r) in list.iter().enumerate() {
            if r.bytes.is_null() && r.len != 0 {
                return Err(Error::Invalid(format!(
                    "ranges[{k}]: bytes is NULL with len {}",
                    r.len
                )));
            }
            // (the caller's guarantee on each range's bytes, for the object's life)
            let bytes = in_slice(r.bytes, r.len, "ranges[].bytes")?;
            kept.push(Range {
                address: r.address,
                bytes,
            });
        }
        let memory = RangesMemory::new(kept).map_err(|e| Error::Invalid(format!("ranges: {e}")))?;
        out(out_ptr, "out", Box::into_raw(Box::new(tld4_ranges(memory))))
    })
}

/// Frees ranges made by `tld4_ranges_new` (not their bytes); NULL is ignored.
///
/// # Safety
/// `ranges` is NULL or came from `tld4_ranges_new` and was not freed before; no call or
/// binding that reads it is running or alive.
#[no_mangle]
pub unsafe extern "C" fn tld4_ranges_free(ranges: *mut tld4_ranges) {
    if !ranges.is_null() {
        // SAFETY: made by `Box::into_raw` in `tld4_ranges_new`, not freed before.
        quiet((), || drop(unsafe { Box::from_raw(ranges) }));
    }
}

/// The `tld4_memory` that reads `ranges` (`kind = TLD4_MEMORY_RANGES`, `user = ranges`,
/// the other fields zero): pass it wherever a `tld4_memory` is taken. A read, or a
/// texture's texels, must lie in one range (ranges are separate mappings); a texture that
/// does is read in place.
#[no_mangle]
pub extern "C" fn tld4_ranges_memory(ranges: *const tld4_ranges) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_RANGES as u32,
        base: 0,
        bytes: std::ptr::null(),
        len: 0,
        user: ranges.cast_mut().cast(),
        read: None,
    }
}
