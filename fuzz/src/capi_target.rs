//! The `capi` target: tld4-capi's `extern "C"` functions called as a C simulator would, with
//! generated arguments ([`Draw`]): a pool filled through `tld4_pool_add_*` and
//! `tld4_pool_set_*` (format names, kinds, sizes, field counts, sampler values, indices up
//! to and past the last), an instruction from a word, a flat warp with generated strides,
//! register counts, uniform counts and masks, the same warp through callbacks, and the pool
//! image in flat and callback memory at generated bases (the callback failing at a
//! generated address).
//!
//! Properties: no call returns `TLD4_ERR_PANIC`; every error has a message; flat and
//! callback register files give the same status and registers; the callbacks are only asked
//! for what `tld4_regfile` promises (lane below 32 and active, register below the count and
//! 255, predicate below 7, uniform below 255); flat memory and callback memory over the same
//! bytes give the same status and registers.

use std::cell::RefCell;
use std::ffi::{c_int, c_void, CStr};
use std::ptr::{null, null_mut};

use tld4_capi::tld4_status::*;
use tld4_capi::*;

use tld4_textures::Format;

use crate::memory_target::Draw;
use crate::targets::Verdict;

/// The most register-file elements the target allocates (strides needing more are tried
/// only where the library must refuse them before touching the buffer).
const MAX_ELEMENTS: u128 = 1 << 20;

/// Asserts the status is not a caught panic and an error says something; true on success.
fn ok(st: tld4_status, e: &tld4_error, call: &str) -> bool {
    assert_ne!(st, TLD4_ERR_PANIC, "{call}: {}", e.message());
    if st != TLD4_OK && st != TLD4_ERR_BUFFER_TOO_SMALL {
        assert!(!e.message().is_empty(), "{call}: {st:?} without a message");
    }
    st == TLD4_OK
}

/// Strides, counts and sizes near the edges.
fn edge(d: &mut Draw) -> usize {
    match d.byte() % 6 {
        0 => d.pick(&[
            0,
            1,
            2,
            31,
            32,
            33,
            255,
            256,
            1 << 31,
            1 << 59,
            usize::MAX,
            usize::MAX / 32,
        ]),
        1 => d.u64() as usize,
        _ => d.below(300) as usize,
    }
}

/// Fills the pool through the C calls (one to three textures, then samplers); returns how
/// many calls were refused.
fn fill_pool(d: &mut Draw, pool: *mut tld4_pool) -> u32 {
    let mut e = tld4_error::new();
    let mut refused = 0;
    for _ in 0..1 + d.below(3) {
        let count = tld4_format_count();
        let k = d.below(count as u32 + 1) as usize;
        let name = tld4_format_name(k);
        let fallback = c"rgba8_unorm";
        let format = if name.is_null() {
            fallback.as_ptr()
        } else {
            name
        };
        let per_texel = Format::ALL.get(k).map_or(4, |f| f.fields()) as u64;
        let odd = d.one_in(8);
        let desc = tld4_texture_desc {
            kind: if odd { d.pick(&[1, 2, 3, 4]) } else { 0 },
            format,
            width: if odd {
                d.pick(&[0, 3, 17, u32::MAX])
            } else {
                d.pick(&[1, 2, 4, 8])
            },
            height: if odd {
                d.pick(&[0, 1, 3, 17])
            } else {
                d.pick(&[1, 2, 4, 8])
            },
            layers: if odd { d.pick(&[0, 1, 2, 6, 12]) } else { 1 },
        };
        // the fields the description needs, or one less
        let want = (desc.width as u64)
            .saturating_mul(desc.height as u64)
            .saturating_mul(desc.layers as u64 * if desc.kind >= 2 { 6 } else { 1 })
            .saturating_mul(per_texel);
        let n = if d.one_in(8) {
            want.saturating_sub(1)
        } else {
            want
        }
        .min(1 << 16) as usize;
        let range = d.byte() % 4;
        let fields: Vec<u32> = (0..n)
            .map(|k| {
                let h = (k as u32).wrapping_mul(2_654_435_761);
                match range {
                    0 => h,
                    1 => h >> 24,
                    _ => h >> 31,
                }
            })
            .collect();
        let fp = if fields.is_empty() {
            null()
        } else {
            fields.as_ptr()
        };
        let mut index = 0u32;
        let st = unsafe {
            if d.one_in(3) {
                let at = d.pick(&[0, 1, 2, (1 << 20) - 1, 1 << 20, u32::MAX]);
                tld4_pool_set_texture(pool, at, &desc, fp, fields.len(), &mut e)
            } else {
                tld4_pool_add_texture(pool, &desc, fp, fields.len(), &mut index, &mut e)
            }
        };
        refused += !ok(st, &e, "tld4_pool_*_texture") as u32;
    }
    refused + fill_samplers(d, pool)
}

