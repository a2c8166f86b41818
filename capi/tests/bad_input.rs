//! Hostile arguments to the C ABI, in a build with overflow checks (the test profile): pools
//! appended past the last index a handle names, strides and register counts whose products
//! overflow, pool images near 2^64, and flat memory holding the last byte of the address
//! space. Each is a typed status, never `TLD4_ERR_PANIC`.

use crate::common;

use std::ptr::{null, null_mut};

use common::{cstr, exec_of, insn_of};
use tld4_capi::*;
use tld4_status::*;

/// A pool with one 2x2 RGBA8 texture at header 0 and the default sampler at sampler 0.
fn small_pool() -> *mut tld4_pool {
    let mut e = tld4_error::new();
    let mut pool = null_mut();
    unsafe { assert_eq!(tld4_pool_new(&mut pool, &mut e), TLD4_OK) };
    let format = cstr("rgba8_unorm");
    let desc = tld4_texture_desc {
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: format.as_ptr(),
        width: 2,
        height: 2,
        layers: 1,
    };
    let fields: Vec<u32> = (0..16).collect();
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    unsafe {
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &desc, fields.as_ptr(), 16, &mut e),
            TLD4_OK
        );
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        assert_eq!(tld4_pool_set_sampler(pool, 0, &s, &mut e), TLD4_OK);
    }
    pool
}

#[test]
fn appending_past_the_last_index_is_refused() {
    let pool = small_pool();
    let mut e = tld4_error::new();
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    let mut index = 77u32;
    unsafe {
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        // samplers 1..=4095 append; the next has no index a handle can hold
        for want in 1..=4095 {
            assert_eq!(tld4_pool_add_sampler(pool, &s, &mut index, &mut e), TLD4_OK);
            assert_eq!(index, want);
        }
        index = 77;
        let st = tld4_pool_add_sampler(pool, &s, &mut index, &mut e);
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{}", e.message());
        assert_eq!(index, 77, "nothing written");
        assert!(
            e.message().contains("sampler index 4096"),
            "{}",
            e.message()
        );
        // a texture at the last header index: the next append is refused
        let format = cstr("rgba8_unorm");
        let desc = tld4_texture_desc {
            kind: tld4_texture_kind::TLD4_KIND_2D as u32,
            format: format.as_ptr(),
            width: 1,
            height: 1,
            layers: 1,
        };
        let texel = [1u32, 2, 3, 4];
        assert_eq!(
            tld4_pool_set_texture(pool, (1 << 20) - 1, &desc, texel.as_ptr(), 4, &mut e),
            TLD4_OK
        );
        let st = tld4_pool_add_texture(pool, &desc, texel.as_ptr(), 4, &mut index, &mut e);
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{}", e.message());
        assert!(
            e.message().contains("texture header index 1048576"),
            "{}",
            e.message()
        );
        assert_eq!(index, 77);
        tld4_pool_free(pool);
    }
}

