//! Warp execution over GPU memory through the C ABI: the textures of an owned pool, laid out
//! by `tld4_pool_image`, executed with `tld4_exec_run_flat_memory` (a flat byte range) and
//! `tld4_exec_run_callbacks_memory` (a read callback, callback registers), write exactly
//! what `tld4_exec_run_flat` writes over the owned pool; each lane's texel addresses hold the
//! texels gathered; every failure has its own status and writes nothing.

use crate::common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::{
    callback_memory, exec_of, flat_memory, handle, image_entry, owned_pool, pool_image, warp32,
    CallbackImage, Texture,
};
use tld4_capi::*;

use tld4_status::*;

const W: u32 = 8;
const H: u32 = 4;
pub(crate) const BASE: u64 = 0x10_0000;
const REGS: usize = 32;
pub(crate) const INSN: &str = "@P1 TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;";

/// Texel (x, y) of the texture: RGBA8 UNORM (30 x, 60 y, x + y, 255).
fn texel(x: u32, y: u32) -> [u32; 4] {
    [30 * x, 60 * y, x + y, 255]
}

/// The owned pool (texture header 3, sampler 1: clamp to edge) and its memory image
/// (entry 0: pitch rows of 64 bytes): (pool, image bytes, header pool, sampler pool).
pub(crate) fn fixture() -> (*mut tld4_pool, Vec<u8>, u64, u64) {
    let pool = owned_pool(&Texture::rgba8(W, H, texel), 3, 1, [2, 2]);
    let img = pool_image(
        pool,
        image_entry(3, 1, tld4_layout::TLD4_LAYOUT_PITCH, 64),
        BASE,
    );
    assert!(img.bytes.len() > 4096, "{}", img.bytes.len());
    assert_eq!(img.header_pool, BASE);
    (pool, img.bytes, img.header_pool, img.sampler_pool)
}

/// A warp, register-major: lanes 0-27 active, P1 clear on lane 5; (u, v) at a texel of each
/// lane, AOFFI dx = lane % 3 - 1.
pub(crate) struct Warp {
    pub(crate) regs: Vec<u32>,
    preds: [u32; 7],
    uregs: [u32; 8],
}

const ACTIVE: u32 = 0x0fff_ffff;

impl Warp {
    pub(crate) fn new(handle: u32) -> Self {
        let mut regs = vec![0xdead_beef; REGS * 32];
        for lane in 0..32 {
            let (x, y) = (lane as u32 % W, lane as u32 / W);
            regs[20 * 32 + lane] = ((x as f32 + 0.5) / W as f32).to_bits();
            regs[21 * 32 + lane] = ((y as f32 + 0.25) / H as f32).to_bits();
            regs[24 * 32 + lane] = ((lane as i32 % 3 - 1) & 0x3f) as u32;
        }
        let mut uregs = [0; 8];
        uregs[4] = handle;
        Warp {
            regs,
            preds: [0, !(1 << 5), 0, 0, 0, 0, 0],
            uregs,
        }
    }
    pub(crate) fn flat(&mut self) -> tld4_warp_flat {
        assert_eq!(REGS, 32);
        warp32(&mut self.regs, &mut self.preds, &self.uregs, ACTIVE)
    }
}

// The callback register file over a `Warp`.
unsafe extern "C" fn cb_reg(user: *mut c_void, lane: u32, r: u32) -> u32 {
    let w = unsafe { &*(user as *const Warp) };
    w.regs[r as usize * 32 + lane as usize]
}
unsafe extern "C" fn cb_set_reg(user: *mut c_void, lane: u32, r: u32, v: u32) {
    let w = unsafe { &mut *(user as *mut Warp) };
    w.regs[r as usize * 32 + lane as usize] = v;
}
unsafe extern "C" fn cb_pred(user: *mut c_void, lane: u32, p: u32) -> bool {
    unsafe { (*(user as *mut Warp)).preds[p as usize] >> lane & 1 != 0 }
}
unsafe extern "C" fn cb_set_pred(user: *mut c_void, lane: u32, p: u32, v: bool) {
    let w = unsafe { &mut (*(user as *mut Warp)).preds[p as usize] };
    *w = *w & !(1 << lane) | (v as u32) << lane;
}
unsafe extern "C" fn cb_ureg(user: *mut c_void, u: u32) -> u32 {
    unsafe { (*(user as *mut Warp)).uregs[u as usize] }
}