/// Puts and appends one to three samplers; returns how many calls were refused.
fn fill_samplers(d: &mut Draw, pool: *mut tld4_pool) -> u32 {
    let mut e = tld4_error::new();
    let mut refused = 0;
    for _ in 0..1 + d.below(3) {
        let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
        unsafe { tld4_sampler_default(&mut s, &mut e) };
        if d.one_in(2) {
            s.address_u = d.below(7);
            s.address_v = d.below(7);
            s.border = [d.u32(), d.u32(), d.u32(), d.u32()];
            s.compare_enable = d.one_in(4);
            s.compare_op = d.below(9);
        }
        let mut index = 0u32;
        let st = unsafe {
            if d.one_in(3) {
                tld4_pool_set_sampler(pool, d.pick(&[0, 1, 4095, 4096]), &s, &mut e)
            } else {
                tld4_pool_add_sampler(pool, &s, &mut index, &mut e)
            }
        };
        refused += !ok(st, &e, "tld4_pool_*_sampler") as u32;
    }
    refused
}

/// What the callback register file reads and writes, and whether a call broke the contract.
struct CbWarp {
    regs: Vec<u32>,
    preds: [u32; 7],
    uregs: Vec<u32>,
    active: u32,
    nregs: u32,
    broken: RefCell<Option<String>>,
}

impl CbWarp {
    fn check(&self, what: &str, lane: u32, r: u32) {
        let bad = lane >= 32 || self.active >> lane & 1 == 0 || r >= self.nregs.min(255);
        if bad && self.broken.borrow().is_none() {
            *self.broken.borrow_mut() = Some(format!(
                "{what}(lane {lane}, {r}) with {} registers, mask {:#x}",
                self.nregs, self.active
            ));
        }
    }
}

// The callbacks never unwind: out-of-contract calls are recorded, not panicked on.
unsafe extern "C" fn cb_reg(user: *mut c_void, lane: u32, r: u32) -> u32 {
    let w = unsafe { &*(user as *const CbWarp) };
    w.check("reg", lane, r);
    w.regs
        .get(r as usize * 32 + lane as usize)
        .copied()
        .unwrap_or(0)
}
unsafe extern "C" fn cb_set_reg(user: *mut c_void, lane: u32, r: u32, v: u32) {
    let w = unsafe { &mut *(user as *mut CbWarp) };
    w.check("set_reg", lane, r);
    if let Some(x) = w.regs.get_mut(r as usize * 32 + lane as usize) {
        *x = v;
    }
}
unsafe extern "C" fn cb_pred(user: *mut c_void, lane: u32, p: u32) -> bool {
    let w = unsafe { &*(user as *const CbWarp) };
    w.check("pred", lane, if p < 7 { 0 } else { u32::MAX });
    w.preds
        .get(p as usize)
        .is_some_and(|m| m >> (lane % 32) & 1 != 0)
}
unsafe extern "C" fn cb_set_pred(user: *mut c_void, lane: u32, p: u32, v: bool) {
    let w = unsafe { &mut *(user as *mut CbWarp) };
    w.check("set_pred", lane, if p < 7 { 0 } else { u32::MAX });
    if let Some(m) = w.preds.get_mut(p as usize) {
        *m = *m & !(1 << (lane % 32)) | (v as u32) << (lane % 32);
    }
}
unsafe extern "C" fn cb_ureg(user: *mut c_void, u: u32) -> u32 {
    let w = unsafe { &*(user as *const CbWarp) };
    if u >= 255 && w.broken.borrow().is_none() {
        *w.broken.borrow_mut() = Some(format!("ureg({u})"));
    }
    w.uregs.get(u as usize).copied().unwrap_or(0)
}

/// Flat memory's bytes for the callback: `base`, the bytes, and the address from which
/// reads fail.
struct CbMemory {
    base: u64,
    bytes: Vec<u8>,
    fail_from: u64,
}

