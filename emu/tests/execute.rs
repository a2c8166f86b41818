//! The executor: operand marshalling, packing, predicates and faults. Expected values are
//! worked out by hand from the rules in docs/sources.md on integer textures whose texel values
//! name their position (x + 10 y + 100 layer), so each result says which texel it came from.

use tld4_decoder::parse;
use tld4_emu::pack::{f16_rn, f16_rz};
use tld4_emu::*;
use tld4_textures::*;

fn desc(kind: TextureKind, format: Format, w: u32, h: u32, layers: u32) -> TextureDesc {
    TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        layers,
    }
}

/// An R32_UINT texture whose texel (x, y) of storage layer l holds x + 10 y + 100 l.
fn named(kind: TextureKind, w: u32, h: u32, layers: u32) -> Texture {
    let d = desc(kind, Format::R32Uint, w, h, layers);
    Texture::from_fn(d, |l, x, y| [x + 10 * y + 100 * l, 0, 0, 0]).unwrap()
}

struct Setup {
    pool: TexturePool,
    handle: u32,
}

fn setup(texture: Texture, sampler: Sampler) -> Setup {
    let mut pool = TexturePool::new();
    let t = pool.add_texture(texture).unwrap();
    let s = pool.add_sampler(sampler).unwrap();
    Setup {
        pool,
        handle: Handle::new(t, s).unwrap().0,
    }
}

/// Coordinates that put i0 = i, j0 = j on a w x h texture: u = i + 1, v = j + 1.
fn st(i: u32, j: u32, w: u32, h: u32) -> (f32, f32) {
    ((i + 1) as f32 / w as f32, (j + 1) as f32 / h as f32)
}

fn run(text: &str, warp: &mut WarpState, s: &Setup) -> Result<ExecReport, WarpFault> {
    let insn = parse(text).unwrap();
    Tld4Exec::new(&insn, ExecConfig::default()).execute(warp, &s.pool)
}

fn regs(warp: &WarpState, lane: usize, first: u8, n: u8) -> Vec<u32> {
    (first..first + n).map(|r| warp.reg(lane, r)).collect()
}

#[test]
fn uniform_handle_2d_gathers_in_vulkan_order_into_rd_then_rd2() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    for lane in 0..32 {
        let (u, v) = st((lane % 3) as u32, (lane % 2) as u32, 4, 4);
        w.set_reg_f32(lane, 20, u);
        w.set_reg_f32(lane, 21, v);
    }
    let rep = run("TLD4.R R10, R8, R20, UR4, 2D ;", &mut w, &s).unwrap();
    assert_eq!(
        rep,
        ExecReport {
            executed: u32::MAX,
            nonresident: 0
        }
    );
    for lane in 0..32 {
        let (i, j) = ((lane % 3) as u32, (lane % 2) as u32);
        let t = |x: u32, y: u32| x + 10 * y;
        // x, y in R8, R9 (Rd); z, w in R10, R11 (Rd2).
        assert_eq!(
            regs(&w, lane, 8, 4),
            vec![t(i, j + 1), t(i + 1, j + 1), t(i + 1, j), t(i, j)],
            "lane {lane}"
        );
    }
}

