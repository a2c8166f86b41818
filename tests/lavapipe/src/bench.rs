//! `tld4-lavapipe bench`: lavapipe and tld4's executor side by side, in one process run, on
//! the same textures, samplers and coordinate streams.
//!
//! * lavapipe: one compute dispatch of N invocations, one gather each (`shaders/gather.comp`
//!   through [`crate::vulkan::Gpu`], as `fill` runs it), and the same dispatch with the
//!   no-gather twin (`shaders/gather_twin.comp`: the same query loads and result stores, no
//!   texture access). Each dispatch also creates and uploads the texture and the query
//!   buffer; the twin does the same, so the difference is the cost of the gathers alone.
//!   `LP_NUM_THREADS=1` (one thread) unless the environment sets it.
//! * tld4: `Tld4Exec::execute` over N / 32 warps on one thread; each warp's lane registers
//!   are loaded from the same queries first, and that loading is counted as tld4's time.
//! * Rounds alternate the order of the sides; each figure is the median over the rounds, its
//!   spread (max - min) / median. The ratio is tld4's rate over lavapipe's net rate
//!   (1 / net gather cost), the harder comparison of the two.
//! * The results of both sides are compared (within 1 ulp of the f32 bits): the share that
//!   agree is printed; a few differ at ambiguous spots (docs/sources.md, Agreement rules).

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use tld4_emu::{decoder, ExecConfig, Handle, TexturePool, Tld4Exec, WarpState, WARP_SIZE};
use tld4_lavapipe::rng::Rng;
use tld4_textures::cases;

use crate::pack;
use crate::vulkan::{Gpu, Job};

/// The twin shader (same interface as `gather.comp`, no gather).
const TWIN: &str = include_str!("../shaders/gather_twin.comp");

/// Registers each lane loads before a TLD4, from R20 up.
const FIRST_REG: u8 = 20;

/// One row: a cases-file case (texture, sampler, N queries) and the TLD4 doing the same.
struct Row {
    name: &'static str,
    /// The cases JSON of one case.
    json: String,
    /// nvdisasm text of the TLD4 (handle in UR4, sources from R20, results in R8..R11).
    insn: &'static str,
    /// Per query: the values of R20, R21, ... in the lane that runs it.
    regs: Vec<[u32; 6]>,
}

/// JSON of an f32 that parses back to the same f32 (the shortest f64 text of its value).
fn num(v: f32) -> String {
    format!("{:?}", v as f64)
}

fn texels(n: usize, mut f: impl FnMut() -> String) -> String {
    (0..n).map(|_| f()).collect::<Vec<_>>().join(",")
}

