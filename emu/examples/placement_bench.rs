//! `Tld4Exec::execute` (and with `MEM=1` the one-shot `Tld4Exec::execute_memory` over one
//! flat block-linear image) against the same instruction bound once, with the warp's
//! registers at 32 places of a page, 128 bytes apart: `tld4 bench` repeats one warp at the
//! one place its allocator gave it, and that place moves its `execute` / bound ratio
//! (docs/benchmarks.md, "Where the warp lies"). The register file is the example's own
//! ([`Rows`]: register-major rows in a buffer, as a simulator's may be), and at each place
//! the two sides run in alternation, 7 times each (the same machine load for both; this
//! host has slow phases of seconds); printed: the median rates and the median of the 7
//! ratios, then the spread of those over the places.
//!
//! `cargo run --release -p tld4-emu --example placement_bench [WARPS]` (default 20,000 warps
//! a timing): the D32 FLOAT cube array with depth compare of `tld4 bench`, 32 lanes at the
//! same coordinates each warp. Run it a few times: where the thread-local block, the stack
//! and the heap lie (address randomisation) moves every place's ratio together.
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::time::Instant;
use tld4_emu::gpu_memory::{pool_image, LayoutChoice};
use tld4_emu::textures::*;
use tld4_emu::{copy_lanes, ExecConfig, MemoryPool, RegisterFile, Tld4Exec, WARP_SIZE};

/// Places of the registers in a page, and the bytes between them.
const PLACES: usize = 32;
const STEP_BYTES: usize = 128;
/// Timings of each side a place.
const TIMINGS: usize = 7;

/// A warp's registers as register-major rows in a caller's buffer; every lane active, no
/// predicate but PT set.
struct Rows<'a> {
    rows: &'a mut [[u32; WARP_SIZE]],
    uregs: [u32; 256],
}

impl RegisterFile for Rows<'_> {
    fn reg(&self, lane: usize, r: u8) -> u32 {
        self.rows[r as usize][lane]
    }
    fn set_reg(&mut self, lane: usize, r: u8, value: u32) {
        self.rows[r as usize][lane] = value;
    }
    fn pred(&self, _lane: usize, p: u8) -> bool {
        p == 7
    }
    fn set_pred(&mut self, _lane: usize, _p: u8, _value: bool) {}
    fn ureg(&self, u: u8) -> u32 {
        self.uregs[u as usize]
    }
    fn active_mask(&self) -> u32 {
        u32::MAX
    }
    fn regs_per_thread(&self) -> u16 {
        255
    }
    fn reg_row(&self, r: u8) -> Option<&[u32; WARP_SIZE]> {
        Some(&self.rows[r as usize])
    }
    fn set_reg_lanes(&mut self, r: u8, lanes: u32, values: &[u32; WARP_SIZE]) {
        copy_lanes(&mut self.rows[r as usize], lanes, values);
    }
}

/// A warp with registers `rows` in `buf` from index `at`.
fn place<'b>(
    buf: &'b mut [u32],
    at: usize,
    rows: &[[u32; WARP_SIZE]; 256],
    uregs: [u32; 256],
) -> Rows<'b> {
    let (r, _) = buf[at..at + 256 * WARP_SIZE].as_chunks_mut::<WARP_SIZE>();
    r.copy_from_slice(rows);
    Rows { rows: r, uregs }
}

