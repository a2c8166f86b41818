//! What [`Tld4Exec::execute_memory`] keeps between calls: per thread, the textures last
//! prepared apart from any memory ([`DetachedTexture`]: the decoded header and sampler and
//! the texture unit's constants), for each of the last few descriptor contents, keyed by
//! what preparing reads: the 64 bytes of the handle's header and sampler as this call reads
//! them from its memory, the GPU class reading them, and the executor's setup number (the
//! gather op, the precision model, the output mode: `last::fresh_setup`). Each call still
//! reads both descriptors, as the texture unit does each time it executes, and compares
//! them with what was kept: a descriptor changed at the same address, another memory, class
//! or executor, is prepared afresh. The texels are never kept: each call reads them from
//! its own memory. Where no texel addresses are recorded and the memory hands out their
//! bytes, the kept in-place gatherer gathers from the call's view as it is
//! ([`DetachedGatherer::gather_lane_range`]: nothing made or copied a call); else the call
//! attaches its memory to the kept texture ([`DetachedTexture::attach`]). A loop of
//! one-shot calls over one texture then costs what a bound loop ([`Tld4Exec::bind_memory`])
//! costs plus the two descriptor reads, the comparison and the view (docs/benchmarks.md,
//! "One-shot memory calls").
//!
//! Per thread (the executor stays `Sync` without a lock), with no `unsafe`: what is kept
//! borrows nothing. Where the thread's state is in use (a memory's read callback executing
//! again on this thread) or gone (the thread ending), the call prepares as a binding does.

use std::cell::RefCell;
use std::rc::Rc;

use tld4_gpu_memory::{ClassDescriptors, DetachedTexture, Memory, MemoryPool, PreparedTexture};
use tld4_textures::{DetachedGatherer, Handle, LaneQueries, LaneResults, LaneTexels};

use super::binding::{Binding, Run};
use super::bound::WarpParts;
use super::{texture_fault, ExecReport, Tld4Exec};
use crate::fault::WarpFault;
use crate::memory_exec::{classify, MemoryExecError};
use crate::regfile::RegisterFile;
use crate::warp::WARP_SIZE;

/// Textures kept a thread: enough for a few textures or executors in turn.
const KEPT: usize = 4;

/// What a kept texture was prepared from.
#[derive(Clone, Copy)]
struct Key {
    /// The executor's setup number.
    setup: u64,
    descriptors: ClassDescriptors,
    /// The header's bytes, then the sampler's.
    bytes: [[u8; 32]; 2],
}

/// A call's [`Key`], its descriptors' bytes where the call found them (in place in its
/// memory where it hands them out: compared there, not copied).
#[derive(Clone, Copy)]
struct KeyOf<'b> {
    setup: u64,
    descriptors: ClassDescriptors,
    bytes: [&'b [u8; 32]; 2],
}

impl KeyOf<'_> {
    /// Whether `key` is this one: field by field, each descriptor's 32 bytes on their own
    /// (compared inline; the 64 at once are a call to `bcmp`).
    #[inline(always)]
    fn is(&self, key: &Key) -> bool {
        *self.bytes[0] == key.bytes[0]
            && *self.bytes[1] == key.bytes[1]
            && self.setup == key.setup
            && self.descriptors == key.descriptors
    }

    /// The key kept.
    fn key(&self) -> Key {
        Key {
            setup: self.setup,
            descriptors: self.descriptors,
            bytes: [*self.bytes[0], *self.bytes[1]],
        }
    }

    /// A descriptor's eight little-endian words.
    fn words(&self, k: usize) -> [u32; 8] {
        let b = self.bytes[k];
        std::array::from_fn(|i| {
            u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
        })
    }
}