#[test]
fn register_handle_comes_first_in_rb_then_offsets_then_dref() {
    // Two textures: lanes pick one by their handle (form 0xd64, NAK's Rb order).
    let mut pool = TexturePool::new();
    let a = pool
        .add_texture(named(TextureKind::Tex2D, 8, 8, 1))
        .unwrap();
    let b = pool
        .add_texture(
            Texture::from_fn(
                desc(TextureKind::Tex2D, Format::R32Uint, 8, 8, 1),
                |_, x, y| [1000 + x + 10 * y, 0, 0, 0],
            )
            .unwrap(),
        )
        .unwrap();
    let smp = pool.add_sampler(Sampler::default()).unwrap();
    let s = Setup { pool, handle: 0 };
    let mut w = WarpState::new();
    for lane in 0..32 {
        let h = Handle::new(if lane % 2 == 0 { a } else { b }, smp)
            .unwrap()
            .0;
        w.set_reg(lane, 30, h);
        // AOFFI (dx, dy) = (2, -1): x | (y << 8), 6 bits each.
        w.set_reg(lane, 31, 2 | ((-1i32 as u32) & 0x3f) << 8);
        let (u, v) = st(1, 3, 8, 8);
        w.set_reg_f32(lane, 20, u);
        w.set_reg_f32(lane, 21, v);
    }
    run("TLD4.R.B.AOFFI R10, R8, R20, R30, 2D ;", &mut w, &s).unwrap();
    for lane in 0..32 {
        let base = if lane % 2 == 0 { 0 } else { 1000 };
        // i0 = 1 + 2 = 3, j0 = 3 - 1 = 2.
        let t = |x: u32, y: u32| base + x + 10 * y;
        assert_eq!(
            regs(&w, lane, 8, 4),
            vec![t(3, 3), t(4, 3), t(4, 2), t(3, 2)],
            "lane {lane}"
        );
    }
}

#[test]
fn ptp_reads_two_registers_of_six_bit_signed_bytes() {
    let d = desc(TextureKind::Tex2D, Format::R32Uint, 128, 128, 1);
    let s = setup(
        Texture::from_fn(d, |_, x, y| [x + 1000 * y, 0, 0, 0]).unwrap(),
        Sampler::default(),
    );
    let mut w = WarpState::new();
    w.set_ureg(7, s.handle);
    let (u, v) = st(40, 40, 128, 128);
    let offs: [[i8; 2]; 4] = [[-32, 31], [1, 2], [-3, -4], [5, -6]];
    let byte = |o: i8| (o as u8 & 0x3f) as u32;
    // Bits 7:6 of each byte are ignored (6-bit fields): set them to prove it.
    let r0 = (byte(offs[0][0]) | 0xc0)
        | byte(offs[0][1]) << 8
        | byte(offs[1][0]) << 16
        | byte(offs[1][1]) << 24;
    let r1 = byte(offs[2][0])
        | byte(offs[2][1]) << 8
        | (byte(offs[3][0]) | 0x40) << 16
        | byte(offs[3][1]) << 24;
    for lane in 0..32 {
        w.set_reg_f32(lane, 2, u);
        w.set_reg_f32(lane, 3, v);
        w.set_reg(lane, 40, r0);
        w.set_reg(lane, 41, r1);
    }
    run("TLD4.R.PTP R12, R8, R2, R40, UR7, 2D ;", &mut w, &s).unwrap();
    // Texel k = (i0 + dx_k, j0 + dy_k) with (i0, j0) = (40, 40).
    let t = |k: usize| (40 + offs[k][0] as i32) as u32 + 1000 * (40 + offs[k][1] as i32) as u32;
    assert_eq!(regs(&w, 0, 8, 2), vec![t(0), t(1)]);
    assert_eq!(regs(&w, 0, 12, 2), vec![t(2), t(3)]);
}

