//! `tld4 bench`'s sparse-memory rows: an owned workload's texture and sampler in GPU memory
//! in the forms a simulator holds it (C's `tld4_memory`): one flat range, many ranges
//! ([`RangesMemory`]: the image's parts among others far apart) and a read function
//! ([`CallbackMemory`], as C's read callback is asked: whole textures and sectors), each
//! bound once (`Tld4Exec::bind_memory`, kept across warps) and one-shot
//! (`Tld4Exec::execute_memory` a warp, a callback memory for one warp each call, as C makes one a
//! call), and the callback one-shot through one callback memory kept across calls (C's
//! `tld4_memory_cache`). The seven sides are timed by the thread's CPU time, each run in slices with the
//! sides in turn in each (the same machine load for each side), and each form's ratio to
//! the flat range's is taken run by run, and each one-shot side's to the same form bound once
//! (the one-shot call keeps its prepared texture per thread: within 10% is the target).

use std::cell::Cell;
use std::hint::black_box;
use std::io::Write;

use tld4_emu::WARP_SIZE;
use tld4_gpu_memory::{pool_image, CallbackMemory, LayoutChoice, MemoryPool, Range, RangesMemory};
use tld4_textures::Handle;

use super::{Spread, Workload};
use crate::CmdResult;

/// The rows' targets (README, Benchmarks): ranges within 10% of the flat range, a callback
/// at least half its rate.
const RANGES_TARGET: f64 = 0.9;
const CALLBACK_TARGET: f64 = 0.5;

/// Where the pool image lies (the memory rows' address).
const BASE: u64 = 0x1_0000_0000;
/// Ranges of filler bytes below the image and as many far above it (2^40 on), 1 MiB apart:
/// a simulator's other mappings.
const FILLERS: u64 = 200;
/// Slices of a run, the sides timed in turn in each.
const SLICES: usize = 20;

/// What follows the owned workload's name in a sparse-memory row.
pub(super) const SUFFIX: &str = "flat, ranges and callback memory";

/// The owned workloads (indices into `workloads`) with sparse-memory rows: RGBA8 2D and the
/// D32 cube array.
pub(super) const OWNED: [usize; 2] = [0, 1];

/// The printed name of a sparse-memory row.
pub(super) fn name(w: &Workload) -> String {
    format!("execute: {}, {SUFFIX}", w.name)
}

/// One side of the comparison: its printed label, and the flat side it is compared to.
struct Side {
    label: &'static str,
    /// Index of the flat side of its kind (bound or one-shot); None for a flat side.
    flat: Option<usize>,
    target: f64,
}

/// A one-shot call's target against the same memory bound once (README, Benchmarks: a
/// one-shot memory call costs what a bound one costs, within 10%).
const ONE_SHOT_TARGET: f64 = 0.9;

/// The bound side of the same memory form as one-shot side `k` (the first six sides are in
/// pairs, bound then one-shot; the cached callback's is the callback bound once); None for a
/// bound side.
fn bound_of(k: usize) -> Option<usize> {
    match k {
        CACHED => Some(FIRST_CALLBACK),
        _ => (k % 2 == 1).then(|| k - 1),
    }
}

const SIDES: [Side; 7] = [
    Side {
        label: "  flat memory, bound once",
        flat: None,
        target: 1.0,
    },
    Side {
        label: "  flat memory, one-shot",
        flat: None,
        target: 1.0,
    },
    Side {
        label: "  ranges memory, bound once",
        flat: Some(0),
        target: RANGES_TARGET,
    },
    Side {
        label: "  ranges memory, one-shot",
        flat: Some(1),
        target: RANGES_TARGET,
    },
    Side {
        label: "  callback memory, bound once",
        flat: Some(0),
        target: CALLBACK_TARGET,
    },
    Side {
        label: "  callback memory, one-shot",
        flat: Some(1),
        target: CALLBACK_TARGET,
    },
    Side {
        label: "  callback memory cached, one-shot",
        flat: Some(1),
        target: CALLBACK_TARGET,
    },
];

/// The first callback side (the callback's calls are counted from it on).
const FIRST_CALLBACK: usize = 4;
/// The cached callback's one-shot side.
const CACHED: usize = 6;

