"""tld4.gather against the Rust texture unit on the same 1,000,000 queries, in one run.

The Rust side is `Gatherer::gather_lanes` over the queries already packed into 32-lane
blocks (`tld4._native._rust_gather_lanes_seconds`: packing not timed); the Python side is the
whole `tld4.gather` call (reading the numpy coordinates, packing, gathering, writing the
(n, 4) result). Rounds alternate the two; the ratio of each round is printed, then the median
and the spread (min..max). Usage: python python/bench/gather_bench.py [N] [ROUNDS] [FORMAT]
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import tld4
from tld4 import _native


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    fmt = sys.argv[3] if len(sys.argv) > 3 else "rgba8_unorm"
    rng = np.random.default_rng(20261203)
    shape, dtype = tld4.Texture.texel_shape("2d", fmt, 256, 256)
    texels = rng.integers(0, 256, size=shape).astype(dtype)
    tex = tld4.Texture("2d", fmt, texels)
    smp = tld4.Sampler(address_u="repeat", address_v="mirrored_repeat")
    coords = rng.uniform(-2.0, 3.0, size=(n, 2)).astype(np.float32)
    tld4.gather(tex, smp, coords[:1000])  # warm up (page faults, first-call setup)
    ratios, py_times, rust_times = [], [], []
    for _ in range(rounds):
        t = time.perf_counter()
        tld4.gather(tex, smp, coords)
        py = time.perf_counter() - t
        rust = _native._rust_gather_lanes_seconds(tex, smp, coords, 1)[0]
        py_times.append(py)
        rust_times.append(rust)
        ratios.append(py / rust)
    print(f"{n} queries, {fmt} 256x256, {rounds} rounds")
    print("tld4.gather  s:", " ".join(f"{x:.4f}" for x in py_times))
    print("gather_lanes s:", " ".join(f"{x:.4f}" for x in rust_times))
    print("ratio         :", " ".join(f"{x:.3f}" for x in ratios))
    med = statistics.median(ratios)
    print(
        f"tld4.gather / Rust gather_lanes: median {med:.3f}x (spread {min(ratios):.3f}..{max(ratios):.3f}); "
        f"{n / statistics.median(py_times) / 1e6:.1f} M queries/s from Python, "
        f"{n / statistics.median(rust_times) / 1e6:.1f} M/s in Rust"
    )


if __name__ == "__main__":
    main()
