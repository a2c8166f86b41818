//! `tld4-lavapipe bench`: lavapipe and tld4's executor side by side, in one process run, on
//! the same textures, samplers and gathers.
//!
//! * lavapipe: one compute dispatch of N invocations doing [`GATHERS`] (K) gathers each
//!   (`shaders/gather.comp` with `GATHERS` defined: gather k moves the query's coordinates by
//!   `delta(k)` and the invocation stores the XOR of the K results' bits, so no gather is
//!   dead and no two share coordinates), and the same dispatch of its no-gather twin (the same
//!   source with `NO_GATHER`: the same query loads, coordinate math, accumulation and stores,
//!   no texture access). Each dispatch also creates and uploads the texture and the query
//!   buffer; the twin does the same, so the difference is the cost of the N x K gathers.
//!   `LP_NUM_THREADS=1` (one thread) unless the environment sets it.
//! * tld4: `Tld4Exec::execute` (bound to the pool once a round, `Tld4Exec::bind`, as a
//!   simulator binds a launch's instruction; and, timed beside it, `Tld4Exec::execute` a
//!   warp with the pool passed each call, printed as `tld4 execute a warp` with its own
//!   whole-dispatch ratio and `min execute ratio vs lavapipe`) over the same N x K gathers, 32 to a warp (two queries' K
//!   gathers), on one thread; each warp's source registers (those the TLD4 reads,
//!   `Tld4::used_registers`) are made on the fly from the N queries as the shader makes its
//!   coordinates (gather k adds k * step in f32, bit for bit [`workloads::moved`]; checked against the
//!   moved queries for every gather when the row is prepared), written in place in the
//!   register file (`WarpState::reg_lanes_mut`); this counts as tld4's time, as lavapipe's
//!   dispatch counts its shader's loads and coordinate math.
//! * Check: the K-gather dispatch must equal, invocation by invocation, the XOR over k of a
//!   one-gather dispatch (the plain shader) of the N x K moved queries; the line says how many
//!   invocations match and the command exits 1 if any does not.
//! * Both sides run on one CPU (`--pin`, by default the CPU the process starts on; set before
//!   lavapipe's worker thread exists, which inherits it): lavapipe computes on its worker
//!   thread while the main thread waits, tld4 on the main thread, so the two would otherwise
//!   be timed on whichever CPUs the system put them on, which on this project's shared
//!   2-vCPU machine can differ in speed for seconds at a time. `--pin none` leaves the
//!   placement to the system.
//! * Rounds alternate the order of the sides; each figure is the median over the rounds, its
//!   spread (max - min) / median. Two ratios per row, both tld4's rate over lavapipe's: the
//!   whole-dispatch ratio (lavapipe's rate counting its whole K-gather dispatch, the project's
//!   goal) and the net ratio (lavapipe's rate as 1 / net gather cost, K-gather dispatch minus
//!   twin, the harder comparison). `min ratio vs lavapipe: X` is the smallest whole-dispatch
//!   ratio; `min net ratio vs lavapipe: Y` the smallest net one.
//! * tld4's texture unit alone: `Gatherer::gather_lanes` over the same gathers, each warp's
//!   `LaneQueries` read from its registers before timing (`Tld4Exec::lane_query`), so no
//!   register work counts, and copied into a small reused block before the block's time
//!   starts (the queries of all warps, about 30 MB, would otherwise stream from memory,
//!   while a warp's registers on the executor's side are in the cache); its results must
//!   equal the executor's, lane for lane. Its cost
//!   a gather is set beside lavapipe's net cost: `min texture-unit ratio vs lavapipe net: Z`
//!   is the smallest ratio lavapipe net / tld4 texture unit (above 1: the texture unit is the
//!   faster).
//! * tld4's results are compared with the one-gather dispatch's (within 1 ulp of the f32
//!   bits): the share that agree is printed; a few differ at ambiguous spots
//!   (docs/sources.md, Agreement rules).

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use crate::pack;
use crate::vulkan::{Gpu, Job};
use anyhow::{Context, Result};
use tld4_emu::{
    decoder, gather_op, ExecConfig, Handle, TexturePool, Tld4Exec, WarpState, WARP_SIZE,
};
use tld4_gather_cases as cases;
use tld4_textures::{GatherOp, Gatherer, LaneQueries, LaneResults, Precision};

