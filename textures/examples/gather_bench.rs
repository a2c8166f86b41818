//! A micro benchmark of the fast path on one core:
//! `cargo run --release -p tld4-textures --example gather_bench [FILTER]`.
//!
//! Measures lane gathers per second for the two workloads the executor is sized against,
//! RGBA8 UNORM 2D with clamp to edge and D32 cube array with depth compare (plus one with
//! repeat and PTP offsets), through `gather` (one call per lane) and `gather_many` (one call
//! per warp of 32 lanes). "coherent" warps sample a small neighbourhood, as a warp of pixels
//! does; "scattered" lanes are independent random points (cache misses dominate).
//! Environment: ROUNDS (default 40), MODE=single|many. Each figure is the best of 5 runs.
//! The "memory" lines run the same RGBA8 workload through the memory-backed pipeline
//! (`SiteGatherer` over `MemoryTexels`, block-linear and pitch), with and without the
//! per-lane texel addresses.

use std::hint::black_box;
use std::time::Instant;

use tld4_gpu_memory::*;
use tld4_textures::*;

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn unit(state: &mut u64) -> f32 {
    (xorshift(state) >> 40) as f32 / (1u64 << 24) as f32
}

fn run(name: &str, g: &Gatherer<'_>, queries: &[GatherQuery], rounds: usize) {
    if let Some(only) = std::env::args().nth(1) {
        if !name.contains(&only) {
            return;
        }
    }
    let n = (queries.len() * rounds) as f64;
    let mode = std::env::var("MODE").unwrap_or_default();
    if mode != "many" {
        let mut secs = f64::MAX;
        let mut acc = 0u32;
        for _ in 0..5 {
            let start = Instant::now();
            for _ in 0..rounds {
                for q in queries {
                    let r = g.gather(black_box(q));
                    acc = acc.wrapping_add(r.values[0] ^ r.values[3]);
                }
            }
            secs = secs.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{name}, gather: {:.1} M lane gathers/s ({:.2} ns each) [{acc:x}]",
            n / secs / 1e6,
            secs / n * 1e9
        );
    }
    if mode != "single" {
        let mut secs = f64::MAX;
        let mut acc = 0u32;
        let mut out = [GatherResult::default(); 32];
        for _ in 0..5 {
            let start = Instant::now();
            for _ in 0..rounds {
                for warp in queries.chunks(32) {
                    g.gather_many(black_box(warp), &mut out);
                    acc = acc.wrapping_add(out[0].values[0] ^ out[31].values[3]);
                }
            }
            secs = secs.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{name}, gather_many: {:.1} M lane gathers/s ({:.2} ns each) [{acc:x}]",
            n / secs / 1e6,
            secs / n * 1e9
        );
    }
}

/// 2^16 lanes in warps of 32; `lane(state, warp_centre)` makes one lane.
fn lanes(
    state: &mut u64,
    coherent: bool,
    mut lane: impl FnMut(&mut u64, [f32; 3], bool) -> GatherQuery,
) -> Vec<GatherQuery> {
    let mut out = Vec::with_capacity(1 << 16);
    for _ in 0..(1 << 16) / 32 {
        let centre = [unit(state), unit(state), unit(state)];
        for _ in 0..32 {
            out.push(lane(state, centre, coherent));
        }
    }
    out
}

