//! A texture read by the sectors a warp's texels lie in ([`DetachedTexture::gather_by_sectors`])
//! gathers what the texel-by-texel path gathers, whatever the thread's scratch held before:
//! each case first reads a texture of other texels at the same addresses by sectors, every
//! texel of it, so a sector the second reading failed to fetch would give the first one's
//! bytes. Textures of each kind, pitch and block-linear, every address mode's edge, AOFFI,
//! PTP and depth compare, lanes at scattered and at neighbouring places; lane-parallel
//! levels and the per-lane path (the scalar level, and runs of fewer lanes than the kernels
//! take).

use std::cell::RefCell;

use tld4_gpu_memory::*;
use tld4_textures::*;

const LANES: usize = 32;

/// One case: a texture's description, the sampler, the gather and the layout.
struct Case {
    desc: TextureDesc,
    sampler: Sampler,
    op: GatherOp,
    layout: LayoutChoice,
}

/// The texture of `case` whose texel (l, x, y) holds `salt`-dependent words (in every format
/// the bits differ for a different salt).
fn texture(case: &Case, salt: u32) -> Texture {
    Texture::from_fn(case.desc, |l, x, y| {
        let v = (l * 7919 + y * 131 + x * 17) ^ salt.wrapping_mul(0x9e37_79b9);
        let word = |mask: u32| {
            [
                v & mask,
                (v >> 8) & mask,
                (v >> 16) & mask,
                (v >> 24) & mask,
            ]
        };
        match case.desc.format {
            Format::D32Float => [((v % 1000) as f32 / 1000.0).to_bits(), 0, 0, 0],
            // (finite halves)
            Format::Rgba16Float => word(0x3bff),
            Format::Rgba8Unorm => word(0xff),
            _ => [v, v.rotate_left(8), v.rotate_left(16), v.rotate_left(24)],
        }
    })
    .unwrap()
}

/// The read calls a memory made by [`reader`] receives.
type Calls = RefCell<Vec<(u64, usize)>>;

/// A read function over `image`, recording each call; `refuse` is an address none of whose
/// reads succeed.
fn reader<'a>(
    image: &'a PoolImage,
    calls: &'a Calls,
    refuse: Option<u64>,
) -> impl Fn(u64, &mut [u8]) -> bool + 'a {
    move |addr: u64, dst: &mut [u8]| {
        calls.borrow_mut().push((addr, dst.len()));
        let refused = refuse.is_some_and(|r| addr <= r && r < addr + dst.len() as u64);
        !refused && image.memory.read(addr, dst).is_ok()
    }
}

/// The case's texture (salt `salt`) as header and sampler 0 of an image at a fixed base.
fn image(case: &Case, salt: u32) -> PoolImage {
    let tex = texture(case, salt);
    pool_image(&[(&tex, &case.sampler, case.layout)], 0x4000_0000).unwrap()
}

/// The texture of `image` prepared apart from its memory.
fn detached(case: &Case, image: &PoolImage) -> DetachedTexture {
    let pool = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
    let (h, s) = (
        pool.header_words(0).unwrap(),
        pool.sampler_words(0).unwrap(),
    );
    DetachedTexture::new(&pool.descriptors, &h, &s, &case.op, Precision::default()).unwrap()
}

/// A xorshift stream.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    /// In [lo, hi).
    fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (self.next() % 10_000) as f32 / 10_000.0 * (hi - lo)
    }
}

/// A query of `case` at random: coordinates past both edges, any layer, offsets, a depth
/// reference.
fn query(case: &Case, rng: &mut Rng) -> GatherQuery {
    let coords = if case.desc.kind.is_cube() {
        let mut c = [
            rng.float(-1.0, 1.0),
            rng.float(-1.0, 1.0),
            rng.float(-1.0, 1.0),
        ];
        // (a major axis now and then exactly on a face, the rest near its edges)
        c[rng.next() as usize % 3] = if rng.next().is_multiple_of(2) {
            1.0
        } else {
            -1.0
        };
        c
    } else {
        [rng.float(-0.3, 1.3), rng.float(-0.3, 1.3), 0.0]
    };
    let layer = rng.next() % (case.desc.layers + 1);
    let offsets =
        std::array::from_fn(|_| [(rng.next() % 17) as i8 - 8, (rng.next() % 17) as i8 - 8]);
    GatherQuery {
        coords,
        layer,
        offsets,
        dref: rng.float(0.0, 1.0),
    }
}

