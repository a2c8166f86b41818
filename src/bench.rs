//! `tld4 bench`: decode, disassembly and execution throughput (median of several runs), the
//! memory forms a simulator holds textures in (flat, ranges, a read callback: `sparse`), the
//! batch API's scaling over threads (`batch`), and the cost growth with texture size
//! (`growth`).
//! The project's speed targets (README, Benchmarks; one core): decode >= 200 M words/s;
//! disassembly >= 12 M words/s;
//! >= 120 M lane gathers/s for RGBA8 2D clamp-to-edge; >= 90 M/s for D32 cube-array DC.

use std::hint::black_box;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use tld4_decoder::{decode, field, LEGAL_OPEX_VALUES};
use tld4_emu::{execute_batch, ExecConfig, LaneTexels, Tld4Exec, WarpState, WARP_SIZE};
use tld4_gpu_memory::{pool_image, LayoutChoice, MemoryPool};
use tld4_textures::{
    AddressMode, CompareOp, Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool,
};

use crate::CmdResult;

mod sparse;

/// Most runs of a measurement (each run takes about 0.1-0.3 s at scale 1).
pub const MAX_RUNS: usize = 1000;
/// The scale range: 1/1000 to 100 times the default work (at 100, 100 x 2^20 words of 16
/// bytes: 1.6 GiB, the most a run allocates).
pub const SCALE_RANGE: (f64, f64) = (0.001, 100.0);

/// Arguments of `tld4 bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Runs of each measurement, 1..=1000 (the median is reported).
    #[arg(long, default_value_t = 7, value_parser = parse_runs)]
    pub runs: usize,
    /// Scale of each run, 0.001..=100 (1 = about 0.1-0.3 s a run).
    #[arg(long, default_value_t = 1.0, value_parser = parse_scale)]
    pub scale: f64,
    /// Only the measurements whose printed name contains this text (e.g. `decode`,
    /// `execute`, `RGBA8`).
    #[arg(long)]
    pub only: Option<String>,
}

