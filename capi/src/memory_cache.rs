//! A read callback's memory kept across calls (`tld4_memory_cache`): what the callback read
//! (textures whole, 32-byte sectors; tld4-gpu-memory's `CallbackMemory`) stays for every
//! later one-shot call and binding until the caller says the bytes changed, as a GPU's
//! texture cache keeps texels until a copy or a kernel boundary (docs/sources.md,
//! Decisions: the persistent callback cache).

use std::cell::Cell;

use tld4_emu::gpu_memory::CallbackMemory;

use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::memory::{tld4_memory, tld4_memory_kind, CRead};
use crate::ptr::{in_ref, out};

/// A read callback with what it read kept across calls (opaque; `tld4_memory_cache_new`,
/// freed with `tld4_memory_cache_free`; `tld4_memory_cache_memory` makes the `tld4_memory`
/// that reads through it).
///
/// What the caller promises: the bytes the callback reads do not change unless the caller
/// invalidates them (`tld4_memory_cache_invalidate` for the changed range, or
/// `tld4_memory_cache_clear`) before the next call that reads through the cache. Without
/// invalidation a read gives the bytes kept from before the change where it hits what is
/// kept, and the new bytes elsewhere (which is not specified). A texture fetch on a GPU is
/// not coherent with global writes of the same kernel launch either, so invalidating at
/// every host copy or memset into GPU memory and at every kernel launch is what the
/// hardware's texture cache gives (docs/sources.md, Decisions: the persistent callback
/// cache).
///
/// Thread safety: none. Every call, binding and invalidation over one cache runs on one
/// thread at a time (the caller serializes them); the cache may move between threads.
/// Bindings over a cache (`tld4_exec_bind_memory`) hold it until freed: invalidating or
/// clearing is refused (`TLD4_ERR_INVALID_ARGUMENT`) while one is alive, or from inside the
/// cache's own read callback.
///
/// What it keeps: up to four textures whole (each up to 64 MiB; when all four are taken, a
/// call made with no binding alive drops the least recently used) and 64 sectors of 32
/// bytes (2 KiB, direct-mapped). A read the callback refuses is kept nowhere: it is asked
/// for again next time, and the error names the same address as without the cache.
pub struct tld4_memory_cache {
    /// The callback and what it read.
    mem: CallbackMemory<CRead>,
    /// Calls and bindings reading the cache now ([`CacheUse`]s alive).
    users: Cell<usize>,
}

/// A cache in use by one call or binding (counted in `users` while it lives).
pub(crate) struct CacheUse<'a> {
    cache: &'a tld4_memory_cache,
}

impl CacheUse<'_> {
    /// The cached memory.
    pub(crate) fn memory(&self) -> &CallbackMemory<CRead> {
        &self.cache.mem
    }
}

impl Drop for CacheUse<'_> {
    fn drop(&mut self) {
        self.cache.users.set(self.cache.users.get() - 1);
    }
}

/// Takes the cache at `p` for a call or binding; with no other user, first makes room for a
/// new texture and forgets the callback's last error code (it belongs to an earlier call).
///
/// # Safety
/// `p` is NULL or a live cache from `tld4_memory_cache_new`, used by no other thread, and
/// alive while `'a` lasts.
pub(crate) unsafe fn use_cache<'a>(p: *mut tld4_memory_cache) -> Result<CacheUse<'a>, Error> {
    // SAFETY: the caller's guarantee; `in_ref` refuses NULL.
    let users = unsafe { in_ref(p.cast_const(), "memory.user (cache)") }?
        .users
        .get();
    if users == 0 {
        // SAFETY: no `CacheUse` holds a reference (none counted), and no other thread uses
        // it (the caller's guarantee): this is the only reference.
        let cache = unsafe { &mut *p };
        cache.mem.make_room();
        cache.mem.reader().clear_code();
    }
    // SAFETY: as above; shared from here on (the cache changes through cells only).
    let cache: &'a tld4_memory_cache = unsafe { &*p };
    cache.users.set(users + 1);
    Ok(CacheUse { cache })
}

/// The cache at `p` for invalidation: refused while a call or binding reads it.
///
/// # Safety
/// As [`use_cache`].
unsafe fn idle<'a>(p: *mut tld4_memory_cache) -> Result<&'a mut tld4_memory_cache, Error> {
    // SAFETY: the caller's guarantee; `in_ref` refuses NULL.
    let users = unsafe { in_ref(p.cast_const(), "cache") }?.users.get();
    if users > 0 {
        return Err(Error::Invalid(format!(
            "cache: read by {users} binding(s) or running call(s); free the bindings first \
             (a binding over changed memory is stale)"
        )));
    }
    // SAFETY: nothing holds a reference (none counted); no other thread uses it.
    Ok(unsafe { &mut *p })
}