/// A kept texture and what it was prepared from.
struct Slot {
    key: Key,
    /// Shared with the calls reading it by sectors (`Attached::BySectors`).
    texture: Rc<DetachedTexture>,
    /// The texture's in-place gatherer, shared with the calls gathering with it (each
    /// holds it for its warp: a count, not a copy of the gatherer).
    in_place: Option<Rc<DetachedGatherer>>,
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
        key: &KeyOf<'_>,
        prepare: impl FnOnce() -> Option<DetachedTexture>,
    ) -> Option<&Slot> {
        let same = |s: &Option<Slot>| matches!(s, Some(s) if key.is(&s.key));
        if !same(&self.slots[self.last % KEPT]) {
            self.last = match self.slots.iter().position(same) {
                Some(k) => k,
                None => self.keep(key.key(), prepare()?),
            };
        }
        self.slots[self.last % KEPT].as_ref()
    }

    /// Keeps `texture` in the slot replaced next; returns the slot.
    #[cold]
    fn keep(&mut self, key: Key, texture: DetachedTexture) -> usize {
        let k = self.next % KEPT;
        self.next = (k + 1) % KEPT;
        let in_place = texture.in_place().cloned().map(Rc::new);
        self.slots[k] = Some(Slot {
            key,
            texture: Rc::new(texture),
            in_place,
        });
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
        let kept = Kept::of(pool, &state.kept);
        // (two bindings: where addresses are recorded, the whole prepared texture; else
        // the in-place gatherer, which is what the gather reads)
        Some(match texels.take() {
            Some(t) => WarpParts {
                exec,
                pool: Whole(kept),
                prepared: &mut None,
                queries,
                results,
            }
            .run(&mut *warp, Some(t)),
            None => WarpParts {
                exec,
                pool: InPlace(kept),
                prepared: &mut None,
                queries,
                results,
            }
            .run(&mut *warp, None),
        })
    });
    match done {
        Ok(Some(Ok(report))) => Ok(report),
        Ok(Some(Err(Boxed(e)))) => Err(*e),
        _ => bind_afresh(exec, warp, pool, texels),
    }
}

/// [`Tld4Exec::execute_memory`] where the thread's state is in use or gone: a binding made
/// for the call. (Out of line: the call keeps no frame for a binding's arrays.)
#[cold]
#[inline(never)]
fn bind_afresh<R: RegisterFile + ?Sized>(
    exec: &Tld4Exec,
    warp: &mut R,
    pool: &MemoryPool<'_>,
    texels: Option<&mut [LaneTexels; WARP_SIZE]>,
) -> Result<ExecReport, MemoryExecError> {
    exec.bind_memory(*pool).execute_with_texels(warp, texels)
}

/// A one-shot call's error while it passes out of the thread's state: boxed, so that a
/// report passes in registers and is not copied, field by field, through each wrapper
/// (callgrind: some 40 instructions a warp; docs/benchmarks.md, "One-shot memory calls").
struct Boxed(Box<MemoryExecError>);

impl From<MemoryExecError> for Boxed {
    #[cold]
    fn from(e: MemoryExecError) -> Self {
        Boxed(Box::new(e))
    }
}

impl From<WarpFault> for Boxed {
    #[cold]
    fn from(f: WarpFault) -> Self {
        MemoryExecError::from(f).into()
    }
}

/// A memory pool executed one-shot with the thread's kept textures.
#[derive(Clone, Copy)]
struct KeptFor<'m, 'k> {
    /// The call's pool, by reference: a copy was moved into the warp's parts in 16-byte
    /// loads of the caller's 8- and 2-byte stores, which the CPU cannot forward (stream_bench
    /// one-shot about 4% faster in wall time by reference, for 8 more instructions a warp).
    pool: &'k MemoryPool<'m>,
    kept: &'k RefCell<Kept>,
}

impl Kept {
    /// `pool` with the kept textures.
    fn of<'m, 'k>(pool: &'k MemoryPool<'m>, kept: &'k RefCell<Kept>) -> KeptFor<'m, 'k> {
        KeptFor { pool, kept }
    }
}

