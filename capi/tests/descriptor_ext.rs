//! The descriptor fields beyond `tld4_tic_desc` / `tld4_tsc_desc` from C
//! (`tld4_tic_encode_ext`, `tld4_tsc_encode_ext` and their decoders): each member lands at
//! its field of tld4-gpu-memory's tables and decodes back; NULL extras are the plain
//! encoders; bad members are named.

use std::ptr::{null, null_mut};

use crate::common::{
    cstr, driver_image, gather_warp, handle, texels_at, tic_words, tsc_of, Source, Texture,
    TEXELS_AT,
};
use tld4_capi::*;
use tld4_emu::gpu_memory::descriptor::tic::TEXHEAD_V2_PITCH;
use tld4_emu::gpu_memory::descriptor::tsc::TEXSAMP;
use tld4_emu::gpu_memory::descriptor::{field, DescField};
use tld4_status::*;

fn raw(table: &[DescField], w: &[u32; 8], name: &str) -> u64 {
    field(table, name).unwrap().get(w)
}

/// An 8 x 4 RGBA8 pitch header of `kind`.
fn desc(format: &std::ffi::CString, kind: tld4_texture_kind) -> tld4_tic_desc {
    tld4_tic_desc {
        layout: tld4_layout::TLD4_LAYOUT_PITCH as u32,
        pitch: 64,
        gobs_per_block_height_log2: 0,
        address: 0x1000,
        kind: kind as u32,
        format: format.as_ptr(),
        width: 8,
        height: 8,
        depth: 1,
        swizzle: [0, 1, 2, 3],
        depth_texture: false,
        normalized_coords: true,
    }
}

/// What NVK writes into a pitch texture's header beyond the plain description (values
/// within each field; their meaning does not matter here).
const NVK_TIC: tld4_tic_extra = tld4_tic_extra {
    two_d_no_mipmap: true,
    sector_promotion: 2,
    lod_aniso_quality2: 1,
    lod_aniso_quality: 1,
    lod_iso_quality: 1,
    aniso_coarse_spread_modifier: 2,
    aniso_spread_scale: 17,
    aniso_spread_max_log2: 5,
    aniso_fine_spread_func: 2,
    aniso_coarse_spread_func: 1,
    aniso_fine_spread_modifier: 3,
    max_anisotropy: 4,
    aniso_bias: 9,
    use_header_opt_control: 0,
    trilin_opt: 21,
    mip_lod_bias: 0x1abc,
    min_lod_clamp: 0x321,
};

