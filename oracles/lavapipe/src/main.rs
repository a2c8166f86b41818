//! `tld4-lavapipe`: reference gathers from a Vulkan driver (lavapipe unless told otherwise).
//!
//! * `fill IN.json OUT.json [--driver NAME]`: run every query of a `tld4 gather` cases file on
//!   the driver and write the file back with each `result` filled in (plus OUT.meta.json:
//!   driver, date, generator, skipped cases).
//! * `generate --seed S --count N OUT.json`: a random corpus (and OUT.meta.json with the seed).
//! * `compare CORPUS.json [OURS.json]`: agreement report of a filled corpus against the texture
//!   unit (or against another filled file): exact, 1 ulp, ambiguous by category, real.
//! * `strict CORPUS.json OUT.json`: the queries `tld4 gather --check` must pass exactly.
//! * `devices`: the Vulkan devices and drivers present.
//! * `bench [--n N] [--rounds R]`: lavapipe and tld4's executor side by side, K gathers an
//!   invocation (`src/bench.rs`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use tld4_gather_cases::{self as cases, CasesFile};
use tld4_lavapipe::corpus::{self, Meta, Skipped};
use tld4_lavapipe::generate;
use tld4_textures::GatherResult;

mod bench;
mod pack;
mod vulkan;

#[derive(Parser, Debug)]
#[command(
    name = "tld4-lavapipe",
    about = "Reference gathers from a Vulkan driver for the TLD4 texture unit"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Fill every query's result from the Vulkan driver.
    Fill {
        /// Cases file to read.
        input: PathBuf,
        /// Filled file to write (compact JSON, one case per line).
        output: PathBuf,
        /// Driver to use: a substring of the driver name, driver info, device name or driver
        /// id ("lavapipe" = Mesa's llvmpipe; "nvidia" for NVIDIA's proprietary driver).
        #[arg(long, default_value = "lavapipe")]
        driver: String,
        /// Cases per queue submission.
        #[arg(long, default_value_t = 64)]
        batch: usize,
    },
    /// Write a random corpus.
    Generate {
        /// Seed (recorded in OUT.meta.json).
        #[arg(long)]
        seed: u64,
        /// Queries (at least).
        #[arg(long)]
        count: usize,
        /// Corpus file to write.
        output: PathBuf,
    },
    /// Agreement report: a filled corpus against the texture unit, or against OURS.json.
    Compare {
        /// The reference corpus (results from the driver).
        corpus: PathBuf,
        /// Our results for the same queries (default: run the texture unit now).
        ours: Option<PathBuf>,
        /// How many disagreements of each kind to list.
        #[arg(long, default_value_t = 50)]
        list: usize,
    },
    /// Write the queries of a filled corpus that `tld4 gather --check` must pass exactly:
    /// those away from ambiguous spots and not sRGB colour channels.
    Strict {
        /// Filled corpus.
        corpus: PathBuf,
        /// Subset to write.
        output: PathBuf,
    },
    /// List the Vulkan devices.
    Devices,
    /// Time lavapipe (LP_NUM_THREADS=1) and tld4's executor (one thread) on the same gathers.
    Bench {
        /// Invocations a dispatch, K gathers each (tld4 runs N x K lane gathers a round).
        #[arg(long, default_value_t = 1 << 16)]
        n: usize,
        /// Rounds; the median is reported.
        #[arg(long, default_value_t = 7)]
        rounds: usize,
        /// Driver to use (as for `fill`).
        #[arg(long, default_value = "lavapipe")]
        driver: String,
        /// The CPU both sides run on: `auto` (the one the process starts on), a CPU number,
        /// or `none` (not pinned: tld4's thread and lavapipe's worker may run on different
        /// CPUs, which on a shared machine may differ in speed).
        #[arg(long, default_value = "auto")]
        pin: bench::Pin,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Cmd::Fill {
            input,
            output,
            driver,
            batch,
        } => fill(&input, &output, &driver, batch.max(1)),
        Cmd::Generate {
            seed,
            count,
            output,
        } => gen(seed, count, &output),
        Cmd::Compare { corpus, ours, list } => compare(&corpus, ours.as_deref(), list),
        Cmd::Strict { corpus, output } => strict(&corpus, &output),
        Cmd::Devices => devices(),
        Cmd::Bench {
            n,
            rounds,
            driver,
            pin,
        } => bench::bench(&driver, n, rounds, pin),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tld4-lavapipe: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn read_cases(path: &Path) -> Result<CasesFile> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    cases::parse(&text).with_context(|| format!("parsing {}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

fn gen(seed: u64, count: usize, output: &Path) -> Result<ExitCode> {
    let (file, info) = generate::generate(seed, count);
    write(output, &corpus::to_compact_json(&file)?)?;
    let meta = Meta {
        generator: Some(info),
        cases: file.cases.len(),
        queries: corpus::query_count(&file),
        ..Meta::default()
    };
    write(&corpus::meta_path(output), &corpus::meta_json(&meta))?;
    eprintln!(
        "generated {} cases, {} queries (seed {seed}) -> {}",
        meta.cases,
        meta.queries,
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn fill(input: &Path, output: &Path, driver: &str, batch: usize) -> Result<ExitCode> {
    let start = Instant::now();
    let mut file = read_cases(input)?;
    let mut meta = corpus::read_meta(input)
        .map_err(anyhow::Error::msg)?
        .unwrap_or_default();
    let mut gpu = vulkan::Gpu::new(driver)?;
    eprintln!(
        "device: {} ({}, {}), custom border colours: {}, mirror clamp: {}, gather offsets {}..={}",
        gpu.info.device_name,
        gpu.info.driver_name,
        gpu.info.driver_info,
        gpu.caps.custom_border,
        gpu.caps.mirror_clamp,
        gpu.caps.gather_offsets.0,
        gpu.caps.gather_offsets.1
    );
    // Build the jobs; a case the driver cannot run is skipped with its reason.
    let mut jobs = Vec::new();
    let mut keep = Vec::new();
    let mut skipped = Vec::new();
    for (ci, case) in file.cases.iter().enumerate() {
        let fmt = case.texture.format;
        let why = (|| -> Result<vulkan::Job> {
            let prepared = cases::prepare(case, ci)?;
            gpu.format_supported(pack::vk_format(fmt)?, case.sampler.compare.is_some())
                .map_err(anyhow::Error::msg)?;
            pack::job(case, &prepared, &gpu.caps)
        })();
        match why {
            Ok(j) => {
                jobs.push(j);
                keep.push(ci);
            }
            Err(e) => {
                eprintln!(
                    "skipping cases[{ci}] ({} {}): {e:#}",
                    fmt.name(),
                    pack::kind_name(case.texture.dim)
                );
                skipped.push(Skipped {
                    case: ci,
                    format: fmt.name(),
                    reason: format!("{e:#}"),
                    queries: case.queries.len(),
                });
            }
        }
    }
    let mut results = Vec::with_capacity(jobs.len());
    for chunk in jobs.chunks(batch) {
        results.extend(gpu.run(chunk)?);
    }
    let mut kept = Vec::with_capacity(keep.len());
    for (ci, res) in keep.iter().zip(results) {
        let mut case = file.cases[*ci].clone();
        let fmt = case.texture.format;
        for (q, words) in case.queries.iter_mut().zip(res) {
            let kind = cases::result_kind(fmt, q.dref.is_some());
            let r = GatherResult {
                values: words,
                resident: true,
            };
            q.result = Some(cases::result_nums(kind, &r));
        }
        kept.push(case);
    }
    file.cases = kept;
    let mut info = gpu.info.clone();
    info.date = utc_now();
    meta.filled_by = Some(info);
    meta.skipped = skipped;
    meta.cases = file.cases.len();
    meta.queries = corpus::query_count(&file);
    write(output, &corpus::to_compact_json(&file)?)?;
    write(&corpus::meta_path(output), &corpus::meta_json(&meta))?;
    eprintln!(
        "filled {} cases, {} queries ({} cases skipped) in {:.1} s -> {}",
        meta.cases,
        meta.queries,
        meta.skipped.len(),
        start.elapsed().as_secs_f64(),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn compare(corpus_path: &Path, ours: Option<&Path>, list: usize) -> Result<ExitCode> {
    let reference = read_cases(corpus_path)?;
    let report = match ours {
        Some(p) => corpus::compare_files(&reference, &read_cases(p)?)?,
        None => corpus::compare_with_texture_unit(&reference)?,
    };
    print!("{}", report.render(list));
    Ok(if report.real.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn strict(input: &Path, output: &Path) -> Result<ExitCode> {
    let file = read_cases(input)?;
    let sub = corpus::strict_subset(&file);
    write(output, &corpus::to_compact_json(&sub)?)?;
    eprintln!(
        "kept {} of {} queries (away from ambiguous spots, no sRGB colour) -> {}",
        corpus::query_count(&sub),
        corpus::query_count(&file),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn devices() -> Result<ExitCode> {
    for d in vulkan::device::list_devices()? {
        println!(
            "{}: driver {} ({}), id {}, Vulkan {}, conformance {}",
            d.device_name,
            d.driver_name,
            d.driver_info,
            d.driver_id,
            d.api_version,
            d.conformance_version
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The current UTC time as ISO 8601 (civil-from-days, H. Hinnant's algorithm).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
