//! GPU memory made of many ranges (`tld4_ranges_new`, `tld4_ranges_memory`): a memory image
//! split into ranges at addresses far apart executes as the flat image does, bound or one
//! shot; bad lists of ranges are refused naming the range. A callback memory is asked for a
//! texture's bytes whole and for whole aligned 32-byte sectors, each once a call or a
//! binding, not for each texel.

use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use crate::common::{exec_of, flat_memory, image_entry, owned_pool, pool_image, Texture};
use crate::memory_exec::{fixture, Warp, BASE, BLANK};
use tld4_capi::*;
use tld4_status::*;

/// `image` (mapped at `BASE`) as ranges: its first 4 KiB (the pools), the rest (the
/// texels), with unrelated ranges below, between (at 2^40) and above (the last byte of the
/// address space).
fn split(image: &[u8], filler: &[u8]) -> Vec<tld4_memory_range> {
    let r = |address, bytes: &[u8]| tld4_memory_range {
        address,
        len: bytes.len(),
        bytes: bytes.as_ptr(),
    };
    vec![
        r(0x1000, filler),
        r(BASE, &image[..4096]),
        r(BASE + 4096, &image[4096..]),
        r(1 << 40, filler),
        r(u64::MAX - filler.len() as u64 + 1, filler),
    ]
}

fn ranges_of(list: &[tld4_memory_range]) -> Result<*mut tld4_ranges, String> {
    let (mut out, mut e) = (null_mut(), tld4_error::new());
    let st = unsafe { tld4_ranges_new(list.as_ptr(), list.len(), &mut out, &mut e) };
    match st {
        TLD4_OK => Ok(out),
        _ => Err(e.message().to_string()),
    }
}

#[test]
fn ranges_execute_as_the_flat_image_one_shot_and_bound() {
    let (pool, image, hp, sp) = fixture();
    let _ = pool;
    let exec = exec_of(crate::memory_exec::INSN);
    let filler = [0xa5u8; 64];
    let ranges = ranges_of(&split(&image, &filler)).unwrap();
    let mem = tld4_ranges_memory(ranges);
    let flat = flat_memory(&image, BASE);
    let mut e = tld4_error::new();
    let want = one_shot(exec, &flat, hp, sp, &mut e);
    assert_eq!(one_shot(exec, &mem, hp, sp, &mut e), want);
    bound_warps(exec, &mem, (hp, sp), &want.0, |_| {});
    // a texture reaching past its range is not read from the next one
    let list = split(&image, &filler);
    let cut = [
        list[1],
        tld4_memory_range {
            len: 100,
            ..list[2]
        },
    ];
    let short = ranges_of(&cut).unwrap();
    let m = tld4_ranges_memory(short);
    let mut w = Warp::new(0);
    let f = w.flat();
    let st =
        unsafe { tld4_exec_run_flat_memory(exec, &m, hp, sp, &f, null_mut(), null_mut(), &mut e) };
    assert_ne!(st, TLD4_OK);
    unsafe {
        tld4_ranges_free(ranges);
        tld4_ranges_free(short);
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn bad_ranges_are_refused_naming_the_range() {
    let a = [0u8; 64];
    let r = |address, len| tld4_memory_range {
        address,
        len,
        bytes: a.as_ptr(),
    };
    let err = ranges_of(&[r(0x100, 64), r(0x200, 64), r(0x220, 8)]).unwrap_err();
    assert!(err.contains("range 2") && err.contains("range 1"), "{err}");
    assert!(err.contains("must not overlap"), "{err}");
    let err = ranges_of(&[r(0x100, 8), r(u64::MAX - 3, 8)]).unwrap_err();
    assert!(err.contains("range 1") && err.contains("2^64"), "{err}");
    let null = tld4_memory_range {
        address: 0x300,
        len: 4,
        bytes: std::ptr::null(),
    };
    let err = ranges_of(&[r(0x100, 8), null]).unwrap_err();
    assert!(err.contains("ranges[1]") && err.contains("NULL"), "{err}");
    // no ranges at all: a memory where every read fails
    let empty = ranges_of(&[]).unwrap();
    let m = tld4_ranges_memory(empty);
    assert_eq!(m.kind, tld4_memory_kind::TLD4_MEMORY_RANGES as u32);
    unsafe { tld4_ranges_free(empty) };
    // a ranges memory without its ranges
    let (pool, image, hp, sp) = fixture();
    let _ = image;
    let exec = exec_of(crate::memory_exec::INSN);
    let mut w = Warp::new(0);
    let f = w.flat();
    let mut e = tld4_error::new();
    let m = tld4_ranges_memory(std::ptr::null());
    let st =
        unsafe { tld4_exec_run_flat_memory(exec, &m, hp, sp, &f, null_mut(), null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER, "{}", e.message());
    assert!(e.message().contains("memory.user"), "{}", e.message());
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

/// A callback memory over an image that records every call (address, length).
struct Counted<'a> {
    bytes: &'a [u8],
    calls: RefCell<Vec<(u64, usize)>>,
}

unsafe extern "C" fn counted_read(user: *mut c_void, addr: u64, dst: *mut u8, len: usize) -> c_int {
    let c = unsafe { &*(user as *const Counted) };
    c.calls.borrow_mut().push((addr, len));
    let Some(at) = addr.checked_sub(BASE).map(|a| a as usize) else {
        return 1;
    };
    match c.bytes.get(at..at + len) {
        Some(b) => {
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), dst, len) };
            0
        }
        None => 1,
    }
}

