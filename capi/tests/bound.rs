//! Binding from C: `tld4_exec_bind` / `tld4_exec_bind_memory` and the bound runs give, warp
//! after warp, exactly what the one-shot calls give (registers, predicates, reports, texel
//! records), over owned pools and flat and callback memory; a batch stops at the first
//! failing warp and says which.

use crate::common;

use std::ptr::{null, null_mut};

use common::{
    callback_memory, exec_of, flat_memory, handle, image_entry, owned_pool, pool_image, warp32,
    CallbackImage, Texture, NO_TEXELS,
};
use tld4_capi::*;
use tld4_status::*;

const W: u32 = 8;
const H: u32 = 4;
const BASE: u64 = 0x10_0000;

/// An owned pool (header 2, sampler 1: an RGBA8 8 x 4 texture, u repeated, v clamped to
/// edge) and its flat image (entry 0, block-linear, two GOBs a block):
/// (pool, image, header pool, sampler pool).
fn fixture() -> (*mut tld4_pool, Vec<u8>, u64, u64) {
    let tex = Texture::rgba8(W, H, |x, y| [30 * x, 60 * y, y * W + x, 255]);
    let pool = owned_pool(&tex, 2, 1, [0, 2]);
    let entry = image_entry(2, 1, tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR, 1);
    let img = pool_image(pool, entry, BASE);
    (pool, img.bytes, img.header_pool, img.sampler_pool)
}

/// Warp `k`'s registers (register-major, 32 registers), coordinates moving with `k`.
fn regs(k: u32) -> Vec<u32> {
    (0..32 * 32)
        .map(|i| {
            let (r, lane) = (i / 32, (i % 32) as u32);
            match r {
                20 => ((lane * 7 + k) as f32 / 13.0).to_bits(),
                21 => ((lane * 3 + 5 * k) as f32 / 11.0).to_bits(),
                _ => 0xdead_beef,
            }
        })
        .collect()
}

struct Warp {
    regs: Vec<u32>,
    preds: [u32; 7],
    uregs: [u32; 8],
    active: u32,
}

impl Warp {
    fn new(k: u32, handle: u32) -> Self {
        let mut uregs = [0; 8];
        uregs[4] = handle;
        Warp {
            regs: regs(k),
            preds: [0; 7],
            uregs,
            active: 0xffff_ffff >> (k % 5),
        }
    }
    fn flat(&mut self) -> tld4_warp_flat {
        warp32(&mut self.regs, &mut self.preds, &self.uregs, self.active)
    }
}

