//! The executor gives identical registers, predicates and reports at every SIMD level of
//! the texture unit (`tld4_textures::SimdLevel`; the per-lane reference is `Scalar`), over
//! random warps for instructions covering every texture kind, AOFFI, PTP, depth compare,
//! F16.RN and F16.RZ output, write masks, guards, the predicate destination with a sparse
//! texture, and the register-handle form with a different handle in each run of lanes.
//!
//! One test function: the level is process-wide, so this file runs it alone in its process.

use rand::rngs::StdRng as ChaCha8Rng;
use rand::{Rng, SeedableRng};
use tld4_emu::{ExecConfig, Tld4Exec, WarpState, WARP_SIZE};
use tld4_textures::*;

fn texture(
    kind: TextureKind,
    format: Format,
    size: u32,
    layers: u32,
    rng: &mut ChaCha8Rng,
) -> Texture {
    let desc = TextureDesc {
        kind,
        format,
        width: size,
        height: size,
        layers,
    };
    Texture::from_fn(desc, |_, _, _| {
        std::array::from_fn(|i| {
            let bits = if i < format.fields() {
                format.field_bits(i)
            } else {
                32
            };
            let r: u32 = rng.gen();
            if bits >= 32 {
                if format.is_depth() || r.is_multiple_of(2) {
                    rng.gen_range(0.0f32..1.0).to_bits()
                } else {
                    r
                }
            } else {
                r & ((1 << bits) - 1)
            }
        })
    })
    .unwrap()
}

/// A coordinate: mostly inside, sometimes outside, on a boundary, or special.
fn coord(rng: &mut ChaCha8Rng) -> f32 {
    match rng.gen_range(0..12) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => -0.0,
        3 => rng.gen_range(0..33) as f32 / 16.0 - 0.5,
        _ => rng.gen_range(-1.2f32..1.2),
    }
}

/// Appends textures and samplers to a pool of a few built-in entries, far below the last
/// index a handle names (so an append cannot fail).
struct Appending(TexturePool);

impl Appending {
    fn add_texture(&mut self, t: Texture) -> u32 {
        self.0.add_texture(t).expect("a few textures fit")
    }
    fn add_sampler(&mut self, s: Sampler) -> u32 {
        self.0.add_sampler(s).expect("a few samplers fit")
    }
}

