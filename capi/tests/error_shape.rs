//! One error shape: every failure of a warp execution over memory carries its fault kind in
//! `tld4_error::fault`, with what was read (texture header i, sampler j, texel), where, and
//! the typed reason of a "not modeled" in `tld4_error::detail`; an empty or unmapped
//! texture-header slot is `TLD4_FAULT_UNKNOWN_TEXTURE_HEADER`, as in the owned form.

use crate::common;

use std::ffi::CStr;
use std::ptr::null_mut;

use common::{
    cstr, exec_of, flat_memory, handle, image_entry, owned_pool, pool_image, warp32, Texture,
};
use tld4_capi::*;
use tld4_status::*;

const BASE: u64 = 0x40_0000;

/// An owned pool (header 0, sampler 0: an RGBA8 4 x 4 texture, clamped to edge) and its
/// block-linear image: (pool, image, header pool, sampler pool).
fn fixture() -> (*mut tld4_pool, Vec<u8>, u64, u64) {
    let tex = Texture::rgba8(4, 4, |x, y| {
        (0..4)
            .map(|c| 4 * (4 * y + x) + c)
            .collect::<Vec<_>>()
            .try_into()
            .unwrap()
    });
    let pool = owned_pool(&tex, 0, 0, [2, 2]);
    let entry = image_entry(0, 0, tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR, 0);
    let img = pool_image(pool, entry, BASE);
    (pool, img.bytes, img.header_pool, img.sampler_pool)
}

/// Runs one warp (all lanes, handle `h` in UR4) over `image` (or the owned pool): the record.
fn run(
    exec: *mut tld4_exec,
    pool: *mut tld4_pool,
    mem: Option<(&[u8], u64, u64)>,
    h: u32,
) -> tld4_error {
    let mut regs = vec![0x3f00_0000u32; 32 * 32]; // 0.5 everywhere
    let uregs = [0, 0, 0, 0, h, 0, 0, 0];
    let mut preds = [0u32; 7];
    let warp = warp32(&mut regs, &mut preds, &uregs, !0);
    let mut e = tld4_error::new();
    match mem {
        None => unsafe { tld4_exec_run_flat(exec, pool, &warp, null_mut(), &mut e) },
        Some((bytes, hp, sp)) => {
            let m = flat_memory(bytes, BASE);
            unsafe {
                tld4_exec_run_flat_memory(exec, &m, hp, sp, &warp, null_mut(), null_mut(), &mut e)
            }
        }
    };
    e
}

fn field(e: &tld4_error) -> &str {
    assert!(!e.detail.field.is_null(), "{}", e.message());
    unsafe { CStr::from_ptr(e.detail.field) }.to_str().unwrap()
}

#[test]
fn every_memory_failure_has_a_fault_kind_and_says_what_was_read() {
    use tld4_fault_kind::*;
    let (pool, mut image, hp, sp) = fixture();
    let exec = exec_of("TLD4.R R10, R8, R20, UR4, 2D ;");
    assert_eq!(
        run(exec, pool, Some((&image, hp, sp)), handle(0, 0)).status,
        TLD4_OK
    );

    // Header slot 7: mapped, empty (zeroed).
    let e = run(exec, pool, Some((&image, hp, sp)), handle(7, 0));
    assert_eq!(e.status, TLD4_ERR_DESCRIPTOR, "{}", e.message());
    assert_eq!(e.fault, TLD4_FAULT_UNKNOWN_TEXTURE_HEADER);
    assert_eq!(e.lane, 0);
    assert_eq!(e.detail.read, tld4_read::TLD4_READ_TEXTURE_HEADER);
    assert_eq!((e.detail.index, e.detail.handle), (7, handle(7, 0)));
    assert_eq!((field(&e), e.detail.value), ("HEADER_VERSION", 0));
    // The same index past an owned pool: the same kind, the same read and index.
    let o = run(exec, pool, None, handle(7, 0));
    assert_eq!(o.status, TLD4_ERR_WARP_FAULT);
    assert_eq!(o.fault, TLD4_FAULT_UNKNOWN_TEXTURE_HEADER);
    assert_eq!(o.detail.read, tld4_read::TLD4_READ_TEXTURE_HEADER);
    assert_eq!(o.detail.index, 7);

    // A header pool past the memory: unmapped, with the address read.
    let far = BASE + image.len() as u64 + 0x1000;
    let e = run(exec, pool, Some((&image, far, sp)), handle(2, 0));
    assert_eq!(e.status, TLD4_ERR_MEMORY, "{}", e.message());
    assert_eq!(e.fault, TLD4_FAULT_UNKNOWN_TEXTURE_HEADER);
    assert_eq!(e.detail.read, tld4_read::TLD4_READ_TEXTURE_HEADER);
    assert_eq!((e.detail.index, e.detail.address), (2, far + 64));
    // A sampler pool past it: unknown_sampler, sampler 3.
    let e = run(exec, pool, Some((&image, hp, far)), handle(0, 3));
    assert_eq!(e.status, TLD4_ERR_MEMORY);
    assert_eq!(e.fault, TLD4_FAULT_UNKNOWN_SAMPLER);
    assert_eq!(e.detail.read, tld4_read::TLD4_READ_SAMPLER);
    assert_eq!((e.detail.index, e.detail.address), (3, far + 96));
    // Texels cut off: a texel read fails, with its address inside the cut.
    let cut = &image[..4096]; // the texels start at BASE + 4096
    let e = run(exec, pool, Some((cut, hp, sp)), handle(0, 0));
    assert_eq!(e.status, TLD4_ERR_MEMORY, "{}", e.message());
    assert_eq!(e.fault, TLD4_FAULT_INVALID_TEXTURE);
    assert_eq!(e.detail.read, tld4_read::TLD4_READ_TEXEL);
    assert!(
        e.detail.address >= BASE + cut.len() as u64,
        "{:#x}",
        e.detail.address
    );
    // (0.5, 0.5) on 4 x 4, clamp to edge: the footprint is x 1..=2, y 1..=2 of layer 0, and
    // the texel named is the one at the failed address: inside a GOB the offset's bits,
    // lowest first, are x0 x1 x2 x3 y0 y1 x4 y2 x5 (x in bytes; docs/sources.md, Block-linear layout).
    let (x, y) = (e.detail.x, e.detail.y);
    assert_eq!(e.detail.layer, 0);
    assert!((1..=2).contains(&x) && (1..=2).contains(&y), "({x}, {y})");
    let (b, y) = (4 * x as u64, y as u64);
    let gob = b % 16 + (y % 2) * 16 + (y / 2 % 2) * 32 + (b / 16 % 2) * 64 + (y / 4 % 2) * 128;
    assert_eq!(e.detail.address, BASE + 4096 + gob);

    // Sampler 0's ADDRESS_U = CLAMP_OGL (4): legal, not modeled; the reason is typed.
    let at = (sp - BASE) as usize;
    image[at] = image[at] & !7 | 4;
    let e = run(exec, pool, Some((&image, hp, sp)), handle(0, 0));
    assert_eq!(e.status, TLD4_ERR_WARP_FAULT, "{}", e.message());
    assert_eq!(e.fault, TLD4_FAULT_NOT_MODELED);
    assert_eq!(
        e.detail.not_modeled,
        tld4_not_modeled::TLD4_NOT_MODELED_DESCRIPTOR
    );
    assert_eq!(e.detail.read, tld4_read::TLD4_READ_SAMPLER);
    assert_eq!((field(&e), e.detail.value), ("ADDRESS_U", 4));
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}

