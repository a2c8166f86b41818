//! A warp's texel records merged into its distinct 32-byte sectors (`tld4_warp_sectors`),
//! and lanes that did not execute recorded as reading nothing (never a stale record).

use crate::common;

use std::ptr::null_mut;

use common::{
    exec_of, flat_memory, handle, image_entry, owned_pool, pool_image, warp32, Texture, NO_TEXELS,
};
use tld4_capi::*;
use tld4_status::*;

const BASE: u64 = 0x20_0000;

fn texel(kind: tld4_texel_kind, address: u64) -> tld4_texel_address {
    let bytes = if kind == tld4_texel_kind::TLD4_TEXEL_MEMORY {
        4
    } else {
        0
    };
    tld4_texel_address {
        kind,
        bytes,
        address,
    }
}

fn sectors(texels: &[tld4_lane_texels; 32]) -> (tld4_status, Vec<tld4_warp_sector>) {
    let mut out = [tld4_warp_sector {
        address: 0,
        lanes: 0,
        texels: 0,
    }; TLD4_MAX_WARP_SECTORS];
    let mut n = 0usize;
    let mut e = tld4_error::new();
    let st =
        unsafe { tld4_warp_sectors(texels.as_ptr(), out.as_mut_ptr(), out.len(), &mut n, &mut e) };
    (st, out[..n].to_vec())
}

#[test]
fn records_merge_into_distinct_sectors_in_first_use_order() {
    use tld4_texel_kind::*;
    let mut t = [NO_TEXELS; 32];
    // lane 0: three texels in sector 0x1000, one border; lane 3: 0x1000 and 0x1020;
    // lane 31: 0x103c (sector 0x1020) and a cube corner.
    t[0].texels = [
        texel(TLD4_TEXEL_MEMORY, 0x1004),
        texel(TLD4_TEXEL_MEMORY, 0x1008),
        texel(TLD4_TEXEL_BORDER, 0),
        texel(TLD4_TEXEL_MEMORY, 0x101c),
    ];
    t[3].texels[1] = texel(TLD4_TEXEL_MEMORY, 0x1020);
    t[3].texels[2] = texel(TLD4_TEXEL_MEMORY, 0x1000);
    t[31].texels[0] = texel(TLD4_TEXEL_MEMORY, 0x103c);
    t[31].texels[3] = texel(TLD4_TEXEL_CORNER, 0);
    let (st, s) = sectors(&t);
    assert_eq!(st, TLD4_OK);
    let want = [(0x1000, 1 | 1 << 3, 4), (0x1020, 1 << 3 | 1 << 31, 2)];
    let got: Vec<(u64, u32, u32)> = s.iter().map(|s| (s.address, s.lanes, s.texels)).collect();
    assert_eq!(got, want);
    // no room: the count, nothing written
    let mut n = 0usize;
    let mut e = tld4_error::new();
    let st = unsafe { tld4_warp_sectors(t.as_ptr(), null_mut(), 1, &mut n, &mut e) };
    assert_eq!((st, n), (TLD4_ERR_BUFFER_TOO_SMALL, 2), "{}", e.message());
    let st = unsafe { tld4_warp_sectors(std::ptr::null(), null_mut(), 0, &mut n, &mut e) };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert_eq!(e.message(), "texels is NULL");
}

#[test]
fn lanes_that_do_not_execute_record_nothing_and_sectors_count_the_rest() {
    // RGBA8 16 x 8 pitch rows of 64 bytes, clamp to edge; lanes 0-15 active.
    let tex = Texture::rgba8(16, 8, |x, y| [x, y, 0, 255]);
    let pool = owned_pool(&tex, 0, 0, [2, 2]);
    let img = pool_image(
        pool,
        image_entry(0, 0, tld4_layout::TLD4_LAYOUT_PITCH, 64),
        BASE,
    );
    let mem = flat_memory(&img.bytes, BASE);
    // Rd R10, Rd2 R8, Ra R20
    let exec = exec_of("TLD4.R R10, R8, R20, UR4, 2D ;");
    // lane l samples the centre of the 2 x 2 square at texel (l, 3) .. (l + 1, 4): exactly
    // texels x = l, l + 1, y = 3, 4
    let mut regs = vec![0u32; 32 * 32];
    for l in 0..32 {
        regs[20 * 32 + l] = ((l as f32 + 1.0) / 16.0).to_bits();
        regs[21 * 32 + l] = (4.0f32 / 8.0).to_bits();
    }
    let mut preds = [0u32; 7];
    let uregs = [0, 0, 0, 0, handle(0, 0), 0, 0, 0];
    let warp = warp32(&mut regs, &mut preds, &uregs, 0xffff);
    // a record array left from an earlier warp: every lane says it read 0x4242
    let mut stale = NO_TEXELS;
    stale.texels[0] = texel(tld4_texel_kind::TLD4_TEXEL_MEMORY, 0x4242);
    stale.sectors[0] = 0x4240;
    stale.num_sectors = 1;
    let mut e = tld4_error::new();
    let mut bound = null_mut();
    unsafe {
        let (hp, sp) = (img.header_pool, img.sampler_pool);
        assert_eq!(
            tld4_exec_bind_memory(exec, &mem, hp, sp, &mut bound, &mut e),
            TLD4_OK
        );
    }
    for one_shot in [true, false] {
        let mut t = [stale; 32];
        let st = unsafe {
            if one_shot {
                let (hp, sp) = (img.header_pool, img.sampler_pool);
                tld4_exec_run_flat_memory(
                    exec,
                    &mem,
                    hp,
                    sp,
                    &warp,
                    t.as_mut_ptr(),
                    null_mut(),
                    &mut e,
                )
            } else {
                tld4_bound_run_flat(bound, &warp, t.as_mut_ptr(), null_mut(), &mut e)
            }
        };
        assert_eq!(st, TLD4_OK, "{}", e.message());
        for (l, rec) in t.iter().enumerate() {
            if l >= 16 {
                assert_eq!(*rec, NO_TEXELS, "lane {l}");
                continue;
            }
            // texels (x, y): rows of 64 bytes from the texels' start, 4 bytes a texel
            let texels = BASE + 4096; // tld4_pool_image: texels at the next 4 KiB
            let at = |x: u64, y: u64| texels + 64 * y + 4 * x;
            let l = l as u64;
            let r = (l + 1).min(15); // clamp to edge at x = 16
            let want = [at(l, 4), at(r, 4), at(r, 3), at(l, 3)];
            let got = rec.texels.map(|t| t.address);
            assert_eq!(got, want, "lane {l}");
        }
        // 16 lanes x 2 rows: x 0..=15 spans 64 bytes a row, sectors of 32: 2 a row
        let (st, s) = sectors(&t);
        assert_eq!(st, TLD4_OK);
        let mut addrs: Vec<u64> = s.iter().map(|s| s.address).collect();
        addrs.sort();
        let row = |y: u64| BASE + 4096 + 64 * y;
        assert_eq!(addrs, [row(3), row(3) + 32, row(4), row(4) + 32]);
        assert_eq!(s.iter().map(|s| s.texels).sum::<u32>(), 64);
        assert!(s.iter().all(|s| s.lanes & !0xffff == 0));
    }
    unsafe {
        tld4_bound_free(bound);
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}
