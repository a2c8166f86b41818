//! What [`Tld4Exec::execute`] keeps between calls: the texture unit prepared for the last
//! handle it executed, per thread, for each of the last few pairs of a pool state and an
//! executor, keyed by the pool's generation ([`TexturePool::generation`]: a new number on
//! every change of the pool, and for every pool) and the executor's setup number (what of
//! the instruction preparing reads, fixed at construction: the gather op, the precision
//! model, the output mode). A loop of `execute` over one pool and handle then costs what a
//! bound loop ([`Tld4Exec::bind`]) costs: the kept gatherer is the one a binding keeps, used
//! as it is (not prepared, not attached again), and the query and result arrays are the
//! thread's, not made a call. Per thread, so the executor stays `Sync` without a lock.
//!
//! The kept gatherer borrows the pool's textures past the call that prepared it, which the
//! borrow checker cannot see: it is stored with its lifetime erased and handed out again
//! only to a call whose pool has the generation it was prepared at (see [`for_pool`] for why
//! that pool is alive and unchanged). Attaching it to the texture again safely (looking the
//! texture up, its texel slice, checking its shape, copying the constants) cost some 150
//! instructions a warp (docs/benchmarks.md, "`execute` a warp against a binding kept").

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use tld4_textures::{Gatherer, LaneQueries, LaneResults, TexturePool};

use super::bound::WarpParts;
use super::{ExecReport, Tld4Exec};
use crate::fault::WarpFault;
use crate::regfile::RegisterFile;

/// Pool states and executors kept a thread: enough for a few executors or pools in turn.
const KEPT: usize = 4;

/// The next executor's setup number (`Tld4Exec::setup`), process-wide; 0 is never handed
/// out (an empty slot's key).
static NEXT_SETUP: AtomicU64 = AtomicU64::new(1);

/// A setup number no executor constructed before had: what of the instruction preparing
/// reads is fixed at construction, so a number a construction stands for it, and compares
/// in one instruction.
pub(super) fn fresh_setup() -> u64 {
    NEXT_SETUP.fetch_add(1, Ordering::Relaxed)
}

/// What a kept preparation depends on, besides the handle: the pool's state and the
/// executor's setup.
#[derive(Clone, Copy, PartialEq)]
struct Key {
    generation: u64,
    setup: u64,
}

impl Key {
    /// An empty slot's: no pool has generation 0 and no executor setup 0.
    const NONE: Key = Key {
        generation: 0,
        setup: 0,
    };

    #[inline(always)]
    fn of(exec: &Tld4Exec, pool: &TexturePool) -> Self {
        Key {
            generation: pool.generation(),
            setup: exec.setup,
        }
    }
}

