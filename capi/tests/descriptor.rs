//! Descriptors from C: `tld4_tic_encode` / `tld4_tsc_encode` write the words a driver writes
//! (checked field by field against clcd97tex.h's bit positions, restated here by hand), decode
//! back to the description, and a memory image a C driver builds with them and
//! `tld4_texels_write` (its own addresses, both layouts) executes exactly as the owned pool.

use crate::common;

use std::ptr::null_mut;

use common::{
    cstr, driver_image, gather_warp, handle, owned_pool, texels_at, tic_words, tsc_of, Source,
    Texture, TEXELS_AT,
};
use tld4_capi::*;
use tld4_status::*;

const W: u32 = 8;
const H: u32 = 4;

/// The test texture: RGBA8 8 x 4, texel (x, y) = (30 x, 60 y, y * 8 + x, 255).
fn texture() -> Texture {
    Texture::rgba8(W, H, |x, y| [30 * x, 60 * y, y * W + x, 255])
}

/// The texels written at `address` in `layout`: (bytes, header description).
fn texels(layout: tld4_layout, param: u32, address: u64) -> (Vec<u8>, tld4_tic_desc) {
    texels_at(&texture(), layout, param, address)
}

fn tic(d: &tld4_tic_desc) -> Result<[u32; 8], Box<tld4_error>> {
    tic_words(d)
}

#[test]
fn texture_headers_have_clcd97tex_bits_and_decode_back() {
    // Pitch: rows of 8 RGBA8 texels = 32 bytes, aligned to 64.
    let (bytes, hdr) = texels(tld4_layout::TLD4_LAYOUT_PITCH, 64, 0x1234_5000);
    assert_eq!(hdr.pitch, 64);
    assert_eq!(bytes.len(), 64 * H as usize);
    // Texel (x, y) at y * pitch + 4 x, R G B A bytes.
    assert_eq!(&bytes[64 + 4 * 3..64 + 4 * 3 + 4], &[90, 60, 11, 255]);
    let w = tic(&hdr).unwrap();
    // TEXHEAD_V2_PITCH: ADDRESS_BITS31TO5 31:5, PITCH_BITS21TO5 80:64, HEADER_VERSION
    // 127:124 (PITCH_V2 = 2), WIDTH_MINUS_ONE 144:128, TEXTURE_TYPE 153:150 (TWO_D = 1),
    // HEIGHT_MINUS_ONE 176:160, COMPONENTS 118:112 (A8B8G8R8 = 8), DATA_TYPE 111:108
    // (UNORM = 0), X/Y/Z/W_SOURCE IN_R..IN_A = 2..5 from bit 96.
    assert_eq!(w[0], 0x1234_5000);
    assert_eq!(w[2] & 0x1ffff, 64 >> 5);
    assert_eq!(w[3] >> 28, 2);
    assert_eq!(w[3] >> 16 & 0x7f, 8);
    assert_eq!(w[3] >> 12 & 0xf, 0);
    assert_eq!(w[3] & 0xfff, 2 | 3 << 3 | 4 << 6 | 5 << 9);
    assert_eq!(w[4] & 0x1ffff, W - 1);
    assert_eq!(w[4] >> 22 & 0xf, 1);
    assert_eq!(w[4] >> 17 & 1, 1, "NORMALIZED_COORDS");
    assert_eq!(w[5] & 0x1ffff, H - 1);
    let mut back = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
    let mut e = tld4_error::new();
    assert_eq!(
        unsafe { tld4_tic_decode(w.as_ptr(), &mut back, &mut e) },
        TLD4_OK
    );
    assert_eq!(tic(&back).unwrap(), w);
    let name = unsafe { std::ffi::CStr::from_ptr(back.format) };
    assert_eq!(name.to_str().unwrap(), "rgba8_unorm");
    assert_eq!((back.width, back.height, back.depth), (W, H, 1));
    assert_eq!(back.swizzle, [0, 1, 2, 3]);

    // Block-linear: HEADER_VERSION 3, ADDRESS_BITS31TO9, GOBS_PER_BLOCK_HEIGHT 69:67.
    let (bytes, hdr) = texels(tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR, 2, 0x2_0000_0200);
    assert_eq!(hdr.gobs_per_block_height_log2, 2);
    // One GOB (64 bytes x 8 rows) holds the whole 8 x 4 texture; the block is 4 GOBs down
    // but clamped to the texture's height, so the extent is one GOB.
    assert_eq!(bytes.len(), 512);
    let w = tic(&hdr).unwrap();
    assert_eq!(w[0], 0x0000_0200);
    assert_eq!(w[1] & 0x1ff_ffff, 2);
    assert_eq!(w[2] >> 3 & 7, 2);
    assert_eq!(w[3] >> 28, 3);
}

