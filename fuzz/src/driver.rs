//! The driver: runs inputs under `catch_unwind`, saves the ones that panic, checks the seeds
//! against their manifest, then mutates for a bounded time.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::corpus::{Expect, Seed};
use crate::mutate::next_input;
use crate::targets::{Target, Verdict};

thread_local! {
    /// Whether this thread is running a fuzz input (its panics are recorded, not printed).
    static FUZZING: Cell<bool> = const { Cell::new(false) };
    /// The message and place of the last panic of a fuzz input on this thread.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Installs (once) a panic hook that records a fuzz input's panic instead of printing it; a
/// panic outside a fuzz input goes to the hook that was there before.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if FUZZING.with(Cell::get) {
                let place = info
                    .location()
                    .map(|l| format!(" at {}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                let payload = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_string());
                LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{payload}{place}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs one input, catching a panic: `Err` holds the panic's message and place.
pub fn run_caught(target: Target, input: &[u8]) -> Result<Verdict, String> {
    catch(|| target.run(input))
}

/// Runs `f`, catching a panic: `Err` holds the panic's message and place (not printed).
pub fn catch(f: impl FnOnce() -> Verdict) -> Result<Verdict, String> {
    install_hook();
    FUZZING.with(|f| f.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    FUZZING.with(|f| f.set(false));
    result.map_err(|_| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "a panic".to_string())
    })
}

/// An input that panicked.
#[derive(Clone, Debug)]
pub struct Crash {
    /// The target.
    pub target: Target,
    /// The panic's message and place.
    pub message: String,
    /// Where the input was saved (`None` if it could not be written; the error is in `message`).
    pub saved: Option<PathBuf>,
}

/// Where crashing inputs go by default: `target/fuzz-crashes/` of the workspace.
pub fn default_crash_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("fuzz-crashes")
}

/// FNV-1a over the input: a stable file name for it.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Saves a crashing input as `<dir>/<target>-<hash>` (and its message beside it, `.txt`).
pub fn save(dir: &Path, target: Target, input: &[u8], message: &str) -> Crash {
    let path = dir.join(format!("{}-{:016x}", target.name(), fnv1a(input)));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, input))
        .and_then(|()| std::fs::write(path.with_extension("txt"), format!("{message}\n")));
    match written {
        Ok(()) => Crash {
            target,
            message: message.to_string(),
            saved: Some(path),
        },
        Err(e) => Crash {
            target,
            message: format!(
                "{message} (the input could not be saved to {}: {e})",
                path.display()
            ),
            saved: None,
        },
    }
}

/// A seed whose verdict differs from its manifest entry.
#[derive(Clone, Debug)]
pub struct WrongVerdict {
    /// The seed's name.
    pub seed: String,
    /// What the manifest says.
    pub expected: Expect,
    /// What it got.
    pub got: Verdict,
}

/// What a run of the fuzzer did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Inputs tried per target (seeds included), in [`Target::ALL`] order.
    pub tried: Vec<(Target, u64)>,
    /// Inputs refused per target, in the same order.
    pub refused: Vec<(Target, u64)>,
    /// Every input that panicked.
    pub crashes: Vec<Crash>,
    /// Seeds whose verdict is not the manifest's.
    pub wrong_verdicts: Vec<WrongVerdict>,
}

impl Report {
    /// No crash and every seed as its manifest says.
    pub fn ok(&self) -> bool {
        self.crashes.is_empty() && self.wrong_verdicts.is_empty()
    }
}

/// The fuzzer's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Mutation time, shared equally by the targets (after the seeds): CPU time, the
    /// targets running side by side on [`Settings::jobs`] threads.
    pub duration: Duration,
    /// The random generator's seed.
    pub seed: u64,
    /// Where crashing inputs are saved.
    pub crash_dir: PathBuf,
    /// The targets to fuzz.
    pub targets: Vec<Target>,
    /// Threads the targets run on, each target on one (at least 1; the report is the same
    /// in shape whatever the number).
    pub jobs: usize,
}

/// What one target's run did (merged into the [`Report`] in the targets' order).
#[derive(Default)]
struct TargetRun {
    tried: u64,
    refused: u64,
    crashes: Vec<Crash>,
    wrong_verdicts: Vec<WrongVerdict>,
}

/// Runs every seed (checking its verdict), then mutates each target's seeds for its share of
/// the time, the targets side by side on `settings.jobs` threads (a target's inputs depend
/// on its own random stream only). A seed's crash is reported like any other.
pub fn fuzz(seeds: &[Seed], settings: &Settings) -> Report {
    let share = settings.duration / settings.targets.len().max(1) as u32;
    let next = AtomicUsize::new(0);
    let runs: Mutex<Vec<Option<TargetRun>>> =
        Mutex::new(settings.targets.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..settings.jobs.clamp(1, settings.targets.len().max(1)) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&target) = settings.targets.get(k) else {
                    break;
                };
                let run = fuzz_target(k, target, seeds, settings, share);
                runs.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(run);
            });
        }
    });
    let mut report = Report::default();
    let runs = runs.into_inner().unwrap_or_else(|e| e.into_inner());
    for (&target, run) in settings.targets.iter().zip(runs) {
        let run = run.expect("every target ran (a worker's panic ends the scope first)");
        report.tried.push((target, run.tried));
        report.refused.push((target, run.refused));
        report.crashes.extend(run.crashes);
        report.wrong_verdicts.extend(run.wrong_verdicts);
    }
    report
}

/// Target `target` (the `k`th of the settings'): its seeds, then `share` of mutation.
fn fuzz_target(
    k: usize,
    target: Target,
    seeds: &[Seed],
    settings: &Settings,
    share: Duration,
) -> TargetRun {
    let mut run = TargetRun::default();
    let record = |input: &[u8], run: &mut TargetRun| -> Option<Verdict> {
        run.tried += 1;
        match run_caught(target, input) {
            Ok(v) => {
                run.refused += u64::from(v.is_refused());
                Some(v)
            }
            Err(message) => {
                run.crashes
                    .push(save(&settings.crash_dir, target, input, &message));
                None
            }
        }
    };
    let mine: Vec<&Seed> = seeds.iter().filter(|s| s.target == target).collect();
    for seed in &mine {
        if let Some(got) = record(&seed.data, &mut run) {
            if got.is_refused() != (seed.expect == Expect::Refuse) {
                run.wrong_verdicts.push(WrongVerdict {
                    seed: seed.name.clone(),
                    expected: seed.expect,
                    got,
                });
            }
        }
    }
    // Accepted seeds three times over: their mutants reach further than a refused one's.
    let pool: Vec<Vec<u8>> = mine
        .iter()
        .flat_map(|s| {
            let n = if s.expect == Expect::Accept { 3 } else { 1 };
            std::iter::repeat_n(s.data.clone(), n)
        })
        .collect();
    // One stream per target, so that a target's inputs do not depend on the others'.
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed ^ (k as u64).wrapping_mul(0x9e37_79b9));
    let end = Instant::now() + share;
    while Instant::now() < end {
        let input = next_input(target, &pool, &mut rng);
        record(&input, &mut run);
    }
    run
}
