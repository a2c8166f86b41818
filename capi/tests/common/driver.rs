//! A C driver's memory image made with the encoders alone (texels by `tld4_texels_write`,
//! pools of encoded headers and samplers), and one warp of `TLD4.B R10, R8, R20, UR4, 2D`
//! gathering from it or from an owned pool: shared by the descriptor, descriptor-extra and
//! unnormalized-coordinate tests.

use std::ptr::null_mut;

use tld4_capi::*;
use tld4_status::*;

use super::{exec_of, flat_memory, warp32, Texture};

/// Where a driver image starts in GPU memory.
pub const IMAGE_BASE: u64 = 0x8000_0000;
/// Its texture-header pool.
pub const HEADER_POOL: u64 = IMAGE_BASE + 0x200;
/// Its sampler pool.
pub const SAMPLER_POOL: u64 = IMAGE_BASE + 0x100;
/// Its texels.
pub const TEXELS_AT: u64 = IMAGE_BASE + 0x1000;

/// `t`'s texels laid out as `layout` with `param` at GPU address `address`
/// (`tld4_texels_write`, asked for the extent first), and the header describing them.
pub fn texels_at(
    t: &Texture,
    layout: tld4_layout,
    param: u32,
    address: u64,
) -> (Vec<u8>, tld4_tic_desc) {
    let d = t.desc();
    let (f, n) = (t.fields.as_ptr(), t.fields.len());
    let mut e = tld4_error::new();
    let mut needed = 0usize;
    let mut hdr = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
    let (lay, none) = (layout as u32, null_mut());
    let st = unsafe {
        tld4_texels_write(
            &d,
            f,
            n,
            lay,
            param,
            address,
            none,
            0,
            &mut needed,
            none.cast(),
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_BUFFER_TOO_SMALL, "{}", e.message());
    let mut bytes = vec![0u8; needed];
    let (dst, cap) = (bytes.as_mut_ptr(), bytes.len());
    let st = unsafe {
        tld4_texels_write(
            &d,
            f,
            n,
            lay,
            param,
            address,
            dst,
            cap,
            &mut needed,
            &mut hdr,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(needed, bytes.len());
    (bytes, hdr)
}

/// The header words of `d` (`tld4_tic_encode`), or its error.
pub fn tic_words(d: &tld4_tic_desc) -> Result<[u32; 8], Box<tld4_error>> {
    let mut w = [0u32; 8];
    let mut e = tld4_error::new();
    match unsafe { tld4_tic_encode(d, w.as_mut_ptr(), &mut e) } {
        TLD4_OK => Ok(w),
        _ => Err(Box::new(e)),
    }
}

/// The sampler entry of `s`, through `tld4_sampler_to_tsc` and `tld4_tsc_encode`.
pub fn tsc_of(s: &tld4_sampler_desc) -> (tld4_tsc_desc, [u32; 8]) {
    let mut t = unsafe { std::mem::zeroed::<tld4_tsc_desc>() };
    let mut w = [0u32; 8];
    let mut e = tld4_error::new();
    unsafe {
        assert_eq!(tld4_sampler_to_tsc(s, &mut t, &mut e), TLD4_OK);
        assert_eq!(tld4_tsc_encode(&t, w.as_mut_ptr(), &mut e), TLD4_OK);
    }
    (t, w)
}

/// A driver image from `IMAGE_BASE`: `texels` at `TEXELS_AT`, each (index, words) of
/// `headers` at `HEADER_POOL + 32 index` and of `samplers` at `SAMPLER_POOL + 32 index`,
/// every other byte zero.
pub fn driver_image(
    texels: &[u8],
    headers: &[(u32, [u32; 8])],
    samplers: &[(u32, [u32; 8])],
) -> Vec<u8> {
    let mut image = vec![0u8; (TEXELS_AT - IMAGE_BASE) as usize + texels.len()];
    image[(TEXELS_AT - IMAGE_BASE) as usize..].copy_from_slice(texels);
    let entries = headers
        .iter()
        .map(|&(i, w)| (HEADER_POOL + 32 * i as u64, w))
        .chain(
            samplers
                .iter()
                .map(|&(i, w)| (SAMPLER_POOL + 32 * i as u64, w)),
        );
    for (at, w) in entries {
        let o = (at - IMAGE_BASE) as usize;
        for (k, x) in w.iter().enumerate() {
            image[o + 4 * k..o + 4 * k + 4].copy_from_slice(&x.to_le_bytes());
        }
    }
    image
}

/// What a warp gathers from.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    /// An owned pool.
    Owned(*const tld4_pool),
    /// A driver image (`driver_image`).
    Image(&'a [u8]),
}

/// Runs `TLD4.B R10, R8, R20, UR4, 2D` on one warp whose lane l gathers at `coords[l]`
/// (R20, R21) with handle `handle` in UR4, every other register 0xdeadbeef; returns the four
/// result registers R8..R11 of each lane.
pub fn gather_warp(source: Source, handle: u32, coords: &[[f32; 2]; 32]) -> [[u32; 4]; 32] {
    gather_warp_of("TLD4.B R10, R8, R20, UR4, 2D ;", source, handle, coords)
}

/// As `gather_warp`, for the instruction `text` (Ra R20, handle UR4, results from R8).
pub fn gather_warp_of(
    text: &str,
    source: Source,
    handle: u32,
    coords: &[[f32; 2]; 32],
) -> [[u32; 4]; 32] {
    let exec = exec_of(text);
    let mut regs = vec![0xdead_beefu32; 32 * 32];
    for (l, c) in coords.iter().enumerate() {
        regs[20 * 32 + l] = c[0].to_bits();
        regs[21 * 32 + l] = c[1].to_bits();
    }
    let uregs = [0, 0, 0, 0, handle, 0, 0, 0];
    let mut preds = [0u32; 7];
    let warp = warp32(&mut regs, &mut preds, &uregs, u32::MAX);
    let mut e = tld4_error::new();
    let st = match source {
        Source::Owned(pool) => unsafe { tld4_exec_run_flat(exec, pool, &warp, null_mut(), &mut e) },
        Source::Image(bytes) => {
            let m = flat_memory(bytes, IMAGE_BASE);
            let (hp, sp) = (HEADER_POOL, SAMPLER_POOL);
            unsafe {
                tld4_exec_run_flat_memory(exec, &m, hp, sp, &warp, null_mut(), null_mut(), &mut e)
            }
        }
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    unsafe { tld4_exec_free(exec) };
    std::array::from_fn(|l| std::array::from_fn(|k| regs[(8 + k) * 32 + l]))
}
