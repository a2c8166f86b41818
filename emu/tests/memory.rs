//! Executing TLD4 against textures in GPU memory: the same warps give the same registers as
//! the owned-texture pool, per-lane texel addresses are reported when asked, and bad or
//! unmodeled descriptors and unmapped memory are typed errors naming the lane.

use tld4_decoder::parse;
use tld4_emu::*;
use tld4_gpu_memory::*;
use tld4_textures::*;

fn texture(kind: TextureKind, format: Format, w: u32, layers: u32) -> Texture {
    let d = TextureDesc {
        kind,
        format,
        width: w,
        height: w,
        layers,
    };
    Texture::from_fn(d, |l, x, y| {
        let v = (x * 37 + y * 11 + l * 5) & 0xff;
        [v, 255 - v, v ^ 0x5a, 200]
    })
    .unwrap()
}

/// Owned pool and the same texture and sampler as a pool image (header 0, sampler 0).
fn both(tex: &Texture, smp: &Sampler, layout: LayoutChoice) -> (TexturePool, PoolImage) {
    let mut pool = TexturePool::new();
    pool.add_texture(tex.clone()).unwrap();
    pool.add_sampler(*smp).unwrap();
    (
        pool,
        pool_image(&[(tex, smp, layout)], 0x7_0000_0000).unwrap(),
    )
}

fn warp(seed: u32) -> WarpState {
    let mut w = WarpState::new();
    let mut x = seed.wrapping_mul(2654435761) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for lane in 0..32 {
        for r in 20..24 {
            w.set_reg_f32(lane, r, (next() % 4000) as f32 / 1000.0 - 1.5);
        }
        w.set_reg(lane, 24, next() & 0x3f3f);
        w.set_reg(lane, 25, next());
        w.set_reg(lane, 19, next() % 4);
    }
    w.set_ureg(4, 0);
    w.active_mask = 0xfff7_ffef;
    w
}

#[test]
fn memory_pools_execute_like_owned_pools() {
    let cases: &[(&str, TextureKind, Format, u32, LayoutChoice, Sampler)] = &[
        (
            "TLD4.G.AOFFI R8, R10, R20, R24, UR4, 2D ;",
            TextureKind::Tex2D,
            Format::Rgba8Unorm,
            13,
            LayoutChoice::Pitch { row_alignment: 64 },
            Sampler::with_address(AddressMode::ClampToBorder),
        ),
        (
            "TLD4.B.PTP R8, R10, R20, R24, UR4, 2D ;",
            TextureKind::Tex2D,
            Format::Rgba16Float,
            9,
            LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: 3,
            },
            Sampler::with_address(AddressMode::MirroredRepeat),
        ),
        (
            "TLD4.A R8, R10, R19, UR4, ARRAY_2D ;",
            TextureKind::Tex2DArray,
            Format::Rgba32Uint,
            17,
            LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: 1,
            },
            Sampler::with_address(AddressMode::Repeat),
        ),
        (
            "TLD4.R R8, R10, R20, UR4, CUBE ;",
            TextureKind::Cube,
            Format::Rgba8Srgb,
            6,
            LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: 0,
            },
            Sampler::default(),
        ),
    ];
    for (text, kind, format, w, layout, smp) in cases {
        let layers = if kind.is_array() { 4 } else { 1 };
        let tex = texture(*kind, *format, *w, layers);
        let (owned, image) = both(&tex, smp, *layout);
        let mem = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
        let exec = Tld4Exec::new(&parse(text).unwrap(), ExecConfig::default());
        // one record array for every warp, first holding records of no warp: a lane that
        // does not execute must say it read nothing, not keep an earlier record
        let stale = LaneTexels {
            texels: [TexelAddress::Texel {
                address: 0x42,
                bytes: 4,
            }; 4],
        };
        let mut texels = [stale; WARP_SIZE];
        for seed in 0..40 {
            let (mut a, mut b) = (warp(seed), warp(seed));
            let ra = exec.execute(&mut a, &owned).unwrap();
            let rb = exec
                .execute_memory(&mut b, &mem, Some(&mut texels))
                .unwrap();
            assert_eq!(ra, rb, "{text}");
            for (lane, lt) in texels.iter().enumerate() {
                assert_eq!(
                    a.lane_regs(lane),
                    b.lane_regs(lane),
                    "{text} seed {seed} lane {lane}"
                );
                let executed = ra.executed >> lane & 1 != 0;
                let recorded = lt.texels.iter().any(|t| *t != TexelAddress::None);
                assert_eq!(executed, recorded, "{text} lane {lane}");
                // every recorded texel is inside the texture's bytes
                for t in lt.texels {
                    if let TexelAddress::Texel { address, bytes } = t {
                        let mut buf = vec![0; bytes as usize];
                        image.memory.read(address, &mut buf).unwrap();
                    }
                }
            }
            // without the address output: the same registers
            let mut c = warp(seed);
            exec.execute_memory(&mut c, &mem, None).unwrap();
            for lane in 0..32 {
                assert_eq!(a.lane_regs(lane), c.lane_regs(lane));
            }
        }
    }
}

