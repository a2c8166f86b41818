//! `tld4-fuzz`: runs the seed corpus, then mutates it for a bounded time; exit 1 on a crash
//! or on a seed whose verdict is not its manifest's, exit 2 on bad arguments or corpus.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use tld4_fuzz::{corpus, driver, Target};

/// Fuzz the TLD4 crates (word and assembly parsing, gather cases, scenarios, cubins,
/// memory-form scenarios, the C ABI).
#[derive(Parser)]
#[command(name = "tld4-fuzz")]
struct Args {
    /// Mutation time in seconds, shared equally by the targets: CPU time, the targets
    /// running side by side on `--jobs` threads (120 s on 2 threads take 60 s).
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Threads the targets run on, at least 1 (default: the CPUs this process may use).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    jobs: Option<usize>,
    /// The random generator's seed (the default is fixed, so runs repeat).
    #[arg(long, default_value_t = 0x7d4f)]
    seed: u64,
    /// The seed corpus (with its manifest.tsv).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Where crashing inputs are saved.
    #[arg(long)]
    crash_dir: Option<PathBuf>,
    /// Only these targets (word, asm, cases, scenario, cubin, memory, capi, http); default all.
    #[arg(long = "target", value_parser = parse_target)]
    targets: Vec<Target>,
}

fn parse_target(name: &str) -> Result<Target, String> {
    Target::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        format!("{name:?}: not one of {}", names.join(", "))
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    let dir = args.corpus.unwrap_or_else(corpus::default_dir);
    let seeds = match corpus::load(&dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let settings = driver::Settings {
        duration: Duration::from_secs(args.seconds),
        seed: args.seed,
        crash_dir: args.crash_dir.unwrap_or_else(driver::default_crash_dir),
        targets: if args.targets.is_empty() {
            Target::ALL.to_vec()
        } else {
            args.targets
        },
        jobs: args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
    };
    println!(
        "tld4-fuzz: {} seeds from {}, {} s on {} threads, seed {}",
        seeds.len(),
        dir.display(),
        args.seconds,
        settings.jobs,
        args.seed
    );
    let report = driver::fuzz(&seeds, &settings);
    for ((target, tried), (_, refused)) in report.tried.iter().zip(&report.refused) {
        println!("{target:>9}: {tried} inputs tried, {refused} refused");
    }
    for w in &report.wrong_verdicts {
        println!(
            "WRONG VERDICT: {}: the manifest says {:?}, got {:?}",
            w.seed, w.expected, w.got
        );
    }
    for c in &report.crashes {
        let at = c.saved.as_ref().map_or(String::new(), |p| {
            format!(" (input saved to {})", p.display())
        });
        println!("CRASH {}: {}{at}", c.target, c.message);
    }
    println!("{} crashes", report.crashes.len());
    if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
