//! A read callback kept across calls (`tld4_memory_cache_*`): one-shot calls and bindings
//! through the cache write what a flat range writes, the callback is asked once across
//! calls, a changed memory gives the new values once invalidated (and the kept ones, as
//! documented, until then), clearing drops everything, a refused read fails with the same
//! error as without the cache, and bad arguments are refused naming them.

use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::ptr::{null, null_mut};

use crate::common::{exec_of, flat_memory};
use crate::memory_exec::{fixture, Warp, BASE, INSN};
use tld4_capi::*;
use tld4_status::*;

/// Memory the test changes, read through a callback that records every call (address,
/// length) and refuses reads at or past `fail_from` with 7.
struct Changing {
    bytes: RefCell<Vec<u8>>,
    calls: RefCell<Vec<(u64, usize)>>,
    fail_from: u64,
}

unsafe extern "C" fn read_changing(
    user: *mut c_void,
    addr: u64,
    dst: *mut u8,
    len: usize,
) -> c_int {
    let c = unsafe { &*(user as *const Changing) };
    c.calls.borrow_mut().push((addr, len));
    if addr as u128 + len as u128 > c.fail_from as u128 {
        return 7;
    }
    let Some(at) = addr.checked_sub(BASE).map(|a| a as usize) else {
        return 1;
    };
    match c.bytes.borrow().get(at..at + len) {
        Some(b) => {
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), dst, len) };
            0
        }
        None => 1,
    }
}

fn callback_of(c: &Changing) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32,
        base: 0,
        bytes: null(),
        len: 0,
        user: c as *const Changing as *mut c_void,
        read: Some(read_changing),
    }
}

