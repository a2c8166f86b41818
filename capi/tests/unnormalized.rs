//! Unnormalized coordinates from C (docs/sources.md, Unnormalized coordinates): the header's
//! NORMALIZED_COORDS (`tld4_tic_desc::normalized_coords`) and the sampler's
//! FLOAT_COORD_NORMALIZATION (`tld4_tsc_desc::force_unnormalized_coords`, which
//! `tld4_sampler_to_tsc` sets for `tld4_sampler_desc::normalized_coords = false`) at their
//! bits and back; a warp gathering texel-space coordinates from the owned pool and from
//! driver images made with the encoders (either bit) gives the f64 reference's values, and on
//! a power-of-two texture the normalized gather's at s / size.

use crate::common;

use std::ptr::null_mut;

use common::{
    driver_image, exec_of, gather_warp, handle, texels_at, tic_words, tsc_of, warp32, Source,
    Texture, TEXELS_AT,
};
use tld4_capi::*;
use tld4_emu::textures::{self as tex, GatherOp, GatherQuery, TextureDesc, TextureKind};
use tld4_status::*;

/// The texels of `t` at `TEXELS_AT`, block-linear, and the header description.
fn texels(t: &Texture) -> (Vec<u8>, tld4_tic_desc) {
    texels_at(t, tld4_layout::TLD4_LAYOUT_BLOCK_LINEAR, 0, TEXELS_AT)
}

/// The default sampler (clamp to edge) with `normalized_coords`.
fn sampler(normalized: bool) -> tld4_sampler_desc {
    let mut s = unsafe { std::mem::zeroed::<tld4_sampler_desc>() };
    unsafe { assert_eq!(tld4_sampler_default(&mut s, null_mut()), TLD4_OK) };
    assert!(s.normalized_coords, "the default is normalized");
    s.normalized_coords = normalized;
    s
}

fn tsc(s: &tld4_sampler_desc) -> (tld4_tsc_desc, [u32; 8]) {
    tsc_of(s)
}

fn tic(d: &tld4_tic_desc) -> [u32; 8] {
    tic_words(d).unwrap()
}

#[test]
fn unnormalized_bits_from_c_are_the_class_headers_bits_and_decode_back() {
    let t = Texture::rgba8(7, 5, |x, y| [x, y, 0, 255]);
    let (_, hdr) = texels(&t);
    assert!(
        hdr.normalized_coords,
        "tld4_texels_write describes a normalized header"
    );
    for normalized in [true, false] {
        // TEXHEAD_V2_BL NORMALIZED_COORDS: bit 145 (word 4, bit 17)
        let d = tld4_tic_desc {
            normalized_coords: normalized,
            ..hdr
        };
        let w = tic(&d);
        assert_eq!(w[4] >> 17 & 1, normalized as u32, "NORMALIZED_COORDS");
        let mut back = unsafe { std::mem::zeroed::<tld4_tic_desc>() };
        let st = unsafe { tld4_tic_decode(w.as_ptr(), &mut back, null_mut()) };
        assert_eq!(st, TLD4_OK, "an unnormalized header decodes");
        assert_eq!(back.normalized_coords, normalized);
        assert_eq!(tic(&back), w);
        // TEXSAMP1 FLOAT_COORD_NORMALIZATION: bit 25 of word 1 (FORCE_UNNORMALIZED_COORDS 1)
        let (t, w) = tsc(&sampler(normalized));
        assert_eq!(t.force_unnormalized_coords, !normalized);
        assert_eq!(
            w[1] >> 25 & 1,
            !normalized as u32,
            "FLOAT_COORD_NORMALIZATION"
        );
        let mut back = unsafe { std::mem::zeroed::<tld4_tsc_desc>() };
        let st = unsafe { tld4_tsc_decode(w.as_ptr(), &mut back, null_mut()) };
        assert_eq!(st, TLD4_OK);
        assert_eq!(back, t);
    }
}

/// A driver image: header 3 (`tic_words`), sampler 1 (`tsc_words`), the texels.
fn image(bytes: &[u8], tic_words: [u32; 8], tsc_words: [u32; 8]) -> Vec<u8> {
    driver_image(bytes, &[(3, tic_words)], &[(1, tsc_words)])
}

/// One warp's results from the owned pool (image None) or a driver image.
fn run(pool: *mut tld4_pool, image: Option<&[u8]>, coords: &[[f32; 2]; 32]) -> [[u32; 4]; 32] {
    let source = match image {
        None => Source::Owned(pool),
        Some(bytes) => Source::Image(bytes),
    };
    gather_warp(source, handle(3, 1), coords)
}