/// The texture unit kept for one pool state and executor: a bound executor's `prepared`.
struct Kept {
    key: Key,
    /// Borrows the textures of the pool whose generation is `key.generation`; `'static`
    /// stands for "while a pool has that generation" (only [`for_pool`] hands it out).
    prepared: Option<(u32, Gatherer<'static>)>,
}

/// A thread's state: the kept preparations (`last` the one used last, `next` the one
/// replaced next), and the query and result arrays every call reuses (not made and zeroed
/// a call).
struct State {
    kept: [Kept; KEPT],
    last: usize,
    next: usize,
    queries: LaneQueries,
    results: LaneResults,
}

thread_local! {
    static STATE: RefCell<State> = const {
        RefCell::new(State {
            kept: [const { Kept { key: Key::NONE, prepared: None } }; KEPT],
            last: 0,
            next: 0,
            queries: LaneQueries::new(),
            results: LaneResults::new(),
        })
    };
}

/// [`Tld4Exec::execute`] with this thread's state: the texture unit last kept for the pool
/// as it is now, the arrays reused. Where the state is in use (a register file's callback
/// executing again on this thread) or gone (the thread ending), it binds afresh.
#[inline(always)]
pub(super) fn execute<R: RegisterFile + ?Sized>(
    exec: &Tld4Exec,
    warp: &mut R,
    pool: &TexturePool,
) -> Result<ExecReport, WarpFault> {
    // (a fault comes out boxed: the result is then two words, returned in registers, where
    // the fault's 88 bytes were copied out of each wrapper, some 35 instructions a warp)
    let done = STATE.try_with(
        #[inline(always)]
        |cell| on_cell(cell, exec, &mut *warp, pool),
    );
    match done {
        Ok(report) => report.map_err(|fault| *fault),
        Err(_) => exec.bind(pool).execute(warp),
    }
}

/// [`execute`] with the thread's state, bound afresh where it is in use.
#[inline(always)]
fn on_cell<R: RegisterFile + ?Sized>(
    cell: &RefCell<State>,
    exec: &Tld4Exec,
    warp: &mut R,
    pool: &TexturePool,
) -> Result<ExecReport, Box<WarpFault>> {
    match cell.try_borrow_mut() {
        Ok(mut state) => with_state(&mut state, exec, warp, pool).map_err(Box::new),
        Err(_) => exec.bind(pool).execute(warp).map_err(Box::new),
    }
}

/// [`execute`] with the thread's state borrowed: the warp executed as a bound executor
/// executes it, with the texture unit kept for this pool state and executor (emptied and
/// taken over where none is kept).
#[inline(always)]
fn with_state<R: RegisterFile + ?Sized>(
    state: &mut State,
    exec: &Tld4Exec,
    warp: &mut R,
    pool: &TexturePool,
) -> Result<ExecReport, WarpFault> {
    let State {
        kept,
        last,
        next,
        queries,
        results,
    } = state;
    let key = Key::of(exec, pool);
    if kept[*last].key != key {
        *last = match kept.iter().position(|k| k.key == key) {
            Some(slot) => slot,
            None => take_slot(kept, next, key),
        };
    }
    let prepared = for_pool(&mut kept[*last & (KEPT - 1)], pool);
    WarpParts {
        exec,
        pool,
        prepared,
        queries,
        results,
    }
    .run(warp, None)
}

/// The slot replaced next, emptied and keyed `key`.
#[cold]
fn take_slot(kept: &mut [Kept; KEPT], next: &mut usize, key: Key) -> usize {
    let slot = *next;
    *next = (slot + 1) % KEPT;
    kept[slot] = Kept {
        key,
        prepared: None,
    };
    slot
}

/// `kept`'s gatherer, borrowing `pool` (for the caller's borrow of both); `kept` must be
/// keyed with `pool`'s generation.
///
/// Sound because a gatherer is only ever put in `kept` by this call's executor, prepared
/// from `pool` (`Binding::prepare` for `&'p TexturePool`: its borrows are of `pool`'s
/// textures, which the pool owns on the heap), while `kept.key` says the generation `pool`
/// has: and a pool's generation changes on every change of its textures or samplers
/// (`set_texture` and `set_sampler`, its only `&mut` methods, draw a fresh one), a clone
/// draws its own and no two pool states ever share one (`TexturePool::generation`). So
/// while a pool has the kept generation, it is the very pool state the gatherer was
/// prepared from, unchanged, alive (it is borrowed for this call) and owning the same
/// texture storage (moving a pool does not move its heap); and a gatherer kept for a pool
/// dropped or changed since is never handed out again (its key matches no pool), only
/// overwritten.
#[inline(always)]
fn for_pool<'k, 'p>(
    kept: &'k mut Kept,
    pool: &'p TexturePool,
) -> &'k mut Option<(u32, Gatherer<'p>)> {
    // (never fails, `with_state` keyed the slot so; it keeps this function sound alone)
    assert!(kept.key.generation == pool.generation());
    let erased: *mut Option<(u32, Gatherer<'static>)> = &mut kept.prepared;
    // SAFETY: the same type but for the lifetime (the same layout), and the borrows it
    // holds and receives are of `pool` as it is now (see above); the result is a unique
    // borrow of `kept` for 'k, as `&mut kept.prepared` is.
    unsafe { &mut *erased.cast::<Option<(u32, Gatherer<'p>)>>() }
}