#[test]
fn strides_and_register_counts_that_overflow_are_refused() {
    let pool = small_pool();
    let exec = exec_of("TLD4.R R10, R8, R20, UR4, 2D ;");
    let mut regs = vec![0u32; 32 * 32];
    let uregs = [0u32; 5];
    let mut e = tld4_error::new();
    let cases: [(u32, usize, usize, &str); 6] = [
        // 32 * lane_stride overflowed here: now the slice is too long for any buffer
        (32, 1, 1 << 59, "warp.regs: 17870283321406128160 elements"),
        (32, 1, usize::MAX, "the strides pass the address space"),
        (32, usize::MAX, 1, "the strides pass the address space"),
        (32, usize::MAX / 16, usize::MAX / 8, "warp.reg_stride"),
        (256, 32, 1, "warp.num_regs = 256"),
        (u32::MAX, 32, 1, "warp.num_regs = 4294967295"),
    ];
    let mut preds = [0u32; 7];
    for (num_regs, reg_stride, lane_stride, why) in cases {
        let flat = tld4_warp_flat {
            regs: regs.as_mut_ptr(),
            num_regs,
            reg_stride,
            lane_stride,
            preds: preds.as_mut_ptr(),
            uregs: uregs.as_ptr(),
            num_uregs: 5,
            active_mask: u32::MAX,
        };
        let st = unsafe { tld4_exec_run_flat(exec, pool, &flat, null_mut(), &mut e) };
        assert_eq!(
            st,
            TLD4_ERR_INVALID_ARGUMENT,
            "{num_regs} {reg_stride} {lane_stride}: {}",
            e.message()
        );
        assert!(e.message().contains(why), "{}", e.message());
    }
    assert!(regs.iter().all(|&r| r == 0));
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

/// `tld4_pool_image` of the small pool at `base`: (status, message, image).
fn image_at(pool: *const tld4_pool, base: u64) -> (tld4_status, String, Vec<u8>, u64, u64) {
    let entry = tld4_image_entry {
        texture: 0,
        sampler: 0,
        layout: tld4_layout::TLD4_LAYOUT_PITCH as u32,
        layout_param: 32,
    };
    let mut e = tld4_error::new();
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
    if st != TLD4_ERR_BUFFER_TOO_SMALL {
        return (st, e.message(), Vec::new(), 0, 0);
    }
    let mut image = vec![0u8; needed];
    let st = unsafe {
        tld4_pool_image(
            pool,
            &entry,
            1,
            base,
            image.as_mut_ptr(),
            needed,
            &mut needed,
            &mut hp,
            &mut sp,
            &mut e,
        )
    };
    (st, e.message(), image, hp, sp)
}

#[test]
fn pool_images_near_the_top_are_refused_not_wrapped() {
    let pool = small_pool();
    for base in [
        0xffff_ffff_ffff_fe00u64,
        u64::MAX - 511,
        0xffff_ffff_ffff_fc00,
    ] {
        let (st, message, ..) = image_at(pool, base);
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{base:#x}: {message}");
        assert!(message.contains(&format!("base = {base:#x}")), "{message}");
        assert!(
            message.contains("passes the end of the address space"),
            "{message}"
        );
    }
    // Lower, the pools fit but the texels lie past what a header's address holds (2^57).
    let (st, message, ..) = image_at(pool, 0xffff_ffff_ffff_0000);
    assert_eq!(st, TLD4_ERR_DESCRIPTOR, "{message}");
    assert!(message.contains("texels must lie below 2^57"), "{message}");
    unsafe { tld4_pool_free(pool) };
}

#[test]
fn flat_memory_may_hold_the_last_byte() {
    let pool = small_pool();
    // The image low, then its header and sampler copied to the very top of the address
    // space: the descriptors are read there, the texels (low) are not mapped.
    let (st, message, image, hp, sp) = image_at(pool, 0x10_0000);
    assert_eq!(st, TLD4_OK, "{message}");
    let mut top = [0u8; 64];
    top[..32].copy_from_slice(&image[(hp - 0x10_0000) as usize..][..32]);
    top[32..].copy_from_slice(&image[(sp - 0x10_0000) as usize..][..32]);
    let memory = tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_FLAT as u32,
        base: u64::MAX - 63,
        bytes: top.as_ptr(),
        len: top.len(),
        user: null_mut(),
        read: None,
    };
    let insn = insn_of("TLD4.R R10, R8, R20, UR4, 2D ;");
    let q = tld4_gather_query {
        coords: [0.5, 0.5, 0.0],
        ..Default::default()
    };
    let mut r = unsafe { std::mem::zeroed::<tld4_gather_result>() };
    let mut e = tld4_error::new();
    let st = unsafe {
        tld4_mem_gather(
            insn,
            &memory,
            u64::MAX - 63,
            u64::MAX - 31,
            0,
            null(),
            &q,
            1,
            &mut r,
            &mut e,
        )
    };
    // the descriptors at the top were read: the failure is the texel read, at its address
    assert_eq!(st, TLD4_ERR_MEMORY, "{}", e.message());
    assert!(e.message().starts_with("queries[0]"), "{}", e.message());
    // one byte more passes 2^64
    let mut past = memory;
    past.base = u64::MAX - 62;
    let st = unsafe {
        tld4_mem_gather(
            insn,
            &past,
            u64::MAX - 62,
            u64::MAX - 30,
            0,
            null(),
            &q,
            1,
            &mut r,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{}", e.message());
    assert!(e.message().contains("passes 2^64"), "{}", e.message());
    unsafe {
        tld4_insn_free(insn);
        tld4_pool_free(pool);
    }
}
