//! Profiling aid: the tld4 side of `tld4-lavapipe bench` without Vulkan: the same texture
//! sizes, formats, samplers and coordinate distributions, K = 16 gathers per query at
//! coordinates moved as the bench's shader moves them, 32 gathers (two queries) a warp, the
//! registers made per warp from the queries. Deterministic, so `valgrind --tool=callgrind`
//! counts are comparable between builds.
//!
//! `cargo run --release -p tld4-emu --example stream_bench [ROW] [ROUNDS]` (ROW: rgba8, cube,
//! ptp or all; `TEX_SIZE=n` sets the 2D texture's size, 256 by default). `MEMORY=block-linear`
//! (16 GOBs a block), `MEMORY=pitch` (32-byte rows; 2D only) or `MEMORY=addresses`
//! (block-linear, recording every lane's texel addresses) executes through a memory binding
//! of the same texture, as a simulator does; the check value is the owned run's.
//! `EXEC=each` calls `Tld4Exec::execute` (the pool passed each warp, nothing bound by the
//! caller) instead of executing through a binding made once a round; `EXEC=rebind` binds
//! afresh for every warp (`exec.bind(&pool).execute(..)`: preparing the texture unit each
//! warp, what `execute` did before it kept its last preparation). With `MEMORY`, `EXEC=each`
//! calls `Tld4Exec::execute_memory` a warp (the one-shot memory call: the descriptors read
//! from the image each warp) instead of the memory binding made once a round. `FLAT=1` with
//! `MEMORY` copies the image into one `FlatMemory` (as `tld4 bench`'s flat memory rows).
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use tld4_emu::{ExecConfig, LaneTexels, Tld4Exec, WarpState, WARP_SIZE};
use tld4_gpu_memory::*;
use tld4_textures::*;

/// Gathers per query.
const K: usize = 16;
/// The shader's coordinate steps (s, t, z).
const STEPS: [f32; 3] = [0.015625, -0.0078125, 0.003_906_25];