fn regfile(w: &mut Warp) -> tld4_regfile {
    tld4_regfile {
        user: w as *mut Warp as *mut c_void,
        reg: Some(cb_reg),
        set_reg: Some(cb_set_reg),
        pred: Some(cb_pred),
        set_pred: Some(cb_set_pred),
        ureg: Some(cb_ureg),
        active_mask: ACTIVE,
        regs_per_thread: REGS as u32,
    }
}

const NONE: tld4_texel_address = tld4_texel_address {
    kind: tld4_texel_kind::TLD4_TEXEL_NONE,
    bytes: 0,
    address: 0,
};
pub(crate) const BLANK: tld4_lane_texels = tld4_lane_texels {
    texels: [NONE; 4],
    sectors: [1; 4],
    num_sectors: 9,
    // A value no record holds: every run writes 0 here.
    reserved: 0xa5a5_a5a5,
};

#[test]
fn the_lane_record_has_the_documented_layout() {
    assert_eq!(std::mem::size_of::<tld4_texel_address>(), 16);
    assert_eq!(std::mem::size_of::<tld4_lane_texels>(), 104);
    assert_eq!(std::mem::align_of::<tld4_lane_texels>(), 8);
    assert_eq!(std::mem::offset_of!(tld4_lane_texels, sectors), 64);
    assert_eq!(std::mem::offset_of!(tld4_lane_texels, num_sectors), 96);
    // No padding: the last 4 bytes are a field, so a caller's memcmp reads no byte left
    // unwritten.
    assert_eq!(std::mem::offset_of!(tld4_lane_texels, reserved), 100);
}

