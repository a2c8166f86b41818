//! What [`Tld4Exec::execute`] keeps between calls: the texture unit prepared for the last
//! handles it executed, per thread, keyed by the pool's generation
//! ([`TexturePool::generation`]: a new number on every change of the pool, and for every
//! pool), the handle and the executor's setup number (what of the instruction preparing
//! reads, fixed at construction: the gather op, the precision model, the output mode). A
//! loop of `execute` over one pool and handle then costs about what a bound loop
//! ([`Tld4Exec::bind`]) costs: the kept gatherer is attached to the texture again (a few
//! loads and a copy of its constants) instead of prepared, and the query and result arrays
//! are the thread's, not made a call. Per thread, so the executor stays `Sync` without a lock; the
//! kept constants hold no borrow ([`DetachedGatherer`]).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use tld4_textures::{DetachedGatherer, Gatherer, Handle, LaneQueries, LaneResults, TexturePool};

use super::bound::WarpParts;
use super::{ExecReport, Tld4Exec};
use crate::fault::WarpFault;
use crate::regfile::RegisterFile;

/// Preparations kept a thread: enough for a few executors or handles in turn.
const KEPT: usize = 4;

/// The next executor's setup number (`Tld4Exec::setup`), process-wide.
static NEXT_SETUP: AtomicU64 = AtomicU64::new(1);

/// A setup number no executor constructed before had: what of the instruction preparing
/// reads (the gather op, the precision model, the output mode) is fixed at construction, so
/// a number a construction stands for it, and compares in one instruction.
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
    #[inline(always)]
    fn of(exec: &Tld4Exec, pool: &TexturePool) -> Self {
        Key {
            generation: pool.generation(),
            setup: exec.setup,
        }
    }
}

#[derive(Clone, Copy)]
struct Kept {
    key: Key,
    handle: u32,
    gatherer: DetachedGatherer,
}

/// A thread's state: the kept preparations (the last kept just before `next`, replaced in
/// turn), and the query and result arrays every call reuses (not made and zeroed a call).
struct State {
    kept: [Option<Kept>; KEPT],
    next: usize,
    queries: LaneQueries,
    results: LaneResults,
}

thread_local! {
    static STATE: RefCell<State> = const {
        RefCell::new(State {
            kept: [None; KEPT],
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

/// [`execute`] with the thread's state, bound afresh where it is in use. Inlined into the
/// caller, as a bound executor's `execute` is: out of line, its call, frame and the
/// arguments' spills cost some 30 instructions a warp.
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

/// [`execute`] with the thread's state borrowed.
#[inline(always)]
fn with_state<R: RegisterFile + ?Sized>(
    state: &mut State,
    exec: &Tld4Exec,
    warp: &mut R,
    pool: &TexturePool,
) -> Result<ExecReport, WarpFault> {
    let State {
        kept,
        next,
        queries,
        results,
    } = state;
    let key = Key::of(exec, pool);
    let mut prepared = seed(kept, *next, key, pool);
    let seeded = prepared.as_ref().map(|(h, _)| *h);
    let report = WarpParts {
        exec,
        pool,
        prepared: &mut prepared,
        queries,
        results,
    }
    .run(warp, None);
    if let Some((handle, g)) = &prepared {
        if seeded != Some(*handle) {
            keep(kept, next, key, *handle, g, pool);
        }
    }
    report
}

/// The newest gatherer kept for `key`, attached to its texture in `pool` (the executor
/// prepares again if the warp uses another handle). No register is read here: a warp in
/// which no lane executes reads none (its uniform registers may not exist).
#[inline]
fn seed<'p>(
    kept: &[Option<Kept>; KEPT],
    next: usize,
    key: Key,
    pool: &'p TexturePool,
) -> Option<(u32, Gatherer<'p>)> {
    let found = (1..=KEPT)
        .map(|back| &kept[(next + KEPT - back) % KEPT])
        .find_map(|k| k.as_ref().filter(|k| k.key == key))?;
    let texture = pool.texture(Handle(found.handle).header_index()).ok()?;
    Some((found.handle, found.gatherer.attach(texture)?))
}

/// Keeps `gatherer`, prepared for `handle` of `pool` as it is now, in the next slot.
#[cold]
fn keep(
    kept: &mut [Option<Kept>; KEPT],
    next: &mut usize,
    key: Key,
    handle: u32,
    gatherer: &Gatherer<'_>,
    pool: &TexturePool,
) {
    let Ok(texture) = pool.texture(Handle(handle).header_index()) else {
        return;
    };
    let Some(gatherer) = DetachedGatherer::of(gatherer, texture) else {
        return;
    };
    kept[*next] = Some(Kept {
        key,
        handle,
        gatherer,
    });
    *next = (*next + 1) % KEPT;
}