/// A warp of `case` at neighbouring places, as a screen-space pass samples: lane `l` is
/// `origin` moved (l % 8, l / 8) texels along the face's axes (2D kinds: along x and y;
/// cube kinds: along the two axes other than the major one), so that neighbouring lanes
/// share sectors, up to and past the texture's edges (the origin lies anywhere `query`
/// puts it).
fn coherent(case: &Case, origin: &GatherQuery) -> Vec<GatherQuery> {
    let step = [case.desc.width, case.desc.height].map(|n| 1.0 / n as f32);
    let cube = case.desc.kind.is_cube();
    // (a cube coordinate's axes past its major one move across that face, two per unit)
    let major = (0..3)
        .max_by(|&a, &b| origin.coords[a].abs().total_cmp(&origin.coords[b].abs()))
        .unwrap_or(0);
    let axes = if cube {
        [(major + 1) % 3, (major + 2) % 3]
    } else {
        [0, 1]
    };
    let scale = if cube { 2.0 } else { 1.0 };
    (0..LANES)
        .map(|l| {
            let mut q = *origin;
            for (a, d) in [(l % 8) as f32, (l / 8) as f32].into_iter().enumerate() {
                q.coords[axes[a]] += d * step[a] * scale;
            }
            q
        })
        .collect()
}

/// Queries covering every texel of `case`'s texture (2D kinds: one a 2x2 footprint; cube
/// kinds: every direction on a grid of each face), every layer.
fn covering(case: &Case) -> Vec<GatherQuery> {
    let TextureDesc {
        width,
        height,
        layers,
        ..
    } = case.desc;
    let mut out = Vec::new();
    for layer in 0..layers {
        if case.desc.kind.is_cube() {
            for face in 0..6usize {
                for j in 0..=height {
                    for i in 0..=width {
                        let a = 2.0 * i as f32 / width as f32 - 1.0;
                        let b = 2.0 * j as f32 / height as f32 - 1.0;
                        let sign = if face.is_multiple_of(2) { 1.0 } else { -1.0 };
                        let mut c = [0.0f32; 3];
                        c[face / 2] = sign;
                        c[(face / 2 + 1) % 3] = a;
                        c[(face / 2 + 2) % 3] = b;
                        out.push(GatherQuery {
                            coords: c,
                            layer,
                            ..GatherQuery::default()
                        });
                    }
                }
            }
        } else {
            for y in (0..=height).step_by(2) {
                for x in (0..=width).step_by(2) {
                    out.push(GatherQuery {
                        coords: [x as f32 / width as f32, y as f32 / height as f32, 0.0],
                        layer,
                        ..GatherQuery::default()
                    });
                }
            }
        }
    }
    out
}

/// `queries` as lanes.
fn lanes_of(queries: &[GatherQuery]) -> LaneQueries {
    let mut lanes = LaneQueries::new();
    for q in queries {
        lanes.push(q).unwrap();
    }
    lanes
}

fn cases() -> Vec<Case> {
    let desc = |kind, format, width, height, layers| TextureDesc {
        kind,
        format,
        width,
        height,
        layers,
    };
    let bl = |k| LayoutChoice::BlockLinear {
        gobs_per_block_height_log2: k,
    };
    vec![
        Case {
            desc: desc(TextureKind::Tex2D, Format::Rgba8Unorm, 96, 80, 1),
            sampler: Sampler::with_address(AddressMode::ClampToBorder),
            op: GatherOp {
                offsets: OffsetMode::Aoffi,
                ..GatherOp::new(TextureKind::Tex2D, 1)
            },
            layout: bl(1),
        },
        Case {
            desc: desc(TextureKind::Tex2D, Format::Rgba32Uint, 40, 24, 1),
            sampler: Sampler::with_address(AddressMode::Repeat),
            op: GatherOp {
                offsets: OffsetMode::Ptp,
                ..GatherOp::new(TextureKind::Tex2D, 2)
            },
            layout: LayoutChoice::Pitch { row_alignment: 64 },
        },
        Case {
            desc: desc(TextureKind::Tex2DArray, Format::Rgba16Float, 33, 17, 3),
            sampler: Sampler::with_address(AddressMode::MirroredRepeat),
            op: GatherOp::new(TextureKind::Tex2DArray, 0),
            layout: bl(0),
        },
        Case {
            desc: desc(TextureKind::CubeArray, Format::D32Float, 16, 16, 2),
            sampler: Sampler {
                compare: Some(CompareOp::LessOrEqual),
                ..Sampler::default()
            },
            op: GatherOp {
                compare: true,
                ..GatherOp::new(TextureKind::CubeArray, 0)
            },
            layout: bl(2),
        },
        Case {
            desc: desc(TextureKind::Cube, Format::Rgba8Unorm, 8, 8, 1),
            sampler: Sampler::default(),
            op: GatherOp::new(TextureKind::Cube, 3),
            layout: bl(0),
        },
    ]
}