#[test]
fn memory_runs_write_what_the_owned_run_writes_and_name_each_lanes_texels() {
    let (pool, image, hp, sp) = fixture();
    let exec = exec_of(INSN);
    let mut e = tld4_error::new();
    // The owned pool.
    let mut owned = Warp::new(handle(3, 1));
    let f = owned.flat();
    let mut r_owned = tld4_exec_report::default();
    let st = unsafe { tld4_exec_run_flat(exec, pool, &f, &mut r_owned, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(r_owned.executed, ACTIVE & !(1 << 5));

    // The flat memory range, with texel records.
    let mem = flat_memory(&image, BASE);
    let mut flat = Warp::new(handle(0, 0));
    let f = flat.flat();
    let mut texels = [BLANK; 32];
    let mut r = tld4_exec_report::default();
    let st = unsafe {
        tld4_exec_run_flat_memory(exec, &mem, hp, sp, &f, texels.as_mut_ptr(), &mut r, &mut e)
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert!(texels.iter().all(|t| t.reserved == 0));
    assert_eq!(r, r_owned);
    assert_eq!(flat.regs, owned.regs);
    assert_eq!(flat.preds, owned.preds);

    // The read callback and callback registers, without records.
    let img = CallbackImage {
        base: BASE,
        bytes: &image,
        fail_from: u64::MAX,
    };
    let cmem = callback_memory(&img);
    let mut cb = Warp::new(handle(0, 0));
    let rf = regfile(&mut cb);
    let st = unsafe {
        tld4_exec_run_callbacks_memory(exec, &cmem, hp, sp, &rf, null_mut(), &mut r, &mut e)
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(cb.regs, owned.regs);

    // Each executed lane's texels: pitch rows of 64 bytes from the first 4 KiB boundary
    // after the pools (tld4_pool_image's layout); the bytes there are the texel whose green
    // the lane gathered, in gather order x, y, z, w = R8, R9, R10, R11.
    let texels_at = BASE + 4096;
    let mut from_memory = 0;
    for (lane, t) in texels.iter().enumerate() {
        if r.executed >> lane & 1 == 0 {
            assert_eq!(t.texels, [NONE; 4], "lane {lane}");
            assert_eq!((t.num_sectors, t.sectors), (0, [0; 4]), "lane {lane}");
            continue;
        }
        let mut sectors = Vec::new();
        for (k, a) in t.texels.iter().enumerate() {
            assert_eq!(a.kind, tld4_texel_kind::TLD4_TEXEL_MEMORY, "lane {lane}");
            assert_eq!(a.bytes, 4);
            let off = a.address - texels_at;
            let (x, y) = ((off % 64 / 4) as u32, (off / 64) as u32);
            assert!(x < W && y < H, "lane {lane}: {off:#x}");
            let at = (a.address - BASE) as usize;
            let stored: Vec<u32> = image[at..at + 4].iter().map(|&b| b as u32).collect();
            assert_eq!(stored, texel(x, y), "lane {lane} texel {k}");
            let got = owned.regs[(8 + k) * 32 + lane];
            assert_eq!(
                got,
                (texel(x, y)[1] as f32 / 255.0).to_bits(),
                "lane {lane} {k}"
            );
            if !sectors.contains(&(a.address & !31)) {
                sectors.push(a.address & !31);
            }
            from_memory += 1;
        }
        let n = t.num_sectors as usize;
        assert_eq!(&t.sectors[..n], &sectors[..], "lane {lane}");
        assert!(t.sectors[n..].iter().all(|&s| s == 0));
    }
    assert_eq!(from_memory, 4 * r.executed.count_ones());
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

/// Runs the flat-memory execution on a fresh warp and returns the status, the error, the
/// warp and the records afterwards.
fn run_flat(
    mem: *const tld4_memory,
    hp: u64,
    sp: u64,
    insn: &str,
) -> (tld4_status, tld4_error, Warp, [tld4_lane_texels; 32]) {
    let exec = exec_of(insn);
    let mut w = Warp::new(handle(0, 0));
    let f = w.flat();
    let mut texels = [BLANK; 32];
    let mut e = tld4_error::new();
    let st = unsafe {
        tld4_exec_run_flat_memory(
            exec,
            mem,
            hp,
            sp,
            &f,
            texels.as_mut_ptr(),
            null_mut(),
            &mut e,
        )
    };
    unsafe { tld4_exec_free(exec) };
    (st, e, w, texels)
}

fn untouched(w: &Warp, texels: &[tld4_lane_texels; 32]) {
    assert_eq!(w.regs, Warp::new(handle(0, 0)).regs);
    assert!(texels.iter().all(|t| *t == BLANK));
}

#[test]
fn failed_reads_are_memory_errors_naming_lane_and_address_and_write_nothing() {
    let (pool, image, hp, sp) = fixture();
    // The flat range ends before the texels: lane 0's first texel read fails.
    let short = &image[..4096];
    let (st, e, w, t) = run_flat(&flat_memory(short, BASE), hp, sp, INSN);
    assert_eq!(st, TLD4_ERR_MEMORY, "{}", e.message());
    // every failure carries the fault kind the warp raises: a texel read, invalid_texture
    assert_eq!(
        (e.lane, e.fault),
        (0, tld4_fault_kind::TLD4_FAULT_INVALID_TEXTURE)
    );
    assert!(e.message().contains("not mapped"), "{}", e.message());
    untouched(&w, &t);
    // The callback refuses the texels: its value is in the message.
    let img = CallbackImage {
        base: BASE,
        bytes: &image,
        fail_from: BASE + 4096,
    };
    let (st, e, w, t) = run_flat(&callback_memory(&img), hp, sp, INSN);
    assert_eq!(st, TLD4_ERR_MEMORY);
    assert!(
        e.message().ends_with("(the read callback returned 7)"),
        "{}",
        e.message()
    );
    untouched(&w, &t);
    // A header pool where nothing is mapped: the descriptor read fails for lane 0.
    let (st, e, w, t) = run_flat(&flat_memory(&image, BASE), 0x40, sp, INSN);
    assert_eq!(st, TLD4_ERR_MEMORY);
    assert_eq!(e.lane, 0);
    assert!(e.message().contains("0x40"), "{}", e.message());
    untouched(&w, &t);
    unsafe { tld4_pool_free(pool) };
}

#[test]
fn descriptor_faults_tell_invalid_from_not_modeled() {
    let (pool, mut image, hp, sp) = fixture();
    // HEADER_VERSION, bits 127:124 of header 0 (clcd97tex.h): byte 15's high nibble.
    let at = (hp - BASE) as usize + 15;
    image[at] &= 0x0f; // 0: no such header version
    let (st, e, w, t) = run_flat(&flat_memory(&image, BASE), hp, sp, INSN);
    assert_eq!(st, TLD4_ERR_DESCRIPTOR, "{}", e.message());
    // HEADER_VERSION 0 is an empty slot: unknown_texture_header, as past an owned pool
    assert_eq!(
        (e.lane, e.fault),
        (0, tld4_fault_kind::TLD4_FAULT_UNKNOWN_TEXTURE_HEADER)
    );
    assert!(e.message().contains("HEADER_VERSION"), "{}", e.message());
    untouched(&w, &t);
    image[at] |= 0x10; // 1: a pitch colour-key header, legal but not modeled
    let (st, e, w, t) = run_flat(&flat_memory(&image, BASE), hp, sp, INSN);
    assert_eq!(st, TLD4_ERR_WARP_FAULT, "{}", e.message());
    assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_NOT_MODELED);
    assert!(tld4_fault_is_not_modeled(e.fault as i32));
    assert_eq!(e.lane, 0);
    untouched(&w, &t);
    unsafe { tld4_pool_free(pool) };
}

#[test]
fn bad_arguments_are_named() {
    let (pool, image, hp, sp) = fixture();
    let (st, e, ..) = run_flat(null(), hp, sp, INSN);
    assert_eq!(
        (st, e.message().as_str()),
        (TLD4_ERR_NULL_POINTER, "memory is NULL")
    );
    let mut m = flat_memory(&image, BASE);
    m.kind = 0;
    let (st, e, ..) = run_flat(&m, hp, sp, INSN);
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(
        e.message().starts_with("memory.kind = 0"),
        "{}",
        e.message()
    );
    m.kind = tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32;
    let (st, e, ..) = run_flat(&m, hp, sp, INSN);
    assert_eq!(
        (st, e.message().as_str()),
        (TLD4_ERR_NULL_POINTER, "memory.read is NULL")
    );
    let mut m = flat_memory(&image, BASE);
    m.bytes = null();
    let (st, e, ..) = run_flat(&m, hp, sp, INSN);
    assert_eq!(
        (st, e.message().as_str()),
        (TLD4_ERR_NULL_POINTER, "memory.bytes is NULL")
    );
    let mut m = flat_memory(&image, BASE);
    m.base = u64::MAX - 4;
    let (st, e, ..) = run_flat(&m, hp, sp, INSN);
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{}", e.message());
    // An illegal encoding faults before any read.
    let (st, e, w, t) = run_flat(
        &flat_memory(&image, BASE),
        hp,
        sp,
        "TLD4.G.INVALID3 R10, R8, R20, R24, UR4, 2D ;",
    );
    assert_eq!(st, TLD4_ERR_WARP_FAULT);
    assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_ILLEGAL_ENCODING);
    untouched(&w, &t);
    // A NULL register callback.
    let exec = exec_of(INSN);
    let mut w = Warp::new(handle(0, 0));
    let mut rf = regfile(&mut w);
    rf.set_reg = None;
    let mut e = tld4_error::new();
    let mem = flat_memory(&image, BASE);
    let st = unsafe {
        tld4_exec_run_callbacks_memory(exec, &mem, hp, sp, &rf, null_mut(), null_mut(), &mut e)
    };
    assert_eq!(
        (st, e.message().as_str()),
        (TLD4_ERR_NULL_POINTER, "regfile.set_reg is NULL")
    );
    let st = unsafe {
        tld4_exec_run_callbacks_memory(null(), &mem, hp, sp, &rf, null_mut(), null_mut(), &mut e)
    };
    assert_eq!(
        (st, e.message().as_str()),
        (TLD4_ERR_NULL_POINTER, "exec is NULL")
    );
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn pool_images_refuse_bad_layouts_and_missing_slots() {
    let (pool, ..) = fixture();
    let image = |entry: tld4_image_entry, base: u64| {
        let (mut n, mut hp, mut sp) = (0usize, 0u64, 0u64);
        let mut e = tld4_error::new();
        let st = unsafe {
            tld4_pool_image(
                pool,
                &entry,
                1,
                base,
                null_mut(),
                0,
                &mut n,
                &mut hp,
                &mut sp,
                &mut e,
            )
        };
        (st, e.message())
    };
    let good = tld4_image_entry {
        texture: 3,
        sampler: 1,
        layout: tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR as u32,
        layout_param: 0,
    };
    assert_eq!(image(good, BASE).0, TLD4_ERR_BUFFER_TOO_SMALL);
    let (st, m) = image(good, BASE + 32);
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert_eq!(m, "base = 0x100020: not a multiple of 512");
    let (st, m) = image(tld4_image_entry { layout: 2, ..good }, BASE);
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(m.starts_with("entries[0].layout = 2"), "{m}");
    let (st, m) = image(
        tld4_image_entry {
            layout_param: 6,
            ..good
        },
        BASE,
    );
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(m.starts_with("entries[0].layout_param = 6"), "{m}");
    let (st, m) = image(tld4_image_entry { texture: 0, ..good }, BASE);
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(m.starts_with("entries[0].texture"), "{m}");
    let pitch = tld4_image_entry {
        layout: tld4_layout::TLD4_LAYOUT_PITCH as u32,
        layout_param: 48,
        ..good
    };
    // tld4-textures cannot express a row alignment off 32 bytes: not modeled.
    let (st, m) = image(pitch, BASE);
    assert_eq!(st, TLD4_ERR_NOT_MODELED, "{m}");
    assert!(m.contains("row alignment"), "{m}");
    unsafe { tld4_pool_free(pool) };
}