/// The three rows: RGBA8 2D clamp to edge; D32 cube array with depth compare; 2D with PTP.
fn rows(n: usize) -> Vec<Row> {
    let mut rng = Rng::new(20260602);
    let rgba8 = texels(256 * 256 * 4, || rng.below(256).to_string());
    let rgba8_tex = format!(
        r#""texture": {{"dim": "2d", "format": "rgba8_unorm", "width": 256, "height": 256, "texels": [{rgba8}]}}"#
    );
    let coord = |rng: &mut Rng| rng.uniform(-0.1, 1.1) as f32;

    let mut q2d = Vec::with_capacity(n);
    let mut r2d = Vec::with_capacity(n);
    for _ in 0..n {
        let (s, t) = (coord(&mut rng), coord(&mut rng));
        q2d.push(format!(
            r#"{{"coord": [{}, {}], "component": 0}}"#,
            num(s),
            num(t)
        ));
        r2d.push([s.to_bits(), t.to_bits(), 0, 0, 0, 0]);
    }

    let depth = texels(64 * 64 * 6 * 4, || num(rng.unit() as f32));
    let mut qdc = Vec::with_capacity(n);
    let mut rdc = Vec::with_capacity(n);
    for _ in 0..n {
        let layer = rng.below(4) as u32;
        let [x, y, z] = [(); 3].map(|_| rng.uniform(-1.0, 1.0) as f32);
        let dref = rng.unit() as f32;
        qdc.push(format!(
            r#"{{"coord": [{}, {}, {}, {layer}], "component": 0, "dref": {}}}"#,
            num(x),
            num(y),
            num(z),
            num(dref)
        ));
        rdc.push([
            layer,
            x.to_bits(),
            y.to_bits(),
            z.to_bits(),
            dref.to_bits(),
            0,
        ]);
    }

    let mut qptp = Vec::with_capacity(n);
    let mut rptp = Vec::with_capacity(n);
    for _ in 0..n {
        let (s, t) = (coord(&mut rng), coord(&mut rng));
        // Offsets within -8..=7, inside every Vulkan device's gather offset range.
        let o: [i64; 8] = std::array::from_fn(|_| rng.range(-8, 7));
        let byte = |v: i64| (v as u32) & 0x3f;
        let word = |k: usize| {
            byte(o[k]) | byte(o[k + 1]) << 8 | byte(o[k + 2]) << 16 | byte(o[k + 3]) << 24
        };
        qptp.push(format!(
            r#"{{"coord": [{}, {}], "component": 1, "offsets": [[{}, {}], [{}, {}], [{}, {}], [{}, {}]]}}"#,
            num(s),
            num(t),
            o[0],
            o[1],
            o[2],
            o[3],
            o[4],
            o[5],
            o[6],
            o[7]
        ));
        // R24 and R25 (registers 4 and 5 from R20) hold the offsets (NAK's PTP packing).
        rptp.push([s.to_bits(), t.to_bits(), 0, 0, word(0), word(4)]);
    }
    let case = |tex: &str, sampler: &str, queries: &[String]| {
        format!(
            r#"{{"cases": [{{{tex}, "sampler": {sampler}, "queries": [{}]}}]}}"#,
            queries.join(",")
        )
    };
    vec![
        Row {
            name: "RGBA8 UNORM 2D, clamp to edge",
            json: case(
                &rgba8_tex,
                r#"{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"}"#,
                &q2d,
            ),
            insn: "TLD4.R R10, R8, R20, UR4, 2D ;",
            regs: r2d,
        },
        Row {
            name: "D32 FLOAT cube array, depth compare",
            json: case(
                &format!(
                    r#""texture": {{"dim": "cube_array", "format": "d32_float", "width": 64, "height": 64, "layers": 4, "texels": [{depth}]}}"#
                ),
                r#"{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge", "compare": "less_or_equal"}"#,
                &qdc,
            ),
            insn: "TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;",
            regs: rdc,
        },
        Row {
            name: "RGBA8 UNORM 2D, PTP, repeat",
            json: case(
                &rgba8_tex,
                r#"{"address_u": "repeat", "address_v": "repeat"}"#,
                &qptp,
            ),
            insn: "TLD4.G.PTP R10, R8, R20, R24, UR4, 2D ;",
            regs: rptp,
        },
    ]
}

/// A row made ready for both sides.
struct Ready {
    name: &'static str,
    job: Job,
    exec: Tld4Exec,
    pool: TexturePool,
    handle: u32,
    regs: Vec<[u32; 6]>,
}

fn prepare(row: Row, gpu: &Gpu) -> Result<Ready> {
    let file = cases::parse(&row.json).with_context(|| format!("{}: the cases JSON", row.name))?;
    let case = &file.cases[0];
    let prepared = cases::prepare(case, 0).with_context(|| row.name.to_string())?;
    gpu.format_supported(
        pack::vk_format(case.texture.format)?,
        case.sampler.compare.is_some(),
    )
    .map_err(anyhow::Error::msg)?;
    let job = pack::job(case, &prepared, &gpu.caps).with_context(|| row.name.to_string())?;
    let mut pool = TexturePool::new();
    let t = pool.add_texture(prepared.texture);
    let s = pool.add_sampler(prepared.sampler);
    let insn = decoder::parse(row.insn).with_context(|| format!("{}: {}", row.name, row.insn))?;
    let config = ExecConfig {
        precision: prepared.precision,
        ..ExecConfig::default()
    };
    Ok(Ready {
        name: row.name,
        job,
        exec: Tld4Exec::new(&insn, config),
        pool,
        handle: Handle::new(t, s).context("handle")?.0,
        regs: row.regs,
    })
}

/// Runs every query through tld4 (one warp of 32 queries at a time); calls `out` with each
/// warp's first query index and the warp after execution.
fn run_tld4(r: &Ready, warp: &mut WarpState, mut out: impl FnMut(usize, &WarpState)) -> Result<()> {
    warp.set_ureg(4, r.handle);
    for (w, chunk) in r.regs.chunks(WARP_SIZE).enumerate() {
        for (lane, regs) in chunk.iter().enumerate() {
            for (k, &v) in regs.iter().enumerate() {
                warp.set_reg(lane, FIRST_REG + k as u8, v);
            }
        }
        warp.active_mask = if chunk.len() == WARP_SIZE {
            u32::MAX
        } else {
            (1u32 << chunk.len()) - 1
        };
        r.exec
            .execute(warp, &r.pool)
            .map_err(|e| anyhow::anyhow!("{}: warp {w}: {e}", r.name))?;
        out(w * WARP_SIZE, warp);
    }
    Ok(())
}

