//! An executor bound to its textures for many warps (tld4-emu's `BoundExec`): the texture
//! unit prepared once per handle and kept between warps, over an owned pool or over the
//! header and sampler pools of a GPU memory; one warp at a time, or a batch of flat warps.

use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use tld4_emu::gpu_memory::MemoryPool;
use tld4_emu::textures::LaneTexels;
use tld4_emu::{BoundExec, ExecReport, RegisterFile, TexturePool, Tld4Exec, WARP_SIZE};

use crate::error::{entry, quiet, tld4_error, tld4_status, Error};
use crate::exec::{tld4_exec, tld4_exec_report};
use crate::memory::{lane_record, tld4_lane_texels, tld4_memory, CMemory, Lives};
use crate::pool::tld4_pool;
use crate::ptr::{in_mut, in_ref, in_slice, in_slice_mut, out, out_opt};
use crate::regfile::{tld4_regfile, tld4_warp_flat, Callbacks, Flat};

/// The two bindings, borrowing what the caller keeps alive (see `tld4_bound`'s contract).
/// (Both variants are some 1.7-1.9 KiB, the kept queries and results; the object is boxed
/// once per binding, so the difference costs nothing.)
#[allow(clippy::large_enum_variant)]
enum Inner {
    /// An owned pool.
    Owned(BoundExec<'static, 'static>),
    /// Pools in GPU memory (the memory is `tld4_bound::mem`).
    Memory(BoundExec<'static, 'static, MemoryPool<'static>>),
}

/// A TLD4 bound to its textures (opaque): made by `tld4_exec_bind` (an owned pool) or
/// `tld4_exec_bind_memory` (pools in GPU memory), freed with `tld4_bound_free`. It keeps the
/// texture unit prepared for the last handle used (its header and sampler read and decoded,
/// checked against the instruction), so warps after the first skip that work; every result
/// is exactly what the one-shot `tld4_exec_run_*` call gives.
///
/// Lifetime: the `tld4_exec`, the `tld4_pool` and a flat memory's bytes (or a callback
/// memory's `user` state) must stay alive and unchanged until `tld4_bound_free`: no
/// `tld4_pool_set_*`, `tld4_pool_add_*` or `tld4_pool_free` on the pool, no write to the
/// memory's descriptors or texels meanwhile (free and bind again after changing them;
/// binding allocates one small object and reads nothing).
///
/// Thread safety: a bound object changes with every run (what it keeps), so one thread at a
/// time uses it; it may move between threads. Bind one per thread: any number of bound
/// objects on one `tld4_exec` and one pool or memory may run at the same time (they only
/// read those).
pub struct tld4_bound {
    /// The binding; dropped (by hand) before `mem`, which it borrows.
    inner: ManuallyDrop<Inner>,
    /// The checked memory of a memory binding, owned here (freed last).
    mem: Option<NonNull<CMemory<'static>>>,
    /// The uniform register the instruction reads its handle from, if any.
    ureg: Option<u8>,
}

impl Drop for tld4_bound {
    fn drop(&mut self) {
        // SAFETY: dropped once, here, and never used again; it borrows `mem`, freed after.
        unsafe { ManuallyDrop::drop(&mut self.inner) };
        if let Some(m) = self.mem.take() {
            // SAFETY: made by `Box::into_raw` in `tld4_exec_bind_memory`; nothing borrows it
            // any more (the binding was dropped above).
            drop(unsafe { Box::from_raw(m.as_ptr()) });
        }
    }
}

impl tld4_bound {
    /// Runs one warp; with `texels`, all 32 records are written on success (a lane that did
    /// not execute, or an owned binding's lane, gets `TLD4_TEXEL_NONE` and no sectors).
    fn run<R: RegisterFile>(
        &mut self,
        rf: &mut R,
        texels: Option<&mut [tld4_lane_texels]>,
    ) -> Result<tld4_exec_report, Error> {
        let mem = self.mem;
        let r: ExecReport = match &mut *self.inner {
            Inner::Owned(b) => {
                let r = b.execute(rf)?;
                if let Some(t) = texels {
                    t.fill(lane_record(&LaneTexels::default()));
                }
                r
            }
            Inner::Memory(b) => {
                let mut recorded = [LaneTexels::default(); WARP_SIZE];
                let want = texels.is_some();
                let r = b
                    .execute_with_texels(rf, want.then_some(&mut recorded))
                    .map_err(|e| {
                        // SAFETY: alive until `drop` (see `tld4_bound::mem`).
                        match mem.map(|m| unsafe { &*m.as_ptr() }) {
                            Some(m) => Error::mem_exec(e, m),
                            None => Error::MemExec {
                                source: e,
                                code: None,
                            },
                        }
                    })?;
                if let Some(t) = texels {
                    for (o, rec) in t.iter_mut().zip(&recorded) {
                        *o = lane_record(rec);
                    }
                }
                r
            }
        };
        Ok(tld4_exec_report {
            executed: r.executed,
            nonresident: r.nonresident,
        })
    }
}

/// `exec` as the `'static` borrow a binding keeps.
///
/// # Safety
/// `exec` outlives the binding (the caller's contract of `tld4_bound`).
unsafe fn exec_static(exec: *const tld4_exec) -> Result<&'static tld4_exec, Error> {
    // SAFETY: the caller's guarantee; `in_ref` refuses NULL.
    unsafe { in_ref(exec, "exec") }
}