#[test]
fn unmapped_texels_and_bad_descriptors_are_typed_errors() {
    let tex = texture(TextureKind::Tex2D, Format::Rgba8Unorm, 4, 1);
    let form = to_memory(
        &tex,
        &Sampler::default(),
        LayoutChoice::Pitch { row_alignment: 32 },
        0x9000,
    )
    .unwrap();
    let mut mem = SparseMemory::new();
    let bytes = |w: &[u32; 8]| w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    let mut bad_tic = form.tic;
    bad_tic[3] &= !(0xf << 28); // HEADER_VERSION 0: no such version
    let mut ogl = form.tsc;
    ogl[0] = (ogl[0] & !7) | 4; // ADDRESS_U CLAMP_OGL
    mem.map(0x1000, [bytes(&form.tic), bytes(&bad_tic)].concat())
        .unwrap();
    mem.map(0x2000, [bytes(&form.tsc), bytes(&ogl)].concat())
        .unwrap();
    let pool = MemoryPool::new(&mem, 0x1000, 0x2000);
    let exec = Tld4Exec::new(
        &parse("TLD4.R.B R8, R10, R20, R24, 2D ;").unwrap(),
        ExecConfig::default(),
    );
    let run = |handles: [u32; 2]| {
        let mut w = WarpState::new();
        for lane in 0..32 {
            w.set_reg(lane, 24, handles[(lane >= 3) as usize]);
        }
        exec.execute_memory(&mut w, &pool, None)
    };
    // the texels (at 0x9000) are not mapped: lane 0's read fails
    match run([0, 0]).unwrap_err() {
        e @ MemoryExecError::Memory {
            lane: 0,
            handle: 0,
            // clamp to edge at (0, 0): all four texels are (0, 0) of layer 0
            read:
                MemoryRead::Texel {
                    layer: 0,
                    x: 0,
                    y: 0,
                },
            source: MemoryError::Unmapped { addr, .. },
        } => {
            assert!((0x9000..0x9000 + 4 * 32).contains(&addr));
            assert_eq!(e.kind(), FaultKind::InvalidTexture);
        }
        e => panic!("{e}"),
    }
    // sampler 2 is not mapped: the descriptor read fails, naming its address
    let e = run([0x20_0000, 1]).unwrap_err();
    assert_eq!(
        e,
        MemoryExecError::Memory {
            lane: 0,
            handle: 0x20_0000,
            read: MemoryRead::Sampler,
            source: MemoryError::Unmapped {
                addr: 0x2040,
                len: 32
            }
        }
    );
    assert_eq!(e.kind(), FaultKind::UnknownSampler);
    // header 2 is not mapped either: the header read fails first
    let e = run([2, 2]).unwrap_err();
    assert!(
        matches!(
            e,
            MemoryExecError::Memory {
                lane: 0,
                handle: 2,
                read: MemoryRead::TextureHeader,
                source: MemoryError::Unmapped {
                    addr: 0x1040,
                    len: 32
                }
            }
        ),
        "{e}"
    );
    assert_eq!(e.kind(), FaultKind::UnknownTextureHeader);
    let e = run([0, 1]).unwrap_err();
    // lanes 0-2 read texels (unmapped) before lane 3's handle is resolved
    assert!(matches!(e, MemoryExecError::Memory { lane: 0, .. }), "{e}");
    // sampler 1 (CLAMP_OGL) is legal but not modeled
    mem.map(0x9000, form.bytes.clone()).unwrap();
    let pool = MemoryPool::new(&mem, 0x1000, 0x2000);
    let mut w = WarpState::new();
    for lane in 0..32 {
        w.set_reg(lane, 24, if lane < 5 { 0 } else { 1 << 20 });
    }
    let e = exec.execute_memory(&mut w, &pool, None).unwrap_err();
    assert!(e.is_not_modeled(), "{e}");
    assert!(
        matches!(&e, MemoryExecError::Fault(WarpFault::NotModeled { lane: Some(5), what, .. }) if what.contains("ADDRESS_U")),
        "{e}"
    );
    // the reason is typed: the sampler's field and value, the sentence derived from it
    let MemoryExecError::Fault(f) = &e else {
        panic!("{e}")
    };
    assert_eq!(
        f.not_modeled_reason(),
        Some(&NotModeledReason::Descriptor {
            handle: 1 << 20,
            descriptor: "sampler",
            field: "ADDRESS_U",
            value: 4,
            why: "no source gives this address mode's gather",
        })
    );
    assert!(f
        .to_string()
        .ends_with(&f.not_modeled_reason().unwrap().to_string()));
    // header 1: HEADER_VERSION names the field
    for lane in 0..32 {
        w.set_reg(lane, 24, 1);
    }
    let e = exec.execute_memory(&mut w, &pool, None).unwrap_err();
    assert!(
        matches!(&e, MemoryExecError::BadDescriptor { lane: 0, handle: 1, source } if source.to_string().contains("HEADER_VERSION")),
        "{e}"
    );
    // HEADER_VERSION 0 is what an empty (zeroed) slot holds: unknown_texture_header, as an
    // index past an owned pool is
    assert_eq!(e.kind(), FaultKind::UnknownTextureHeader);
    assert_eq!(e.lane(), Some(0));
    // any other illegal header value refuses the texture
    let other = MemoryExecError::BadDescriptor {
        lane: 0,
        handle: 1,
        source: DescriptorError::Invalid {
            descriptor: "texture header",
            field: "HEADER_VERSION",
            value: 7,
            why: "no such header version",
        },
    };
    assert_eq!(other.kind(), FaultKind::InvalidTexture);
}