fn main() {
    let mut state = 0x1234_5678_9abc_def0u64;
    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(40);

    // RGBA8 UNORM, 256x256, clamp to edge
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 256,
        height: 256,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [x & 255, y & 255, (x ^ y) & 255, 255]).unwrap();
    let sampler = Sampler::with_address(AddressMode::ClampToEdge);
    let g = Gatherer::new(
        &tex,
        &sampler,
        &GatherOp::new(TextureKind::Tex2D, 1),
        Precision::default(),
    )
    .unwrap();
    for coherent in [true, false] {
        let qs = lanes(&mut state, coherent, |st, c, coherent| {
            if coherent {
                // an 8x4 block of pixels, one texel apart
                GatherQuery::at(c[0] + unit(st) * 8.0 / 256.0, c[1] + unit(st) * 4.0 / 256.0)
            } else {
                GatherQuery::at(unit(st) * 1.2 - 0.1, unit(st) * 1.2 - 0.1)
            }
        });
        let name = if coherent {
            "rgba8_unorm 2d clamp_to_edge (coherent)"
        } else {
            "rgba8_unorm 2d clamp_to_edge (scattered)"
        };
        run(name, &g, &qs, rounds);
    }

    // D32 cube array, 4 cubes of 64x64, compare less_or_equal
    let desc = TextureDesc {
        kind: TextureKind::CubeArray,
        format: Format::D32Float,
        width: 64,
        height: 64,
        layers: 4,
    };
    let tex = Texture::from_fn(desc, |l, x, y| {
        [
            (((l * 7 + x * 3 + y) % 97) as f32 / 97.0).to_bits(),
            0,
            0,
            0,
        ]
    })
    .unwrap();
    let sampler = Sampler {
        compare: Some(CompareOp::LessOrEqual),
        ..Sampler::default()
    };
    let op = GatherOp {
        compare: true,
        ..GatherOp::new(TextureKind::CubeArray, 0)
    };
    let g = Gatherer::new(&tex, &sampler, &op, Precision::default()).unwrap();
    for coherent in [true, false] {
        let qs = lanes(&mut state, coherent, |st, c, coherent| {
            let v = if coherent {
                // directions within a few texels of the warp's
                let d = 0.05;
                [
                    c[0] * 2.0 - 1.0 + unit(st) * d,
                    c[1] * 2.0 - 1.0 + unit(st) * d,
                    c[2] * 2.0 - 1.0 + unit(st) * d,
                ]
            } else {
                [
                    unit(st) * 2.0 - 1.0,
                    unit(st) * 2.0 - 1.0,
                    unit(st) * 2.0 - 1.0,
                ]
            };
            let layer = if coherent {
                (c[0] * 4.0) as u32
            } else {
                (xorshift(st) % 5) as u32
            };
            GatherQuery::at_cube(v[0], v[1], v[2])
                .with_layer(layer)
                .with_dref(unit(st))
        });
        let name = if coherent {
            "d32_float cube_array compare (coherent)"
        } else {
            "d32_float cube_array compare (scattered)"
        };
        run(name, &g, &qs, rounds);
    }

    // RGBA16 FLOAT 2D array, repeat, PTP offsets
    let desc = TextureDesc {
        kind: TextureKind::Tex2DArray,
        format: Format::Rgba16Float,
        width: 128,
        height: 128,
        layers: 4,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [x * 100, y * 100, 0x3c00, 0x3c00]).unwrap();
    let sampler = Sampler::with_address(AddressMode::Repeat);
    let op = GatherOp {
        offsets: OffsetMode::Ptp,
        ..GatherOp::new(TextureKind::Tex2DArray, 0)
    };
    let g = Gatherer::new(&tex, &sampler, &op, Precision::default()).unwrap();
    let qs = lanes(&mut state, true, |st, c, _| {
        GatherQuery::at(c[0] * 4.0 - 2.0 + unit(st) * 0.06, c[1] + unit(st) * 0.03)
            .with_layer(2)
            .with_ptp([[1, 2], [-3, 4], [5, -6], [7, 8]])
    });
    run(
        "rgba16_float 2d_array repeat ptp (coherent)",
        &g,
        &qs,
        rounds,
    );

    memory_benches(&mut state, rounds);
}

fn run_memory(
    name: &str,
    g: &SiteGatherer<MemoryTexels<'_>>,
    queries: &[GatherQuery],
    rounds: usize,
) {
    if let Some(only) = std::env::args().nth(1) {
        if !name.contains(&only) {
            return;
        }
    }
    let n = (queries.len() * rounds) as f64;
    for addresses in [false, true] {
        let mut secs = f64::MAX;
        let mut acc = 0u32;
        let mut out = [GatherResult::default(); 32];
        let mut texels = [LaneTexels::default(); 32];
        for _ in 0..5 {
            let start = Instant::now();
            for _ in 0..rounds {
                for warp in queries.chunks(32) {
                    let t = addresses.then_some(&mut texels[..]);
                    g.gather_many(black_box(warp), &mut out, t).unwrap();
                    acc = acc.wrapping_add(out[0].values[0] ^ out[31].values[3]);
                }
            }
            secs = secs.min(start.elapsed().as_secs_f64());
        }
        println!(
            "{name}, memory gather_many{}: {:.1} M lane gathers/s ({:.2} ns each) [{acc:x}]",
            if addresses { " + addresses" } else { "" },
            n / secs / 1e6,
            secs / n * 1e9
        );
    }
}

fn memory_benches(state: &mut u64, rounds: usize) {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 256,
        height: 256,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [x & 255, y & 255, (x ^ y) & 255, 255]).unwrap();
    let sampler = Sampler::with_address(AddressMode::ClampToEdge);
    let qs = lanes(state, true, |st, c, _| {
        GatherQuery::at(c[0] + unit(st) * 8.0 / 256.0, c[1] + unit(st) * 4.0 / 256.0)
    });
    for (name, layout) in [
        (
            "rgba8_unorm 2d clamp_to_edge (coherent), block-linear",
            LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: 4,
            },
        ),
        (
            "rgba8_unorm 2d clamp_to_edge (coherent), pitch",
            LayoutChoice::Pitch { row_alignment: 256 },
        ),
    ] {
        let image = pool_image(&[(&tex, &sampler, layout)], 0x1_0000_0000).unwrap();
        let pool = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
        let g = pool
            .gatherer(
                Handle(0),
                &GatherOp::new(TextureKind::Tex2D, 1),
                Precision::default(),
            )
            .unwrap();
        run_memory(name, &g, &qs, rounds);
    }
}