mod pin;
mod workloads;

use pin::pin_thread;
pub use pin::Pin;
use workloads::{expand, rows, shader, Row, FIRST_REG};

/// K, the gathers per invocation on lavapipe's side (and per query on tld4's).
pub const GATHERS: usize = 16;

/// Queries a warp holds: its 32 gathers are K moved gathers of each.
const QUERIES_PER_WARP: usize = WARP_SIZE / GATHERS;
const _: () = assert!(
    WARP_SIZE.is_multiple_of(GATHERS),
    "a warp holds whole queries"
);

/// A row made ready for both sides.
struct Ready {
    name: &'static str,
    /// N queries, for the K-gather dispatch and its twin.
    job: Job,
    /// The N x K moved queries, for the one-gather dispatch that checks it.
    expanded: Job,
    exec: Tld4Exec,
    pool: TexturePool,
    handle: u32,
    /// R20.. of each of the N queries, unmoved.
    query_regs: Vec<[u32; 6]>,
    /// Per register: whether gather k moves it, and by how much (`delta[r][k]`, the
    /// shader's exact product k * step).
    moved: [bool; 6],
    delta: [[f32; GATHERS]; 6],
    /// Per register: whether the TLD4 reads it (`Tld4::used_registers`); tld4's side makes
    /// only those, as a shader computes only the values it uses.
    read: [bool; 6],
    /// The texture unit alone: the pool's texture and sampler, the instruction's gather and
    /// the precision model, and each warp's queries as the executor reads them.
    texture: u32,
    sampler: u32,
    op: GatherOp,
    precision: Precision,
    lane_queries: Vec<LaneQueries>,
}

/// The coordinate steps of [`workloads::moved`]: s, t, and z on cubes.
const STEPS: [f32; 3] = [0.015625, -0.0078125, 0.003_906_25];

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
    let expanded = expand(&job, GATHERS);
    let mut moved_regs = [false; 6];
    let mut delta = [[0f32; GATHERS]; 6];
    for &(r, a) in row.moves {
        moved_regs[r] = true;
        for (k, d) in delta[r].iter_mut().enumerate() {
            *d = k as f32 * STEPS[a];
        }
    }
    let mut pool = TexturePool::new();
    let t = pool.add_texture(prepared.texture).unwrap();
    let s = pool.add_sampler(prepared.sampler).unwrap();
    let insn = decoder::parse(row.insn).with_context(|| format!("{}: {}", row.name, row.insn))?;
    let used = insn.used_registers();
    let read: [bool; 6] = std::array::from_fn(|k| used.reads_reg(FIRST_REG + k as u8));
    let config = ExecConfig {
        precision: prepared.precision,
        ..ExecConfig::default()
    };
    let op = gather_op(&insn).with_context(|| format!("{}: no gather: {}", row.name, row.insn))?;
    let mut ready = Ready {
        name: row.name,
        query_regs: job.queries.iter().map(row.regs).collect(),
        job,
        expanded,
        exec: Tld4Exec::new(&insn, config),
        pool,
        handle: Handle::new(t, s).context("handle")?.0,
        moved: moved_regs,
        delta,
        read,
        texture: t,
        sampler: s,
        op,
        precision: prepared.precision,
        lane_queries: Vec::new(),
    };
    // The registers tld4's side makes must be the moved queries' registers, bit for bit.
    let mut warp = WarpState::new();
    for w in 0..ready.warps() {
        let lanes = ready.fill(w, &mut warp);
        let queries = &ready.expanded.queries[w * WARP_SIZE..];
        for (lane, query) in queries.iter().take(lanes).enumerate() {
            let want = (row.regs)(query);
            if let Some(r) = (0..6).find(|&r| !ready.read[r] && want[r] != 0) {
                anyhow::bail!(
                    "{}: the row gives R{} a value, but {} does not read it",
                    row.name,
                    FIRST_REG as usize + r,
                    row.insn
                );
            }
            let got: [u32; 6] = std::array::from_fn(|r| {
                if ready.read[r] {
                    warp.reg(lane, FIRST_REG + r as u8)
                } else {
                    0
                }
            });
            if got != want {
                anyhow::bail!(
                    "{}: gather {}: the moved registers {got:08x?} differ from the moved query's {want:08x?}",
                    row.name,
                    w * WARP_SIZE + lane
                );
            }
        }
        let mut lane_queries = LaneQueries::new();
        for lane in 0..lanes {
            lane_queries
                .push(&ready.exec.lane_query(&warp, lane))
                .map_err(|e| anyhow::anyhow!("{}: warp {w}: {e}", row.name))?;
        }
        ready.lane_queries.push(lane_queries);
    }
    texture_unit_matches(&ready)?;
    Ok(ready)
}

