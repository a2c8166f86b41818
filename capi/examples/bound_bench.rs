//! Warps per second through the C ABI against the same work from Rust: one TLD4
//! (`TLD4.R R10, R8, R20, UR4, 2D`, RGBA8 UNORM 64 x 64, clamp to edge, 32 lanes at scattered
//! coordinates) over 256 prepared warps in register-major flat arrays, cycled, on one
//! thread. Rows: Rust `BoundExec` (owned pool, and a block-linear flat memory image of the
//! same texture), and from C the one-shot `tld4_exec_run_flat*`, the bound
//! `tld4_bound_run_flat` and `tld4_bound_run_flat_batch` (all 256 warps per call). The same
//! image as many ranges (`tld4_ranges_memory`: the pools and the texels in separate ranges,
//! among others far apart) and behind a read callback, one-shot and bound, and one-shot
//! through a `tld4_memory_cache` kept across calls; then ratios timed in alternation (the
//! same machine load for both sides): the one-shot owned call to the bound one and the
//! one-shot flat memory call to the bound one (target 0.9), and ranges (target 0.9) and
//! callback (target 0.5, cached or not) to the flat range, as `tld4 bench`'s sparse-memory
//! rows; and the callback's calls a warp.
//!
//! `cargo run --release -p tld4-capi --example bound_bench [WARPS]` (default 200,000 warps a
//! row; median of 5 rounds). `SIZE=256` makes the texture 256 x 256 (256 KiB, as `tld4
//! bench`'s sparse rows) instead of 64 x 64. `COORDS=coherent` makes each warp an 8 x 4
//! block of pixels one texel apart at a random place (a screen-space pass) instead of 32
//! scattered lanes (`COORDS=scattered`, the default). Results are checked equal between the forms
//! before timing. `ONLY=owned` runs the owned one-shot and bound C calls alone, once each
//! (for callgrind); `ONLY=memory` the same for the flat memory image; `ONLY=flat`,
//! `ONLY=callback` and `ONLY=cached` run only the one-shot memory calls over the flat range,
//! the plain callback or the cache, `WARPS` warps once after the checks (for callgrind: the
//! difference of two runs' totals over the difference of their warps).

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::hint::black_box;
use std::ptr::null_mut;
use std::time::Instant;

use tld4_capi::*;
use tld4_emu::gpu_memory::{pool_image, LayoutChoice, MemoryPool};
use tld4_emu::{
    decoder, ExecConfig, Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool,
    Tld4Exec, WarpState,
};
use tld4_status::*;

const N: usize = 256;
const BASE: u64 = 0x4000_0000;
const INSN: &str = "TLD4.R R10, R8, R20, UR4, 2D ;";

/// A xorshift stream of coordinates in [0, 1): scattered (each lane's own), or with
/// `coherent` each warp an 8 x 4 block of pixels drawn one texel apart at a random place,
/// as a screen-space pass over a texture the size of its target reads it.
fn coords(size: u32, coherent: bool) -> Vec<[f32; 2]> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    if !coherent {
        return (0..N * 32).map(|_| [next(), next()]).collect();
    }
    let texel = 1.0 / size as f32;
    (0..N)
        .flat_map(|_| {
            let origin = [next(), next()];
            (0..32).map(move |l| {
                [0, 1].map(|a| (origin[a] + ([l % 8, l / 8][a] as f32 + 0.5) * texel).fract())
            })
        })
        .collect()
}

/// Median and range of the ratios a/b of 7 rounds of `total` warps each, a and b timed in
/// alternation.
fn ratio(total: usize, mut a: impl FnMut(usize), mut b: impl FnMut(usize)) -> [f64; 3] {
    a(total / 10); // warm-up
    b(total / 10);
    let mut r: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            a(total);
            let ta = t.elapsed().as_secs_f64();
            let t = Instant::now();
            b(total);
            t.elapsed().as_secs_f64() / ta
        })
        .collect();
    r.sort_by(f64::total_cmp);
    [r[3], r[0], r[6]]
}

/// A read callback over a flat image at `BASE`, counting its calls.
struct Image<'a> {
    bytes: &'a [u8],
    calls: Cell<u64>,
}

unsafe extern "C" fn read_image(user: *mut c_void, addr: u64, dst: *mut u8, len: usize) -> c_int {
    // SAFETY: `user` is the `Image` the memory was made with, alive for the run.
    let img = unsafe { &*(user as *const Image) };
    img.calls.set(img.calls.get() + 1);
    let Some(at) = addr.checked_sub(BASE).map(|a| a as usize) else {
        return 1;
    };
    match img.bytes.get(at..at.saturating_add(len)) {
        Some(b) => {
            // SAFETY: `dst` holds `len` bytes (the callback's contract).
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), dst, len) };
            0
        }
        None => 1,
    }
}