fn parse_runs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_RUNS).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}`: expected a whole number of runs 1..={MAX_RUNS}"
        )),
    }
}

fn parse_scale(s: &str) -> Result<f64, String> {
    let (lo, hi) = SCALE_RANGE;
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!("`{s}`: expected a scale {lo}..={hi}")),
    }
}

/// "target T: met" or "target T: missed" for a measured rate.
fn target_text(measured: f64, target: f64) -> String {
    let verdict = if measured >= target { "met" } else { "missed" };
    format!("target {target}: {verdict}")
}

/// Times `f` (which performs `work` units) `runs` times; returns the median units per second.
fn median_rate(runs: usize, work: u64, mut f: impl FnMut()) -> f64 {
    f(); // warm-up
    let mut rates: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            work as f64 / t.elapsed().as_secs_f64()
        })
        .collect();
    // A run too short for the clock gives an infinite rate: total_cmp orders it, no panic.
    rates.sort_by(|a, b| a.total_cmp(b));
    rates[rates.len() / 2]
}

/// Times `f` (which performs `work` units) `runs` times at `level` and `runs` times at the
/// scalar reference level, alternating, so that both see the same machine load; returns the
/// rates of each (`level` first). The level is left at the scalar one.
fn alternating_rates(
    runs: usize,
    work: u64,
    level: tld4_textures::SimdLevel,
    mut f: impl FnMut(),
) -> [Vec<f64>; 2] {
    // An explicit TLD4_SIMD times that level alone (the second list stays empty).
    let forced = std::env::var_os("TLD4_SIMD").is_some();
    let both = [level, tld4_textures::SimdLevel::Scalar];
    let levels = if forced { &both[..1] } else { &both[..] };
    let mut rates = [Vec::new(), Vec::new()];
    for &l in levels {
        tld4_textures::set_simd_level(l);
        f(); // warm-up
    }
    for _ in 0..runs {
        for (k, &l) in levels.iter().enumerate() {
            tld4_textures::set_simd_level(l);
            let t = Instant::now();
            f();
            rates[k].push(work as f64 / t.elapsed().as_secs_f64());
        }
    }
    rates
}

/// Median and range of rates, scaled.
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

impl Spread {
    /// None for no rates.
    fn of(mut rates: Vec<f64>, scale: f64) -> Option<Spread> {
        rates.sort_by(|a, b| a.total_cmp(b));
        Some(Spread {
            median: rates.get(rates.len() / 2)? * scale,
            min: rates.first()? * scale,
            max: rates.last()? * scale,
        })
    }
}

/// Legal words with random fields (a legal opcode, bit 91 and opex put in).
fn words(n: usize) -> Vec<u128> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    (0..n)
        .map(|_| {
            let w: u128 = rng.gen();
            let w = field::form.set(w, if rng.gen() { 0xd64 } else { 0xf63 });
            let w = field::bit_91.set(w, 1);
            let opex = LEGAL_OPEX_VALUES[rng.gen_range(0..LEGAL_OPEX_VALUES.len())] as u32;
            field::batch_t.set(field::usched_info.set(w, opex & 0x1f), opex >> 5)
        })
        .collect()
}

/// One execution workload: a pool, an instruction and a warp set up for it.
struct Workload {
    name: &'static str,
    pool: TexturePool,
    exec: Tld4Exec,
    warp: WarpState,
}

fn workload(
    name: &'static str,
    texture: Texture,
    sampler: Sampler,
    text: &str,
    fill: impl Fn(&mut ChaCha8Rng, &mut WarpState, usize),
) -> Workload {
    let mut pool = TexturePool::new();
    let t = pool.add_texture(texture).expect("room in the pool");
    let s = pool.add_sampler(sampler).expect("room in the pool");
    let insn = tld4_decoder::parse(text).expect("bench instruction");
    let mut warp = WarpState::new();
    warp.set_ureg(4, Handle::new(t, s).expect("handle").0);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for lane in 0..WARP_SIZE {
        fill(&mut rng, &mut warp, lane);
    }
    Workload {
        name,
        pool,
        exec: Tld4Exec::new(&insn, ExecConfig::default()),
        warp,
    }
}

fn workloads() -> Vec<Workload> {
    let d = |kind, format, w, h, layers| TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        layers,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let rgba8 = Texture::from_fn(
        d(TextureKind::Tex2D, Format::Rgba8Unorm, 256, 256, 1),
        |_, _, _| {
            [
                rng.gen_range(0..256),
                rng.gen_range(0..256),
                rng.gen_range(0..256),
                rng.gen_range(0..256),
            ]
        },
    )
    .expect("texture");
    let depth = Texture::from_fn(
        d(TextureKind::CubeArray, Format::D32Float, 64, 64, 4),
        |_, _, _| [rng.gen_range(0.0f32..1.0).to_bits(), 0, 0, 0],
    )
    .expect("texture");
    let rgba8_ptp = rgba8.clone();
    let coords = |rng: &mut ChaCha8Rng, w: &mut WarpState, lane: usize| {
        w.set_reg_f32(lane, 20, rng.gen_range(-0.1f32..1.1));
        w.set_reg_f32(lane, 21, rng.gen_range(-0.1f32..1.1));
    };
    vec![
        workload(
            "RGBA8 UNORM 2D, clamp to edge",
            rgba8,
            Sampler::default(),
            "TLD4.R R10, R8, R20, UR4, 2D ;",
            coords,
        ),
        workload(
            "D32 FLOAT cube array, depth compare",
            depth,
            Sampler {
                compare: Some(CompareOp::LessOrEqual),
                ..Sampler::default()
            },
            "TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;",
            |rng, w, lane| {
                w.set_reg(lane, 20, rng.gen_range(0..4));
                for r in 21..24 {
                    w.set_reg_f32(lane, r, rng.gen_range(-1.0f32..1.0));
                }
                w.set_reg_f32(lane, 24, rng.gen_range(0.0f32..1.0));
            },
        ),
        workload(
            "RGBA8 UNORM 2D, PTP, repeat",
            rgba8_ptp,
            Sampler::with_address(AddressMode::Repeat),
            "TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;",
            move |rng, w, lane| {
                coords(rng, w, lane);
                w.set_reg(lane, 24, rng.gen());
                w.set_reg(lane, 25, rng.gen());
            },
        ),
    ]
}

/// The printed name of the decode measurement.
const DECODE: &str = "decode";
/// The printed name of the disassembly measurement.
const DISASSEMBLY: &str = "disassembly (text)";

/// The name of the batch-scaling measurement (its lines start with it).
const BATCH: &str = "batch";
/// The name of the cost-growth measurement.
const GROWTH: &str = "growth";

/// The printed name of an execution measurement.
fn execute_name(w: &Workload) -> String {
    format!("execute: {}", w.name)
}

/// A memory row: an owned workload's texture and sampler in GPU memory (a pool image, as a
/// driver writes it), executed through a binding kept across warps, as a simulator does.
struct MemoryRow {
    /// What follows the owned workload's name.
    suffix: &'static str,
    /// The owned workload (index into [`workloads`]).
    owned: usize,
    layout: LayoutChoice,
    /// Record every executed lane's texel addresses too.
    addresses: bool,
}

/// The memory rows: block-linear with 16 GOBs a block (the height a driver picks for these
/// sizes), pitch-linear with 32-byte rows, and block-linear with texel addresses.
const MEMORY_ROWS: [MemoryRow; 4] = [
    MemoryRow {
        suffix: "block-linear memory",
        owned: 0,
        layout: LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: 4,
        },
        addresses: false,
    },
    MemoryRow {
        suffix: "block-linear memory + addresses",
        owned: 0,
        layout: LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: 4,
        },
        addresses: true,
    },
    MemoryRow {
        suffix: "pitch memory",
        owned: 0,
        layout: LayoutChoice::Pitch { row_alignment: 32 },
        addresses: false,
    },
    MemoryRow {
        suffix: "block-linear memory",
        owned: 1,
        layout: LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: 4,
        },
        addresses: false,
    },
];

/// The printed name of a memory row.
fn memory_name(w: &Workload, row: &MemoryRow) -> String {
    format!("execute: {}, {}", w.name, row.suffix)
}

/// Times a memory row and its owned workload, bound alike, in alternation (the same machine
/// load for both); prints the memory row's rate and its ratio to the owned side's.
fn memory_row(
    out: &mut impl Write,
    w: &Workload,
    row: &MemoryRow,
    runs: usize,
    warps: usize,
) -> CmdResult {
    let handle = Handle(w.warp.ureg(4));
    let (texture, sampler) = w.pool.resolve(handle).map_err(|e| e.to_string())?;
    let image =
        pool_image(&[(texture, sampler, row.layout)], 0x1_0000_0000).map_err(|e| e.to_string())?;
    let pool = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
    let mut bound = w.exec.bind_memory(pool);
    let mut warp = w.warp.clone();
    warp.set_ureg(4, 0); // header 0, sampler 0 of the image
    let mut owned_warp = w.warp.clone();
    let mut texels = [LaneTexels::default(); WARP_SIZE];
    let mut memory = Vec::new();
    let mut owned = Vec::new();
    let time = |rates: &mut Vec<f64>, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        rates.push((warps * WARP_SIZE) as f64 / t.elapsed().as_secs_f64());
    };
    let mut run_memory = || {
        for _ in 0..warps {
            let t = row.addresses.then_some(&mut texels);
            let _ = black_box(bound.execute_with_texels(&mut warp, t));
        }
    };
    // the owned side bound alike, kept across warps (as the owned row's "bound once" line)
    let mut owned_bound = w.exec.bind(&w.pool);
    let mut run_owned = || {
        for _ in 0..warps {
            let _ = black_box(owned_bound.execute(&mut owned_warp));
        }
    };
    run_memory(); // warm-up
    run_owned();
    for _ in 0..runs {
        time(&mut memory, &mut run_memory);
        time(&mut owned, &mut run_owned);
    }
    let ratios: Vec<f64> = memory.iter().zip(&owned).map(|(m, o)| m / o).collect();
    let memory = Spread::of(memory, 1e-6).ok_or("no runs")?;
    let ratio = Spread::of(ratios, 1.0).ok_or("no runs")?;
    writeln!(
        out,
        "{:<44} {:>10.2} M warps/s  {:>8.1} M lane gathers/s  (runs {:.1}-{:.1}; {:.2}x owned bound alike, runs {:.2}-{:.2}; target 0.67)",
        memory_name(w, row),
        memory.median / WARP_SIZE as f64,
        memory.median,
        memory.min,
        memory.max,
        ratio.median,
        ratio.min,
        ratio.max
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The owned workload both ways users call it, timed in alternation (the same machine load
/// for both): `Tld4Exec::execute` a warp (the pool passed each call) and an executor bound
/// once (`Tld4Exec::bind`, kept across warps); prints the bound rate and the ratio of the
/// two, run by run.
fn bound_row(out: &mut impl Write, w: &Workload, runs: usize, warps: usize) -> CmdResult {
    let (mut each_warp, mut bound_warp) = (w.warp.clone(), w.warp.clone());
    let mut bound = w.exec.bind(&w.pool);
    let mut run_each = || {
        for _ in 0..warps {
            let _ = black_box(w.exec.execute(&mut each_warp, &w.pool));
        }
    };
    let mut run_bound = || {
        for _ in 0..warps {
            let _ = black_box(bound.execute(&mut bound_warp));
        }
    };
    let time = |rates: &mut Vec<f64>, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        rates.push((warps * WARP_SIZE) as f64 / t.elapsed().as_secs_f64());
    };
    run_each(); // warm-up
    run_bound();
    let (mut each, mut once) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        time(&mut each, &mut run_each);
        time(&mut once, &mut run_bound);
    }
    let ratios: Vec<f64> = each.iter().zip(&once).map(|(e, b)| e / b).collect();
    let once = Spread::of(once, 1e-6).ok_or("no runs")?;
    let ratio = Spread::of(ratios, 1.0).ok_or("no runs")?;
    writeln!(
        out,
        "{:<44} {:>10.2} M warps/s  {:>8.1} M lane gathers/s  (runs {:.1}-{:.1}; execute {:.2}x bound, runs {:.2}-{:.2}; target 0.9)",
        "  bound once (Tld4Exec::bind)",
        once.median / WARP_SIZE as f64,
        once.median,
        once.min,
        once.max,
        ratio.median,
        ratio.min,
        ratio.max
    )?;
    Ok(ExitCode::SUCCESS)
}

pub fn bench(args: &BenchArgs) -> CmdResult {
    let runs = args.runs;
    let workloads = workloads();
    let mut names = vec![DECODE.to_string(), DISASSEMBLY.to_string()];
    names.extend(workloads.iter().map(execute_name));
    names.extend(
        MEMORY_ROWS
            .iter()
            .map(|r| memory_name(&workloads[r.owned], r)),
    );
    names.extend(sparse::OWNED.iter().map(|&k| sparse::name(&workloads[k])));
    names.extend([BATCH.to_string(), GROWTH.to_string()]);
    let wanted = |name: &str| args.only.as_deref().is_none_or(|o| name.contains(o));
    if let Some(o) = &args.only {
        if !names.iter().any(|n| wanted(n)) {
            return Err(format!(
                "--only `{o}` matches no measurement; the measurements are: {}",
                names.join("; ")
            )
            .into());
        }
    }
    let n = ((1 << 20) as f64 * args.scale).max(1024.0) as usize;
    let mut out = crate::output::out();
    writeln!(
        out,
        "tld4 bench: median of {runs} run{}, one thread\n",
        if runs == 1 { "" } else { "s" }
    )?;
    let ws = words(n);
    // (progress on standard error when it is a terminal: one step a measurement)
    let progress = crate::progress::bar(names.iter().filter(|n| wanted(n)).count() as u64, "bench");
    let step = |name: &str| {
        progress.set_message(name.to_string());
        progress.inc(1);
    };
    if wanted(DECODE) {
        step(DECODE);
        let rate = median_rate(runs, (ws.len() * 16) as u64, || {
            for _ in 0..16 {
                // The words as a caller holds them; each result observed where it lies
                // (by reference: no copy of the 32-byte result the caller would not make).
                for &w in black_box(&ws) {
                    black_box(&decode(w));
                }
            }
        });
        writeln!(
            out,
            "{DECODE:<44} {:>10.1} M words/s   ({})",
            rate / 1e6,
            target_text(rate / 1e6, 200.0)
        )?;
        out.flush()?;
    }
    if wanted(DISASSEMBLY) {
        step(DISASSEMBLY);
        let decoded: Vec<_> = ws
            .iter()
            .map(|&w| decode(w).expect("legal by construction"))
            .collect();
        let mut text = String::with_capacity(128);
        let rate = median_rate(runs, decoded.len() as u64, || {
            for insn in &decoded {
                text.clear();
                let _ = insn.write_text(&mut text);
                black_box(&text);
            }
        });
        writeln!(
            out,
            "{DISASSEMBLY:<44} {:>10.1} M words/s   ({})",
            rate / 1e6,
            target_text(rate / 1e6, 12.0)
        )?;
        out.flush()?;
    }
    let warps = ((20_000.0 * args.scale) as usize).max(100);
    let execute_wanted = workloads.iter().any(|w| wanted(&execute_name(w)))
        || MEMORY_ROWS
            .iter()
            .any(|r| wanted(&memory_name(&workloads[r.owned], r)))
        || sparse::OWNED
            .iter()
            .any(|&k| wanted(&sparse::name(&workloads[k])));
    let level = tld4_textures::simd_level();
    if execute_wanted {
        if let Some(e) = tld4_textures::simd_env_error() {
            writeln!(out, "warning: {e}")?;
        }
        writeln!(
            out,
            "SIMD level of the texture unit: {} (TLD4_SIMD; CPU supports {}); \
             `scalar` = the per-lane reference, timed in alternation unless TLD4_SIMD is set",
            level.name(),
            tld4_textures::detected_simd_level().name()
        )?;
    }
    for w in workloads.iter().filter(|w| wanted(&execute_name(w))) {
        step(&execute_name(w));
        let mut warp = w.warp.clone();
        let rates = alternating_rates(runs, warps as u64, level, || {
            for _ in 0..warps {
                let _ = black_box(w.exec.execute(&mut warp, &w.pool));
            }
        });
        tld4_textures::set_simd_level(level);
        let [fast, reference] = rates.map(|r| Spread::of(r, WARP_SIZE as f64 / 1e6));
        let reference = reference.filter(|_| level != tld4_textures::SimdLevel::Scalar);
        let fast = fast.ok_or("no runs")?;
        writeln!(
            out,
            "{:<44} {:>10.2} M warps/s  {:>8.1} M lane gathers/s  (runs {:.1}-{:.1})",
            execute_name(w),
            fast.median / WARP_SIZE as f64,
            fast.median,
            fast.min,
            fast.max
        )?;
        if let Some(reference) = reference {
            writeln!(
                out,
                "{:<44} {:>10.2} M warps/s  {:>8.1} M lane gathers/s  (runs {:.1}-{:.1}; {} {:.2}x)",
                "  at scalar (reference)",
                reference.median / WARP_SIZE as f64,
                reference.median,
                reference.min,
                reference.max,
                level.name(),
                fast.median / reference.median
            )?;
        }
        bound_row(&mut out, w, runs, warps)?;
        out.flush()?;
    }
    for row in &MEMORY_ROWS {
        let w = &workloads[row.owned];
        if wanted(&memory_name(w, row)) {
            step(&memory_name(w, row));
            memory_row(&mut out, w, row, runs, warps)?;
        }
    }
    for w in sparse::OWNED.iter().map(|&k| &workloads[k]) {
        if wanted(&sparse::name(w)) {
            step(&sparse::name(w));
            sparse::row(&mut out, w, runs, warps)?;
        }
    }
    if wanted(BATCH) {
        step(BATCH);
        batch(&mut out, runs, args.scale)?;
    }
    if wanted(GROWTH) {
        step(GROWTH);
        growth(&mut out, runs, args.scale)?;
    }
    progress.finish_and_clear();
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `batch`: [`execute_batch`] over 256 copies of the RGBA8 workload's warp, in a local rayon
/// pool of 1 and then 2 threads; prints both rates and the scaling factor.
fn batch(out: &mut impl Write, runs: usize, scale: f64) -> std::io::Result<()> {
    let w = workloads().swap_remove(0);
    let mut warps = vec![w.warp.clone(); 256];
    let mut results = Vec::with_capacity(warps.len());
    let reps = ((40.0 * scale) as usize).max(2);
    let mut rates = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a rayon thread pool");
        let rate = median_rate(runs, (reps * warps.len()) as u64, || {
            pool.install(|| {
                for _ in 0..reps {
                    execute_batch(&w.exec, &mut warps, &w.pool, &mut results);
                    black_box(&results);
                }
            })
        });
        assert!(results.iter().all(|r| r.is_ok()), "the batch runs");
        writeln!(
            out,
            "{:<44} {:>10.2} M warps/s  {:>8.1} M lane gathers/s",
            format!(
                "batch, {threads} thread{}: {}",
                if threads > 1 { "s" } else { "" },
                w.name
            ),
            rate / 1e6,
            rate * WARP_SIZE as f64 / 1e6
        )?;
        rates.push(rate);
    }
    writeln!(
        out,
        "{:<44} {:>10.2}x (2 threads over 1; {} cores available)",
        "batch scaling",
        rates[1] / rates[0],
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )?;
    Ok(())
}

/// Lane coordinates (u, v) for `lanes` lanes over a `size` x `size` texture. Coherent: each
/// warp covers an 8 x 4 block of adjacent texel centres, warps in raster order over the
/// texture (wrapping at its end), as a screen-space pass would; scattered: uniform random.
fn growth_coords(size: u32, lanes: usize, coherent: bool) -> Vec<[f32; 2]> {
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(size));
    let s = size as f32;
    let blocks_x = size.div_ceil(8) as usize;
    let blocks = blocks_x * size.div_ceil(4) as usize;
    (0..lanes)
        .map(|i| {
            if coherent {
                let (warp, lane) = ((i / WARP_SIZE) % blocks, i % WARP_SIZE);
                let x = (warp % blocks_x * 8 + lane % 8) as f32;
                let y = (warp / blocks_x * 4 + lane / 8) as f32;
                [(x + 0.5) / s, (y + 0.5) / s]
            } else {
                [rng.gen_range(0.0f32..1.0), rng.gen_range(0.0f32..1.0)]
            }
        })
        .collect()
}

/// `growth`: time per lane gather (RGBA8 2D, clamp to edge) from 4x4 to 4096x4096 texels,
/// coherent and scattered coordinates; prints a Markdown table. Each warp's coordinates are
/// loaded into its registers first (counted in the time, alike for every size).
fn growth(out: &mut impl Write, runs: usize, scale: f64) -> std::io::Result<()> {
    let lanes = (((1 << 16) as f64 * scale) as usize).max(1024) / WARP_SIZE * WARP_SIZE;
    let insn = tld4_decoder::parse("TLD4.R R10, R8, R20, UR4, 2D ;").expect("bench instruction");
    let exec = Tld4Exec::new(&insn, ExecConfig::default());
    writeln!(
        out,
        "\n| texture (RGBA8) | texels | coherent ns/lane gather | scattered ns/lane gather |"
    )?;
    writeln!(out, "|---|---:|---:|---:|")?;
    for size in [4u32, 16, 64, 256, 1024, 4096] {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let desc = TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::Rgba8Unorm,
            width: size,
            height: size,
            layers: 1,
        };
        let texture = Texture::from_fn(desc, |_, _, _| {
            std::array::from_fn(|_| rng.gen_range(0..256))
        })
        .expect("texture");
        let mut pool = TexturePool::new();
        let t = pool.add_texture(texture).expect("room in the pool");
        let s = pool
            .add_sampler(Sampler::default())
            .expect("room in the pool");
        let mut warp = WarpState::new();
        warp.set_ureg(4, Handle::new(t, s).expect("handle").0);
        let ns = [true, false].map(|coherent| {
            let coords = growth_coords(size, lanes, coherent);
            let rate = median_rate(runs, lanes as u64, || {
                for chunk in coords.chunks(WARP_SIZE) {
                    for (lane, [u, v]) in chunk.iter().enumerate() {
                        warp.set_reg_f32(lane, 20, *u);
                        warp.set_reg_f32(lane, 21, *v);
                    }
                    let _ = black_box(exec.execute(&mut warp, &pool));
                }
            });
            1e9 / rate
        });
        writeln!(
            out,
            "| {size} x {size} | {} | {:.1} | {:.1} |",
            u64::from(size) * u64::from(size),
            ns[0],
            ns[1]
        )?;
    }
    Ok(())
}