#[test]
fn texture_header_extras_land_at_their_fields_and_decode_back() {
    let f = cstr("rgba8_unorm");
    let d = desc(&f, tld4_texture_kind::TLD4_KIND_2D);
    let mut e = tld4_error::new();
    let mut w = [0u32; 8];
    let st = unsafe { tld4_tic_encode_ext(&d, &NVK_TIC, w.as_mut_ptr(), &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    let t = TEXHEAD_V2_PITCH;
    assert_eq!(raw(t, &w, "TEXTURE_TYPE"), 7, "TWO_D_NO_MIPMAP");
    assert_eq!(raw(t, &w, "SECTOR_PROMOTION"), 2);
    assert_eq!(raw(t, &w, "LOD_ISO_QUALITY"), 1);
    assert_eq!(raw(t, &w, "ANISO_SPREAD_SCALE"), 17);
    assert_eq!(raw(t, &w, "ANISO_FINE_SPREAD_FUNC"), 2);
    assert_eq!(raw(t, &w, "ANISO_COARSE_SPREAD_FUNC"), 1);
    assert_eq!(raw(t, &w, "MIP_LOD_BIAS"), 0x1abc);
    assert_eq!(raw(t, &w, "MIN_LOD_CLAMP"), 0x321);
    let mut back = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
    let mut x = tld4_tic_extra::default();
    let st = unsafe { tld4_tic_decode_ext(w.as_ptr(), &mut back, &mut x, &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(x, NVK_TIC);
    assert_eq!(back.kind, tld4_texture_kind::TLD4_KIND_2D as u32);
    // The plain decoder reads the same header; the plain encoder is a NULL extra.
    let st = unsafe { tld4_tic_decode(w.as_ptr(), &mut back, &mut e) };
    assert_eq!(st, TLD4_OK);
    let (mut plain, mut null_extra) = ([0u32; 8], [0u32; 8]);
    unsafe {
        assert_eq!(tld4_tic_encode(&d, plain.as_mut_ptr(), &mut e), TLD4_OK);
        let st = tld4_tic_encode_ext(&d, null(), null_extra.as_mut_ptr(), &mut e);
        assert_eq!(st, TLD4_OK);
    }
    assert_eq!(plain, null_extra);
    assert_eq!(raw(t, &plain, "TEXTURE_TYPE"), 1, "TWO_D");
}

#[test]
fn bad_texture_header_extras_are_named() {
    let f = cstr("rgba8_unorm");
    let d = desc(&f, tld4_texture_kind::TLD4_KIND_2D);
    let cube = desc(&f, tld4_texture_kind::TLD4_KIND_CUBE);
    let cases = [
        (
            d,
            tld4_tic_extra {
                sector_promotion: 4,
                ..NVK_TIC
            },
            "extra.sector_promotion = 4",
        ),
        (
            d,
            tld4_tic_extra {
                use_header_opt_control: 1,
                ..NVK_TIC
            },
            "USE_HEADER_OPT_CONTROL",
        ),
        (cube, NVK_TIC, "two_d_no_mipmap"),
    ];
    for (d, x, what) in cases {
        let mut e = tld4_error::new();
        let mut w = [0xa5u32; 8];
        let st = unsafe { tld4_tic_encode_ext(&d, &x, w.as_mut_ptr(), &mut e) };
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT, "{what}");
        assert!(e.message().contains(what), "{what}: {}", e.message());
        assert_eq!(w, [0xa5; 8], "nothing written");
    }
}

#[test]
fn sampler_extras_land_at_their_fields_and_decode_back() {
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    let mut e = tld4_error::new();
    let mut t = unsafe { std::mem::zeroed::<tld4_tsc_desc>() };
    unsafe {
        assert_eq!(tld4_sampler_default(&mut s, &mut e), TLD4_OK);
        assert_eq!(tld4_sampler_to_tsc(&s, &mut t, &mut e), TLD4_OK);
    }
    let x = tld4_tsc_extra {
        s_r_g_b_conversion: 1,
        font_filter: 0x2d,
        srgb_border_r: 0x11,
        srgb_border_g: 0x22,
        srgb_border_b: 0xf3,
        mip_lod_bias: 0x1fff,
        min_lod_clamp: 0x100,
        max_lod_clamp: 0xc00,
        trilin_opt: 7,
    };
    let mut w = [0u32; 8];
    let st = unsafe { tld4_tsc_encode_ext(&t, &x, w.as_mut_ptr(), &mut e) };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    for (name, v) in [
        ("S_R_G_B_CONVERSION", 1),
        ("FONT_FILTER", 0x2d),
        ("S_R_G_B_BORDER_COLOR_R", 0x11),
        ("S_R_G_B_BORDER_COLOR_G", 0x22),
        ("S_R_G_B_BORDER_COLOR_B", 0xf3),
        ("MIP_LOD_BIAS", 0x1fff),
        ("MIN_LOD_CLAMP", 0x100),
        ("MAX_LOD_CLAMP", 0xc00),
        ("TRILIN_OPT", 7),
    ] {
        assert_eq!(raw(TEXSAMP, &w, name), v, "{name}");
    }
    let mut back = unsafe { std::mem::zeroed::<tld4_tsc_desc>() };
    let mut xb = tld4_tsc_extra::default();
    let st = unsafe { tld4_tsc_decode_ext(w.as_ptr(), &mut back, &mut xb, &mut e) };
    assert_eq!(st, TLD4_OK);
    assert_eq!((back, xb), (t, x));
    // NULL extra: the plain encoder's words.
    let (mut plain, mut null_extra) = ([0u32; 8], [0u32; 8]);
    unsafe {
        assert_eq!(tld4_tsc_encode(&t, plain.as_mut_ptr(), &mut e), TLD4_OK);
        let st = tld4_tsc_encode_ext(&t, null(), null_extra.as_mut_ptr(), &mut e);
        assert_eq!(st, TLD4_OK);
    }
    assert_eq!(plain, null_extra);
    let bad = tld4_tsc_extra {
        srgb_border_g: 256,
        ..x
    };
    let st = unsafe { tld4_tsc_encode_ext(&t, &bad, w.as_mut_ptr(), &mut e) };
    assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
    assert!(
        e.message().contains("extra.srgb_border_g = 256"),
        "{}",
        e.message()
    );
}

#[test]
fn extras_change_no_gathered_value() {
    let t = Texture::rgba8(8, 8, |x, y| [30 * x, 60 * y % 256, y * 8 + x, 255]);
    let (bytes, hdr) = texels_at(&t, tld4_layout::TLD4_LAYOUT_PITCH, 64, TEXELS_AT);
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    unsafe { assert_eq!(tld4_sampler_default(&mut s, null_mut()), TLD4_OK) };
    s.address_u = 3; // CLAMP_TO_BORDER: border texels read the border words
    s.border = [0x3f80_0000, 0, 0x3f00_0000, 0x3f80_0000];
    let (tsc, plain_tsc) = tsc_of(&s);
    let mut e = tld4_error::new();
    let (mut tic_x, mut tsc_x) = ([0u32; 8], [0u32; 8]);
    let sx = tld4_tsc_extra {
        s_r_g_b_conversion: 1,
        font_filter: 0x3f,
        srgb_border_r: 0x80,
        srgb_border_g: 0x40,
        srgb_border_b: 0x20,
        mip_lod_bias: 5,
        min_lod_clamp: 1,
        max_lod_clamp: 0xfff,
        trilin_opt: 3,
    };
    unsafe {
        let st = tld4_tic_encode_ext(&hdr, &NVK_TIC, tic_x.as_mut_ptr(), &mut e);
        assert_eq!(st, TLD4_OK, "{}", e.message());
        let st = tld4_tsc_encode_ext(&tsc, &sx, tsc_x.as_mut_ptr(), &mut e);
        assert_eq!(st, TLD4_OK, "{}", e.message());
    }
    let plain = driver_image(&bytes, &[(0, tic_words(&hdr).unwrap())], &[(0, plain_tsc)]);
    let extra = driver_image(&bytes, &[(0, tic_x)], &[(0, tsc_x)]);
    assert_ne!(plain, extra);
    // across the texture and past its left edge (border texels)
    let coords: [[f32; 2]; 32] =
        std::array::from_fn(|l| [l as f32 / 16.0 - 0.6, (l % 8) as f32 / 8.0 + 0.03]);
    let h = handle(0, 0);
    let want = gather_warp(Source::Image(&plain), h, &coords);
    assert_ne!(want, [[0xdead_beef; 4]; 32]);
    assert_eq!(gather_warp(Source::Image(&extra), h, &coords), want);
}
