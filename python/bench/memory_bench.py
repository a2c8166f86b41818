"""A loop of one-shot `Exec.execute_memory` calls through a callback memory
(`Memory.from_callback`, what it read kept across calls) against the same loop over the same
bytes as ranges (`Memory.from_ranges`), in one run.

For each workload (RGBA8 256x256 2D, repeat; RGBA8 64x64 cube array of 4 layers, clamp;
block-linear, as `Memory.from_textures` lays them out), rounds alternate the two memories,
each round N calls over 8 warps of random coordinates; the ratio of each round's rates is
kept, and the median and spread (min..max) printed, with the callback's calls over the whole
run (after the first call, none: that is the point of keeping). A last row clears the callback
memory before every call (what a memory that keeps nothing across calls costs: every call
fetches the texture again), over fewer calls.
Usage: python python/bench/memory_bench.py [N] [ROUNDS]
"""

from __future__ import annotations

import statistics
import time
from typing import Optional

import numpy as np

import tld4
from bench_args import parser, positive

WARPS = 8


class Backing:
    """The regions a callback reads, its calls counted."""

    def __init__(self, regions: list[tuple[int, bytes]]) -> None:
        self.regions = regions
        self.calls = 0

    def read(self, address: int, size: int) -> Optional[bytes]:
        self.calls += 1
        for a, b in self.regions:
            if a <= address and address + size <= a + len(b):
                return b[address - a : address - a + size]
        return None


def workload(kind: str, rng: np.random.Generator) -> tuple[tld4.Memory, tld4.Exec, list[tld4.Warp]]:
    """The memory laid out, the instruction and the warps of a workload."""
    if kind == "2d":
        shape, dtype = tld4.Texture.texel_shape("2d", "rgba8_unorm", 256, 256)
        tex = tld4.Texture("2d", "rgba8_unorm", rng.integers(0, 256, size=shape).astype(dtype))
        smp = tld4.Sampler(address_u="repeat", address_v="repeat")
        text = "TLD4.R R10, R8, R20, UR4, 2D ;"
    else:
        shape, dtype = tld4.Texture.texel_shape("cube_array", "rgba8_unorm", 64, 64, layers=4)
        tex = tld4.Texture("cube_array", "rgba8_unorm", rng.integers(0, 256, size=shape).astype(dtype), layers=4)
        smp = tld4.Sampler()
        text = "TLD4.G R10, R8, R20, UR4, ARRAY_CUBE ;"
    mem = tld4.Memory.from_textures([(tex, smp)], layout="block-linear")
    warps = []
    for _ in range(WARPS):
        w = tld4.Warp()
        if kind == "2d":
            w.regs.view(np.float32)[20:22] = rng.uniform(-2.0, 3.0, size=(2, 32))
        else:
            w.regs[20] = rng.integers(0, 4, size=32)
            w.regs.view(np.float32)[21:24] = rng.uniform(-1.0, 1.0, size=(3, 32))
        warps.append(w)
    return mem, tld4.Exec(tld4.decode(tld4.assemble(text))), warps


def rate(exec_: tld4.Exec, warps: list[tld4.Warp], mem: tld4.Memory, n: int, clear: bool = False) -> float:
    """Calls a second over n calls."""
    t = time.perf_counter()
    for i in range(n):
        if clear:
            mem.clear()
        exec_.execute_memory(warps[i % WARPS], mem)
    return n / (time.perf_counter() - t)


def main() -> None:
    p = parser(__doc__)
    p.add_argument("n", nargs="?", type=positive, default=20_000, help="calls a round (default 20000)")
    p.add_argument("rounds", nargs="?", type=positive, default=7, help="rounds a workload (default 7)")
    a = p.parse_args()
    n, rounds = a.n, a.rounds
    rng = np.random.default_rng(20261206)
    print(f"{n} execute_memory calls a round, {rounds} rounds a workload")
    for kind in ("2d", "cube_array"):
        laid_out, exec_, warps = workload(kind, rng)
        regions = [(a, bytes(b)) for a, b in laid_out.regions()]
        ranges = tld4.Memory.from_ranges(regions, laid_out.header_pool, laid_out.sampler_pool)
        backing = Backing(regions)
        through = tld4.Memory.from_callback(backing.read, laid_out.header_pool, laid_out.sampler_pool)
        for w in warps:  # the same results, and the first fetch out of the rounds
            want = exec_.execute_memory(w, ranges)[1]
            np.testing.assert_array_equal(exec_.execute_memory(w, through)[1], want)
        first = backing.calls
        ratios, rates = [], []
        for _ in range(rounds):
            r = rate(exec_, warps, ranges, n)
            c = rate(exec_, warps, through, n)
            ratios.append(c / r)
            rates.append((r, c))
        print(
            f"{kind:10} callback / ranges: median {statistics.median(ratios):.3f} (spread "
            f"{min(ratios):.3f}..{max(ratios):.3f}); {statistics.median(r for r, _ in rates) / 1e3:.0f} k "
            f"calls/s from ranges, {statistics.median(c for _, c in rates) / 1e3:.0f} k through the "
            f"callback; callback calls: {first} for the first {WARPS} calls, "
            f"{backing.calls - first} for the {rounds * n} after"
        )
        few = max(n // 20, 10)
        calls = backing.calls
        cleared = [rate(exec_, warps, through, few, clear=True) / rate(exec_, warps, ranges, few) for _ in range(3)]
        print(
            f"{'':10} cleared before every call / ranges: median {statistics.median(cleared):.3f} "
            f"({(backing.calls - calls) / (3 * few):.1f} callback calls a call)"
        )


if __name__ == "__main__":
    main()