/// Makes a cache over the read callback of `memory` (`kind = TLD4_MEMORY_CALLBACK`; its
/// `read` and `user` are copied: they must stay valid until the cache is freed) with nothing
/// read yet (`*out`; free with `tld4_memory_cache_free`). A flat or ranges memory is refused
/// (`TLD4_ERR_INVALID_ARGUMENT`: they are read in place, with nothing to keep); a NULL
/// `read` is `TLD4_ERR_NULL_POINTER`.
///
/// # Safety
/// `memory` valid; its `read` safe to call with its `user` until the cache is freed; `out`
/// valid for a write of a pointer; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_memory_cache_new(
    memory: *const tld4_memory,
    out_ptr: *mut *mut tld4_memory_cache,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let m = in_ref(memory, "memory")?;
        if m.kind != tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32 {
            return Err(Error::Invalid(format!(
                "memory.kind = {}: a cache reads through a callback (TLD4_MEMORY_CALLBACK, 2); \
                 flat and ranges memory are read in place",
                m.kind
            )));
        }
        let read = CRead::new(m.user, m.read.ok_or(Error::Null("memory.read"))?);
        if out_ptr.is_null() {
            return Err(Error::Null("out"));
        }
        let cache = tld4_memory_cache {
            mem: CallbackMemory::new(read),
            users: Cell::new(0),
        };
        out(out_ptr, "out", Box::into_raw(Box::new(cache)))
    })
}

/// Frees a cache (and what it kept; not the callback's `user`); NULL is ignored.
///
/// # Safety
/// `cache` is NULL or came from `tld4_memory_cache_new` and was not freed before; no call
/// or binding that reads it is running or alive.
#[no_mangle]
pub unsafe extern "C" fn tld4_memory_cache_free(cache: *mut tld4_memory_cache) {
    if !cache.is_null() {
        // SAFETY: made by `Box::into_raw` in `tld4_memory_cache_new`, not freed before.
        quiet((), || drop(unsafe { Box::from_raw(cache) }));
    }
}

/// The `tld4_memory` that reads through `cache` (`kind = TLD4_MEMORY_CACHE`, `user =
/// cache`, the other fields zero): pass it wherever a `tld4_memory` is taken, one-shot calls
/// and bindings alike.
#[no_mangle]
pub extern "C" fn tld4_memory_cache_memory(cache: *mut tld4_memory_cache) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_CACHE as u32,
        base: 0,
        bytes: std::ptr::null(),
        len: 0,
        user: cache.cast(),
        read: None,
    }
}

/// Drops every texture and sector the cache keeps that overlaps the `len` bytes at `addr`
/// (`addr + len` may be 2^64, not more: `TLD4_ERR_INVALID_ARGUMENT`; `len` 0 drops
/// nothing): they are read through the callback again when next needed. Call it after those
/// bytes changed (a copy or memset into GPU memory), before the next call that reads
/// through the cache. Refused (`TLD4_ERR_INVALID_ARGUMENT`, nothing dropped) while a binding
/// over the cache is alive.
///
/// # Safety
/// `cache` NULL or live, used by no other thread meanwhile; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_memory_cache_invalidate(
    cache: *mut tld4_memory_cache,
    addr: u64,
    len: u64,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let c = idle(cache)?;
        if addr as u128 + len as u128 > 1u128 << 64 {
            return Err(Error::Invalid(format!(
                "invalidate: addr {addr:#x} + len {len:#x} passes 2^64"
            )));
        }
        c.mem.invalidate(addr, len);
        Ok(())
    })
}

/// Drops everything the cache keeps (at a kernel launch, or after changes the caller does
/// not track). Refused (`TLD4_ERR_INVALID_ARGUMENT`, nothing dropped) while a binding over
/// the cache is alive.
///
/// # Safety
/// `cache` NULL or live, used by no other thread meanwhile; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_memory_cache_clear(
    cache: *mut tld4_memory_cache,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        idle(cache)?.mem.clear();
        Ok(())
    })
}

/// How many textures and sectors a cache keeps (`tld4_memory_cache_kept`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct tld4_memory_cache_stats {
    /// Textures (ranges) kept whole, 0 to 4.
    pub views: u32,
    /// 32-byte sectors kept, 0 to 64.
    pub sectors: u32,
}

/// Writes how many textures and sectors `cache` keeps to `*stats`.
///
/// # Safety
/// `cache` NULL or live, used by no other thread meanwhile; `stats` valid for a write;
/// `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_memory_cache_kept(
    cache: *const tld4_memory_cache,
    stats: *mut tld4_memory_cache_stats,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let kept = in_ref(cache, "cache")?.mem.kept();
        out(
            stats,
            "stats",
            tld4_memory_cache_stats {
                views: kept.views as u32,
                sectors: kept.sectors as u32,
            },
        )
    })
}