/// Seconds of the clock the rows are timed with: the thread's CPU time on Unix
/// (`CLOCK_THREAD_CPUTIME_ID`: the time this thread ran, not the time other processes held
/// the core: the sides' rates stay comparable on a loaded machine), else wall time.
#[cfg(unix)]
fn clock() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a live timespec for the call to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    debug_assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID is POSIX");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Wall time (see the Unix version).
#[cfg(not(unix))]
fn clock() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// Times the sparse-memory row of `w` (block-linear, 16 GOBs a block, as the memory rows);
/// prints each side's rate, each non-flat side's ratio to the flat side of its kind, and the
/// callback's read calls over one run's warps.
pub(super) fn row(out: &mut impl Write, w: &Workload, runs: usize, warps: usize) -> CmdResult {
    let handle = Handle(w.warp.ureg(4));
    let (texture, sampler) = w.pool.resolve(handle).map_err(|e| e.to_string())?;
    let layout = LayoutChoice::BlockLinear {
        gobs_per_block_height_log2: 4,
    };
    let image = pool_image(&[(texture, sampler, layout)], BASE).map_err(|e| e.to_string())?;
    let (hp, sp) = (image.header_pool, image.sampler_pool);
    let flat = image.memory.to_flat();
    let (base, bytes) = (flat.base, &flat.bytes);
    let filler = vec![0u8; 4096];
    let fill = |address| Range {
        address,
        bytes: &filler,
    };
    let ranges = RangesMemory::new(
        (0..FILLERS)
            .map(|k| fill(0x1000 + k * 0x10_0000))
            .chain(
                image
                    .memory
                    .regions()
                    .map(|(address, bytes)| Range { address, bytes }),
            )
            .chain((1..=FILLERS).map(|k| fill((1 << 40) + k * 0x10_0000)))
            .collect(),
    )
    .map_err(|e| e.to_string())?;
    let calls = Cell::new(0u64);
    let read = |addr: u64, dst: &mut [u8]| {
        calls.set(calls.get() + 1);
        let at = addr.wrapping_sub(base) as usize;
        match bytes.get(at..at.saturating_add(dst.len())) {
            Some(b) if addr >= base => {
                dst.copy_from_slice(b);
                true
            }
            _ => false,
        }
    };
    let callback = CallbackMemory::new(&read);
    // (C's `tld4_memory_cache`: one memory for every one-shot call)
    let kept = CallbackMemory::new(&read);
    let mut warp = w.warp.clone();
    warp.set_ureg(4, 0); // header 0, sampler 0 of the image
    let mut bound_flat = w.exec.bind_memory(MemoryPool::new(&flat, hp, sp));
    let mut bound_ranges = w.exec.bind_memory(MemoryPool::new(&ranges, hp, sp));
    let mut bound_callback = w.exec.bind_memory(MemoryPool::new(&callback, hp, sp));
    // (each side's warp its own: a side's results never feed another's coordinates)
    let mut ws: Vec<_> = (0..SIDES.len()).map(|_| warp.clone()).collect();
    let mut run = |side: usize, n: usize| {
        let warp = &mut ws[side];
        for _ in 0..n {
            let _ = black_box(match side {
                0 => bound_flat.execute(warp),
                1 => w
                    .exec
                    .execute_memory(warp, &MemoryPool::new(&flat, hp, sp), None),
                2 => bound_ranges.execute(warp),
                3 => w
                    .exec
                    .execute_memory(warp, &MemoryPool::new(&ranges, hp, sp), None),
                4 => bound_callback.execute(warp),
                5 => {
                    let m = CallbackMemory::for_one_warp(&read);
                    w.exec
                        .execute_memory(warp, &MemoryPool::new(&m, hp, sp), None)
                }
                _ => w
                    .exec
                    .execute_memory(warp, &MemoryPool::new(&kept, hp, sp), None),
            });
        }
    };
    // warm-up, and the callback's calls (bound: the binding's first warp included)
    let mut callback_calls = [0u64; SIDES.len() - FIRST_CALLBACK];
    for side in 0..SIDES.len() {
        calls.set(0);
        run(side, warps);
        if side >= FIRST_CALLBACK {
            callback_calls[side - FIRST_CALLBACK] = calls.get();
        }
    }
    // each run in slices, the sides in turn within each slice: a change of machine load
    // falls on every side alike
    let slice = warps.div_ceil(SLICES);
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); SIDES.len()];
    for _ in 0..runs {
        let mut secs = [0.0f64; SIDES.len()];
        for _ in 0..SLICES {
            for (side, s) in secs.iter_mut().enumerate() {
                let t = clock();
                run(side, slice);
                *s += clock() - t;
            }
        }
        for (r, s) in rates.iter_mut().zip(secs) {
            r.push((slice * SLICES * WARP_SIZE) as f64 / s);
        }
    }
    writeln!(
        out,
        "{} (block-linear; {} ranges; thread CPU time, the sides in turn)",
        name(w),
        ranges.ranges().len()
    )?;
    for (k, side) in SIDES.iter().enumerate() {
        let rate = Spread::of(rates[k].clone(), 1e-6).ok_or("no runs")?;
        write!(
            out,
            "{:<44} {:>10.2} M warps/s  {:>8.1} M lane gathers/s  (runs {:.1}-{:.1}",
            side.label,
            rate.median / WARP_SIZE as f64,
            rate.median,
            rate.min,
            rate.max
        )?;
        if let Some(f) = side.flat {
            let ratios: Vec<f64> = rates[k].iter().zip(&rates[f]).map(|(s, f)| s / f).collect();
            let ratio = Spread::of(ratios, 1.0).ok_or("no runs")?;
            write!(
                out,
                "; {:.2}x flat, runs {:.2}-{:.2}; target {}",
                ratio.median, ratio.min, ratio.max, side.target
            )?;
        }
        if let Some(b) = bound_of(k) {
            let ratios: Vec<f64> = rates[k].iter().zip(&rates[b]).map(|(s, b)| s / b).collect();
            let ratio = Spread::of(ratios, 1.0).ok_or("no runs")?;
            write!(
                out,
                "; {:.2}x bound, runs {:.2}-{:.2}; target {ONE_SHOT_TARGET}",
                ratio.median, ratio.min, ratio.max
            )?;
        }
        if k >= FIRST_CALLBACK {
            let n = callback_calls[k - FIRST_CALLBACK];
            write!(out, "; {n} calls in {warps} warps")?;
        }
        writeln!(out, ")")?;
    }
    out.flush()?;
    Ok(std::process::ExitCode::SUCCESS)
}