/// An owned pool with `t` at header 3 and `s` at sampler 1.
fn owned(t: &Texture, s: &tld4_sampler_desc) -> *mut tld4_pool {
    let mut pool = null_mut();
    let mut e = tld4_error::new();
    let d = t.desc();
    unsafe {
        assert_eq!(tld4_pool_new(&mut pool, &mut e), TLD4_OK);
        let st = tld4_pool_set_texture(pool, 3, &d, t.fields.as_ptr(), t.fields.len(), &mut e);
        assert_eq!(st, TLD4_OK, "{}", e.message());
        assert_eq!(tld4_pool_set_sampler(pool, 1, s, &mut e), TLD4_OK);
    }
    pool
}

#[test]
fn unnormalized_warps_from_c_match_the_reference_and_the_normalized_path() {
    for (w, h) in [(8u32, 4u32), (7, 5), (13, 3)] {
        let t = Texture::rgba8(w, h, |x, y| {
            [(30 * x) % 256, (60 * y) % 256, y * w + x, 255]
        });
        // texel-space coordinates on the 2^-8 grid (fixed points of the 8-bit model), around
        // and across the texture, one exactly on a texel boundary, one 2^-8 below one
        let coords: [[f32; 2]; 32] = std::array::from_fn(|l| {
            let s = (l as f32 * 0.40625 - 1.5) * w as f32 / 8.0;
            let t = ((l * 7 % 32) as f32 * 0.21875 - 1.0) * h as f32 / 4.0;
            match l {
                0 => [2.5, 1.5],
                1 => [3.5 - 1.0 / 256.0, 0.5],
                _ => [(s * 256.0).round() / 256.0, (t * 256.0).round() / 256.0],
            }
        });
        let (bytes, hdr) = texels(&t);
        let unnormalized = sampler(false);
        let pool = owned(&t, &unnormalized);
        let from_owned = run(pool, None, &coords);
        // the header's bit clear, the sampler using it; the header's bit set, the sampler
        // forcing unnormalized coordinates
        let (_, use_header) = tsc(&sampler(true));
        let (_, force) = tsc(&unnormalized);
        let clear = tld4_tic_desc {
            normalized_coords: false,
            ..hdr
        };
        for (tic_words, tsc_words) in [(tic(&clear), use_header), (tic(&hdr), force)] {
            let image = image(&bytes, tic_words, tsc_words);
            assert_eq!(run(pool, Some(&image), &coords), from_owned, "{w}x{h}");
        }
        // both bits normalized: the same texel-space coordinates read other texels
        let image = image(&bytes, tic(&hdr), use_header);
        assert_ne!(run(pool, Some(&image), &coords), from_owned, "{w}x{h}");
        // the f64 reference
        let desc = TextureDesc {
            kind: TextureKind::Tex2D,
            format: tex::Format::Rgba8Unorm,
            width: w,
            height: h,
            layers: 1,
        };
        let rust = tex::Texture::from_fields(desc, &t.fields).unwrap();
        let s = tex::Sampler {
            normalized_coords: false,
            ..tex::Sampler::default()
        };
        let op = GatherOp::new(TextureKind::Tex2D, 2);
        for (l, c) in coords.iter().enumerate() {
            let want = tld4_reference::gather(&rust, &s, &op, &GatherQuery::at(c[0], c[1]));
            assert_eq!(
                from_owned[l],
                want.unwrap().values,
                "{w}x{h} lane {l} at {c:?}"
            );
        }
        // a power of two: the normalized gather at s / size, bit for bit
        if w.is_power_of_two() && h.is_power_of_two() {
            let normalized = owned(&t, &sampler(true));
            let scaled = coords.map(|[s, t]| [s / w as f32, t / h as f32]);
            assert_eq!(run(normalized, None, &scaled), from_owned, "{w}x{h}");
            unsafe { tld4_pool_free(normalized) };
        }
        unsafe { tld4_pool_free(pool) };
    }
}

#[test]
fn unnormalized_refusals_from_c_are_not_modeled_faults() {
    let t = Texture::rgba8(4, 4, |x, y| [x, y, 0, 255]);
    let mut s = sampler(false);
    s.address_u = 0; // REPEAT: CUDA and Vulkan allow only clamping modes
    let pool = owned(&t, &s);
    let exec = exec_of("TLD4.B R10, R8, R20, UR4, 2D ;");
    let mut regs = vec![0u32; 32 * 32];
    let uregs = [0, 0, 0, 0, handle(3, 1), 0, 0, 0];
    let mut preds = [0u32; 7];
    let warp = warp32(&mut regs, &mut preds, &uregs, u32::MAX);
    let mut e = tld4_error::new();
    let st = unsafe { tld4_exec_run_flat(exec, pool, &warp, null_mut(), &mut e) };
    // a warp fault whose reason is "not modeled", naming the lane
    assert_eq!(st, TLD4_ERR_WARP_FAULT, "{}", e.message());
    let m = e.message();
    assert!(m.starts_with("not modeled (lane 0)"), "{m}");
    assert!(
        m.contains("unnormalized coordinates with the address mode Repeat"),
        "{m}"
    );
    unsafe {
        tld4_exec_free(exec);
        tld4_pool_free(pool);
    }
}