#[test]
fn bad_texture_headers_say_which_and_write_nothing() {
    let f = cstr("rgba8_unorm");
    let (_, good) = texels(tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR, 0, 0x1000);
    // Misaligned for block-linear: no hardware accepts it.
    let e = tic(&tld4_tic_desc {
        address: 0x1010,
        ..good
    })
    .unwrap_err();
    assert_eq!(e.status, TLD4_ERR_DESCRIPTOR, "{}", e.message());
    assert!(e.message().contains("ADDRESS_BITS31TO9"), "{}", e.message());
    // Block-linear 1-byte texels: legal, not modeled.
    let r8 = cstr("r8_unorm");
    let e = tic(&tld4_tic_desc {
        format: r8.as_ptr(),
        ..good
    })
    .unwrap_err();
    assert_eq!(e.status, TLD4_ERR_NOT_MODELED, "{}", e.message());
    assert!(e.message().contains("COMPONENTS"), "{}", e.message());
    // No such swizzle, format, layout, or a zero size: invalid arguments.
    for bad in [
        tld4_tic_desc {
            swizzle: [0, 1, 2, 6],
            ..good
        },
        tld4_tic_desc { layout: 2, ..good },
        tld4_tic_desc { width: 0, ..good },
        tld4_tic_desc {
            gobs_per_block_height_log2: 6,
            ..good
        },
    ] {
        let e = tic(&bad).unwrap_err();
        assert_eq!(e.status, TLD4_ERR_INVALID_ARGUMENT, "{}", e.message());
    }
    let nope = cstr("rgba8");
    let e = tic(&tld4_tic_desc {
        format: nope.as_ptr(),
        ..good
    })
    .unwrap_err();
    assert_eq!(e.status, TLD4_ERR_INVALID_ARGUMENT);
    let _ = f;
    // A header word with a colour-key version: decode says not modeled, naming the field.
    let mut w = tic(&good).unwrap();
    w[3] = w[3] & 0x0fff_ffff | 4 << 28;
    let mut back = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
    let mut e = tld4_error::new();
    assert_eq!(
        unsafe { tld4_tic_decode(w.as_ptr(), &mut back, &mut e) },
        TLD4_ERR_NOT_MODELED
    );
    assert!(e.message().contains("HEADER_VERSION"), "{}", e.message());
    w[3] &= 0x0fff_ffff; // version 0: none
    assert_eq!(
        unsafe { tld4_tic_decode(w.as_ptr(), &mut back, &mut e) },
        TLD4_ERR_DESCRIPTOR
    );
    assert_eq!(
        unsafe { tld4_tic_encode(&good, null_mut(), &mut e) },
        TLD4_ERR_NULL_POINTER
    );
}

#[test]
fn samplers_have_clcd97tex_bits_and_vulkan_numbers_are_converted() {
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    let mut e = tld4_error::new();
    unsafe { assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK) };
    // Vulkan: u MIRROR_CLAMP_TO_EDGE (4), v REPEAT (0); compare LESS (1).
    s.address_u = 4;
    s.address_v = 0;
    s.compare_enable = true;
    s.compare_op = 1;
    s.border = [1, 2, 3, 4];
    let mut t = unsafe { std::mem::zeroed::<tld4_tsc_desc>() };
    unsafe { assert_eq!(tld4_sampler_to_tsc(&s, &mut t, &mut e), TLD4_OK) };
    assert_eq!(
        t.address_u,
        tld4_tsc_address_mode::TLD4_TSC_MIRROR_ONCE_CLAMP_TO_EDGE as u32
    );
    assert_eq!(t.address_v, tld4_tsc_address_mode::TLD4_TSC_WRAP as u32);
    assert_eq!(t.cube_filtering, 2, "seamless: AUTO_SPAN_SEAM");
    let mut w = [0u32; 8];
    unsafe { assert_eq!(tld4_tsc_encode(&t, w.as_mut_ptr(), &mut e), TLD4_OK) };
    // TEXSAMP0: ADDRESS_U 2:0, ADDRESS_V 5:3, ADDRESS_P 8:6, DEPTH_COMPARE 9,
    // DEPTH_COMPARE_FUNC 12:10; TEXSAMP1: CUBEMAP_INTERFACE_FILTERING 9:8; words 4-7 border.
    // (ADDRESS_V = WRAP = 0 adds nothing)
    assert_eq!(w[0] & 0x1fff, 5 | 5 << 6 | 1 << 9 | 1 << 10);
    assert_eq!(w[1] >> 8 & 3, 2);
    assert_eq!(&w[4..], &[1, 2, 3, 4]);
    let mut back = unsafe { std::mem::zeroed::<tld4_tsc_desc>() };
    unsafe { assert_eq!(tld4_tsc_decode(w.as_ptr(), &mut back, &mut e), TLD4_OK) };
    assert_eq!(back, t);
    // A value past its field names the field.
    let st =
        unsafe { tld4_tsc_encode(&tld4_tsc_desc { address_v: 8, ..t }, w.as_mut_ptr(), &mut e) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(e.message().contains("ADDRESS_V"), "{}", e.message());
}