struct Row {
    name: &'static str,
    texture: Texture,
    sampler: Sampler,
    insn: &'static str,
    /// R20.. of each query.
    queries: Vec<[u32; 6]>,
    /// (register, coordinate) pairs the gathers move.
    moves: &'static [(usize, usize)],
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(|s| s.as_str()).unwrap_or("all");
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(7);
    let size: u32 = std::env::var("TEX_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let n = 65536usize;
    let exec_mode = std::env::var("EXEC").unwrap_or_default();
    let (each, rebind) = (exec_mode == "each", exec_mode == "rebind");
    let mut rng = StdRng::seed_from_u64(20260602);
    let d = |kind, format, w, h, layers| TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        layers,
    };
    let rgba8 = Texture::from_fn(
        d(TextureKind::Tex2D, Format::Rgba8Unorm, size, size, 1),
        |_, _, _| [0u32; 4].map(|_| rng.gen_range(0..256u32)),
    )
    .unwrap();
    let depth = Texture::from_fn(
        d(TextureKind::CubeArray, Format::D32Float, 64, 64, 4),
        |_, _, _| [rng.gen::<f32>().to_bits(), 0, 0, 0],
    )
    .unwrap();
    let q2d: Vec<[u32; 6]> = (0..n)
        .map(|_| {
            let (s, t) = (rng.gen_range(-0.1f32..1.1), rng.gen_range(-0.1f32..1.1));
            [s.to_bits(), t.to_bits(), 0, 0, 0, 0]
        })
        .collect();
    let qdc: Vec<[u32; 6]> = (0..n)
        .map(|_| {
            let layer = rng.gen_range(0..4u32);
            let [x, y, z] = [(); 3].map(|_| rng.gen_range(-1.0f32..1.0));
            let dref: f32 = rng.gen();
            [
                layer,
                x.to_bits(),
                y.to_bits(),
                z.to_bits(),
                dref.to_bits(),
                0,
            ]
        })
        .collect();
    let qptp: Vec<[u32; 6]> = (0..n)
        .map(|_| {
            let (s, t) = (rng.gen_range(-0.1f32..1.1), rng.gen_range(-0.1f32..1.1));
            let o: [u32; 8] = std::array::from_fn(|_| rng.gen_range(-8i32..8) as u32 & 0x3f);
            let w0 = o[0] | o[1] << 8 | o[2] << 16 | o[3] << 24;
            let w1 = o[4] | o[5] << 8 | o[6] << 16 | o[7] << 24;
            [s.to_bits(), t.to_bits(), 0, 0, w0, w1]
        })
        .collect();
    let clamp = Sampler {
        address_u: AddressMode::ClampToEdge,
        address_v: AddressMode::ClampToEdge,
        ..Sampler::default()
    };
    let rows = vec![
        Row {
            name: "rgba8",
            texture: rgba8.clone(),
            sampler: clamp,
            insn: "TLD4.R R10, R8, R20, UR4, 2D ;",
            queries: q2d,
            moves: &[(0, 0), (1, 1)],
        },
        Row {
            name: "cube",
            texture: depth,
            sampler: Sampler {
                compare: Some(CompareOp::LessOrEqual),
                ..clamp
            },
            insn: "TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;",
            queries: qdc,
            moves: &[(1, 0), (2, 1), (3, 2)],
        },
        Row {
            name: "ptp",
            texture: rgba8,
            sampler: Sampler {
                address_u: AddressMode::Repeat,
                address_v: AddressMode::Repeat,
                ..Sampler::default()
            },
            insn: "TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;",
            queries: qptp,
            moves: &[(0, 0), (1, 1)],
        },
    ];
    for row in rows {
        if which != "all" && which != row.name {
            continue;
        }
        let memory = std::env::var("MEMORY").ok().filter(|m| !m.is_empty());
        let layout = match memory.as_deref() {
            Some("pitch") => LayoutChoice::Pitch { row_alignment: 32 },
            _ => LayoutChoice::BlockLinear {
                gobs_per_block_height_log2: 4,
            },
        };
        let image = match memory {
            Some(_) => match pool_image(&[(&row.texture, &row.sampler, layout)], 0x1_0000_0000) {
                Ok(i) => Some(i),
                Err(e) => {
                    println!("{}: no memory form ({e})", row.name);
                    continue;
                }
            },
            None => None,
        };
        let addresses = memory.as_deref() == Some("addresses");
        // the image as one flat range where FLAT is set (from its lowest region to its end)
        let flat = image
            .as_ref()
            .filter(|_| std::env::var_os("FLAT").is_some())
            .map(|i| i.memory.to_flat());
        let mem: Option<&dyn Memory> = match (&flat, &image) {
            (Some(f), _) => Some(f),
            (None, Some(i)) => Some(&i.memory),
            _ => None,
        };
        let mut texels = [LaneTexels::default(); WARP_SIZE];
        let mut pool = TexturePool::new();
        let t = pool.add_texture(row.texture).expect("room in the pool");
        let s = pool.add_sampler(row.sampler).expect("room in the pool");
        let insn = tld4_decoder::parse(row.insn).unwrap();
        let exec = Tld4Exec::new(&insn, ExecConfig::default());
        // the registers R20.. the TLD4 reads: the only ones made (as in the lavapipe bench)
        let used = insn.used_registers();
        let read: [bool; 6] = std::array::from_fn(|k| used.reads_reg(20 + k as u8));
        let mut warp = WarpState::new();
        // (the image's entry 0 is header 0 and sampler 0, as the pool's are)
        warp.set_ureg(4, Handle::new(t, s).unwrap().0);
        let mut delta = [[0f32; K]; 6];
        let mut moved = [false; 6];
        for &(r, a) in row.moves {
            moved[r] = true;
            for (k, d) in delta[r].iter_mut().enumerate() {
                *d = k as f32 * STEPS[a];
            }
        }
        let mut times = Vec::new();
        let mut check = 0u32;
        for _ in 0..rounds {
            let t0 = Instant::now();
            let mut owned = exec.bind(&pool);
            let mut in_memory = image
                .as_ref()
                .zip(mem)
                .map(|(i, m)| exec.bind_memory(MemoryPool::new(m, i.header_pool, i.sampler_pool)));
            for pair in row.queries.chunks(WARP_SIZE / K) {
                for r in (0..6).filter(|&r| read[r]) {
                    let Some(out) = warp.reg_lanes_mut(20 + r as u8) else {
                        continue;
                    };
                    for (h, q) in pair.iter().enumerate() {
                        let lanes = &mut out[h * K..(h + 1) * K];
                        if moved[r] {
                            let base = f32::from_bits(q[r]);
                            for (v, d) in lanes.iter_mut().zip(&delta[r]) {
                                *v = (base + d).to_bits();
                            }
                        } else {
                            lanes.fill(q[r]);
                        }
                    }
                }
                match (&mut in_memory, &image) {
                    (Some(_), Some(i)) if each => {
                        let m = mem.expect("a memory with the image");
                        let pool = MemoryPool::new(m, i.header_pool, i.sampler_pool);
                        exec.execute_memory(&mut warp, &pool, addresses.then_some(&mut texels))
                            .unwrap();
                    }
                    (Some(b), _) => {
                        b.execute_with_texels(&mut warp, addresses.then_some(&mut texels))
                            .unwrap();
                    }
                    (None, _) if rebind => {
                        exec.bind(&pool).execute(&mut warp).unwrap();
                    }
                    (None, _) if each => {
                        exec.execute(&mut warp, &pool).unwrap();
                    }
                    (None, _) => {
                        owned.execute(&mut warp).unwrap();
                    }
                }
                check ^= warp.reg(0, 8) ^ warp.reg(31, 11);
            }
            times.push(t0.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let g = (row.queries.len() * K) as f64;
        println!(
            "{}: median {:.1} M gathers/s (min {:.1}, max {:.1}) check {check:08x}",
            row.name,
            g / times[times.len() / 2] / 1e6,
            g / times[times.len() - 1] / 1e6,
            g / times[0] / 1e6
        );
    }
}
