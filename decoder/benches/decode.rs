//! Decode throughput: the fast path ([`decode`], AVX2 where the CPU has it), the same over a
//! slice ([`decode_many`], into a buffer of [`BATCH`] results reused), its portable form
//! ([`decode_portable`]) and the detailed path ([`decode_detailed`]) timed in the same
//! process, in rotating order run by run, on the same legal words (the words of
//! `tld4 bench`'s `decode` line: random fields, a TLD4 opcode, bit 91 set, a legal opex).
//!
//! `cargo bench -p tld4-decoder --bench decode [-- RUNS] [PATH] [random]` prints, per path,
//! the median rate in M words/s, the spread ((max - min) / median) and the ratio of the
//! medians, then the same for refused words (random words, nearly all of them refused). Each
//! rate is given per wall-clock second and per second of the thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), which leaves out the time a busy machine keeps the thread off
//! the CPU. Naming one PATH (`decode`, `decode_many`, `decode_portable`, `decode_detailed`)
//! times only that one, on the legal words, or with `random` on the random words (to count
//! its instructions: `valgrind --tool=callgrind --toggle-collect='decode::pass*'` on the
//! bench binary with `RUNS` = 1: 2 x 16 x 65,536 decodes). The target (README, Benchmarks) is
//! 200 M words/s for `decode` on one core.

use std::hint::black_box;
use std::time::Instant;

use tld4_decoder::{
    decode, decode_detailed, decode_many, decode_portable, field, DecodeError, Tld4,
    LEGAL_OPEX_VALUES,
};

/// How many words [`decode_many`] decodes a call in the benchmark: 16 KiB of words into
/// 32 KiB of results, reused, so the results stay in the first-level cache as the single
/// `decode`'s one result does.
const BATCH: usize = 1024;

/// SplitMix64: enough randomness for benchmark words, with no dependency.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn word(&mut self) -> u128 {
        (self.next() as u128) << 64 | self.next() as u128
    }
}

fn legal_words(n: usize) -> Vec<u128> {
    let mut rng = SplitMix(1);
    (0..n)
        .map(|_| {
            let w = rng.word();
            let w = field::form.set(w, if rng.next() & 1 == 0 { 0xd64 } else { 0xf63 });
            let w = field::bit_91.set(w, 1);
            let opex = LEGAL_OPEX_VALUES[(rng.next() % LEGAL_OPEX_VALUES.len() as u64) as usize];
            field::batch_t.set(
                field::usched_info.set(w, opex as u32 & 0x1f),
                opex as u32 >> 5,
            )
        })
        .collect()
}

/// This thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`, exact to the
/// nanosecond; `/proc/thread-self/schedstat`, which an earlier version read, advances only at
/// scheduler ticks, too coarse for a pass of a few milliseconds), or None where it cannot be
/// read. On a shared machine the thread is often off the CPU; CPU time leaves those gaps out,
/// wall time does not.
fn cpu_ns() -> Option<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

/// One timed pass over `words`, `reps` times: words per second of wall time and of CPU time
/// (None where CPU time cannot be read). Generic, so the path is inlined into the loop as it
/// would be in a caller's own loop. The words are hidden from the optimizer once a pass (so
/// each is loaded from memory, as a caller's would be, not spilled and reloaded through
/// `black_box`), and each result is handed to `black_box` by reference, so it is stored
/// once, where the callee writes it (by value, `black_box` would copy its 32 bytes again).
#[inline(never)]
fn pass(
    f: impl Fn(u128) -> Result<Tld4, DecodeError>,
    words: &[u128],
    reps: usize,
) -> (f64, Option<f64>) {
    let cpu = cpu_ns();
    let t = Instant::now();
    for _ in 0..reps {
        for &w in black_box(words) {
            black_box(&f(w));
        }
    }
    let wall = t.elapsed().as_secs_f64();
    let n = (words.len() * reps) as f64;
    let cpu = match (cpu, cpu_ns()) {
        (Some(a), Some(b)) if b > a => Some(n / ((b - a) as f64 * 1e-9)),
        _ => None,
    };
    (n / wall, cpu)
}