/// Median of `v`.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let warps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let in_memory = std::env::var_os("MEM").is_some();
    let mut rng = StdRng::seed_from_u64(3);
    let desc = TextureDesc {
        kind: TextureKind::CubeArray,
        format: Format::D32Float,
        width: 64,
        height: 64,
        layers: 4,
    };
    let texture = Texture::from_fn(desc, |_, _, _| {
        [rng.gen_range(0.0f32..1.0).to_bits(), 0, 0, 0]
    })
    .expect("texture");
    let sampler = Sampler {
        compare: Some(CompareOp::LessOrEqual),
        ..Sampler::default()
    };
    let layout = LayoutChoice::BlockLinear {
        gobs_per_block_height_log2: 4,
    };
    let image = pool_image(&[(&texture, &sampler, layout)], 0x1_0000_0000).expect("image");
    let memory = image.memory.to_flat();
    let memory = MemoryPool::new(&memory, image.header_pool, image.sampler_pool);
    let mut pool = TexturePool::new();
    let t = pool.add_texture(texture).expect("room in the pool");
    let s = pool.add_sampler(sampler).expect("room in the pool");
    let insn = tld4_emu::decoder::parse("TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;")
        .expect("instruction");
    let exec = Tld4Exec::new(&insn, ExecConfig::default());
    let mut rows = [[0u32; WARP_SIZE]; 256];
    let mut rng = StdRng::seed_from_u64(2);
    for lane in 0..WARP_SIZE {
        rows[20][lane] = rng.gen_range(0..4);
        for row in &mut rows[21..24] {
            row[lane] = rng.gen_range(-1.0f32..1.0).to_bits();
        }
        rows[24][lane] = rng.gen_range(0.0f32..1.0).to_bits();
    }
    let mut uregs = [0u32; 256];
    // (header 0 and sampler 0: the pool's first entries, and the image's)
    uregs[4] = Handle::new(t, s).expect("handle").0;
    let mut bound = exec.bind(&pool);
    let mut bound_memory = exec.bind_memory(memory);
    // one buffer a side, each room for a warp at every place
    let len = 256 * WARP_SIZE + PLACES * STEP_BYTES / 4;
    let (mut each_buf, mut bound_buf) = (vec![0u32; len], vec![0u32; len]);
    let mut ratios = Vec::new();
    println!(
        "{} / bound once, D32 FLOAT cube array (M lane gathers/s, median of {TIMINGS}):",
        if in_memory {
            "one-shot flat memory"
        } else {
            "execute"
        }
    );
    for k in 0..PLACES {
        let at = k * STEP_BYTES / 4;
        let (mut each_warp, mut bound_warp) = (
            place(&mut each_buf, at, &rows, uregs),
            place(&mut bound_buf, at, &rows, uregs),
        );
        let offset = each_warp.rows.as_ptr() as usize & 0xfff;
        // each side's call (the one-shot call or `execute`; the binding)
        let each = |w: &mut Rows| match in_memory {
            true => exec.execute_memory(w, &memory, None),
            false => exec.execute(w, &pool).map_err(Into::into),
        };
        let mut once = |w: &mut Rows| match in_memory {
            true => bound_memory.execute(w),
            false => bound.execute(w).map_err(Into::into),
        };
        // the two sides agree before they are timed
        match (each(&mut each_warp), once(&mut bound_warp)) {
            (Ok(a), Ok(b)) if a == b && each_warp.rows[10..14] == bound_warp.rows[10..14] => {}
            other => panic!("the sides differ at place {k}: {other:?}"),
        }
        let rate = |t0: Instant| (warps * WARP_SIZE) as f64 / t0.elapsed().as_secs_f64() / 1e6;
        let (mut e, mut b, mut r) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..TIMINGS {
            let t0 = Instant::now();
            for _ in 0..warps {
                let _ = black_box(each(&mut each_warp));
            }
            let each_rate = rate(t0);
            let t0 = Instant::now();
            for _ in 0..warps {
                let _ = black_box(once(&mut bound_warp));
            }
            let once_rate = rate(t0);
            e.push(each_rate);
            b.push(once_rate);
            r.push(each_rate / once_rate);
        }
        let ratio = median(&mut r);
        ratios.push(ratio);
        println!(
            "  registers at page offset {offset:#05x}: {:6.1} / {:6.1}  ratio {ratio:.3}",
            median(&mut e),
            median(&mut b)
        );
    }
    let median_ratio = median(&mut ratios);
    println!(
        "over {PLACES} places: ratio {:.3}-{:.3}, median {median_ratio:.3}",
        ratios[0],
        ratios[PLACES - 1]
    );
}
