//! Shared by capi/tests/arch.rs and capi/tests/arch_exec.rs: golden words of several
//! architectures, an owned pool and its memory image, a flat warp and a callback register
//! file over it, through the C ABI.
#![allow(dead_code)]

use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_emu::Handle;

use tld4_status::*;

/// nvdisasm's SM80-family listing of this word (tests/golden/nvdisasm_arch_sm_80.tsv):
/// `TLD4.G.AOFFI R10, R8, R28, R24, 0x3, 0x3f04, 2D ;`, the constant-bank form 0xb63.
pub const B63: &str = "00000000009e1f0a20ff04181c087b63";
/// nvdisasm's SM100 listing of this word (tests/golden/nvdisasm_arch_sm_100.tsv):
/// `TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;`, the same fields with the handle in UR4.
pub const F63: &str = "00000000089e1f0a20ff04181c087f63";

/// nvdisasm's SM120-family listing of this word (tests/golden/nvdisasm_arch_sm_120.tsv):
/// `TLD4.G.AOFFI R10, R8, R28, R24, UR4, UR251, 2D ;`, with a second uniform register.
pub const SM120: &str = "00000000089e1f0a20fb04181c087f63";

pub const HEADER: u32 = 3;
pub const SAMPLER: u32 = 1;
pub const W: u32 = 8;
pub const H: u32 = 4;
pub const BASE: u64 = 0x10_0000;
pub const REGS: usize = 32;

pub fn word(hex: &str) -> tld4_word {
    tld4_word::of(u128::from_str_radix(hex, 16).unwrap())
}

pub fn arch(name: &str) -> u32 {
    let c = CString::new(name).unwrap();
    let mut a = 0u32;
    let mut e = tld4_error::new();
    let st = unsafe { tld4_arch_from_name(c.as_ptr(), &mut a, &mut e) };
    assert_eq!(st, TLD4_OK, "{name}: {}", e.message());
    a
}

pub fn handle() -> u32 {
    Handle::new(HEADER, SAMPLER).unwrap().0
}

/// The owned pool (texture header 3: RGBA8 UNORM 8x4, sampler 1: clamp to edge).
pub fn pool() -> *mut tld4_pool {
    let mut e = tld4_error::new();
    let mut pool = null_mut();
    let fields: Vec<u32> = (0..W * H)
        .flat_map(|i| [30 * (i % W), 60 * (i / W), i, 255])
        .collect();
    let format = CString::new("rgba8_unorm").unwrap();
    let desc = tld4_texture_desc {
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: format.as_ptr(),
        width: W,
        height: H,
        layers: 1,
    };
    unsafe {
        assert_eq!(tld4_pool_new(&mut pool, &mut e), TLD4_OK);
        let st = tld4_pool_set_texture(pool, HEADER, &desc, fields.as_ptr(), fields.len(), &mut e);
        assert_eq!(st, TLD4_OK, "{}", e.message());
        let mut s = std::mem::zeroed::<tld4_sampler_desc>();
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        s.address_u = 2;
        s.address_v = 2;
        assert_eq!(tld4_pool_set_sampler(pool, SAMPLER, &s, &mut e), TLD4_OK);
    }
    pool
}