/// Median warps/s of `rounds` rounds of `total` warps.
fn time(total: usize, mut round: impl FnMut(usize)) -> f64 {
    let mut rates: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            round(total);
            total as f64 / t.elapsed().as_secs_f64()
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let total: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(200_000);
    let only = std::env::var("ONLY").ok();
    let one_memory = matches!(only.as_deref(), Some("flat" | "callback" | "cached"));
    // (with one memory call alone, the rows before it run each warp a few times only: the
    // checks need the Rust rows' results; the same count whatever `total` is)
    let early = if one_memory { N } else { total };
    let size: u32 = std::env::var("SIZE")
        .ok()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(64);
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: size,
        height: size,
        layers: 1,
    };
    let fields: Vec<u32> = (0..size * size * 4)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 24)
        .collect();
    let tex = Texture::from_fields(desc, &fields)?;
    let smp = Sampler::default();
    let mut pool = TexturePool::new();
    pool.set_texture(0, tex.clone())?;
    pool.set_sampler(0, smp)?;
    let layout = LayoutChoice::BlockLinear {
        gobs_per_block_height_log2: 4,
    };
    let image = pool_image(&[(&tex, &smp, layout)], BASE)?;
    // one flat range, as a simulator holds its memory image
    let flat_mem = image.memory.to_flat();
    let bytes = &flat_mem.bytes;
    let handle = Handle::new(0, 0)?.0;
    let coherent = match std::env::var("COORDS").ok().as_deref() {
        None | Some("scattered") => false,
        Some("coherent") => true,
        Some(other) => return Err(format!("COORDS={other}: scattered or coherent").into()),
    };
    let xy = coords(size, coherent);

    // Rust: WarpStates.
    let word = decoder::assemble(INSN)?;
    let exec = Tld4Exec::from_word(word, ExecConfig::default())?;
    let mut warps: Vec<WarpState> = (0..N)
        .map(|w| {
            let mut s = WarpState::new();
            s.set_ureg(4, handle);
            let u: [u32; 32] = std::array::from_fn(|l| xy[w * 32 + l][0].to_bits());
            let v: [u32; 32] = std::array::from_fn(|l| xy[w * 32 + l][1].to_bits());
            s.set_reg_lanes(20, u32::MAX, &u);
            s.set_reg_lanes(21, u32::MAX, &v);
            s
        })
        .collect();
    let mut bound = exec.bind(&pool);
    let rust_owned = time(early, |n| {
        for i in 0..n {
            black_box(bound.execute(&mut warps[i % N]).ok());
        }
    });
    let mem_pool = MemoryPool::new(&flat_mem, image.header_pool, image.sampler_pool);
    let mut bound_mem = exec.bind_memory(mem_pool);
    let rust_mem = time(early, |n| {
        for i in 0..n {
            black_box(bound_mem.execute(&mut warps[i % N]).ok());
        }
    });

    // C: register-major flat arrays, 32 registers.
    let mut e = tld4_error::new();
    let mut cexec = null_mut();
    let mut cpool = null_mut();
    let format = std::ffi::CString::new("rgba8_unorm")?;
    let cdesc = tld4_texture_desc {
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: format.as_ptr(),
        width: size,
        height: size,
        layers: 1,
    };
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    unsafe {
        assert_eq!(
            tld4_exec_from_word(tld4_word::of(word), null_mut(), &mut cexec, &mut e),
            TLD4_OK
        );
        assert_eq!(tld4_pool_new(&mut cpool, &mut e), TLD4_OK);
        assert_eq!(
            tld4_pool_set_texture(cpool, 0, &cdesc, fields.as_ptr(), fields.len(), &mut e),
            TLD4_OK
        );
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        assert_eq!(tld4_pool_set_sampler(cpool, 0, &s, &mut e), TLD4_OK);
    }
    let uregs = [0, 0, 0, 0, handle, 0, 0, 0u32];
    let mut regs: Vec<Vec<u32>> = (0..N)
        .map(|w| {
            let mut r = vec![0u32; 32 * 32];
            for l in 0..32 {
                r[20 * 32 + l] = xy[w * 32 + l][0].to_bits();
                r[21 * 32 + l] = xy[w * 32 + l][1].to_bits();
            }
            r
        })
        .collect();
    let mut preds = vec![[0u32; 7]; regs.len()];
    let mut flats: Vec<tld4_warp_flat> = regs
        .iter_mut()
        .zip(preds.iter_mut())
        .map(|(r, p)| tld4_warp_flat {
            regs: r.as_mut_ptr(),
            num_regs: 32,
            reg_stride: 32,
            lane_stride: 1,
            preds: p.as_mut_ptr(),
            uregs: uregs.as_ptr(),
            num_uregs: 8,
            active_mask: u32::MAX,
        })
        .collect();
    let cmem = tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
        base: flat_mem.base,
        bytes: bytes.as_ptr(),
        len: bytes.len(),
        user: null_mut(),
        read: None,
    };
    let (hp, sp) = (image.header_pool, image.sampler_pool);
    let (mut cb_owned, mut cb_mem) = (null_mut(), null_mut());
    unsafe {
        assert_eq!(tld4_exec_bind(cexec, cpool, &mut cb_owned, &mut e), TLD4_OK);
        assert_eq!(
            tld4_exec_bind_memory(cexec, &cmem, hp, sp, &mut cb_mem, &mut e),
            TLD4_OK
        );
    }
    // The Rust results the checks compare with: every warp executed once, whatever `total`
    // is (the timed rounds above run only the first `total` when it is under N).
    for w in warps.iter_mut() {
        bound.execute(w)?;
    }
    // Check: every form writes what Rust writes.
    for (w, f) in flats.iter_mut().enumerate() {
        unsafe {
            assert_eq!(
                tld4_bound_run_flat(cb_mem, f, null_mut(), null_mut(), &mut e),
                TLD4_OK
            )
        };
        for r in 8..12u8 {
            let lanes: Vec<u32> = (0..32).map(|l| regs_of(f, r, l)).collect();
            let expect: Vec<u32> = (0..32).map(|l| warps[w].reg(l, r)).collect();
            assert_eq!(lanes, expect, "warp {w} R{r}");
        }
    }
    // `ONLY=owned`: the owned one-shot and bound C calls alone, `total` warps each, once, for
    // callgrind (instructions a warp: the difference of two runs' inclusive counts of
    // `tld4_exec_run_flat` and `tld4_bound_run_flat`, over the difference of their warps).
    // `ONLY=memory`: the same for the flat memory image, one-shot
    // (`tld4_exec_run_flat_memory`) and bound (`tld4_bound_run_flat` of a memory binding).
    if only.as_deref() == Some("memory") {
        for i in 0..total {
            unsafe {
                tld4_exec_run_flat_memory(
                    cexec,
                    &cmem,
                    hp,
                    sp,
                    &flats[i % N],
                    null_mut(),
                    null_mut(),
                    null_mut(),
                )
            };
        }
        for i in 0..total {
            unsafe {
                tld4_bound_run_flat(cb_mem, &flats[i % N], null_mut(), null_mut(), null_mut())
            };
        }
        return Ok(());
    }
    if only.as_deref() == Some("owned") {
        for i in 0..total {
            unsafe { tld4_exec_run_flat(cexec, cpool, &flats[i % N], null_mut(), null_mut()) };
        }
        for i in 0..total {
            unsafe {
                tld4_bound_run_flat(cb_owned, &flats[i % N], null_mut(), null_mut(), null_mut())
            };
        }
        return Ok(());
    }
    let one_shot = time(early, |n| {
        for i in 0..n {
            unsafe { tld4_exec_run_flat(cexec, cpool, &flats[i % N], null_mut(), null_mut()) };
        }
    });
    let bound_c = time(early, |n| {
        for i in 0..n {
            unsafe {
                tld4_bound_run_flat(cb_owned, &flats[i % N], null_mut(), null_mut(), null_mut())
            };
        }
    });
    let batch_c = time(early, |n| {
        for _ in 0..n / N {
            unsafe {
                tld4_bound_run_flat_batch(
                    cb_owned,
                    flats.as_mut_ptr(),
                    N,
                    null_mut(),
                    null_mut(),
                    null_mut(),
                    null_mut(),
                )
            };
        }
    });
    let one_shot_mem = time(early, |n| {
        for i in 0..n {
            unsafe {
                tld4_exec_run_flat_memory(
                    cexec,
                    &cmem,
                    hp,
                    sp,
                    &flats[i % N],
                    null_mut(),
                    null_mut(),
                    null_mut(),
                )
            };
        }
    });
    let bound_mem_c = time(early, |n| {
        for i in 0..n {
            unsafe {
                tld4_bound_run_flat(cb_mem, &flats[i % N], null_mut(), null_mut(), null_mut())
            };
        }
    });
    let batch_mem_c = time(early, |n| {
        for _ in 0..n / N {
            unsafe {
                tld4_bound_run_flat_batch(
                    cb_mem,
                    flats.as_mut_ptr(),
                    N,
                    null_mut(),
                    null_mut(),
                    null_mut(),
                    null_mut(),
                )
            };
        }
    });
    // The same image as ranges: the pools, the texels, and others far apart.
    let filler = vec![0u8; 4096];
    let tex_at = 4096usize.min(bytes.len());
    let range = |address, b: &[u8]| tld4_memory_range {
        address,
        len: b.len(),
        bytes: b.as_ptr(),
    };
    let list: Vec<tld4_memory_range> = [range(0x1000, &filler)]
        .into_iter()
        .chain((1..200u64).map(|k| range(0x1000 + k * 0x10_0000, &filler)))
        .chain([
            range(BASE, &bytes[..tex_at]),
            range(BASE + tex_at as u64, &bytes[tex_at..]),
        ])
        .chain((1..200u64).map(|k| range((1 << 40) + k * 0x10_0000, &filler)))
        .collect();
    let mut cranges = null_mut();
    unsafe {
        assert_eq!(
            tld4_ranges_new(list.as_ptr(), list.len(), &mut cranges, &mut e),
            TLD4_OK,
            "{}",
            e.message()
        );
    }
    let rmem = tld4_ranges_memory(cranges);
    let cb_image = Image {
        bytes,
        calls: Cell::new(0),
    };
    let cbmem = tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32,
        base: 0,
        bytes: std::ptr::null(),
        len: 0,
        user: &cb_image as *const Image as *mut c_void,
        read: Some(read_image),
    };
    let mut cache = null_mut();
    unsafe {
        assert_eq!(
            tld4_memory_cache_new(&cbmem, &mut cache, &mut e),
            TLD4_OK,
            "{}",
            e.message()
        );
    }
    let cachemem = tld4_memory_cache_memory(cache);
    let (mut cb_ranges, mut cb_callback) = (null_mut(), null_mut());
    unsafe {
        assert_eq!(
            tld4_exec_bind_memory(cexec, &rmem, hp, sp, &mut cb_ranges, &mut e),
            TLD4_OK
        );
        assert_eq!(
            tld4_exec_bind_memory(cexec, &cbmem, hp, sp, &mut cb_callback, &mut e),
            TLD4_OK
        );
    }
    let one_shot_on = |m: &tld4_memory, n: usize| {
        for i in 0..n {
            unsafe {
                tld4_exec_run_flat_memory(
                    cexec,
                    m,
                    hp,
                    sp,
                    &flats[i % N],
                    null_mut(),
                    null_mut(),
                    null_mut(),
                )
            };
        }
    };
    let bound_on = |b: *mut tld4_bound, n: usize| {
        for i in 0..n {
            unsafe { tld4_bound_run_flat(b, &flats[i % N], null_mut(), null_mut(), null_mut()) };
        }
    };
    // Check: ranges, callback and cache write what the flat range writes; count the calls.
    for (f, want) in flats.iter().zip(regs_now(&flats)) {
        for m in [&rmem, &cbmem, &cachemem] {
            clear_results(f);
            unsafe {
                assert_eq!(
                    tld4_exec_run_flat_memory(cexec, m, hp, sp, f, null_mut(), null_mut(), &mut e),
                    TLD4_OK,
                    "{}",
                    e.message()
                )
            };
            assert_eq!(regs_now(std::slice::from_ref(f))[0], want);
        }
    }
    cb_image.calls.set(0);
    one_shot_on(&cbmem, N);
    let calls_one_shot = cb_image.calls.get() as f64 / N as f64;
    cb_image.calls.set(0);
    bound_on(cb_callback, N);
    let calls_bound = cb_image.calls.get() as f64 / N as f64;
    unsafe { assert_eq!(tld4_memory_cache_clear(cache, &mut e), TLD4_OK) };
    cb_image.calls.set(0);
    one_shot_on(&cachemem, N);
    let calls_cached = cb_image.calls.get() as f64 / N as f64;
    if one_memory {
        let m = match only.as_deref() {
            Some("flat") => &cmem,
            Some("callback") => &cbmem,
            _ => &cachemem,
        };
        one_shot_on(m, total);
        return Ok(());
    }
    let one_shot_ranges = time(total, |n| one_shot_on(&rmem, n));
    let bound_ranges = time(total, |n| bound_on(cb_ranges, n));
    let one_shot_cb = time(total / 4, |n| one_shot_on(&cbmem, n));
    let bound_cb = time(total, |n| bound_on(cb_callback, n));
    let one_shot_cached = time(total, |n| one_shot_on(&cachemem, n));
    let ratios = [
        (
            "owned: C one-shot / C bound",
            0.9,
            ratio(
                total,
                |n| {
                    for i in 0..n {
                        unsafe {
                            tld4_exec_run_flat(cexec, cpool, &flats[i % N], null_mut(), null_mut())
                        };
                    }
                },
                |n| bound_on(cb_owned, n),
            ),
        ),
        (
            "memory flat: C one-shot / C bound",
            0.9,
            ratio(total, |n| one_shot_on(&cmem, n), |n| bound_on(cb_mem, n)),
        ),
        (
            "memory one-shot: ranges / flat",
            0.9,
            ratio(total, |n| one_shot_on(&rmem, n), |n| one_shot_on(&cmem, n)),
        ),
        (
            "memory bound: ranges / flat",
            0.9,
            ratio(total, |n| bound_on(cb_ranges, n), |n| bound_on(cb_mem, n)),
        ),
        (
            "memory one-shot: callback / flat",
            0.5,
            ratio(
                total / 4,
                |n| one_shot_on(&cbmem, n),
                |n| one_shot_on(&cmem, n),
            ),
        ),
        (
            "memory one-shot: cached callback / flat",
            0.5,
            ratio(
                total,
                |n| one_shot_on(&cachemem, n),
                |n| one_shot_on(&cmem, n),
            ),
        ),
        (
            "memory bound: callback / flat",
            0.5,
            ratio(total, |n| bound_on(cb_callback, n), |n| bound_on(cb_mem, n)),
        ),
    ];
    let m = |x: f64| x / 1e6;
    println!(
        "M warps/s, median of 5 rounds of {total} warps (RGBA8 {size}x{size}, TLD4.R 2D, 32 lanes):"
    );
    println!(
        "  owned : Rust BoundExec {:.3} | C one-shot {:.3} | C bound {:.3} | C batch {:.3}",
        m(rust_owned),
        m(one_shot),
        m(bound_c),
        m(batch_c)
    );
    println!(
        "  memory: Rust BoundExec {:.3} | C one-shot {:.3} | C bound {:.3} | C batch {:.3}",
        m(rust_mem),
        m(one_shot_mem),
        m(bound_mem_c),
        m(batch_mem_c)
    );
    println!(
        "  ranges: {} ranges        | C one-shot {:.3} | C bound {:.3}",
        list.len(),
        m(one_shot_ranges),
        m(bound_ranges)
    );
    println!(
        "  callback:                 | C one-shot {:.3} | C bound {:.3}  ({calls_one_shot:.1} calls a warp one-shot, {calls_bound:.2} bound)",
        m(one_shot_cb),
        m(bound_cb)
    );
    println!(
        "  cached callback:          | C one-shot {:.3}            ({calls_cached:.2} calls a warp one-shot)",
        m(one_shot_cached)
    );
    println!("rate ratios, 7 rounds in alternation (median, range; target: at least):");
    for (name, target, [med, lo, hi]) in ratios {
        let verdict = if med >= target { "met" } else { "missed" };
        println!("  {name:<40} {med:.3} ({lo:.3}-{hi:.3})  target {target}: {verdict}");
    }
    unsafe {
        tld4_bound_free(cb_ranges);
        tld4_bound_free(cb_callback);
        tld4_memory_cache_free(cache);
        tld4_ranges_free(cranges);
        tld4_bound_free(cb_owned);
        tld4_bound_free(cb_mem);
        tld4_exec_free(cexec);
        tld4_pool_free(cpool);
    }
    Ok(())
}

/// Zeroes R8..R11 of every lane.
fn clear_results(f: &tld4_warp_flat) {
    for k in 8 * 32..12 * 32 {
        // SAFETY: the arrays are alive and 32 x 32.
        unsafe { *f.regs.add(k) = 0 };
    }
}

/// R8..R11 of every lane of each warp, as they are now.
fn regs_now(flats: &[tld4_warp_flat]) -> Vec<Vec<u32>> {
    flats
        .iter()
        .map(|f| {
            (8..12u8)
                .flat_map(|r| (0..32).map(move |l| regs_of(f, r, l)))
                .collect()
        })
        .collect()
}

/// Register `r` of lane `l` of a register-major flat warp.
fn regs_of(f: &tld4_warp_flat, r: u8, l: usize) -> u32 {
    // SAFETY: the arrays are alive and 32 x 32.
    unsafe { *f.regs.add(r as usize * 32 + l) }
}