unsafe extern "C" fn cb_read(user: *mut c_void, addr: u64, dst: *mut u8, len: usize) -> c_int {
    let m = unsafe { &*(user as *const CbMemory) };
    let end = addr as u128 + len as u128;
    if addr < m.base || end > m.base as u128 + m.bytes.len() as u128 {
        return 1;
    }
    if end > m.fail_from as u128 {
        return 7;
    }
    let at = (addr - m.base) as usize;
    unsafe { std::ptr::copy_nonoverlapping(m.bytes[at..].as_ptr(), dst, len) };
    0
}

/// The instruction: a legal word of the fuzzer's generator, or one of a few texts.
fn exec_of(d: &mut Draw) -> Option<*mut tld4_exec> {
    let mut e = tld4_error::new();
    let mut exec = null_mut();
    let st = if d.one_in(2) {
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(d.u64());
        let w = crate::mutate::legal_word(&mut rng);
        let word = tld4_word {
            lo: w as u64,
            hi: (w >> 64) as u64,
        };
        unsafe { tld4_exec_from_word(word, null(), &mut exec, &mut e) }
    } else {
        let text = d.pick(&[
            c"TLD4.R R10, R8, R20, UR4, 2D ;",
            c"TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;",
            c"TLD4.B R10, R8, R20, UR4, ARRAY_2D ;",
            c"TLD4.A R10, R8, R20, UR4, CUBE ;",
            c"TLD4.R.PTP R10, R8, R20, R24, UR4, 2D ;",
            c"TLD4.R.DC R10, R8, R20, R24, UR4, 2D ;",
        ]);
        let mut insn = null_mut();
        let st = unsafe { tld4_parse(text.as_ptr(), &mut insn, &mut e) };
        assert_eq!(st, TLD4_OK, "{:?}: {}", text, e.message());
        let st = unsafe { tld4_exec_new(insn, null(), &mut exec, &mut e) };
        unsafe { tld4_insn_free(insn) };
        st
    };
    ok(st, &e, "tld4_exec_*").then_some(exec)
}

/// A flat warp's strides and counts, and the elements they span (`None`: more than
/// [`MAX_ELEMENTS`], or past `usize`).
fn strides(d: &mut Draw) -> (u32, usize, usize, Option<usize>) {
    let (num_regs, rs, ls) = match d.byte() % 4 {
        0 => (
            d.pick(&[0, 1, 40, 255, 256, 1000, u32::MAX]),
            edge(d),
            edge(d),
        ),
        1 => (40, 1, 40),
        _ => (40, 32, 1),
    };
    let n = num_regs.min(255) as u128;
    let span = if n == 0 {
        Some(0)
    } else {
        Some((n - 1) * rs as u128 + 31 * ls as u128 + 1)
    };
    let len = span.filter(|&s| s <= MAX_ELEMENTS).map(|s| s as usize);
    (num_regs, rs, ls, len)
}

/// A warp as drawn: counts, strides (and the elements they span, if allocatable), the
/// registers register-major, predicates, uniform registers and the active mask.
struct WarpInput {
    num_regs: u32,
    rs: usize,
    ls: usize,
    len: Option<usize>,
    fill: Vec<u32>,
    preds: [u32; 7],
    uregs: Vec<u32>,
    active: u32,
}

impl WarpInput {
    fn draw(d: &mut Draw) -> Self {
        let handle = if d.one_in(4) {
            d.u32()
        } else {
            d.below(3) | d.below(3) << 20
        };
        let active = if d.one_in(2) { u32::MAX } else { d.u32() };
        let num_uregs: usize = d.pick(&[255, 255, 255, 8, 0, 4, 5]);
        let mut uregs = vec![0u32; num_uregs];
        if let Some(u) = uregs.get_mut(4) {
            *u = handle;
        }
        let (num_regs, rs, ls, len) = strides(d);
        // registers: coordinates in [-0.5, 1.5), offsets and references as drawn
        let fill: Vec<u32> = (0..255 * 32)
            .map(|k| match k / 32 {
                20..=23 => (d.below(2000) as f32 / 1000.0 - 0.5).to_bits(),
                24..=25 => d.u32(),
                _ => 0xdead_0000 | k as u32,
            })
            .collect();
        let preds = [d.u32(), d.u32(), 0, 0, 0, 0, 0];
        WarpInput {
            num_regs,
            rs,
            ls,
            len,
            fill,
            preds,
            uregs,
            active,
        }
    }