#[test]
fn a_texture_read_by_sectors_gathers_what_the_texel_by_texel_path_gathers() {
    let levels = [SimdLevel::Avx2, SimdLevel::Portable, SimdLevel::Scalar];
    let mut rng = Rng(0x1234_5678);
    for case in cases() {
        let (a, b) = (image(&case, 1), image(&case, 2));
        let (ta, tb) = (detached(&case, &a), detached(&case, &b));
        assert!(ta.in_place().is_some(), "{:?}", case.desc);
        let at = format!("{:?} {:?}", case.desc, case.layout);
        // every texel of the other texture through the scratch first
        let calls = Calls::default();
        let read_b = reader(&b, &calls, None);
        let other = CallbackMemory::for_one_warp(&read_b);
        for chunk in covering(&case).chunks(LANES) {
            let lanes = lanes_of(chunk);
            let mut out = LaneResults::new();
            let done = tb.gather_by_sectors(&other, levels[0], &lanes, 0..chunk.len(), &mut out);
            assert!(matches!(done, Some(Ok(()))), "{at}");
        }
        // then this one: each texel fetched, or the other's bytes would show
        let pool = MemoryPool::new(&a.memory, a.header_pool, a.sampler_pool);
        let per_read = pool
            .prepare(Handle(0), &case.op, Precision::default())
            .unwrap();
        let calls = Calls::default();
        let read_a = reader(&a, &calls, None);
        let memory = CallbackMemory::for_one_warp(&read_a);
        let texture_at = ta.header().address;
        for round in 0..24 {
            let level = levels[round % levels.len()];
            // (every third round a warp at neighbouring places: lanes sharing sectors)
            let queries: Vec<GatherQuery> = match round % 3 {
                1 => coherent(&case, &query(&case, &mut rng)),
                _ => (0..LANES).map(|_| query(&case, &mut rng)).collect(),
            };
            let lanes = lanes_of(&queries);
            // (a short run now and then: fewer lanes than the kernels take)
            let range = if round % 5 == 4 { 3..8 } else { 0..LANES };
            let mut out = LaneResults::new();
            calls.borrow_mut().clear();
            let done = ta.gather_by_sectors(&memory, level, &lanes, range.clone(), &mut out);
            assert!(matches!(done, Some(Ok(()))), "{at} at {level:?}");
            for k in range.clone() {
                let want = per_read.per_read.gather(&queries[k]).unwrap();
                assert_eq!(out.get(k).unwrap(), want, "{at} at {level:?}, lane {k}");
            }
            // the sectors (from the texture's first byte) the lanes' texels lie in
            let mut needed = std::collections::BTreeSet::new();
            for k in range.clone() {
                for t in per_read.per_read.addresses(&queries[k]).texels {
                    if let TexelAddress::Texel { bytes, address } = t {
                        let first = address - texture_at;
                        needed.extend(first / 32..=(first + bytes as u64 - 1) / 32);
                    }
                }
            }
            // the reads in address order; each: whole sectors within one 2 KiB block of the
            // texture, from a needed sector to a needed sector; none asked twice; every
            // needed sector asked
            let asked = calls.take();
            assert!(
                asked.is_sorted_by_key(|r| r.0),
                "{at}: reads out of address order: {asked:?}"
            );
            let sectors = |&(addr, len): &(u64, usize)| {
                let first = (addr - texture_at) / 32;
                first..first + (len as u64).div_ceil(32)
            };
            for read in &asked {
                let s = sectors(read);
                assert!(
                    read.0 >= texture_at
                        && (read.0 - texture_at) % 32 == 0
                        && read.1 > 0
                        && s.start / 64 == (s.end - 1) / 64
                        && needed.contains(&s.start)
                        && needed.contains(&(s.end - 1)),
                    "{at}: {read:?} in {asked:?}"
                );
            }
            assert!(
                asked.windows(2).all(|w| w[0].0 + w[0].1 as u64 <= w[1].0),
                "{at}: a byte asked twice: {asked:?}"
            );
            assert!(
                needed
                    .iter()
                    .all(|n| asked.iter().any(|r| sectors(r).contains(n))),
                "{at}: a needed sector not asked: {asked:?}"
            );
            // one read a 2 KiB block the lanes' texels lie in
            let blocks: std::collections::BTreeSet<u64> = needed.iter().map(|n| n / 64).collect();
            assert_eq!(asked.len(), blocks.len(), "{at}: {asked:?}");
        }
    }
}

