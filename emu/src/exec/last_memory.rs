//! What [`Tld4Exec::execute_memory`] keeps between calls: per thread, the textures last
//! prepared apart from any memory ([`DetachedTexture`]: the decoded header and sampler and
//! the texture unit's constants), for each of the last few descriptor contents, keyed by
//! what preparing reads: the 64 bytes of the handle's header and sampler as this call reads
//! them from its memory, the GPU class reading them, and the executor's setup number (the
//! gather op, the precision model, the output mode: `last::fresh_setup`). Each call still
//! reads both descriptors, as the texture unit does each time it executes, and compares
//! them with what was kept: a descriptor changed at the same address, another memory, class
//! or executor, is prepared afresh. The texels are never kept: each call attaches its own
//! memory to the kept texture ([`DetachedTexture::attach`]), reading them in place where
//! the memory hands out their bytes (and, where no texel addresses are recorded, only the
//! in-place gatherer is attached). A loop of one-shot calls over one texture then costs what
//! a bound loop ([`Tld4Exec::bind_memory`]) costs plus the two descriptor reads, the
//! comparison and the attaching: 1.25-1.44x its instructions a warp (docs/benchmarks.md,
//! "One-shot memory calls").
//!
//! Per thread (the executor stays `Sync` without a lock), with no `unsafe`: what is kept
//! borrows nothing. Where the thread's state is in use (a memory's read callback executing
//! again on this thread) or gone (the thread ending), the call prepares as a binding does.

use std::cell::RefCell;

use tld4_gpu_memory::{ClassDescriptors, DetachedTexture, MemoryPool, PreparedTexture};
use tld4_textures::{Gatherer, Handle, LaneQueries, LaneResults, LaneTexels};

use super::binding::{gather_in_place, Binding, Run};
use super::bound::WarpParts;
use super::{ExecReport, Tld4Exec};
use crate::memory_exec::MemoryExecError;
use crate::regfile::RegisterFile;
use crate::warp::WARP_SIZE;

/// Textures kept a thread: enough for a few textures or executors in turn.
const KEPT: usize = 4;

/// What a kept texture was prepared from.
#[derive(Clone, Copy, PartialEq)]
struct Key {
    /// The executor's setup number.
    setup: u64,
    descriptors: ClassDescriptors,
    /// The header's words, then the sampler's.
    words: [[u32; 8]; 2],
}

/// A kept texture and what it was prepared from.
struct Slot {
    key: Key,
    texture: DetachedTexture,
}

/// The kept textures (`last` the one used last, `next` the one replaced next).
struct Kept {
    slots: [Option<Slot>; KEPT],
    last: usize,
    next: usize,
}

impl Kept {
    /// The kept texture for `key`, or the one `prepare` makes (kept, replacing the oldest),
    /// or None where `prepare` fails.
    #[inline(always)]
    fn find_or(
        &mut self,
        key: &Key,
        prepare: impl FnOnce() -> Option<DetachedTexture>,
    ) -> Option<&DetachedTexture> {
        let same = |s: &Option<Slot>| matches!(s, Some(s) if s.key == *key);
        if !same(&self.slots[self.last % KEPT]) {
            self.last = match self.slots.iter().position(same) {
                Some(k) => k,
                None => self.keep(*key, prepare()?),
            };
        }
        self.slots[self.last % KEPT].as_ref().map(|s| &s.texture)
    }

    /// Keeps `texture` in the slot replaced next; returns the slot.
    #[cold]
    fn keep(&mut self, key: Key, texture: DetachedTexture) -> usize {
        let k = self.next % KEPT;
        self.next = (k + 1) % KEPT;
        self.slots[k] = Some(Slot { key, texture });
        k
    }
}

/// The query and result arrays every call reuses (not made and zeroed a call).
struct Arrays {
    queries: LaneQueries,
    results: LaneResults,
}

/// A thread's state: the arrays and the kept textures, each borrowed on its own (the
/// textures while a handle is prepared, the arrays for the whole warp).
struct State {
    arrays: RefCell<Arrays>,
    kept: RefCell<Kept>,
}

thread_local! {
    static STATE: State = const {
        State {
            arrays: RefCell::new(Arrays {
                queries: LaneQueries::new(),
                results: LaneResults::new(),
            }),
            kept: RefCell::new(Kept {
                slots: [const { None }; KEPT],
                last: 0,
                next: 0,
            }),
        }
    };
}