impl Ready {
    /// Gathers on tld4's side.
    fn gathers(&self) -> usize {
        self.query_regs.len() * GATHERS
    }

    /// Warps on tld4's side.
    fn warps(&self) -> usize {
        self.gathers().div_ceil(WARP_SIZE)
    }

    /// Writes the registers of R20.. that the TLD4 reads, of warp `w` (gathers 32w..,
    /// query-major: gather k of query q at qK + k), in place in the register file, as the
    /// shader computes its coordinates: each moved register is the query's value plus
    /// k * step in f32, the others the query's. Returns the number of gathers the warp
    /// holds (lanes past them get zeros).
    #[inline]
    fn fill(&self, w: usize, warp: &mut WarpState) -> usize {
        let first = w * QUERIES_PER_WARP;
        let queries = self
            .query_regs
            .len()
            .saturating_sub(first)
            .min(QUERIES_PER_WARP);
        for r in (0..6).filter(|&r| self.read[r]) {
            let Some(row) = warp.reg_lanes_mut(FIRST_REG + r as u8) else {
                continue;
            };
            for h in 0..QUERIES_PER_WARP {
                let lanes = &mut row[h * GATHERS..(h + 1) * GATHERS];
                let Some(q) = self.query_regs.get(first + h).filter(|_| h < queries) else {
                    lanes.fill(0);
                    continue;
                };
                if self.moved[r] {
                    let base = f32::from_bits(q[r]);
                    for (v, d) in lanes.iter_mut().zip(&self.delta[r]) {
                        *v = (base + d).to_bits();
                    }
                } else {
                    lanes.fill(q[r]);
                }
            }
        }
        queries * GATHERS
    }
}

/// How tld4's side executes each warp.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Call {
    /// Bound to the row's pool once for all warps ([`Tld4Exec::bind`]), as a simulator
    /// binds a launch's instruction.
    Bound,
    /// [`Tld4Exec::execute`] a warp, the pool passed each call (the first call the README
    /// shows).
    Execute,
}