/// A sector the memory cannot read gives nothing (the caller then reads texel by texel,
/// which names the lane and the address), and leaves the scratch ready for the next call.
#[test]
fn a_sector_that_cannot_be_read_gives_nothing_and_the_next_call_gathers() {
    let case = cases().remove(0);
    let a = image(&case, 1);
    let t = detached(&case, &a);
    let queries: Vec<GatherQuery> = (0..LANES)
        .map(|k| GatherQuery::at(0.5 + k as f32 / 200.0, 0.5))
        .collect();
    let lanes = lanes_of(&queries);
    let pool = MemoryPool::new(&a.memory, a.header_pool, a.sampler_pool);
    let p = pool
        .prepare(Handle(0), &case.op, Precision::default())
        .unwrap();
    // (a texel of lane 5's footprint)
    let TexelAddress::Texel {
        address: inside, ..
    } = p.per_read.addresses(&queries[5]).texels[2]
    else {
        panic!("lane 5 reads its texels");
    };
    let calls = Calls::default();
    let read = reader(&a, &calls, Some(inside));
    let refusing = CallbackMemory::for_one_warp(&read);
    let mut out = LaneResults::new();
    let level = SimdLevel::Portable;
    assert!(t
        .gather_by_sectors(&refusing, level, &lanes, 0..LANES, &mut out)
        .is_none());
    assert!(
        calls
            .borrow()
            .iter()
            .any(|&(addr, len)| addr <= inside && inside < addr + len as u64),
        "the lanes read the refused sector"
    );
    let read_all = reader(&a, &calls, None);
    let memory = CallbackMemory::for_one_warp(&read_all);
    let done = t.gather_by_sectors(&memory, level, &lanes, 0..LANES, &mut out);
    assert!(matches!(done, Some(Ok(()))));
    for (k, q) in queries.iter().enumerate() {
        assert_eq!(
            out.get(k).unwrap(),
            p.per_read.gather(q).unwrap(),
            "lane {k}"
        );
    }
}

/// A read function that panics (unwinding through the gather after its sectors were
/// collected) leaves the thread's scratch ready: the next call reads every sector it needs.
#[test]
fn a_read_that_panics_leaves_the_next_call_reading_its_sectors() {
    let case = cases().remove(0);
    let (a, b) = (image(&case, 1), image(&case, 2));
    let (ta, tb) = (detached(&case, &a), detached(&case, &b));
    let queries: Vec<GatherQuery> = (0..LANES)
        .map(|k| GatherQuery::at((k * 7 % 32) as f32 / 32.0, (k * 13 % 32) as f32 / 32.0))
        .collect();
    let lanes = lanes_of(&queries);
    let level = SimdLevel::Portable;
    let mut out = LaneResults::new();
    // the other texture's bytes first, at the sectors these lanes read
    let calls = Calls::default();
    let read_b = reader(&b, &calls, None);
    let other = CallbackMemory::for_one_warp(&read_b);
    let done = tb.gather_by_sectors(&other, level, &lanes, 0..LANES, &mut out);
    assert!(matches!(done, Some(Ok(()))));
    let panics = |_: u64, _: &mut [u8]| -> bool { panic!("the simulator's read failed") };
    let panicking = CallbackMemory::for_one_warp(&panics);
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ta.gather_by_sectors(&panicking, level, &lanes, 0..LANES, &mut out)
    }));
    assert!(unwound.is_err());
    let read_a = reader(&a, &calls, None);
    let memory = CallbackMemory::for_one_warp(&read_a);
    let done = ta.gather_by_sectors(&memory, level, &lanes, 0..LANES, &mut out);
    assert!(matches!(done, Some(Ok(()))));
    let pool = MemoryPool::new(&a.memory, a.header_pool, a.sampler_pool);
    let p = pool
        .prepare(Handle(0), &case.op, Precision::default())
        .unwrap();
    for (k, q) in queries.iter().enumerate() {
        assert_eq!(
            out.get(k).unwrap(),
            p.per_read.gather(q).unwrap(),
            "lane {k}"
        );
    }
}