/// The pool laid out as GPU memory (V2 headers): (image, header pool, sampler pool).
pub fn image(pool: *const tld4_pool) -> (Vec<u8>, u64, u64) {
    let entry = tld4_image_entry {
        texture: HEADER,
        sampler: SAMPLER,
        layout: tld4_layout::TLD4_LAYOUT_PITCH as u32,
        layout_param: 64,
    };
    let (mut needed, mut hp, mut sp) = (0usize, 0u64, 0u64);
    let mut e = tld4_error::new();
    let st = unsafe {
        tld4_pool_image(
            pool,
            &entry,
            1,
            BASE,
            null_mut(),
            0,
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_BUFFER_TOO_SMALL);
    let mut bytes = vec![0u8; needed];
    let st = unsafe {
        tld4_pool_image(
            pool,
            &entry,
            1,
            BASE,
            bytes.as_mut_ptr(),
            bytes.len(),
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    (bytes, hp, sp)
}

/// A warp's registers, register-major: coordinates in [0, 1) in every register (so any
/// operand layout reads plausible ones), a distinct value per lane.
pub fn registers() -> Vec<u32> {
    (0..REGS * 32)
        .map(|i| (((i * 37) % 101) as f32 / 101.0).to_bits())
        .collect()
}

pub struct Warp {
    pub regs: Vec<u32>,
    pub uregs: Vec<u32>,
    pub preds: [u32; 7],
}

impl Warp {
    pub fn new(uregs: Vec<u32>) -> Self {
        Warp {
            regs: registers(),
            uregs,
            preds: [u32::MAX; 7],
        }
    }
    pub fn flat(&mut self) -> tld4_warp_flat {
        tld4_warp_flat {
            regs: self.regs.as_mut_ptr(),
            num_regs: REGS as u32,
            reg_stride: 32,
            lane_stride: 1,
            preds: self.preds.as_mut_ptr(),
            uregs: if self.uregs.is_empty() {
                null()
            } else {
                self.uregs.as_ptr()
            },
            num_uregs: self.uregs.len() as u32,
            active_mask: u32::MAX,
        }
    }
}

pub fn exec_of(arch_name: &str, hex: &str) -> *mut tld4_arch_exec {
    let mut exec = null_mut();
    let mut e = tld4_error::new();
    let st =
        unsafe { tld4_arch_exec_from_word(arch(arch_name), word(hex), null(), &mut exec, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    exec
}

/// SM100's uniform form over the owned pool, the handle in UR4: the reference results.
pub fn sm100_results(pool: *const tld4_pool) -> Vec<u32> {
    let exec = exec_of("sm_100", F63);
    let mut warp = Warp::new(vec![0, 0, 0, 0, handle()]);
    let mut flat = warp.flat();
    let mut e = tld4_error::new();
    let mut report = tld4_exec_report::default();
    let st = unsafe { tld4_arch_exec_run_flat(exec, null(), pool, &mut flat, &mut report, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(report.executed, u32::MAX);
    unsafe { tld4_arch_exec_free(exec) };
    assert_ne!(warp.regs, registers(), "the gather wrote results");
    warp.regs
}

pub fn memory_of(bytes: &[u8]) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
        base: BASE,
        bytes: bytes.as_ptr(),
        len: bytes.len(),
        user: null_mut(),
        read: None,
    }
}

/// The handle of `image`'s entry 0: header 0, sampler 0 (`tld4_image_entry`).
pub fn image_handle() -> u32 {
    Handle::new(0, 0).unwrap().0
}

unsafe extern "C" fn cb_reg(user: *mut c_void, lane: u32, r: u32) -> u32 {
    let w = unsafe { &*user.cast::<Warp>() };
    w.regs[r as usize * 32 + lane as usize]
}
unsafe extern "C" fn cb_set_reg(user: *mut c_void, lane: u32, r: u32, value: u32) {
    let w = unsafe { &mut *user.cast::<Warp>() };
    w.regs[r as usize * 32 + lane as usize] = value;
}
unsafe extern "C" fn cb_pred(user: *mut c_void, lane: u32, p: u32) -> bool {
    let w = unsafe { &*user.cast::<Warp>() };
    w.preds[p as usize] >> lane & 1 != 0
}
unsafe extern "C" fn cb_set_pred(user: *mut c_void, lane: u32, p: u32, value: bool) {
    let w = unsafe { &mut *user.cast::<Warp>() };
    w.preds[p as usize] = w.preds[p as usize] & !(1 << lane) | (value as u32) << lane;
}
unsafe extern "C" fn cb_ureg(user: *mut c_void, u: u32) -> u32 {
    let w = unsafe { &*user.cast::<Warp>() };
    w.uregs.get(u as usize).copied().unwrap_or(0)
}

pub fn regfile(w: &mut Warp) -> tld4_regfile {
    tld4_regfile {
        user: (w as *mut Warp).cast(),
        reg: Some(cb_reg),
        set_reg: Some(cb_set_reg),
        pred: Some(cb_pred),
        set_pred: Some(cb_set_pred),
        ureg: Some(cb_ureg),
        active_mask: u32::MAX,
        regs_per_thread: REGS as u32,
    }
}