/// Binds `exec` to the owned `pool` (`*out`; free it with `tld4_bound_free`). Both must stay
/// alive and the pool unchanged until then (see `tld4_bound`).
///
/// # Safety
/// `exec`, `pool` live, and kept so until `tld4_bound_free`; `out` valid for a write; `err`
/// NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_bind(
    exec: *const tld4_exec,
    pool: *const tld4_pool,
    out_ptr: *mut *mut tld4_bound,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = exec_static(exec)?;
        let pool: &'static TexturePool = &in_ref(pool, "pool")?.0;
        if out_ptr.is_null() {
            return Err(Error::Null("out"));
        }
        let e: &'static Tld4Exec = &exec.exec;
        let bound = tld4_bound {
            inner: ManuallyDrop::new(Inner::Owned(e.bind(pool))),
            mem: None,
            ureg: exec.ureg,
        };
        out(out_ptr, "out", Box::into_raw(Box::new(bound)))
    })
}

/// Binds `exec` to the texture-header pool at `header_pool` and the sampler pool at
/// `sampler_pool` in `memory` (as for `tld4_exec_run_flat_memory`; `*out`, free it with
/// `tld4_bound_free`). The `tld4_memory` struct itself is copied; its bytes or callback state
/// must stay alive and unchanged until `tld4_bound_free` (see `tld4_bound`).
///
/// # Safety
/// `exec` live and kept so; `memory` valid as `tld4_memory` documents, for the life of the
/// bound object; `out` valid for a write; `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_exec_bind_memory(
    exec: *const tld4_exec,
    memory: *const tld4_memory,
    header_pool: u64,
    sampler_pool: u64,
    out_ptr: *mut *mut tld4_bound,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let exec = exec_static(exec)?;
        let mem: CMemory<'static> = CMemory::new(in_ref(memory, "memory")?, Lives::ManyWarps)?;
        if out_ptr.is_null() {
            return Err(Error::Null("out"));
        }
        let mem = NonNull::from(Box::leak(Box::new(mem)));
        // (inside the entry's unsafe block) `mem` lives until the bound object's `drop`,
        // which drops the binding first.
        let m: &'static CMemory<'static> = &*mem.as_ptr();
        let e: &'static Tld4Exec = &exec.exec;
        let bound = tld4_bound {
            inner: ManuallyDrop::new(Inner::Memory(e.bind_memory(MemoryPool::new(
                m,
                header_pool,
                sampler_pool,
            )))),
            mem: Some(mem),
            ureg: exec.ureg,
        };
        out(out_ptr, "out", Box::into_raw(Box::new(bound)))
    })
}

/// Frees a bound object (not its executor, pool or memory); NULL is ignored.
///
/// # Safety
/// `bound` is NULL or came from `tld4_exec_bind*` and was not freed before; no run with it is
/// in progress.
#[no_mangle]
pub unsafe extern "C" fn tld4_bound_free(bound: *mut tld4_bound) {
    if !bound.is_null() {
        // SAFETY: made by `Box::into_raw` in `tld4_exec_bind*`, not freed before.
        quiet((), || drop(unsafe { Box::from_raw(bound) }));
    }
}

/// The caller's 32 texel records, if any.
///
/// # Safety
/// `texels` NULL or valid for 32 writes.
unsafe fn records<'a>(
    texels: *mut tld4_lane_texels,
) -> Result<Option<&'a mut [tld4_lane_texels]>, Error> {
    if texels.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's guarantee.
    unsafe { in_slice_mut(texels, WARP_SIZE, "texels") }.map(Some)
}

