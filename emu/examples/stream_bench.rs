//! Profiling aid: the tld4 side of `tld4-lavapipe bench` without Vulkan (same texture sizes,
//! formats, samplers, coordinate distributions and K = 16 moved gathers per query, fresh
//! registers loaded per warp). `cargo run --release -p tld4-emu --example stream_bench [ROW] [ROUNDS]`
use std::time::Instant;
use tld4_emu::{ExecConfig, Tld4Exec, WarpState, WARP_SIZE};
use tld4_textures::*;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(|s| s.as_str()).unwrap_or("all");
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(7);
    let n = 65536usize;
    let k = 16usize;
    let mut rng = Rng(20260602);
    // TEX_SIZE: the 2D texture's size (the lavapipe bench's is 256)
    let size: u32 = std::env::var("TEX_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let d = |kind, format, w, h, layers| TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        layers,
    };
    let rgba8 = Texture::from_fn(
        d(TextureKind::Tex2D, Format::Rgba8Unorm, size, size, 1),
        |_, _, _| [0; 4].map(|_: u32| 0).map(|_| (rng.next() % 256) as u32),
    )
    .unwrap();
    let depth = Texture::from_fn(
        d(TextureKind::CubeArray, Format::D32Float, 64, 64, 4),
        |_, _, _| [(rng.unit() as f32).to_bits(), 0, 0, 0],
    )
    .unwrap();
    let mut rows: Vec<(&str, Texture, Sampler, &str, Vec<[u32; 6]>)> = Vec::new();
    let mut regs2d = Vec::new();
    for _ in 0..n {
        let (s, t) = (rng.uniform(-0.1, 1.1) as f32, rng.uniform(-0.1, 1.1) as f32);
        for j in 0..k {
            let f = j as f32;
            regs2d.push([
                (s + f * 0.015625).to_bits(),
                (t + f * -0.0078125).to_bits(),
                0,
                0,
                0,
                0,
            ]);
        }
    }
    let mut regsdc = Vec::new();
    for _ in 0..n {
        let layer = (rng.next() % 4) as u32;
        let [x, y, z] = [(); 3].map(|_| rng.uniform(-1.0, 1.0) as f32);
        let dref = rng.unit() as f32;
        for j in 0..k {
            let f = j as f32;
            regsdc.push([
                layer,
                (x + f * 0.015625).to_bits(),
                (y + f * -0.0078125).to_bits(),
                (z + f * 0.00390625).to_bits(),
                dref.to_bits(),
                0,
            ]);
        }
    }
    let mut regsptp = Vec::new();
    for _ in 0..n {
        let (s, t) = (rng.uniform(-0.1, 1.1) as f32, rng.uniform(-0.1, 1.1) as f32);
        let o: [u32; 8] = std::array::from_fn(|_| ((rng.next() % 16) as i32 - 8) as u32 & 0x3f);
        let w0 = o[0] | o[1] << 8 | o[2] << 16 | o[3] << 24;
        let w1 = o[4] | o[5] << 8 | o[6] << 16 | o[7] << 24;
        for j in 0..k {
            let f = j as f32;
            regsptp.push([
                (s + f * 0.015625).to_bits(),
                (t + f * -0.0078125).to_bits(),
                0,
                0,
                w0,
                w1,
            ]);
        }
    }
    let clamp = Sampler {
        address_u: AddressMode::ClampToEdge,
        address_v: AddressMode::ClampToEdge,
        ..Sampler::default()
    };
    let dc = Sampler {
        compare: Some(CompareOp::LessOrEqual),
        ..clamp.clone()
    };
    let rep = Sampler {
        address_u: AddressMode::Repeat,
        address_v: AddressMode::Repeat,
        ..Sampler::default()
    };
    rows.push((
        "rgba8",
        rgba8.clone(),
        clamp,
        "TLD4.R R10, R8, R20, UR4, 2D ;",
        regs2d,
    ));
    rows.push((
        "cube",
        depth,
        dc,
        "TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;",
        regsdc,
    ));
    rows.push((
        "ptp",
        rgba8,
        rep,
        "TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;",
        regsptp,
    ));
    for (name, tex, smp, insn, regs) in rows {
        if which != "all" && which != name {
            continue;
        }
        let mut pool = TexturePool::new();
        let t = pool.add_texture(tex);
        let s = pool.add_sampler(smp);
        let exec = Tld4Exec::new(&tld4_decoder::parse(insn).unwrap(), ExecConfig::default());
        let mut warp = WarpState::new();
        warp.set_ureg(4, Handle::new(t, s).unwrap().0);
        let mut times = Vec::new();
        let mut check = 0u32;
        // register-major per warp: warps[w][j][lane]
        let warps: Vec<[[u32; WARP_SIZE]; 6]> = regs
            .chunks(WARP_SIZE)
            .map(|c| std::array::from_fn(|j| std::array::from_fn(|l| c.get(l).map_or(0, |r| r[j]))))
            .collect();
        for _ in 0..rounds {
            let t0 = Instant::now();
            for wregs in &warps {
                for (j, row) in wregs.iter().enumerate() {
                    warp.set_reg_lanes(20 + j as u8, u32::MAX, row);
                }
                exec.execute(&mut warp, &pool).unwrap();
                check ^= warp.reg(0, 8) ^ warp.reg(31, 11);
            }
            times.push(t0.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let g = regs.len() as f64;
        println!(
            "{name}: median {:.1} M gathers/s (min {:.1}, max {:.1}) check {check:08x}",
            g / times[times.len() / 2] / 1e6,
            g / times[times.len() - 1] / 1e6,
            g / times[0] / 1e6
        );
    }
}
