//! Helpers shared by the C ABI's integration tests: instructions, an owned pool and its
//! memory image, handles, flat and callback memory. (Each test file uses a part of them.)
#![allow(dead_code)]

use std::ffi::{c_int, c_void, CString};
use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_status::*;

mod driver;
pub use driver::*;

pub fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

pub fn insn_of(text: &str) -> *mut tld4_insn {
    let t = cstr(text);
    let mut insn = null_mut();
    let mut e = tld4_error::new();
    assert_eq!(
        unsafe { tld4_parse(t.as_ptr(), &mut insn, &mut e) },
        TLD4_OK,
        "{}",
        e.message()
    );
    insn
}

pub fn exec_of(text: &str) -> *mut tld4_exec {
    let insn = insn_of(text);
    let mut exec = null_mut();
    let mut e = tld4_error::new();
    assert_eq!(
        unsafe { tld4_exec_new(insn, null(), &mut exec, &mut e) },
        TLD4_OK
    );
    unsafe { tld4_insn_free(insn) };
    exec
}

/// A 2D RGBA8 UNORM texture as the tests describe it: its size and its raw field values
/// (layer-major, rows, texels, R G B A), with the format name kept alive for descriptions.
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub fields: Vec<u32>,
    format: CString,
}

impl Texture {
    /// `width` x `height` texels, texel (x, y) = `texel(x, y)`.
    pub fn rgba8(width: u32, height: u32, texel: impl Fn(u32, u32) -> [u32; 4]) -> Self {
        Texture {
            width,
            height,
            fields: (0..width * height)
                .flat_map(|i| texel(i % width, i / width))
                .collect(),
            format: cstr("rgba8_unorm"),
        }
    }

    /// A 2D texture of `format` (a `tld4_format_name`), `width` x `height`, its raw
    /// field values `fields`.
    pub fn of(format: &str, width: u32, height: u32, fields: Vec<u32>) -> Self {
        Texture {
            width,
            height,
            fields,
            format: cstr(format),
        }
    }

    /// Its description (borrowing the format name).
    pub fn desc(&self) -> tld4_texture_desc {
        tld4_texture_desc {
            kind: tld4_texture_kind::TLD4_KIND_2D as u32,
            format: self.format.as_ptr(),
            width: self.width,
            height: self.height,
            layers: 1,
        }
    }
}

/// A new owned pool with `tex` at texture header `header` and the default sampler with
/// Vulkan address modes `address` (u, v) at sampler `sampler`.
pub fn owned_pool(tex: &Texture, header: u32, sampler: u32, address: [u32; 2]) -> *mut tld4_pool {
    let mut pool = null_mut();
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    let mut e = tld4_error::new();
    let d = tex.desc();
    unsafe {
        assert_eq!(tld4_pool_new(&mut pool, &mut e), TLD4_OK);
        let (f, n) = (tex.fields.as_ptr(), tex.fields.len());
        let st = tld4_pool_set_texture(pool, header, &d, f, n, &mut e);
        assert_eq!(st, TLD4_OK, "{}", e.message());
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        [s.address_u, s.address_v] = address;
        assert_eq!(tld4_pool_set_sampler(pool, sampler, &s, &mut e), TLD4_OK);
    }
    pool
}

/// A pool image: its bytes from `base`, and the pools' addresses.
pub struct PoolImage {
    pub bytes: Vec<u8>,
    pub header_pool: u64,
    pub sampler_pool: u64,
}

/// `tld4_pool_image` of one entry at `base`, asked its size first (cap 0) as a caller would.
pub fn pool_image(pool: *const tld4_pool, entry: tld4_image_entry, base: u64) -> PoolImage {
    let (mut needed, mut hp, mut sp) = (0usize, 0u64, 0u64);
    let mut e = tld4_error::new();
    let st = unsafe {
        let n = &mut needed;
        tld4_pool_image(
            pool,
            &entry,
            1,
            base,
            null_mut(),
            0,
            n,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_BUFFER_TOO_SMALL, "{}", e.message());
    let mut bytes = vec![0u8; needed];
    let st = unsafe {
        let (b, n) = (bytes.as_mut_ptr(), bytes.len());
        tld4_pool_image(
            pool,
            &entry,
            1,
            base,
            b,
            n,
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(needed, bytes.len());
    PoolImage {
        bytes,
        header_pool: hp,
        sampler_pool: sp,
    }
}

/// The handle naming texture header `t` and sampler `s`.
pub fn handle(t: u32, s: u32) -> u32 {
    let mut h = 0;
    unsafe { assert_eq!(tld4_handle(t, s, &mut h, null_mut()), TLD4_OK) };
    h
}

/// `bytes` as flat GPU memory from `base`.
pub fn flat_memory(bytes: &[u8], base: u64) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
        base,
        bytes: bytes.as_ptr(),
        len: bytes.len(),
        user: null_mut(),
        read: None,
    }
}

/// A callback memory's state: `bytes` from `base`; reads outside return 1, reads reaching
/// past `fail_from` return 7.
pub struct CallbackImage<'a> {
    pub base: u64,
    pub bytes: &'a [u8],
    pub fail_from: u64,
}

/// The read callback over a [`CallbackImage`].
pub unsafe extern "C" fn read_image(
    user: *mut c_void,
    addr: u64,
    dst: *mut u8,
    len: usize,
) -> c_int {
    let img = unsafe { &*(user as *const CallbackImage) };
    let end = addr as u128 + len as u128;
    if addr < img.base || end > img.base as u128 + img.bytes.len() as u128 {
        return 1;
    }
    if end > img.fail_from as u128 {
        return 7;
    }
    let at = (addr - img.base) as usize;
    unsafe { std::ptr::copy_nonoverlapping(img.bytes[at..].as_ptr(), dst, len) };
    0
}

/// `img` as callback memory.
pub fn callback_memory(img: &CallbackImage) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32,
        base: 0,
        bytes: null(),
        len: 0,
        user: img as *const CallbackImage as *mut c_void,
        read: Some(read_image),
    }
}

/// A lane record of a lane that read nothing.
pub const NO_TEXELS: tld4_lane_texels = tld4_lane_texels {
    texels: [tld4_texel_address {
        kind: tld4_texel_kind::TLD4_TEXEL_NONE,
        bytes: 0,
        address: 0,
    }; 4],
    sectors: [0; 4],
    num_sectors: 0,
    reserved: 0,
};

/// A flat warp of 32 registers register-major (`regs[r * 32 + lane]`), over the caller's
/// registers, predicates and uniform registers.
pub fn warp32(
    regs: &mut [u32],
    preds: &mut [u32; 7],
    uregs: &[u32],
    active: u32,
) -> tld4_warp_flat {
    assert!(regs.len() >= 32 * 32);
    tld4_warp_flat {
        regs: regs.as_mut_ptr(),
        num_regs: 32,
        reg_stride: 32,
        lane_stride: 1,
        preds: preds.as_mut_ptr(),
        uregs: uregs.as_ptr(),
        num_uregs: uregs.len() as u32,
        active_mask: active,
    }
}

/// An image entry: owned `texture` and `sampler`, laid out as `layout` with `param`.
pub fn image_entry(
    texture: u32,
    sampler: u32,
    layout: tld4_layout,
    param: u32,
) -> tld4_image_entry {
    tld4_image_entry {
        texture,
        sampler,
        layout: layout as u32,
        layout_param: param,
    }
}