/// Executes the bound instruction for one warp in flat arrays (`tld4_warp_flat`): registers,
/// predicates, `report` and errors as `tld4_exec_run_flat` (owned binding) or
/// `tld4_exec_run_flat_memory` (memory binding). `texels`, if not NULL, receives 32 lane
/// records as `tld4_exec_run_flat_memory` writes them (every lane of an owned binding gets
/// `TLD4_TEXEL_NONE`: owned textures have no addresses). Allocates nothing.
///
/// # Safety
/// `bound` live and used by no other thread meanwhile; `warp` as for `tld4_exec_run_flat`;
/// `texels` NULL or valid for 32 writes; `report`, `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_bound_run_flat(
    bound: *mut tld4_bound,
    warp: *const tld4_warp_flat,
    texels: *mut tld4_lane_texels,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let b = in_mut(bound, "bound")?;
        let mut flat = Flat::new(in_ref(warp, "warp")?, b.ureg)?;
        let r = b.run(&mut flat, records(texels)?)?;
        out_opt(report, r);
        Ok(())
    })
}

/// As `tld4_bound_run_flat`, with the registers read and written through the caller's
/// callbacks (`tld4_regfile`).
///
/// # Safety
/// `bound` live and used by no other thread meanwhile; `regfile` valid, its callbacks safe to
/// call with its `user` during the call; `texels` NULL or valid for 32 writes; `report`,
/// `err` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_bound_run_callbacks(
    bound: *mut tld4_bound,
    regfile: *const tld4_regfile,
    texels: *mut tld4_lane_texels,
    report: *mut tld4_exec_report,
    err: *mut tld4_error,
) -> tld4_status {
    entry!(err, {
        let b = in_mut(bound, "bound")?;
        let mut cb = Callbacks::new(in_ref(regfile, "regfile")?)?;
        let r = b.run(&mut cb, records(texels)?)?;
        out_opt(report, r);
        Ok(())
    })
}

/// Executes the bound instruction for `count` warps in flat arrays, in order, on the calling
/// thread: warp `i` is `warps[i]`, its report goes to `reports[i]` and its texel records to
/// `texels[32 * i .. 32 * i + 32]` (each array NULL for none). It stops at the first warp
/// that fails, which writes nothing: `*done` (if not NULL) receives the number of warps
/// completed in every case (so the failed warp is `warps[*done]`), and `err` describes its
/// failure as `tld4_bound_run_flat` would. One entry into the library for many warps.
///
/// # Safety
/// `bound` live and used by no other thread meanwhile; `warps` `count` valid warps (as for
/// `tld4_exec_run_flat`, none sharing registers or predicates with another); `texels` NULL or valid for
/// `32 * count` writes; `reports` NULL or valid for `count` writes; `done`, `err` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn tld4_bound_run_flat_batch(
    bound: *mut tld4_bound,
    warps: *const tld4_warp_flat,
    count: usize,
    texels: *mut tld4_lane_texels,
    reports: *mut tld4_exec_report,
    done: *mut usize,
    err: *mut tld4_error,
) -> tld4_status {
    out_opt_unchecked(done, 0);
    entry!(err, {
        let b = in_mut(bound, "bound")?;
        let warps = in_slice(warps, count, "warps")?;
        let mut texels = if texels.is_null() {
            None
        } else {
            let n = count.checked_mul(WARP_SIZE).ok_or_else(|| {
                Error::Invalid(format!(
                    "count = {count}: 32 * count texel records overflow"
                ))
            })?;
            Some(in_slice_mut(texels, n, "texels")?)
        };
        let mut reports = if reports.is_null() {
            None
        } else {
            Some(in_slice_mut(reports, count, "reports")?)
        };
        for (i, w) in warps.iter().enumerate() {
            let mut flat = Flat::new(w, b.ureg)?;
            let rec = texels
                .as_deref_mut()
                .map(|t| &mut t[i * WARP_SIZE..(i + 1) * WARP_SIZE]);
            let r = b.run(&mut flat, rec)?;
            if let Some(rs) = reports.as_deref_mut() {
                rs[i] = r;
            }
            out_opt(done, i + 1);
        }
        Ok(())
    })
}

/// Stores `value` into `p` when not NULL, outside an entry's body.
fn out_opt_unchecked(p: *mut usize, value: usize) {
    if !p.is_null() {
        // SAFETY: the caller of the entry point guarantees `done` is NULL or valid.
        unsafe { p.write(value) };
    }
}