    /// The flat warp over `regs` and `preds`.
    fn flat(&self, regs: &mut [u32], preds: &mut [u32; 7]) -> tld4_warp_flat {
        tld4_warp_flat {
            regs: regs.as_mut_ptr(),
            num_regs: self.num_regs,
            reg_stride: self.rs,
            lane_stride: self.ls,
            preds: preds.as_mut_ptr(),
            uregs: if self.uregs.is_empty() {
                null()
            } else {
                self.uregs.as_ptr()
            },
            num_uregs: self.uregs.len() as u32,
            active_mask: self.active,
        }
    }
}

/// Runs one C ABI input (see the module doc).
pub fn capi(input: &[u8]) -> Verdict {
    let mut d = Draw::new(input);
    let mut e = tld4_error::new();
    let mut pool = null_mut();
    assert!(ok(
        unsafe { tld4_pool_new(&mut pool, &mut e) },
        &e,
        "tld4_pool_new"
    ));
    let refused_fills = fill_pool(&mut d, pool);
    let Some(exec) = exec_of(&mut d) else {
        unsafe { tld4_pool_free(pool) };
        return Verdict::Refused("the instruction cannot execute".into());
    };
    let w = WarpInput::draw(&mut d);
    let mut verdict = match w.len {
        Some(len) => register_runs(exec, pool, &w, len),
        None => {
            // strides spanning more than any buffer: refused before the buffer is touched
            let mut one = [0u32; 1];
            let mut preds = w.preds;
            let flat = w.flat(&mut one, &mut preds);
            let span =
                (w.num_regs.clamp(1, 255) as u128 - 1) * w.rs as u128 + 31 * w.ls as u128 + 1;
            if span > usize::MAX as u128 || w.num_regs > 255 {
                let st = unsafe { tld4_exec_run_flat(exec, pool, &flat, null_mut(), &mut e) };
                assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{}", e.message());
            }
            Verdict::Refused("strides too large".into())
        }
    };
    memory_runs(&mut d, pool, exec, &w.fill, w.preds, &w.uregs, w.active);
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
    if refused_fills > 0 && verdict == Verdict::Accepted {
        verdict = Verdict::Refused(format!("{refused_fills} pool calls refused"));
    }
    verdict
}

/// The warp through `tld4_exec_run_flat` over `len` elements, and (where the strides keep
/// registers apart) through `tld4_exec_run_callbacks`: the same status and registers.
fn register_runs(exec: *mut tld4_exec, pool: *mut tld4_pool, w: &WarpInput, len: usize) -> Verdict {
    let (rs, ls, num_regs) = (w.rs, w.ls, w.num_regs);
    let mut regs = vec![0u32; len.max(1)];
    for r in 0..num_regs.min(255) as usize {
        for lane in 0..32 {
            regs[r * rs + lane * ls] = w.fill[r * 32 + lane];
        }
    }
    let mut preds = w.preds;
    let flat = w.flat(&mut regs, &mut preds);
    let mut e = tld4_error::new();
    let st = unsafe { tld4_exec_run_flat(exec, pool, &flat, null_mut(), &mut e) };
    let flat_ok = ok(st, &e, "tld4_exec_run_flat");
    let apart = ls > 0
        && rs > 0
        && (32usize.checked_mul(ls).is_some_and(|x| rs >= x)
            || (num_regs as usize).checked_mul(rs).is_some_and(|x| ls >= x));
    if num_regs <= 255 && apart {
        // the same warp through callbacks (register-major storage)
        let mut cbw = CbWarp {
            regs: w.fill[..num_regs as usize * 32].to_vec(),
            preds: w.preds,
            uregs: w.uregs.clone(),
            active: w.active,
            nregs: num_regs,
            broken: RefCell::new(None),
        };
        let rf = regfile(&mut cbw);
        let mut e2 = tld4_error::new();
        let st2 = unsafe { tld4_exec_run_callbacks(exec, pool, &rf, null_mut(), &mut e2) };
        ok(st2, &e2, "tld4_exec_run_callbacks");
        if let Some(b) = cbw.broken.borrow().as_ref() {
            panic!("a callback asked outside its contract: {b}");
        }
        // compared where every uniform register is given (a flat warp missing the
        // instruction's uniform is refused first, for any other reason as well)
        if w.uregs.len() == 255 {
            let (m1, m2) = (e.message(), e2.message());
            assert_eq!(st, st2, "flat: {m1} / callbacks: {m2}");
            if flat_ok {
                for r in 0..num_regs as usize {
                    for lane in 0..32 {
                        let (a, b) = (regs[r * rs + lane * ls], cbw.regs[r * 32 + lane]);
                        assert_eq!(a, b, "R{r} lane {lane}");
                    }
                }
                assert_eq!(preds, cbw.preds, "predicates");
            }
        }
    }
    if flat_ok {
        Verdict::Accepted
    } else {
        Verdict::Refused(e.message())
    }
}