#[test]
fn array_layer_is_the_low_half_of_the_first_ra_register_and_clamps() {
    let s = setup(named(TextureKind::Tex2DArray, 4, 4, 3), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    let (u, v) = st(0, 0, 4, 4);
    for lane in 0..32 {
        // High half garbage is ignored; layers past the end clamp to 2.
        w.set_reg(lane, 20, 0xabcd_0000 | lane as u32);
        w.set_reg_f32(lane, 21, u);
        w.set_reg_f32(lane, 22, v);
    }
    run("TLD4.R R10, R8, R20, UR4, ARRAY_2D ;", &mut w, &s).unwrap();
    for lane in 0..32 {
        let layer = (lane as u32).min(2);
        assert_eq!(
            w.reg(lane, 11),
            100 * layer,
            "lane {lane}: (i0, j0) = (0, 0) of layer {layer}"
        );
    }
}

#[test]
fn cube_coordinates_are_three_registers() {
    // +X face (storage layer 0) of a 2x2 cube: direction (1, 0, 0) hits the face centre.
    let s = setup(named(TextureKind::Cube, 2, 2, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    // -X face is storage layer 1: direction (-1, 0, 0).
    for lane in 0..32 {
        w.set_reg_f32(lane, 20, if lane % 2 == 0 { 1.0 } else { -1.0 });
        w.set_reg_f32(lane, 21, 0.0);
        w.set_reg_f32(lane, 22, 0.0);
    }
    run("TLD4.R R10, R8, R20, UR4, CUBE ;", &mut w, &s).unwrap();
    for lane in 0..32 {
        let face = (lane % 2) as u32;
        // At the face centre the footprint is the whole 2x2 face: all four texels of that layer.
        let mut got = regs(&w, lane, 8, 4);
        got.sort();
        assert_eq!(
            got,
            vec![100 * face, 1 + 100 * face, 10 + 100 * face, 11 + 100 * face],
            "lane {lane}"
        );
    }
}

#[test]
fn write_mask_packs_enabled_components_and_rz_discards() {
    let tex = Texture::from_fn(
        desc(TextureKind::Tex2D, Format::Rgba32Uint, 4, 4, 1),
        |_, x, y| [x + 10 * y, 0, 0, 0],
    )
    .unwrap();
    let s = setup(tex, Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    let (u, v) = st(1, 1, 4, 4);
    for lane in 0..32 {
        w.set_reg_f32(lane, 20, u);
        w.set_reg_f32(lane, 21, v);
        for r in 8..16 {
            w.set_reg(lane, r, 0xdead);
        }
    }
    // Mask 0x5 = components x (i0, j1) and z (i1, j0): both land in Rd, Rd+1; Rd2 untouched.
    run("TLD4.R R12, R8, R20, UR4, 2D, 0x5 ;", &mut w, &s).unwrap();
    assert_eq!(regs(&w, 3, 8, 2), vec![1 + 20, 2 + 10]);
    assert_eq!(regs(&w, 3, 10, 6), vec![0xdead; 6]);
    // Mask 0x7 with Rd = RZ: x, y vanish, z lands in Rd2.
    run("TLD4.R R12, RZ, R20, UR4, 2D, 0x7 ;", &mut w, &s).unwrap();
    assert_eq!(regs(&w, 3, 12, 2), vec![2 + 10, 0xdead]);
    // Mask 0: nothing written.
    for lane in 0..32 {
        w.set_reg(lane, 12, 0xdead);
    }
    run("TLD4.R R12, R8, R20, UR4, 2D, 0x0 ;", &mut w, &s).unwrap();
    assert_eq!(w.reg(0, 12), 0xdead);
}

#[test]
fn guard_active_mask_and_negation_select_lanes() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    w.active_mask = 0x0000_ffff;
    for lane in 0..32 {
        w.set_pred(lane, 2, lane % 4 == 0);
        w.set_reg(lane, 8, 0xdead);
    }
    let rep = run("@!P2 TLD4.R R10, R8, R20, UR4, 2D ;", &mut w, &s).unwrap();
    let expected: u32 = (0..16).filter(|l| l % 4 != 0).map(|l| 1u32 << l).sum();
    assert_eq!(rep.executed, expected);
    for lane in 0..32 {
        assert_eq!(
            w.reg(lane, 8) != 0xdead,
            expected >> lane & 1 == 1,
            "lane {lane}"
        );
    }
}

#[test]
fn sources_may_overlap_destinations() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    let (u, v) = st(2, 1, 4, 4);
    for lane in 0..32 {
        w.set_reg_f32(lane, 8, u);
        w.set_reg_f32(lane, 9, v);
    }
    // Rd = Ra = R8: the coordinates are read before R8, R9 are written.
    run("TLD4.R R10, R8, R8, UR4, 2D ;", &mut w, &s).unwrap();
    assert_eq!(regs(&w, 0, 8, 4), vec![2 + 20, 3 + 20, 3 + 10, 2 + 10]);
}

#[test]
fn depth_compare_reads_dref_after_offsets() {
    let d = desc(TextureKind::Tex2D, Format::D32Float, 4, 4, 1);
    // depth(x, y) = x / 4
    let tex = Texture::from_fn(d, |_, x, _| [(x as f32 / 4.0).to_bits(), 0, 0, 0]).unwrap();
    let sampler = Sampler {
        compare: Some(CompareOp::Less),
        ..Sampler::default()
    };
    let s = setup(tex, sampler);
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    let (u, v) = st(0, 1, 4, 4);
    for lane in 0..32 {
        w.set_reg_f32(lane, 20, u);
        w.set_reg_f32(lane, 21, v);
        w.set_reg(lane, 24, 1); // AOFFI dx = 1: i0 = 1, i1 = 2
        w.set_reg_f32(lane, 25, 0.3); // dref
    }
    run("TLD4.A.AOFFI.DC R10, R8, R20, R24, UR4, 2D ;", &mut w, &s).unwrap();
    // LESS: dref < depth. depth(1) = 0.25 fails, depth(2) = 0.5 passes; the component field is ignored.
    let f = |x: f32| x.to_bits();
    assert_eq!(regs(&w, 0, 8, 4), vec![f(0.0), f(1.0), f(1.0), f(0.0)]);
}

#[test]
fn f16_output_packs_pairs_into_rd_and_rd2() {
    let d = desc(TextureKind::Tex2D, Format::R32Float, 2, 2, 1);
    // texels (x, y): values chosen to round differently under RN and RZ.
    let vals = [
        1.0f32 + 3.0 * 2f32.powi(-12),
        2.0,
        -1.0 - 3.0 * 2f32.powi(-12),
        70000.0,
    ];
    let tex =
        Texture::from_fn(d, |_, x, y| [vals[(x + 2 * y) as usize].to_bits(), 0, 0, 0]).unwrap();
    let s = setup(tex, Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    for lane in 0..32 {
        w.set_reg_f32(lane, 20, 0.5);
        w.set_reg_f32(lane, 21, 0.5);
        w.set_reg(lane, 9, 0xdead);
    }
    // Gather order: (0,1), (1,1), (1,0), (0,0) = vals[2], vals[3], vals[1], vals[0].
    let order = [vals[2], vals[3], vals[1], vals[0]];
    for (mode, round) in [("RN", f16_rn as fn(f32) -> u16), ("RZ", f16_rz)] {
        run(
            &format!("TLD4.R.F16.{mode} R10, R8, R20, UR4, 2D ;"),
            &mut w,
            &s,
        )
        .unwrap();
        let h = |k: usize| round(order[k]) as u32;
        assert_eq!(w.reg(0, 8), h(0) | h(1) << 16, "{mode}");
        assert_eq!(w.reg(0, 10), h(2) | h(3) << 16, "{mode}");
        assert_eq!(w.reg(0, 9), 0xdead, "{mode}: Rd+1 is not written with F16");
    }
    // The RN/RZ difference is visible: 70000 -> inf (RN) vs 65504 (RZ).
    assert_eq!(f16_rn(70000.0), 0x7c00);
    assert_eq!(w.reg(0, 8) >> 16, 0x7bff);
}

#[test]
fn predicate_destination_is_set_when_not_resident() {
    let tex = named(TextureKind::Tex2D, 8, 8, 1);
    let mut res = Residency::all_resident(tex.desc(), 4, 4).unwrap();
    res.set(0, 1, 0, false).unwrap(); // tile x 4..7, y 0..3 not resident
    let s = setup(tex.with_residency(res).unwrap(), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    for lane in 0..32 {
        let (u, v) = st(if lane < 16 { 1 } else { 5 }, 1, 8, 8);
        w.set_reg_f32(lane, 20, u);
        w.set_reg_f32(lane, 21, v);
        w.set_pred(lane, 0, lane % 2 == 0);
    }
    let rep = run("TLD4.R P0, R10, R8, R20, UR4, 2D ;", &mut w, &s).unwrap();
    assert_eq!(rep.nonresident, 0xffff_0000);
    for lane in 0..32 {
        assert_eq!(w.pred(lane, 0), lane >= 16, "lane {lane}");
        if lane >= 16 {
            assert_eq!(
                regs(&w, lane, 8, 4),
                vec![0; 4],
                "non-resident lanes read zeros"
            );
        }
    }
}

#[test]
fn illegal_encodings_fault_even_with_no_lane_executing() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.active_mask = 0;
    for text in [
        "TLD4.R R10, R8, R20, UR4, INVALID2 ;",
        "TLD4.R.INVALID3 R10, R8, R20, R24, UR4, 2D ;",
        "TLD4.R.INVALID3.INVALID3 R10, R8, R20, R24, UR4, 2D ;",
        "TLD4.R.INVALID7 R10, R8, R20, UR4, 2D ;",
        "TLD4.R R10, R8, ???255, UR4, 2D ;",
        "TLD4.R.DC R10, R8, R20, UR4, 2D ;",
        "TLD4.R.B R10, R8, R20, ???255, 2D ;",
    ] {
        let e = run(text, &mut w, &s).unwrap_err();
        assert!(matches!(e, WarpFault::IllegalEncoding(_)), "{text}: {e}");
    }
}

#[test]
fn out_of_range_registers_fault_before_anything_is_written() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    // Rd2 = R254 receives z, w: R254, R255 runs past R254.
    let e = run("TLD4.R R254, R8, R20, UR4, 2D ;", &mut w, &s).unwrap_err();
    assert_eq!(
        e,
        WarpFault::RegisterOutOfRange {
            operand: Operand::Rd2,
            first: 254,
            last: 255,
            limit: 254,
            limit_name: "R254"
        }
    );
    // A 3-coordinate vector at R253.
    let e = run("TLD4.R R10, R8, R253, UR4, CUBE ;", &mut w, &s).unwrap_err();
    assert!(
        matches!(
            e,
            WarpFault::RegisterOutOfRange {
                operand: Operand::Ra,
                first: 253,
                last: 255,
                ..
            }
        ),
        "{e}"
    );
    // Registers per thread.
    w.regs_per_thread = 24;
    assert!(run("TLD4.R R22, R8, R20, UR4, 2D ;", &mut w, &s).is_ok());
    let e = run("TLD4.R R23, R8, R20, UR4, 2D ;", &mut w, &s).unwrap_err();
    assert!(
        matches!(
            e,
            WarpFault::RegisterOutOfRange {
                operand: Operand::Rd2,
                first: 23,
                last: 24,
                limit: 23,
                ..
            }
        ),
        "{e}"
    );
    // Illegal encoding wins over out-of-range.
    let e = run("TLD4.R R254, R8, R20, UR4, INVALID0 ;", &mut w, &s).unwrap_err();
    assert!(matches!(e, WarpFault::IllegalEncoding(_)));
}

#[test]
fn alignment_is_a_setting_off_by_default() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    let insn = parse("TLD4.R R11, R9, R20, UR4, 2D ;").unwrap();
    assert!(Tld4Exec::new(&insn, ExecConfig::default())
        .execute(&mut w, &s.pool)
        .is_ok());
    let strict = ExecConfig {
        require_aligned_pairs: true,
        ..ExecConfig::default()
    };
    let e = Tld4Exec::new(&insn, strict)
        .execute(&mut w, &s.pool)
        .unwrap_err();
    assert_eq!(
        e,
        WarpFault::MisalignedRegister {
            operand: Operand::Rd,
            reg: 9
        }
    );
    // A single register (mask with one component) needs no alignment.
    let one = parse("TLD4.R R11, R9, R20, UR4, 2D, 0x1 ;").unwrap();
    assert!(Tld4Exec::new(&one, strict).execute(&mut w, &s.pool).is_ok());
}

#[test]
fn bad_handles_name_the_lowest_lane_and_the_index() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    for lane in 0..32 {
        w.set_reg(
            lane,
            30,
            if lane >= 5 {
                Handle::new(9, 0).unwrap().0
            } else {
                s.handle
            },
        );
        w.set_reg(lane, 8, 0xdead);
    }
    let e = run("TLD4.R.B R10, R8, R20, R30, 2D ;", &mut w, &s).unwrap_err();
    match &e {
        WarpFault::UnknownTextureHeader { lane, source, .. } => {
            assert_eq!(*lane, 5);
            assert!(source.to_string().contains("index 9"), "{source}");
        }
        other => panic!("{other}"),
    }
    // Nothing was written, not even for the good lanes 0..4.
    assert_eq!(w.reg(0, 8), 0xdead);
    // A bad sampler index in the uniform handle.
    w.set_ureg(4, Handle::new(0, 77).unwrap().0);
    w.active_mask = 0xffff_fff0;
    let e = run("TLD4.R R10, R8, R20, UR4, 2D ;", &mut w, &s).unwrap_err();
    assert!(
        matches!(&e, WarpFault::UnknownSampler { lane: 4, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("77"), "{e}");
}

#[test]
fn unmodeled_cases_are_typed_and_distinct() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    for (text, what) in [
        ("TLD4.R.F16.RN R10, R8, R20, UR4, 2D ;", "integer"),
        ("TLD4.R R10, R8, R20, UR4, CUBE ;", "Cube"),
    ] {
        let e = run(text, &mut w, &s).unwrap_err();
        assert!(e.is_not_modeled(), "{text}: {e}");
        assert!(e.to_string().contains(what), "{text}: {e}");
    }
    let d = setup(
        Texture::from_fn(
            desc(TextureKind::Tex2D, Format::D32Float, 4, 4, 1),
            |_, _, _| [0, 0, 0, 0],
        )
        .unwrap(),
        Sampler::default(),
    );
    w.set_ureg(4, d.handle);
    let e = run("TLD4.R.DC R10, R8, R20, R24, UR4, 2D ;", &mut w, &d).unwrap_err();
    assert!(
        e.is_not_modeled() && e.to_string().contains("compare"),
        "{e}"
    );
    let c = setup(named(TextureKind::Cube, 4, 4, 1), Sampler::default());
    w.set_ureg(4, c.handle);
    let e = run("TLD4.R.AOFFI R10, R8, R20, R24, UR4, CUBE ;", &mut w, &c).unwrap_err();
    assert!(e.is_not_modeled(), "{e}");
}

#[test]
fn hints_change_no_value() {
    let s = setup(named(TextureKind::Tex2D, 4, 4, 1), Sampler::default());
    let mut w = WarpState::new();
    w.set_ureg(4, s.handle);
    for lane in 0..32 {
        w.set_reg_f32(lane, 20, 0.3 + lane as f32 * 0.01);
        w.set_reg_f32(lane, 21, 0.6);
    }
    let mut plain = w.clone();
    run("TLD4.G R10, R8, R20, UR4, 2D ;", &mut plain, &s).unwrap();
    let mut insn = parse("TLD4.SCR.G.EL.NODEP R10, R8, R20, UR4, 2D ;").unwrap();
    insn.usched_info = 0x1b;
    insn.batch_t = 5;
    insn.dst_wr_sb = 3;
    insn.req_bit_set = 0x3f;
    insn.pm_pred = 2;
    Tld4Exec::new(&insn, ExecConfig::default())
        .execute(&mut w, &s.pool)
        .unwrap();
    assert_eq!(w, plain);
}