#[test]
fn bound_runs_equal_one_shot_runs_warp_after_warp() {
    let (pool, image, hp, sp) = fixture();
    let exec = exec_of("TLD4.G R10, R8, R20, UR4, 2D ;");
    let owned_h = handle(2, 1);
    let mem_h = handle(0, 0);
    let image_cb = CallbackImage {
        base: BASE,
        bytes: &image,
        fail_from: u64::MAX,
    };
    let cb = callback_memory(&image_cb);
    let flat = flat_memory(&image, BASE);
    let mut e = tld4_error::new();
    let (mut owned, mut in_flat, mut in_cb) = (null_mut(), null_mut(), null_mut());
    unsafe {
        assert_eq!(tld4_exec_bind(exec, pool, &mut owned, &mut e), TLD4_OK);
        assert_eq!(
            tld4_exec_bind_memory(exec, &flat, hp, sp, &mut in_flat, &mut e),
            TLD4_OK
        );
        assert_eq!(
            tld4_exec_bind_memory(exec, &cb, hp, sp, &mut in_cb, &mut e),
            TLD4_OK
        );
    }
    for k in 0..12 {
        // one-shot references
        let mut w_owned = Warp::new(k, owned_h);
        let mut r_owned = tld4_exec_report::default();
        let f = w_owned.flat();
        unsafe {
            assert_eq!(
                tld4_exec_run_flat(exec, pool, &f, &mut r_owned, &mut e),
                TLD4_OK,
                "{}",
                e.message()
            )
        };
        let mut w_mem = Warp::new(k, mem_h);
        let mut t_mem = [NO_TEXELS; 32];
        let mut r_mem = tld4_exec_report::default();
        let f = w_mem.flat();
        unsafe {
            assert_eq!(
                tld4_exec_run_flat_memory(
                    exec,
                    &flat,
                    hp,
                    sp,
                    &f,
                    t_mem.as_mut_ptr(),
                    &mut r_mem,
                    &mut e
                ),
                TLD4_OK
            )
        };
        assert_eq!(w_owned.regs, w_mem.regs, "warp {k}: memory = owned");
        assert_ne!(w_owned.regs, regs(k));
        // bound runs
        for (b, h, texels_expected) in [
            (owned, owned_h, [NO_TEXELS; 32]),
            (in_flat, mem_h, t_mem),
            (in_cb, mem_h, t_mem),
        ] {
            let mut w = Warp::new(k, h);
            let mut t = [NO_TEXELS; 32];
            t[3].num_sectors = 9; // stale content is overwritten
            let mut r = tld4_exec_report::default();
            let f = w.flat();
            unsafe {
                assert_eq!(
                    tld4_bound_run_flat(b, &f, t.as_mut_ptr(), &mut r, &mut e),
                    TLD4_OK,
                    "{}",
                    e.message()
                )
            };
            assert_eq!(w.regs, w_owned.regs, "warp {k}");
            assert_eq!(r, r_owned);
            assert_eq!(t, texels_expected);
        }
    }
    unsafe {
        tld4_bound_free(owned);
        tld4_bound_free(in_flat);
        tld4_bound_free(in_cb);
        tld4_bound_free(null_mut());
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn a_batch_runs_in_order_and_stops_at_the_first_failing_warp() {
    let (pool, image, hp, sp) = fixture();
    let exec = exec_of("TLD4.R R10, R8, R20, UR4, 2D ;");
    let flat = flat_memory(&image, BASE);
    let mut e = tld4_error::new();
    let mut b = null_mut();
    unsafe {
        assert_eq!(
            tld4_exec_bind_memory(exec, &flat, hp, sp, &mut b, &mut e),
            TLD4_OK
        )
    };
    let good = handle(0, 0);
    // Warp 5 names header 7: past the image's pool, unmapped.
    let mut warps: Vec<Warp> = (0..8)
        .map(|k| Warp::new(k, if k == 5 { handle(7, 0) } else { good }))
        .collect();
    let mut flats: Vec<tld4_warp_flat> = warps.iter_mut().map(Warp::flat).collect();
    let mut reports = vec![tld4_exec_report::default(); 8];
    let mut texels = vec![NO_TEXELS; 8 * 32];
    let mut done = 99usize;
    let st = unsafe {
        tld4_bound_run_flat_batch(
            b,
            flats.as_mut_ptr(),
            flats.len(),
            texels.as_mut_ptr(),
            reports.as_mut_ptr(),
            &mut done,
            &mut e,
        )
    };
    assert_ne!(st, TLD4_OK);
    assert_eq!(done, 5, "{}", e.message());
    assert_eq!(warps[5].regs, regs(5), "the failed warp is untouched");
    assert_eq!(warps[6].regs, regs(6), "warps after it do not run");
    for k in 0..5 {
        assert_eq!(reports[k].executed, warps[k].active);
        assert_ne!(warps[k].regs, regs(k as u32));
        // each warp's records: executed lanes read memory
        assert_eq!(
            texels[32 * k].texels[0].kind,
            tld4_texel_kind::TLD4_TEXEL_MEMORY
        );
    }
    // The same warps one by one through the bound object agree.
    let mut again = Warp::new(3, good);
    let f = again.flat();
    unsafe {
        assert_eq!(
            tld4_bound_run_flat(b, &f, null_mut(), null_mut(), &mut e),
            TLD4_OK
        )
    };
    assert_eq!(again.regs, warps[3].regs);
    // NULL arguments
    unsafe {
        assert_eq!(
            tld4_bound_run_flat_batch(
                null_mut(),
                flats.as_mut_ptr(),
                1,
                null_mut(),
                null_mut(),
                &mut done,
                &mut e
            ),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(done, 0);
        assert_eq!(
            tld4_exec_bind(exec, null(), &mut b, &mut e),
            TLD4_ERR_NULL_POINTER
        );
        tld4_bound_free(b);
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}