fn regfile(w: &mut CbWarp) -> tld4_regfile {
    tld4_regfile {
        user: w as *mut CbWarp as *mut c_void,
        reg: Some(cb_reg),
        set_reg: Some(cb_set_reg),
        pred: Some(cb_pred),
        set_pred: Some(cb_set_pred),
        ureg: Some(cb_ureg),
        active_mask: w.active,
        regs_per_thread: w.nregs,
    }
}

/// The pool image at a generated base, run through flat memory and callback memory.
fn memory_runs(
    d: &mut Draw,
    pool: *mut tld4_pool,
    exec: *mut tld4_exec,
    fill: &[u32],
    preds: [u32; 7],
    uregs: &[u32],
    active: u32,
) {
    let mut e = tld4_error::new();
    let entry = tld4_image_entry {
        texture: d.below(3),
        sampler: d.below(3),
        layout: d.below(3),
        layout_param: d.pick(&[0, 1, 4, 5, 6, 32, 64, 33]),
    };
    let base = match d.byte() % 4 {
        0 => d.pick(&[
            u64::MAX - 511,
            0xffff_ffff_ffff_fe00,
            1 << 57,
            (1 << 57) - 0x10_0000,
            513,
        ]),
        1 => d.u64(),
        _ => 0x10_0000,
    };
    let (mut needed, mut hp, mut sp) = (0usize, 0u64, 0u64);
    let st = unsafe {
        tld4_pool_image(
            pool,
            &entry,
            1,
            base,
            null_mut(),
            0,
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    ok(st, &e, "tld4_pool_image");
    if st != TLD4_ERR_BUFFER_TOO_SMALL || needed > 1 << 24 {
        return;
    }
    let mut bytes = vec![0u8; needed];
    let st = unsafe {
        tld4_pool_image(
            pool,
            &entry,
            1,
            base,
            bytes.as_mut_ptr(),
            needed,
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    assert!(
        ok(st, &e, "tld4_pool_image"),
        "the size it gave is not enough"
    );
    let mut handle_uregs = uregs.to_vec();
    handle_uregs.resize(8, 0);
    let any = d.u32();
    handle_uregs[4] = d.pick(&[0, 0, 1, 1 << 20, any]);
    let run = |memory: &tld4_memory| {
        let mut cbw = CbWarp {
            regs: fill[..40 * 32].to_vec(),
            preds,
            uregs: handle_uregs.clone(),
            active,
            nregs: 40,
            broken: RefCell::new(None),
        };
        let rf = regfile(&mut cbw);
        let mut texels = vec![unsafe { std::mem::zeroed::<tld4_lane_texels>() }; 32];
        let mut e = tld4_error::new();
        let st = unsafe {
            tld4_exec_run_callbacks_memory(
                exec,
                memory,
                hp,
                sp,
                &rf,
                texels.as_mut_ptr(),
                null_mut(),
                &mut e,
            )
        };
        ok(st, &e, "tld4_exec_run_callbacks_memory");
        if let Some(b) = cbw.broken.borrow().as_ref() {
            panic!("a callback asked outside its contract: {b}");
        }
        (st, cbw.regs)
    };
    let flat = tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
        base,
        bytes: bytes.as_ptr(),
        len: bytes.len(),
        user: null_mut(),
        read: None,
    };
    let cb = CbMemory {
        base,
        bytes: bytes.clone(),
        fail_from: if d.one_in(4) {
            base.saturating_add(d.below(needed as u32 + 1) as u64)
        } else {
            u64::MAX
        },
    };
    let callback = tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32,
        base: 0,
        bytes: null(),
        len: 0,
        user: &cb as *const CbMemory as *mut c_void,
        read: Some(cb_read),
    };
    let (st1, r1) = run(&flat);
    let (st2, r2) = run(&callback);
    if cb.fail_from == u64::MAX {
        assert_eq!(st1, st2, "flat and callback memory differ in status");
        assert_eq!(r1, r2, "flat and callback memory differ in registers");
    }
    // the names of what failed are static strings
    let _ = unsafe { CStr::from_ptr(tld4_fault_name(0)) };
}