impl<'m> KeptFor<'m, '_> {
    /// `attach` applied to `handle`'s kept texture (prepared and kept where none is kept
    /// for its descriptors' contents); None where any step fails (a descriptor unread,
    /// undecodable or refused by the executor, the kept state in use, `attach` failing):
    /// the caller then prepares as a binding does, raising the same error.
    #[inline(always)]
    fn with<T>(
        self,
        exec: &Tld4Exec,
        handle: u32,
        lane: usize,
        attach: impl FnOnce(&Slot, &'m dyn tld4_gpu_memory::Memory) -> Option<T>,
    ) -> Option<T> {
        let h = Handle(handle);
        let pool = self.pool;
        // (both descriptors read from this call's memory: in place where it hands them out,
        // else copied by its reads)
        let read: [[u8; 32]; 2];
        let bytes = match pool.descriptor_views(h) {
            Some(views) => views,
            None => {
                read = [
                    le_bytes(pool.header_words(h.header_index()).ok()?),
                    le_bytes(pool.sampler_words(h.sampler_index()).ok()?),
                ];
                [&read[0], &read[1]]
            }
        };
        let key = KeyOf {
            setup: exec.setup,
            descriptors: pool.descriptors,
            bytes,
        };
        let mut kept = self.kept.try_borrow_mut().ok()?;
        let slot = kept.find_or(&key, || {
            let (op, precision) = exec.gather_setup();
            let (header, sampler) = (key.words(0), key.words(1));
            let t =
                DetachedTexture::new(&key.descriptors, &header, &sampler, op, precision).ok()?;
            exec.check_output_format(t.header().format, lane).ok()?;
            Some(t)
        })?;
        attach(slot, pool.memory)
    }
}

/// A descriptor's words as the 32 little-endian bytes they were read from.
fn le_bytes(words: [u32; 8]) -> [u8; 32] {
    std::array::from_fn(|i| words[i / 4].to_le_bytes()[i % 4])
}

/// One-shot calls that record no texel addresses: the kept in-place gatherer (shared, not
/// copied) and the memory's view of the texture's bytes, which it gathers from as it is,
/// where the memory hands them out; else, where the texture can be read in place, the kept
/// texture reading the sectors the warp's texels lie in
/// ([`DetachedTexture::gather_by_sectors`]: a read callback made for one warp over a large
/// texture); else the whole prepared texture, boxed (the warp's slot stays small: moving a
/// value the size of a prepared texture costs more than the rare allocation).
#[derive(Clone, Copy)]
struct InPlace<'m, 'k>(KeptFor<'m, 'k>);

/// A handle prepared for a one-shot call recording no addresses.
enum Attached<'m> {
    InPlace {
        gatherer: Rc<DetachedGatherer>,
        bytes: &'m [u8],
    },
    BySectors {
        texture: Rc<DetachedTexture>,
        memory: &'m dyn Memory,
    },
    Whole(Box<PreparedTexture<'m>>),
}

impl<'m> Binding<'m> for InPlace<'m, '_> {
    type Prepared = Attached<'m>;
    type Error = Boxed;

    #[inline]
    fn prepare(self, exec: &Tld4Exec, handle: u32, lane: usize) -> Result<Attached<'m>, Boxed> {
        let kept = self.0.with(exec, handle, lane, |slot, memory| {
            let t = &slot.texture;
            Some(match (&slot.in_place, t.in_place_view(memory)) {
                (Some(g), Some(bytes)) => Attached::InPlace {
                    gatherer: Rc::clone(g),
                    bytes,
                },
                _ => not_in_place(t, memory)?,
            })
        });
        match kept {
            Some(p) => Ok(p),
            None => <MemoryPool<'m> as Binding<'m>>::prepare(*self.0.pool, exec, handle, lane)
                .map(|p| Attached::Whole(Box::new(p)))
                .map_err(Boxed::from),
        }
    }

    /// (No addresses are recorded: `texels` is None.)
    #[inline(always)]
    fn gather(
        self,
        p: &Attached<'m>,
        run: Run<'_>,
        out: &mut LaneResults,
        texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), Boxed> {
        match p {
            Attached::InPlace { gatherer, bytes } => in_place(gatherer, bytes, run, out),
            _ => self.not_in_place(p, run, out, texels),
        }
    }
}