/// A C driver's image: its own layout of pools and texels (header 5, sampler 2, other
/// slots zero), from the encoders alone.
fn driver_image_of(layout: tld4_layout, param: u32) -> Vec<u8> {
    let (bytes, hdr) = texels(layout, param, TEXELS_AT);
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    unsafe { assert_eq!(tld4_sampler_default(&mut s, null_mut()), TLD4_OK) };
    let (_, sampler) = tsc_of(&s);
    driver_image(&bytes, &[(5, tic(&hdr).unwrap())], &[(2, sampler)])
}

#[test]
fn a_driver_image_from_the_encoders_executes_as_the_owned_pool() {
    // The owned reference: the same texels at header 5, sampler 2 (clamp to edge).
    let pool = owned_pool(&texture(), 5, 2, [2, 2]);
    let h = handle(5, 2);
    let coords: [[f32; 2]; 32] = std::array::from_fn(|lane| {
        [
            (lane % W as usize) as f32 / W as f32 + 0.07,
            (lane / W as usize) as f32 / H as f32 + 0.11,
        ]
    });
    let owned = gather_warp(Source::Owned(pool), h, &coords);
    assert_ne!(owned, [[0xdead_beef; 4]; 32]);
    for (layout, param) in [
        (tld4_layout::TLD4_LAYOUT_PITCH, 32),
        (tld4_layout::TLD4_LAYOUT_PITCH, 256),
        (tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR, 0),
        (tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR, 3),
    ] {
        let img = driver_image_of(layout, param);
        assert_eq!(
            gather_warp(Source::Image(&img), h, &coords),
            owned,
            "{layout:?} {param}"
        );
    }
    unsafe { tld4_pool_free(pool) };
}

/// Operand meanings per instruction: the Ra/Rb layouts, checked against the operand lists
/// (the register counts) and docs/sources.md's ptxas orders written out here.
#[test]
fn operand_layouts_say_what_each_register_holds() {
    let cases: [(&str, [u8; 12]); 3] = [
        // ra, ra_count, layer, coords, coords_at, rb, rb_count, handle, offsets, at, dref, at
        (
            "TLD4.R.AOFFI.DC R10, R8, R20, R24, UR4, ARRAY_2D ;",
            [20, 3, 1, 2, 1, 24, 2, 0, 1, 0, 1, 1],
        ),
        (
            "TLD4.G R10, R8, R20, UR4, CUBE ;",
            [20, 3, 0, 3, 0, 255, 0, 0, 0, 0, 0, 0],
        ),
        (
            "TLD4.B.PTP R10, R8, R20, R24, UR4, 2D ;",
            [20, 2, 0, 2, 0, 24, 2, 0, 2, 0, 0, 2],
        ),
    ];
    for (text, want) in cases {
        let insn = common::insn_of(text);
        let mut l = tld4_operand_layout::default();
        let mut e = tld4_error::new();
        assert_eq!(
            unsafe { tld4_insn_operand_layout(insn, &mut l, &mut e) },
            TLD4_OK,
            "{}",
            e.message()
        );
        let got = [
            l.ra,
            l.ra_count,
            l.ra_layer as u8,
            l.coords,
            l.coords_at,
            l.rb,
            l.rb_count,
            l.handle_in_rb as u8,
            l.offsets,
            l.offsets_at,
            l.depth_ref as u8,
            l.depth_ref_at,
        ];
        assert_eq!(got, want, "{text}");
        unsafe { tld4_insn_free(insn) };
    }
}
