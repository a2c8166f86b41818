//! Profiling aid: a one-shot call's three lookups a warp (the header, the sampler, the
//! texels: each a 32-byte view, in turn) in a [`SparseMemory`] of `REGIONS` regions
//! (default 3, a pool image's) and in a [`RangesMemory`] of the same, `ROUNDS` times
//! (default 100000). Deterministic: `valgrind --tool=callgrind` counts of two round counts,
//! differenced, are the instructions a round of three lookups (docs/benchmarks.md, "One-shot
//! memory calls").
//!
//! `REGIONS=64 cargo run --release -p tld4-gpu-memory --example lookups [ROUNDS]`
use std::hint::black_box;
use tld4_gpu_memory::{Memory, Range, RangesMemory, SparseMemory};

fn main() {
    let regions: usize = std::env::var("REGIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    // 4 KiB regions 64 KiB apart; the three looked up: the first, the middle one, the last
    let bytes = vec![1u8; 4096];
    let base = |k: usize| 0x1_0000_0000 + (k as u64) * 0x1_0000;
    let mut sparse = SparseMemory::new();
    for k in 0..regions {
        sparse
            .map(base(k), bytes.clone())
            .expect("separate regions");
    }
    let ranges = RangesMemory::new(
        (0..regions)
            .map(|k| Range {
                address: base(k),
                bytes: &bytes,
            })
            .collect(),
    )
    .expect("sorted, separate ranges");
    let at = [base(0) + 32, base(regions / 2) + 64, base(regions - 1)];
    let which = std::env::var("MEMORY").unwrap_or_default();
    let memory: &dyn Memory = if which == "ranges" { &ranges } else { &sparse };
    let mut sum = 0usize;
    for _ in 0..rounds {
        for &a in &at {
            sum += black_box(memory)
                .view(black_box(a), 32)
                .map_or(0, |v| v.len());
        }
    }
    println!("{} regions, {rounds} rounds: {sum} bytes viewed", regions);
}