/// Runs every gather through tld4, one warp of 32 gathers at a time: the warp's source
/// registers are computed in place in the register file (the shader's coordinate moves;
/// [`WarpState::reg_lanes_mut`]), then the TLD4 executes as `call` says. Calls `out` with
/// each warp's first gather index and the warp after execution.
fn run_tld4(
    r: &Ready,
    warp: &mut WarpState,
    call: Call,
    mut out: impl FnMut(usize, &WarpState),
) -> Result<()> {
    warp.set_ureg(4, r.handle);
    let mut exec = r.exec.bind(&r.pool);
    for w in 0..r.warps() {
        let lanes = r.fill(w, warp);
        warp.active_mask = if lanes == WARP_SIZE {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        match call {
            Call::Bound => exec.execute(warp),
            Call::Execute => r.exec.execute(warp, &r.pool),
        }
        .map_err(|e| anyhow::anyhow!("{}: warp {w}: {e}", r.name))?;
        out(w * WARP_SIZE, warp);
    }
    Ok(())
}

/// Warps a block of the texture unit's timing: their queries (about 900 bytes a warp) are
/// copied into a reused block before its time starts, so they come from the cache as a
/// warp's registers do on the executor's side, not from the 30 MB of all warps' queries.
const UNIT_BLOCK: usize = 16;

/// Runs every warp's queries through the texture unit alone ([`Gatherer::gather_lanes`]),
/// calling `out` with each warp's index and results. Returns the seconds spent in the
/// gathers (and `out`), block by block ([`UNIT_BLOCK`]).
fn run_texture_unit(r: &Ready, mut out: impl FnMut(usize, &LaneResults)) -> Result<f64> {
    let g = Gatherer::new(
        r.pool.texture(r.texture)?,
        r.pool.sampler(r.sampler)?,
        &r.op,
        r.precision,
    )
    .with_context(|| r.name.to_string())?;
    let mut results = LaneResults::new();
    let mut block = Vec::with_capacity(UNIT_BLOCK);
    let mut secs = 0.0;
    for (b, warps) in r.lane_queries.chunks(UNIT_BLOCK).enumerate() {
        block.clear();
        block.extend_from_slice(warps);
        let start = Instant::now();
        for (k, q) in block.iter().enumerate() {
            g.gather_lanes(q, &mut results);
            out(b * UNIT_BLOCK + k, &results);
        }
        secs += start.elapsed().as_secs_f64();
    }
    Ok(secs)
}

/// The texture unit alone must return what the executor writes, lane for lane, and the
/// executor must write the same bound once and through `execute` a warp.
fn texture_unit_matches(r: &Ready) -> Result<()> {
    let mut executed = Vec::with_capacity(r.gathers());
    run_tld4(r, &mut WarpState::new(), Call::Bound, |_, warp| {
        executed.extend((0..WARP_SIZE).map(|lane| gathered(warp, lane)));
    })?;
    let mut each = Vec::with_capacity(r.gathers());
    run_tld4(r, &mut WarpState::new(), Call::Execute, |_, warp| {
        each.extend((0..WARP_SIZE).map(|lane| gathered(warp, lane)));
    })?;
    anyhow::ensure!(
        each == executed,
        "{}: `execute` a warp wrote other values than the bound executor",
        r.name
    );
    let mut mismatch = None;
    run_texture_unit(r, |w, results| {
        for lane in 0..r.lane_queries[w].len() {
            let unit = results.get(lane).map(|g| g.values);
            if mismatch.is_none() && unit != Some(executed[w * WARP_SIZE + lane]) {
                mismatch = Some((w, lane, unit));
            }
        }
    })?;
    if let Some((w, lane, unit)) = mismatch {
        anyhow::bail!(
            "{}: warp {w} lane {lane}: the texture unit alone returned {unit:08x?}, the executor wrote {:08x?}",
            r.name,
            executed[w * WARP_SIZE + lane]
        );
    }
    Ok(())
}

/// The four values lane `lane`'s TLD4 wrote: R8..R11, where every row's instruction puts
/// its results.
fn gathered(warp: &WarpState, lane: usize) -> [u32; 4] {
    [8u8, 9, 10, 11].map(|reg| warp.reg(lane, reg))
}

/// How many gathers tld4 and lavapipe's one-gather dispatch agree on, within 1 ulp of each
/// result's f32 bits.
fn agreement(r: &Ready, lavapipe: &[[u32; 4]]) -> Result<usize> {
    let mut warp = WarpState::new();
    let mut agree = 0;
    run_tld4(r, &mut warp, Call::Bound, |first, warp| {
        for (lane, theirs) in lavapipe[first..].iter().take(WARP_SIZE).enumerate() {
            let ours = gathered(warp, lane);
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

/// How many invocations of the K-gather dispatch equal the XOR of their K gathers in the
/// one-gather dispatch of the expanded queries.
fn k_gather_matches(k_results: &[[u32; 4]], one_results: &[[u32; 4]], gathers: usize) -> usize {
    k_results
        .iter()
        .zip(one_results.chunks(gathers))
        .filter(|(acc, singles)| {
            let xor = singles
                .iter()
                .fold([0u32; 4], |a, r| std::array::from_fn(|c| a[c] ^ r[c]));
            **acc == xor
        })
        .count()
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

/// The smaller of a running minimum and a new ratio.
fn lower(min: &mut Option<f64>, ratio: f64) {
    *min = Some(min.map_or(ratio, |m: f64| m.min(ratio)));
}

/// A median over the rounds, in seconds for a row's gathers, and its spread
/// ((max - min) / median).
#[derive(Debug, Clone, Copy)]
struct Median {
    secs: f64,
    spread: f64,
}

impl Median {
    fn of(mut v: Vec<f64>) -> Median {
        let (secs, spread) = median_spread(&mut v);
        Median { secs, spread }
    }
}

/// One row's timed rounds: lavapipe's K-gather dispatch, its twin and their difference; tld4
/// bound once, `execute` a warp, and the texture unit alone.
struct Timings {
    dispatch: Median,
    twin: Median,
    net: Median,
    bound: Median,
    execute: Median,
    unit: Median,
}

/// The smallest ratio of each kind over the rows so far (`None`: none measured).
#[derive(Debug, Default)]
struct Minima {
    whole: Option<f64>,
    net: Option<f64>,
    unit: Option<f64>,
    execute: Option<f64>,
}

/// Times `rounds` rounds of a row, the sides in alternating order.
fn time_row(r: &Ready, rounds: usize, gather: &mut Gpu, twin: &mut Gpu) -> Result<Timings> {
    let mut warp = WarpState::new();
    let (mut tg, mut tt, mut t4, mut tu) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut te = Vec::new();
    for round in 0..rounds {
        let mut lp = |tg: &mut Vec<f64>, tt: &mut Vec<f64>| -> Result<()> {
            tg.push(secs(|| gather.run(std::slice::from_ref(&r.job)).map(drop))?);
            tt.push(secs(|| twin.run(std::slice::from_ref(&r.job)).map(drop))?);
            Ok(())
        };
        if round % 2 == 0 {
            lp(&mut tg, &mut tt)?;
        }
        for (call, times) in [(Call::Bound, &mut t4), (Call::Execute, &mut te)] {
            times.push(secs(|| {
                run_tld4(r, &mut warp, call, |_, w| {
                    std::hint::black_box(w.reg(0, 8));
                })
            })?);
        }
        tu.push(run_texture_unit(r, |_, results| {
            std::hint::black_box(results);
        })?);
        if round % 2 == 1 {
            lp(&mut tg, &mut tt)?;
        }
    }
    let nets: Vec<f64> = tg.iter().zip(&tt).map(|(g, t)| g - t).collect();
    Ok(Timings {
        dispatch: Median::of(tg),
        twin: Median::of(tt),
        net: Median::of(nets),
        bound: Median::of(t4),
        execute: Median::of(te),
        unit: Median::of(tu),
    })
}

/// A row's printed line; lowers `mins` by the row's ratios.
fn row_line(
    r: &Ready,
    t: &Timings,
    mins: &mut Minima,
    same: usize,
    n: usize,
    agree: usize,
) -> String {
    let gathers = r.gathers();
    let (g, net, unit) = (t.dispatch.secs, t.net.secs, t.unit.secs);
    let per = |s: f64| s / gathers as f64;
    let ours_rate = gathers as f64 / t.bound.secs;
    let whole_rate = gathers as f64 / g;
    let whole = ours_rate / whole_rate;
    lower(&mut mins.whole, whole);
    let each_rate = gathers as f64 / t.execute.secs;
    lower(&mut mins.execute, each_rate / whole_rate);
    let mut line = format!(
        "{:<38} tld4 {:>7.1} M gathers/s (spread {:>3.0}%) | lavapipe whole dispatch {:>6.1} M gathers/s (spread {:>3.0}%): whole-dispatch tld4/lavapipe {whole:.2} | lavapipe net {:>6.1} ns/gather (dispatch {:.1} - twin {:.1} ns, spread {:>3.0}%): net tld4/lavapipe ",
        r.name,
        ours_rate / 1e6,
        t.bound.spread * 100.0,
        whole_rate / 1e6,
        t.dispatch.spread * 100.0,
        per(net) * 1e9,
        per(g) * 1e9,
        per(t.twin.secs) * 1e9,
        t.net.spread * 100.0,
    );
    if net > 0.0 {
        let ratio = ours_rate * per(net);
        lower(&mut mins.net, ratio);
        let _ = write!(line, "{ratio:.2}");
    } else {
        line.push_str("n/a (net cost not positive: noise; raise --n)");
    }
    let _ = write!(
        line,
        " | tld4 texture unit alone {:.1} ns/gather (spread {:>3.0}%): lavapipe net/texture unit ",
        per(unit) * 1e9,
        t.unit.spread * 100.0
    );
    if net > 0.0 {
        let ratio = net / unit;
        lower(&mut mins.unit, ratio);
        let _ = write!(line, "{ratio:.2}");
    } else {
        line.push_str("n/a");
    }
    let _ = write!(
        line,
        " | tld4 execute a warp {:.1} M gathers/s (spread {:>3.0}%): whole-dispatch execute/lavapipe {:.2}",
        each_rate / 1e6,
        t.execute.spread * 100.0,
        each_rate / whole_rate
    );
    let _ = write!(
        line,
        " | K-gather = one-gather {same}/{n} | results agree {agree}/{gathers}"
    );
    line
}

/// `tld4-lavapipe bench`: prints one line per row, `min net ratio vs lavapipe: Y` and last
/// `min ratio vs lavapipe: X`; exits 1 if a K-gather dispatch differs from its one-gather
/// check.
pub fn bench(driver: &str, n: usize, rounds: usize, pin: Pin) -> Result<ExitCode> {
    // before lavapipe creates its worker thread, which inherits the pin
    let pinned = pin_thread(pin)?;
    if std::env::var_os("LP_NUM_THREADS").is_none() {
        // lavapipe reads it when the device is created (Mesa's llvmpipe: its thread count).
        std::env::set_var("LP_NUM_THREADS", "1");
    }
    let n = n.max(WARP_SIZE);
    let rounds = rounds.max(1);
    let mut single = Gpu::new(driver)?;
    let mut gather = Gpu::with_shader(driver, &shader(GATHERS, false))?;
    let mut twin = Gpu::with_shader(driver, &shader(GATHERS, true))?;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "tld4-lavapipe bench: {} ({}), LP_NUM_THREADS={}; {n} invocations a dispatch, K = {GATHERS} gathers each ({} gathers), median of {rounds} rounds (spread = (max - min) / median); tld4: the same gathers, one thread; both sides {}; load average {}",
        gather.info.device_name,
        gather.info.driver_info,
        std::env::var("LP_NUM_THREADS").unwrap_or_default(),
        n * GATHERS,
        pinned.map_or("not pinned".to_string(), |c| format!("pinned to CPU {c}")),
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    );
    let mut mins = Minima::default();
    let mut mismatched = Vec::new();
    for row in rows(n) {
        let r = prepare(row, &gather)?;
        // Warm-up: compiles the pipelines; the one-gather dispatch checks the K-gather one
        // and gives lavapipe's result of every gather for the agreement.
        let k_results = gather.run(std::slice::from_ref(&r.job))?.remove(0);
        twin.run(std::slice::from_ref(&r.job))?;
        let singles = single.run(std::slice::from_ref(&r.expanded))?.remove(0);
        let same = k_gather_matches(&k_results, &singles, GATHERS);
        if same != n {
            mismatched.push(r.name);
        }
        let agree = agreement(&r, &singles)?;
        let t = time_row(&r, rounds, &mut gather, &mut twin)?;
        let line = row_line(&r, &t, &mut mins, same, n, agree);
        println!("{line}");
    }
    let show = |m: Option<f64>| m.map_or("n/a".to_string(), |m| format!("{m:.2}"));
    println!(
        "min texture-unit ratio vs lavapipe net: {}",
        show(mins.unit)
    );
    println!("min net ratio vs lavapipe: {}", show(mins.net));
    println!(
        "min execute ratio vs lavapipe (Tld4Exec::execute a warp): {}",
        show(mins.execute)
    );
    println!("min ratio vs lavapipe: {}", show(mins.whole));
    if !mismatched.is_empty() {
        eprintln!(
            "the K-gather dispatch differs from the XOR of its one-gather dispatch for: {}",
            mismatched.join("; ")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_xor_check_counts_matching_invocations() {
        let results = [[1u32, 2, 3, 4], [1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 4]];
        // Gathers 0..3 of one invocation XOR to [0, 0, 0, 0]; the second invocation's to [1, 2, 3, 4].
        let k = vec![[0u32, 0, 0, 0], [1, 2, 3, 4]];
        let singles = [results, [[1, 2, 3, 4], [0; 4], [0; 4], [0; 4]]].concat();
        assert_eq!(k_gather_matches(&k, &singles, 4), 2);
        assert_eq!(
            k_gather_matches(&[[0, 0, 0, 1], [1, 2, 3, 4]], &singles, 4),
            1
        );
    }
}