/// [`pass`] for [`decode_many`]: the words in slices of [`BATCH`], decoded into one reused
/// buffer that is handed to `black_box` after each call.
#[inline(never)]
fn pass_many(words: &[u128], reps: usize) -> (f64, Option<f64>) {
    let mut out = vec![Err(DecodeError::Bit91Clear); BATCH];
    let cpu = cpu_ns();
    let t = Instant::now();
    for _ in 0..reps {
        for chunk in words.chunks(BATCH) {
            let out = &mut out[..chunk.len()];
            decode_many(black_box(chunk), out).expect("equal lengths");
            black_box(out);
        }
    }
    let wall = t.elapsed().as_secs_f64();
    let n = (words.len() * reps) as f64;
    let cpu = match (cpu, cpu_ns()) {
        (Some(a), Some(b)) if b > a => Some(n / ((b - a) as f64 * 1e-9)),
        _ => None,
    };
    (n / wall, cpu)
}

fn median_spread(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let m = v[v.len() / 2];
    (m, (v[v.len() - 1] - v[0]) / m)
}

fn compare(label: &str, words: &[u128], runs: usize, only: Option<&str>) {
    let reps = 16;
    let names = [
        "decode",
        "decode_many",
        "decode_portable",
        "decode_detailed",
    ];
    let on = |k: usize| only.is_none_or(|o| o == names[k]);
    let mut rates = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut cpu_rates = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for run in 0..=runs {
        // Rotate which path goes first, so drifting load hits all alike; run 0 warms up.
        for k in (0..4).map(|i| (i + run) % 4).filter(|&k| on(k)) {
            let rate = match k {
                0 => pass(decode, words, reps),
                1 => pass_many(words, reps),
                2 => pass(decode_portable, words, reps),
                _ => pass(decode_detailed, words, reps),
            };
            if run > 0 {
                rates[k].push(rate.0);
                cpu_rates[k].extend(rate.1);
            }
        }
    }
    let mut medians = [0.0; 4];
    for (k, name) in names.iter().enumerate().filter(|&(k, _)| on(k)) {
        let (m, spread) = median_spread(&mut rates[k]);
        medians[k] = m;
        let cpu = if cpu_rates[k].len() == runs {
            let (c, cs) = median_spread(&mut cpu_rates[k]);
            format!(
                "; per CPU second {:>6.1} M words/s (spread {:>4.0}%)",
                c / 1e6,
                cs * 100.0
            )
        } else {
            String::new()
        };
        println!(
            "{label:<8} {name:<16} {:>8.1} M words/s  (spread {:>4.0}%, {runs} runs){cpu}",
            m / 1e6,
            spread * 100.0
        );
    }
    if only.is_none() {
        println!(
            "{label:<8} / decode_detailed: decode {:.2}x, decode_many {:.2}x, decode_portable {:.2}x",
            medians[0] / medians[3],
            medians[1] / medians[3],
            medians[2] / medians[3]
        );
    }
}

fn main() {
    // Arguments (see the top of the file): a number of runs (default 11), a path's name, and
    // `random`; `--bench` (from cargo) is ignored.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = args
        .iter()
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(11)
        .max(1);
    let only = args.iter().map(String::as_str).find(|a| {
        matches!(
            *a,
            "decode" | "decode_many" | "decode_portable" | "decode_detailed"
        )
    });
    let legal = legal_words(1 << 16);
    let mut rng = SplitMix(2);
    let random: Vec<u128> = (0..1 << 16).map(|_| rng.word()).collect();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "decode bench: load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    // `random` with a path's name times that path on the random words instead.
    let random_only = args.iter().any(|a| a == "random");
    if !random_only || only.is_none() {
        compare("legal", &legal, runs, only);
    }
    if only.is_none() || random_only {
        compare("random", &random, runs, only);
    }
}