impl Counted<'_> {
    /// The `tld4_memory` reading through `counted_read` with this.
    fn memory(&self) -> tld4_memory {
        tld4_memory {
            kind: tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32,
            base: 0,
            bytes: std::ptr::null(),
            len: 0,
            user: self as *const Counted as *mut c_void,
            read: Some(counted_read),
        }
    }
}

/// One-shot `exec` of a fresh `Warp` over `m`'s pools at `hp` and `sp`: its registers and
/// report.
fn one_shot(
    exec: *mut tld4_exec,
    m: &tld4_memory,
    hp: u64,
    sp: u64,
    e: &mut tld4_error,
) -> (Vec<u32>, tld4_exec_report) {
    let mut w = Warp::new(0);
    let f = w.flat();
    let mut r = tld4_exec_report::default();
    let st = unsafe { tld4_exec_run_flat_memory(exec, m, hp, sp, &f, null_mut(), &mut r, e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    (w.regs, r)
}

/// Three warps through `m` bound once, each checked to write `want`, `after` called after
/// each with the warp's number.
fn bound_warps(
    exec: *mut tld4_exec,
    m: &tld4_memory,
    (hp, sp): (u64, u64),
    want: &[u32],
    after: impl Fn(usize),
) {
    let mut e = tld4_error::new();
    let mut bound = null_mut();
    let st = unsafe { tld4_exec_bind_memory(exec, m, hp, sp, &mut bound, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    for k in 0..3 {
        let mut w = Warp::new(0);
        let f = w.flat();
        let st = unsafe { tld4_bound_run_flat(bound, &f, null_mut(), null_mut(), &mut e) };
        assert_eq!(st, TLD4_OK, "{}", e.message());
        assert_eq!(w.regs, want);
        after(k);
    }
    unsafe { tld4_bound_free(bound) };
}

#[test]
fn a_callback_memory_is_asked_for_whole_textures_and_sectors_once() {
    let (pool, image, hp, sp) = fixture();
    let exec = exec_of(crate::memory_exec::INSN);
    let counted = Counted {
        bytes: &image,
        calls: RefCell::new(Vec::new()),
    };
    let mem = counted.memory();
    let flat = flat_memory(&image, BASE);
    let mut e = tld4_error::new();
    let want = one_shot(exec, &flat, hp, sp, &mut e);
    assert_eq!(one_shot(exec, &mem, hp, sp, &mut e), want);
    let calls = counted.calls.take();
    // the two descriptors as whole aligned sectors, and the texture's bytes whole (8 x 4
    // RGBA8 in 64-byte pitch rows: 256 bytes at the first 4 KiB boundary after the pools)
    let texture = (BASE + 4096, 256);
    assert!(calls.contains(&texture), "{calls:?}");
    assert!(
        calls
            .iter()
            .all(|&(a, n)| (a % 32 == 0 && n == 32) || (a, n) == texture),
        "{calls:?}"
    );
    assert!(calls.len() <= 3, "{calls:?}");
    // texels read: 4 a lane of 27 executed lanes, one call each before
    assert!(want.1.executed.count_ones() == 27);
    // bound: the first warp reads the descriptors and the texture, the next none
    bound_warps(exec, &mem, (hp, sp), &want.0, |k| {
        let calls = counted.calls.take();
        if k > 0 {
            assert_eq!(calls.len(), 0, "warp {k}");
        }
    });
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

/// A one-shot call reads a texture larger than 128 KiB (`ONE_WARP_MAX_VIEW`) by the sectors
/// its lanes' texels lie in (one call each 2 KiB block of the texture they lie in, from the
/// first such sector to the last), each asked once, not whole every call; a binding, read
/// over many warps, still asks for it whole, once.
#[test]
fn a_one_shot_call_reads_a_texture_over_128_kib_by_its_sectors() {
    let (width, height) = (256u32, 256u32);
    let tex = Texture::rgba8(width, height, |x, y| [x & 255, y & 255, (x ^ y) & 255, 255]);
    let pool = owned_pool(&tex, 3, 1, [2, 2]);
    let entry = image_entry(3, 1, tld4_layout::TLD4_LAYOUT_PITCH, 64);
    let img = pool_image(pool, entry, BASE);
    let (hp, sp) = (img.header_pool, img.sampler_pool);
    let texture_bytes = (width * height * 4) as usize;
    assert!(texture_bytes as u64 > tld4_emu::gpu_memory::ONE_WARP_MAX_VIEW);
    let exec = exec_of(crate::memory_exec::INSN);
    let counted = Counted {
        bytes: &img.bytes,
        calls: RefCell::new(Vec::new()),
    };
    let mem = counted.memory();
    let flat = flat_memory(&img.bytes, BASE);
    let mut e = tld4_error::new();
    let want = one_shot(exec, &flat, hp, sp, &mut e);
    assert_eq!(want.1.executed.count_ones(), 27);
    // the sectors the lanes' texels lie in, recorded over the flat range (the texels from
    // the first 4 KiB boundary after the pools, tld4_pool_image's layout)
    let texels_at = BASE + 4096;
    let mut texels = [BLANK; 32];
    let mut w = Warp::new(0);
    let f = w.flat();
    let st = unsafe {
        let t = texels.as_mut_ptr();
        tld4_exec_run_flat_memory(exec, &flat, hp, sp, &f, t, null_mut(), &mut e)
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    let needed: std::collections::BTreeSet<u64> = texels
        .iter()
        .flat_map(|t| t.sectors[..t.num_sectors as usize].to_vec())
        .map(|s| (s - texels_at) / 32)
        .collect();
    assert!(needed.len() >= 27, "{needed:?}");
    let blocks: std::collections::BTreeSet<u64> = needed.iter().map(|n| n / 64).collect();
    for _ in 0..2 {
        assert_eq!(one_shot(exec, &mem, hp, sp, &mut e), want);
        let mut calls = counted.calls.take();
        calls.sort_unstable();
        // the two descriptors (whole sectors below the texels), then one read a 2 KiB block
        // of the texture the texels lie in: whole sectors, from a sector a texel lies in to
        // one, none asked twice
        let (descriptors, reads) = calls.split_at(2);
        assert!(
            descriptors
                .iter()
                .all(|&(a, n)| a % 32 == 0 && n == 32 && a < texels_at),
            "{calls:?}"
        );
        assert_eq!(reads.len(), blocks.len(), "{calls:?}");
        for &(a, n) in reads {
            let (first, last) = ((a - texels_at) / 32, (a + n as u64 - 1 - texels_at) / 32);
            assert!(
                (a - texels_at).is_multiple_of(32)
                    && n % 32 == 0
                    && first / 64 == last / 64
                    && needed.contains(&first)
                    && needed.contains(&last),
                "({a:#x}, {n}) in {calls:?}"
            );
        }
        assert!(
            calls.windows(2).all(|w| w[0].0 + w[0].1 as u64 <= w[1].0),
            "a byte asked twice: {calls:?}"
        );
    }
    // bound: the texture whole on the first warp, nothing on the next
    bound_warps(exec, &mem, (hp, sp), &want.0, |k| {
        let calls = counted.calls.take();
        match k {
            0 => assert!(
                calls.iter().any(|&(_, n)| n >= texture_bytes) && calls.len() <= 3,
                "{calls:?}"
            ),
            _ => assert!(calls.is_empty(), "{calls:?}"),
        }
    });
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}