#[test]
fn descriptor_calls_and_instruction_reasons_are_typed_too() {
    // F16 output from an integer format: the instruction field.
    let mut pool = null_mut();
    let f = cstr("r32_uint");
    let d = tld4_texture_desc {
        kind: tld4_texture_kind::TLD4_KIND_2D as u32,
        format: f.as_ptr(),
        width: 2,
        height: 2,
        layers: 1,
    };
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    unsafe {
        assert_eq!(tld4_pool_new(&mut pool, null_mut()), TLD4_OK);
        assert_eq!(
            tld4_pool_set_texture(pool, 0, &d, [1, 2, 3, 4].as_ptr(), 4, null_mut()),
            TLD4_OK
        );
        assert_eq!(tld4_sampler_default(&mut s, null_mut()), TLD4_OK);
        assert_eq!(tld4_pool_set_sampler(pool, 0, &s, null_mut()), TLD4_OK);
    }
    let exec = exec_of("TLD4.R.F16.RN R10, R8, R20, UR4, 2D ;");
    let e = run(exec, pool, None, 0);
    assert_eq!(e.status, TLD4_ERR_WARP_FAULT, "{}", e.message());
    assert_eq!(e.fault, tld4_fault_kind::TLD4_FAULT_NOT_MODELED);
    assert_eq!(
        e.detail.not_modeled,
        tld4_not_modeled::TLD4_NOT_MODELED_INSTRUCTION
    );
    assert_eq!(field(&e), "f16_mode");
    // A texture-unit reason: a 2D texture gathered as an array.
    let exec2 = exec_of("TLD4.R R10, R8, R20, UR4, ARRAY_2D ;");
    let e = run(exec2, pool, None, 0);
    assert_eq!(
        e.fault,
        tld4_fault_kind::TLD4_FAULT_NOT_MODELED,
        "{}",
        e.message()
    );
    assert_eq!(
        e.detail.not_modeled,
        tld4_not_modeled::TLD4_NOT_MODELED_TEXTURE
    );
    // tld4_tic_decode of a colour-key header: the field and value.
    let mut w = [0u32; 8];
    w[3] = 4 << 28;
    let mut desc = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
    let mut e = tld4_error::new();
    assert_eq!(
        unsafe { tld4_tic_decode(w.as_ptr(), &mut desc, &mut e) },
        TLD4_ERR_NOT_MODELED
    );
    assert_eq!(
        e.detail.not_modeled,
        tld4_not_modeled::TLD4_NOT_MODELED_DESCRIPTOR
    );
    assert_eq!(e.detail.read, tld4_read::TLD4_READ_TEXTURE_HEADER);
    assert_eq!((field(&e), e.detail.value), ("HEADER_VERSION", 4));
    unsafe {
        tld4_exec_free(exec);
        tld4_exec_free(exec2);
        tld4_pool_free(pool);
    }
}