/// [`Tld4Exec::execute_memory`] with this thread's state: each handle's texture kept for
/// its descriptors' contents, attached to `pool`'s memory, the arrays reused. Where the
/// state is in use or gone, it binds afresh.
#[inline]
pub(crate) fn execute<R: RegisterFile + ?Sized>(
    exec: &Tld4Exec,
    warp: &mut R,
    pool: &MemoryPool<'_>,
    texels: Option<&mut [LaneTexels; WARP_SIZE]>,
) -> Result<ExecReport, MemoryExecError> {
    let mut texels = texels;
    let done = STATE.try_with(|state| {
        let mut arrays = state.arrays.try_borrow_mut().ok()?;
        let Arrays { queries, results } = &mut *arrays;
        let binding = OneShot {
            pool: *pool,
            kept: &state.kept,
            addresses: texels.is_some(),
        };
        let mut prepared = None;
        let parts = WarpParts {
            exec,
            pool: binding,
            prepared: &mut prepared,
            queries,
            results,
        };
        Some(parts.run(&mut *warp, texels.take()))
    });
    match done {
        Ok(Some(report)) => report,
        _ => exec.bind_memory(*pool).execute_with_texels(warp, texels),
    }
}

/// A memory pool executed one-shot: each handle prepared from the thread's kept textures.
#[derive(Clone, Copy)]
struct OneShot<'m, 'k> {
    pool: MemoryPool<'m>,
    kept: &'k RefCell<Kept>,
    /// The call records texel addresses (then the texel-by-texel gatherer is attached too).
    addresses: bool,
}

/// A handle prepared for a one-shot call: where no addresses are recorded and the memory
/// hands out the texels in place, the in-place gatherer alone (what the gather reads then),
/// else the whole [`PreparedTexture`].
// (boxing the whole one would allocate a call where addresses are recorded; the value lives
// in one slot a call, written once)
#[allow(clippy::large_enum_variant)]
enum Attached<'m> {
    InPlace(Gatherer<'m>),
    Whole(PreparedTexture<'m>),
}

impl<'m> OneShot<'m, '_> {
    /// `handle`'s texture from the kept ones, attached to the memory; None where any step
    /// fails (a descriptor unread, undecodable or refused by the executor, the kept state
    /// in use): the caller then prepares as a binding does, raising the same error.
    #[inline(always)]
    fn kept(self, exec: &Tld4Exec, handle: u32, lane: usize) -> Option<Attached<'m>> {
        let h = Handle(handle);
        let pool = self.pool;
        let key = Key {
            setup: exec.setup,
            descriptors: pool.descriptors,
            words: [
                pool.header_words(h.header_index()).ok()?,
                pool.sampler_words(h.sampler_index()).ok()?,
            ],
        };
        let mut kept = self.kept.try_borrow_mut().ok()?;
        let texture = kept.find_or(&key, || {
            let (op, precision) = exec.gather_setup();
            let [header, sampler] = &key.words;
            let t = DetachedTexture::new(&key.descriptors, header, sampler, op, precision).ok()?;
            exec.check_output_format(t.header().format, lane).ok()?;
            Some(t)
        })?;
        if !self.addresses {
            if let Some(g) = texture.attach_in_place(pool.memory) {
                return Some(Attached::InPlace(g));
            }
        }
        texture.attach(pool.memory).ok().map(Attached::Whole)
    }
}

impl<'m> Binding<'m> for OneShot<'m, '_> {
    type Prepared = Attached<'m>;
    type Error = MemoryExecError;

    #[inline]
    fn prepare(
        self,
        exec: &Tld4Exec,
        handle: u32,
        lane: usize,
    ) -> Result<Attached<'m>, MemoryExecError> {
        match self.kept(exec, handle, lane) {
            Some(p) => Ok(p),
            None => <MemoryPool<'m> as Binding<'m>>::prepare(self.pool, exec, handle, lane)
                .map(Attached::Whole),
        }
    }

    /// (`InPlace` only where the call records no addresses: `texels` is None then.)
    #[inline(always)]
    fn gather(
        self,
        p: &Attached<'m>,
        run: Run<'_>,
        out: &mut LaneResults,
        texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), MemoryExecError> {
        match p {
            Attached::InPlace(g) => gather_in_place(g, run, out),
            Attached::Whole(p) => {
                <MemoryPool<'m> as Binding<'m>>::gather(self.pool, p, run, out, texels)
            }
        }
    }
}