/// `run` gathered by the kept in-place gatherer from the call's view of the texture.
#[inline(always)]
fn in_place(
    gatherer: &DetachedGatherer,
    bytes: &[u8],
    run: Run<'_>,
    out: &mut LaneResults,
) -> Result<(), Boxed> {
    let first = run.lanes[run.range.start] as usize;
    gatherer
        .gather_lane_range(bytes, run.level, run.queries, run.range, out)
        .map_err(|e| Boxed::from(texture_fault(e, run.handle, first)))
}

/// A kept texture attached to a memory that hands out no view of it (or none its in-place
/// gatherer can read): read by its sectors where it can be read in place, else the whole
/// prepared texture. (Out of line, as its gather: the in-place path's code stays small.)
#[cold]
#[inline(never)]
fn not_in_place<'m>(t: &Rc<DetachedTexture>, memory: &'m dyn Memory) -> Option<Attached<'m>> {
    Some(if t.reads_by_sectors() {
        Attached::BySectors {
            texture: Rc::clone(t),
            memory,
        }
    } else {
        Attached::Whole(Box::new(t.attach(memory).ok()?))
    })
}

impl<'m> InPlace<'m, '_> {
    /// [`Binding::gather`] of a texture read by its sectors or prepared whole.
    #[cold]
    #[inline(never)]
    fn not_in_place(
        self,
        p: &Attached<'m>,
        run: Run<'_>,
        out: &mut LaneResults,
        texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), Boxed> {
        match p {
            Attached::BySectors { texture, memory } => {
                let first = run.lanes[run.range.start] as usize;
                let range = run.range.clone();
                match texture.gather_by_sectors(*memory, run.level, run.queries, range, out) {
                    Some(r) => r.map_err(|e| Boxed::from(texture_fault(e, run.handle, first))),
                    None => self.texel_by_texel(texture, run, out),
                }
            }
            Attached::Whole(p) => {
                <MemoryPool<'m> as Binding<'m>>::gather(*self.0.pool, p, run, out, texels)
                    .map_err(Boxed::from)
            }
            // (not taken: the caller gathers in place)
            Attached::InPlace { gatherer, bytes } => in_place(gatherer, bytes, run, out),
        }
    }

    /// `run` gathered texel by texel from the call's memory (where reading by sectors could
    /// not be done: its errors name the lane and address that failed).
    #[cold]
    #[inline(never)]
    fn texel_by_texel(
        self,
        texture: &DetachedTexture,
        run: Run<'_>,
        out: &mut LaneResults,
    ) -> Result<(), Boxed> {
        let pool = *self.0.pool;
        let first = run.lanes[run.range.start] as usize;
        let p = texture
            .attach(pool.memory)
            .map_err(|e| classify(e, run.handle, first, &pool))?;
        <MemoryPool<'m> as Binding<'m>>::gather(pool, &p, run, out, None).map_err(Boxed::from)
    }
}

/// One-shot calls that record texel addresses: the whole prepared texture (its
/// texel-by-texel gatherer names the addresses).
#[derive(Clone, Copy)]
struct Whole<'m, 'k>(KeptFor<'m, 'k>);

impl<'m> Binding<'m> for Whole<'m, '_> {
    type Prepared = PreparedTexture<'m>;
    type Error = Boxed;

    #[inline]
    fn prepare(
        self,
        exec: &Tld4Exec,
        handle: u32,
        lane: usize,
    ) -> Result<PreparedTexture<'m>, Boxed> {
        match self.0.with(exec, handle, lane, |slot, memory| {
            slot.texture.attach(memory).ok()
        }) {
            Some(p) => Ok(p),
            None => <MemoryPool<'m> as Binding<'m>>::prepare(*self.0.pool, exec, handle, lane)
                .map_err(Boxed::from),
        }
    }

    #[inline(always)]
    fn gather(
        self,
        p: &PreparedTexture<'m>,
        run: Run<'_>,
        out: &mut LaneResults,
        texels: Option<&mut [LaneTexels]>,
    ) -> Result<(), Boxed> {
        <MemoryPool<'m> as Binding<'m>>::gather(*self.0.pool, p, run, out, texels)
            .map_err(Boxed::from)
    }
}