fn cache_of(m: &tld4_memory) -> *mut tld4_memory_cache {
    let (mut out, mut e) = (null_mut(), tld4_error::new());
    let st = unsafe { tld4_memory_cache_new(m, &mut out, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert!(!out.is_null());
    out
}

fn kept(c: *mut tld4_memory_cache) -> tld4_memory_cache_stats {
    let mut s = tld4_memory_cache_stats::default();
    let st = unsafe { tld4_memory_cache_kept(c, &mut s, null_mut()) };
    assert_eq!(st, TLD4_OK);
    s
}

/// One warp over `m`: the status, the error and the registers afterwards.
fn run(
    exec: *mut tld4_exec,
    m: &tld4_memory,
    hp: u64,
    sp: u64,
) -> (tld4_status, tld4_error, Vec<u32>) {
    let mut w = Warp::new(0);
    let f = w.flat();
    let mut e = tld4_error::new();
    let st =
        unsafe { tld4_exec_run_flat_memory(exec, m, hp, sp, &f, null_mut(), null_mut(), &mut e) };
    (st, e, w.regs)
}

/// The registers one warp writes over `m`, which must succeed.
fn regs(exec: *mut tld4_exec, m: &tld4_memory, hp: u64, sp: u64) -> Vec<u32> {
    let (st, e, regs) = run(exec, m, hp, sp);
    assert_eq!(st, TLD4_OK, "{}", e.message());
    regs
}

#[test]
fn a_cache_writes_what_flat_memory_writes_and_reads_once_across_calls() {
    let (pool, image, hp, sp) = fixture();
    let exec = exec_of(INSN);
    let want = regs(exec, &flat_memory(&image, BASE), hp, sp);
    let c = Changing {
        bytes: RefCell::new(image.clone()),
        calls: RefCell::new(Vec::new()),
        fail_from: u64::MAX,
    };
    let cache = cache_of(&callback_of(&c));
    let mem = tld4_memory_cache_memory(cache);
    assert_eq!(mem.kind, tld4_memory_kind::TLD4_MEMORY_CACHE as u32);
    assert_eq!(kept(cache), tld4_memory_cache_stats::default());
    assert_eq!(regs(exec, &mem, hp, sp), want);
    // the first call: the two descriptors (whole sectors, kept as descriptors, not as
    // sectors) and the texture whole (256 bytes after the pools' 4 KiB), as a plain
    // callback memory asks each call
    let first = c.calls.take();
    assert!(first.contains(&(BASE + 4096, 256)), "{first:?}");
    assert_eq!(
        first
            .iter()
            .filter(|&&(a, n)| a % 32 == 0 && n == 32)
            .count(),
        2
    );
    assert_eq!(first.len(), 3, "{first:?}");
    assert_eq!(
        kept(cache),
        tld4_memory_cache_stats {
            views: 1,
            sectors: 0
        }
    );
    // later one-shot calls, and a binding over the cache, ask for nothing
    for _ in 0..3 {
        assert_eq!(regs(exec, &mem, hp, sp), want);
    }
    let (mut bound, mut e) = (null_mut(), tld4_error::new());
    let st = unsafe { tld4_exec_bind_memory(exec, &mem, hp, sp, &mut bound, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    for _ in 0..2 {
        let mut w = Warp::new(0);
        let f = w.flat();
        let st = unsafe { tld4_bound_run_flat(bound, &f, null_mut(), null_mut(), &mut e) };
        assert_eq!(st, TLD4_OK, "{}", e.message());
        assert_eq!(w.regs, want);
    }
    // a one-shot call while the binding is alive
    assert_eq!(regs(exec, &mem, hp, sp), want);
    assert_eq!(c.calls.take(), []);
    unsafe {
        tld4_bound_free(bound);
        tld4_memory_cache_free(cache);
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn changed_memory_gives_the_new_values_once_invalidated_and_clear_drops_everything() {
    let (pool, image, hp, sp) = fixture();
    let exec = exec_of(INSN);
    let before = regs(exec, &flat_memory(&image, BASE), hp, sp);
    // the texels changed: every texel byte of the texture (256 bytes after the pools)
    let mut changed = image.clone();
    for b in &mut changed[4096..4096 + 256] {
        *b ^= 0x5a;
    }
    let after = regs(exec, &flat_memory(&changed, BASE), hp, sp);
    assert_ne!(before, after);
    let c = Changing {
        bytes: RefCell::new(image.clone()),
        calls: RefCell::new(Vec::new()),
        fail_from: u64::MAX,
    };
    let cache = cache_of(&callback_of(&c));
    let mem = tld4_memory_cache_memory(cache);
    assert_eq!(regs(exec, &mem, hp, sp), before);
    *c.bytes.borrow_mut() = changed.clone();
    // not invalidated: the texture kept whole gives the values read before the change
    assert_eq!(regs(exec, &mem, hp, sp), before);
    let mut e = tld4_error::new();
    // invalidating the pools only (the bytes before the texture): still the kept texels
    let st = unsafe { tld4_memory_cache_invalidate(cache, BASE, 4096, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(kept(cache).views, 1);
    assert_eq!(regs(exec, &mem, hp, sp), before);
    // the texture's last byte: the whole texture is read again, with the new values
    c.calls.take();
    let st = unsafe { tld4_memory_cache_invalidate(cache, BASE + 4096 + 255, 1, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(kept(cache).views, 0);
    assert_eq!(regs(exec, &mem, hp, sp), after);
    assert_eq!(c.calls.take(), [(BASE + 4096, 256)]);
    // clear: nothing kept, the next call asks again for everything
    *c.bytes.borrow_mut() = image.clone();
    let st = unsafe { tld4_memory_cache_clear(cache, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(kept(cache), tld4_memory_cache_stats::default());
    assert_eq!(regs(exec, &mem, hp, sp), before);
    let again = c.calls.take();
    assert!(
        again.contains(&(BASE + 4096, 256)) && again.len() >= 2,
        "{again:?}"
    );
    // a binding alive: invalidating and clearing are refused, and drop nothing
    let mut bound = null_mut();
    let st = unsafe { tld4_exec_bind_memory(exec, &mem, hp, sp, &mut bound, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    let st = unsafe { tld4_memory_cache_invalidate(cache, BASE, 1, &mut e) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(e.message().contains("binding"), "{}", e.message());
    let st = unsafe { tld4_memory_cache_clear(cache, &mut e) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert_eq!(kept(cache).views, 1);
    unsafe { tld4_bound_free(bound) };
    let st = unsafe { tld4_memory_cache_clear(cache, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    // a range past 2^64 is refused; one ending at 2^64 is not
    let st = unsafe { tld4_memory_cache_invalidate(cache, u64::MAX, 2, &mut e) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(e.message().contains("2^64"), "{}", e.message());
    let st = unsafe { tld4_memory_cache_invalidate(cache, u64::MAX, 1, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    unsafe {
        tld4_memory_cache_free(cache);
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn a_refused_read_fails_as_without_the_cache_every_time() {
    let (pool, image, hp, sp) = fixture();
    let exec = exec_of(INSN);
    // the callback refuses the texels (7); the descriptors read
    let c = Changing {
        bytes: RefCell::new(image.clone()),
        calls: RefCell::new(Vec::new()),
        fail_from: BASE + 4096,
    };
    let plain = callback_of(&c);
    let (st, want, regs_plain) = run(exec, &plain, hp, sp);
    assert_eq!(st, TLD4_ERR_MEMORY, "{}", want.message());
    assert!(
        want.message().ends_with("(the read callback returned 7)"),
        "{}",
        want.message()
    );
    let cache = cache_of(&plain);
    let mem = tld4_memory_cache_memory(cache);
    for _ in 0..2 {
        let (st, e, regs) = run(exec, &mem, hp, sp);
        assert_eq!(st, TLD4_ERR_MEMORY, "{}", e.message());
        assert_eq!(e.message(), want.message());
        assert_eq!((e.lane, e.fault), (want.lane, want.fault));
        assert_eq!(format!("{:?}", e.detail), format!("{:?}", want.detail));
        assert_eq!(regs, regs_plain);
        // nothing of the texture kept: asked again next time
        assert_eq!(kept(cache).views, 0);
    }
    // a later call that fails for another reason carries no stale callback value
    let (st, e, _) = run(exec, &mem, 0x40, sp);
    assert_eq!(st, TLD4_ERR_MEMORY);
    assert!(e.message().contains("0x40"), "{}", e.message());
    assert!(
        e.message().ends_with("(the read callback returned 1)"),
        "{}",
        e.message()
    );
    unsafe {
        tld4_memory_cache_free(cache);
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn bad_cache_arguments_are_refused_naming_them() {
    let c = Changing {
        bytes: RefCell::new(Vec::new()),
        calls: RefCell::new(Vec::new()),
        fail_from: u64::MAX,
    };
    let m = callback_of(&c);
    let (mut out, mut e) = (null_mut(), tld4_error::new());
    let st = unsafe { tld4_memory_cache_new(null(), &mut out, &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(e.message().contains("memory"), "{}", e.message());
    let st = unsafe { tld4_memory_cache_new(&m, null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(e.message().contains("out"), "{}", e.message());
    let no_read = tld4_memory { read: None, ..m };
    let st = unsafe { tld4_memory_cache_new(&no_read, &mut out, &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(e.message().contains("memory.read"), "{}", e.message());
    // flat memory and a cache's own memory have nothing to cache
    let bytes = [0u8; 4];
    for other in [flat_memory(&bytes, 0), tld4_memory_cache_memory(null_mut())] {
        let st = unsafe { tld4_memory_cache_new(&other, &mut out, &mut e) };
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
        assert!(
            e.message().contains("TLD4_MEMORY_CALLBACK"),
            "{}",
            e.message()
        );
    }
    assert!(out.is_null());
    // NULL caches
    let st = unsafe { tld4_memory_cache_invalidate(null_mut(), 0, 1, &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    let st = unsafe { tld4_memory_cache_clear(null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    let mut s = tld4_memory_cache_stats::default();
    let st = unsafe { tld4_memory_cache_kept(null(), &mut s, &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    unsafe { tld4_memory_cache_free(null_mut()) };
    // a cache memory whose cache is NULL, passed to a call
    let (pool, _image, hp, sp) = fixture();
    let exec = exec_of(INSN);
    let (st, mut e, _) = run(exec, &tld4_memory_cache_memory(null_mut()), hp, sp);
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert!(
        e.message().contains("memory.user (cache)"),
        "{}",
        e.message()
    );
    // stats: NULL out
    let cache = cache_of(&m);
    let st = unsafe { tld4_memory_cache_kept(cache, null_mut(), &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    unsafe {
        tld4_memory_cache_free(cache);
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}