#[test]
fn every_simd_level_executes_identically() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut pool = Appending(TexturePool::new());
    let rgba8 = pool.add_texture(texture(
        TextureKind::Tex2D,
        Format::Rgba8Unorm,
        16,
        1,
        &mut rng,
    ));
    let rgba16f = pool.add_texture(texture(
        TextureKind::Tex2DArray,
        Format::Rgba16Float,
        8,
        3,
        &mut rng,
    ));
    let r32f = pool.add_texture(texture(
        TextureKind::Tex2D,
        Format::R32Float,
        13,
        1,
        &mut rng,
    ));
    let d32 = pool.add_texture(texture(
        TextureKind::CubeArray,
        Format::D32Float,
        8,
        2,
        &mut rng,
    ));
    let d16 = pool.add_texture(texture(
        TextureKind::Tex2D,
        Format::D16Unorm,
        8,
        1,
        &mut rng,
    ));
    let cube = pool.add_texture(texture(
        TextureKind::Cube,
        Format::Rgba8Unorm,
        4,
        1,
        &mut rng,
    ));
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 8,
        height: 8,
        layers: 1,
    };
    let mut res = Residency::all_resident(&desc, 4, 4).unwrap();
    res.set(0, 1, 1, false).unwrap();
    let sparse = pool.add_texture(
        texture(TextureKind::Tex2D, Format::Rgba8Unorm, 8, 1, &mut rng)
            .with_residency(res)
            .unwrap(),
    );
    let clamp = pool.add_sampler(Sampler::default());
    let repeat = pool.add_sampler(Sampler::with_address(AddressMode::Repeat));
    let border = pool.add_sampler(Sampler {
        address_u: AddressMode::ClampToBorder,
        address_v: AddressMode::MirroredRepeat,
        border: BorderColor {
            words: [0x3f00_0000, 0x3e80_0000, 0, 0x3f80_0000],
        },
        ..Sampler::default()
    });
    let less = pool.add_sampler(Sampler {
        compare: Some(CompareOp::LessOrEqual),
        ..Sampler::default()
    });
    let h = |t, s| Handle::new(t, s).unwrap().0;
    // (instruction, handle in UR4, handles a register-form lane may take)
    let cases: Vec<(&str, u32, Vec<u32>)> = vec![
        ("TLD4.R R10, R8, R20, UR4, 2D ;", h(rgba8, clamp), vec![]),
        (
            "TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;",
            h(rgba8, repeat),
            vec![],
        ),
        (
            "TLD4.B.AOFFI R10, R8, R20, R24, UR4, 2D ;",
            h(r32f, border),
            vec![],
        ),
        (
            "TLD4.A R8, R10, R19, UR4, ARRAY_2D ;",
            h(rgba16f, border),
            vec![],
        ),
        (
            "TLD4.B.F16.RN.PTP R12, R8, R21, R24, UR4, 2D, 0xd ;",
            h(rgba8, border),
            vec![],
        ),
        (
            "@!P3 TLD4.A.F16.RZ R12, R14, R21, UR4, ARRAY_2D, 0xf ;",
            h(rgba16f, repeat),
            vec![],
        ),
        (
            "TLD4.R.DC P6, R14, R10, R20, R26, UR4, ARRAY_CUBE ;",
            h(d32, less),
            vec![],
        ),
        (
            "TLD4.R.AOFFI.DC R10, R8, R20, R24, UR4, 2D ;",
            h(d16, less),
            vec![],
        ),
        ("TLD4.G R10, R8, R20, UR4, CUBE ;", h(cube, clamp), vec![]),
        (
            "@P1 TLD4.R.AOFFI P0, R10, R8, R20, R24, UR4, 2D ;",
            h(sparse, clamp),
            vec![],
        ),
        (
            "TLD4.R.B R10, R8, R20, R30, 2D ;",
            0,
            vec![
                h(rgba8, clamp),
                h(r32f, repeat),
                h(rgba8, border),
                h(sparse, repeat),
            ],
        ),
    ];
    let mut compared = 0;
    for (text, ur4, handles) in &cases {
        let insn = tld4_decoder::parse(text).unwrap();
        let exec = Tld4Exec::new(&insn, ExecConfig::default());
        for _ in 0..40 {
            let mut warp = WarpState::new();
            warp.set_ureg(4, *ur4);
            warp.active_mask = if rng.gen_range(0..3) == 0 {
                rng.gen()
            } else {
                u32::MAX
            };
            let mut handle = handles.first().copied().unwrap_or(0);
            for lane in 0..WARP_SIZE {
                for r in 0..64u8 {
                    warp.set_reg(lane, r, rng.gen());
                }
                for r in 19..27u8 {
                    warp.set_reg_f32(lane, r, coord(&mut rng));
                }
                // small layers and offsets now and then
                if rng.gen() {
                    warp.set_reg(lane, 19, rng.gen_range(0..4));
                    warp.set_reg(lane, 20, rng.gen_range(0..4));
                }
                if !handles.is_empty() {
                    if rng.gen_range(0..4) == 0 {
                        handle = handles[rng.gen_range(0..handles.len())];
                    }
                    warp.set_reg(lane, 30, handle);
                }
                for p in 0..7 {
                    warp.set_pred(lane, p, rng.gen());
                }
            }
            let mut outcomes = Vec::new();
            for level in SimdLevel::ALL {
                set_simd_level(level);
                let mut w = warp.clone();
                let r = exec.execute(&mut w, &pool.0);
                outcomes.push((level, r, w));
            }
            set_simd_level(detected_simd_level());
            let (_, r0, w0) = &outcomes[0];
            assert!(r0.is_ok(), "{text}: {r0:?}");
            for (level, r, w) in &outcomes[1..] {
                assert_eq!(r, r0, "{text} at {level:?}");
                for lane in 0..WARP_SIZE {
                    assert_eq!(
                        w.lane_regs(lane),
                        w0.lane_regs(lane),
                        "{text} lane {lane} at {level:?}"
                    );
                    for p in 0..7 {
                        assert_eq!(w.pred(lane, p), w0.pred(lane, p), "{text} lane {lane} P{p}");
                    }
                }
                compared += 1;
            }
            assert_ne!(w0, &warp, "{text}: the execution wrote something");
        }
    }
    assert_eq!(compared, cases.len() * 40 * 2);
}