/// How many queries tld4 and lavapipe agree on, within 1 ulp of each result's f32 bits.
fn agreement(r: &Ready, lavapipe: &[[u32; 4]]) -> Result<usize> {
    let mut warp = WarpState::new();
    let mut agree = 0;
    run_tld4(r, &mut warp, |first, warp| {
        for (lane, theirs) in lavapipe[first..].iter().take(WARP_SIZE).enumerate() {
            let ours = [8u8, 9, 10, 11].map(|reg| warp.reg(lane, reg));
            if ours
                .iter()
                .zip(theirs)
                .all(|(&a, &b)| (a as i64 - b as i64).abs() <= 1)
            {
                agree += 1;
            }
        }
    })?;
    Ok(agree)
}

/// Median and spread ((max - min) / median) of `v`.
fn median_spread(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let m = v[v.len() / 2];
    (m, (v[v.len() - 1] - v[0]) / m.abs().max(f64::MIN_POSITIVE))
}

fn secs(f: impl FnOnce() -> Result<()>) -> Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

/// `tld4-lavapipe bench`: prints one line per row and `min ratio vs lavapipe: X`.
pub fn bench(driver: &str, n: usize, rounds: usize) -> Result<ExitCode> {
    if std::env::var_os("LP_NUM_THREADS").is_none() {
        // lavapipe reads it when the device is created (Mesa's llvmpipe: its thread count).
        std::env::set_var("LP_NUM_THREADS", "1");
    }
    let n = n.max(WARP_SIZE);
    let rounds = rounds.max(1);
    let mut gather = Gpu::new(driver)?;
    let mut twin = Gpu::with_shader(driver, TWIN)?;
    println!(
        "tld4-lavapipe bench: {} ({}), LP_NUM_THREADS={}; {n} gathers a dispatch, median of {rounds} rounds (spread = (max - min) / median); tld4: one thread",
        gather.info.device_name,
        gather.info.driver_info,
        std::env::var("LP_NUM_THREADS").unwrap_or_default(),
    );
    let mut min_ratio: Option<f64> = None;
    for row in rows(n) {
        let r = prepare(row, &gather)?;
        // Warm-up: compiles both pipelines, and gives lavapipe's results for the agreement.
        let theirs = gather.run(std::slice::from_ref(&r.job))?.remove(0);
        twin.run(std::slice::from_ref(&r.job))?;
        let agree = agreement(&r, &theirs)?;
        let mut warp = WarpState::new();
        let (mut tg, mut tt, mut t4) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds {
            let mut lp = |tg: &mut Vec<f64>, tt: &mut Vec<f64>| -> Result<()> {
                tg.push(secs(|| gather.run(std::slice::from_ref(&r.job)).map(drop))?);
                tt.push(secs(|| twin.run(std::slice::from_ref(&r.job)).map(drop))?);
                Ok(())
            };
            if round % 2 == 0 {
                lp(&mut tg, &mut tt)?;
            }
            t4.push(secs(|| {
                run_tld4(&r, &mut warp, |_, w| {
                    std::hint::black_box(w.reg(0, 8));
                })
            })?);
            if round % 2 == 1 {
                lp(&mut tg, &mut tt)?;
            }
        }
        let nets: Vec<f64> = tg.iter().zip(&tt).map(|(g, t)| g - t).collect();
        let (g, g_spread) = median_spread(&mut tg);
        let (t, _) = median_spread(&mut tt);
        let (net, net_spread) = median_spread(&mut nets.clone());
        let (ours, ours_spread) = median_spread(&mut t4);
        let per = |s: f64| s / n as f64;
        let ours_rate = n as f64 / ours;
        let mut line = format!(
            "{:<38} tld4 {:>7.1} M gathers/s (spread {:>3.0}%) | lavapipe {:>6.1} M gathers/s (spread {:>3.0}%), net {:>6.1} ns/gather (gather {:.1} - twin {:.1} ns, spread {:>3.0}%) | ",
            r.name,
            ours_rate / 1e6,
            ours_spread * 100.0,
            n as f64 / g / 1e6,
            g_spread * 100.0,
            per(net) * 1e9,
            per(g) * 1e9,
            per(t) * 1e9,
            net_spread * 100.0,
        );
        if net > 0.0 {
            let ratio = ours_rate * per(net);
            min_ratio = Some(min_ratio.map_or(ratio, |m: f64| m.min(ratio)));
            let _ = write!(line, "tld4/lavapipe {ratio:.2}");
        } else {
            line.push_str("tld4/lavapipe n/a (net cost not positive: noise; raise --n)");
        }
        let _ = write!(line, " | results agree {agree}/{n}");
        println!("{line}");
    }
    match min_ratio {
        Some(m) => println!("min ratio vs lavapipe: {m:.2}"),
        None => println!("min ratio vs lavapipe: n/a"),
    }
    Ok(ExitCode::SUCCESS)
}
