//! A micro benchmark of the fast path on one core: `cargo run --release -p tld4-textures --example gather_bench`.
//!
//! Measures lane gathers per second for the two workloads the executor is sized against:
//! RGBA8 UNORM 2D with clamp to edge, and D32 cube array with depth compare.

use std::hint::black_box;
use std::time::Instant;

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
    // one call per lane
    if mode != "many" {
        let start = Instant::now();
        let mut acc = 0u32;
        for _ in 0..rounds {
            for q in queries {
                let r = g.gather(black_box(q));
                acc = acc.wrapping_add(r.values[0] ^ r.values[3]);
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{name}, gather: {:.1} M lane gathers/s ({:.2} ns each) [{acc:x}]",
            n / secs / 1e6,
            secs / n * 1e9
        );
    }
    if mode == "single" {
        return;
    }
    // one call per warp of 32 lanes
    let start = Instant::now();
    let mut acc = 0u32;
    let mut out = [GatherResult::default(); 32];
    for _ in 0..rounds {
        for warp in queries.chunks(32) {
            g.gather_many(black_box(warp), &mut out);
            acc = acc.wrapping_add(out[0].values[0] ^ out[31].values[3]);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name}, gather_many: {:.1} M lane gathers/s ({:.2} ns each) [{acc:x}]",
        n / secs / 1e6,
        secs / n * 1e9
    );
}

fn main() {
    let mut state = 0x1234_5678_9abc_def0u64;
    let rounds = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(40);

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
    let queries: Vec<GatherQuery> = (0..1 << 16)
        .map(|_| GatherQuery::at(unit(&mut state) * 1.2 - 0.1, unit(&mut state) * 1.2 - 0.1))
        .collect();
    run("rgba8_unorm 2d clamp_to_edge", &g, &queries, rounds);

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
    let queries: Vec<GatherQuery> = (0..1 << 16)
        .map(|_| {
            let v = [
                unit(&mut state) * 2.0 - 1.0,
                unit(&mut state) * 2.0 - 1.0,
                unit(&mut state) * 2.0 - 1.0,
            ];
            GatherQuery::at_cube(v[0], v[1], v[2])
                .with_layer((xorshift(&mut state) % 5) as u32)
                .with_dref(unit(&mut state))
        })
        .collect();
    run("d32_float cube_array compare", &g, &queries, rounds);

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
    let queries: Vec<GatherQuery> = (0..1 << 16)
        .map(|_| {
            GatherQuery::at(unit(&mut state) * 4.0 - 2.0, unit(&mut state))
                .with_layer(2)
                .with_ptp([[1, 2], [-3, 4], [5, -6], [7, 8]])
        })
        .collect();
    run("rgba16_float 2d_array repeat ptp", &g, &queries, rounds);
}
